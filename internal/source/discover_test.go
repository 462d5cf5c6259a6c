package source

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

// A FIFO found by walking a directory is skipped and named (it would wait
// for a writer forever: the audit hung with no output); one named on the
// command line is read as a stream.
func TestDiscoverFIFOs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "server.log")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	write(t, filepath.Join(dir, "state-change.log"), leaderLine)
	ins, skipped := Discover([]string{dir}, 0)
	if len(ins) != 1 || ins[0].Path != filepath.Join(dir, "state-change.log") {
		t.Errorf("walked: %+v", ins)
	}
	if len(skipped) != 1 || skipped[0].Path != fifo || skipped[0].Reason != "not a regular file (a FIFO)" {
		t.Errorf("skipped: %+v", skipped)
	}
	ins, skipped = Discover([]string{fifo}, 0)
	if len(ins) != 1 || !ins[0].Pipe || len(skipped) != 0 {
		t.Errorf("named: %+v %+v", ins, skipped)
	}
}

// Ctrl-C while a FIFO named on the command line has no writer yet: Run
// returns (the open used to block for good) and says why nothing was read.
func TestInterruptBeforeAFIFOWriter(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "server.log")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	ins, _ := Discover([]string{fifo}, 0)
	rd := NewReader(ins, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		rd.Run(ctx, func(int, *parser.Event) {})
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Run waits for a writer after the interrupt")
	}
	if err := rd.Sources[0].Err; err == nil || !strings.Contains(err.Error(), "before a writer opened the FIFO") {
		t.Errorf("err %v", err)
	}
}

// Paths that reach one file twice read it once: a file symlink, a link to
// the audited root, a directory and a link to it given together, a hard
// link.
func TestDiscoverReadsAFileOnce(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "logs")
	write(t, filepath.Join(root, "app", "producer-2019-03-04.log"), leaderLine)
	write(t, filepath.Join(root, "broker-1", "state-change.log"), leaderLine)
	must(t, os.Symlink("producer-2019-03-04.log", filepath.Join(root, "app", "producer.log")))
	abs, _ := filepath.Abs(root)
	must(t, os.Symlink(abs, filepath.Join(root, "all")))
	must(t, os.Symlink(root, filepath.Join(dir, "logslink")))
	must(t, os.Link(filepath.Join(root, "broker-1", "state-change.log"), filepath.Join(root, "broker-1", "state-change.log.1")))
	wd, _ := os.Getwd()
	must(t, os.Chdir(root))
	defer os.Chdir(wd)
	for _, args := range [][]string{{"."}, {abs, filepath.Join(dir, "logslink")}, {".", filepath.Join(abs, "app", "producer.log")}} {
		ins, skipped := Discover(args, 0)
		if len(ins) != 2 {
			t.Errorf("%v: %d inputs, want 2: %+v\nskipped %+v", args, len(ins), ins, skipped)
		}
		for _, s := range skipped {
			if !strings.Contains(s.Reason, "read once") {
				t.Errorf("%v: %+v", args, s)
			}
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// The one binary-file rule (SniffStart): text after a run of NULs is read
// from after them (4 KiB of NULs before a broker's lines: the hole
// copytruncate leaves under a `>` redirect, as kafkaServer.out can have —
// it used to be dropped whole as binary); a KRaft segment, whose leading
// NULs are followed by binary fields, stays binary; gzip is told apart.
func TestSniffStart(t *testing.T) {
	seg, err := os.ReadFile("../../../shared/metadata-logs/ldi-poc/00000000000000000000.log")
	if err != nil {
		t.Fatal(err)
	}
	seg2, err := os.ReadFile("../../../shared/metadata-logs/backendlabs-2seg/00000000000000005151.log")
	if err != nil {
		t.Fatal(err)
	}
	text := "[2024-01-01 10:00:01,000] INFO x\n"
	for _, c := range []struct {
		name string
		data string
		want Start
	}{
		{"text", text, Start{}},
		{"ANSI colours", "\x1b[32m" + text, Start{}},
		{"NUL hole, then text", strings.Repeat("\x00", 4096) + text, Start{NULs: 4096}},
		{"NUL hole longer than a read", strings.Repeat("\x00", 200<<10) + text, Start{NULs: 200 << 10}},
		{"only NULs", strings.Repeat("\x00", 100), Start{NULs: 100}},
		{"NUL in the first line", "abc\x00def\n", Start{Binary: true}},
		{"NULs after the first line", text + strings.Repeat("\x00", 300), Start{}},
		{"KRaft segment", string(seg), Start{Binary: true}},
		{"KRaft segment, later base offset", string(seg2), Start{Binary: true}},
		{"gzip", "\x1f\x8b\x08\x00", Start{Gzip: true}},
		{"empty", "", Start{}},
	} {
		got, err := SniffStart(bytes.NewReader([]byte(c.data)))
		if err != nil || got != c.want {
			t.Errorf("%s: %+v %v, want %+v", c.name, got, err, c.want)
		}
	}
}

// A file that starts with NULs is audited from the text after them.
func TestNULPrefixedFileIsRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kafkaServer.out")
	write(t, path, strings.Repeat("\x00", 4096)+strings.Repeat(leaderLine, 3))
	ins, skipped := Discover([]string{dir}, 0)
	if len(ins) != 1 || ins[0].Binary || ins[0].NULs != 4096 || len(skipped) != 0 {
		t.Fatalf("%+v %+v", ins, skipped)
	}
	rd := NewReader(ins, func(string) *time.Location { return time.UTC })
	n := 0
	rd.Run(context.Background(), func(int, *parser.Event) { n++ })
	if s := rd.Sources[0]; n != 3 || s.Stats.Lines != 3 || s.Err != nil {
		t.Errorf("%d events, %d lines, err %v", n, s.Stats.Lines, s.Err)
	}
}
