package timeline

import (
	"sort"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

// request is a broker's LeaderAndIsr request (2.6+ INFO) or KRaft metadata
// delta being applied: request-level lines are attached to its partitions.
type request struct {
	corr      int64
	role      parser.Role // KRaft "Transitioning ... to local leaders|followers"
	start     time.Time
	last      time.Time
	finished  time.Time
	elapsed   time.Duration
	members   []member
	phases    [3][parser.NumPhases]time.Time // by role
	ctrl      int32
	closed    bool
	source    int
	brokerID  int32
	memberCap int
}

type member struct {
	key  Key
	role parser.Role
}

// corrKey names one partition of one broker's request: a correlation id
// is kept per source × broker × partition (1,100 copies of a dense
// state-change.log hold 220,000 at once), so the key is four int32s, the
// topic by its number in topicIDs, not a string.
type corrKey struct {
	src, broker, topic, partition int32
}

// corrRef: the request's correlation id and the leader epoch its
// "received" line named, and when (since corrBase: a time.Time is three
// words).
type corrRef struct {
	corr  int64
	at    time.Duration
	epoch int32
}

func (t *Timeline) requestStart(src int, ev *parser.Event) {
	sb := srcBroker{src, ev.Broker}
	if rq := t.reqs[sb]; rq != nil && !rq.closed {
		t.closeRequest(rq)
	}
	rq := &request{corr: ev.CorrelationID, role: ev.Role, start: ev.Time, last: ev.Time, ctrl: ev.Controller, source: src, brokerID: ev.Broker}
	t.reqs[sb] = rq
	t.setTimer(rq.last.Add(t.cfg.Quiet), timer{rq: rq})
}

func (t *Timeline) requestPhase(src int, ev *parser.Event) {
	sb := srcBroker{src, ev.Broker}
	if ev.Phase == parser.PhaseCached && ev.Broker == Unknown && ev.Controller != Unknown {
		t.controllerUpdateMetadata(ev)
		return
	}
	if ev.Phase == parser.PhaseCached && t.brokerUpdateMetadata(src, ev) {
		return
	}
	if ev.Phase == parser.PhaseCached {
		// "Add N partitions ... from metadata cache": the UpdateMetadata
		// that follows a LeaderAndIsr covers its partitions.
		if rq := t.reqs[sb]; rq != nil && !rq.closed {
			t.closeRequest(rq)
		}
		rq := t.lastReq[sb]
		if rq == nil || ev.Time.Sub(rq.last) > 5*time.Second || !rq.phases[0][parser.PhaseCached].IsZero() {
			return
		}
		rq.phases[0][parser.PhaseCached] = ev.Time
		for _, m := range rq.members {
			t.setPhase(m.key, ev.Broker, m.role, parser.PhaseCached, ev.Time, Ref{Source: src, Line: ev.Line}, true)
		}
		return
	}
	rq := t.reqs[sb]
	if rq == nil || rq.closed {
		return
	}
	if rq.phases[ev.Role][ev.Phase].IsZero() {
		rq.phases[ev.Role][ev.Phase] = ev.Time
	}
	if ev.Cause != parser.CauseUnknown {
		for _, m := range rq.members {
			if e := t.episodes[m.key]; e != nil && e.Cause == parser.CauseUnknown {
				e.Cause, e.CauseBrokers = ev.Cause, []int32{ev.Broker}
			}
		}
	}
	rq.last = ev.Time
	// KRaft has no end-of-request line: fetchers started ends the follower batch.
	if ev.Phase == parser.PhaseStartedFetcher && rq.role == parser.RoleFollower {
		t.closeRequest(rq)
	}
}

func (t *Timeline) requestFinished(src int, ev *parser.Event) {
	sb := srcBroker{src, ev.Broker}
	rq := t.reqs[sb]
	if rq == nil || rq.closed || (rq.corr >= 0 && ev.CorrelationID >= 0 && rq.corr != ev.CorrelationID) {
		return
	}
	rq.finished = ev.Time
	rq.elapsed = ev.Elapsed
	rq.last = ev.Time
	t.closeRequest(rq)
}

// umBatch is an UpdateMetadata the controller sent for the partitions it
// had just decided (2.6+ INFO): the brokers' "Add N partitions" summaries
// say when each of them cached those leaders, replicas or not.
type umBatch struct {
	t       time.Time
	count   int32
	keys    []Key
	pending []int32 // brokers that have not logged it yet
}

func (t *Timeline) controllerUpdateMetadata(ev *parser.Event) {
	dec := t.recentDecisions[ev.Controller]
	if len(dec) == 0 {
		return
	}
	// The decisions since the last send, newest last: the batch is the
	// last Count of them.
	n := int(ev.Count)
	if n > len(dec) {
		n = len(dec)
	}
	b := &umBatch{t: ev.Time, count: ev.Count, keys: append([]Key(nil), dec[len(dec)-n:]...), pending: append([]int32(nil), ev.Subjects...)}
	t.recentDecisions[ev.Controller] = dec[:0]
	t.umBatches = append(t.umBatches, b)
	if len(t.umBatches) > 64 {
		t.umBatches = t.umBatches[len(t.umBatches)-64:]
	}
}

// brokerUpdateMetadata attributes a broker's "Add N partitions" to the
// oldest unclaimed controller batch of the same size that names it.
func (t *Timeline) brokerUpdateMetadata(src int, ev *parser.Event) bool {
	for _, b := range t.umBatches {
		if b.count != ev.Count || ev.Time.Before(b.t) || ev.Time.Sub(b.t) > t.cfg.Quiet {
			continue
		}
		for i, br := range b.pending {
			if br != ev.Broker {
				continue
			}
			b.pending = append(b.pending[:i], b.pending[i+1:]...)
			for _, k := range b.keys {
				t.setPhase(k, ev.Broker, parser.RoleUnknown, parser.PhaseCached, ev.Time, Ref{Source: src, Line: ev.Line}, true)
			}
			return true
		}
	}
	return false
}

// closeRequest applies a request's request-level times to its partitions.
func (t *Timeline) closeRequest(rq *request) {
	if rq.closed {
		return
	}
	rq.closed = true
	t.lastReq[srcBroker{rq.source, rq.brokerID}] = rq
	ref := Ref{Source: rq.source}
	for _, m := range rq.members {
		// Setting phases neither opens nor closes an episode: one lookup
		// for all of them.
		e := t.episodes[m.key]
		if e == nil {
			continue
		}
		t.setPhaseIn(e, rq.brokerID, m.role, parser.PhaseHandling, rq.start, ref, false)
		for _, role := range [...]parser.Role{m.role, parser.RoleUnknown} {
			for ph := parser.PhaseReceived; ph < parser.NumPhases; ph++ {
				if at := rq.phases[role][ph]; !at.IsZero() {
					t.setPhaseIn(e, rq.brokerID, m.role, ph, at, ref, false)
				}
			}
		}
		if !rq.finished.IsZero() {
			t.setPhaseIn(e, rq.brokerID, m.role, parser.PhaseFinished, rq.finished, ref, false)
			e.brokerFrom(rq.brokerID, &t.slab).Elapsed = rq.elapsed
		}
	}
}

// closeRequests forgets correlation ids no line can use any more; at the
// end (all) it also releases every held line and closes every request.
// Before the end, held lines and quiet requests are the timers'
// (runTimers, which Advance runs first).
func (t *Timeline) closeRequests(all bool) {
	if all && len(t.fetchHeld) > 0 {
		due := make([]fetchKey, 0, len(t.fetchHeld))
		for k := range t.fetchHeld {
			due = append(due, k)
		}
		// Map order is random; release in a fixed order.
		sort.Slice(due, func(i, j int) bool {
			a, b := t.fetchHeld[due[i]], t.fetchHeld[due[j]]
			if !a.ev.Time.Equal(b.ev.Time) {
				return a.ev.Time.Before(b.ev.Time)
			}
			return a.ref.Source < b.ref.Source || (a.ref.Source == b.ref.Source && a.ref.Line < b.ref.Line) ||
				(a.ref == b.ref && (due[i].tp.Topic < due[j].tp.Topic || (due[i].tp.Topic == due[j].tp.Topic && due[i].tp.Partition < due[j].tp.Partition)))
		})
		for _, k := range due {
			held := t.unhold(t.fetchHeld[k])
			t.releaseHeld(held.ref.Source, held)
		}
	}
	if all {
		for _, rq := range t.reqs {
			if !rq.closed {
				t.closeRequest(rq)
			}
		}
	}
	if all {
		clear(t.corrs)
	} else if len(t.corrs) > 0 {
		// Twice what phase allows: a line lagging the watermark may still
		// be within it.
		old := t.watermark.Sub(t.corrBase) - 2*max(t.cfg.Quiet, t.cfg.EmitAfter)
		for k, c := range t.corrs {
			if c.at < old {
				delete(t.corrs, k)
			}
		}
	}
}
