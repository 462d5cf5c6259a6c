package timeline

import (
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

// brokerLife is what a broker's latest lifecycle lines say about whether it
// was serving.
type brokerLife struct {
	// restart: it (re)started or reconnected ("starting", "started",
	// "Registered broker", its own "Session expired"); starting/started
	// bracket a start still in progress.
	restart, starting, started time.Time
	// down: it was going or taken away ("shutting down", "Starting
	// controlled shutdown", fenced); up: serving again after that.
	down, up time.Time
}

func (t *Timeline) lifecycle(ev *parser.Event) {
	if ev.Broker == Unknown {
		return
	}
	l := t.life[ev.Broker]
	if l == nil {
		if len(t.life) >= 1<<16 {
			return
		}
		l = &brokerLife{}
		t.life[ev.Broker] = l
	}
	switch ev.Lifecycle {
	case parser.LifeStarting:
		l.restart, l.starting = ev.Time, ev.Time
	case parser.LifeStarted:
		l.restart, l.started, l.up = ev.Time, ev.Time, ev.Time
	case parser.LifeRegistered:
		l.restart, l.up = ev.Time, ev.Time
	case parser.LifeSessionExpired:
		// The broker's own "Session expired" is logged as it reconnects:
		// it was gone until now.
		l.restart = ev.Time
	case parser.LifeUnfenced:
		l.up = ev.Time
	case parser.LifeShuttingDown, parser.LifeShutdown, parser.LifeControlledShutdown, parser.LifeFenced:
		l.down = ev.Time
	}
}

// seen notes the time of a line a broker wrote about itself.
func (t *Timeline) seen(ev *parser.Event) {
	if ev.Broker == Unknown {
		return
	}
	switch ev.Kind {
	case parser.KindPhase, parser.KindRequestStart, parser.KindRequestPhase, parser.KindRequestFinished, parser.KindISRChange, parser.KindTruncation:
	case parser.KindBrokerLifecycle:
		if ev.Controller != Unknown {
			return // the controller fencing it
		}
	default:
		return
	}
	if at, ok := t.lastSeen[ev.Broker]; (ok || len(t.lastSeen) < 1<<16) && ev.Time.After(at) {
		t.lastSeen[ev.Broker] = ev.Time
	}
}

// brokerIn returns broker b's timeline in e, deciding at its first line
// whether it is catching up.
func (t *Timeline) brokerIn(e *Episode, b int32, at time.Time, ref Ref) *BrokerTimeline {
	bt := e.brokerFrom(b, &t.slab)
	if !bt.begun {
		bt.begun = true
		if bt.First == (Ref{}) {
			bt.First = ref
		}
		bt.CatchUp = t.notServing(e, b, at)
	}
	return bt
}

// notServing says whether broker b, logging its first line for e at at,
// was not serving when e was decided: it (re)started after the decision,
// was still starting, or was going down.
func (t *Timeline) notServing(e *Episode, b int32, at time.Time) bool {
	if causeBroker(e, b) {
		return true // known already (live views show it before the end)
	}
	l := t.life[b]
	if l == nil {
		return false
	}
	d := e.Decided
	if d.IsZero() {
		d = e.Start
	}
	if d.IsZero() || d.After(at) {
		d = at
	}
	if l.restart.After(d) && !l.restart.After(at) {
		return true
	}
	if !l.starting.IsZero() && !l.started.After(l.starting) && !l.starting.After(at) && at.Sub(l.starting) <= 5*time.Minute {
		return true // applying what it finds while starting
	}
	return !l.down.IsZero() && l.down.After(l.up) && !l.down.After(d)
}

// markCatchUp: the brokers a failure, fencing or controlled shutdown was
// about were gone or going when the controller moved the leadership.
func (t *Timeline) markCatchUp(e *Episode) {
	for _, bt := range e.Brokers {
		if causeBroker(e, bt.Broker) {
			bt.CatchUp = true
		}
	}
}

func causeBroker(e *Episode, b int32) bool {
	switch e.Cause {
	case parser.CauseBrokerFailure, parser.CauseBrokerFenced, parser.CauseControlledShutdown:
		return b != e.Leader && contains(e.CauseBrokers, b)
	}
	return false
}

// carriedOver: first seen being re-sent or re-applied, never decided in
// the logs.
func carriedOver(e *Episode) bool {
	if !e.firstSeen || e.chosen || !e.Transition {
		return false
	}
	if e.Resent || e.Cause == parser.CauseControllerFailover || e.Cause == parser.CauseBrokerStartup {
		return true
	}
	applied := false
	for _, bt := range e.Brokers {
		if bt.Phases == ([parser.NumPhases]time.Time{}) {
			continue
		}
		if !bt.CatchUp {
			return false
		}
		applied = true
	}
	return applied
}

// IsElection: a leadership change made in the logs, counted in statistics,
// bursts and findings (not a metadata-only mention, a re-send or state
// carried over from before the logs).
func (e *Episode) IsElection() bool { return e.Transition && !e.Resent && !e.CarriedOver }

// Measures is what an election took, measured from its decision (or its
// first line when no decision was logged). Each span is valid only with
// its Has flag.
type Measures struct {
	From time.Time
	// LeaderReady: → the new leader's own become-leader done (completed,
	// else its epoch start, else its request finished): the window in
	// which producers get NOT_LEADER.
	LeaderReady    time.Duration
	HasLeaderReady bool
	// ISRApplied: → every replica of the ISR that was serving applied it.
	ISRApplied    time.Duration
	HasISRApplied bool
	// Propagated: → every serving broker cached the new leader.
	Propagated    time.Duration
	HasPropagated bool
	// Detect: the failed broker's last line → the decision.
	Detect    time.Duration
	HasDetect bool
}

// ReadyAt is when broker bt was done with its part as leader: per-partition
// "completed" (TRACE), else "starts at leader epoch", else the end of its
// whole request.
func (bt *BrokerTimeline) ReadyAt() time.Time {
	for _, ph := range [...]parser.Phase{parser.PhaseCompleted, parser.PhaseEpochStart, parser.PhaseFinished} {
		if t := bt.Phases[ph]; !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// AppliedAt is the last phase the broker logged, metadata caching apart.
func (bt *BrokerTimeline) AppliedAt() time.Time {
	var last time.Time
	for ph := parser.PhaseReceived; ph < parser.NumPhases; ph++ {
		if t := bt.Phases[ph]; ph != parser.PhaseCached && t.After(last) {
			last = t
		}
	}
	return last
}

// Measures computes the election's durations. Catch-up brokers are left
// out; text, JSON and the TUI all read these.
func (e *Episode) Measures() Measures {
	var m Measures
	m.From = e.Decided
	if m.From.IsZero() {
		m.From = e.Start
	}
	if e.meas.has&measured != 0 {
		e.meas.unpack(&m)
		return m
	}
	if !e.DetectFrom.IsZero() && !e.Decided.IsZero() && !e.DetectFrom.After(e.Decided) {
		m.Detect, m.HasDetect = e.Decided.Sub(e.DetectFrom), true
	}
	var isr, cached time.Time
	for _, bt := range e.Brokers {
		if bt.CatchUp {
			continue
		}
		if bt.Broker == e.Leader {
			if r := bt.ReadyAt(); !r.IsZero() {
				m.LeaderReady, m.HasLeaderReady = r.Sub(m.From), true
			}
		}
		if (bt.Role == parser.RoleLeader || bt.Role == parser.RoleFollower) && (len(e.ISR) == 0 || contains(e.ISR, bt.Broker)) {
			if a := bt.AppliedAt(); a.After(isr) {
				isr = a
			}
		}
		if c := bt.Phases[parser.PhaseCached]; c.After(cached) {
			cached = c
		}
	}
	if !isr.IsZero() {
		m.ISRApplied, m.HasISRApplied = isr.Sub(m.From), true
	}
	if !cached.IsZero() {
		m.Propagated, m.HasPropagated = cached.Sub(m.From), true
	}
	return m
}

// packedMeasures is Measures without From, its flags in one byte.
type packedMeasures struct {
	leaderReady, isrApplied, propagated, detect time.Duration
	has                                         uint8
}

const (
	measured uint8 = 1 << iota
	hasLeaderReady
	hasISRApplied
	hasPropagated
	hasDetect
)

func packMeasures(m Measures) packedMeasures {
	p := packedMeasures{leaderReady: m.LeaderReady, isrApplied: m.ISRApplied, propagated: m.Propagated, detect: m.Detect, has: measured}
	for _, f := range [...]struct {
		ok  bool
		bit uint8
	}{{m.HasLeaderReady, hasLeaderReady}, {m.HasISRApplied, hasISRApplied}, {m.HasPropagated, hasPropagated}, {m.HasDetect, hasDetect}} {
		if f.ok {
			p.has |= f.bit
		}
	}
	return p
}

func (p *packedMeasures) unpack(m *Measures) {
	m.LeaderReady, m.HasLeaderReady = p.leaderReady, p.has&hasLeaderReady != 0
	m.ISRApplied, m.HasISRApplied = p.isrApplied, p.has&hasISRApplied != 0
	m.Propagated, m.HasPropagated = p.propagated, p.has&hasPropagated != 0
	m.Detect, m.HasDetect = p.detect, p.has&hasDetect != 0
}

// Took is the figure statistics, bursts, slowest lists and findings weigh:
// the time to leader ready, or first → last line when the new leader's
// lines are not in the logs.
func (e *Episode) Took() time.Duration {
	if m := e.Measures(); m.HasLeaderReady {
		return m.LeaderReady
	}
	return e.Duration()
}

// NotLeaderWindow is when producers were told NOT_LEADER for the
// partition: from the old leader stopping (its first line for the epoch;
// the decision when it had failed) to the new leader ready. ok is false
// when the new leader's readiness is not logged; from and to are then the
// election's first and last line.
func (e *Episode) NotLeaderWindow() (from, to time.Time, ok bool) {
	m := e.Measures()
	if !m.HasLeaderReady {
		return e.Start, e.End, false
	}
	from, to = m.From, m.From.Add(m.LeaderReady)
	failed := (e.Cause == parser.CauseBrokerFailure || e.Cause == parser.CauseBrokerFenced) && contains(e.CauseBrokers, e.PreviousLeader)
	if e.PreviousLeader >= 0 && e.PreviousLeader != e.Leader && !failed {
		// A leader handing over (controlled shutdown, preferred election)
		// answers NOT_LEADER from its become-follower on.
		for _, bt := range e.Brokers {
			if bt.Broker != e.PreviousLeader || bt.late {
				continue
			}
			if f, ok := bt.FirstPhase(); ok {
				from = f
			}
		}
	}
	if to.Before(from) {
		to = from
	}
	return from, to, true
}
