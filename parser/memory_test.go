package parser

import (
	"runtime"
	"testing"
	"time"
)

// maxParserBytes bounds the heap one New takes: a follow of 20,000 files
// keeps a parser per file for the lines still to come, so what a parser
// holds before it reads a line is paid 20,000 times (issue 17).
const maxParserBytes = 2048

// TestParserHeapPerNew measures the heap 1,000 News hold after a
// collection.
func TestParserHeapPerNew(t *testing.T) {
	const n = 1000
	keep := make([]*Parser, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range keep {
		keep[i] = New(time.UTC)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	runtime.KeepAlive(keep)
	t.Logf("%d bytes of heap per New", per)
	if raceEnabled {
		return
	}
	if per > maxParserBytes {
		t.Errorf("a New holds %d bytes of heap, want at most %d", per, maxParserBytes)
	}
}
