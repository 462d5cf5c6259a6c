package source

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/unpriv"
	"github.com/leaderaudit/leaderaudit/parser"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 3000)
	in := "a\r\nb\n" + long + "\nlast-no-newline"
	lr := NewLineReader(strings.NewReader(in), 1000)
	var got []string
	for {
		l, err := lr.Next()
		if l != nil || err == nil {
			got = append(got, string(l))
		}
		if err != nil {
			break
		}
	}
	want := []string{"a", "b", strings.Repeat("x", 1000), "last-no-newline"}
	if len(got) != len(want) {
		t.Fatalf("got %d lines: %q", len(got), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %q", i, got[i][:min(20, len(got[i]))])
		}
	}
	if lr.Cut != 1 {
		t.Errorf("cut %d, want 1", lr.Cut)
	}
}

func TestLineReaderHugeLineBoundedMemory(t *testing.T) {
	// A 20 MB line: cut at the limit, memory stays near the limit.
	r := io.MultiReader(strings.NewReader("first\n"), io.LimitReader(zeros{}, 20<<20), strings.NewReader("\nafter\n"))
	lr := NewLineReader(r, MaxLine)
	var lines []int
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		lines = append(lines, len(l))
	}
	if len(lines) != 3 || lines[1] != MaxLine || lr.Cut != 1 {
		t.Fatalf("lines %v cut %d", lines, lr.Cut)
	}
	if cap(lr.buf) > 2*MaxLine {
		t.Errorf("buffer grew to %d", cap(lr.buf))
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'z'
	}
	return len(p), nil
}

func TestDiscoverRotationsAndKinds(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{
		"broker-1/state-change.log", "broker-1/state-change.log.2019-02-25-15", "broker-1/state-change.log.2019-02-25-14",
		"broker-1/server.log.1", "broker-1/server.log.2", "broker-1/server.log", "broker-1/notes.md", "app/app.log",
	} {
		write(t, filepath.Join(dir, n), "x\n")
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte("y\n"))
	zw.Close()
	write(t, filepath.Join(dir, "broker-1/controller.log.2019-02-25-13.gz"), buf.String())
	// A KRaft metadata dir holds binary *.log segments: not walked.
	write(t, filepath.Join(dir, "broker-1/__cluster_metadata-0/00000000000000000000.log"), "\x00\x00\x00\x00\x00\x00\x00\x00")
	ins, skipped := Discover([]string{dir}, 0)
	if len(skipped) != 0 {
		t.Errorf("skipped %v", skipped)
	}
	var names []string
	for _, in := range ins {
		rel, _ := filepath.Rel(dir, in.Path)
		names = append(names, rel)
	}
	want := []string{
		"app/app.log", "broker-1/__cluster_metadata-0", "broker-1/controller.log.2019-02-25-13.gz",
		"broker-1/server.log.2", "broker-1/server.log.1", "broker-1/server.log",
		"broker-1/state-change.log.2019-02-25-14", "broker-1/state-change.log.2019-02-25-15", "broker-1/state-change.log",
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("order:\n got %v\nwant %v", names, want)
	}
	for _, in := range ins {
		if strings.HasSuffix(in.Path, ".gz") && !in.Gzip {
			t.Error("gz not sniffed")
		}
	}
}

func TestDiscoverBadPaths(t *testing.T) {
	dir := t.TempDir()
	os.Symlink(dir, filepath.Join(dir, "loop"))
	os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "broken.log"))
	write(t, filepath.Join(dir, "ok.log"), "x\n")
	ins, skipped := Discover([]string{dir, filepath.Join(dir, "missing")}, 0)
	if len(ins) != 1 {
		t.Errorf("inputs %v", ins)
	}
	reasons := ""
	for _, s := range skipped {
		reasons += s.Path + ": " + s.Reason + "\n"
	}
	for _, w := range []string{"missing: no such file", "loop: the same directory as", "broken.log: broken or looping symlink"} {
		if !strings.Contains(reasons, w) {
			t.Errorf("no %q in\n%s", w, reasons)
		}
	}
}

// A file that is there and cannot be opened, and a directory that cannot
// be listed, are inputs with Err (sources not read, failures of the
// audit), not skipped like a missing path; the reader does not open them.
func TestDiscoverUnreadable(t *testing.T) {
	if unpriv.Elsewhere(t) {
		return
	}
	dir := t.TempDir()
	secret, hidden := filepath.Join(dir, "secret.log"), filepath.Join(dir, "b2")
	write(t, secret, "x\n")
	write(t, filepath.Join(hidden, "server.log"), "x\n")
	write(t, filepath.Join(dir, "ok.log"), "x\n")
	os.Chmod(secret, 0)
	os.Chmod(hidden, 0)
	defer os.Chmod(hidden, 0o755)
	for _, paths := range [][]string{{dir}, {secret, hidden}} {
		ins, skipped := Discover(paths, 0)
		if len(skipped) != 0 {
			t.Errorf("%v: skipped %v", paths, skipped)
		}
		errs := map[string]error{}
		for _, in := range ins {
			errs[in.Path] = in.Err
		}
		if !errors.Is(errs[secret], fs.ErrPermission) || !errors.Is(errs[hidden], fs.ErrPermission) {
			t.Errorf("%v: errors %v", paths, errs)
		}
		rd := NewReader(ins, nil)
		rd.Run(context.Background(), func(int, *parser.Event) {})
		for _, s := range rd.Sources {
			if (s.Path == secret || s.Path == hidden) && (s.Read || !errors.Is(s.Err, fs.ErrPermission)) {
				t.Errorf("%s: read %v, error %v", s.Path, s.Read, s.Err)
			}
		}
	}
}

// Events from several files come out in time order, file order kept within
// a file; a truncated gzip is read up to the damage and reported.
func TestReaderMergeAndTruncatedGzip(t *testing.T) {
	dir := t.TempDir()
	l := func(ts string, b int) string {
		return "[2024-01-01 10:00:" + ts + "] INFO [Broker id=" + string(rune('0'+b)) + "] Leader t-" + string(rune('0'+b)) + " starts at leader epoch 1 from offset 0 with high watermark 0 ISR [1] addingReplicas [] removingReplicas []. Previous leader epoch was 0. (state.change.logger)\n"
	}
	write(t, filepath.Join(dir, "b1/state-change.log"), l("01,000", 1)+l("03,000", 1))
	write(t, filepath.Join(dir, "b2/state-change.log"), l("02,000", 2)+l("04,000", 2))
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(l("00,500", 3) + l("05,000", 3)))
	zw.Close()
	gz := buf.Bytes()
	write(t, filepath.Join(dir, "b3/state-change.log.gz"), string(gz[:len(gz)-30]))
	ins, _ := Discover([]string{dir}, 0)
	rd := NewReader(ins, func(string) *time.Location { return time.UTC })
	var got []string
	rd.Run(context.Background(), func(src int, ev *parser.Event) {
		got = append(got, ev.Time.Format("05.000")+"/"+ev.Topic)
	})
	if strings.Join(got, " ") != "00.500/t 01.000/t 02.000/t 03.000/t 04.000/t" && strings.Join(got, " ") != "00.500/t 01.000/t 02.000/t 03.000/t 04.000/t 05.000/t" {
		t.Errorf("order %v", got)
	}
	var gzErr error
	for _, s := range rd.Sources {
		if s.Gzip {
			gzErr = s.Err
		}
	}
	if gzErr == nil || !strings.Contains(gzErr.Error(), "truncated") {
		t.Errorf("truncated gzip not reported: %v", gzErr)
	}
}

func TestReadOnly(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state-change.log")
	write(t, p, "[2024-01-01 10:00:00,000] INFO [Broker id=1] Transitioning 1 partition(s) to local leaders. (state.change.logger)\n")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(p, old, old)
	before, _ := os.ReadFile(p)
	ins, _ := Discover([]string{dir}, 0)
	NewReader(ins, nil).Run(context.Background(), func(int, *parser.Event) {})
	after, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if !bytes.Equal(before, after) || !fi.ModTime().Equal(old) {
		t.Error("input changed")
	}
}

func TestLineReaderCROnly(t *testing.T) {
	lr := NewLineReader(strings.NewReader("a\rb\rc\r\nd\n"), 100)
	var got []string
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		got = append(got, string(l))
	}
	if strings.Join(got, "|") != "a|b|c|d" {
		t.Errorf("%q", got)
	}
}
