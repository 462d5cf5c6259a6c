package source

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

// The 2.6+ "starts at leader epoch" shape TestReaderMergeAndTruncatedGzip uses.
const leaderLine = "[2024-01-01 10:00:01,000] INFO [Broker id=1] Leader t-1 starts at leader epoch 1 from offset 0 with high watermark 0 ISR [1] addingReplicas [] removingReplicas []. Previous leader epoch was 0. (state.change.logger)\n"

// Ctrl-C part way through a file: Run returns only once its readers have
// stopped writing their sources, so what the report reads of them after
// Run (Stats, Err, Bytes) is theirs alone. Under go test -race this failed
// while readChain ran without the wait group.
func TestRunWaitsForReadersOnInterrupt(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "state-change.log"), strings.Repeat(leaderLine, 50000))
	ins, _ := Discover([]string{dir}, 0)
	rd := NewReader(ins, func(string) *time.Location { return time.UTC })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	rd.Run(ctx, func(int, *parser.Event) {
		if n++; n == 1 {
			cancel()
		}
	})
	s := rd.Sources[0]
	if !errors.Is(s.Err, ErrInterrupted) || s.Bytes <= 0 || s.Stats.Lines <= 0 || !s.Read {
		t.Errorf("after an interrupt: err %v, %d bytes, %d lines", s.Err, s.Bytes, s.Stats.Lines)
	}
	// Everything parsed before the interrupt reached the merge (it used to
	// stop at the first event after it).
	if int64(n) != s.Stats.Events || n < 2 {
		t.Errorf("merged %d events of the %d parsed", n, s.Stats.Events)
	}
	if !strings.Contains(s.Err.Error(), "of 10750000)") {
		t.Errorf("error does not say how much of the file was read: %v", s.Err)
	}
}

// Ctrl-C with a quiet pipe among the inputs: the pipe's few lines (fewer
// than a batch) and every other file are audited whole, each source saying
// how far it was read. Before, the merge waited for a first batch from the
// pipe and the interrupt discarded everything: 0 events.
func TestInterruptWithAQuietPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "state-change.log")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	other := filepath.Join(dir, "b1", "state-change.log")
	write(t, other, strings.Repeat(leaderLine, 1000))
	rd := NewReader([]Input{{Path: fifo, Chain: "a"}, {Path: other, Chain: "b", Size: int64(1000 * len(leaderLine))}}, func(string) *time.Location { return time.UTC })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	got := map[int]int{}
	go func() {
		defer close(done)
		rd.Run(ctx, func(src int, _ *parser.Event) { got[src]++ })
	}()
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.WriteString(strings.Repeat(leaderLine, 5))
	// The file is read whole meanwhile; its reader then waits on the
	// merge, which waits on the pipe.
	time.Sleep(300 * time.Millisecond)
	cancel()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after the interrupt")
	}
	if got[0] != 5 || got[1] != 1000 {
		t.Errorf("merged %d events of the pipe's 5 and %d of the file's 1000", got[0], got[1])
	}
	if s := rd.Sources[0]; !errors.Is(s.Err, ErrInterrupted) || s.Stats.Lines != 5 {
		t.Errorf("pipe: err %v, %d lines", s.Err, s.Stats.Lines)
	}
	if s := rd.Sources[1]; s.Err != nil || s.Stats.Lines != 1000 || s.Stats.Events != 1000 {
		t.Errorf("file read whole: err %v, %d lines, %d events", s.Err, s.Stats.Lines, s.Stats.Events)
	}
}

// A FIFO whose writer stays open does not hold Run up once ctx is done,
// and the interrupted read is not reported as the file's error.
func TestRunInterruptsABlockedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "state-change.log")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	rd := NewReader([]Input{{Path: fifo}}, func(string) *time.Location { return time.UTC })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	got := make(chan struct{}, 1)
	go func() {
		defer close(done)
		rd.Run(ctx, func(int, *parser.Event) {
			select {
			case got <- struct{}{}:
			default:
			}
		})
	}()
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// Enough lines for a batch to reach the merge; the writer stays open.
	w.WriteString(strings.Repeat(leaderLine, 2*batchSize))
	select {
	case <-got:
	case <-time.After(20 * time.Second):
		t.Fatal("no event read from the FIFO")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Run still waits on the FIFO after ctx is done")
	}
	if s := rd.Sources[0]; !errors.Is(s.Err, ErrInterrupted) || !s.Read {
		t.Errorf("interrupted FIFO: err %v, read %v", s.Err, s.Read)
	}
}

// A file that cannot be opened keeps the cause in its error chain, worded
// for the report.
func TestReadErrorKeepsItsCause(t *testing.T) {
	rd := NewReader([]Input{{Path: filepath.Join(t.TempDir(), "gone.log")}}, nil)
	rd.Run(context.Background(), func(int, *parser.Event) {})
	err := rd.Sources[0].Err
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != "no such file or directory" {
		t.Errorf("err %v (is ErrNotExist: %v)", err, errors.Is(err, fs.ErrNotExist))
	}
	if _, err := sniff(filepath.Join(t.TempDir(), "gone.log")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("sniff: %v", err)
	}
}
