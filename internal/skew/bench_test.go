package skew

import (
	"fmt"
	"testing"

	"github.com/leaderaudit/leaderaudit/parser"
)

// BenchmarkEpochs: what the audit feeds the estimator for each election
// of a 3-broker cluster, a controller decision and an epoch line from
// each broker, for 1,000 partitions moved 10 times. Bytes are the
// state-change lines these events come from (about 300 each).
func BenchmarkEpochs(b *testing.B) {
	const parts, rounds, lineBytes = 1000, 10, 300
	var evs []*parser.Event
	var srcs []int
	for r := int32(0); r < rounds; r++ {
		for p := int32(0); p < parts; p++ {
			at := int(r)*60_000 + int(p)
			evs = append(evs, decision("orders", p, r+5, at), applied(2, "orders", p, r+5, at+7), applied(3, "orders", p, r+5, at+12))
			srcs = append(srcs, 0, 1, 2)
		}
	}
	b.SetBytes(int64(len(evs) * lineBytes))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		e := NewEstimator()
		for j, ev := range evs {
			e.Add(srcs[j], ev)
		}
		e.Flush()
		if es := e.Estimate(clocks); es.Corrected() {
			b.Fatal("corrected consistent clocks")
		}
	}
}

// Pairs dropped before their words are made are the ones sample would
// drop: the kept pairs and the counts equal those of sampling every pair
// with its words, on pairs that tie on bound and times (so words decide)
// and pairs that do not, in several orders.
func TestPairsDroppedBeforeWordsAreTheSame(t *testing.T) {
	type in struct {
		k     tp
		epoch int32
		d, a  Point
	}
	var ins []in
	for p := int32(0); p < 40; p++ {
		for src := 1; src <= 3; src++ {
			d := Point{Src: 0, Line: int64(p), Time: ms(int(p % 4)), Node: 1}
			a := Point{Src: src, Line: int64(p), Time: ms(int(p%4) + int(p%3)), Node: int32(src + 1)}
			ins = append(ins, in{tp{"orders", p % 7}, p, d, a})
		}
	}
	for order := 0; order < 4; order++ {
		fast, ref := NewEstimator(), NewEstimator()
		for i := range ins {
			x := ins[(i*(2*order+1)+order*5)%len(ins)]
			fast.pair(x.k, x.epoch, x.d, x.a)
			ref.sample(Sample{Cause: x.d, Effect: x.a, What: pairWhat(x.k, x.epoch, x.d, x.a)})
		}
		if len(fast.pairs) != len(ref.pairs) {
			t.Fatalf("order %d: %d pair keys, want %d", order, len(fast.pairs), len(ref.pairs))
		}
		for pk, l := range ref.pairs {
			if fmt.Sprint(fast.pairs[pk]) != fmt.Sprint(l) || fast.counts[pk] != ref.counts[pk] {
				t.Fatalf("order %d, %v: kept %v (%d counted), want %v (%d)", order, pk, fast.pairs[pk], fast.counts[pk], l, ref.counts[pk])
			}
		}
	}
}
