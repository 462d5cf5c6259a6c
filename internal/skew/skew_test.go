package skew

import (
	"slices"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

var t0 = time.Date(2021, 6, 14, 10, 15, 20, 0, time.UTC)

func ms(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }

func decision(tp string, part, epoch int32, at int) *parser.Event {
	return &parser.Event{Kind: parser.KindDecision, Time: ms(at), Topic: tp, Partition: part, LeaderEpoch: epoch, Controller: 1, Broker: parser.Unknown}
}

func applied(broker int32, tp string, part, epoch int32, at int) *parser.Event {
	return &parser.Event{Kind: parser.KindPhase, Phase: parser.PhaseEpochStart, Time: ms(at), Topic: tp, Partition: part, LeaderEpoch: epoch, Broker: broker, Controller: parser.Unknown}
}

// Sources: 0 = controller (broker 1), 1 = broker 2, 2 = broker 3.
var clocks = []Clock{{"broker 1", []int{0}}, {"broker 2", []int{1}}, {"broker 3", []int{2}}}

func offsets(es Estimate) map[string]time.Duration {
	m := map[string]time.Duration{}
	for _, r := range es.Results {
		m[r.Clock.Name] = r.Offset
	}
	return m
}

// Brokers that apply each epoch 5-20 ms after the controller decided it
// contradict nothing: every clock stays at 0.
func TestConsistentClocksStayAtZero(t *testing.T) {
	e := NewEstimator()
	for i := int32(0); i < 5; i++ {
		at := int(i) * 1000
		e.Add(0, decision("orders", i, 7, at))
		e.Add(1, applied(2, "orders", i, 7, at+5+int(i)))
		e.Add(2, applied(3, "orders", i, 7, at+12+int(i)))
	}
	es := e.Estimate(clocks)
	if es.Corrected() {
		t.Fatalf("corrected consistent clocks: %+v", es.Results)
	}
	if len(es.Results) != 3 {
		t.Fatalf("%d results, want 3", len(es.Results))
	}
}

// Broker 3 logs every epoch 110-115 ms before the controller decided it:
// broker 3 (one clock) runs behind, not the two others ahead. With no pair
// the other way, the correction is the smallest that restores the order.
func TestOneClockBehind(t *testing.T) {
	e := NewEstimator()
	for i := int32(0); i < 5; i++ {
		at := int(i) * 1000
		e.Add(2, applied(3, "orders", i, 7, at-115+int(i)))
		e.Add(0, decision("orders", i, 7, at))
		e.Add(1, applied(2, "orders", i, 7, at+6))
	}
	es := e.Estimate(clocks)
	got := offsets(es)
	// Second smallest delta of 5 (-115,-114,...) is -114; plus the 2 ms
	// tolerance: at most -112 ms, the nearest to 0 allowed.
	if got["broker 3"] != -112*time.Millisecond || got["broker 1"] != 0 || got["broker 2"] != 0 {
		t.Fatalf("offsets %v", got)
	}
	for _, r := range es.Results {
		if r.Clock.Name == "broker 3" && (!r.HasHi || r.HasLo || len(r.Evidence) != 1) {
			t.Fatalf("broker 3 bounds %+v", r)
		}
	}
}

// A pair each way bounds the clock on both sides; the estimate is the
// middle, as with an NTP round trip: a broker 120 ms ahead registers 15 ms
// before the controller sees it join (logged 105 ms after) and applies an
// epoch 20 ms after the controller decided it (logged 140 ms after).
func TestBothSidesGiveTheMiddle(t *testing.T) {
	e := NewEstimator()
	reg := &parser.Event{Kind: parser.KindBrokerLifecycle, Lifecycle: parser.LifeRegistered, Time: ms(5000 + 120), Broker: 2, Controller: parser.Unknown}
	joined := &parser.Event{Kind: parser.KindTrigger, Cause: parser.CauseBrokerStartup, Time: ms(5015), Subjects: []int32{2}, Broker: 2, Controller: 1}
	e.Add(1, reg)
	e.Add(0, joined)
	e.Add(0, decision("orders", 0, 9, 9000))
	e.Add(1, applied(2, "orders", 0, 9, 9020+120))
	got := offsets(e.Estimate(clocks))
	// Bounds: ≥ 105-2-10 = 93 ms (10 ms: the controller may see the znode
	// before the broker logs it), ≤ 140+2 = 142 ms → 117.5, rounded 118 ms
	// (Round: half away from zero).
	if got["broker 2"] != 118*time.Millisecond {
		t.Fatalf("offsets %v", got)
	}
}

// One pair matched with the wrong cause (a late duplicate) does not move a
// clock when two or more others agree.
func TestOneOutlierOfThreeIgnored(t *testing.T) {
	e := NewEstimator()
	e.Add(1, applied(2, "orders", 0, 7, -300)) // applied epoch 7 before this decision: from an earlier one we never saw
	e.Add(0, decision("orders", 0, 7, 0))
	for i := int32(1); i < 4; i++ {
		e.Add(0, decision("orders", i, 7, int(i)*1000))
		e.Add(1, applied(2, "orders", i, 7, int(i)*1000+8))
	}
	if es := e.Estimate(clocks); es.Corrected() {
		t.Fatalf("one outlier moved a clock: %+v", es.Results)
	}
}

// Bounds that contradict each other (a cycle no offsets satisfy) are
// reported, and nothing is corrected.
func TestContradictionReported(t *testing.T) {
	e := NewEstimator()
	// broker 2 applied 100 ms before the decision: s2 - s1 ≤ -98 ms ...
	e.Add(1, applied(2, "orders", 0, 7, -100))
	e.Add(0, decision("orders", 0, 7, 0))
	// ... and registered 100 ms before the controller saw it: s1 - s2 ≤ -98 ms.
	e.Add(0, &parser.Event{Kind: parser.KindTrigger, Cause: parser.CauseBrokerStartup, Time: ms(5000), Subjects: []int32{2}, Controller: 1, Broker: 2})
	e.Add(1, &parser.Event{Kind: parser.KindBrokerLifecycle, Lifecycle: parser.LifeRegistered, Time: ms(5100), Broker: 2, Controller: parser.Unknown})
	es := e.Estimate(clocks)
	if es.Corrected() || len(es.Inconsistent) == 0 {
		t.Fatalf("contradiction not reported: %+v", es)
	}
}

// A follower's "Added fetcher to broker L" comes before L adds it to the
// ISR; the pair is only made when the follower was not in the ISR.
func TestFetcherThenISRExpand(t *testing.T) {
	e := NewEstimator()
	e.Add(1, &parser.Event{Kind: parser.KindPhase, Phase: parser.PhaseStartedFetcher, Time: ms(0), Topic: "orders", Partition: 0, LeaderEpoch: parser.Unknown, Leader: 3, Broker: 2})
	e.Add(2, &parser.Event{Kind: parser.KindISRChange, Time: ms(-50), Topic: "orders", Partition: 0, Broker: 3, PrevISR: []int32{3}, ISR: []int32{3, 2}})
	es := e.Estimate(clocks)
	got := offsets(es)
	// broker 2 ahead or broker 3 behind by ≥ 48 ms: one clock moves.
	if got["broker 2"] == 0 && got["broker 3"] == 0 {
		t.Fatalf("no correction: %+v", es.Results)
	}
	const what = "broker 2 started fetching orders-0 from broker 3 → broker 3 added it to the ISR"
	if l := e.pairs[pairKey{1, 2}]; len(l) != 1 || l[0].What != what {
		t.Errorf("pairs %+v, want one: %s", l, what)
	}
	e = NewEstimator()
	e.Add(1, &parser.Event{Kind: parser.KindPhase, Phase: parser.PhaseStartedFetcher, Time: ms(0), Topic: "orders", Partition: 0, LeaderEpoch: parser.Unknown, Leader: 3, Broker: 2})
	e.Add(2, &parser.Event{Kind: parser.KindISRChange, Time: ms(-50), Topic: "orders", Partition: 0, Broker: 3, PrevISR: []int32{3, 2}, ISR: []int32{3, 2, 1}})
	if es := e.Estimate(clocks); len(es.Results) != 0 {
		t.Fatalf("paired a follower already in the ISR: %+v", es.Results)
	}
}

// Lines of one source never pair with each other (one file, one clock).
func TestSameSourceNeverPaired(t *testing.T) {
	e := NewEstimator()
	e.Add(0, applied(1, "orders", 0, 7, -100))
	e.Add(0, decision("orders", 0, 7, 0))
	if es := e.Estimate(clocks); len(es.Results) != 0 {
		t.Fatalf("%+v", es.Results)
	}
}

// The ZK controller logs a join twice; the second line must not pair with
// the same broker's next registration 20 s later (which would read as the
// broker's clock 20 s behind).
func TestJoinLoggedTwicePairsOnce(t *testing.T) {
	e := NewEstimator()
	reg := func(at int) *parser.Event {
		return &parser.Event{Kind: parser.KindBrokerLifecycle, Lifecycle: parser.LifeRegistered, Time: ms(at), Broker: 2, Controller: parser.Unknown}
	}
	joined := func(at int) *parser.Event {
		return &parser.Event{Kind: parser.KindTrigger, Cause: parser.CauseBrokerStartup, Time: ms(at), Subjects: []int32{2}, Broker: 2, Controller: 1}
	}
	e.Add(1, reg(5000))
	e.Add(0, joined(5015))
	e.Add(0, joined(5016))
	e.Add(1, reg(25000)) // a second restart: its controller lines are not in these logs
	es := e.Estimate(clocks)
	if es.Corrected() {
		t.Fatalf("a stale controller line was paired: %+v", es.Results)
	}
	for _, r := range es.Results {
		if r.Pairs != 1 {
			t.Errorf("%s: %d pairs, want 1", r.Clock.Name, r.Pairs)
		}
	}
}

// A broker's files read 3 h off (the wrong --tz): its lines for each epoch
// come long after newer epochs were decided. The pairs still form, from
// the finished epochs kept per partition, and name the offset as a zone
// mistake instead of a skew.
func TestZoneHintFromFinishedEpochs(t *testing.T) {
	e := NewEstimator()
	const threeH = 3 * 3600 * 1000
	for ep := int32(1); ep <= 4; ep++ {
		e.Add(0, decision("orders", 0, ep, int(ep)*60000))
	}
	for ep := int32(1); ep <= 4; ep++ {
		e.Add(1, applied(2, "orders", 0, ep, int(ep)*60000+threeH+7+int(ep)))
	}
	es := e.Estimate(clocks)
	if es.Corrected() {
		t.Fatalf("a zone mistake was taken for a skew: %+v", es.Results)
	}
	if len(es.Zones) != 1 || es.Zones[0].Late.Name != "broker 2" || es.Zones[0].Early.Name != "broker 1" || es.Zones[0].Offset != 3*time.Hour || es.Zones[0].Pairs != 4 {
		t.Fatalf("zones %+v", es.Zones)
	}
	// Offsets that are not whole quarter hours (a clock 7 min off) are no
	// zone mistake.
	e = NewEstimator()
	for ep := int32(1); ep <= 4; ep++ {
		e.Add(0, decision("orders", 0, ep, int(ep)*60000))
	}
	for ep := int32(1); ep <= 4; ep++ {
		e.Add(1, applied(2, "orders", 0, ep, int(ep)*60000+7*60000))
	}
	if es := e.Estimate(clocks); len(es.Zones) != 0 {
		t.Fatalf("7 min taken for a zone: %+v", es.Zones)
	}
}

// Pairs that allow the same bound are kept in a map, so which one is named
// as evidence must not depend on the map's order: the earliest cause wins,
// on every run (a log store gives the same lines other line numbers).
func TestEvidenceAmongEqualPairsIsStable(t *testing.T) {
	var first string
	for run := 0; run < 20; run++ {
		e := NewEstimator()
		// Ten partitions, each applied by broker 2 exactly 17 ms after the
		// decision: ten pairs, every one allowing the same bound.
		for i := int32(0); i < 10; i++ {
			at := int(i) * 3
			e.Add(0, decision("orders", i, 7, at))
			e.Add(1, applied(2, "orders", i, 7, at+17))
		}
		es := e.Estimate(clocks[:2])
		var got string
		for _, r := range es.Results {
			for _, s := range r.Evidence {
				got += r.Clock.Name + " " + s.Cause.Time.Format("15:04:05.000") + " " + s.Effect.Time.Format("15:04:05.000") + ";"
			}
		}
		if run == 0 {
			first = got
			continue
		}
		if got != first {
			t.Fatalf("run %d names other evidence: %q, first run %q", run, got, first)
		}
	}
}

// The lines kept for past epochs are bounded per partition whatever the
// number of sources naming each epoch: 200 copies of one broker's file
// naming 10 partitions' epochs, decided by a controller not among them,
// kept 4 epochs × 200 lines × 10 partitions.
func TestPastEpochsKeepBoundedLines(t *testing.T) {
	e := NewEstimator()
	const sources, partitions, epochs = 200, 10, 12
	for ep := int32(1); ep <= epochs; ep++ {
		for p := int32(0); p < partitions; p++ {
			for s := 0; s < sources; s++ {
				e.Add(s, applied(2, "orders", p, ep, int(ep)*1000+int(p)))
			}
		}
	}
	kept := 0
	for _, st := range e.parts {
		for _, pe := range st.past {
			kept += len(pe.applied)
		}
	}
	if max := partitions * pastEpochs * pastApplied; kept > max {
		t.Fatalf("past epochs keep %d lines, want at most %d (partitions × pastEpochs × pastApplied)", kept, max)
	}
	if kept == 0 {
		t.Fatal("past epochs keep no lines: a late decision has nothing to pair with")
	}
}

// Pairs equal but for their sources (copies of one broker's log, as in a
// set gathered twice) are ordered by line and source, not by the order a
// map gives them: the clock's evidence names the same files every run.
// Before, it named a different copy from run to run.
func TestTiedPairsNameTheSameEvidence(t *testing.T) {
	var first []Sample
	for run := range 20 {
		e := NewEstimator()
		for p := int32(0); p < 4; p++ {
			e.Add(0, decision("orders", p, 3, 10))
			for s := 1; s <= 40; s++ {
				e.Add(s, applied(2, "orders", p, 3, 12))
			}
		}
		b2 := Clock{Name: "broker 2"}
		for s := 1; s <= 40; s++ {
			b2.Sources = append(b2.Sources, s)
		}
		es := e.Estimate([]Clock{{"broker 1", []int{0}}, b2})
		var got []Sample
		for _, r := range es.Results {
			got = append(got, r.Evidence...)
		}
		if len(got) == 0 {
			t.Fatal("no evidence")
		}
		if run == 0 {
			first = got
			continue
		}
		if !slices.Equal(got, first) {
			t.Fatalf("run %d: evidence %+v, run 0: %+v", run, got, first)
		}
	}
}
