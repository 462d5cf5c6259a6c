package skew

import (
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
