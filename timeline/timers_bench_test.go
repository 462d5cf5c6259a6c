package timeline

import (
	"github.com/leaderaudit/leaderaudit/parser"
	"strconv"
	"strings"
	"testing"
)

// heldFetchers: rounds of a leader move of n partitions as 2.6+ INFO logs
// it (sample 029's "Removed fetcher for partitions Set(...)" in server.log
// before the state-change "starts at leader epoch" lines of sample 003):
// every partition's fetcher line is held until the broker's epoch line
// for it, and a timer is set for each, which is the path of every
// epoch-less fetcher line in the bench sets.
func heldFetchers(n, rounds int) []src {
	var server, state []string
	parts := make([]string, n)
	for p := range parts {
		parts[p] = "orders-" + strconv.Itoa(p)
	}
	set := "Set(" + strings.Join(parts, ", ") + ")"
	for r := 0; r < rounds; r++ {
		t := int64(r) * 60_000
		ep := strconv.Itoa(r + 5)
		server = append(server, stamp(t)+" INFO [ReplicaFetcherManager on broker 1] Removed fetcher for partitions "+set+" (kafka.server.ReplicaFetcherManager)")
		for p := 0; p < n; p++ {
			state = append(state, stamp(t+1+int64(p/100))+" INFO [Broker id=1] Leader "+parts[p]+" with topic id Some(SobuI6lNTXyPLx0opTXB_A) starts at leader epoch "+ep+" from offset 0 with partition epoch "+ep+", high watermark 0, ISR [1,2], adding replicas [] and removing replicas [] . Previous leader Some(2) and previous leader epoch was "+strconv.Itoa(r+4)+". (state.change.logger)")
		}
	}
	return []src{{0, server}, {1, state}}
}

func BenchmarkHeldFetchers(b *testing.B) {
	benchShape(b, heldFetchers(1000, 20))
}

// The shape's answer: one election per partition and round, the held
// fetcher line joined to it rather than orphaned.
func TestHeldFetchersShape(t *testing.T) {
	items, _ := parseSources(heldFetchers(50, 4))
	s := &stoppedSink{}
	tl := New(Config{}, s)
	for i := range items {
		tl.Add(items[i].src, &items[i].ev)
	}
	tl.Close()
	if s.eps != 200 || s.stopped != 200 || tl.Stats.Orphans != 0 {
		t.Fatalf("%d elections, %d with broker 1's fetchers stopped, %d orphans; want 200, 200, 0", s.eps, s.stopped, tl.Stats.Orphans)
	}
}

type stoppedSink struct {
	countSink
	stopped int
}

func (s *stoppedSink) Episode(e *Episode) {
	s.eps++
	for _, bt := range e.Brokers {
		if bt.Broker == 1 && !bt.Phases[parser.PhaseStoppedFetchers].IsZero() {
			s.stopped++
		}
	}
}
