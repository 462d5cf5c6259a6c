package timeline

import (
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

// collect is a Sink that keeps everything.
type collect struct {
	eps    []*Episode
	errs   []*ProducerError
	bursts []*Burst
}

func (c *collect) Episode(e *Episode)             { c.eps = append(c.eps, e) }
func (c *collect) ProducerError(p *ProducerError) { c.errs = append(c.errs, p) }
func (c *collect) Burst(b *Burst)                 { c.bursts = append(c.bursts, b) }

func (c *collect) find(t *testing.T, topic string, partition, epoch int32) *Episode {
	t.Helper()
	for _, e := range c.eps {
		if e.Topic == topic && e.Partition == partition && e.LeaderEpoch == epoch {
			return e
		}
	}
	t.Fatalf("no election %s-%d epoch %d among %d", topic, partition, epoch, len(c.eps))
	return nil
}

// runFiles reads the files as audit does (source.Reader: one parser per
// file, merged in time order, zone-less times as UTC) into a timeline
// swept after every event.
func runFiles(t *testing.T, cfg Config, paths ...string) *collect {
	t.Helper()
	return runSwept(t, cfg, 1, paths...)
}

func ts(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05.000", s)
	if err != nil {
		panic(err)
	}
	return t
}

func phaseTimes(bt *BrokerTimeline) map[string]string {
	m := map[string]string{}
	for ph := parser.PhaseReceived; ph < parser.NumPhases; ph++ {
		if t := bt.Phases[ph]; !t.IsZero() {
			m[ph.String()] = t.Format("15:04:05.000")
		}
	}
	return m
}

func eqPhases(t *testing.T, what string, got map[string]string, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: phases %v, want %v", what, got, want)
		return
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: phase %s = %q, want %q (all: %v)", what, k, got[k], v, got)
		}
	}
}

// The worked example of the issue "Batch audit, end to end".
func TestWorkedExample0102(t *testing.T) {
	c := runFiles(t, Config{}, "../testdata/incidents/worked-0.10.2/broker-2/state-change.log")
	if len(c.eps) != 1 {
		t.Fatalf("%d elections, want 1", len(c.eps))
	}
	e := c.eps[0]
	if e.Topic != "__consumer_offsets" || e.Partition != 36 || e.LeaderEpoch != 10 {
		t.Fatalf("key %+v", e.Key)
	}
	if e.Leader != 3 || e.Controller != 1 || e.ControllerEpoch != 8 {
		t.Errorf("leader %d controller %d epoch %d, want 3/1/8", e.Leader, e.Controller, e.ControllerEpoch)
	}
	if d := e.Duration(); d != 22*time.Millisecond {
		t.Errorf("duration %v, want 22ms", d)
	}
	if len(e.Brokers) != 1 || e.Brokers[0].Broker != 2 || e.Brokers[0].Role != parser.RoleFollower {
		t.Fatalf("brokers %+v", e.Brokers)
	}
	bt := e.Brokers[0]
	eqPhases(t, "broker 2", phaseTimes(bt), map[string]string{
		"received": "15:01:03.023", "handling": "15:01:03.023", "stopped_fetchers": "15:01:03.023",
		"truncated": "15:01:03.044", "started_fetcher": "15:01:03.044", "completed": "15:01:03.044", "cached": "15:01:03.045",
	})
	if ap, ok := bt.Applied(); !ok || ap != 21*time.Millisecond {
		t.Errorf("applied in %v, want 21ms", ap)
	}
	if !e.Transition {
		t.Error("not marked as a transition")
	}
}

func TestProducerErrorMatching(t *testing.T) {
	c := &collect{}
	tl := New(Config{SkewTolerance: 100 * time.Millisecond, StaleWindow: time.Minute}, c)
	at := func(ms int) time.Time { return ts("2024-01-01 10:00:00.000").Add(time.Duration(ms) * time.Millisecond) }
	phase := func(ms int, broker int32, ph parser.Phase, role parser.Role) {
		ev := parser.Event{Kind: parser.KindPhase, Time: at(ms), Phase: ph, Role: role, Broker: broker, Topic: "orders", Partition: 3,
			LeaderEpoch: 14, Leader: 2, PrevLeader: Unknown, Controller: Unknown, ControllerEpoch: Unknown, StateControllerEpoch: Unknown, CorrelationID: -1}
		tl.Add(0, &ev)
	}
	perr := func(ms int, partition int32) {
		ev := parser.Event{Kind: parser.KindProducerError, Time: at(ms), Topic: "orders", Partition: partition, Error: "NOT_LEADER_OR_FOLLOWER",
			ClientID: "producer-1", AttemptsLeft: 3, Broker: Unknown, Leader: Unknown, LeaderEpoch: Unknown}
		tl.Add(1, &ev)
	}
	phase(0, 2, parser.PhaseEpochStart, parser.RoleLeader)
	perr(-50, 3) // before start, within tolerance: during
	perr(10, 3)  // inside: during
	phase(40, 3, parser.PhaseEpochStart, parser.RoleFollower)
	perr(140, 3)   // end 40 + 100 tolerance: during (boundary)
	perr(141, 3)   // just past: after, lag 101ms
	perr(30000, 3) // after, lag 29.96 s
	perr(70000, 3) // past the stale window: none
	perr(20, 4)    // other partition: none
	tl.Close()
	want := []struct {
		m   Match
		lag time.Duration
	}{{MatchDuring, 0}, {MatchDuring, 0}, {MatchDuring, 0}, {MatchAfter, 101 * time.Millisecond}, {MatchAfter, 29960 * time.Millisecond}, {MatchNone, 0}, {MatchNone, 0}}
	if len(c.errs) != len(want) {
		t.Fatalf("%d errors, want %d", len(c.errs), len(want))
	}
	sort.SliceStable(c.errs, func(i, j int) bool { return c.errs[i].Time.Before(c.errs[j].Time) })
	// Sorted order: -50, 10, 20(p4), 140, 141, 30000, 70000
	order := []int{0, 1, 6, 2, 3, 4, 5}
	for i, pe := range c.errs {
		w := want[order[i]]
		if pe.Match != w.m || pe.Lag != w.lag {
			t.Errorf("error at %s partition %d: match %v lag %v, want %v %v", pe.Time.Format("15:04:05.000"), pe.Partition, pe.Match, pe.Lag, w.m, w.lag)
		}
	}
	if e := c.find(t, "orders", 3, 14); e.ProducerErrors != 5 {
		t.Errorf("election counts %d errors, want 5", e.ProducerErrors)
	}
}

func TestRequestLevelLinesAttach(t *testing.T) {
	// broker.md §3.6 example: one 2.7+ request covering a leader and a follower partition.
	lines := `[2021-05-04 17:22:10,015] INFO [Broker id=2] Handling LeaderAndIsr request correlationId 118 from controller 1 for 6 partitions (state.change.logger)
[2021-05-04 17:22:10,019] INFO [Broker id=2] Stopped fetchers as part of LeaderAndIsr request correlationId 118 from controller 1 epoch 27 as part of the become-leader transition for 2 partitions (state.change.logger)
[2021-05-04 17:22:10,024] INFO [Broker id=2] Leader orders-3 starts at leader epoch 14 from offset 55012 with high watermark 55010 ISR [2,3] addingReplicas [] removingReplicas []. Previous leader epoch was 13. (state.change.logger)
[2021-05-04 17:22:10,031] INFO [Broker id=2] Follower orders-7 starts at leader epoch 9 from offset 1200 with high watermark 1200. Previous leader epoch was 8. (state.change.logger)
[2021-05-04 17:22:10,033] INFO [Broker id=2] Stopped fetchers as part of become-follower request from controller 1 epoch 27 with correlation id 118 for 4 partitions (state.change.logger)
[2021-05-04 17:22:10,047] INFO [Broker id=2] Finished LeaderAndIsr request in 32ms correlationId 118 from controller 1 for 6 partitions (state.change.logger)
[2021-05-04 17:22:10,066] INFO [Broker id=2] Add 6 partitions and deleted 0 partitions from metadata cache in response to UpdateMetadata request sent by controller 1 epoch 27 with correlation id 119 (state.change.logger)
`
	path := t.TempDir() + "/state-change.log"
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	c := runFiles(t, Config{}, path)
	if len(c.eps) != 2 {
		t.Fatalf("%d elections, want 2", len(c.eps))
	}
	ld := c.find(t, "orders", 3, 14)
	if ld.Leader != 2 {
		t.Errorf("orders-3 leader %d, want 2", ld.Leader)
	}
	eqPhases(t, "orders-3 broker 2", phaseTimes(ld.Brokers[0]), map[string]string{
		"handling": "17:22:10.015", "stopped_fetchers": "17:22:10.019", "epoch_start": "17:22:10.024",
		"finished": "17:22:10.047", "cached": "17:22:10.066",
	})
	if ld.Brokers[0].Elapsed != 32*time.Millisecond {
		t.Errorf("finished in %v, want 32ms", ld.Brokers[0].Elapsed)
	}
	fo := c.find(t, "orders", 7, 9)
	if fo.Brokers[0].Role != parser.RoleFollower {
		t.Errorf("orders-7 role %v", fo.Brokers[0].Role)
	}
	eqPhases(t, "orders-7 broker 2", phaseTimes(fo.Brokers[0]), map[string]string{
		"handling": "17:22:10.015", "epoch_start": "17:22:10.031", "stopped_fetchers": "17:22:10.033",
		"finished": "17:22:10.047", "cached": "17:22:10.066",
	})
	if d := fo.Duration(); d != 51*time.Millisecond {
		t.Errorf("orders-7 duration %v, want 51ms (10.015 → 10.066)", d)
	}
}

func TestRepeatsDoNotMoveEnd(t *testing.T) {
	lines := strings.Join([]string{
		`[2024-09-30 12:00:01,250] INFO [Broker id=2] Leader orders-3 with topic id Some(kR2Xv9fHTwC1dYq4J0xB7g) starts at leader epoch 14 from offset 55012 with partition epoch 41, high watermark 55010, ISR [2,3], adding replicas [] and removing replicas [] . Previous leader Some(1) and previous leader epoch was 13. (state.change.logger)`,
		`[2024-09-30 12:00:01,262] INFO [Broker id=3] Follower orders-3 starts at leader epoch 14 from offset 55012 with partition epoch 41 and high watermark 55010. Current leader is 2. Previous leader Some(1) and previous leader epoch was 13. (state.change.logger)`,
		// Broker 3 restarts an hour later and re-logs the same epoch.
		`[2024-09-30 13:00:00,000] INFO [Broker id=3] Follower orders-3 starts at leader epoch 14 from offset 60000 with partition epoch 41 and high watermark 60000. Current leader is 2. Previous leader Some(2) and previous leader epoch was 14. (state.change.logger)`,
	}, "\n")
	path := t.TempDir() + "/state-change.log"
	os.WriteFile(path, []byte(lines), 0o644)
	c := runFiles(t, Config{}, path)
	if len(c.eps) != 1 {
		t.Fatalf("%d elections, want 1", len(c.eps))
	}
	e := c.eps[0]
	if d := e.Duration(); d != 12*time.Millisecond {
		t.Errorf("duration %v, want 12ms: a restart's re-log must not stretch the election", d)
	}
	if e.Late != 0 && e.Late != 1 {
		t.Errorf("late %d", e.Late)
	}
	// The 3.6+ "Previous leader Some(1)" is not trusted (broker.md §10):
	// with no earlier epoch in the logs the previous leader is unknown.
	if e.PreviousLeader != Unknown {
		t.Errorf("previous leader %d, want unknown", e.PreviousLeader)
	}
}
