package timeline

import (
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

type trigger struct {
	t          time.Time
	cause      parser.Cause
	brokers    []int32
	controller int32
	topic      string
	partition  int32
	// count: the partitions a KRaft controller line says it is changing
	// ("handleBrokerFenced: changing N partition(s)"): the line is the
	// decision of each of them.
	count int32
	ref   Ref
	// lastSeen: the failed broker's last line before this trigger.
	lastSeen time.Time
}

func (t *Timeline) applyDecision(e *Episode, at time.Time, controller, ctrlEpoch int32, cause parser.Cause, unclean bool) {
	if e.Decided.IsZero() || at.Before(e.Decided) {
		e.Decided = at
	}
	if controller != Unknown && e.Controller == Unknown {
		e.Controller = controller
	}
	if ctrlEpoch == Unknown && controller != Unknown {
		if ce, ok := t.ctrlEpoch[controller]; ok {
			ctrlEpoch = ce
		}
	}
	if ctrlEpoch != Unknown && e.ControllerEpoch == Unknown {
		e.ControllerEpoch = ctrlEpoch
	}
	if unclean {
		e.Unclean = true
		e.Cause = parser.CauseUnclean
	}
	if cause != parser.CauseUnknown && e.Cause != parser.CauseUnclean && e.Cause != parser.CauseNewPartition {
		if e.Cause == parser.CauseUnknown || cause == parser.CauseNewPartition || cause == parser.CauseUnclean {
			e.Cause = cause
		}
	}
	e.Transition = true
}

func (t *Timeline) decision(ev *parser.Event, ref Ref) {
	tp := TP{ev.Topic, ev.Partition}
	ps := t.part(tp)
	if ev.LeaderEpoch == Unknown {
		if ev.Leader == Unknown {
			return
		}
		if ev.Cause == parser.CausePreferred {
			// "Partition t-p completed preferred replica leader election.
			// New leader is L" comes after the election it names.
			for i := len(ps.open) - 1; i >= 0; i-- {
				e := ps.open[i]
				if e.Leader == ev.Leader && ev.Time.Sub(e.LastActivity) <= t.cfg.Quiet {
					if e.Cause == parser.CauseUnknown {
						e.Cause = parser.CausePreferred
					}
					break
				}
			}
			return
		}
		// "elected leader L", "changed partition ... with leader L" (≤1.0)
		// print no epoch and come before the LeaderAndIsr that carries the
		// new one: they belong to the next episode with that leader.
		if p := ps.pending; p != nil && p.leader == ev.Leader && ev.Time.Sub(p.t) <= t.cfg.Quiet {
			// "elected leader L" then "changed partition ... with leader L":
			// one decision; keep the first time and the most specific cause.
			if p.cause == parser.CauseUnknown {
				p.cause = ev.Cause
			}
			p.unclean = p.unclean || ev.Unclean
			return
		}
		ps.pending = &pendingDecision{t: ev.Time, leader: ev.Leader, controller: ev.Controller, ctrlEpoch: ev.ControllerEpoch, cause: ev.Cause, unclean: ev.Unclean, ref: ref}
		return
	}
	e := t.episode(Key{tp.Topic, tp.Partition, ev.LeaderEpoch}, ev.Time, ref)
	if e == nil {
		return
	}
	if ev.PrevLeader != Unknown {
		e.PreviousLeader = ev.PrevLeader
	}
	ctrlEpoch := ev.StateControllerEpoch
	if ctrlEpoch == Unknown {
		ctrlEpoch = ev.ControllerEpoch
	}
	noteFreshness(e, ev)
	if ev.Metadata {
		if e.SentUpdateMetadata.IsZero() {
			e.SentUpdateMetadata = ev.Time
			t.touch(e, ev.Time, ref)
		}
		if e.Controller == Unknown {
			e.Controller = ev.Controller
		}
		if e.ControllerEpoch == Unknown {
			e.ControllerEpoch = ctrlEpoch
		}
	} else {
		if ev.Broker != Unknown && (ev.Role == parser.RoleLeader || ev.Role == parser.RoleFollower) {
			// "Sending become-leader LeaderAndIsr request ... to broker B"
			if e.SentLeaderAndIsr.IsZero() {
				e.SentLeaderAndIsr = ev.Time
			}
			bt := e.brokerFrom(ev.Broker, &t.slab)
			if bt.Role == parser.RoleUnknown {
				bt.Role = ev.Role
			}
		}
		t.applyDecision(e, ev.Time, ev.Controller, ctrlEpoch, ev.Cause, ev.Unclean)
		if ev.Broker == Unknown {
			// "Sending become-leader ... to broker B" only sends a state
			// that may have been chosen before the logs.
			e.chosen = true
		}
		t.touch(e, ev.Time, ref)
		if ev.Controller != Unknown && ev.Broker == Unknown {
			if d := t.recentDecisions[ev.Controller]; len(d) < 100000 && (len(d) == 0 || d[len(d)-1] != e.Key) {
				t.recentDecisions[ev.Controller] = append(d, e.Key)
			}
		}
		if !ps.started.IsZero() && ev.Time.Sub(ps.started) >= 0 && ev.Time.Sub(ps.started) <= t.cfg.TriggerWindow {
			if e.Cause == parser.CauseUnknown || e.Cause == parser.CauseOfflinePartition {
				e.Cause = ps.startedCause
			}
			t.touch(e, ps.started, ps.startedRef)
			ps.started = time.Time{}
		}
	}
	if e.ISR == nil {
		e.ISR = ev.ISR
	}
	if e.Replicas == nil {
		e.Replicas = ev.Replicas
	}
	t.setLeader(e, ev.Leader)
	if !ev.Metadata && (e.Cause == parser.CauseUnknown || e.Cause == parser.CauseOfflinePartition) {
		t.causeFromTrigger(e)
	}
	if len(e.CauseBrokers) == 0 && len(ev.Subjects) > 0 {
		// "after removing replica R from the ISR": R is the broker it is about.
		e.CauseBrokers = ev.Subjects
	}
}

func (t *Timeline) addTrigger(tr trigger) {
	t.triggers = append(t.triggers, tr)
	if len(t.triggers) > 256 {
		copy(t.triggers, t.triggers[128:])
		t.triggers = t.triggers[:len(t.triggers)-128]
	}
}

// causeFromTrigger blames the most recent trigger before the episode.
func (t *Timeline) causeFromTrigger(e *Episode) {
	at := e.Start
	if !e.Decided.IsZero() {
		at = e.Decided
	}
	// Prefer the newest trigger at or before the decision; one logged up to
	// 10 ms after it (threads racing) only when none came before. Live
	// input can deliver a controller.log ahead of the state-change.log, so
	// "newest seen" is not enough.
	if !t.pickTrigger(e, at, at) {
		t.pickTrigger(e, at, at.Add(10*time.Millisecond))
	}
}

func (t *Timeline) pickTrigger(e *Episode, at, latest time.Time) bool {
	for i := len(t.triggers) - 1; i >= 0; i-- {
		tr := t.triggers[i]
		if tr.t.After(latest) {
			continue
		}
		if at.Sub(tr.t) > t.cfg.TriggerWindow {
			continue
		}
		if tr.topic != "" && (tr.topic != e.Topic || tr.partition != e.Partition) {
			continue
		}
		if e.Controller != Unknown && tr.controller != Unknown && tr.controller != e.Controller && tr.cause != parser.CauseControllerFailover {
			continue
		}
		if tr.cause == parser.CauseBrokerStartup && e.Cause == parser.CauseUnknown {
			// A broker joining moves leaders only through preferred
			// elections, which have their own trigger; keep looking.
			continue
		}
		e.Cause = tr.cause
		e.CauseBrokers = tr.brokers
		if (tr.cause == parser.CauseBrokerFailure || tr.cause == parser.CauseBrokerFenced) && !tr.lastSeen.IsZero() {
			e.DetectFrom = tr.lastSeen
		}
		if tr.count > 0 && e.Decided.IsZero() && at.Sub(tr.t) <= 5*time.Second {
			// KRaft logs no per-partition decision: the controller line
			// that changed the partitions is it.
			e.Decided, e.chosen = tr.t, true
			if e.Controller == Unknown {
				e.Controller = tr.controller
			}
			t.touch(e, tr.t, tr.ref)
		}
		if tr.cause == parser.CauseControllerFailover && e.PreviousLeader >= 0 && t.liveBrokers != nil && !at.Before(t.liveAt) && at.Sub(t.liveAt) <= t.cfg.TriggerWindow && !contains(t.liveBrokers, e.PreviousLeader) {
			// The new controller found the old leader dead (often the old
			// controller itself): a broker failure, seen through a failover.
			e.Cause = parser.CauseBrokerFailure
			e.CauseBrokers = []int32{e.PreviousLeader}
		}
		return true
	}
	return false
}
