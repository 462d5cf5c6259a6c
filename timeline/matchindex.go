package timeline

import (
	"time"
)

// matchIndex holds the open episodes of one partition (or of one topic) in
// Start order, with the running maximum of End, so that matching a
// producer error looks at the few episodes around its time instead of
// every open one: an error's cost does not grow with the number of open
// elections (10,000 partitions moved by one request, or 40,000 epochs of
// one partition inside --quiet).
//
// The slots are kept in a treap (a binary search tree by position,
// balanced by random priorities) and not in an array: an episode that
// starts before those already indexed (a file whose times go back by more
// than the reorder hold, as a log that wraps each minute does) is placed
// among them in log n steps, where the array moved every later slot and
// recomputed its maximum of End, which made such a file quadratic.
//
// What the index answers is exactly what the array answered
// (matchindex_flat_test.go keeps the array, and TestTreeEqualsFlatIndex
// compares the two on random operations), because the answers of lookup
// depend on its rules and not only on the open episodes:
//   - a removed episode leaves a dead slot, and its End still counts in
//     the maximum until a recompute passes over it;
//   - an episode moves down only when its Start is older than the slot
//     just below it, and then over dead slots too;
//   - the slots from where an episode was put are recomputed: their End
//     is counted afresh, a dead one's no more;
//   - among slots whose End is the maximum, the one that reached it first
//     is the one the maximum names (the array kept the earlier position's
//     arg unless a later End was strictly greater). Each slot keeps the
//     stamp of when its End was last counted to decide that.
type matchIndex struct {
	root *matchSlot
	// clock stamps each recompute and each End that grows (and seeds the
	// priorities).
	clock uint64
	// steps counts the slots visited, for the test that keeps the cost
	// of an operation logarithmic (it may wrap in a long watch).
	steps uint32
}

// matchSlot: two per open episode (its partition's index and its topic's),
// so it is kept small: End as seconds and nanoseconds (12 bytes, where a
// time.Time takes 24), a 16-bit priority.
type matchSlot struct {
	ep       *Episode // nil: a dead slot
	l, r, up *matchSlot
	// Of the subtree: best, the slot the maximum of End names (greatest
	// end, then earliest stamp, then leftmost) and its stamp; liveBest,
	// the leftmost greatest end among live slots (what best becomes once
	// a recompute passes); first, the live slot with the earliest Start.
	best, liveBest, first *matchSlot
	// sec, nsec: the End this slot counts in the maximum, since 1970.
	sec       int64
	stamp     uint64
	bestStamp uint64
	size      int32 // slots in the subtree
	live      int32 // of them, not dead
	nsec      int32
	prio      uint16
	// pending: a recompute with stamp, applied to this slot and its
	// aggregates but not yet to its children.
	pending bool
}

func (n *matchSlot) setEnd(t time.Time) { n.sec, n.nsec = t.Unix(), int32(t.Nanosecond()) }
func (n *matchSlot) end() time.Time     { return time.Unix(n.sec, int64(n.nsec)) }
func (n *matchSlot) endsAfter(o *matchSlot) bool {
	return n.sec > o.sec || n.sec == o.sec && n.nsec > o.nsec
}
func (n *matchSlot) endsWith(o *matchSlot) bool { return n.sec == o.sec && n.nsec == o.nsec }

// which index of an episode: its partition's or its topic's.
const (
	byPartition = 0
	byTopic     = 1
)

func size(n *matchSlot) int {
	if n == nil {
		return 0
	}
	return int(n.size)
}

func liveIn(n *matchSlot) int {
	if n == nil {
		return 0
	}
	return int(n.live)
}

// outranks: n's End with stamp names the maximum over best's with
// bestStamp.
func outranks(n *matchSlot, stamp uint64, best *matchSlot, bestStamp uint64) bool {
	return best == nil || n.endsAfter(best) || n.endsWith(best) && stamp < bestStamp
}

func earlier(a, b *matchSlot) bool {
	return b == nil || a.ep.matchStart().Before(b.ep.matchStart())
}

// pull recomputes n's aggregates from its children's.
func pull(n *matchSlot) {
	n.size, n.live = 1, 0
	n.best, n.bestStamp, n.liveBest, n.first = nil, 0, nil, nil
	if l := n.l; l != nil {
		l.up = n
		n.size += l.size
		n.live += l.live
		n.best, n.bestStamp, n.liveBest, n.first = l.best, l.bestStamp, l.liveBest, l.first
	}
	if outranks(n, n.stamp, n.best, n.bestStamp) {
		n.best, n.bestStamp = n, n.stamp
	}
	if n.ep != nil {
		n.live++
		if n.liveBest == nil || n.endsAfter(n.liveBest) {
			n.liveBest = n
		}
		if earlier(n, n.first) {
			n.first = n
		}
	}
	if r := n.r; r != nil {
		r.up = n
		n.size += r.size
		n.live += r.live
		if r.best.endsAfter(n.best) || r.best.endsWith(n.best) && r.bestStamp < n.bestStamp {
			n.best, n.bestStamp = r.best, r.bestStamp
		}
		if r.liveBest != nil && (n.liveBest == nil || r.liveBest.endsAfter(n.liveBest)) {
			n.liveBest = r.liveBest
		}
		if r.first != nil && earlier(r.first, n.first) {
			n.first = r.first
		}
	}
}

// recount is the array's recompute over the subtree n: every live slot's
// End counted afresh with stamp, dead ones no more.
func recount(n *matchSlot, stamp uint64) {
	if n == nil {
		return
	}
	n.stamp, n.pending = stamp, true
	if n.ep == nil {
		n.setEnd(time.Time{})
	}
	n.best, n.bestStamp = n.liveBest, stamp
	if n.best == nil {
		n.best = n
	}
}

func (x *matchIndex) push(n *matchSlot) {
	if n.pending {
		recount(n.l, n.stamp)
		recount(n.r, n.stamp)
		n.pending = false
	}
}

// split cuts n into its first k slots and the rest.
func (x *matchIndex) split(n *matchSlot, k int) (*matchSlot, *matchSlot) {
	if n == nil {
		return nil, nil
	}
	x.steps++
	x.push(n)
	if k <= size(n.l) {
		a, b := x.split(n.l, k)
		n.l = b
		pull(n)
		return a, n
	}
	a, b := x.split(n.r, k-size(n.l)-1)
	n.r = a
	pull(n)
	return n, b
}

func (x *matchIndex) join(a, b *matchSlot) *matchSlot {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	x.steps++
	if a.prio > b.prio {
		x.push(a)
		a.r = x.join(a.r, b)
		pull(a)
		return a
	}
	x.push(b)
	b.l = x.join(a, b.l)
	pull(b)
	return b
}

func (x *matchIndex) setRoot(n *matchSlot) {
	if n != nil {
		n.up = nil
	}
	x.root = n
}

func (x *matchIndex) stamp() uint64 {
	x.clock++
	return x.clock
}

// lastNotAfter is the position of the last live slot of n whose Start is
// not after s, or -1.
func (x *matchIndex) lastNotAfter(n *matchSlot, s time.Time) int {
	base := 0
	for n != nil && n.first != nil && !n.first.ep.matchStart().After(s) {
		x.steps++
		if r := n.r; r != nil && r.first != nil && !r.first.ep.matchStart().After(s) {
			base += size(n.l) + 1
			n = r
			continue
		}
		if n.ep != nil && !n.ep.matchStart().After(s) {
			return base + size(n.l)
		}
		n = n.l
	}
	return -1
}

// place puts e in the tree rest (every slot but e's) where the array's
// sink put it: above the last live slot of the first i that starts no
// later, over the dead and later-starting ones above that. From there on
// the slots are recomputed.
func (x *matchIndex) place(n *matchSlot, rest *matchSlot, i int) {
	below, above := x.split(rest, i)
	low, high := x.split(below, x.lastNotAfter(below, n.ep.matchStart())+1)
	n.setEnd(n.ep.matchEnd())
	pull(n)
	tail := x.join(n, x.join(high, above))
	recount(tail, x.stamp())
	x.setRoot(x.join(low, tail))
}

func (x *matchIndex) add(e *Episode, w int) {
	n := &matchSlot{ep: e, stamp: x.stamp()}
	// splitmix64's finaliser: a random-enough priority from the clock.
	z := n.stamp * 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	n.prio = uint16((z ^ z>>31) >> 48)
	n.setEnd(e.matchEnd())
	e.mi[w] = n
	last := x.root
	for last != nil && last.r != nil {
		x.steps++
		last = last.r
	}
	if last == nil || last.ep != nil && !e.matchStart().Before(last.ep.matchStart()) {
		// In Start order, the usual case: the array appended it and
		// recomputed its slot alone. One walk down the right edge.
		pull(n)
		x.setRoot(x.join(x.root, n))
		return
	}
	x.place(n, x.root, size(x.root))
}

// position of n, walking up (no stamps are read).
func (x *matchIndex) position(n *matchSlot) int {
	p := size(n.l)
	for ; n.up != nil; n = n.up {
		x.steps++
		if n.up.r == n {
			p += size(n.up.l) + 1
		}
	}
	return p
}

// before is the slot just before n (no stamps are read).
func (x *matchIndex) before(n *matchSlot) *matchSlot {
	if p := n.l; p != nil {
		for ; p.r != nil; p = p.r {
			x.steps++
		}
		return p
	}
	for ; n.up != nil; n = n.up {
		x.steps++
		if n.up.r == n {
			return n.up
		}
	}
	return nil
}

// pushTo hands every pending recompute down to n.
func (x *matchIndex) pushTo(n *matchSlot) {
	if n.up != nil {
		x.pushTo(n.up)
	}
	x.steps++
	x.push(n)
}

// pullFrom recomputes the aggregates from n up.
func (x *matchIndex) pullFrom(n *matchSlot) {
	for ; n != nil; n = n.up {
		x.steps++
		pull(n)
	}
}

// moved: e's Start or End changed.
func (x *matchIndex) moved(e *Episode, w int) {
	n := e.mi[w]
	if n == nil || n.ep != e {
		return
	}
	if p := x.before(n); p != nil && p.ep != nil && e.matchStart().Before(p.ep.matchStart()) {
		// Started earlier than it seemed (a line logged before its
		// first one): move it down to its place.
		i := x.position(n)
		below, rest := x.split(x.root, i)
		_, above := x.split(rest, 1)
		n.l, n.r = nil, nil
		x.place(n, x.join(below, above), i)
		return
	}
	x.pushTo(n)
	grew := false
	if end := e.matchEnd(); end.After(n.end()) {
		n.setEnd(end)
		n.stamp = x.stamp()
		grew = true
	}
	x.fixFrom(n, grew)
}

// fixFrom is pullFrom(n) after n's End grew (grew) or its Start moved
// earlier without leaving its place, done as far up as n counts: a line
// extending an election moved it, and recomputing every ancestor in full
// was most of what the index cost. Above a slot whose maximum, greatest
// live End and earliest Start are all another slot's, n changes nothing
// (those are over a superset, and beat n there already).
func (x *matchIndex) fixFrom(n *matchSlot, grew bool) {
	x.steps++
	pull(n)
	for c, m := n, n.up; m != nil; c, m = m, m.up {
		if c.best != n && c.liveBest != n && c.first != n {
			return
		}
		x.steps++
		// Of two that tie, pull names the one further left: n is left of
		// m and of m's other side when it comes from m's left, and one
		// that m named from n's own side is one n beat there already.
		other := m.r
		if c == m.r {
			other = m.l
		}
		left := c == m.l
		if grew && c.best == n {
			// n's stamp is the newest: it loses a tie of End.
			switch {
			case m.best == n:
				m.bestStamp = n.stamp
			case n.endsAfter(m.best):
				m.best, m.bestStamp = n, n.stamp
			}
		}
		if w := m.liveBest; grew && c.liveBest == n && w != n {
			if w == nil || n.endsAfter(w) || n.endsWith(w) && (left || w != m && (other == nil || other.liveBest != w)) {
				m.liveBest = n
			}
		}
		if w := m.first; c.first == n && w != n {
			if w == nil || earlier(n, w) || !earlier(w, n) && (left || w != m && (other == nil || other.first != w)) {
				m.first = n
			}
		}
	}
}

func (x *matchIndex) remove(e *Episode, w int) {
	n := e.mi[w]
	if n == nil || n.ep != e {
		return
	}
	x.pushTo(n)
	n.ep = nil
	e.mi[w] = nil
	// As pullFrom(n), but a slot's maximum of End does not change when an
	// episode dies (a dead slot's End counts until a recompute): only the
	// live count changes, and the live aggregates of the slots that named n.
	for m := n; m != nil; m = m.up {
		x.steps++
		if m == n || m.liveBest == n || m.first == n {
			pull(m)
		} else {
			m.live--
		}
	}
	if dead := size(x.root) - liveIn(x.root); dead*2 > size(x.root) && dead > 16 {
		x.setRoot(x.prune(x.root))
		recount(x.root, x.stamp())
	}
}

// prune drops the dead slots of n.
func (x *matchIndex) prune(n *matchSlot) *matchSlot {
	if n == nil {
		return nil
	}
	x.steps++
	x.push(n)
	l, r := x.prune(n.l), x.prune(n.r)
	if n.ep == nil {
		return x.join(l, r)
	}
	n.l, n.r = l, r
	pull(n)
	return n
}

// empty: no live slot.
func (x *matchIndex) empty() bool { return liveIn(x.root) == 0 }

// liveFrom is the first live slot at or after position m, and where it is
// (the number of slots, and nil, if none).
func (x *matchIndex) liveFrom(m int) (int, *matchSlot) {
	if m >= size(x.root) {
		return size(x.root), nil
	}
	c, k := 0, m
	for n := x.root; ; {
		x.steps++
		ls := size(n.l)
		if k < ls {
			n = n.l
			continue
		}
		c += liveIn(n.l)
		if k == ls {
			if n.ep != nil {
				return m, n
			}
			break
		}
		if n.ep != nil {
			c++
		}
		k -= ls + 1
		n = n.r
	}
	// Slot m is dead: the first live one after it is the c-th (from 0).
	if c == liveIn(x.root) {
		return size(x.root), nil
	}
	p := 0
	for n := x.root; ; {
		x.steps++
		ll := liveIn(n.l)
		switch {
		case c < ll:
			n = n.l
		case c == ll && n.ep != nil:
			return p + size(n.l), n
		default:
			c -= ll
			if n.ep != nil {
				c--
			}
			p += size(n.l) + 1
			n = n.r
		}
	}
}

// upto is the number of slots up to the last that started at or before t.
func (x *matchIndex) upto(t time.Time) int {
	lo, hi := 0, size(x.root)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		// A dead slot keeps its place in Start order only loosely: look
		// for the nearest live one to compare.
		k, n := x.liveFrom(m)
		if k >= hi {
			hi = m
			continue
		}
		if n.ep.matchStart().After(t) {
			hi = m
		} else {
			lo = k + 1
		}
	}
	return lo
}

// prefix is the slot at position j and the one the maximum of End over
// positions 0…j names.
func (x *matchIndex) prefix(j int) (slot, best *matchSlot) {
	var bestStamp uint64
	for n := x.root; ; {
		x.steps++
		x.push(n)
		ls := size(n.l)
		if j < ls {
			n = n.l
			continue
		}
		if l := n.l; l != nil && outranks(l.best, l.bestStamp, best, bestStamp) {
			best, bestStamp = l.best, l.bestStamp
		}
		if outranks(n, n.stamp, best, bestStamp) {
			best, bestStamp = n, n.stamp
		}
		if j == ls {
			return n, best
		}
		j -= ls + 1
		n = n.r
	}
}

// found is what one index says about an error at t.
type found struct {
	during, after *Episode
	// more: another election also explains it (topic-wide lookups).
	moreDuring, moreAfter bool
}

// lookup finds the latest-starting election whose window (± tol) covers t
// and, failing that, the latest-ending one that ended before t within
// stale. With all, it also says whether a second one qualifies.
func (x *matchIndex) lookup(t time.Time, tol, stale time.Duration, all bool) found {
	var f found
	lo := t.Add(-tol)
	for j := x.upto(t.Add(tol)) - 1; j >= 0; j-- {
		s, b := x.prefix(j)
		if m := b.end(); m.Before(lo) {
			// Nothing at or below j covers t; the best "after" there is
			// the one that ended at m, if it is still open.
			if f.during != nil || t.Sub(m) > stale {
				break
			}
			if f.after == nil || f.after.matchEnd().Before(m) {
				if a := b.ep; a != nil && a.Transition && a.matchEnd().Equal(m) {
					f.moreAfter = f.moreAfter || f.after != nil
					f.after = a
				}
			}
			if f.after != nil && !f.after.matchEnd().Before(m) && (!all || f.moreAfter) {
				break
			}
		}
		e := s.ep
		if e == nil || !e.Transition || e == f.after {
			continue
		}
		if !e.matchEnd().Before(lo) && !e.matchStart().Add(-tol).After(t) {
			if f.during == nil {
				f.during = e
				if !all {
					break
				}
				continue
			}
			f.moreDuring = true
			break
		}
		if f.during == nil && e.matchEnd().Before(lo) && t.Sub(e.matchEnd()) <= stale {
			switch {
			case f.after == nil:
				f.after = e
			case e.matchEnd().After(f.after.matchEnd()):
				f.after, f.moreAfter = e, true
			default:
				f.moreAfter = true
			}
		}
	}
	return f
}
