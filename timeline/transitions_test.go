package timeline

import (
	"slices"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

// The state transitions of the engine, one event kind or rule per row,
// from events built by hand (the parser's side of each is tested on real
// lines in package parser; the end-to-end tests here read real files).

var base = time.Date(2024, 3, 11, 9, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }

// blank is an event of kind k with every id unknown, as the parser makes
// them.
func blank(k parser.Kind, ms int) parser.Event {
	return parser.Event{Kind: k, Time: at(ms), Broker: Unknown, Controller: Unknown, ControllerEpoch: Unknown,
		StateControllerEpoch: Unknown, Partition: Unknown, LeaderEpoch: Unknown, Leader: Unknown, PrevLeader: Unknown,
		CorrelationID: -1, AttemptsLeft: -1}
}

// ph is broker's phase line for topic-partition at leader epoch.
func ph(ms int, broker int32, role parser.Role, p parser.Phase, topic string, part, epoch int32) parser.Event {
	e := blank(parser.KindPhase, ms)
	e.Broker, e.Role, e.Phase, e.Topic, e.Partition, e.LeaderEpoch = broker, role, p, topic, part, epoch
	return e
}

// dec is a controller's decision of leader for topic-partition at epoch.
func dec(ms int, controller int32, topic string, part, epoch, leader int32, cause parser.Cause) parser.Event {
	e := blank(parser.KindDecision, ms)
	e.Controller, e.Topic, e.Partition, e.LeaderEpoch, e.Leader, e.Cause = controller, topic, part, epoch, leader, cause
	return e
}

func trig(ms int, cause parser.Cause, brokers ...int32) parser.Event {
	e := blank(parser.KindTrigger, ms)
	e.Cause, e.Subjects = cause, brokers
	return e
}

func with(e parser.Event, f func(*parser.Event)) parser.Event { f(&e); return e }

func TestTransitions(t *testing.T) {
	const L, F = parser.RoleLeader, parser.RoleFollower
	for _, c := range []struct {
		name   string
		cfg    Config
		events []parser.Event
		// open: leave the timeline open (no Close) to see what Advance
		// alone handed over.
		open  bool
		check func(t *testing.T, c *collect, st *Stats)
	}{
		{"a phase line opens an election; the leader's own line names the leader",
			Config{}, []parser.Event{ph(0, 2, L, parser.PhaseReceived, "t", 0, 5), ph(20, 2, L, parser.PhaseEpochStart, "t", 0, 5)}, false,
			func(t *testing.T, c *collect, st *Stats) {
				e := c.find(t, "t", 0, 5)
				if e.Leader != 2 || !e.Transition || !e.Start.Equal(at(0)) || !e.End.Equal(at(20)) || len(e.Brokers) != 1 || e.Brokers[0].Role != L {
					t.Errorf("%+v", e)
				}
			}},
		{"a metadata-only line confirms an epoch but is no transition, and joins no burst",
			Config{}, []parser.Event{with(ph(0, 3, parser.RoleUnknown, parser.PhaseCached, "t", 0, 5), func(e *parser.Event) { e.Metadata = true; e.Leader = 2 })}, false,
			func(t *testing.T, c *collect, st *Stats) {
				if e := c.find(t, "t", 0, 5); e.Transition || e.BurstID != 0 || len(c.bursts) != 0 {
					t.Errorf("transition %v burst %d, %d bursts", e.Transition, e.BurstID, len(c.bursts))
				}
			}},
		{"the previous leader is the partition's last known leader",
			Config{}, []parser.Event{ph(0, 1, L, parser.PhaseReceived, "t", 0, 5), ph(30_000, 2, L, parser.PhaseReceived, "t", 0, 6)}, false,
			func(t *testing.T, c *collect, st *Stats) {
				if e := c.find(t, "t", 0, 6); e.PreviousLeader != 1 || e.Leader != 2 {
					t.Errorf("previous %d leader %d", e.PreviousLeader, e.Leader)
				}
			}},
		{"a TRACE line without an epoch takes it from its correlation id",
			Config{}, []parser.Event{
				with(ph(0, 3, F, parser.PhaseReceived, "t", 0, 5), func(e *parser.Event) { e.CorrelationID = 7 }),
				with(ph(15, 3, F, parser.PhaseCompleted, "t", 0, Unknown), func(e *parser.Event) { e.CorrelationID = 7 }),
			}, false,
			func(t *testing.T, c *collect, st *Stats) {
				e := c.find(t, "t", 0, 5)
				if len(e.Brokers) != 1 || !e.Brokers[0].Phases[parser.PhaseCompleted].Equal(at(15)) || st.Orphans != 0 {
					t.Errorf("brokers %+v orphans %d", e.Brokers, st.Orphans)
				}
			}},
		{"an epoch-less line with nothing open is an orphan",
			Config{}, []parser.Event{ph(0, 3, F, parser.PhaseCompleted, "t", 0, Unknown)}, false,
			func(t *testing.T, c *collect, st *Stats) {
				if len(c.eps) != 0 || st.Orphans != 1 {
					t.Errorf("%d elections, %d orphans", len(c.eps), st.Orphans)
				}
			}},
		{"a line after the election was quiet for Quiet is late and does not move its end",
			Config{Quiet: time.Second}, []parser.Event{ph(0, 2, L, parser.PhaseReceived, "t", 0, 5), ph(1500, 2, L, parser.PhaseFinished, "t", 0, 5)}, false,
			func(t *testing.T, c *collect, st *Stats) {
				if e := c.find(t, "t", 0, 5); e.Late != 1 || st.Late != 1 || !e.End.Equal(at(0)) {
					t.Errorf("late %d/%d end %v", e.Late, st.Late, e.End)
				}
			}},
		{"a line for an epoch already handed over is late",
			Config{Quiet: time.Second, EmitAfter: time.Second}, []parser.Event{
				ph(0, 2, L, parser.PhaseReceived, "t", 0, 5), ph(5000, 9, F, parser.PhaseReceived, "u", 0, 1), ph(5100, 3, F, parser.PhaseReceived, "t", 0, 4),
			}, false,
			func(t *testing.T, c *collect, st *Stats) {
				if st.Late != 1 || len(c.eps) != 2 {
					t.Errorf("late %d, %d elections", st.Late, len(c.eps))
				}
			}},
		{"a decision names the controller, its epoch, the cause and when it was decided",
			Config{}, []parser.Event{
				with(dec(0, 1, "t", 0, 5, 2, parser.CauseControlledShutdown), func(e *parser.Event) { e.ControllerEpoch = 8 }),
				ph(30, 2, L, parser.PhaseReceived, "t", 0, 5),
			}, false,
			func(t *testing.T, c *collect, st *Stats) {
				e := c.find(t, "t", 0, 5)
				if e.Controller != 1 || e.ControllerEpoch != 8 || e.Cause != parser.CauseControlledShutdown || !e.Decided.Equal(at(0)) || !e.Transition || e.Leader != 2 {
					t.Errorf("%+v", e)
				}
			}},
		{"an unclean decision makes the cause unclean, whatever else is said",
			Config{}, []parser.Event{
				with(dec(0, 1, "t", 0, 5, 3, parser.CauseOfflinePartition), func(e *parser.Event) { e.Unclean = true }),
				dec(5, 1, "t", 0, 5, 3, parser.CauseBrokerFailure),
			}, false,
			func(t *testing.T, c *collect, st *Stats) {
				if e := c.find(t, "t", 0, 5); !e.Unclean || e.Cause != parser.CauseUnclean {
					t.Errorf("unclean %v cause %v", e.Unclean, e.Cause)
				}
			}},
		{"an epoch-less decision (≤1.0) waits for the next election with that leader",
			Config{}, []parser.Event{
				dec(0, 1, "t", 0, Unknown, 3, parser.CauseBrokerFailure),
				ph(200, 3, L, parser.PhaseReceived, "t", 0, 9),
			}, false,
			func(t *testing.T, c *collect, st *Stats) {
				e := c.find(t, "t", 0, 9)
				if e.Cause != parser.CauseBrokerFailure || e.Controller != 1 || !e.Decided.Equal(at(0)) || !e.Start.Equal(at(0)) {
					t.Errorf("cause %v controller %d decided %v start %v", e.Cause, e.Controller, e.Decided, e.Start)
				}
			}},
		{"a trigger before the decision is its cause, with the brokers it names",
			Config{}, []parser.Event{trig(0, parser.CauseBrokerFailure, 1), dec(50, 0, "t", 0, 5, 2, parser.CauseUnknown)}, false,
			func(t *testing.T, c *collect, st *Stats) {
				if e := c.find(t, "t", 0, 5); e.Cause != parser.CauseBrokerFailure || !slices.Equal(e.CauseBrokers, []int32{1}) {
					t.Errorf("cause %v brokers %v", e.Cause, e.CauseBrokers)
				}
			}},
		{"a trigger older than TriggerWindow is not",
			Config{TriggerWindow: time.Second}, []parser.Event{trig(0, parser.CauseBrokerFailure, 1), dec(1500, 0, "t", 0, 5, 2, parser.CauseUnknown)}, false,
			func(t *testing.T, c *collect, st *Stats) {
				if e := c.find(t, "t", 0, 5); e.Cause != parser.CauseUnknown {
					t.Errorf("cause %v", e.Cause)
				}
			}},
		{"a broker startup is no cause by itself (its elections are preferred ones)",
			Config{}, []parser.Event{trig(0, parser.CauseBrokerStartup, 1), dec(50, 0, "t", 0, 5, 2, parser.CauseUnknown)}, false,
			func(t *testing.T, c *collect, st *Stats) {
				if e := c.find(t, "t", 0, 5); e.Cause != parser.CauseUnknown {
					t.Errorf("cause %v", e.Cause)
				}
			}},
		{"leader epoch 0 with no other cause is a new partition",
			Config{}, []parser.Event{dec(0, 1, "t", 0, 0, 2, parser.CauseUnknown)}, false,
			func(t *testing.T, c *collect, st *Stats) {
				if e := c.find(t, "t", 0, 0); e.Cause != parser.CauseNewPartition {
					t.Errorf("cause %v", e.Cause)
				}
			}},
		{"a completed preferred election names its cause after the fact",
			Config{}, []parser.Event{ph(0, 2, L, parser.PhaseReceived, "t", 0, 5), dec(100, 1, "t", 0, Unknown, 2, parser.CausePreferred)}, false,
			func(t *testing.T, c *collect, st *Stats) {
				if e := c.find(t, "t", 0, 5); e.Cause != parser.CausePreferred {
					t.Errorf("cause %v", e.Cause)
				}
			}},
		{"state an older controller epoch decided is re-sent: no election of a burst",
			Config{}, []parser.Event{with(ph(0, 2, L, parser.PhaseReceived, "t", 0, 5), func(e *parser.Event) { e.ControllerEpoch, e.StateControllerEpoch = 8, 7 })}, false,
			func(t *testing.T, c *collect, st *Stats) {
				if e := c.find(t, "t", 0, 5); !e.Resent || e.BurstID != 0 || len(c.bursts) != 0 {
					t.Errorf("resent %v burst %d bursts %d", e.Resent, e.BurstID, len(c.bursts))
				}
			}},
		{"the same state from the current controller epoch is fresh",
			Config{}, []parser.Event{with(ph(0, 2, L, parser.PhaseReceived, "t", 0, 5), func(e *parser.Event) { e.ControllerEpoch, e.StateControllerEpoch = 8, 8 })}, false,
			func(t *testing.T, c *collect, st *Stats) {
				if e := c.find(t, "t", 0, 5); e.Resent || e.BurstID == 0 || e.ControllerEpoch != 8 {
					t.Errorf("resent %v burst %d controller epoch %d", e.Resent, e.BurstID, e.ControllerEpoch)
				}
			}},
		{"a broker's request lends its start, phases and finish to the partitions it applied",
			Config{}, []parser.Event{
				with(blank(parser.KindRequestStart, 0), func(e *parser.Event) { e.Broker, e.CorrelationID = 2, 5 }),
				ph(10, 2, L, parser.PhaseEpochStart, "t", 0, 5),
				with(blank(parser.KindRequestPhase, 12), func(e *parser.Event) { e.Broker, e.Role, e.Phase = 2, L, parser.PhaseStoppedFetchers }),
				with(blank(parser.KindRequestFinished, 30), func(e *parser.Event) { e.Broker, e.CorrelationID, e.Elapsed = 2, 5, 30*time.Millisecond }),
			}, false,
			func(t *testing.T, c *collect, st *Stats) {
				bt := c.find(t, "t", 0, 5).Brokers[0]
				if !bt.Phases[parser.PhaseHandling].Equal(at(0)) || !bt.Phases[parser.PhaseStoppedFetchers].Equal(at(12)) ||
					!bt.Phases[parser.PhaseFinished].Equal(at(30)) || bt.Elapsed != 30*time.Millisecond {
					t.Errorf("%v elapsed %v", phaseTimes(bt), bt.Elapsed)
				}
			}},
		{"a finish with another correlation id is not the request's",
			Config{}, []parser.Event{
				with(blank(parser.KindRequestStart, 0), func(e *parser.Event) { e.Broker, e.CorrelationID = 2, 5 }),
				ph(10, 2, L, parser.PhaseEpochStart, "t", 0, 5),
				with(blank(parser.KindRequestFinished, 30), func(e *parser.Event) { e.Broker, e.CorrelationID = 2, 6 }),
			}, false,
			func(t *testing.T, c *collect, st *Stats) {
				if bt := c.find(t, "t", 0, 5).Brokers[0]; !bt.Phases[parser.PhaseFinished].IsZero() {
					t.Errorf("%v", phaseTimes(bt))
				}
			}},
		{"an epoch-less 'Removed fetcher' waits for the broker's next line to name the epoch",
			Config{}, []parser.Event{ph(0, 2, L, parser.PhaseStoppedFetchers, "t", 0, Unknown), ph(5, 2, L, parser.PhaseEpochStart, "t", 0, 5)}, false,
			func(t *testing.T, c *collect, st *Stats) {
				bt := c.find(t, "t", 0, 5).Brokers[0]
				if !bt.Phases[parser.PhaseStoppedFetchers].Equal(at(0)) || st.Orphans != 0 {
					t.Errorf("%v orphans %d", phaseTimes(bt), st.Orphans)
				}
			}},
		{"a failover whose new controller finds the old leader gone is that broker's failure",
			Config{}, []parser.Event{
				dec(0, 1, "t", 0, 4, 1, parser.CauseNewPartition),
				with(blank(parser.KindControllerChange, 30_000), func(e *parser.Event) { e.Controller, e.Subjects = 2, []int32{2, 3} }),
				with(blank(parser.KindControllerChange, 30_000), func(e *parser.Event) {
					e.Controller, e.ControllerEpoch, e.Lifecycle = 2, 9, parser.LifeControllerElected
				}),
				dec(30_050, 2, "t", 0, 5, 2, parser.CauseUnknown),
			}, false,
			func(t *testing.T, c *collect, st *Stats) {
				e := c.find(t, "t", 0, 5)
				if e.Cause != parser.CauseBrokerFailure || !slices.Equal(e.CauseBrokers, []int32{1}) || e.ControllerEpoch != 9 || e.PreviousLeader != 1 {
					t.Errorf("cause %v brokers %v controller epoch %d previous %d", e.Cause, e.CauseBrokers, e.ControllerEpoch, e.PreviousLeader)
				}
			}},
		{"a refused truncation makes the open election unclean and is its follower's truncated phase",
			Config{}, []parser.Event{
				ph(0, 2, L, parser.PhaseReceived, "t", 0, 5),
				with(blank(parser.KindTruncation, 40), func(e *parser.Event) { e.Broker, e.Topic, e.Partition, e.Unclean, e.Offset = 3, "t", 0, true, 100 }),
			}, false,
			func(t *testing.T, c *collect, st *Stats) {
				e := c.find(t, "t", 0, 5)
				if !e.Unclean || e.Cause != parser.CauseUnclean || len(e.Truncations) != 1 || len(st.Truncations) != 1 ||
					!e.broker(3).Phases[parser.PhaseTruncated].Equal(at(40)) || !e.End.Equal(at(40)) {
					t.Errorf("%+v", e)
				}
			}},
		{"a rejected ISR change marks the shrink before it, not a new change",
			Config{}, []parser.Event{
				with(blank(parser.KindISRChange, 0), func(e *parser.Event) {
					e.Broker, e.Topic, e.Partition, e.PrevISR, e.ISR = 2, "t", 0, []int32{1, 2}, []int32{2}
				}),
				with(blank(parser.KindISRChange, 5), func(e *parser.Event) { e.Broker, e.Topic, e.Partition, e.Rejected = 2, "t", 0, true }),
			}, false,
			func(t *testing.T, c *collect, st *Stats) {
				if len(st.ISRChanges) != 1 || !st.ISRChanges[0].Rejected {
					t.Errorf("%+v", st.ISRChanges)
				}
			}},
		{"Advance hands an election over EmitAfter after its last line, not before",
			Config{Quiet: time.Second, EmitAfter: 2 * time.Second}, []parser.Event{
				ph(0, 2, L, parser.PhaseReceived, "t", 0, 5), ph(1900, 9, F, parser.PhaseReceived, "u", 0, 1),
			}, true,
			func(t *testing.T, c *collect, st *Stats) {
				if len(c.eps) != 0 {
					t.Errorf("%d handed over 1.9 s after, want none", len(c.eps))
				}
			}},
		{"past MaxOpen the oldest election is finished early",
			Config{MaxOpen: 1}, []parser.Event{ph(0, 2, L, parser.PhaseReceived, "t", 0, 5), ph(10, 2, L, parser.PhaseReceived, "t", 1, 5)}, true,
			func(t *testing.T, c *collect, st *Stats) {
				if st.Evicted != 1 || len(c.eps) != 1 || c.eps[0].Partition != 0 {
					t.Errorf("evicted %d, handed over %d", st.Evicted, len(c.eps))
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			col := &collect{}
			tl := New(c.cfg, col)
			for i := range c.events {
				tl.Add(0, &c.events[i])
				tl.Advance(c.events[i].Time)
			}
			if !c.open {
				tl.Close()
			}
			c.check(t, col, &tl.Stats)
		})
	}
}
