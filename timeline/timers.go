package timeline

import (
	"container/heap"
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
	due  time.Time
	seq  uint64 // ties in the order they were set
	held fetchKey
	at   time.Time // the held line's time, to tell it from a later one
	rq   *request
}

type timers []timer

func (h timers) Len() int { return len(h) }
func (h timers) Less(i, j int) bool {
	if !h[i].due.Equal(h[j].due) {
		return h[i].due.Before(h[j].due)
	}
	return h[i].seq < h[j].seq
}
func (h timers) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timers) Push(x any)   { *h = append(*h, x.(timer)) }
func (h *timers) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = timer{}
	*h = old[:len(old)-1]
	return x
}

func (t *Timeline) setTimer(tm timer) {
	t.timerSeq++
	tm.seq = t.timerSeq
	heap.Push(&t.timers, tm)
}

// runTimers runs the timers due before now.
func (t *Timeline) runTimers(now time.Time) {
	for len(t.timers) > 0 && t.timers[0].due.Before(now) {
		tm := heap.Pop(&t.timers).(timer)
		switch {
		case tm.rq != nil:
			rq := tm.rq
			if rq.closed || t.reqs[srcBroker{rq.source, rq.brokerID}] != rq {
				continue
			}
			if due := rq.last.Add(t.cfg.Quiet); due.Before(now) {
				t.closeRequest(rq)
			} else {
				t.setTimer(timer{due: due, rq: rq})
			}
		default:
			h, ok := t.fetchHeld[tm.held]
			if !ok || !h.ev.Time.Equal(tm.at) {
				continue
			}
			delete(t.fetchHeld, tm.held)
			t.releaseHeld(h.ref.Source, h)
		}
	}
}
