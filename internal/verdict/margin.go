package verdict

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/textfmt"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// Retry-margin thresholds: the share of the retry budget an election used
// that is worth saying (info), and that leaves too little to trust (warning).
const (
	marginInfo    = 0.5
	marginWarning = 0.8
	// marginHeadroom: the budget suggested covers this many times the
	// longest election seen (elections under load run longer).
	marginHeadroom = 2
)

// window is how long producers could see NOT_LEADER for an election: from
// the old leader stopping to the new one ready (timeline's
// NotLeaderWindow), or first line to last when the new leader's lines are
// not in the logs.
func (s *epSum) window() time.Duration {
	if s.hasNotLeader {
		return s.notLeaderTo.Sub(s.notLeaderFrom)
	}
	return s.dur()
}

// retryMargin: retries that rode out an election but used most of the
// budget: how close it came to failing sends, and what budget would cover
// the longest election these errors met.
func (f *finisher) retryMargin(p *producer) {
	ca := p.agg
	s := p.set
	if ca == nil || len(ca.retried) == 0 || !s.retries.known || s.retries.val <= 0 {
		return
	}
	// The limits a retried batch runs into: its count of retries, and from
	// 2.1 delivery.timeout.ms. Before 2.1 time is no limit (each retry may
	// wait request.timeout.ms for its response), so only the count counts.
	var timeLimit time.Duration
	if s.deliveryTimeout.known && s.deliveryTimeout.val > 0 {
		timeLimit = time.Duration(s.deliveryTimeout.val) * time.Millisecond
	}
	var keys []timeline.Key
	for k := range ca.retried {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return lessKey(keys[i], keys[j]) })

	type use struct {
		key         timeline.Key
		u           *retryUse
		ep          *epSum
		frac        float64
		byCount     bool
		used        int64 // retries spent, when counted
		spent       time.Duration
		countFrac   float64
		timeFrac    float64
		attemptsMin int64
	}
	var worst *use
	var longest *epSum
	over := 0
	for _, k := range keys {
		u := ca.retried[k]
		ep := f.a.interest[k]
		if ep == nil || !ep.filled {
			continue
		}
		if longest == nil || ep.window() > longest.window() {
			longest = ep
		}
		if u.final || u.n == 0 {
			// Failed sends are retry-budget-exceeded's.
			continue
		}
		x := use{key: k, u: u, ep: ep, spent: u.last.Sub(u.first), countFrac: -1, timeFrac: -1, attemptsMin: u.minLeft}
		if u.minLeft >= 0 && u.minLeft < s.retries.val {
			x.used = s.retries.val - u.minLeft
			x.countFrac = float64(x.used) / float64(s.retries.val)
		}
		if timeLimit > 0 {
			x.timeFrac = float64(x.spent) / float64(timeLimit)
		}
		x.frac, x.byCount = x.timeFrac, false
		if x.countFrac > x.frac {
			x.frac, x.byCount = x.countFrac, true
		}
		if x.frac < marginInfo {
			continue
		}
		over++
		if worst == nil || x.frac > worst.frac {
			w := x
			worst = &w
		}
	}
	if worst == nil {
		return
	}
	if longest == nil || longest.window() < worst.ep.window() {
		longest = worst.ep
	}
	sev := Info
	if worst.frac >= marginWarning {
		sev = Warning
	}
	name := f.producerName(p)
	pct := int(math.Round(worst.frac * 100))
	var how string
	if worst.byCount {
		how = fmt.Sprintf("%d of its %d retries (%d%%): its closest batch had %d %s left",
			worst.used, s.retries.val, pct, worst.attemptsMin, pluralWord(worst.attemptsMin, "attempt", "attempts"))
	} else {
		how = fmt.Sprintf("%s of retrying out of delivery.timeout.ms=%d (%d%%)", textfmt.Dur(worst.spent), s.deliveryTimeout.val, pct)
	}
	msg := fmt.Sprintf("producer %s (%s) rode out %s (NOT_LEADER for %s from %s) on retries, but it took %s; %s",
		name, f.producerVersion(p), keyName(worst.key), textfmt.Dur(worst.ep.window()), f.tm(worst.ep.start),
		how, plural(worst.u.n, "retry was logged", "retries were logged"))
	if over > 1 {
		msg += fmt.Sprintf("; %d elections used more than half of its budget", over)
	}
	suggest, sugData := s.coverFor(marginHeadroom * longest.window())
	msg += fmt.Sprintf(". The longest election its errors met took %s (%s): %s would cover it twice over",
		textfmt.Dur(longest.window()), keyName(longest.key), suggest)

	d := f.producerData(p)
	d["election"] = map[string]any{"topic": worst.key.Topic, "partition": worst.key.Partition, "leader_epoch": worst.key.LeaderEpoch, "start": f.rfc(worst.ep.start)}
	d["election_ms"] = worst.ep.window().Milliseconds()
	d["retries_logged"] = worst.u.n
	if worst.countFrac >= 0 {
		d["retries_used"] = worst.used
		d["attempts_left_min"] = worst.attemptsMin
	}
	d["retrying_ms"] = worst.spent.Milliseconds()
	if timeLimit > 0 {
		d["delivery_timeout_ms"] = s.deliveryTimeout.val
	}
	if b, explain, ok := s.budget(); ok {
		d["budget_ms"] = b.Milliseconds()
		d["budget"] = explain
	}
	d["used_percent"] = pct
	d["elections_over_half"] = over
	d["longest_election_ms"] = longest.window().Milliseconds()
	for k, v := range sugData {
		d[k] = v
	}
	remedy := "Size the retry budget for the slowest election, not the usual one: " + suggest + "."
	if s.ver.ok && !s.ver.atLeast(2, 1, 0) {
		remedy += " Or upgrade the client to 2.1+, where retries default to 2147483647 bounded by delivery.timeout.ms (120000)."
	}
	refs := []timeline.Ref{worst.u.firstRef}
	if worst.u.minRef.Line > 0 {
		refs = append(refs, worst.u.minRef)
	}
	refs = append(append(refs, f.cfgRef(p)...), worst.ep.refs...)
	f.add(Finding{
		Code: CodeRetryMargin, Severity: sev, Subject: "producer " + name, Message: msg,
		Remedy:   remedy,
		Evidence: f.ev(refs...), Data: d,
	})
}

func pluralWord(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// coverFor says what retry settings give a budget of at least d (counting
// back-off only, as budget does), keeping this producer's other settings.
func (s settings) coverFor(d time.Duration) (string, map[string]any) {
	if d <= 0 {
		d = time.Millisecond
	}
	if s.deliveryTimeout.known && s.deliveryTimeout.val > 0 {
		// 2.1+: the count is effectively unbounded by default; the time
		// bound is delivery.timeout.ms.
		need := d.Milliseconds()
		if s.retries.val < math.MaxInt32 {
			n := s.retriesFor(d)
			return fmt.Sprintf("retries=%d (or the default 2147483647) with delivery.timeout.ms ≥ %d", n, max(need, s.deliveryTimeout.val)),
				map[string]any{"suggested_retries": n, "suggested_delivery_timeout_ms": max(need, s.deliveryTimeout.val)}
		}
		return fmt.Sprintf("delivery.timeout.ms ≥ %d", need), map[string]any{"suggested_delivery_timeout_ms": need}
	}
	n := s.retriesFor(d)
	return fmt.Sprintf("retries=%d at retry.backoff.ms=%d", n, s.backoff.val), map[string]any{"suggested_retries": n}
}

// retriesFor: the fewest retries whose back-off adds up to d.
func (s settings) retriesFor(d time.Duration) int64 {
	back := s.backoff.val
	if back <= 0 {
		back = 1
	}
	want := d.Milliseconds()
	var ms, n int64
	cur := back
	for ms < want && n < math.MaxInt32 {
		ms += cur
		n++
		if s.backoffMax.known && s.backoffMax.val > back {
			cur = min(cur*2, s.backoffMax.val)
		}
		if n > 1<<20 {
			// Fixed back-off: finish arithmetically.
			n += (want - ms + cur - 1) / cur
			break
		}
	}
	return min(max(n, 1), math.MaxInt32)
}
