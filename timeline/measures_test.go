package timeline

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

func life(ms int, broker int32, l parser.Lifecycle) parser.Event {
	e := blank(parser.KindBrokerLifecycle, ms)
	e.Broker, e.Lifecycle = broker, l
	return e
}

func run(cfg Config, evs ...parser.Event) (*collect, *Stats) {
	c := &collect{}
	tl := New(cfg, c)
	for i := range evs {
		tl.Add(0, &evs[i])
		tl.Advance(evs[i].Time)
	}
	tl.Close()
	return c, &tl.Stats
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// What an election took, measured apart (issue #14), from hand-built events.
func TestMeasures(t *testing.T) {
	const L, F = parser.RoleLeader, parser.RoleFollower
	isr := func(e parser.Event, v ...int32) parser.Event { e.ISR = v; return e }

	t.Run("leader ready, ISR applied and propagated from the decision", func(t *testing.T) {
		c, _ := run(Config{},
			isr(dec(0, 1, "t", 0, 5, 2, parser.CausePreferred), 2, 3),
			ph(10, 2, L, parser.PhaseHandling, "t", 0, 5), ph(20, 2, L, parser.PhaseEpochStart, "t", 0, 5),
			ph(12, 3, F, parser.PhaseHandling, "t", 0, 5), ph(35, 3, F, parser.PhaseStartedFetcher, "t", 0, 5),
			ph(40, 3, F, parser.PhaseCached, "t", 0, 5), ph(38, 2, L, parser.PhaseCached, "t", 0, 5))
		e := c.find(t, "t", 0, 5)
		m := e.Measures()
		if !m.HasLeaderReady || m.LeaderReady != ms(20) || !m.HasISRApplied || m.ISRApplied != ms(35) || !m.HasPropagated || m.Propagated != ms(40) {
			t.Errorf("%+v", m)
		}
		if e.Took() != ms(20) || e.Duration() != ms(40) {
			t.Errorf("took %v duration %v", e.Took(), e.Duration())
		}
		// "completed" (per partition, TRACE) is the leader's readiness before its epoch line.
		bt := &BrokerTimeline{}
		bt.Phases[parser.PhaseEpochStart], bt.Phases[parser.PhaseCompleted], bt.Phases[parser.PhaseFinished] = at(5), at(7), at(9)
		if !bt.ReadyAt().Equal(at(7)) {
			t.Errorf("ready at %v", bt.ReadyAt())
		}
	})

	t.Run("a broker back after the decision catches up: kept, out of the measures", func(t *testing.T) {
		c, _ := run(Config{},
			trig(0, parser.CauseBrokerFailure, 2),
			isr(dec(5, 1, "t", 0, 10, 3, parser.CauseOfflinePartition), 3, 1),
			ph(15, 3, L, parser.PhaseEpochStart, "t", 0, 10), ph(20, 1, F, parser.PhaseStartedFetcher, "t", 0, 10),
			life(5000, 2, parser.LifeSessionExpired), life(5100, 2, parser.LifeRegistered),
			ph(5500, 2, F, parser.PhaseEpochStart, "t", 0, 10), ph(5574, 2, F, parser.PhaseTruncated, "t", 0, 10))
		e := c.find(t, "t", 0, 10)
		var b2 *BrokerTimeline
		for _, bt := range e.Brokers {
			if bt.Broker == 2 {
				b2 = bt
			}
			if bt.CatchUp != (bt.Broker == 2) {
				t.Errorf("broker %d catch-up %v", bt.Broker, bt.CatchUp)
			}
		}
		if b2 == nil || b2.Phases[parser.PhaseTruncated].IsZero() {
			t.Fatalf("broker 2's catch-up not kept: %+v", b2)
		}
		m := e.Measures()
		if m.LeaderReady != ms(10) || m.ISRApplied != ms(15) || e.Duration() != ms(5569) {
			t.Errorf("%+v, duration %v", m, e.Duration())
		}
	})

	t.Run("a catch-up later than --quiet is kept and moves neither start nor end", func(t *testing.T) {
		c, st := run(Config{},
			dec(0, 1, "t", 0, 133, 3, parser.CauseControlledShutdown),
			ph(10, 3, L, parser.PhaseEpochStart, "t", 0, 133), ph(163, 3, L, parser.PhaseStoppedFetchers, "t", 0, 133),
			ph(22_000, 1, F, parser.PhaseHandling, "t", 0, 133), ph(22_190, 1, F, parser.PhaseEpochStart, "t", 0, 133))
		e := c.find(t, "t", 0, 133)
		if e.Duration() != ms(163) || e.Took() != ms(10) || st.Late != 2 || e.Late != 2 {
			t.Errorf("duration %v took %v late %d/%d", e.Duration(), e.Took(), e.Late, st.Late)
		}
		var b1 *BrokerTimeline
		for _, bt := range e.Brokers {
			if bt.Broker == 1 {
				b1 = bt
			}
		}
		if b1 == nil || !b1.CatchUp || !b1.Phases[parser.PhaseEpochStart].Equal(at(22_190)) {
			t.Errorf("broker 1: %+v", b1)
		}
	})

	t.Run("an epoch first seen re-applied by starting brokers is carried over, not an election", func(t *testing.T) {
		c, _ := run(Config{},
			life(0, 1, parser.LifeStarting), life(0, 2, parser.LifeStarting),
			ph(2000, 1, L, parser.PhaseEpochStart, "t", 0, 7), ph(2010, 2, F, parser.PhaseEpochStart, "t", 0, 7),
			life(4000, 1, parser.LifeStarted), life(4000, 2, parser.LifeStarted),
			ph(60_000, 2, L, parser.PhaseEpochStart, "t", 0, 8))
		if e := c.find(t, "t", 0, 7); !e.CarriedOver || e.IsElection() || e.BurstID != 0 {
			t.Errorf("epoch 7: carried over %v burst %d", e.CarriedOver, e.BurstID)
		}
		if e := c.find(t, "t", 0, 8); e.CarriedOver || !e.IsElection() || e.PreviousLeader != 1 {
			t.Errorf("epoch 8: carried over %v previous %d", e.CarriedOver, e.PreviousLeader)
		}
		if len(c.bursts) != 1 || c.bursts[0].Episodes != 1 {
			t.Errorf("bursts %+v", c.bursts)
		}
	})

	t.Run("a controller's re-send after failover, decided before the logs, is carried over", func(t *testing.T) {
		ctl := blank(parser.KindControllerChange, 0)
		ctl.Controller, ctl.ControllerEpoch, ctl.Lifecycle = 3, 33, parser.LifeControllerElected
		c, _ := run(Config{}, ctl,
			with(dec(50, 3, "t", 0, 22, 2, parser.CauseUnknown), func(e *parser.Event) { e.Broker, e.Role = 2, L }),
			ph(70, 2, L, parser.PhaseEpochStart, "t", 0, 22))
		if e := c.find(t, "t", 0, 22); !e.CarriedOver {
			t.Errorf("not carried over: cause %v", e.Cause)
		}
	})

	t.Run("leader -2 is a topic being deleted, not an election", func(t *testing.T) {
		c, st := run(Config{}, with(dec(0, 1, "t", 0, 14, LeaderDuringDelete, parser.CauseUnknown), func(e *parser.Event) { e.Metadata = true }))
		if len(c.eps) != 0 || st.DeletionMarkers != 1 {
			t.Errorf("%d elections, %d markers", len(c.eps), st.DeletionMarkers)
		}
	})

	t.Run("producers see NOT_LEADER from the old leader stopping to the new one ready", func(t *testing.T) {
		c, _ := run(Config{},
			ph(0, 3, L, parser.PhaseEpochStart, "t", 0, 6), // the old epoch: 3 led
			dec(1, 1, "t", 0, 7, 2, parser.CausePreferred),
			ph(11, 3, F, parser.PhaseHandling, "t", 0, 7), ph(13, 2, L, parser.PhaseCompleted, "t", 0, 7))
		e := c.find(t, "t", 0, 7)
		from, to, ok := e.NotLeaderWindow()
		if !ok || !from.Equal(at(11)) || !to.Equal(at(13)) {
			t.Errorf("window %v → %v (%v)", from, to, ok)
		}
		// A failed old leader answers nothing: the window opens at the decision.
		e.Cause, e.CauseBrokers = parser.CauseBrokerFailure, []int32{3}
		if from, _, _ := e.NotLeaderWindow(); !from.Equal(at(1)) {
			t.Errorf("failed leader: from %v", from)
		}
	})

	t.Run("detect: the failed broker's last line → the decision", func(t *testing.T) {
		c, _ := run(Config{},
			ph(0, 2, L, parser.PhaseEpochStart, "t", 0, 3),
			with(ph(1000, 2, parser.RoleUnknown, parser.PhaseCached, "t", 1, 1), func(e *parser.Event) { e.Metadata = true }),
			trig(7000, parser.CauseBrokerFailure, 2),
			dec(7030, 1, "t", 0, 4, 3, parser.CauseOfflinePartition), ph(7050, 3, L, parser.PhaseEpochStart, "t", 0, 4))
		m := c.find(t, "t", 0, 4).Measures()
		if !m.HasDetect || m.Detect != ms(6030) || m.LeaderReady != ms(20) {
			t.Errorf("%+v", m)
		}
	})
}

// The ZK controller's UpdateMetadata for a topic being deleted, in the
// format catalogue's forms (shared/formats/broker.md: CCM 1.0.2:424 …
// 2.5.1:477 "Sending UpdateMetadata request $partitionState to brokers ...
// for partition $tp", PartitionState 1.0–2.3 and UpdateMetadataPartitionState
// 2.4+), with LeaderAndIsr.LeaderDuringDelete: no election with leader -2.
func TestDeletionMarkerIsNoElection(t *testing.T) {
	p := t.TempDir() + "/state-change.log"
	lines := `[2018-06-12 08:41:07,340] TRACE [Controller id=1 epoch=27] Sending UpdateMetadata request PartitionState(controllerEpoch=27, leader=-2, leaderEpoch=14, isr=[2, 3], zkVersion=41, replicas=[2, 3, 1], offlineReplicas=[]) to brokers Set(1, 2, 3) for partition orders-3 (state.change.logger)
[2020-02-10 14:03:55,020] TRACE [Controller id=1 epoch=27] Sending UpdateMetadata request UpdateMetadataPartitionState(topicName='orders', partitionIndex=3, controllerEpoch=27, leader=-2, leaderEpoch=14, isr=[2, 3], zkVersion=41, replicas=[2, 3, 1], offlineReplicas=[]) to brokers Set(1, 2, 3) for partition orders-3 (state.change.logger)
`
	if err := os.WriteFile(p, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := runFiles(t, Config{}, p); len(c.eps) != 0 {
		t.Errorf("%d elections, first leader %d", len(c.eps), c.eps[0].Leader)
	}
}

// The measures kept at the hand-over are the ones the episode's brokers
// give: every election of the worked examples, measured again afresh.
func TestKeptMeasuresEqualFresh(t *testing.T) {
	dirs, _ := filepath.Glob("../testdata/incidents/*")
	total := 0
	for _, dir := range dirs {
		paths, _ := filepath.Glob(filepath.Join(dir, "broker-*", "*.log"))
		if len(paths) == 0 {
			continue
		}
		c := runFiles(t, Config{}, paths...)
		n := 0
		for _, e := range c.eps {
			if e.meas.has&measured == 0 {
				t.Fatalf("%v: not measured at the hand-over", e.Key)
			}
			fresh := *e
			fresh.meas = packedMeasures{}
			if got, want := e.Measures(), fresh.Measures(); got != want {
				t.Errorf("%v: kept %+v, fresh %+v", e.Key, got, want)
			}
			if e.Took() != fresh.Took() {
				t.Errorf("%v: took %v, fresh %v", e.Key, e.Took(), fresh.Took())
			}
			n++
		}
		total += n
	}
	if total == 0 {
		t.Fatal("no elections in the incidents")
	}
}
