package verdict

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/leaderaudit/leaderaudit/timeline"
)

// Client types of a setting (settingKeys).
const (
	cliProducer uint8 = 1 << iota
	cliConsumer
	cliAdmin
)

// settingKey is one client setting: the client type that defines it, the
// first release that does (0: 0.9 or earlier) and the first that no
// longer does (0: still defined).
type settingKey struct {
	key          string
	client       uint8
	since, until uint32
}

func rel(major, minor, patch int) uint32 {
	return uint32(major)<<16 | uint32(minor)<<8 | uint32(patch)
}

func (v version) rel() uint32 { return rel(v.major, v.minor, v.patch) }

func relName(r uint32) string {
	if r>>16 == 0 {
		return fmt.Sprintf("0.%d.%d", r>>8&0xff, r&0xff)
	}
	return fmt.Sprintf("%d.%d", r>>16, r>>8&0xff)
}

// definedAt reports whether k is defined by a client of version v (any
// version when v is unknown).
func (k settingKey) definedAt(v version) bool {
	if !v.ok {
		return true
	}
	r := v.rel()
	return (k.since == 0 || r >= k.since) && (k.until == 0 || r < k.until)
}

func clientType(class string) (uint8, string) {
	switch class {
	case "ProducerConfig":
		return cliProducer, "producer"
	case "ConsumerConfig":
		return cliConsumer, "consumer"
	case "AdminClientConfig":
		return cliAdmin, "admin client"
	}
	return 0, ""
}

// keyClass is what an unknown key is to the client that was given it.
type keyClass uint8

const (
	keyUnknown   keyClass = iota // no Kafka client setting: a framework's own, or a typo beyond one edit
	keyUnused                    // its own setting, reported unused (3.3+ lists those too)
	keyNearMiss                  // a real setting but for case, whitespace, separators or one edit
	keyTooNew                    // a setting of a later release
	keyRemoved                   // a setting an earlier release had
	keyOtherType                 // another client type's setting (group.id given to a producer)
)

// classify says what key, given to a client of type ct and version v, is:
// for a near miss, too new or removed key, also the real setting.
func classify(key string, ct uint8, v version) (keyClass, []settingKey) {
	var other bool
	var later []settingKey
	for _, s := range settingKeys {
		if s.key != key {
			continue
		}
		switch {
		case s.client != ct:
			other = true
		case s.definedAt(v):
			return keyUnused, []settingKey{s}
		default:
			later = append(later, s)
		}
	}
	if len(later) > 0 {
		if later[0].since > 0 && v.rel() < later[0].since {
			return keyTooNew, later[:1]
		}
		return keyRemoved, later[:1]
	}
	n := normKey(key)
	var exact, near []settingKey
	for _, s := range settingKeys {
		if s.client != ct || !s.definedAt(v) {
			continue
		}
		switch {
		case s.key == n:
			exact = append(exact, s)
		case oneEdit(n, s.key):
			near = append(near, s)
		}
	}
	if len(exact) > 0 {
		return keyNearMiss, exact
	}
	if other {
		// Exactly another client type's key: passed to every client by a
		// shared config, not a typo.
		return keyOtherType, nil
	}
	if len(near) > 0 {
		return keyNearMiss, near
	}
	return keyUnknown, nil
}

// normKey folds what a typo in a key most often is: case, stray
// whitespace, and '_' or '-' for '.'.
func normKey(k string) string {
	var b strings.Builder
	for _, r := range k {
		switch {
		case unicode.IsSpace(r):
		case r == '_' || r == '-':
			b.WriteByte('.')
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// oneEdit: a and b are one insertion, deletion, substitution or swap of
// two neighbours apart (optimal string alignment distance 1).
func oneEdit(a, b string) bool {
	la, lb := len(a), len(b)
	switch {
	case la == lb:
		i := 0
		for i < la && a[i] == b[i] {
			i++
		}
		if i == la {
			return false
		}
		if a[i+1:] == b[i+1:] {
			return true
		}
		return i+1 < la && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
	case la == lb+1:
		a, b = b, a
		la, lb = lb, la
		fallthrough
	case lb == la+1:
		i := 0
		for i < la && a[i] == b[i] {
			i++
		}
		return a[i:] == b[i+1:]
	}
	return false
}

// describeKey says what is off about key against the real one.
func describeKey(key, real string) string {
	var what []string
	right := strings.TrimRightFunc(key, unicode.IsSpace) != key
	left := strings.TrimLeftFunc(key, unicode.IsSpace) != key
	switch {
	case left && right:
		what = append(what, "spaces around it")
	case right:
		what = append(what, "a trailing space")
	case left:
		what = append(what, "a leading space")
	}
	t := strings.TrimSpace(key)
	if strings.IndexFunc(t, unicode.IsSpace) >= 0 {
		what = append(what, "a space inside")
	}
	if strings.ContainsAny(t, "_-") && !strings.ContainsAny(real, "_-") {
		what = append(what, "'_' or '-' for '.'")
	}
	if strings.ToLower(t) != t {
		what = append(what, "capitals")
	}
	if normKey(key) != real {
		what = append(what, "one letter off")
	}
	if len(what) == 0 {
		return "a typo"
	}
	return strings.Join(what, ", ")
}

// quoteKey shows a key with its stray spaces visible.
func quoteKey(k string) string { return "'" + k + "'" }

// keyUse aggregates one key given to one client (a client built many
// times logs it each time).
type keyUse struct {
	key   string
	value string // as given, where the line printed it
	n     int
	refs  []timeline.Ref
}

type cfgSubject struct {
	subject string
	kind    string // "producer", "consumer", "admin client"
	ct      uint8
	p       *producer // for a producer with a config block
	src     int
	keys    map[string]*keyUse
	order   []string
	// values: a consumer's or admin client's config block (producers: p).
	values map[string]string
}

// configKeys: settings a client was given but does not know. A near miss
// of a real setting is a warning: the client ran with that setting's
// default (named, with what it costs); other unknown keys are at most info.
func (f *finisher) configKeys() {
	if f.tl == nil || len(f.stats.UnknownConfigs) == 0 {
		return
	}
	subjects := map[string]*cfgSubject{}
	var names []string
	for i := range f.stats.UnknownConfigs {
		uc := &f.stats.UnknownConfigs[i]
		ct, kind := clientType(uc.Class)
		if ct == 0 {
			// Streams, Connect workers, ...: their own key sets, not read here.
			continue
		}
		var p *producer
		if uc.Producer {
			p = f.producerOf(uc.ClientID, uc.Ref.Source)
		}
		var subj string
		switch {
		case p != nil:
			subj = "producer " + f.producerName(p)
		case uc.ClientID != "" && !uc.Producer:
			subj = kind + " " + uc.ClientID
			if g := strings.TrimSpace(uc.Values["group.id"]); g != "" && g != "null" {
				subj += " (group " + g + ")"
			}
		default:
			subj = kind + " in " + filepath.Base(f.name(uc.Ref.Source))
		}
		cs := subjects[subj]
		if cs == nil {
			cs = &cfgSubject{subject: subj, kind: kind, ct: ct, p: p, src: uc.Ref.Source, keys: map[string]*keyUse{}}
			subjects[subj] = cs
			names = append(names, subj)
		}
		if uc.Values != nil {
			cs.values = uc.Values
		}
		var keys []string
		for k := range uc.Keys {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ku := cs.keys[k]
			if ku == nil {
				if len(cs.keys) >= 512 {
					continue
				}
				ku = &keyUse{key: k}
				cs.keys[k] = ku
				cs.order = append(cs.order, k)
			}

			ku.n++
			if v := uc.Keys[k]; v != "" {
				ku.value = v
			}
			if len(ku.refs) < 3 {
				ku.refs = append(ku.refs, uc.Ref)
			}
		}
	}
	sort.Strings(names)
	for _, n := range names {
		f.configSubject(subjects[n])
	}
}

// producerOf finds the producer whose config block a logUnused() line followed.
func (f *finisher) producerOf(id string, src int) *producer {
	var byID *producer
	for _, p := range f.producerList() {
		if !p.hasCfg || p.client == nil || p.client.ID != id {
			continue
		}
		if p.src == src {
			return p
		}
		if byID == nil {
			byID = p
		}
	}
	return byID
}

func (f *finisher) configSubject(cs *cfgSubject) {
	var ver version
	verText := "client version unknown"
	cfg := cs.values
	if cs.p != nil {
		ver = cs.p.set.ver
		verText = f.producerVersion(cs.p)
		cfg = cs.p.client.Config
	}
	sort.Strings(cs.order)
	var unknown, other, removed []string
	var infoRefs []timeline.Ref
	for _, k := range cs.order {
		ku := cs.keys[k]
		class, real := classify(k, cs.ct, ver)
		switch class {
		case keyUnused:
			continue
		case keyNearMiss:
			f.misspelled(cs, ku, real, ver, verText, cfg)
			continue
		case keyTooNew:
			if cs.ct == cliProducer && costlyProducerKey(k) {
				f.tooNew(cs, ku, real[0], ver, verText)
				continue
			}
			removed = append(removed, fmt.Sprintf("%s (from %s)", k, relName(real[0].since)))
		case keyRemoved:
			removed = append(removed, fmt.Sprintf("%s (removed in %s)", k, relName(real[0].until)))
		case keyOtherType:
			other = append(other, k)
		default:
			unknown = append(unknown, quoteKey(k))
		}
		if len(infoRefs) < 4 {
			infoRefs = append(infoRefs, ku.refs[0])
		}
	}
	if len(unknown)+len(other)+len(removed) == 0 {
		return
	}
	var parts []string
	if len(unknown) > 0 {
		parts = append(parts, fmt.Sprintf("%s no Kafka %s defines (%s): a framework's own (Spring, Confluent serializers, Connect workers pass theirs through) or a typo beyond one letter; the client ignores them",
			plural(len(unknown), "key", "keys"), cs.kind, f.list(unknown, len(unknown))))
	}
	if len(removed) > 0 {
		parts = append(parts, fmt.Sprintf("%s this %s release does not have (%s)", plural(len(removed), "setting", "settings"), cs.kind, f.list(removed, len(removed))))
	}
	if len(other) > 0 {
		parts = append(parts, fmt.Sprintf("%s of other client types (%s), from a config shared by all clients", plural(len(other), "setting", "settings"), f.list(other, len(other))))
	}
	msg := fmt.Sprintf("%s (%s) was given settings it does not use: %s", cs.subject, verText, strings.Join(parts, "; "))
	d := map[string]any{"client_type": cs.kind, "unknown_keys": len(unknown), "other_client_keys": len(other), "version_keys": len(removed)}
	if cs.p != nil {
		d["client"] = f.producerName(cs.p)
	}
	f.add(Finding{Code: CodeUnknownConfig, Severity: Info, Subject: cs.subject, Message: msg,
		Remedy:   "Nothing to do for a framework's own keys; otherwise drop the key or correct it against the client's documented settings.",
		Evidence: f.ev(infoRefs...), Data: d})
}

// misspelled: a near miss of a real setting. The client ran with that
// setting's value in its config block (its default).
func (f *finisher) misspelled(cs *cfgSubject, ku *keyUse, real []settingKey, ver version, verText string, cfg map[string]string) {
	rk := real[0].key
	var alts []string
	for _, s := range real {
		alts = append(alts, s.key)
	}
	what := describeKey(ku.key, rk)
	ran, cost := f.ranWith(cs, rk, ver, cfg)
	msg := fmt.Sprintf("%s (%s) was given %s, which it does not know (%s): the setting is %s",
		cs.subject, verText, quoteKey(ku.key), what, strings.Join(alts, " or "))
	if ku.value != "" {
		msg += fmt.Sprintf(" (%s was meant)", ku.value)
	}
	msg += ", so it ran with " + ran
	if cost != "" {
		msg += ": " + cost
	}
	if cs.p != nil && cs.p.agg != nil && cs.p.agg.finalsNLN > 0 && (rk == "retries" || rk == "delivery.timeout.ms" || rk == "retry.backoff.ms") {
		msg += fmt.Sprintf(" (%s failed for good with a leader error in these logs)", plural(cs.p.agg.finalsNLN, "send", "sends"))
	}
	if ku.n > 1 {
		msg += fmt.Sprintf(" (logged %d times: the client was built %d times)", ku.n, ku.n)
	}
	d := map[string]any{"client_type": cs.kind, "key": ku.key, "setting": rk, "times": ku.n}
	if cs.p != nil {
		d["client"] = f.producerName(cs.p)
		if cs.p.client.Version != "" {
			d["client_version"] = cs.p.client.Version
		}
	}
	if v, ok := cfg[rk]; ok {
		d["value"] = strings.TrimSpace(v)
	}
	if ku.value != "" {
		d["meant"] = ku.value
	}
	refs := append([]timeline.Ref(nil), ku.refs...)
	if cs.p != nil {
		refs = append(refs, f.cfgRef(cs.p)...)
	}
	f.add(Finding{Code: CodeMisspelledConfig, Severity: Warning, Subject: cs.subject, Message: msg,
		Remedy: fmt.Sprintf("Spell the key %q exactly (a stray space comes from code or a quoted YAML key; a .properties file drops spaces around '='), then check its value in the next \"%s values:\" block.",
			rk, configClassName(cs.ct)),
		Evidence: f.ev(refs...), Data: d})
}

func configClassName(ct uint8) string {
	switch ct {
	case cliConsumer:
		return "ConsumerConfig"
	case cliAdmin:
		return "AdminClientConfig"
	}
	return "ProducerConfig"
}

// tooNew: a producer setting that matters to elections given to a client
// that predates it.
func (f *finisher) tooNew(cs *cfgSubject, ku *keyUse, s settingKey, ver version, verText string) {
	msg := fmt.Sprintf("%s (%s) was given %s, which exists only from Kafka %s: this client ignores it", cs.subject, verText, s.key, relName(s.since))
	switch s.key {
	case "delivery.timeout.ms":
		msg += "; its sends are bounded by retries × retry.backoff.ms and request.timeout.ms instead"
		if cs.p != nil && cs.p.set.retries.known {
			msg += " (" + settingNote(cs.p.set.retries, "retries") + ")"
		}
	case "retry.backoff.max.ms":
		msg += "; its back-off stays fixed at retry.backoff.ms"
	case "enable.idempotence":
		msg += "; retried batches can be duplicated (and reordered with more than one request in flight)"
	}
	d := map[string]any{"client_type": cs.kind, "key": ku.key, "since": relName(s.since)}
	if cs.p != nil {
		d["client"] = f.producerName(cs.p)
	}
	refs := append([]timeline.Ref(nil), ku.refs...)
	if cs.p != nil {
		refs = append(refs, f.cfgRef(cs.p)...)
	}
	f.add(Finding{Code: CodeMisspelledConfig, Severity: Warning, Subject: cs.subject, Message: msg,
		Remedy:   fmt.Sprintf("Upgrade the client to %s or later for %s, or bound retries with the settings this release has.", relName(s.since), s.key),
		Evidence: f.ev(refs...), Data: d})
}

// costlyProducerKey: producer settings that decide what a leader change costs.
func costlyProducerKey(k string) bool {
	switch k {
	case "retries", "acks", "enable.idempotence", "delivery.timeout.ms", "max.in.flight.requests.per.connection",
		"retry.backoff.ms", "retry.backoff.max.ms", "request.timeout.ms", "max.block.ms", "metadata.max.age.ms":
		return true
	}
	return false
}

// ranWith says which value the client ran with for setting k (its config
// block, else the version's default) and what that costs on a leader change.
func (f *finisher) ranWith(cs *cfgSubject, k string, ver version, cfg map[string]string) (string, string) {
	if cs.ct == cliProducer && cs.p != nil {
		s := cs.p.set
		switch k {
		case "retries":
			ran := settingNote(s.retries, "retries")
			if !s.retries.known {
				return "its default retries (version unknown: 0 before 2.1, 2147483647 from 2.1)", ""
			}
			if s.retries.val == 0 {
				return ran + " (the default before 2.1, as its config block shows)", "it does not retry at all, so any leader change fails its in-flight sends at once"
			}
			if s.deliveryTimeout.known && s.deliveryTimeout.val > 0 {
				return ran, fmt.Sprintf("it retries until delivery.timeout.ms=%d, whatever count was meant", s.deliveryTimeout.val)
			}
			return ran, ""
		case "acks":
			if !s.acks.known {
				return "its default acks (version unknown: 1 before 3.0, all from 3.0)", ""
			}
			if s.acks.str == "1" || s.acks.str == "0" {
				return settingNote(s.acks, "acks"), "a write is acknowledged before any follower has it, and is lost when the leader changes before they catch up"
			}
			return settingNote(s.acks, "acks"), "acks=all: nothing acknowledged is lost on a leader change, at the cost of latency"
		case "enable.idempotence":
			if !s.idempotence.known {
				return "its default enable.idempotence (version unknown: false before 3.0, true from 3.0)", ""
			}
			if s.idempotence.val == 0 {
				return settingNote(s.idempotence, "enable.idempotence"), "no idempotence: a retried batch can be written twice, and reordered with more than one request in flight"
			}
			return settingNote(s.idempotence, "enable.idempotence"), ""
		case "delivery.timeout.ms":
			if s.deliveryTimeout.known && s.deliveryTimeout.val > 0 {
				return settingNote(s.deliveryTimeout, "delivery.timeout.ms"), fmt.Sprintf("a send is failed %s after it was handed to the producer, however long the election", durMS(s.deliveryTimeout.val))
			}
		case "max.in.flight.requests.per.connection":
			c := ""
			if s.maxInFlight.val > 1 && s.idempotence.known && s.idempotence.val == 0 {
				c = "without idempotence a retried batch can land after a later one"
			}
			return settingNote(s.maxInFlight, "max.in.flight.requests.per.connection"), c
		case "retry.backoff.ms":
			c := ""
			if b, explain, ok := s.budget(); ok && s.retries.val > 0 {
				c = fmt.Sprintf("its retry budget is %s (%s)", durMS(b.Milliseconds()), explain)
			}
			return settingNote(s.backoff, "retry.backoff.ms"), c
		}
	}
	if v, ok := cfg[k]; ok {
		v = strings.TrimSpace(v)
		return fmt.Sprintf("%s=%s (its config block)", k, v), settingCost(k, v)
	}
	if d, ok := knownDefault(k, cs.ct, ver); ok {
		return fmt.Sprintf("%s=%s (the default)", k, d), settingCost(k, d)
	}
	return "the default " + k, ""
}

func durMS(ms int64) string {
	if ms%1000 == 0 && ms >= 1000 {
		return fmt.Sprintf("%d s", ms/1000)
	}
	return fmt.Sprintf("%d ms", ms)
}

// settingCost: what a value costs on a leader change, for the settings
// that decide it and have no richer reading above.
func settingCost(k, v string) string {
	switch k {
	case "request.timeout.ms":
		return "a request to a broker that no longer leads waits up to " + v + " ms before it is retried"
	case "max.block.ms":
		return "send() blocks up to " + v + " ms waiting for metadata of a partition with no leader"
	case "metadata.max.age.ms":
		return "without an error the client refreshes its leaders only every " + v + " ms"
	case "retry.backoff.max.ms":
		return "its back-off grows to at most " + v + " ms"
	case "enable.auto.commit":
		if v == "true" {
			return "offsets are committed in the background: records can be processed twice after a rebalance"
		}
	case "session.timeout.ms", "max.poll.interval.ms", "heartbeat.interval.ms":
		return "the group's failure detection uses " + v + " ms"
	case "group.id":
		if v == "" || v == "null" {
			return "no group: it cannot commit offsets or join a group"
		}
	case "auto.offset.reset":
		return "with no committed offset it starts at the " + v + " offset"
	case "isolation.level":
		return "it reads " + strings.ReplaceAll(v, "_", " ") + " records"
	}
	return ""
}

// knownDefault: the default of a setting where no config block shows it.
func knownDefault(k string, ct uint8, v version) (string, bool) {
	switch ct {
	case cliConsumer:
		switch k {
		case "enable.auto.commit":
			return "true", true
		case "auto.offset.reset":
			return "latest", true
		case "session.timeout.ms":
			if v.ok && v.atLeast(3, 0, 0) {
				return "45000", true
			}
			if v.ok {
				return "10000", true
			}
		case "max.poll.interval.ms":
			return "300000", true
		case "heartbeat.interval.ms":
			return "3000", true
		case "isolation.level":
			return "read_uncommitted", true
		case "group.id":
			return "null", true
		case "request.timeout.ms":
			if v.ok && v.atLeast(2, 0, 0) {
				return "30000", true
			}
		}
	case cliAdmin, cliProducer:
		switch k {
		case "request.timeout.ms":
			return "30000", true
		case "retry.backoff.ms":
			return "100", true
		case "metadata.max.age.ms":
			return "300000", true
		case "max.block.ms":
			if ct == cliProducer {
				return "60000", true
			}
		}
	}
	return "", false
}
