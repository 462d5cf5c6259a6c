package timeline

import (
	"time"
)

// A timer is a decision the timeline owes once log time passes due: a held
// fetcher line released a second after it was logged, a request closed
// when it has been quiet for Config.Quiet. They run before the first event
// past their due time, not when a sweep happens to come by, so that what
// they decide (which election a held line joins, whether a request's
// times reach a partition before or after that partition's own lines)
// follows the lines alone.
type timer struct {
	// due, as seconds and nanoseconds since 1970: the heap compares it
	// at every step, and two integers compare faster than a time.Time.
	sec  int64
	nsec int32
	seq  uint64 // ties in the order they were set
	held fetchKey
	at   time.Time // the held line's time, to tell it from a later one
	rq   *request
}

// timers is a binary min-heap by (due, seq). It is written out rather than
// used through container/heap: that boxes every timer pushed and popped in
// an interface, an allocation per held fetcher line and per request. The
// order (due, then seq) is total, so the timers come out in the same order
// whatever the heap's layout.
type timers []timer

func (h timers) less(i, j int) bool {
	a, b := &h[i], &h[j]
	if a.sec != b.sec {
		return a.sec < b.sec
	}
	if a.nsec != b.nsec {
		return a.nsec < b.nsec
	}
	return a.seq < b.seq
}

// before: the timer is due before t.
func (tm *timer) before(sec int64, nsec int32) bool {
	return tm.sec < sec || tm.sec == sec && tm.nsec < nsec
}

func (h *timers) push(tm timer) {
	*h = append(*h, tm)
	q := *h
	for j := len(q) - 1; j > 0; {
		i := (j - 1) / 2
		if !q.less(j, i) {
			break
		}
		q[i], q[j] = q[j], q[i]
		j = i
	}
}

func (h *timers) pop() timer {
	q := *h
	n := len(q) - 1
	top := q[0]
	q[0] = q[n]
	q[n] = timer{} // drop the request pointer and topic for the collector
	q = q[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		if r := l + 1; r < n && q.less(r, l) {
			j = r
		}
		if !q.less(j, i) {
			break
		}
		q[i], q[j] = q[j], q[i]
		i = j
	}
	*h = q
	return top
}

func (t *Timeline) setTimer(due time.Time, tm timer) {
	tm.sec, tm.nsec = due.Unix(), int32(due.Nanosecond())
	t.timerSeq++
	tm.seq = t.timerSeq
	t.timers.push(tm)
}

// runTimers runs the timers due before now.
func (t *Timeline) runTimers(now time.Time) {
	sec, nsec := now.Unix(), int32(now.Nanosecond())
	for len(t.timers) > 0 && t.timers[0].before(sec, nsec) {
		tm := t.timers.pop()
		switch {
		case tm.rq != nil:
			rq := tm.rq
			if rq.closed || t.reqs[srcBroker{rq.source, rq.brokerID}] != rq {
				continue
			}
			if due := rq.last.Add(t.cfg.Quiet); due.Before(now) {
				t.closeRequest(rq)
			} else {
				t.setTimer(due, timer{rq: rq})
			}
		default:
			h := t.fetchHeld[tm.held]
			if h == nil || !h.ev.Time.Equal(tm.at) {
				continue
			}
			held := t.unhold(h)
			t.releaseHeld(held.ref.Source, held)
		}
	}
}
