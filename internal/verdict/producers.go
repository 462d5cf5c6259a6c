package verdict

import (
	"fmt"
	"github.com/leaderaudit/leaderaudit/internal/quantile"
	"github.com/leaderaudit/leaderaudit/internal/textfmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/leaderaudit/leaderaudit/timeline"
)

// producer is one producer as the logs show it: its config block and
// version (timeline.Clients) joined with its errors.
type producer struct {
	id     string
	src    int // source of its config block, else of its errors; -1 unknown
	client *timeline.Client
	hasCfg bool
	agg    *clientAgg
	merged bool // agg is the finisher's own copy
	set    settings
}

func (f *finisher) producerName(p *producer) string {
	if p.id != "" {
		return p.id
	}
	if p.src >= 0 {
		return "(no client.id) in " + filepath.Base(f.name(p.src))
	}
	return "(no client.id)"
}

func (f *finisher) producerVersion(p *producer) string {
	if p.client != nil && p.client.Version != "" {
		return "Kafka " + p.client.Version
	}
	return "client version unknown"
}

// mainSource is the source most of an aggregate's errors came from.
func (ca *clientAgg) mainSource() int {
	if ca.key.src >= 0 {
		return ca.key.src
	}
	best, n := -1, 0
	for s, c := range ca.srcs {
		if c > n || (c == n && s < best) {
			best, n = s, c
		}
	}
	return best
}

// clone copies an aggregate so that merging never changes the analyzer's
// state (Finish may run more than once).
func (ca *clientAgg) clone() *clientAgg {
	c := *ca
	c.srcs, c.byErr, c.topics, c.parts, c.keys, c.afterKeys = map[int]int{}, map[string]int{}, map[string]struct{}{}, map[timeline.TP]int{}, map[timeline.Key]bool{}, map[timeline.Key]int{}
	for k, v := range ca.srcs {
		c.srcs[k] = v
	}
	for k, v := range ca.byErr {
		c.byErr[k] = v
	}
	for k := range ca.topics {
		c.topics[k] = struct{}{}
	}
	for k, v := range ca.parts {
		c.parts[k] = v
	}
	for k, v := range ca.keys {
		c.keys[k] = v
	}
	for k, v := range ca.afterKeys {
		c.afterKeys[k] = v
	}
	c.retried = map[timeline.Key]*retryUse{}
	for k, v := range ca.retried {
		u := *v
		c.retried[k] = &u
	}
	c.refs = append([]timeline.Ref(nil), ca.refs...)
	c.finalsNL = append([]finalErr(nil), ca.finalsNL...)
	c.lags = append([]time.Duration(nil), ca.lags...)
	c.afterRefs = append([]timeline.Ref(nil), ca.afterRefs...)
	return &c
}

// merge folds b into a (errors of one producer logged under two names).
func (ca *clientAgg) merge(b *clientAgg) {
	ca.n += b.n
	ca.finals += b.finals
	ca.notLeader += b.notLeader
	ca.matched += b.matched
	for k, v := range b.byErr {
		ca.byErr[k] += v
	}
	for k, v := range b.srcs {
		ca.srcs[k] += v
	}
	if ca.first.IsZero() || (!b.first.IsZero() && b.first.Before(ca.first)) {
		ca.first = b.first
	}
	if b.last.After(ca.last) {
		ca.last = b.last
	}
	for _, r := range b.refs {
		if len(ca.refs) < maxClientRefs {
			ca.refs = append(ca.refs, r)
		}
	}
	for k := range b.topics {
		if len(ca.topics) < maxClientTopics {
			ca.topics[k] = struct{}{}
		}
	}
	for k, v := range b.parts {
		if _, ok := ca.parts[k]; ok || len(ca.parts) < maxClientParts {
			ca.parts[k] += v
		}
	}
	for k, v := range b.keys {
		if _, ok := ca.keys[k]; ok || len(ca.keys) < maxClientKeys {
			ca.keys[k] = ca.keys[k] || v
		}
	}
	for _, fe := range b.finalsNL {
		if len(ca.finalsNL) < maxClientFinals {
			ca.finalsNL = append(ca.finalsNL, fe)
		}
	}
	ca.finalsNLN += b.finalsNLN
	ca.after += b.after
	ca.lagSum += b.lagSum
	if b.lagMax > ca.lagMax {
		ca.lagMax = b.lagMax
	}
	for _, l := range b.lags {
		if len(ca.lags) < maxLagSample {
			ca.lags = append(ca.lags, l)
		}
	}
	for _, r := range b.afterRefs {
		if len(ca.afterRefs) < maxClientRefs {
			ca.afterRefs = append(ca.afterRefs, r)
		}
	}
	for k, v := range b.retried {
		switch u := ca.retried[k]; {
		case u != nil:
			u.merge(v)
		case len(ca.retried) < maxClientKeys:
			c := *v
			ca.retried[k] = &c
		}
	}
	for k, v := range b.afterKeys {
		if _, ok := ca.afterKeys[k]; ok || len(ca.afterKeys) < maxClientKeys {
			ca.afterKeys[k] += v
		}
	}
}

// producerList joins config blocks and error aggregates: by client id,
// else by the file they were logged in.
func (f *finisher) producerList() []*producer {
	if f.producersCache != nil {
		return f.producersCache
	}
	var ps []*producer
	byID := map[string]*producer{}
	var cids []string
	for id := range f.clients {
		cids = append(cids, id)
	}
	sort.Strings(cids)
	for _, id := range cids {
		c := f.clients[id]
		if c.Config == nil {
			continue
		}
		p := &producer{id: id, src: c.Ref.Source, client: c, hasCfg: true}
		ps = append(ps, p)
		byID[id] = p
	}
	var keys []clientKey
	for k := range f.a.clients {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].id != keys[j].id {
			return keys[i].id < keys[j].id
		}
		return keys[i].src < keys[j].src
	})
	for _, k := range keys {
		ca := f.a.clients[k]
		var p *producer
		if k.id != "" {
			p = byID[k.id]
		}
		src := ca.mainSource()
		if p == nil {
			// The config block of a pre-2.5 client names no client.id, and
			// 0.10/0.11 clients have no "[Producer clientId=" prefix: join
			// by file when exactly one config block was logged there.
			var cands []*producer
			for _, q := range ps {
				if q.hasCfg && q.src == src {
					cands = append(cands, q)
				}
			}
			if len(cands) == 1 {
				p = cands[0]
			}
		}
		if p == nil {
			p = &producer{id: k.id, src: src}
			if k.id != "" {
				p.client = f.clients[k.id]
			}
			ps = append(ps, p)
			if k.id != "" {
				byID[k.id] = p
			}
		}
		switch {
		case p.agg == nil:
			p.agg = ca
		case p.merged:
			p.agg.merge(ca)
		default:
			p.agg = p.agg.clone()
			p.merged = true
			p.agg.merge(ca)
		}
	}
	for _, p := range ps {
		var cfg map[string]string
		ver := ""
		if p.client != nil {
			cfg, ver = p.client.Config, p.client.Version
		}
		p.set = effective(cfg, ver)
	}
	f.producersCache = ps
	return ps
}

func (f *finisher) producers() {
	for _, p := range f.producerList() {
		f.retryBudget(p)
		f.noRetries(p)
		f.reordering(p)
		f.lossRisk(p)
		f.staleMetadata(p)
		f.retryMargin(p)
	}
}

func (f *finisher) cfgRef(p *producer) []timeline.Ref {
	if p.hasCfg && p.client != nil {
		return []timeline.Ref{p.client.Ref}
	}
	return nil
}

func settingNote(s setting, key string) string {
	v := s.str
	if v == "" {
		v = fmt.Sprint(s.val)
	}
	if s.from == "set" || s.from == "" {
		return key + "=" + v
	}
	return key + "=" + v + " (" + s.from + ")"
}

func (f *finisher) producerData(p *producer) map[string]any {
	d := map[string]any{"client": f.producerName(p)}
	if p.client != nil && p.client.Version != "" {
		d["client_version"] = p.client.Version
	}
	if p.set.retries.known {
		d["retries"] = p.set.retries.val
	}
	return d
}

// retryBudget: sends that failed for good with a NOT_LEADER-type error
// while their election outlasted the retry budget.
func (f *finisher) retryBudget(p *producer) {
	ca := p.agg
	if ca == nil || len(ca.finalsNL) == 0 {
		return
	}
	budget, explain, ok := p.set.budget()
	if !ok {
		return
	}
	var worst *epSum
	var worstFE finalErr
	n := 0
	errs := map[string]bool{}
	var refs, elRefs []timeline.Ref
	elections := map[timeline.Key]bool{}
	for _, fe := range ca.finalsNL {
		if fe.key == nil {
			continue
		}
		s := f.a.interest[*fe.key]
		if s == nil || !s.filled {
			continue
		}
		d := s.window()
		if budget > 0 && d <= budget {
			continue
		}
		n++
		errs[fe.err] = true
		elections[s.key] = true
		refs = append(refs, fe.ref)
		if worst == nil || d > worst.window() {
			worst, worstFE = s, fe
		}
	}
	if n == 0 {
		return
	}
	elRefs = append(elRefs, worst.refs...)
	var names []string
	for e := range errs {
		names = append(names, e)
	}
	sort.Strings(names)
	name := f.producerName(p)
	msg := fmt.Sprintf("producer %s (%s): %s failed for good with %s: budget %s (%s), producers saw NOT_LEADER for %s (%s at %s: old leader stopping → new leader ready)",
		name, f.producerVersion(p), plural(n, "send", "sends"), strings.Join(names, "/"), textfmt.Dur(budget), explain, textfmt.Dur(worst.window()),
		keyName(worst.key), f.tm(worst.start))
	if len(elections) > 1 {
		msg += fmt.Sprintf("; %d elections were involved", len(elections))
	}
	d := f.producerData(p)
	d["failures"] = n
	d["budget_ms"] = budget.Milliseconds()
	d["budget"] = explain
	d["retry_backoff_ms"] = p.set.backoff.val
	if p.set.deliveryTimeout.known && p.set.deliveryTimeout.val > 0 {
		d["delivery_timeout_ms"] = p.set.deliveryTimeout.val
	}
	d["election_ms"] = worst.window().Milliseconds()
	d["election"] = map[string]any{"topic": worst.key.Topic, "partition": worst.key.Partition, "leader_epoch": worst.key.LeaderEpoch, "start": f.rfc(worst.start)}
	d["errors"] = names
	d["first_failure"] = f.rfc(worstFE.t)
	all := append(append(refs[:min(len(refs), 4):min(len(refs), 4)], elRefs...), f.cfgRef(p)...)
	f.add(Finding{
		Code: CodeRetryBudget, Severity: Critical, Subject: "producer " + name, Message: msg,
		Remedy: p.set.retryRemedy(), Evidence: f.ev(all...), Data: d,
	})
}

// noRetries: retries=0 on a producer that saw a leader change.
func (f *finisher) noRetries(p *producer) {
	if !p.set.retries.known || p.set.retries.val != 0 {
		return
	}
	ca := p.agg
	saw := ""
	var refs []timeline.Ref
	if ca != nil && (ca.matched > 0 || ca.notLeader > 0) {
		n := ca.notLeader
		if n == 0 {
			n = ca.matched
		}
		saw = fmt.Sprintf("it logged %s", plural(n, "leader-related error", "leader-related errors"))
		if ca.finals > 0 {
			saw += fmt.Sprintf(" (%d final)", ca.finals)
		}
		refs = append(refs, ca.refs...)
	} else if s := f.src[p.src]; s != nil && !s.First.IsZero() {
		_, moved, _ := f.a.allRuns.count(s.First, s.Last)
		if moved > 0 {
			saw = fmt.Sprintf("%s happened while it ran (%s → %s)", plural(moved, "leader change", "leader changes"), f.tm(s.First), f.tm(s.Last))
		}
	}
	if saw == "" {
		return
	}
	name := f.producerName(p)
	msg := fmt.Sprintf("producer %s (%s) runs with %s: any leader change fails its in-flight sends at once; %s",
		name, f.producerVersion(p), settingNote(p.set.retries, "retries"), saw)
	d := f.producerData(p)
	if ca != nil {
		d["leader_errors"] = ca.notLeader
		d["final_failures"] = ca.finals
	}
	f.add(Finding{
		Code: CodeNoRetries, Severity: Warning, Subject: "producer " + name, Message: msg,
		Remedy: p.set.retryRemedy(), Evidence: f.ev(append(f.cfgRef(p), refs...)...), Data: d,
	})
}

// reordering: retries with several requests in flight and no idempotence.
func (f *finisher) reordering(p *producer) {
	s := p.set
	if !s.retries.known || s.retries.val <= 0 || !s.maxInFlight.known || s.maxInFlight.val <= 1 || !s.idempotence.known || s.idempotence.val != 0 {
		return
	}
	if !p.hasCfg {
		return // settings purely from version defaults: say nothing about an unseen config
	}
	name := f.producerName(p)
	msg := fmt.Sprintf("producer %s (%s) retries (%s) with %s and no idempotence (%s): a retried batch can land after a later one, reordering records within a partition",
		name, f.producerVersion(p), settingNote(s.retries, "retries"), settingNote(s.maxInFlight, "max.in.flight.requests.per.connection"),
		settingNote(s.idempotence, "enable.idempotence"))
	remedy := "Set enable.idempotence=true (keeps order with up to 5 requests in flight; needs acks=all), or max.in.flight.requests.per.connection=1 where order matters."
	if s.ver.ok && !s.ver.atLeast(0, 11, 0) {
		remedy = "Set max.in.flight.requests.per.connection=1 where order matters (this client has no idempotence; 0.11+ clients can use enable.idempotence=true instead)."
	}
	d := f.producerData(p)
	d["max_in_flight"] = s.maxInFlight.val
	d["enable_idempotence"] = false
	f.add(Finding{
		Code: CodeReordering, Severity: Warning, Subject: "producer " + name, Message: msg,
		Remedy: remedy, Evidence: f.ev(f.cfgRef(p)...), Data: d,
	})
}

// lossChange is a leader change of a partition a producer wrote to.
type lossChange struct {
	tp       timeline.TP
	epoch    int32
	t        time.Time
	from, to int32
	cause    string
	hard     bool
	why      string
	trunc    *trunc
	refs     []timeline.Ref
}

// hardNear reports a hard incident (failure, fence, session loss) of broker
// b around t, and says what it was.
func (f *finisher) hardNear(b int32, t time.Time) (string, bool) {
	for _, in := range f.incidents[b] {
		if in.hard && !t.Before(in.first.Add(-5*time.Second)) && !t.After(in.last.Add(f.cfg.IncidentGap)) {
			return "broker " + itoa(b) + " " + in.kindText(), true
		}
	}
	return "", false
}

// lossRisk: acks 0/1 on a producer whose partition's leader changed while
// it was writing.
func (f *finisher) lossRisk(p *producer) {
	s := p.set
	if !s.acks.known || (s.acks.str != "0" && s.acks.str != "1") || p.agg == nil {
		return
	}
	ca := p.agg
	seen := map[timeline.Key]bool{}
	var chs []lossChange
	addChange := func(lc lossChange) {
		k := timeline.Key{Topic: lc.tp.Topic, Partition: lc.tp.Partition, LeaderEpoch: lc.epoch}
		if seen[k] {
			return
		}
		seen[k] = true
		chs = append(chs, lc)
	}
	var keys []timeline.Key
	for k := range ca.keys {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return lessKey(keys[i], keys[j]) })
	for _, k := range keys {
		e := f.a.interest[k]
		if e == nil || !e.filled {
			continue
		}
		// A NOT_LEADER error from this election is itself proof that the
		// leader the producer wrote to lost the partition, even where no
		// line names the previous leader (ZK 2.6+ INFO logs never do).
		if !e.changed && !(ca.keys[k] && (e.prev == timeline.Unknown || e.prev == -1) && e.leader >= 0) {
			continue
		}
		c := change{t: e.start, from: e.prev, to: e.leader, cause: e.cause, unclean: e.unclean, causeBroker: timeline.Unknown}
		if len(e.causeBrokers) > 0 {
			c.causeBroker = e.causeBrokers[0]
		}
		lc := lossChange{tp: timeline.TP{Topic: k.Topic, Partition: k.Partition}, epoch: k.LeaderEpoch, t: e.start, from: e.prev, to: e.leader, cause: causeName(e.cause), refs: e.refs}
		lc.hard, lc.why = f.classify(c)
		if len(e.truncs) > 0 {
			lc.trunc = &e.truncs[0]
			lc.refs = append([]timeline.Ref{e.truncs[0].ref}, lc.refs...)
		}
		addChange(lc)
	}
	// Leader changes of the partitions (or topics) it wrote to while it ran.
	from, to := ca.first.Add(-5*time.Minute), ca.last.Add(5*time.Minute)
	if sf := f.src[p.src]; sf != nil && !sf.First.IsZero() {
		from, to = sf.First, sf.Last
	}
	var tps []timeline.TP
	for tp := range f.a.parts {
		if _, ok := ca.topics[tp.Topic]; ok {
			tps = append(tps, tp)
		}
	}
	sort.Slice(tps, func(i, j int) bool { return lessTP(tps[i], tps[j]) })
	for _, tp := range tps {
		pa := f.a.parts[tp]
		for i := range pa.ring {
			c := pa.ring[i]
			if c.t.Before(from) || c.t.After(to) {
				continue
			}
			lc := lossChange{tp: tp, epoch: c.epoch, t: c.t, from: c.from, to: c.to, cause: causeName(c.cause), trunc: c.trunc}
			if c.trunc != nil {
				lc.refs = append(lc.refs, c.trunc.ref)
			}
			if c.ref.Line > 0 {
				lc.refs = append(lc.refs, c.ref)
			}
			lc.hard, lc.why = f.classify(c)
			addChange(lc)
		}
	}
	if len(chs) == 0 {
		return
	}
	sort.SliceStable(chs, func(i, j int) bool {
		if chs[i].hard != chs[j].hard {
			return chs[i].hard
		}
		return chs[i].t.Before(chs[j].t)
	})
	hard, cut := 0, 0
	parts := map[timeline.TP]bool{}
	var items []string
	var refs []timeline.Ref
	for _, c := range chs {
		parts[c.tp] = true
		if c.hard {
			hard++
		}
		it := fmt.Sprintf("%s epoch %d %s→%s at %s (%s", tpName(c.tp), c.epoch, itoa(c.from), itoa(c.to), f.tm(c.t), c.cause)
		if c.why != "" {
			it += "; " + c.why
		}
		if c.trunc != nil {
			cut++
			it += "; " + c.trunc.text() + " at " + f.tm(c.trunc.t)
		}
		items = append(items, it+")")
		if len(refs) < 6 {
			refs = append(refs, c.refs...)
		}
	}
	sev := Warning
	tail := "records acknowledged only by the old leader are lost when it rejoins as a follower and truncates"
	switch {
	case cut > 0:
		// A replica cutting records after the change is the loss itself:
		// with acks 0/1 those records had been acknowledged.
		sev = Critical
		tail = fmt.Sprintf("after %s a replica cut records from its log: records the producer had been told were written are gone", plural(cut, "change", "changes"))
		if hard > 0 {
			tail = fmt.Sprintf("%s followed a hard failure of the old leader; ", plural(hard, "change", "changes")) + tail
		}
	case hard > 0:
		sev = Critical
		tail = fmt.Sprintf("%s followed a hard failure of the old leader or an unclean election, so records acknowledged only by the old leader are lost", plural(hard, "change", "changes"))
	}
	name := f.producerName(p)
	msg := fmt.Sprintf("producer %s (%s) writes with %s and the leader of %s it wrote to changed %s while it was writing: %s; %s",
		name, f.producerVersion(p), settingNote(s.acks, "acks"), plural(len(parts), "partition", "partitions"), plural(len(chs), "time", "times"),
		f.list(items, len(items)), tail)
	d := f.producerData(p)
	d["acks"] = s.acks.str
	d["leader_changes"] = len(chs)
	d["hard_changes"] = hard
	d["truncated_after"] = cut
	d["partitions"] = len(parts)
	f.add(Finding{
		Code: CodeLossRiskAcks, Severity: sev, Subject: "producer " + name, Message: msg,
		Remedy: "Use acks=all with min.insync.replicas=2 on a replication factor of 3 (and enable.idempotence=true against duplicates); " +
			"acks=1 is acknowledged before any follower has the record.",
		Evidence: f.ev(append(append(f.cfgRef(p), refs...), ca.refs[:min(2, len(ca.refs))]...)...), Data: d,
	})
}

// classify says whether a leader change was hard (the old leader failed,
// was fenced, lost its ZooKeeper session, or the election was unclean).
func (f *finisher) classify(c change) (bool, string) {
	if c.unclean {
		return true, "unclean election"
	}
	for _, b := range []int32{c.from, c.causeBroker} {
		if b < 0 {
			continue
		}
		if why, ok := f.hardNear(b, c.t); ok {
			return true, why
		}
	}
	if c.hard() {
		if c.causeBroker >= 0 {
			return true, "broker " + itoa(c.causeBroker) + " " + causeName(c.cause)
		}
		return true, causeName(c.cause)
	}
	return false, ""
}

// staleMetadata: errors that came after their election had ended.
func (f *finisher) staleMetadata(p *producer) {
	ca := p.agg
	if ca == nil || ca.after < f.cfg.StaleErrors {
		return
	}
	p50, p90 := quantile.Percentile(ca.lags, 50), quantile.Percentile(ca.lags, 90)
	var worst timeline.Key
	wn := 0
	for k, n := range ca.afterKeys {
		if n > wn || (n == wn && lessKey(k, worst)) {
			worst, wn = k, n
		}
	}
	name := f.producerName(p)
	msg := fmt.Sprintf("producer %s (%s): %s came after their election had already ended (lag p50 %s, p90 %s, max %s",
		name, f.producerVersion(p), plural(ca.after, "error", "errors"), textfmt.Dur(p50), textfmt.Dur(p90), textfmt.Dur(ca.lagMax))
	if wn > 0 {
		msg += fmt.Sprintf("; most after %s: %d", keyName(worst), wn)
	}
	msg += "): its metadata still named the old leader"
	refs := append([]timeline.Ref(nil), ca.afterRefs...)
	if e := f.a.interest[worst]; e != nil && e.filled {
		refs = append(refs, e.refs...)
	}
	d := f.producerData(p)
	d["after_errors"] = ca.after
	d["lag_p50_ms"] = p50.Milliseconds()
	d["lag_p90_ms"] = p90.Milliseconds()
	d["lag_max_ms"] = ca.lagMax.Milliseconds()
	if wn > 0 {
		d["election"] = map[string]any{"topic": worst.Topic, "partition": worst.Partition, "leader_epoch": worst.LeaderEpoch}
	}
	f.add(Finding{
		Code: CodeStaleMetadata, Severity: Warning, Subject: "producer " + name, Message: msg,
		Remedy: "The cluster had finished the election; the client kept sending to the old leader. It refreshes metadata after such an error " +
			"and every metadata.max.age.ms (300000): lags of seconds point at a client that could not reach the cluster or a broker answering " +
			"metadata from a stale cache. Keep retries high enough to ride it out; 3.7+ clients learn the new leader from the error (KIP-951).",
		Evidence: f.ev(refs...), Data: d,
	})
}

func lessKey(a, b timeline.Key) bool {
	if a.Topic != b.Topic {
		return a.Topic < b.Topic
	}
	if a.Partition != b.Partition {
		return a.Partition < b.Partition
	}
	return a.LeaderEpoch < b.LeaderEpoch
}

func lessTP(a, b timeline.TP) bool {
	if a.Topic != b.Topic {
		return a.Topic < b.Topic
	}
	return a.Partition < b.Partition
}

// covered reports whether some broker log covers t.
func (f *finisher) covered(t time.Time) bool {
	for i := range f.sources {
		s := &f.sources[i]
		if isBrokerKind(s) && !s.First.IsZero() && !t.Before(s.First.Add(-time.Minute)) && !t.After(s.Last.Add(time.Minute)) {
			return true
		}
	}
	return false
}

// notAReplica: errors that no election explains, or that a broker outside
// the partition's replica set logged.
func (f *finisher) notAReplica() {
	type item struct {
		tp timeline.TP
		na *noneAgg
	}
	var items []item
	outside := 0
	for tp, na := range f.a.none {
		if !f.covered(na.first) && !f.covered(na.last) {
			outside += na.n
			continue
		}
		items = append(items, item{tp, na})
	}
	if len(items) == 0 {
		return
	}
	sort.Slice(items, func(i, j int) bool {
		if items[i].na.n != items[j].na.n {
			return items[i].na.n > items[j].na.n
		}
		return lessTP(items[i].tp, items[j].tp)
	})
	total := 0
	var texts []string
	var refs []timeline.Ref
	var named []int32
	var list []map[string]any
	for _, it := range items {
		total += it.na.n
		var reps []int32
		if pa := f.a.parts[it.tp]; pa != nil {
			reps = pa.replicas
		}
		t := fmt.Sprintf("%s: %d", tpName(it.tp), it.na.n)
		var bad []int32
		for src := range it.na.brokerSide {
			if b := f.srcBroker(src); b != timeline.Unknown && len(reps) > 0 && !contains(reps, b) && !contains(bad, b) {
				bad = append(bad, b)
			}
		}
		sort.Slice(bad, func(i, j int) bool { return bad[i] < bad[j] })
		switch {
		case len(bad) > 0:
			t += fmt.Sprintf(", rejected by broker %s, not in its replicas %s", ids(bad), ids(reps))
			named = append(named, bad...)
		case len(reps) > 0:
			t += fmt.Sprintf(", replicas %s, no election of it in the logs then", ids(reps))
		case f.a.parts[it.tp] == nil:
			t += ", no broker line names this partition"
		default:
			t += ", no election of it in the logs then"
		}
		texts = append(texts, t)
		if len(refs) < 8 {
			refs = append(refs, it.na.refs[:min(2, len(it.na.refs))]...)
		}
		var cl []string
		for c := range it.na.clients {
			cl = append(cl, c)
		}
		sort.Strings(cl)
		list = append(list, map[string]any{"topic": it.tp.Topic, "partition": it.tp.Partition, "errors": it.na.n, "replicas": reps, "clients": cl})
	}
	msg := fmt.Sprintf("%s on %s match no election (%s): the client was talking to a broker that is not the partition's leader",
		plural(total, "producer error", "producer errors"), plural(len(items), "partition", "partitions"), f.list(texts, len(texts)))
	if len(named) > 0 {
		msg += fmt.Sprintf(", and broker %s is not even a replica", ids(named))
	}
	d := map[string]any{"errors": total, "partitions": list}
	if outside > 0 {
		d["errors_outside_broker_logs"] = outside
	}
	f.add(Finding{
		Code: CodeNotAReplica, Severity: Warning, Subject: "cluster", Message: msg,
		Remedy: "Compare the partition's replica assignment (kafka-topics --describe) with the brokers the client reaches: a stale " +
			"bootstrap list, a listener/advertised.listeners mix-up, a reassignment that left the client behind, or two clusters behind " +
			"one address give NOT_LEADER errors no election explains.",
		Evidence: f.ev(refs...), Data: d,
	})
}
