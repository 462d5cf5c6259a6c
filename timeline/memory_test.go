package timeline

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

// A correlation id is kept per source × broker × partition from a
// "received" line until the request's "completed" line or twice
// EmitAfter: 1,100 copies of a dense state-change.log hold about 220,000
// at once. Keyed by source and broker, then by topic string and partition,
// each with its Key and time.Time, they took 25 MB of that audit's 80 MB
// heap (109 bytes each here); as four int32s and three words, 63.
func TestCorrelationIDsKeptCompact(t *testing.T) {
	if raceEnabled {
		t.Skip("heap sizes under -race are not the program's")
	}
	const sources, partitions = 1000, 200
	topics := make([]string, 4)
	for i := range topics {
		topics[i] = fmt.Sprintf("orders-%d", i)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tl := New(Config{}, nil)
	at := time.Date(2024, 3, 11, 10, 0, 5, 0, time.UTC)
	for s := range sources {
		for p := range int32(partitions) {
			ev := parser.Event{Time: at.Add(time.Duration(p) * time.Millisecond), Kind: parser.KindPhase, Phase: parser.PhaseReceived,
				Broker: 1, Topic: topics[p%4], Partition: p, LeaderEpoch: 38, CorrelationID: 5}
			tl.keepCorr(s, &ev, TP{ev.Topic, ev.Partition})
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if n := len(tl.corrs); n != sources*partitions {
		t.Fatalf("%d correlation ids kept, want %d", n, sources*partitions)
	}
	per := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (sources * partitions)
	runtime.KeepAlive(tl)
	if per > 80 {
		t.Errorf("%.0f bytes per correlation id kept, want ≤ 80", per)
	}
	t.Logf("%.0f bytes per correlation id", per)
}
