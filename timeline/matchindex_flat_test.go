package timeline

import "time"

// flatIndex is the match index as it was before the tree (commit f805b36):
// one array in Start order with the prefix maximum of End. Adding an
// episode older than those indexed moved every later one, which made a
// file whose times go back cost quadratic time. It is kept as the
// reference the tree must answer exactly like (TestTreeEqualsFlatIndex).
type flatIndex struct {
	eps []*Episode
	// maxEnd[i]: the latest End of eps[0..i], finished ones included: an
	// upper bound, so it only ever stops a scan where nothing below can
	// match.
	maxEnd []time.Time
	// arg[i]: the position whose End is maxEnd[i].
	arg  []int32
	dead int
	pos  map[*Episode]int32
}

func (x *flatIndex) add(e *Episode, w int) {
	if x.pos == nil {
		x.pos = map[*Episode]int32{}
	}
	n := len(x.eps)
	x.eps = append(x.eps, e)
	x.maxEnd = append(x.maxEnd, time.Time{})
	x.arg = append(x.arg, 0)
	x.recompute(x.sink(n, e, w))
}

// sink moves e, at position i, down to its place in Start order (over dead
// slots) and returns where it now is.
func (x *flatIndex) sink(i int, e *Episode, w int) int {
	for i > 0 && (x.eps[i-1] == nil || e.matchStart().Before(x.eps[i-1].matchStart())) {
		x.eps[i] = x.eps[i-1]
		if x.eps[i] != nil {
			x.pos[x.eps[i]] = int32(i)
		}
		i--
	}
	x.eps[i] = e
	x.pos[e] = int32(i)
	return i
}

// recompute rebuilds maxEnd from position i.
func (x *flatIndex) recompute(i int) {
	for j := i; j < len(x.eps); j++ {
		var m time.Time
		var a int32
		if j > 0 {
			m, a = x.maxEnd[j-1], x.arg[j-1]
		}
		if e := x.eps[j]; e != nil && e.matchEnd().After(m) {
			m, a = e.matchEnd(), int32(j)
		}
		x.maxEnd[j], x.arg[j] = m, a
	}
}

// moved: e's Start or End changed.
func (x *flatIndex) moved(e *Episode, w int) {
	i := int(x.pos[e])
	if i < 0 || i >= len(x.eps) || x.eps[i] != e {
		return
	}
	if i > 0 && x.eps[i-1] != nil && e.matchStart().Before(x.eps[i-1].matchStart()) {
		// Started earlier than it seemed (a line logged before its first
		// one): move it down to its place.
		x.recompute(x.sink(i, e, w))
		return
	}
	for j := i; j < len(x.maxEnd) && x.maxEnd[j].Before(e.matchEnd()); j++ {
		x.maxEnd[j], x.arg[j] = e.matchEnd(), int32(i)
	}
}

func (x *flatIndex) remove(e *Episode, w int) {
	i := int(x.pos[e])
	if i < 0 || i >= len(x.eps) || x.eps[i] != e {
		return
	}
	x.eps[i] = nil
	x.pos[e] = -1
	x.dead++
	if x.dead*2 > len(x.eps) && x.dead > 16 {
		n := 0
		for _, o := range x.eps {
			if o != nil {
				x.eps[n] = o
				x.pos[o] = int32(n)
				n++
			}
		}
		clear(x.eps[n:])
		x.eps, x.maxEnd, x.arg, x.dead = x.eps[:n], x.maxEnd[:n], x.arg[:n], 0
		x.recompute(0)
	}
}

// upto is the number of episodes that started at or before t.
func (x *flatIndex) upto(t time.Time) int {
	lo, hi := 0, len(x.eps)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		// A dead slot keeps its place in Start order only loosely: look
		// for the nearest live one to compare.
		k := m
		for k < hi && x.eps[k] == nil {
			k++
		}
		if k == hi {
			hi = m
			continue
		}
		if x.eps[k].matchStart().After(t) {
			hi = m
		} else {
			lo = k + 1
		}
	}
	return lo
}

// lookup finds the latest-starting election whose window (± tol) covers t
// and, failing that, the latest-ending one that ended before t within
// stale. With all, it also says whether a second one qualifies.
func (x *flatIndex) lookup(t time.Time, tol, stale time.Duration, all bool) found {
	var f found
	lo := t.Add(-tol)
	for j := x.upto(t.Add(tol)) - 1; j >= 0; j-- {
		if m := x.maxEnd[j]; m.Before(lo) {
			// Nothing at or below j covers t; the best "after" there is
			// the one that ended at m, if it is still open.
			if f.during != nil || t.Sub(m) > stale {
				break
			}
			if f.after == nil || f.after.matchEnd().Before(m) {
				if a := x.eps[x.arg[j]]; a != nil && a.Transition && a.matchEnd().Equal(m) {
					f.moreAfter = f.moreAfter || f.after != nil
					f.after = a
				}
			}
			if f.after != nil && !f.after.matchEnd().Before(m) && (!all || f.moreAfter) {
				break
			}
		}
		e := x.eps[j]
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
