package main

import (
	"strings"
	"testing"
)

// Case 3's events-0 epoch 10 (broker 2 failed, leader 2 → 3): the JSON,
// the text report and its lists show one computation of what the election
// took (README "What the durations mean"), and broker 2's return 5.5 s
// later is its catch-up, not a slow election.
func TestCase3DurationsOneFigure(t *testing.T) {
	const dir = "../../testdata/incidents/case3-acks1-zk-expiry"
	js, errs, code := audit(t, "json", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var e rec
	for _, r := range ofType(records(t, js), "election") {
		if r["topic"] == "events" && r["partition"] == 0.0 && r["leader_epoch"] == 10.0 {
			e = r
		}
		// No election took over 100 ms among the brokers that were serving.
		if ms, ok := r["isr_applied_ms"].(float64); ok && ms > 100 {
			t.Errorf("%v-%v epoch %v: isr_applied_ms %v", r["topic"], r["partition"], r["leader_epoch"], ms)
		}
	}
	if e == nil {
		t.Fatal("no events-0 epoch 10")
	}
	if e["leader_ready_ms"] != 21.0 || e["isr_applied_ms"] != 58.0 || e["propagated_ms"] != 66.0 || e["duration_ms"] != 5580.0 {
		t.Errorf("measures %v %v %v, duration %v", e["leader_ready_ms"], e["isr_applied_ms"], e["propagated_ms"], e["duration_ms"])
	}
	for _, b := range e["brokers"].([]any) {
		bm := b.(map[string]any)
		if cu, _ := bm["catch_up"].(bool); cu != (bm["broker"] == 2.0) {
			t.Errorf("broker %v catch_up %v", bm["broker"], bm["catch_up"])
		}
	}
	for _, f := range ofType(records(t, js), "finding") {
		if f["code"] == "slow-election" {
			t.Errorf("slow-election: %v", f["message"])
		}
	}
	full, _, _ := auditWith(t, func(a *AuditCmd) { a.Full = true }, "text", dir)
	for _, want := range []string{
		"events-0 epoch 10: leader 2 → 3 · 21 ms · broker_failure of broker 2",
		"leader ready 21 ms · ISR applied 58 ms · propagated 66 ms · first → last line 5.6 s",
		"catch-up (not serving at the decision)",
		"back after 5.3 s, caught up in 76 ms",
	} {
		if !strings.Contains(strings.Join(strings.Fields(full), " "), want) {
			t.Errorf("text --full lacks %q", want)
		}
	}
	slowest := full[strings.Index(full, "Slowest elections"):]
	if i := strings.Index(slowest, "\n\n"); i > 0 {
		slowest = slowest[:i]
	}
	for _, l := range strings.Split(slowest, "\n") {
		if strings.Contains(l, "events-0") && strings.Contains(l, "epoch 10 ") && !strings.Contains(l, " 21 ms ") {
			t.Errorf("slowest list: %q", l)
		}
	}
}
