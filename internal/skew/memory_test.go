package skew

import (
	"runtime"
	"testing"
)

// A thousand sources that each name every epoch of a hundred partitions
// (copies of one broker's state-change.log, or a thousand brokers): the
// estimator's memory must not hold a line per source for each of the
// last epochs it keeps. With 48-byte Points for those it held 25 MB here
// (and 25 MB of a 146 MB audit of 1,100 copies of a dense 3 MB
// state-change.log); with source ids, 8.4 MB, most of it the current
// epoch's lines.
func TestPastEpochsKeepSourcesNotLines(t *testing.T) {
	if raceEnabled {
		t.Skip("heap sizes under -race are not the program's")
	}
	const sources, partitions, epochs = 1000, 100, 6
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	e := NewEstimator()
	at := 0
	for ep := int32(1); ep <= epochs; ep++ {
		for p := int32(0); p < partitions; p++ {
			at += 10
			e.Add(0, decision("orders", p, ep, at))
			for s := 1; s <= sources; s++ {
				e.Add(s, applied(int32(s%3+1), "orders", p, ep, at+5))
			}
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	runtime.KeepAlive(e)
	// The current epoch's lines (a Point per source and partition, 4.8 MB)
	// and the pairs' samples are the rest.
	if held > 12<<20 {
		t.Errorf("the estimator holds %d MB for %d sources × %d partitions", held>>20, sources, partitions)
	}
	t.Logf("held %.1f MB", float64(held)/(1<<20))
}

// The epoch in hand keeps the earliest line of each source that applied
// it until the next epoch or the end: with every source applying every
// epoch (1,100 copies of a dense state-change.log: 9 MB), a 48-byte Point
// each was 57 bytes per applier here; the zone-less applier, 41.
func TestCurrentEpochKeepsCompactAppliers(t *testing.T) {
	if raceEnabled {
		t.Skip("heap sizes under -race are not the program's")
	}
	const sources, partitions = 1000, 200
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	e := NewEstimator()
	for p := int32(0); p < partitions; p++ {
		e.Add(0, decision("orders", p, 7, int(p)))
		for s := 1; s <= sources; s++ {
			e.Add(s, applied(int32(s%3+1), "orders", p, 7, int(p)+5))
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (sources * partitions)
	runtime.KeepAlive(e)
	if per > 50 {
		t.Errorf("%.0f bytes per applier of the epoch in hand, want ≤ 50", per)
	}
	t.Logf("%.0f bytes per applier", per)
}
