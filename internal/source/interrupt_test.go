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
	if s.Err != nil || s.Bytes <= 0 || s.Stats.Lines <= 0 || !s.Read {
		t.Errorf("after an interrupt: err %v, %d bytes, %d lines", s.Err, s.Bytes, s.Stats.Lines)
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
	if s := rd.Sources[0]; s.Err != nil || !s.Read {
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
	if _, _, err := sniff(filepath.Join(t.TempDir(), "gone.log")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("sniff: %v", err)
	}
}
