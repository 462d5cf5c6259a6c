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
	per := heapPerParser(func(*Parser) {})
	t.Logf("%d bytes of heap per New", per)
	if !raceEnabled && per > maxParserBytes {
		t.Errorf("a New holds %d bytes of heap, want at most %d", per, maxParserBytes)
	}
}

// A followed state-change.log holds its parser between lines: after its
// line (003, a leader that yields an event) and the Flush live mode gives
// a quiet source, a parser still holds at most maxParserBytes. The event
// being built is not kept, nor a map for the one topic the source named.
func TestParserHeapAfterALine(t *testing.T) {
	line := []byte("[2026-08-08 14:55:03,523] INFO [Broker id=0] Leader handover-test-topic-0 with topic id Some(SobuI6lNTXyPLx0opTXB_A) starts at leader epoch 0 from offset 0 with partition epoch 0, high watermark 0, ISR [0], adding replicas [] and removing replicas [] . Previous leader None and previous leader epoch was -1. (state.change.logger)")
	var events int
	emit := func(*Event) { events++ }
	per := heapPerParser(func(p *Parser) {
		p.Line(line, emit)
		p.Flush(emit)
	})
	if events != parsersMeasured {
		t.Fatalf("%d events from %d parsers, want one each", events, parsersMeasured)
	}
	t.Logf("%d bytes of heap per parser after its line", per)
	if !raceEnabled && per > maxParserBytes {
		t.Errorf("a parser holds %d bytes of heap after its line, want at most %d", per, maxParserBytes)
	}
}

const parsersMeasured = 1000

// heapPerParser is the heap each of parsersMeasured parsers holds after a collection,
// each made by New and given to use.
func heapPerParser(use func(*Parser)) int64 {
	keep := make([]*Parser, parsersMeasured)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range keep {
		keep[i] = New(time.UTC)
		use(keep[i])
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(keep)
	return (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / parsersMeasured
}
