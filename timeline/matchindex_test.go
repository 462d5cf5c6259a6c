package timeline

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
	"time"
)

// slots lists the tree's episodes by position, nil for a dead slot.
func (x *matchIndex) slots() []*Episode {
	var out []*Episode
	var walk func(n *matchSlot)
	walk = func(n *matchSlot) {
		if n == nil {
			return
		}
		walk(n.l)
		out = append(out, n.ep)
		walk(n.r)
	}
	walk(x.root)
	return out
}

// checkAggregates: every slot below no pending recompute holds what pull
// makes of its children (fixFrom updates them in part).
func (x *matchIndex) checkAggregates() error {
	var walk func(n *matchSlot) error
	walk = func(n *matchSlot) error {
		if n == nil || n.pending {
			return nil // its children wait for its recompute
		}
		c := *n
		var lu, ru *matchSlot
		if n.l != nil {
			lu = n.l.up
		}
		if n.r != nil {
			ru = n.r.up
		}
		pull(&c)
		if n.l != nil {
			n.l.up = lu
		}
		if n.r != nil {
			n.r.up = ru
		}
		// Of dead slots ending alike, a recompute may name another than
		// pull would: the same End, stamp and no episode.
		best, nbest := c.best, n.best
		if best == &c {
			best = n
		}
		sameBest := best == nbest || best.ep == nil && nbest.ep == nil && best.endsWith(nbest)
		if !sameBest || c.bestStamp != n.bestStamp ||
			c.liveBest != n.liveBest && !(c.liveBest == &c && n.liveBest == n) ||
			c.first != n.first && !(c.first == &c && n.first == n) || c.size != n.size || c.live != n.live {
			return fmt.Errorf("slot %p: best %p/%d liveBest %p first %p, pull gives %p/%d %p %p", n, n.best, n.bestStamp, n.liveBest, n.first, c.best, c.bestStamp, c.liveBest, c.first)
		}
		if err := walk(n.l); err != nil {
			return err
		}
		return walk(n.r)
	}
	return walk(x.root)
}

// The tree answers what the array answered, on random adds, moves (Start
// earlier, End later, an epoch becoming a transition), removes and
// lookups, with times on a coarse grid so that starts and ends tie, and
// times that go back: slot for slot, the maximum of End and the slot it
// names at every position, and every lookup's answer.
func TestTreeEqualsFlatIndex(t *testing.T) {
	for seed := int64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var tree matchIndex
		var flat flatIndex
		var open []*Episode
		at := func(ms int) time.Time { return benchBase.Add(time.Duration(ms) * time.Millisecond) }
		grid := []int{1, 10, 100}[rng.Intn(3)]
		ops := 50 + rng.Intn(400)
		for op := 0; op < ops; op++ {
			switch r := rng.Intn(10); {
			case r < 4 || len(open) == 0:
				s := rng.Intn(60) * grid
				if rng.Intn(4) == 0 {
					s = rng.Intn(10) * grid // back in time
				}
				e := &Episode{Start: at(s), End: at(s + rng.Intn(5)*grid), Transition: rng.Intn(4) != 0}
				open = append(open, e)
				tree.add(e, byTopic)
				flat.add(e, byTopic)
				if err := tree.checkAggregates(); err != nil {
					t.Fatalf("seed %d op %d: after an add: %v", seed, op, err)
				}
			case r < 7:
				e := open[rng.Intn(len(open))]
				if rng.Intn(2) == 0 {
					e.Start = e.Start.Add(-time.Duration(rng.Intn(4)*grid) * time.Millisecond)
				}
				if rng.Intn(2) == 0 {
					e.End = e.End.Add(time.Duration(rng.Intn(4)*grid) * time.Millisecond)
				}
				if rng.Intn(5) == 0 {
					e.Transition = true
				}
				tree.moved(e, byTopic)
				flat.moved(e, byTopic)
				if err := tree.checkAggregates(); err != nil {
					t.Fatalf("seed %d op %d: after a move: %v", seed, op, err)
				}
			case r < 9:
				i := rng.Intn(len(open))
				e := open[i]
				open = append(open[:i], open[i+1:]...)
				tree.remove(e, byTopic)
				flat.remove(e, byTopic)
				if err := tree.checkAggregates(); err != nil {
					t.Fatalf("seed %d op %d: after a remove: %v", seed, op, err)
				}
			default:
				for k := 0; k < 5; k++ {
					q := at(rng.Intn(80) * grid)
					tol := time.Duration(rng.Intn(3)*grid) * time.Millisecond
					stale := time.Duration(rng.Intn(30)*grid) * time.Millisecond
					all := rng.Intn(2) == 0
					if g, w := tree.lookup(q, tol, stale, all), flat.lookup(q, tol, stale, all); g != w {
						t.Fatalf("seed %d op %d: lookup(%v, %v, %v, %v) = %+v, flat %+v", seed, op, q, tol, stale, all, g, w)
					}
					if g, w := tree.upto(q), flat.upto(q); g != w {
						t.Fatalf("seed %d op %d: upto %d, flat %d", seed, op, g, w)
					}
				}
			}
			if err := sameIndex(&tree, &flat); err != nil {
				t.Fatalf("seed %d op %d: %v", seed, op, err)
			}
		}
	}
}

func sameIndex(tree *matchIndex, flat *flatIndex) error {
	got := tree.slots()
	if dead := size(tree.root) - liveIn(tree.root); len(got) != len(flat.eps) || dead != flat.dead {
		return fmt.Errorf("%d slots (%d dead), flat %d (%d)", len(got), dead, len(flat.eps), flat.dead)
	}
	for j, e := range got {
		if e != flat.eps[j] {
			return fmt.Errorf("slot %d differs", j)
		}
		s, b := tree.prefix(j)
		if s.ep != e {
			return fmt.Errorf("prefix(%d) is another slot", j)
		}
		if m := flat.maxEnd[j]; !b.end().Equal(m) || !m.IsZero() && b.ep != flat.eps[flat.arg[j]] {
			return fmt.Errorf("slot %d: max End %v naming %p, flat %v naming %p", j, b.end(), b.ep, m, flat.eps[flat.arg[j]])
		}
	}
	return nil
}

// wrapping: n episodes of one topic a millisecond apart whose times go
// back to the start every period, as the hostile test's log that wraps
// each minute; period ≥ n is the monotonic shape.
func wrapping(n, period int) []*Episode {
	eps := make([]*Episode, n)
	for i := range eps {
		at := benchBase.Add(time.Duration(i%period) * time.Millisecond)
		eps[i] = &Episode{Start: at, End: at.Add(time.Millisecond), Transition: true}
	}
	return eps
}

// indexSteps is what indexing eps, moving each (End later, every third
// Start older than all), looking an error up after each and removing them
// visit: for the upkeep of the index and for the lookups.
func indexSteps(eps []*Episode) (upkeep, lookups int) {
	var x matchIndex
	for _, e := range eps {
		x.add(e, byTopic)
	}
	for i, e := range eps {
		e.End = e.End.Add(time.Millisecond)
		if i%3 == 0 {
			e.Start = e.Start.Add(-time.Second)
		}
		x.moved(e, byTopic)
	}
	for _, e := range eps {
		x.remove(e, byTopic)
	}
	upkeep = int(x.steps)
	for _, e := range eps {
		x.add(e, byTopic)
	}
	x.steps = 0
	for _, e := range eps {
		x.lookup(e.End.Add(time.Millisecond), 0, time.Minute, false)
	}
	return upkeep, int(x.steps)
}

// The cost of an operation stays logarithmic whatever the order of the
// starts, counted in slots visited, not in time: n and 8n episodes in Start
// order and wrapping back every n/2. Adding, moving and removing an
// episode walk the tree a few times (about 2 ln n nodes each); a lookup
// binary-searches positions as the array did, each probe a walk (log² n).
// The array moved n/4 slots per add for the wrapping shape; a tree whose
// balance is lost (priorities all equal) fails here too.
func TestMatchIndexStepsAreNLogN(t *testing.T) {
	for _, n := range []int{6_250, 50_000} {
		for _, period := range []int{n, n / 2} {
			upkeep, lookups := indexSteps(wrapping(n, period))
			lg := math.Log2(float64(n))
			perOp := float64(upkeep) / float64(3*n) / lg
			perLookup := float64(lookups) / float64(n) / (lg * lg)
			t.Logf("n=%d period=%d: %.1f log2 n steps per add, move or remove; %.2f log2² n per lookup", n, period, perOp, perLookup)
			if perOp > 6 || perLookup > 3 {
				t.Errorf("n=%d period=%d: %.1f log2 n steps per add, move or remove; %.2f log2² n per lookup", n, period, perOp, perLookup)
			}
		}
	}
}
