package timeline

import (
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

func (t *Timeline) producerError(src int, ev *parser.Event, ref Ref) {
	t.Stats.ProducerErrs++
	pe := &ProducerError{
		Time: ev.Time, ClientID: ev.ClientID, Topic: ev.Topic, Partition: ev.Partition, Error: ev.Error,
		AttemptsLeft: ev.AttemptsLeft, Final: ev.Final, Ref: ref, BrokerSide: ev.Broker != Unknown,
		Leadership: parser.Leadership(ev.Error),
	}
	if ev.Partition == Unknown && len(ev.Candidates) > 0 {
		pe.Candidates = append([]int32(nil), ev.Candidates...)
	}
	if len(ev.Lines) > 0 {
		pe.Lines = make([]Ref, len(ev.Lines))
		for i, l := range ev.Lines {
			pe.Lines[i] = Ref{Source: src, Line: l}
		}
	} else {
		pe.Lines = []Ref{ref}
	}
	if ev.ClientID != "" {
		t.srcClient[src] = ev.ClientID
		t.client(ev.ClientID, src).Errors++
	} else if id, ok := t.srcClient[src]; ok {
		pe.ClientID = id
		if c := t.Clients[id]; c != nil {
			c.Errors++
		}
	}
	t.errs = append(t.errs, pe)
}

// The sink gets them in the order they were logged: one classified while
// an earlier one waits for its election to go quiet waits with it, so that
// which of them a sweep reached first does not decide the output's order.
func (t *Timeline) matchErrors(before time.Time, all bool) {
	n := 0
	held := false // an error before this one is still in t.errs
	for _, pe := range t.errs {
		if !pe.matched && (all || pe.Time.Before(before)) {
			pe.matched = t.match(pe, all)
		}
		if !pe.matched || held {
			t.errs[n] = pe
			n++
			held = true
			continue
		}
		t.sink.ProducerError(pe)
	}
	for i := n; i < len(t.errs); i++ {
		t.errs[i] = nil
	}
	t.errs = t.errs[:n]
}

// moved keeps the match indexes in step with an episode's Start and End.
func (t *Timeline) moved(e *Episode) {
	if e.Start.IsZero() {
		return
	}
	if e.indexed {
		// Parts are never forgotten, and a topic's index only once no
		// live episode is in it: these are still the ones e is in.
		e.mx[byPartition].moved(e, byPartition)
		e.mx[byTopic].moved(e, byTopic)
		return
	}
	ps := t.part(TP{e.Topic, e.Partition})
	bt := t.byTopic[e.Topic]
	if bt == nil {
		bt = &matchIndex{}
		t.byTopic[e.Topic] = bt
	}
	e.indexed = true
	e.mx = [2]*matchIndex{&ps.idx, bt}
	ps.idx.add(e, byPartition)
	bt.add(e, byTopic)
}

func (t *Timeline) unindex(e *Episode) {
	if !e.indexed {
		return
	}
	if ps := t.parts[TP{e.Topic, e.Partition}]; ps != nil {
		ps.idx.remove(e, byPartition)
	}
	if bt := t.byTopic[e.Topic]; bt != nil {
		bt.remove(e, byTopic)
		if bt.empty() {
			delete(t.byTopic, e.Topic)
		}
	}
	e.indexed = false
	e.mx = [2]*matchIndex{}
}

// matchStart and matchEnd are the one place matching reads an election's
// window (first to last line today), so that what counts as the election
// for producers can change here; whatever moves them must call
// Timeline.moved.
func (e *Episode) matchStart() time.Time { return e.Start }
func (e *Episode) matchEnd() time.Time   { return e.End }

// electionTimes is the same window for an election already handed over.
func electionTimes(start, end time.Time) (time.Time, time.Time) { return start, end }

// match classifies one producer error against the elections of its
// partition (or, where the partition is unknown, of its candidates or its
// topic). An error a leader change does not cause is matched to nothing.
//
// An error that only an election still going on could cover (it ended
// before the error so far, but is not quiet yet: its last lines may still
// come) waits until it is quiet, with Config.SettleErrors and unless final:
// matching it now would call "after" what the election's later lines put
// inside it.
func (t *Timeline) match(pe *ProducerError, final bool) bool {
	pe.Match, pe.Election, pe.Lag = MatchNone, nil, 0
	if !pe.Leadership {
		pe.Match = MatchOther
		return true
	}
	tol, stale := t.cfg.SkewTolerance, t.cfg.StaleWindow
	var f found
	switch {
	case pe.Partition != Unknown:
		if ps := t.parts[TP{pe.Topic, pe.Partition}]; ps != nil {
			f = ps.idx.lookup(pe.Time, tol, stale, false)
			if f.during == nil && f.after == nil {
				t.matchRecent(pe, ps)
				return true
			}
		}
	case len(pe.Candidates) > 0:
		for _, p := range pe.Candidates {
			ps := t.parts[TP{pe.Topic, p}]
			if ps == nil {
				continue
			}
			f = merge(f, ps.idx.lookup(pe.Time, tol, stale, false))
		}
	default:
		if bt := t.byTopic[pe.Topic]; bt != nil {
			f = bt.lookup(pe.Time, tol, stale, true)
		}
	}
	if !final && t.cfg.SettleErrors && f.during == nil && f.after != nil && t.watermark.Sub(f.after.LastActivity) < t.cfg.Quiet &&
		t.watermark.Sub(pe.Time) < t.cfg.Quiet {
		// (At most --quiet of log time: an epoch that keeps logging does
		// not hold its errors, and memory, for ever.)
		return false
	}
	switch {
	case f.during != nil:
		pe.Match = MatchDuring
		if !f.moreDuring {
			k := f.during.Key
			pe.Election = &k
			f.during.ProducerErrors++
		}
	case f.after != nil:
		pe.Match = MatchAfter
		pe.Lag = pe.Time.Sub(f.after.matchEnd())
		if !f.moreAfter {
			k := f.after.Key
			pe.Election = &k
			f.after.ProducerErrors++
		}
	}
	return true
}

// merge combines what the candidate partitions' indexes found: an error
// two of them explain names no election.
func merge(a, b found) found {
	switch {
	case b.during != nil:
		if a.during != nil {
			a.moreDuring = true
			return a
		}
		b.moreDuring = b.moreDuring || a.moreDuring
		return b
	case a.during != nil:
		return a
	case b.after != nil:
		if a.after != nil {
			if b.after.End.After(a.after.End) {
				a.after = b.after
			}
			a.moreAfter = true
			return a
		}
		return b
	}
	return a
}

// matchRecent: elections of the partition already handed over (live
// views hand them over after --quiet, before the stale window is over).
func (t *Timeline) matchRecent(pe *ProducerError, ps *partState) {
	tol := t.cfg.SkewTolerance
	var recentDuring, recentAfter *finished
	for i := range ps.recent {
		f := &ps.recent[i]
		start, end := electionTimes(f.Start, f.End)
		if !pe.Time.Before(start.Add(-tol)) && !pe.Time.After(end.Add(tol)) {
			recentDuring = f
		} else if end.Add(tol).Before(pe.Time) && pe.Time.Sub(end) <= t.cfg.StaleWindow {
			recentAfter = f
		}
	}
	switch {
	case recentDuring != nil:
		pe.Match = MatchDuring
		k := recentDuring.Key
		pe.Election = &k
	case recentAfter != nil:
		pe.Match = MatchAfter
		k := recentAfter.Key
		pe.Election = &k
		_, end := electionTimes(recentAfter.Start, recentAfter.End)
		pe.Lag = pe.Time.Sub(end)
	}
}
