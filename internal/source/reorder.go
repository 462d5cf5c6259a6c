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
// The events are held in a ring that grows to the bound and no further (a
// slice compacted now and then kept up to twice the events held, 1,100
// logs' worth of it a third of the read budget).
type reorder struct {
	// max bounds the events held (reorderMax if 0).
	max      int
	q        []Item // the ring: n events from head
	head, n  int
	newest   time.Time // newest time pushed
	released time.Time // time of the last event released
	any      bool
}

// at is the i-th event held, oldest first.
func (b *reorder) at(i int) *Item {
	j := b.head + i
	if j >= len(b.q) {
		j -= len(b.q)
	}
	return &b.q[j]
}

func (b *reorder) limit() int {
	if b.max <= 0 {
		return reorderMax
	}
	return b.max
}

// grow makes room for one more event: the ring doubles, up to one more
// than the bound (what a push holds before it releases).
func (b *reorder) grow() {
	q := make([]Item, min(max(2*len(b.q), 4), b.limit()+1))
	for i := range b.n {
		q[i] = *b.at(i)
	}
	b.q, b.head = q, 0
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
	if b.n == len(b.q) {
		b.grow()
	}
	pos := b.n
	if b.n > 0 && t.Before(b.at(b.n-1).Ev.Time) {
		// Upper bound: after every held event at or before t.
		lo, hi := 0, b.n
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if t.Before(b.at(m).Ev.Time) {
				hi = m
			} else {
				lo = m + 1
			}
		}
		pos = lo
		for i := b.n; i > pos; i-- {
			*b.at(i) = *b.at(i - 1)
		}
		moved = true
	}
	it := b.at(pos)
	*it = Item{Src: src, Ev: *ev}
	it.Ev.Time = t
	b.n++
	if t.After(b.newest) {
		b.newest = t
	}
	cut := b.newest.Add(-ReorderWindow)
	limit := b.limit()
	for b.n > 0 && (!b.at(0).Ev.Time.After(cut) || b.n > limit) {
		b.release(out)
	}
	return moved, false
}

func (b *reorder) release(out func(*Item)) {
	it := &b.q[b.head]
	b.released, b.any = it.Ev.Time, true
	out(it)
	*it = Item{}
	b.head++
	if b.head == len(b.q) {
		b.head = 0
	}
	b.n--
}

// flush releases everything held, and the ring with it.
func (b *reorder) flush(out func(*Item)) {
	for b.n > 0 {
		b.release(out)
	}
	b.q, b.head = nil, 0
}
