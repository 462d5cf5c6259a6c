package verdict

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// version is a Kafka client version ("0.10.2.1", "2.8.1", "7.4.0-ccs").
type version struct {
	major, minor, patch int
	ok                  bool
	raw                 string
	// cp: a Confluent Platform version, mapped to its Apache Kafka base.
	cp bool
}

// parseVersion reads the "Kafka version" an AppInfoParser line printed.
// Confluent's "-ccs"/"-ce" builds of CP 5.x–8.x are mapped to the Apache
// Kafka release they are built on (CP 5.0 = AK 2.0 … 6.2 = 2.8, 7.x = 3.x,
// 8.x = 4.x).
func parseVersion(s string) version {
	v := version{raw: strings.TrimSpace(s)}
	base := v.raw
	suffix := ""
	if i := strings.IndexAny(base, "-+ "); i >= 0 {
		base, suffix = base[:i], base[i:]
	}
	parts := strings.Split(base, ".")
	if len(parts) < 2 {
		return v
	}
	nums := make([]int, 3)
	for i := 0; i < 3 && i < len(parts); i++ {
		n, err := strconv.Atoi(parts[i])
		if err != nil {
			if i < 2 {
				return v
			}
			break
		}
		nums[i] = n
	}
	v.major, v.minor, v.patch, v.ok = nums[0], nums[1], nums[2], true
	if v.major >= 5 && v.major <= 8 && (strings.Contains(suffix, "ccs") || strings.Contains(suffix, "-ce") || strings.Contains(suffix, "cp")) {
		v.cp = true
		switch v.major {
		case 5:
			v.major = 2
		case 6:
			v.major, v.minor = 2, 6+v.minor
		case 7:
			v.major = 3
		case 8:
			v.major = 4
		}
	}
	if v.major >= 5 && !v.cp {
		// No Apache Kafka client is this new: an unknown build.
		v.ok = false
	}
	return v
}

// atLeast: v ≥ major.minor.patch.
func (v version) atLeast(major, minor, patch int) bool {
	if v.major != major {
		return v.major > major
	}
	if v.minor != minor {
		return v.minor > minor
	}
	return v.patch >= patch
}

// kafka13598: 3.0.0 and 3.1.0 print enable.idempotence=true without
// applying it unless it was set explicitly (fixed in 3.0.1, 3.1.1, 3.2.0).
func (v version) kafka13598() bool {
	return v.ok && v.major == 3 && (v.minor == 0 || v.minor == 1) && v.patch == 0
}

func (v version) String() string {
	if v.raw == "" {
		return "version unknown"
	}
	return "Kafka " + v.raw
}

// setting is one effective producer setting and where it came from.
type setting struct {
	val   int64
	str   string
	known bool
	// from: "set" (the config block), "default for <version>", or an
	// explanation of an override.
	from string
}

// settings are the producer settings the verdicts need.
type settings struct {
	ver             version
	retries         setting
	backoff         setting // ms
	backoffMax      setting // ms; known && val > 0 only on 3.7+
	deliveryTimeout setting // ms; known && val > 0 only on 2.1+
	acks            setting // str "0", "1" or "all"
	idempotence     setting // val 1 = on
	maxInFlight     setting
	// idemUnsure: 3.0.0/3.1.0 print enable.idempotence=true even when it
	// is not in effect (KAFKA-13598).
	idemUnsure bool
}

// effective applies the client version's defaults to the keys a config
// block lacks (client.md §5.2) and the overrides an idempotent producer
// makes that its dump does not show (≤2.4).
func effective(cfg map[string]string, ver string) settings {
	s := settings{ver: parseVersion(ver)}
	v := s.ver
	def := "default for " + v.String()
	get := func(k string) (string, bool) {
		if cfg == nil {
			return "", false
		}
		x, ok := cfg[k]
		x = strings.TrimSpace(x)
		return x, ok && x != "" && x != "null"
	}
	num := func(k string) (int64, bool) {
		x, ok := get(k)
		if !ok {
			return 0, false
		}
		n, err := strconv.ParseInt(x, 10, 64)
		return n, err == nil
	}

	if n, ok := num("retries"); ok {
		s.retries = setting{val: n, known: true, from: "set"}
	} else if v.ok {
		if v.atLeast(2, 1, 0) {
			s.retries = setting{val: math.MaxInt32, known: true, from: def}
		} else {
			s.retries = setting{val: 0, known: true, from: def}
		}
	}
	if n, ok := num("retry.backoff.ms"); ok {
		s.backoff = setting{val: n, known: true, from: "set"}
	} else {
		s.backoff = setting{val: 100, known: true, from: "default"}
	}
	if v.ok && v.atLeast(3, 7, 0) {
		if n, ok := num("retry.backoff.max.ms"); ok {
			s.backoffMax = setting{val: n, known: true, from: "set"}
		} else {
			s.backoffMax = setting{val: 1000, known: true, from: def}
		}
	} else if n, ok := num("retry.backoff.max.ms"); ok && !v.ok {
		s.backoffMax = setting{val: n, known: true, from: "set"}
	}
	if n, ok := num("delivery.timeout.ms"); ok {
		s.deliveryTimeout = setting{val: n, known: true, from: "set"}
	} else if v.ok {
		if v.atLeast(2, 1, 0) {
			s.deliveryTimeout = setting{val: 120000, known: true, from: def}
		} else {
			s.deliveryTimeout = setting{val: 0, known: true, from: "none before 2.1"}
		}
	}
	if n, ok := num("max.in.flight.requests.per.connection"); ok {
		s.maxInFlight = setting{val: n, known: true, from: "set"}
	} else {
		s.maxInFlight = setting{val: 5, known: true, from: "default"}
	}
	if x, ok := get("enable.idempotence"); ok {
		on := strings.EqualFold(x, "true")
		s.idempotence = setting{val: b2i(on), str: strings.ToLower(x), known: true, from: "set"}
		if on && v.kafka13598() {
			s.idemUnsure = true
		}
	} else if v.ok {
		on := v.atLeast(3, 0, 0)
		if on && v.kafka13598() {
			// 3.0.0 and 3.1.0: the default true is not applied (KAFKA-13598).
			on = false
		}
		s.idempotence = setting{val: b2i(on), str: fmt.Sprint(on), known: true, from: def}
	}
	if x, ok := get("acks"); ok {
		a := strings.ToLower(x)
		if a == "-1" {
			a = "all"
		}
		s.acks = setting{str: a, known: true, from: "set"}
	} else if v.ok {
		if v.atLeast(3, 0, 0) {
			s.acks = setting{str: "all", known: true, from: def}
		} else {
			s.acks = setting{str: "1", known: true, from: def}
		}
	}
	// An idempotent producer runs with acks=all and retries > 0: ≤2.4
	// overrides defaults after the dump ("Overriding the default retries
	// config ..."), and rejects explicit conflicting values at start-up.
	if s.idempotence.known && s.idempotence.val == 1 && !s.idemUnsure {
		if s.acks.known && s.acks.str != "all" {
			s.acks = setting{str: "all", known: true, from: "overridden to all by idempotence"}
		}
		if s.retries.known && s.retries.val == 0 {
			s.retries = setting{val: math.MaxInt32, known: true, from: "overridden by idempotence"}
		}
	}
	return s
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// budget is how long the producer keeps retrying a batch before failing it
// for good, counting only the back-off between attempts (a lower bound:
// each attempt also waits for its response): retries × retry.backoff.ms, on
// 3.7+ doubling per attempt up to retry.backoff.max.ms, capped by
// delivery.timeout.ms where it exists (2.1+). ok is false when retries is
// unknown.
func (s settings) budget() (d time.Duration, explain string, ok bool) {
	if !s.retries.known {
		return 0, "retries unknown", false
	}
	n := s.retries.val
	if n <= 0 {
		return 0, "retries=0", true
	}
	back := s.backoff.val
	if back < 0 {
		back = 0
	}
	const ceiling = int64(100 * 365 * 24 * time.Hour / time.Millisecond)
	var ms int64
	if s.backoffMax.known && s.backoffMax.val > back {
		// Exponential back-off (KIP-580, 3.7+): backoff·2^i, at most max.
		cur := back
		for i := int64(0); i < n; i++ {
			if cur >= s.backoffMax.val {
				ms += (n - i) * s.backoffMax.val
				break
			}
			ms += cur
			cur *= 2
			if ms > ceiling {
				break
			}
		}
		explain = fmt.Sprintf("retries=%d, retry.backoff.ms=%d doubling to retry.backoff.max.ms=%d", n, back, s.backoffMax.val)
	} else {
		if back > 0 && n > ceiling/back {
			ms = ceiling
		} else {
			ms = n * back
		}
		explain = fmt.Sprintf("retries=%d × retry.backoff.ms=%d", n, back)
	}
	if ms > ceiling {
		ms = ceiling
	}
	if s.deliveryTimeout.known && s.deliveryTimeout.val > 0 && ms > s.deliveryTimeout.val {
		ms = s.deliveryTimeout.val
		explain += fmt.Sprintf(", capped by delivery.timeout.ms=%d", s.deliveryTimeout.val)
	}
	return time.Duration(ms) * time.Millisecond, explain, true
}

// retryRemedy is the fix for a producer that gives up too early, by version.
func (s settings) retryRemedy() string {
	v := s.ver
	switch {
	case v.ok && !v.atLeast(0, 11, 0):
		return "Set retries so that retries × retry.backoff.ms covers an election (e.g. retries=10, retry.backoff.ms=500 ≈ 5 s), " +
			"and max.in.flight.requests.per.connection=1 where record order matters (this client has no idempotence); " +
			"better, upgrade the client to 2.1+, where retries default to 2147483647 bounded by delivery.timeout.ms=120000."
	case v.ok && !v.atLeast(2, 1, 0):
		return "Set retries so that retries × retry.backoff.ms covers an election (e.g. retries=10, retry.backoff.ms=500 ≈ 5 s) " +
			"with enable.idempotence=true (keeps order with up to 5 requests in flight), or max.in.flight.requests.per.connection=1 where order matters; " +
			"or upgrade the client to 2.1+ (retries=2147483647 bounded by delivery.timeout.ms)."
	default:
		return "Let the producer retry through elections: leave retries at its default (2147483647) and bound the wait with delivery.timeout.ms " +
			"(default 120000), with enable.idempotence=true to keep order."
	}
}

// notLeaderType: errors a leader move produces on a produce request, and
// the expiry a leaderless partition ends in.
func notLeaderType(e string) bool {
	switch e {
	case "NOT_LEADER_OR_FOLLOWER", "NOT_LEADER_FOR_PARTITION", "LEADER_NOT_AVAILABLE",
		"FENCED_LEADER_EPOCH", "UNKNOWN_LEADER_EPOCH", "BATCH_EXPIRED":
		return true
	}
	return false
}
