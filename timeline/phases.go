package timeline

import (
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

// fetchKey: a broker's fetcher line (server.log) waits for the same
// broker's epoch line (state-change.log), so it is keyed by broker, not by
// file, when the broker is known.
type fetchKey struct {
	sb srcBroker
	tp TP
}

func keyFetch(src int, broker int32, tp TP) fetchKey {
	if broker != Unknown {
		src = -1
	}
	return fetchKey{srcBroker{src, broker}, tp}
}

// corrKey is the correlation-id key of a broker's line about tp, giving
// the topic a number the first time it is seen.
func (t *Timeline) corrKey(src int, broker int32, tp TP) corrKey {
	id, ok := t.topicIDs[tp.Topic]
	if !ok {
		id = int32(len(t.topicIDs))
		t.topicIDs[tp.Topic] = id
	}
	return corrKey{int32(src), broker, id, tp.Partition}
}

// keepCorr remembers the correlation id and leader epoch of a "received"
// line, for the request's later lines that name only the id.
func (t *Timeline) keepCorr(src int, ev *parser.Event, tp TP) {
	if len(t.corrs) == 0 {
		t.corrBase = ev.Time
	}
	t.corrs[t.corrKey(src, ev.Broker, tp)] = corrRef{corr: ev.CorrelationID, at: ev.Time.Sub(t.corrBase), epoch: ev.LeaderEpoch}
}

type heldPhase struct {
	ev  parser.Event
	ref Ref
	key fetchKey
}

func (t *Timeline) hold(k fetchKey, ev *parser.Event, ref Ref) {
	var h *heldPhase
	if n := len(t.heldFree); n > 0 {
		h, t.heldFree = t.heldFree[n-1], t.heldFree[:n-1]
	} else {
		h = new(heldPhase)
	}
	h.ev, h.ref, h.key = *ev, ref, k
	t.fetchHeld[k] = h
}

// unhold forgets a held line and gives back a copy of it: its slot is
// reused by the next hold, which releasing the line may make.
func (t *Timeline) unhold(h *heldPhase) heldPhase {
	delete(t.fetchHeld, h.key)
	v := *h
	*h = heldPhase{} // keep no line's slices alive
	t.heldFree = append(t.heldFree, h)
	return v
}

// phase handles a per-partition broker line.
func (t *Timeline) phase(src int, ev *parser.Event, ref Ref) {
	tp := TP{ev.Topic, ev.Partition}
	sb := srcBroker{src, ev.Broker}
	epoch := ev.LeaderEpoch
	if ev.Phase == parser.PhaseReceived && epoch != Unknown {
		t.keepCorr(src, ev, tp)
	}
	if epoch == Unknown && len(t.corrs) > 0 {
		// TRACE lines after "received" carry only the correlation id.
		// A line naming the request's correlation id belongs to it
		// however slow the broker was (a follower truncating many logs
		// one by one before "started fetcher"), up to EmitAfter; one
		// without it only within Quiet. By the line's time, not by
		// whether a sweep has forgotten the request yet.
		ck := t.corrKey(src, ev.Broker, tp)
		if c, ok := t.corrs[ck]; ok {
			age := ev.Time.Sub(t.corrBase) - c.at
			exact := ev.CorrelationID >= 0 && c.corr == ev.CorrelationID && age <= t.cfg.EmitAfter
			loose := (ev.CorrelationID < 0 || c.corr < 0) && age <= t.cfg.Quiet
			if exact || loose {
				epoch = c.epoch
				if ev.Phase == parser.PhaseCompleted {
					delete(t.corrs, ck)
				}
			}
		}
	}
	if epoch == Unknown && ev.CorrelationID < 0 && ev.Phase == parser.PhaseStoppedFetchers {
		// "Removed fetcher for partitions ..." comes before the new
		// leader's epoch line (ZK makeLeader, KRaft leaders) but after a
		// follower's: hold it until the broker's next line for the
		// partition says which epoch it belongs to.
		k := keyFetch(src, ev.Broker, tp)
		if _, ok := t.fetchHeld[k]; !ok {
			t.hold(k, ev, ref)
			t.setTimer(ev.Time.Add(time.Second), timer{held: k, at: ev.Time})
		}
		return
	}
	var hp *heldPhase
	if epoch != Unknown && len(t.fetchHeld) > 0 {
		hp = t.fetchHeld[keyFetch(src, ev.Broker, tp)]
	}
	if hp != nil {
		held := t.unhold(hp)
		if ev.Time.Sub(held.ev.Time) <= time.Second {
			// Not before the controller decided this epoch: a fetcher
			// removed earlier belongs to something else (a restart).
			if e := t.episodes[Key{tp.Topic, tp.Partition, epoch}]; e != nil && !e.Decided.IsZero() && held.ev.Time.Before(e.Decided) {
				t.Stats.Orphans++
			} else {
				h := held.ev
				h.LeaderEpoch = epoch
				defer t.phase(held.ref.Source, &h, held.ref)
			}
		} else {
			t.releaseHeld(src, held)
		}
	}
	if epoch == Unknown {
		// Fall back to the partition's newest open episode.
		if ps := t.parts[tp]; ps != nil && len(ps.open) > 0 {
			last := ps.open[len(ps.open)-1]
			if ev.Time.Sub(last.LastActivity) <= t.cfg.Quiet {
				epoch = last.LeaderEpoch
			}
		}
	}
	if epoch == Unknown {
		t.Stats.Orphans++
		return
	}
	k := Key{tp.Topic, tp.Partition, epoch}
	e := t.episode(k, ev.Time, ref)
	if e == nil {
		t.latePhase(src, k, ev, ref)
		return
	}
	bt := t.brokerIn(e, ev.Broker, ev.Time, ref)
	if bt.Role == parser.RoleUnknown && ev.Role != parser.RoleUnknown {
		bt.Role = ev.Role
	}
	first := bt.own(ev.Phase, ev.Time)
	if first {
		t.touch(e, ev.Time, ref)
	} else {
		bt.Repeats++
	}
	if !ev.Metadata {
		e.Transition = true
		if e.Cause == parser.CauseUnknown {
			t.causeFromTrigger(e)
		}
	}
	noteFreshness(e, ev)
	if ev.Leader != Unknown {
		if ev.Role == parser.RoleLeader && ev.Broker != Unknown {
			t.setLeader(e, ev.Broker)
		} else {
			t.setLeader(e, ev.Leader)
		}
	} else if ev.Role == parser.RoleLeader && ev.Broker != Unknown {
		t.setLeader(e, ev.Broker)
	}
	if e.ISR == nil && ev.ISR != nil {
		e.ISR = ev.ISR
	}
	if e.Replicas == nil && ev.Replicas != nil {
		e.Replicas = ev.Replicas
	}
	if e.Controller == Unknown && ev.Controller != Unknown && !ev.Metadata {
		e.Controller = ev.Controller
	}
	if e.ControllerEpoch == Unknown && !ev.Metadata {
		if ev.StateControllerEpoch != Unknown {
			e.ControllerEpoch = ev.StateControllerEpoch
		} else if ev.ControllerEpoch != Unknown && ev.Phase == parser.PhaseReceived {
			e.ControllerEpoch = ev.ControllerEpoch
		}
	}
	// Request-level context (2.6+ INFO, KRaft): the partition belongs to the
	// broker's open request. A re-logged epoch (broker restart) does not:
	// that request's times are not this election's.
	if ev.Phase == parser.PhaseEpochStart && first {
		t.joinRequest(sb, e.Key, ev)
	}
}

// joinRequest makes the partition a member of the broker's open request.
func (t *Timeline) joinRequest(sb srcBroker, k Key, ev *parser.Event) {
	if rq := t.reqs[sb]; rq != nil && !rq.closed && ev.Time.Sub(rq.last) <= t.cfg.Quiet {
		if rq.role == parser.RoleUnknown || rq.role == ev.Role {
			if len(rq.members) < 1<<20 {
				rq.members = append(rq.members, member{key: k, role: ev.Role})
			}
			rq.last = ev.Time
		}
	}
}

// latePhase keeps a phase that came after its episode went quiet (a broker
// returning and applying an epoch decided while it was gone, however late)
// as that broker's catch-up: it does not move Start or End. A broker that
// had already applied the epoch in time is re-logging it: a repeat.
func (t *Timeline) latePhase(src int, k Key, ev *parser.Event, ref Ref) {
	e := t.episodes[k]
	if e == nil || ev.Broker == Unknown || t.due(e, ev.Time) {
		return
	}
	bt := e.brokerFrom(ev.Broker, &t.slab)
	if !bt.begun {
		bt.begun, bt.First, bt.CatchUp, bt.late = true, ref, true, true
	}
	if !bt.late {
		return // re-logged by a broker that applied it in time: counted late
	}
	if bt.Role == parser.RoleUnknown && ev.Role != parser.RoleUnknown {
		bt.Role = ev.Role
	}
	if !bt.own(ev.Phase, ev.Time) {
		bt.Repeats++
		return
	}
	if ev.Phase == parser.PhaseEpochStart {
		t.joinRequest(srcBroker{src, ev.Broker}, k, ev)
	}
}

// setPhase records a request-level time for one partition's broker timeline.
func (t *Timeline) setPhase(k Key, broker int32, role parser.Role, ph parser.Phase, at time.Time, ref Ref, metadata bool) {
	if e := t.episodes[k]; e != nil {
		t.setPhaseIn(e, broker, role, ph, at, ref, metadata)
	}
}

// setPhaseIn is setPhase for the open episode e.
func (t *Timeline) setPhaseIn(e *Episode, broker int32, role parser.Role, ph parser.Phase, at time.Time, ref Ref, metadata bool) {
	bt := t.brokerIn(e, broker, at, ref)
	if bt.Role == parser.RoleUnknown {
		bt.Role = role
	}
	if bt.Phases[ph].IsZero() {
		bt.Phases[ph] = at
		bt.shared |= 1 << ph
		if bt.late {
			return
		}
		changed := !e.indexed
		if at.Before(e.Start) {
			e.Start, changed = at, true
		}
		if at.After(e.End) {
			e.End, changed = at, true
		}
		if changed {
			t.moved(e)
		}
	} else if metadata {
		bt.Repeats++
	}
}

// releaseHeld gives a held fetcher phase to the episode the broker was
// already in: the partition's newest open episode, if this broker logged
// a phase for it before the fetcher line (a follower's own sequence).
//
// "Newest" is as of the held line's own time, not of the release: the
// release comes with the broker's next line or with a sweep, whichever is
// first, and an election opened in between (the partition's next epoch)
// is not the one the broker was in.
func (t *Timeline) releaseHeld(src int, h heldPhase) {
	tp := TP{h.ev.Topic, h.ev.Partition}
	ps := t.parts[tp]
	if ps == nil {
		t.Stats.Orphans++
		return
	}
	for i := len(ps.open) - 1; i >= 0; i-- {
		e := ps.open[i]
		if h.ev.Time.Sub(e.LastActivity) > t.cfg.Quiet || !brokerPhaseBy(e, h.ev.Broker, h.ev.Time) {
			continue
		}
		ev := h.ev
		ev.LeaderEpoch = e.LeaderEpoch
		t.phase(src, &ev, h.ref)
		return
	}
	t.Stats.Orphans++
}

// brokerPhaseBy reports whether broker logged a phase of e at or before at.
func brokerPhaseBy(e *Episode, broker int32, at time.Time) bool {
	for _, bt := range e.Brokers {
		if bt.Broker != broker {
			continue
		}
		for ph := parser.PhaseReceived; ph < parser.NumPhases; ph++ {
			if p := bt.Phases[ph]; !p.IsZero() && !p.After(at) {
				return true
			}
		}
	}
	return false
}

func (t *Timeline) isrChange(ev *parser.Event, ref Ref) {
	if len(t.Stats.ISRChanges) >= maxContext {
		return
	}
	if ev.Rejected {
		// "Cached zkVersion ... not equal": the shrink just before it
		// never happened.
		for i := len(t.Stats.ISRChanges) - 1; i >= 0 && i >= len(t.Stats.ISRChanges)-64; i-- {
			c := &t.Stats.ISRChanges[i]
			if c.Topic == ev.Topic && c.Partition == ev.Partition && c.Broker == ev.Broker {
				c.Rejected = true
				return
			}
		}
		return
	}
	t.Stats.ISRChanges = append(t.Stats.ISRChanges, ISRChange{Time: ev.Time, Broker: ev.Broker, Topic: ev.Topic, Partition: ev.Partition,
		Kind: ev.Text, From: ev.PrevISR, To: ev.ISR, Ref: ref})
}

func (t *Timeline) truncation(src int, ev *parser.Event, ref Ref) {
	tr := Truncation{Time: ev.Time, Broker: ev.Broker, Topic: ev.Topic, Partition: ev.Partition, Offset: ev.Offset,
		Refused: ev.Unclean, EndOffset: ev.EndOffset, Ref: ref}
	if len(t.Stats.Truncations) < maxContext && ev.Text != "noop" {
		t.Stats.Truncations = append(t.Stats.Truncations, tr)
	}
	e := t.newestOpen(TP{ev.Topic, ev.Partition}, ev.Time)
	if e == nil {
		return
	}
	if len(e.Truncations) < 16 && ev.Text != "noop" {
		e.Truncations = append(e.Truncations, tr)
	}
	if tr.Refused {
		e.Unclean = true
		e.Cause = parser.CauseUnclean
	}
	if ev.Broker != Unknown {
		// The fetcher's truncation is the per-partition "truncated" phase
		// that 2.6+ no longer writes to state-change.log.
		bt := t.brokerIn(e, ev.Broker, ev.Time, ref)
		if bt.own(parser.PhaseTruncated, ev.Time) {
			if !bt.late {
				t.touch(e, ev.Time, ref)
			}
		}
	}
}

func contains(v []int32, x int32) bool {
	for _, y := range v {
		if y == x {
			return true
		}
	}
	return false
}

// noteFreshness compares the controller epoch inside the partition state
// (who decided it) with the epoch of the controller sending it: an older
// one means the state is being re-sent (a broker restarted, a controller
// failed over), not decided now.
func noteFreshness(e *Episode, ev *parser.Event) {
	if ev.Metadata || ev.StateControllerEpoch == Unknown || ev.ControllerEpoch == Unknown {
		return
	}
	if ev.StateControllerEpoch < ev.ControllerEpoch {
		e.resentSeen = true
	} else {
		e.freshSeen = true
	}
}

// fillRoles names the role of brokers that only cached metadata.
func (t *Timeline) fillRoles(e *Episode) {
	for _, bt := range e.Brokers {
		if bt.Role != parser.RoleUnknown {
			continue
		}
		if e.Leader != Unknown && bt.Broker == e.Leader {
			bt.Role = parser.RoleLeader
			continue
		}
		for _, r := range e.Replicas {
			if r == bt.Broker {
				bt.Role = parser.RoleFollower
			}
		}
	}
}
