package source

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/fdlimit"
	"github.com/leaderaudit/leaderaudit/parser"
)

// Many logs, few descriptors: every file is read whole and the merge is the
// same as with descriptors to spare, gzip and NUL-prefixed files included
// (closed while their readers wait on the merge, reopened at their offset).
// Before the read budget a reader kept its file open from start to end:
// past the limit, opens failed with "too many open files".
func TestManyFilesFewDescriptors(t *testing.T) {
	dir := t.TempDir()
	const files = 60
	for i := range files {
		var b strings.Builder
		for j := range 300 {
			fmt.Fprintf(&b, "[2024-01-01 10:%02d:%02d,%03d] INFO [Broker id=1] Leader t%d-%d starts at leader epoch 1 from offset 0 with high watermark 0 ISR [1] addingReplicas [] removingReplicas []. Previous leader epoch was 0. (state.change.logger)\n", j/60%60, j%60, i, i, j)
			fmt.Fprintf(&b, "[2024-01-01 10:%02d:%02d,%03d] INFO noise line %d of file %d (kafka.server.ReplicaFetcherThread)\n", j/60%60, j%60, i, j, i)
		}
		path := filepath.Join(dir, fmt.Sprintf("b%03d", i), "state-change.log")
		switch i % 3 {
		case 0:
			write(t, path, b.String())
		case 1:
			write(t, path, strings.Repeat("\x00", 1000)+b.String())
		case 2:
			var gz bytes.Buffer
			zw := gzip.NewWriter(&gz)
			zw.Write([]byte(b.String()))
			zw.Close()
			write(t, path+".1.gz", gz.String())
		}
	}
	read := func(fdLimit int) ([]string, *Reader) {
		ins, skipped := Discover([]string{dir}, 0)
		if len(ins) != files || len(skipped) != 0 {
			t.Fatalf("%d inputs, skipped %v", len(ins), skipped)
		}
		rd := NewReader(ins, func(string) *time.Location { return time.UTC })
		rd.fdLimit = fdLimit
		var got []string
		rd.Run(context.Background(), func(src int, ev *parser.Event) {
			got = append(got, fmt.Sprintf("%d %s %s-%d", src, ev.Time.Format(time.StampMilli), ev.Topic, ev.Partition))
		})
		return got, rd
	}
	want, _ := read(1 << 16)
	got, rd := read(fdlimit.Reserve + 3)
	if rd.budget.fds.cap() != 3 {
		t.Fatalf("descriptor slots %d", rd.budget.fds.cap())
	}
	for _, s := range rd.Sources {
		if s.Err != nil || s.Stats.Events != 300 {
			t.Errorf("%s: err %v, %d events", s.Path, s.Err, s.Stats.Events)
		}
	}
	if len(got) != files*300 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%d events with 3 descriptors, %d with many; the merges differ", len(got), len(want))
	}
}

// The budget: with many logs each reader holds less, and never below the
// floors.
func TestBudgetShrinksWithTheLogs(t *testing.T) {
	few, many := newBudget(7, 1024), newBudget(1100, 256)
	if few.batch != batchSize || few.reorder != reorderMax || few.depth != chainDepth || few.bufSize != 256<<10 {
		t.Errorf("7 logs: %+v", few)
	}
	if many.batch != 8 || many.reorder != 16 || many.depth != 0 || many.bufSize != 64<<10 || many.fds.cap() != 256-fdlimit.Reserve || many.bufs.cap() != maxOpen {
		t.Errorf("1100 logs under ulimit -n 256: batch %d reorder %d buf %d fds %d bufs %d", many.batch, many.reorder, many.bufSize, many.fds.cap(), many.bufs.cap())
	}
}

// 1,100 logs read at once stay within the read budget: every reader
// holds its reorder window, a batch in the making and one being merged at
// their floors, and no more. The logs are alike, so every reader meets a
// line with 60 events (a fetcher removed for 60 partitions) and a jump in
// time (its reorder window released in one go) at the same moment of the
// merge. Before, queued batches, reorder slices kept up to twice what they
// held and batches grown to a line's end held about 65 MB live here.
func TestManyFilesHeapWithinTheBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("1,100 files")
	}
	dir := t.TempDir()
	var b strings.Builder
	var parts []string
	for p := range 60 {
		parts = append(parts, fmt.Sprintf("orders-%d", p))
	}
	big := strings.Join(parts, ", ")
	for j := range 240 {
		sec := j / 4
		if j%40 == 39 {
			sec += 2 // a second and more with nothing logged
		}
		fmt.Fprintf(&b, "[2024-01-01 10:%02d:%02d,%03d] INFO [Broker id=1] Leader orders-%d starts at leader epoch %d from offset 0 with high watermark 0 ISR [1] addingReplicas [] removingReplicas []. Previous leader epoch was 0. (state.change.logger)\n", sec/60, sec%60, j%4, j%60, j/60+1)
		if j%20 == 10 {
			fmt.Fprintf(&b, "[2024-01-01 10:%02d:%02d,%03d] INFO [ReplicaFetcherManager on broker 1] Removed fetcher for partitions HashSet(%s) (kafka.server.ReplicaFetcherManager)\n", sec/60, sec%60, j%4, big)
		}
	}
	const files = 1100
	for i := range files {
		write(t, filepath.Join(dir, fmt.Sprintf("b%04d", i), "server.log"), b.String())
	}
	ins, _ := Discover([]string{dir}, 0)
	rd := NewReader(ins, func(string) *time.Location { return time.UTC })
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak uint64
	events := 0
	rd.Run(context.Background(), func(int, *parser.Event) {
		// The live heap now and then: what the readers and the merge
		// hold, collected garbage aside.
		if events++; events%20000 == 0 {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
	})
	if events < files*300 {
		t.Fatalf("%d events", events)
	}
	held := int64(peak) - int64(base.HeapAlloc)
	t.Logf("%d files: %d events, live heap at most %.1f MiB above the start", files, events, float64(held)/(1<<20))
	if held > ReadBudget+8<<20 && !raceEnabled {
		t.Errorf("readers and merge held %.1f MiB; the budget is %d MiB", float64(held)/(1<<20), ReadBudget>>20)
	}
}
