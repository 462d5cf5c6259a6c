package timeline

import (
	"slices"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

// How finished elections group into bursts (InBurst, Burst.Joins): one
// row per rule, each election given as its start (ms), cause and whether
// it was re-sent; want is the burst sizes in order.
func TestBurstGrouping(t *testing.T) {
	const cs, bf = parser.CauseControlledShutdown, parser.CauseBrokerFailure
	type el struct {
		ms     int
		cause  parser.Cause
		resent bool
	}
	for _, c := range []struct {
		name string
		els  []el
		want []int
	}{
		{"one cause, each within the gap of the last: one burst", []el{{0, cs, false}, {800, cs, false}, {1600, cs, false}}, []int{3}},
		{"the gap is measured from the latest start, not the first", []el{{0, cs, false}, {900, cs, false}, {1800, cs, false}, {2700, cs, false}}, []int{4}},
		{"a start more than the gap after the latest: a new burst", []el{{0, cs, false}, {1001, cs, false}}, []int{1, 1}},
		{"exactly the gap still joins", []el{{0, cs, false}, {1000, cs, false}}, []int{2}},
		{"another cause: a new burst", []el{{0, cs, false}, {10, bf, false}, {20, bf, false}}, []int{1, 2}},
		{"a re-sent election neither joins nor splits", []el{{0, cs, false}, {10, cs, true}, {20, cs, false}}, []int{2}},
		{"finished out of start order, within the gap before the first: joins", []el{{500, cs, false}, {0, cs, false}}, []int{2}},
		{"more than the gap before the first: a new burst", []el{{2000, cs, false}, {500, cs, false}}, []int{1, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The rule as the timeline applies it, one election after the
			// other in the order they are finished.
			col := &collect{}
			tl := New(Config{}, col)
			for i, x := range c.els {
				e := &Episode{Key: Key{"t", int32(i), 5}, Cause: x.cause, Start: at(x.ms), End: at(x.ms + 5), Transition: true, Resent: x.resent}
				if InBurst(e) {
					tl.addToBurst(e)
				}
			}
			tl.flushBurst()
			var got []int
			for _, b := range col.bursts {
				got = append(got, b.Episodes)
				if b.Episodes != len(b.Durations) || b.SlowestDur != 5*time.Millisecond {
					t.Errorf("burst %+v", b)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("bursts %v, want %v", got, c.want)
			}
		})
	}
}
