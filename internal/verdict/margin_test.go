package verdict

import (
	"math"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

func left(n int64) peOpt { return func(p *timeline.ProducerError) { p.AttemptsLeft = n } }

// The shape of the issue: "1 attempts left" with retries=10.
func TestRetryMarginByCount(t *testing.T) {
	for _, c := range []struct {
		minLeft int64
		sev     string // "" = no finding
		pct     int
	}{
		{1, Warning, 90}, {0, Warning, 100}, {2, Warning, 80}, {4, Info, 60}, {5, Info, 50}, {6, "", 0}, {9, "", 0},
	} {
		x := newFx(t, Config{})
		x.client("app", "2.0.1", 9, cfg("retries", "10", "retry.backoff.ms", "100", "acks", "all"))
		x.ep("orders", 1, 7, 3, 2, "1m", "1.2s", cause(parser.CauseBrokerFailure, 3))
		for i := int64(9); i >= c.minLeft; i-- {
			x.pe("app", 9, "orders", 1, "NOT_LEADER_FOR_PARTITION", (time.Minute + time.Duration(9-i)*105*time.Millisecond).String(), left(i), during("orders", 1, 7))
		}
		fs := x.finish()
		got := find(fs, CodeRetryMargin)
		if c.sev == "" {
			if len(got) > 0 {
				t.Errorf("min left %d: unexpected %s", c.minLeft, got[0].Message)
			}
			continue
		}
		if len(got) != 1 {
			t.Fatalf("min left %d: %d findings", c.minLeft, len(got))
		}
		f := got[0]
		if f.Severity != c.sev || f.Data["used_percent"] != c.pct || f.Data["retries_used"] != 10-c.minLeft {
			t.Errorf("min left %d: %s %v", c.minLeft, f.Severity, f.Data)
		}
		// 2 × 1.2 s at 100 ms a retry.
		if f.Data["suggested_retries"] != int64(24) {
			t.Errorf("suggested %v", f.Data["suggested_retries"])
		}
		has(t, f, "orders-1 epoch 7 (NOT_LEADER for 1.2 s", "retries=24 at retry.backoff.ms=100")
		none(t, fs, CodeRetryBudget)
	}
}

// 2.1+: the count is 2147483647; the budget is delivery.timeout.ms.
func TestRetryMarginByTime(t *testing.T) {
	x := newFx(t, Config{})
	x.client("app", "3.6.1", 9, cfg("retries", "2147483647", "retry.backoff.ms", "100", "delivery.timeout.ms", "30000", "acks", "all", "enable.idempotence", "true"))
	x.ep("orders", 1, 7, 3, 2, "1m", "27s", cause(parser.CauseBrokerFailure, 3))
	x.pe("app", 9, "orders", 1, "NOT_LEADER_OR_FOLLOWER", "1m0.1s", left(2147483646), during("orders", 1, 7))
	x.pe("app", 9, "orders", 1, "NOT_LEADER_OR_FOLLOWER", "1m25.1s", left(2147483400), during("orders", 1, 7))
	f := one(t, x.finish(), CodeRetryMargin)
	// 25 s of a 30 s budget.
	if f.Severity != Warning || f.Data["used_percent"] != 83 || f.Data["retrying_ms"] != int64(25000) || f.Data["suggested_delivery_timeout_ms"] != int64(54000) {
		t.Errorf("%s %v", f.Severity, f.Data)
	}
	has(t, f, "25.0 s of retrying out of delivery.timeout.ms=30000 (83%)", "delivery.timeout.ms ≥ 54000")
}

func TestRetryMarginNotForFailedSends(t *testing.T) {
	x := newFx(t, Config{})
	x.client("app", "2.0.1", 9, cfg("retries", "3", "retry.backoff.ms", "100", "acks", "all"))
	x.ep("orders", 1, 7, 3, 2, "1m", "2.4s", cause(parser.CauseBrokerFailure, 3))
	x.pe("app", 9, "orders", 1, "NOT_LEADER_FOR_PARTITION", "1m0.1s", left(0), during("orders", 1, 7))
	x.pe("app", 9, "orders", 1, "NOT_LEADER_FOR_PARTITION", "1m0.2s", final(), during("orders", 1, 7))
	fs := x.finish()
	none(t, fs, CodeRetryMargin)
	one(t, fs, CodeRetryBudget)
}

// The worst election decides; the longest one sizes the suggestion.
func TestRetryMarginLongestElection(t *testing.T) {
	x := newFx(t, Config{})
	x.client("app", "1.1.1", 9, cfg("retries", "5", "retry.backoff.ms", "200", "acks", "all"))
	x.ep("orders", 1, 7, 3, 2, "1m", "900ms")
	x.ep("orders", 2, 4, 3, 1, "1m", "3s")
	x.pe("app", 9, "orders", 1, "NOT_LEADER_FOR_PARTITION", "1m0.1s", left(0), during("orders", 1, 7))
	x.pe("app", 9, "orders", 2, "NOT_LEADER_FOR_PARTITION", "1m0.1s", left(3), during("orders", 2, 4))
	f := one(t, x.finish(), CodeRetryMargin)
	has(t, f, "orders-1 epoch 7", "longest election its errors met took 3.0 s (orders-2 epoch 4)", "retries=30 at retry.backoff.ms=200")
}

func TestRetriesFor(t *testing.T) {
	fixed := settings{backoff: setting{val: 100, known: true}}
	if n := fixed.retriesFor(676 * time.Millisecond); n != 7 {
		t.Errorf("fixed: %d", n)
	}
	// 3.7+: 100, 200, 400, 800, 1000, 1000, ... (KIP-580).
	exp := settings{backoff: setting{val: 100, known: true}, backoffMax: setting{val: 1000, known: true}}
	if n := exp.retriesFor(2500 * time.Millisecond); n != 5 {
		t.Errorf("exponential: %d", n)
	}
	huge := settings{backoff: setting{val: 1, known: true}}
	if n := huge.retriesFor(time.Duration(math.MaxInt32) * time.Millisecond * 4); n != math.MaxInt32 {
		t.Errorf("huge: %d", n)
	}
}

// Before 2.1 time is no limit: retries that each waited for a timed-out
// response used more wall time than retries × retry.backoff.ms, and still
// had most of their count left.
func TestRetryMarginPre21TimeIsNoLimit(t *testing.T) {
	x := newFx(t, Config{})
	x.client("app", "1.1.1", 9, cfg("retries", "10", "retry.backoff.ms", "100", "acks", "all"))
	x.ep("orders", 1, 7, 3, 2, "1m", "65s")
	x.pe("app", 9, "orders", 1, "NOT_LEADER_FOR_PARTITION", "1m0.1s", left(9), during("orders", 1, 7))
	x.pe("app", 9, "orders", 1, "NOT_LEADER_FOR_PARTITION", "1m30.2s", left(8), during("orders", 1, 7))
	x.pe("app", 9, "orders", 1, "NOT_LEADER_FOR_PARTITION", "2m0.3s", left(7), during("orders", 1, 7))
	none(t, x.finish(), CodeRetryMargin)
}
