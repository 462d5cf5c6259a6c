package verdict

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

const U = timeline.Unknown

var base = time.Date(2024, 3, 11, 9, 0, 0, 0, time.UTC)

// at is base + a duration ("1.5s", "2m3s").
func at(d string) time.Time {
	x, err := time.ParseDuration(d)
	if err != nil {
		panic(err)
	}
	return base.Add(x)
}

// fx drives an Analyzer with constructed episodes, errors and context.
type fx struct {
	t    *testing.T
	a    *Analyzer
	tl   *timeline.Timeline
	srcs []SourceFacts
	line int64
}

func newFx(t *testing.T, cfg Config) *fx {
	return &fx{t: t, a: New(cfg), tl: timeline.New(timeline.Config{}, nil)}
}

func (x *fx) ref(src int) timeline.Ref {
	x.line++
	return timeline.Ref{Source: src, Line: x.line}
}

// source declares input file src with what it covers.
func (x *fx) source(src int, path, kind string, eras parser.Era, levels []string, brokers []int32, from, to string) {
	x.srcs = append(x.srcs, SourceFacts{Index: src, Path: path, Kind: kind, Eras: eras, Levels: levels, Brokers: brokers, First: at(from), Last: at(to), Records: 10})
}

// brokerLogs declares a TRACE state-change.log of each broker covering [from, to].
func (x *fx) brokerLogs(from, to string, brokers ...int32) {
	for _, b := range brokers {
		x.source(int(b), fmt.Sprintf("broker-%d/state-change.log", b), "state-change.log", parser.EraBrokerID|parser.EraZKController|parser.EraTrace,
			[]string{"TRACE", "INFO"}, []int32{b}, from, to)
	}
}

type epOpt func(*timeline.Episode)

func cause(c parser.Cause, brokers ...int32) epOpt {
	return func(e *timeline.Episode) { e.Cause, e.CauseBrokers = c, brokers }
}
func replicas(r ...int32) epOpt { return func(e *timeline.Episode) { e.Replicas = r } }
func unclean() epOpt {
	return func(e *timeline.Episode) { e.Unclean = true; e.Cause = parser.CauseUnclean }
}
func brokerPhases(b int32, role parser.Role, phases map[parser.Phase]string) epOpt {
	return func(e *timeline.Episode) {
		bt := &timeline.BrokerTimeline{Broker: b, Role: role, First: timeline.Ref{Source: int(b), Line: 77}}
		for ph, t := range phases {
			bt.Phases[ph] = at(t)
		}
		e.Brokers = append(e.Brokers, bt)
	}
}

// ep hands an election of topic-p at epoch with leader prev→leader,
// lasting dur from start, to the analyzer.
func (x *fx) ep(topic string, p, epoch, prev, leader int32, start, dur string, opts ...epOpt) *timeline.Episode {
	d, _ := time.ParseDuration(dur)
	e := &timeline.Episode{
		Key: timeline.Key{Topic: topic, Partition: p, LeaderEpoch: epoch}, Leader: leader, PreviousLeader: prev,
		Controller: 1, ControllerEpoch: 5, Start: at(start), End: at(start).Add(d), Transition: true,
	}
	e.Decided = e.Start
	e.Evidence = []timeline.Ref{x.ref(1), x.ref(1)}
	for _, o := range opts {
		o(e)
	}
	x.a.Episode(e)
	return e
}

type peOpt func(*timeline.ProducerError)

func final() peOpt { return func(p *timeline.ProducerError) { p.Final = true } }
func during(topic string, p, epoch int32) peOpt {
	return func(pe *timeline.ProducerError) {
		pe.Match, pe.Election = timeline.MatchDuring, &timeline.Key{Topic: topic, Partition: p, LeaderEpoch: epoch}
	}
}
func after(topic string, p, epoch int32, lag string) peOpt {
	return func(pe *timeline.ProducerError) {
		d, _ := time.ParseDuration(lag)
		pe.Match, pe.Election, pe.Lag = timeline.MatchAfter, &timeline.Key{Topic: topic, Partition: p, LeaderEpoch: epoch}, d
	}
}
func brokerSide() peOpt { return func(p *timeline.ProducerError) { p.BrokerSide = true } }

// pe hands a producer error of client id, logged in source src.
func (x *fx) pe(id string, src int, topic string, p int32, errName, when string, opts ...peOpt) {
	pe := &timeline.ProducerError{Time: at(when), ClientID: id, Topic: topic, Partition: p, Error: errName, AttemptsLeft: -1, Ref: x.ref(src)}
	for _, o := range opts {
		o(pe)
	}
	x.a.ProducerError(pe)
}

// client registers a producer's config block (logged in src) and version.
func (x *fx) client(id, version string, src int, cfg map[string]string) {
	x.tl.Clients[id] = &timeline.Client{ID: id, Version: version, Config: cfg, Ref: timeline.Ref{Source: src, Line: 1}}
}

func (x *fx) brokerEvent(b int32, life parser.Lifecycle, c parser.Cause, when string, src int) {
	x.tl.Stats.BrokerEvents = append(x.tl.Stats.BrokerEvents, timeline.BrokerEvent{Time: at(when), Broker: b, Lifecycle: life, Cause: c, Ref: x.ref(src)})
}

func (x *fx) finish() []Finding {
	return x.a.Finish(x.tl, func(src int) string { return fmt.Sprintf("file%d.log", src) }, x.srcs)
}

func find(fs []Finding, code string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Code == code {
			out = append(out, f)
		}
	}
	return out
}

func one(t *testing.T, fs []Finding, code string) Finding {
	t.Helper()
	got := find(fs, code)
	if len(got) != 1 {
		t.Fatalf("%d %s findings, want 1:\n%s", len(got), code, strings.Join(Lines(fs), "\n"))
	}
	return got[0]
}

func none(t *testing.T, fs []Finding, code string) {
	t.Helper()
	if got := find(fs, code); len(got) > 0 {
		t.Fatalf("unexpected %s: %s", code, got[0].Message)
	}
}

func has(t *testing.T, f Finding, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(f.Message, p) {
			t.Errorf("%s message lacks %q:\n%s", f.Code, p, f.Message)
		}
	}
}

func cfg(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// ---------------------------------------------------------------- client side

func TestRetryBudgetExceeded(t *testing.T) {
	x := newFx(t, Config{})
	x.brokerLogs("0s", "1h", 1, 2, 3)
	x.client("", "0.10.2.1", 9, cfg("retries", "0", "acks", "all", "retry.backoff.ms", "100"))
	x.ep("orders", 1, 7, 3, 2, "1m", "21ms", cause(parser.CausePreferred))
	x.pe("", 9, "orders", 1, "NOT_LEADER_FOR_PARTITION", "1m0.012s", final(), during("orders", 1, 7))
	f := one(t, x.finish(), CodeRetryBudget)
	has(t, f, "budget 0 ms (retries=0), producers saw NOT_LEADER for 21 ms", "Kafka 0.10.2.1", "orders-1 epoch 7")
	if f.Severity != Critical || f.Data["budget_ms"] != int64(0) || f.Data["election_ms"] != int64(21) {
		t.Errorf("severity %s data %v", f.Severity, f.Data)
	}
	if len(f.Evidence) == 0 || f.Evidence[0].File != "file9.log" {
		t.Errorf("evidence %v", f.Evidence)
	}
}

func TestRetryBudgetExceededSmallBudget(t *testing.T) {
	x := newFx(t, Config{})
	x.client("app", "2.0.1", 9, cfg("retries", "3", "retry.backoff.ms", "100", "acks", "all"))
	x.ep("orders", 1, 7, 3, 2, "1m", "2.4s", cause(parser.CauseBrokerFailure, 3))
	x.pe("app", 9, "orders", 1, "NOT_LEADER_FOR_PARTITION", "1m1s", final(), during("orders", 1, 7))
	f := one(t, x.finish(), CodeRetryBudget)
	has(t, f, "budget 300 ms (retries=3 × retry.backoff.ms=100), producers saw NOT_LEADER for 2.4 s")
}

func TestRetryBudgetNotExceeded(t *testing.T) {
	x := newFx(t, Config{})
	// 2.1+: retries default to MAX_INT, bounded by delivery.timeout.ms=120000.
	x.client("app", "2.8.1", 9, cfg("acks", "all"))
	x.ep("orders", 1, 7, 3, 2, "1m", "2.4s", cause(parser.CauseBrokerFailure, 3))
	x.pe("app", 9, "orders", 1, "NOT_LEADER_OR_FOLLOWER", "1m1s", final(), during("orders", 1, 7))
	// A final error of another kind, and a NOT_LEADER retry, never count.
	x.pe("app", 9, "orders", 1, "NOT_ENOUGH_REPLICAS", "1m1s", final(), during("orders", 1, 7))
	none(t, x.finish(), CodeRetryBudget)
}

func TestNoRetries(t *testing.T) {
	x := newFx(t, Config{})
	// 2.0: no retries key in the (partial) block → the 2.0 default, 0.
	x.client("app", "2.0.1", 9, cfg("acks", "all"))
	x.ep("orders", 1, 7, 3, 2, "1m", "30ms")
	x.pe("app", 9, "orders", 1, "NOT_LEADER_FOR_PARTITION", "1m0.01s", during("orders", 1, 7))
	f := one(t, x.finish(), CodeNoRetries)
	has(t, f, "retries=0 (default for Kafka 2.0.1)", "1 leader-related error")
	if f.Severity != Warning {
		t.Errorf("severity %s", f.Severity)
	}
}

func TestNoRetriesLeaderChangesWhileRunning(t *testing.T) {
	x := newFx(t, Config{})
	x.source(9, "app.log", "client application log", parser.EraProducer, []string{"INFO"}, nil, "0s", "1h")
	x.client("app", "1.1.1", 9, cfg("retries", "0", "acks", "all"))
	x.ep("orders", 1, 7, 3, 2, "1m", "30ms")
	x.ep("orders", 2, 4, 1, 3, "2m", "30ms")
	f := one(t, x.finish(), CodeNoRetries)
	has(t, f, "2 leader changes happened while it ran")
}

func TestNoRetriesNotTriggered(t *testing.T) {
	x := newFx(t, Config{})
	x.client("new", "2.1.0", 9, cfg("acks", "all")) // default MAX_INT
	x.client("quiet", "0.11.0.2", 8, cfg("retries", "0", "acks", "all"))
	x.ep("orders", 1, 7, 3, 2, "1m", "30ms")
	x.pe("new", 9, "orders", 1, "NOT_LEADER_FOR_PARTITION", "1m0.01s", during("orders", 1, 7))
	none(t, x.finish(), CodeNoRetries) // "quiet" saw no leader change
}

func TestReorderingRisk(t *testing.T) {
	x := newFx(t, Config{})
	x.client("app", "2.8.0", 9, cfg("retries", "2147483647", "max.in.flight.requests.per.connection", "5", "enable.idempotence", "false", "acks", "1"))
	f := one(t, x.finish(), CodeReordering)
	has(t, f, "retries=2147483647", "max.in.flight.requests.per.connection=5", "enable.idempotence=false")
	if !strings.Contains(f.Remedy, "enable.idempotence=true") {
		t.Errorf("remedy %q", f.Remedy)
	}
	// 0.10: no idempotence to offer.
	x = newFx(t, Config{})
	x.client("old", "0.10.2.1", 9, cfg("retries", "5", "max.in.flight.requests.per.connection", "5"))
	f = one(t, x.finish(), CodeReordering)
	if !strings.Contains(f.Remedy, "max.in.flight.requests.per.connection=1") || strings.Contains(f.Remedy, "Set enable.idempotence") {
		t.Errorf("remedy %q", f.Remedy)
	}
}

func TestReorderingRiskNotTriggered(t *testing.T) {
	for name, c := range map[string]struct {
		ver string
		cfg map[string]string
	}{
		"idempotent":     {"2.8.0", cfg("retries", "2147483647", "max.in.flight.requests.per.connection", "5", "enable.idempotence", "true")},
		"one in flight":  {"2.8.0", cfg("retries", "2147483647", "max.in.flight.requests.per.connection", "1", "enable.idempotence", "false")},
		"no retries":     {"0.10.2.1", cfg("retries", "0", "max.in.flight.requests.per.connection", "5")},
		"3.2 defaults":   {"3.2.0", cfg("acks", "all")},
		"no config seen": {"2.8.0", nil},
	} {
		t.Run(name, func(t *testing.T) {
			x := newFx(t, Config{})
			if c.cfg != nil {
				x.client("app", c.ver, 9, c.cfg)
			} else {
				x.tl.Clients["app"] = &timeline.Client{ID: "app", Version: c.ver}
			}
			none(t, x.finish(), CodeReordering)
		})
	}
}

func TestLossRiskAcks(t *testing.T) {
	x := newFx(t, Config{})
	x.client("app", "2.8.0", 9, cfg("acks", "1"))
	x.ep("orders", 1, 7, 3, 2, "1m", "30ms", cause(parser.CausePreferred))
	x.pe("app", 9, "orders", 1, "NOT_LEADER_OR_FOLLOWER", "1m0.01s", during("orders", 1, 7))
	f := one(t, x.finish(), CodeLossRiskAcks)
	if f.Severity != Warning {
		t.Errorf("severity %s: %s", f.Severity, f.Message)
	}
	has(t, f, "acks=1", "orders-1 epoch 7 3→2", "preferred election")
}

func TestLossRiskAcksCriticalAfterSessionExpiry(t *testing.T) {
	x := newFx(t, Config{})
	x.source(2, "broker-2/server.log", "server.log", 0, []string{"INFO"}, []int32{2}, "0s", "1h")
	x.client("app", "2.8.0", 9, cfg("acks", "0"))
	// The broker's own "Session expired." names no broker: its file does.
	x.brokerEvent(U, parser.LifeSessionExpired, 0, "59.5s", 2)
	// ZK 2.6+ INFO lines never name the previous leader: the NOT_LEADER
	// error is the proof the leader moved.
	x.ep("orders", 1, 8, U, 3, "1m", "40ms", cause(parser.CauseBrokerFailure, 2))
	x.pe("app", 9, "orders", 1, "NOT_LEADER_OR_FOLLOWER", "1m0.01s", during("orders", 1, 8))
	f := one(t, x.finish(), CodeLossRiskAcks)
	if f.Severity != Critical {
		t.Errorf("severity %s", f.Severity)
	}
	has(t, f, "acks=0", "orders-1 epoch 8 ?→3", "broker 2 lost its ZooKeeper session")
}

func TestLossRiskAcksNotTriggered(t *testing.T) {
	x := newFx(t, Config{})
	x.client("all", "2.8.0", 9, cfg("acks", "-1"))
	x.client("def3", "3.6.1", 8, cfg("retries", "10")) // 3.0+: acks=all by default
	x.ep("orders", 1, 7, 3, 2, "1m", "30ms")
	x.pe("all", 9, "orders", 1, "NOT_LEADER_OR_FOLLOWER", "1m0.01s", during("orders", 1, 7))
	x.pe("def3", 8, "orders", 1, "NOT_LEADER_OR_FOLLOWER", "1m0.01s", during("orders", 1, 7))
	none(t, x.finish(), CodeLossRiskAcks)
}

func TestStaleMetadata(t *testing.T) {
	x := newFx(t, Config{})
	x.client("app", "3.6.1", 9, cfg("acks", "all"))
	x.ep("orders", 1, 7, 3, 2, "1m", "30ms")
	for _, lag := range []string{"300ms", "1.2s", "4.9s"} {
		x.pe("app", 9, "orders", 1, "NOT_LEADER_OR_FOLLOWER", "1m10s", after("orders", 1, 7, lag))
	}
	f := one(t, x.finish(), CodeStaleMetadata)
	has(t, f, "3 errors came after their election had already ended", "p50 1.2 s", "max 4.9 s", "orders-1 epoch 7: 3")
	if f.Data["lag_max_ms"] != int64(4900) {
		t.Errorf("data %v", f.Data)
	}
}

func TestStaleMetadataNotTriggered(t *testing.T) {
	x := newFx(t, Config{})
	x.ep("orders", 1, 7, 3, 2, "1m", "30ms")
	x.pe("app", 9, "orders", 1, "NOT_LEADER_OR_FOLLOWER", "1m0.01s", during("orders", 1, 7))
	none(t, x.finish(), CodeStaleMetadata)
}

func TestNotAReplica(t *testing.T) {
	x := newFx(t, Config{})
	x.brokerLogs("0s", "1h", 1, 2, 3)
	x.source(4, "broker-4/server.log", "server.log", 0, []string{"INFO"}, []int32{4}, "0s", "1h")
	x.ep("orders", 7, 3, 1, 2, "1m", "30ms", replicas(1, 2, 3))
	x.pe("app", 9, "orders", 7, "NOT_LEADER_OR_FOLLOWER", "30m")
	x.pe("app", 9, "orders", 7, "NOT_LEADER_OR_FOLLOWER", "30m1s")
	x.pe("", 4, "orders", 7, "NOT_LEADER_FOR_PARTITION", "30m2s", brokerSide())
	x.pe("app", 9, "payments", 0, "NOT_LEADER_OR_FOLLOWER", "31m")
	f := one(t, x.finish(), CodeNotAReplica)
	has(t, f, "4 producer errors on 2 partitions match no election", "orders-7: 3, rejected by broker 4, not in its replicas 1,2,3",
		"payments-0: 1, no broker line names this partition", "broker 4 is not even a replica")
}

func TestNotAReplicaNotTriggered(t *testing.T) {
	x := newFx(t, Config{})
	x.brokerLogs("0s", "10m", 1, 2, 3)
	x.ep("orders", 7, 3, 1, 2, "1m", "30ms", replicas(1, 2, 3))
	x.pe("app", 9, "orders", 7, "NOT_LEADER_OR_FOLLOWER", "1m0.01s", during("orders", 7, 3))
	// Unexplained, but hours after the broker logs end: a capability gap.
	x.pe("app", 9, "orders", 7, "NOT_LEADER_OR_FOLLOWER", "5h")
	fs := x.finish()
	none(t, fs, CodeNotAReplica)
	found := false
	for _, f := range find(fs, CodeCapability) {
		if strings.Contains(f.Message, "1 producer error fall outside the time the broker logs cover") {
			found = true
		}
	}
	if !found {
		t.Errorf("no coverage capability:\n%s", strings.Join(Lines(fs), "\n"))
	}
}

// ---------------------------------------------------------------- cluster side

func TestUncleanElection(t *testing.T) {
	x := newFx(t, Config{})
	x.ep("orders", 3, 86, 1, 0, "1m", "30ms", unclean())
	x.ep("orders", 4, 12, 1, 2, "1m", "30ms")
	f := one(t, x.finish(), CodeUnclean)
	has(t, f, "1 unclean election took a leader from outside the ISR", "orders-3 epoch 86 leader 1→0")
	if f.Severity != Critical || f.Data["unclean_elections"] != 1 {
		t.Errorf("severity %s data %v", f.Severity, f.Data)
	}
}

func TestUncleanElectionNotTriggered(t *testing.T) {
	x := newFx(t, Config{})
	x.ep("orders", 4, 12, 1, 2, "1m", "30ms")
	none(t, x.finish(), CodeUnclean)
}

func TestLeaderFlapping(t *testing.T) {
	x := newFx(t, Config{})
	leaders := []int32{3, 1, 3, 1, 3}
	for i := 1; i < len(leaders); i++ {
		x.ep("orders", 2, int32(10+i), leaders[i-1], leaders[i], fmt.Sprintf("%dm", 3*i), "20ms", cause(parser.CausePreferred))
	}
	f := one(t, x.finish(), CodeFlapping)
	has(t, f, "1 partition changed leader at least 4 times within 15 min", "orders-2: 4 changes in 9 min", "3→1", "every change is between brokers 1,3")
	if f.Subject != "orders-2" || f.Data["partitions"] != 1 {
		t.Errorf("subject %q data %v", f.Subject, f.Data)
	}
	// Configurable: 3 changes within 5 min.
	x = newFx(t, Config{FlapChanges: 3, FlapWindow: 5 * time.Minute})
	for i, l := range []int32{1, 2, 1, 2} {
		x.ep("t", 0, int32(i+1), 3-l, l, fmt.Sprintf("%dm", 2*i), "20ms")
	}
	one(t, x.finish(), CodeFlapping)
}

func TestLeaderFlappingNotTriggered(t *testing.T) {
	x := newFx(t, Config{})
	leaders := []int32{3, 1, 3, 1, 3}
	for i := 1; i < len(leaders); i++ { // 4 changes, 30 min apart
		x.ep("orders", 2, int32(10+i), leaders[i-1], leaders[i], fmt.Sprintf("%dm", 30*i), "20ms")
	}
	// Epoch bumps that keep the leader are not changes.
	for i := 0; i < 6; i++ {
		x.ep("orders", 5, int32(i+1), 2, 2, fmt.Sprintf("%ds", i), "20ms")
	}
	none(t, x.finish(), CodeFlapping)
}

func TestUnstableBroker(t *testing.T) {
	x := newFx(t, Config{})
	x.source(2, "broker-2/server.log", "server.log", 0, []string{"INFO"}, []int32{2}, "0s", "1h")
	for i, m := range []int{10, 40} {
		t0 := fmt.Sprintf("%dm", m)
		x.brokerEvent(2, 0, parser.CauseBrokerFailure, t0, 1)                      // controller: deleted brokers: 2
		x.brokerEvent(U, parser.LifeSessionExpired, 0, fmt.Sprintf("%dm4s", m), 2) // broker 2's own "Session expired."
		x.brokerEvent(2, parser.LifeRegistered, 0, fmt.Sprintf("%dm5s", m), 2)     // back
		x.ep("orders", 0, int32(8+i), 2, 3, fmt.Sprintf("%dm0.02s", m), "30ms", cause(parser.CauseBrokerFailure, 2))
		x.ep("orders", 1, int32(8+i), 3, 3, fmt.Sprintf("%dm0.1s", m), "30ms", cause(parser.CauseBrokerFailure, 2))
	}
	f := one(t, x.finish(), CodeUnstableBroker)
	if f.Severity != Critical || f.Subject != "broker 2" {
		t.Errorf("severity %s subject %s", f.Severity, f.Subject)
	}
	has(t, f, "broker 2 failed 2 times (2 hard failures)", "09:10:00.000 was removed by the controller (broker failure), lost its ZooKeeper session, back after 5.0 s, 1 leadership moved (1 more epoch bumps)")
}

func TestUnstableBrokerRestartsAreWarnings(t *testing.T) {
	x := newFx(t, Config{})
	for _, m := range []int{10, 40} {
		x.brokerEvent(2, parser.LifeControlledShutdown, 0, fmt.Sprintf("%dm", m), 2)
		x.brokerEvent(2, 0, parser.CauseControlledShutdown, fmt.Sprintf("%dm0.1s", m), 1)
		// The controller sees the node go once it has stopped: not a failure.
		x.brokerEvent(2, 0, parser.CauseBrokerFailure, fmt.Sprintf("%dm3s", m), 1)
	}
	f := one(t, x.finish(), CodeUnstableBroker)
	if f.Severity != Warning {
		t.Errorf("severity %s", f.Severity)
	}
	has(t, f, "broker 2 was shut down 2 times (0 hard failures)")
}

func TestUnstableBrokerNotTriggered(t *testing.T) {
	x := newFx(t, Config{})
	// One incident (three lines about it), and a controller line naming no broker.
	x.brokerEvent(2, 0, parser.CauseBrokerFailure, "10m", 1)
	x.brokerEvent(2, 0, parser.CauseBrokerFailure, "10m0.001s", 1)
	x.brokerEvent(2, parser.LifeFenced, 0, "10m0.002s", 1)
	x.brokerEvent(U, 0, parser.CauseBrokerFenced, "20m", 1)
	x.source(1, "controller.log", "controller.log", parser.EraQuorumController, []string{"INFO"}, nil, "0s", "1h")
	x.srcs[0].Controllers = []int32{1}
	none(t, x.finish(), CodeUnstableBroker)
}

func TestSlowElection(t *testing.T) {
	x := newFx(t, Config{})
	x.ep("orders", 3, 14, 1, 2, "1m", "2.6s", brokerPhases(3, parser.RoleFollower, map[parser.Phase]string{
		parser.PhaseReceived: "1m0.05s", parser.PhaseStoppedFetchers: "1m0.1s", parser.PhaseTruncated: "1m2.5s", parser.PhaseCompleted: "1m2.6s",
	}))
	x.ep("orders", 4, 2, 1, 2, "1m", "200ms")
	f := one(t, x.finish(), CodeSlowElection)
	has(t, f, "1 election took longer than 1.0 s", "orders-3 epoch 14 took 2.6 s to the new leader ready (truncation on broker 3 took 2.4 s)")
}

func TestSlowStepInFastElection(t *testing.T) {
	x := newFx(t, Config{SlowElection: 300 * time.Millisecond})
	e := &timeline.Episode{Key: timeline.Key{Topic: "t", Partition: 0, LeaderEpoch: 3}, Leader: 2, PreviousLeader: 1, Transition: true,
		Start: at("0s"), End: at("0.4s"), Decided: at("0s"), SentLeaderAndIsr: at("0.35s")}
	x.a.Episode(e)
	f := one(t, x.finish(), CodeSlowElection)
	has(t, f, "t-0 epoch 3 took 400 ms to the new leader ready (the controller sending LeaderAndIsr after deciding took 350 ms)")
}

func TestSlowElectionNotTriggered(t *testing.T) {
	x := newFx(t, Config{})
	x.ep("orders", 4, 2, 1, 2, "1m", "900ms")
	none(t, x.finish(), CodeSlowElection)
}

func TestOfflineWindow(t *testing.T) {
	x := newFx(t, Config{})
	x.brokerLogs("0s", "10m", 1)
	x.ep("orders", 1, 5, 2, -1, "1m", "20ms", replicas(2))
	x.ep("orders", 1, 6, -1, 2, "3m3s", "20ms", replicas(2))
	x.ep("orders", 2, 9, 2, -1, "5m", "20ms")
	f := one(t, x.finish(), CodeOfflineWindow)
	has(t, f, "2 partitions had no leader (leader -1) 2 times", "orders-2 from 09:05:00.000 to the end of the logs (5 min)",
		"orders-1 for 2 min 3 s (09:01:00.000 → 09:03:03.000)")
	if f.Severity != Critical {
		t.Errorf("severity %s", f.Severity)
	}
}

func TestOfflineWindowNotTriggered(t *testing.T) {
	x := newFx(t, Config{})
	x.ep("orders", 1, 5, 2, 3, "1m", "20ms")
	none(t, x.finish(), CodeOfflineWindow)
}

func consumerEvent(x *fx, group string, kind parser.ConsumerEvent, coord int32, when string) {
	x.tl.Stats.Consumers = append(x.tl.Stats.Consumers, timeline.ConsumerEvent{Time: at(when), ClientID: "consumer-" + group + "-1", GroupID: group, Kind: kind, Coordinator: coord, Ref: x.ref(7)})
}

func TestCoordinatorMoved(t *testing.T) {
	if p := OffsetsPartition("billing", 50); p != 9 {
		t.Fatalf("billing → %d, want 9", p)
	}
	x := newFx(t, Config{})
	x.ep("__consumer_offsets", 9, 5, 2, 3, "1m", "40ms", cause(parser.CauseBrokerFailure, 2))
	x.ep("__consumer_offsets", 12, 5, 2, 3, "1m", "40ms", cause(parser.CauseBrokerFailure, 2))
	consumerEvent(x, "billing", parser.ConsCoordinatorDead, 2, "1m0.6s")
	consumerEvent(x, "billing", parser.ConsCoordinatorDiscovered, 3, "1m0.7s")
	consumerEvent(x, "billing", parser.ConsPollTimeout, U, "1m30s")
	consumerEvent(x, "billing", parser.ConsRevoke, U, "10m") // outside the window
	consumerEvent(x, "audit", parser.ConsJoined, U, "1m5s")  // coordinated by partition 4: did not move
	fs := x.finish()
	f := one(t, fs, CodeCoordinatorMoved)
	if f.Severity != Warning || f.Subject != "group billing" {
		t.Errorf("severity %s subject %s", f.Severity, f.Subject)
	}
	has(t, f, "group billing is coordinated by __consumer_offsets-9 (abs(hash) % 50)", "2→3 at 09:01:00.000",
		"coordinator lost 1, coordinator rediscovered 1, poll timeout (left the group) 1", "found the new coordinator on broker 3")
	if strings.Contains(f.Message, "revoked") {
		t.Errorf("event outside the window counted: %s", f.Message)
	}
}

func TestCoordinatorMovedQuietAndUnknownGroups(t *testing.T) {
	// Consumers logged nothing disruptive: info.
	x := newFx(t, Config{})
	x.ep("__consumer_offsets", 9, 5, 2, 3, "1m", "40ms")
	consumerEvent(x, "billing", parser.ConsAssign, U, "0s")
	consumerEvent(x, "billing", parser.ConsCoordinatorDiscovered, 3, "1m1s")
	f := one(t, x.finish(), CodeCoordinatorMoved)
	if f.Severity != Info {
		t.Errorf("severity %s: %s", f.Severity, f.Message)
	}
	// No consumer logs: one summary naming the partitions.
	x = newFx(t, Config{})
	x.ep("__consumer_offsets", 9, 5, 2, 3, "1m", "40ms")
	x.ep("__consumer_offsets", 33, 5, 2, 1, "1m", "40ms")
	f = one(t, x.finish(), CodeCoordinatorMoved)
	has(t, f, "2 partitions of __consumer_offsets changed leader", "no consumer logs were given")
}

func TestCoordinatorMovedNotTriggered(t *testing.T) {
	x := newFx(t, Config{})
	x.ep("__consumer_offsets", 9, 5, 2, 2, "1m", "40ms") // epoch bump, same leader
	x.ep("orders", 9, 5, 2, 3, "1m", "40ms")
	consumerEvent(x, "billing", parser.ConsCoordinatorDead, 2, "1m0.6s")
	none(t, x.finish(), CodeCoordinatorMoved)
}

func ctrlEvent(x *fx, c, epoch int32, life parser.Lifecycle, when string) {
	x.tl.Stats.Controllers = append(x.tl.Stats.Controllers, timeline.ControllerEvent{Time: at(when), Controller: c, Epoch: epoch, Lifecycle: life, Ref: x.ref(1)})
}

func TestControllerChurn(t *testing.T) {
	x := newFx(t, Config{})
	ctrlEvent(x, 1, 27, parser.LifeControllerElected, "0s")
	ctrlEvent(x, 1, 27, parser.LifeControllerElected, "0.6s") // "Ready to serve ... epoch 27": same failover
	ctrlEvent(x, 1, U, parser.LifeControllerResigned, "10m")
	ctrlEvent(x, 2, 28, parser.LifeControllerElected, "10m1s")
	ctrlEvent(x, 3, U, parser.LifeControllerElected, "20m") // epoch-less line...
	ctrlEvent(x, 3, 29, parser.LifeControllerElected, "20m0.5s")
	for i := 0; i < 5; i++ {
		x.ep("orders", int32(i), 3, 1, 2, fmt.Sprintf("10m%ds", 2+i), "20ms")
	}
	f := one(t, x.finish(), CodeControllerChurn)
	has(t, f, "the controller changed 3 times in 20 min", "controller 2 epoch 28 at 09:10:01.000 (5 elections within 1 min)", "5 partition elections started", "1 resignation was logged")
	if n := len(f.Data["changes"].([]map[string]any)); n != 3 {
		t.Errorf("%d changes", n)
	}
}

func TestControllerChurnKRaftQuorum(t *testing.T) {
	x := newFx(t, Config{})
	ctrlEvent(x, U, 382, parser.LifeQuorumLeader, "0s") // the leader is (none)
	ctrlEvent(x, U, 383, parser.LifeQuorumLeader, "1s")
	ctrlEvent(x, 3, 383, parser.LifeQuorumLeader, "2s")
	ctrlEvent(x, 3, 383, parser.LifeQuorumLeader, "2.1s") // "Becoming the active controller at epoch 383"
	ctrlEvent(x, 2, 388, parser.LifeQuorumLeader, "5m")
	f := one(t, x.finish(), CodeControllerChurn)
	has(t, f, "the controller changed 2 times", "quorum leader 3 epoch 383", "1 quorum epoch passed with no quorum leader")
	if !strings.Contains(f.Remedy, "KRaft") {
		t.Errorf("remedy %q", f.Remedy)
	}
}

func TestControllerChurnNotTriggered(t *testing.T) {
	x := newFx(t, Config{})
	ctrlEvent(x, 1, 27, parser.LifeControllerElected, "0s")
	ctrlEvent(x, 1, 27, parser.LifeControllerElected, "0.6s")
	none(t, x.finish(), CodeControllerChurn)
}

func TestCapabilities(t *testing.T) {
	x := newFx(t, Config{})
	x.source(1, "broker-1/state-change.log", "state-change.log", parser.EraBrokerID|parser.EraRequestInfo|parser.EraFinished, []string{"INFO"}, []int32{1}, "0s", "30m")
	x.source(2, "broker-2/state-change.log", "state-change.log", parser.EraBrokerID|parser.EraRequestInfo|parser.EraFinished, []string{"INFO"}, []int32{2}, "0s", "10m")
	// Broker 2 took part in an election at 20m, after its file ends; broker 3 has no file at all.
	x.ep("orders", 0, 4, 1, 3, "20m", "30ms", replicas(3, 1, 2), brokerPhases(1, parser.RoleFollower, map[parser.Phase]string{parser.PhaseEpochStart: "20m0.01s"}))
	fs := x.finish()
	var msgs []string
	for _, f := range find(fs, CodeCapability) {
		if f.Severity != Info {
			t.Errorf("capability severity %s", f.Severity)
		}
		msgs = append(msgs, f.Message)
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{
		"no producer logs given: producer errors cannot be matched",
		"no controller lines given",
		"state.change.logger at INFO (the 2.6+ default) in file1.log, file2.log: per-partition phase times need TRACE",
		"broker 2's logs are missing for 09:20:00.000",
		"no logs of their own for broker 3 (in 1 election)",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no capability %q in:\n%s", want, all)
		}
	}
}

func TestCapabilitiesNotTriggered(t *testing.T) {
	x := newFx(t, Config{})
	x.brokerLogs("0s", "30m", 1, 2, 3)
	x.source(9, "app.log", "client application log", parser.EraProducer, []string{"INFO", "WARN"}, nil, "0s", "30m")
	x.client("app", "3.6.1", 9, cfg("acks", "all", "retries", "10"))
	x.ep("orders", 0, 4, 1, 3, "20m", "30ms", replicas(3, 1, 2),
		brokerPhases(1, parser.RoleFollower, map[parser.Phase]string{parser.PhaseReceived: "20m0.01s"}),
		brokerPhases(2, parser.RoleFollower, map[parser.Phase]string{parser.PhaseReceived: "20m0.01s"}),
		brokerPhases(3, parser.RoleLeader, map[parser.Phase]string{parser.PhaseReceived: "20m0.01s"}))
	none(t, x.finish(), CodeCapability)
}

func TestCapabilityProducerWithoutConfig(t *testing.T) {
	x := newFx(t, Config{})
	x.ep("orders", 1, 7, 3, 2, "1m", "30ms")
	x.pe("app", 9, "orders", 1, "NOT_LEADER_OR_FOLLOWER", "1m0.01s", during("orders", 1, 7))
	x.client("v300", "3.0.0", 8, cfg("enable.idempotence", "true", "acks", "-1", "retries", "2147483647", "delivery.timeout.ms", "120000"))
	fs := x.finish()
	var all []string
	for _, f := range find(fs, CodeCapability) {
		all = append(all, f.Message)
	}
	s := strings.Join(all, "\n")
	for _, want := range []string{"producer app logged 1 error but no \"ProducerConfig values:\" block", "KAFKA-13598"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in:\n%s", want, s)
		}
	}
}

// ---------------------------------------------------------------- API pieces

func TestAtLeastAndGates(t *testing.T) {
	w := Finding{Code: CodeNoRetries, Severity: Warning}
	c := Finding{Code: CodeUnclean, Severity: Critical}
	i := Finding{Code: CodeCapability, Severity: Info}
	for _, tc := range []struct {
		f    Finding
		gate string
		want bool
	}{
		{w, "warning", true}, {c, "warning", true}, {i, "warning", false},
		{w, "critical", false}, {c, "critical", true},
		{i, "info", true}, {w, "info", true},
		{w, "no-retries", true}, {w, "unclean-election, no-retries", true}, {c, "no-retries", false},
		{w, "critical,no-retries", true}, {i, "capability", true}, {w, " WARNING ", true},
	} {
		if got := AtLeast(tc.f, tc.gate); got != tc.want {
			t.Errorf("AtLeast(%s/%s, %q) = %v", tc.f.Code, tc.f.Severity, tc.gate, got)
		}
	}
	if !Fails([]Finding{i, w}, "warning") || Fails([]Finding{i}, "warning") {
		t.Error("Fails")
	}
	for _, g := range []string{"warning", "critical", "info", "retry-budget-exceeded,unclean-election", "Critical, capability"} {
		if err := CheckGate(g); err != nil {
			t.Errorf("CheckGate(%q): %v", g, err)
		}
	}
	for _, g := range []string{"", "warn", "retry-budget", ", "} {
		if err := CheckGate(g); err == nil {
			t.Errorf("CheckGate(%q) accepted", g)
		}
	}
}

func TestJavaStringHash(t *testing.T) {
	for s, want := range map[string]int32{
		"":                   0,
		"a":                  97,
		"hello":              99162322,
		"polygenelubricants": math.MinInt32,
		"😀":                  31*0xD83D + 0xDE00, // one code point, two UTF-16 units
		"ü":                  0xFC,
	} {
		if got := JavaStringHash(s); got != want {
			t.Errorf("hash(%q) = %d, want %d", s, got, want)
		}
	}
	for g, want := range map[string]int32{"polygenelubricants": 0, "a": 47, "billing": 9, "hello": 22} {
		if got := OffsetsPartition(g, 50); got != want {
			t.Errorf("partition(%q) = %d, want %d", g, got, want)
		}
	}
	if got := OffsetsPartition("billing", 200); got != 109829509%200 {
		t.Errorf("200 partitions: %d", got)
	}
}

func TestParseVersion(t *testing.T) {
	for s, want := range map[string][3]int{
		"0.10.2.1": {0, 10, 2}, "2.8.0": {2, 8, 0}, "3.6.1": {3, 6, 1}, "7.4.0-ccs": {3, 4, 0},
		"6.0.1-ce": {2, 6, 1}, "5.5.0-ccs": {2, 5, 0}, "3.9.0-SNAPSHOT": {3, 9, 0}, "2.1": {2, 1, 0},
	} {
		v := parseVersion(s)
		if !v.ok || v.major != want[0] || v.minor != want[1] || v.patch != want[2] {
			t.Errorf("%q → %+v, want %v", s, v, want)
		}
	}
	for _, s := range []string{"", "unknown", "x.y", "12.1.0"} {
		if parseVersion(s).ok {
			t.Errorf("%q parsed", s)
		}
	}
}

func TestEffectiveDefaults(t *testing.T) {
	type want struct {
		retries  int64
		dto      int64
		acks     string
		idem     int64
		backoff  int64
		inflight int64
	}
	for _, tc := range []struct {
		ver  string
		cfg  map[string]string
		want want
	}{
		{"0.10.2.1", nil, want{0, 0, "1", 0, 100, 5}},
		{"2.0.1", nil, want{0, 0, "1", 0, 100, 5}},
		{"2.1.0", nil, want{math.MaxInt32, 120000, "1", 0, 100, 5}},
		{"2.8.1", nil, want{math.MaxInt32, 120000, "1", 0, 100, 5}},
		{"3.0.0", nil, want{math.MaxInt32, 120000, "all", 0, 100, 5}}, // KAFKA-13598: default idempotence not applied
		{"3.2.0", nil, want{math.MaxInt32, 120000, "all", 1, 100, 5}},
		{"2.8.1", cfg("acks", "-1", "retries", "7", "retry.backoff.ms", "250", "max.in.flight.requests.per.connection", "1", "delivery.timeout.ms", "30000"),
			want{7, 30000, "all", 0, 250, 1}},
		// ≤2.4 with idempotence: the dump shows the pre-override retries/acks.
		{"1.1.1", cfg("enable.idempotence", "true", "retries", "0", "acks", "1"), want{math.MaxInt32, 0, "all", 1, 100, 5}},
	} {
		s := effective(tc.cfg, tc.ver)
		got := want{s.retries.val, s.deliveryTimeout.val, s.acks.str, s.idempotence.val, s.backoff.val, s.maxInFlight.val}
		if got != tc.want || !s.retries.known || !s.acks.known {
			t.Errorf("%s %v: %+v, want %+v", tc.ver, tc.cfg, got, tc.want)
		}
	}
	if s := effective(nil, ""); s.retries.known || s.acks.known {
		t.Errorf("unknown version gave defaults: %+v", s)
	}
}

func TestBudget(t *testing.T) {
	for _, tc := range []struct {
		ver     string
		cfg     map[string]string
		want    time.Duration
		explain string
	}{
		{"0.10.2.1", cfg("retries", "0"), 0, "retries=0"},
		{"2.0.1", cfg("retries", "10", "retry.backoff.ms", "500"), 5 * time.Second, "retries=10 × retry.backoff.ms=500"},
		{"2.8.1", nil, 120 * time.Second, "retries=2147483647 × retry.backoff.ms=100, capped by delivery.timeout.ms=120000"},
		// 3.7+: 100, 200, 400, 800, then 1000 × 6.
		{"3.7.0", cfg("retries", "10"), 7500 * time.Millisecond, "retries=10, retry.backoff.ms=100 doubling to retry.backoff.max.ms=1000"},
		{"3.7.0", cfg("retries", "2147483647", "delivery.timeout.ms", "30000"), 30 * time.Second, "capped by delivery.timeout.ms=30000"},
	} {
		d, ex, ok := effective(tc.cfg, tc.ver).budget()
		if !ok || d != tc.want || !strings.Contains(ex, tc.explain) {
			t.Errorf("%s %v: %v %q, want %v %q", tc.ver, tc.cfg, d, ex, tc.want, tc.explain)
		}
	}
	if _, _, ok := effective(nil, "").budget(); ok {
		t.Error("budget without retries")
	}
}

// Memory stays bounded: per-client and per-finding lists do not grow with
// the number of errors or elections.
func TestBoundedMemory(t *testing.T) {
	x := newFx(t, Config{})
	for i := 0; i < 50000; i++ {
		x.pe("app", 9, "orders", int32(i%2000), "NOT_LEADER_OR_FOLLOWER", fmt.Sprintf("%dms", i), after("orders", int32(i%2000), int32(i), "1s"), final())
		x.ep("t", int32(i%10), int32(i), int32(i%3), int32((i+1)%3), fmt.Sprintf("%dms", 10*i), "2s", unclean())
	}
	ca := x.a.clients[clientKey{id: "app", src: -1}]
	if len(ca.lags) > maxLagSample || len(ca.finalsNL) > maxClientFinals || len(ca.keys) > maxClientKeys || len(ca.parts) > maxClientParts || len(ca.refs) > maxClientRefs {
		t.Errorf("client aggregate grew: lags %d finals %d keys %d parts %d", len(ca.lags), len(ca.finalsNL), len(ca.keys), len(ca.parts))
	}
	if len(x.a.interest) > maxInterest || len(x.a.unclean) > maxUnclean || len(x.a.slow) > maxSlow || len(x.a.parts) != 10 {
		t.Errorf("analyzer grew: interest %d unclean %d slow %d parts %d", len(x.a.interest), len(x.a.unclean), len(x.a.slow), len(x.a.parts))
	}
	for _, pa := range x.a.parts {
		if len(pa.ring) > 4 || (pa.best != nil && len(pa.best.changes) > maxRunChanges) {
			t.Errorf("partition state grew: ring %d", len(pa.ring))
		}
	}
	fs := x.finish()
	for _, f := range fs {
		if len(f.Evidence) > x.a.cfg.MaxEvidence {
			t.Errorf("%s: %d evidence lines", f.Code, len(f.Evidence))
		}
	}
	f := one(t, fs, CodeUnclean)
	has(t, f, "50000 unclean elections", "and 49994 more")
}

func TestLinesAndRecord(t *testing.T) {
	f := Finding{Code: CodeNoRetries, Severity: Warning, Message: "m\x1b[31m", Remedy: "r", Evidence: []Evidence{{"a.log", 3}}}
	ls := Lines([]Finding{f})
	if len(ls) != 3 || !strings.Contains(ls[0], "WARNING  no-retries · m[31m") || !strings.Contains(ls[2], "a.log:3") {
		t.Errorf("%q", ls)
	}
	if r := f.Record(); r.Type != "finding" || r.Code != CodeNoRetries {
		t.Errorf("%+v", r)
	}
}

// Findings come out critical first, in a stable order.
func TestFindingOrder(t *testing.T) {
	x := newFx(t, Config{})
	x.client("app", "2.8.0", 9, cfg("acks", "1", "retries", "0"))
	x.ep("orders", 3, 86, 1, 0, "1m", "30ms", unclean())
	x.pe("app", 9, "orders", 3, "NOT_LEADER_OR_FOLLOWER", "1m0.01s", during("orders", 3, 86), final())
	fs := x.finish()
	for i := 1; i < len(fs); i++ {
		if rank(fs[i].Severity) > rank(fs[i-1].Severity) {
			t.Errorf("order: %s before %s", fs[i-1].Severity, fs[i].Severity)
		}
	}
	if fs[0].Code != CodeUnclean {
		t.Errorf("first %s", fs[0].Code)
	}
}

func withTruncation(b int32, at_ string, off, end int64, refused bool) epOpt {
	return func(e *timeline.Episode) {
		e.Truncations = append(e.Truncations, timeline.Truncation{Time: at(at_), Broker: b, Topic: e.Topic, Partition: e.Partition,
			Offset: off, EndOffset: end, Refused: refused, Ref: timeline.Ref{Source: int(b), Line: 99}})
		if refused {
			e.Unclean, e.Cause = true, parser.CauseUnclean
		}
	}
}

func TestUncleanElectionLostOffsets(t *testing.T) {
	x := newFx(t, Config{})
	x.ep("orders", 3, 86, 1, 0, "1m", "30ms", withTruncation(1, "1m5s", 2051, 2391, true))
	f := one(t, x.finish(), CodeUnclean)
	has(t, f, "orders-3 epoch 86 leader 1→0", "broker 1 refused to truncate to offset 2051 (its log ends at 2391: offsets 2051–2390 are lost)")
	if strings.Contains(f.Message, "no truncation line") {
		t.Errorf("%s", f.Message)
	}
}

func TestLossRiskAcksTruncationIsCritical(t *testing.T) {
	x := newFx(t, Config{})
	x.client("app", "2.8.0", 9, cfg("acks", "1"))
	// A clean controlled move, but the old leader then cut 21 records.
	x.pe("app", 9, "orders", 1, "NOT_LEADER_OR_FOLLOWER", "1m0.01s", during("orders", 1, 7))
	x.ep("orders", 1, 7, 3, 2, "1m", "30ms", cause(parser.CauseControlledShutdown, 3), withTruncation(3, "1m0.02s", 48210, 0, false))
	f := one(t, x.finish(), CodeLossRiskAcks)
	if f.Severity != Critical {
		t.Errorf("severity %s", f.Severity)
	}
	has(t, f, "broker 3 truncated its log to offset 48210", "after 1 change a replica cut records from its log")
}

// One producer logged under two names (config block without client.id,
// errors under the thread's client id) is one producer; Finish can run
// again (live views) with the same answer.
func TestProducerJoinedByFileAndFinishTwice(t *testing.T) {
	x := newFx(t, Config{})
	x.client("", "0.10.2.1", 9, cfg("retries", "0", "acks", "all"))
	x.ep("orders", 1, 7, 3, 2, "1m", "21ms")
	x.pe("", 9, "orders", 1, "NOT_LEADER_FOR_PARTITION", "1m0.01s", final(), during("orders", 1, 7))
	x.pe("producer-1", 9, "orders", 1, "NOT_LEADER_FOR_PARTITION", "1m0.011s", final(), during("orders", 1, 7))
	first := Lines(x.finish())
	second := Lines(x.finish())
	if strings.Join(first, "\n") != strings.Join(second, "\n") {
		t.Errorf("Finish changed:\n%s\n---\n%s", strings.Join(first, "\n"), strings.Join(second, "\n"))
	}
	f := one(t, x.finish(), CodeRetryBudget)
	has(t, f, "2 sends failed for good", "budget 0 ms (retries=0), producers saw NOT_LEADER for 21 ms")
	nr := one(t, x.finish(), CodeNoRetries)
	has(t, nr, "2 leader-related errors (2 final)")
}

func TestOfflineWindowNotForDeletedTopics(t *testing.T) {
	x := newFx(t, Config{})
	x.ep("old", 0, 5, 2, -1, "1m", "20ms", cause(parser.CauseTopicDeletion))
	none(t, x.finish(), CodeOfflineWindow)
}

func TestCoordinatorNotMovedByCreation(t *testing.T) {
	x := newFx(t, Config{})
	x.ep("__consumer_offsets", 9, 0, U, 3, "1m", "40ms", cause(parser.CauseNewPartition))
	none(t, x.finish(), CodeCoordinatorMoved)
}

type countSink struct{ e, p, b int }

func (c *countSink) Episode(*timeline.Episode)             { c.e++ }
func (c *countSink) ProducerError(*timeline.ProducerError) { c.p++ }
func (c *countSink) Burst(*timeline.Burst)                 { c.b++ }

func TestTee(t *testing.T) {
	a, b := &countSink{}, &countSink{}
	s := Tee(a, b)
	s.Episode(&timeline.Episode{})
	s.ProducerError(&timeline.ProducerError{})
	s.Burst(&timeline.Burst{})
	if *a != (countSink{1, 1, 1}) || *b != (countSink{1, 1, 1}) {
		t.Errorf("%+v %+v", a, b)
	}
}
