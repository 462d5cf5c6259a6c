package source

import (
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

// ReorderWindow is how far back in log time a record may be written and
// still be put in its place. Several JVMs appending to one file, or threads
// racing for one appender, write records a few milliseconds out of order;
// the merge needs each log in time order.
const ReorderWindow = 500 * time.Millisecond

// reorderMax bounds the records held: past it the oldest go out anyway.
const reorderMax = 256

// reorder holds a log's events for ReorderWindow of log time and releases
// them in time order (file order among equal times). Records in order, the
// usual case, only append; one out of order is inserted by binary search.
type reorder struct {
	// max bounds the events held (reorderMax if 0).
	max      int
	q        []Item
	head     int
	newest   time.Time // newest time pushed
	released time.Time // time of the last event released
	any      bool
}

// push adds src's event, its time moved back by skew (the source's clock
// offset), and releases what is older than the window. It reports moved
// when it put the event before events already held, late when it came
// after events older than it were released (further out of order than the
// window: it goes out now, in file order).
func (b *reorder) push(src int, ev *parser.Event, skew time.Duration, out func(*Item)) (moved, late bool) {
	t := ev.Time.Add(-skew)
	if b.any && t.Before(b.released) {
		it := Item{Src: src, Ev: *ev}
		it.Ev.Time = t
		out(&it)
		return false, true
	}
	n := len(b.q)
	b.q = append(b.q, Item{Src: src, Ev: *ev})
	b.q[n].Ev.Time = t
	if n > b.head && t.Before(b.q[n-1].Ev.Time) {
		// Upper bound: after every held event at or before t.
		lo, hi := b.head, n
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if t.Before(b.q[m].Ev.Time) {
				hi = m
			} else {
				lo = m + 1
			}
		}
		it := b.q[n]
		copy(b.q[lo+1:], b.q[lo:n])
		b.q[lo] = it
		moved = true
	}
	if t.After(b.newest) {
		b.newest = t
	}
	cut := b.newest.Add(-ReorderWindow)
	limit := b.max
	if limit <= 0 {
		limit = reorderMax
	}
	for b.head < len(b.q) && (!b.q[b.head].Ev.Time.After(cut) || len(b.q)-b.head > limit) {
		b.release(out)
	}
	// Compacted once half is released: the slice stays about twice the
	// events held, not the events ever pushed.
	if b.head >= max(limit/2, 8) && b.head*2 >= len(b.q) {
		b.q = append(b.q[:0], b.q[b.head:]...)
		b.head = 0
	}
	return moved, false
}

func (b *reorder) release(out func(*Item)) {
	it := &b.q[b.head]
	b.released, b.any = it.Ev.Time, true
	out(it)
	b.q[b.head] = Item{}
	b.head++
}

// flush releases everything held.
func (b *reorder) flush(out func(*Item)) {
	for b.head < len(b.q) {
		b.release(out)
	}
	b.q, b.head = b.q[:0], 0
}
