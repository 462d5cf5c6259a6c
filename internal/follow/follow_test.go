package follow

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Appends after the start are delivered, line by line, whatever the write
// boundaries; what was there before the start is not.
func TestAppend(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		p := tempPath(t, "server.log")
		writeFile(t, p, "old 1\nold 2\n")
		h := startFollower(t, []string{p}, opts)
		appendFile(t, p, "new 1\n")
		appendFile(t, p, "new 2\nne")
		appendFile(t, p, "w 3\n\nnew 5\n")
		h.waitLines(4)
		lines := h.stop()
		equalStrings(t, "lines", texts(lines), []string{"new 1", "new 2", "new 3", "", "new 5"})
		for _, l := range lines {
			if l.Path != p {
				t.Fatalf("Path = %q, want %q", l.Path, p)
			}
		}
	})
}

// A last line without '\n' is held until it completes, and delivered as it
// is when Run stops.
func TestPartialLineHeld(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		p := tempPath(t, "server.log")
		writeFile(t, p, "")
		h := startFollower(t, []string{p}, opts)
		appendFile(t, p, "abc")
		h.waitFile(p, "offset 3", func(st FileState) bool { return st.Offset == 3 })
		appendFile(t, p, "def\nxy")
		h.waitFile(p, "offset 9", func(st FileState) bool { return st.Offset == 9 })
		appendFile(t, p, "z\ntail")
		h.waitFile(p, "offset 15", func(st FileState) bool { return st.Offset == 15 })
		if got := texts(h.waitLines(2)); len(got) != 2 {
			t.Fatalf("before stop: got %q, want 2 lines", got)
		}
		equalStrings(t, "lines", texts(h.stop()), []string{"abcdef", "xyz", "tail"})
	})
}

// "\r\n" ends a line like "\n"; other '\r' bytes are kept.
func TestCRLF(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		p := tempPath(t, "server.log")
		writeFile(t, p, "")
		h := startFollower(t, []string{p}, opts)
		appendFile(t, p, "a\r\nb\r\n\r\nc\rd\n\r\r\ne\r")
		h.waitFile(p, "offset 17", func(st FileState) bool { return st.Offset == 17 })
		appendFile(t, p, "\n")
		h.waitLines(6)
		equalStrings(t, "lines", texts(h.stop()), []string{"a", "b", "", "c\rd", "\r", "e"})
	})
}

// Lines longer than MaxLine are cut and flagged, delivered as soon as they
// are known to be too long; the rest of the line is skipped.
func TestMaxLine(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		opts.MaxLine = 10
		p := tempPath(t, "server.log")
		writeFile(t, p, "")
		h := startFollower(t, []string{p}, opts)
		appendFile(t, p, "short\n"+
			"0123456789\n"+ // exactly MaxLine
			"0123456789\r\n"+ // MaxLine after removing "\r\n"
			"0123456789A\n"+ // one too many
			"0123456789\r\r\n") // one '\r' is content: too long
		h.waitLines(5)
		appendFile(t, p, "abcdefgh")
		appendFile(t, p, "ijklmnop") // now known to be too long, still no '\n'
		got := texts(h.waitLines(6))
		if got[5] != "abcdefghij<truncated>" {
			t.Fatalf("long line before its end: got %q", got[5])
		}
		appendFile(t, p, "qrstuvwxyz\nnext\n")
		h.waitLines(7)
		equalStrings(t, "lines", texts(h.stop()), []string{
			"short", "0123456789", "0123456789", "0123456789<truncated>", "0123456789<truncated>",
			"abcdefghij<truncated>", "next",
		})
	})
}

// A line much longer than a read (64 KiB) is cut without memory growing with it.
func TestMaxLineLong(t *testing.T) {
	p := tempPath(t, "server.log")
	writeFile(t, p, "")
	const maxLine = 100_000
	h := startFollower(t, []string{p}, Options{MaxLine: maxLine})
	long := strings.Repeat("x", 3<<20)
	appendFile(t, p, "first\n"+long+"\n"+strings.Repeat("y", maxLine)+"\nlast\n")
	h.waitLines(4)
	lines := h.stop()
	if len(lines) != 4 {
		t.Fatalf("got %d lines, want 4", len(lines))
	}
	if string(lines[0].Text) != "first" || string(lines[3].Text) != "last" {
		t.Fatalf("first/last = %q/%q", lines[0].Text, lines[3].Text)
	}
	if !lines[1].Truncated || len(lines[1].Text) != maxLine || strings.Trim(string(lines[1].Text), "x") != "" {
		t.Fatalf("long line: Truncated=%v len=%d", lines[1].Truncated, len(lines[1].Text))
	}
	if lines[2].Truncated || len(lines[2].Text) != maxLine {
		t.Fatalf("MaxLine line: Truncated=%v len=%d", lines[2].Truncated, len(lines[2].Text))
	}
}

// Where files present at the start begin: their end by default, 0 with
// FromStart, StartOffset's answer (moved to a line start) when set. Files
// that appear later begin at 0.
func TestStartPosition(t *testing.T) {
	const old = "old1\nold2\n"
	cases := []struct {
		name    string
		content string
		opts    Options
		want    []string
	}{
		{"end", old, Options{}, []string{"new"}},
		{"end inside a line", "old1\nhal", Options{}, []string{"new"}},
		{"from start", old, Options{FromStart: true}, []string{"old1", "old2", "new"}},
		{"from start wins", old, Options{FromStart: true, StartOffset: func(string, io.ReaderAt, int64) int64 { return 5 }},
			[]string{"old1", "old2", "new"}},
		{"start offset", old, Options{StartOffset: func(string, io.ReaderAt, int64) int64 { return 5 }},
			[]string{"old2", "new"}},
		{"start offset inside a line", old, Options{StartOffset: func(string, io.ReaderAt, int64) int64 { return 2 }},
			[]string{"old2", "new"}},
		{"start offset zero", old, Options{StartOffset: func(string, io.ReaderAt, int64) int64 { return 0 }},
			[]string{"old1", "old2", "new"}},
		{"start offset past end", old, Options{StartOffset: func(string, io.ReaderAt, int64) int64 { return 1000 }},
			[]string{"new"}},
		{"start offset negative", old, Options{StartOffset: func(string, io.ReaderAt, int64) int64 { return -1 }},
			[]string{"old1", "old2", "new"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := tempPath(t, "server.log")
			writeFile(t, p, c.content)
			h := startFollower(t, []string{p}, c.opts)
			if strings.HasSuffix(c.content, "\n") {
				appendFile(t, p, "new\n")
			} else {
				// "hald" began before the start: not a line appended after it.
				appendFile(t, p, "d\nnew\n")
			}
			h.waitLines(len(c.want))
			equalStrings(t, "lines", texts(h.stop()), c.want)
		})
	}

	t.Run("StartOffset arguments", func(t *testing.T) {
		p := tempPath(t, "server.log")
		writeFile(t, p, old)
		var gotPath string
		var gotSize int64
		var gotFirst string
		h := startFollower(t, []string{p}, Options{StartOffset: func(path string, r io.ReaderAt, size int64) int64 {
			gotPath, gotSize = path, size
			b := make([]byte, 4)
			r.ReadAt(b, 0)
			gotFirst = string(b)
			return size
		}})
		appendFile(t, p, "new\n")
		h.waitLines(1)
		h.stop()
		if gotPath != p || gotSize != int64(len(old)) || gotFirst != "old1" {
			t.Fatalf("StartOffset got (%q, %q, %d)", gotPath, gotFirst, gotSize)
		}
	})

	t.Run("late file from zero", func(t *testing.T) {
		p := tempPath(t, "server.log")
		h := startFollower(t, []string{p}, Options{StartOffset: func(string, io.ReaderAt, int64) int64 {
			t.Error("StartOffset called for a file that appeared after the start")
			return 0
		}})
		writeFile(t, p, "one\ntwo\n")
		h.waitLines(2)
		equalStrings(t, "lines", texts(h.stop()), []string{"one", "two"})
	})
}

// StartOffset with SeekBackByTime: start at the first line of the last hour.
func TestStartOffsetSeekBack(t *testing.T) {
	p := tempPath(t, "server.log")
	writeFile(t, p, "[2019-02-25 14:00:00,000] INFO a\n"+
		"[2019-02-25 15:00:00,000] ERROR b\n"+
		"java.lang.Exception: trace\n"+
		"[2019-02-25 15:30:00,000] INFO c\n")
	since := time.Date(2019, 2, 25, 14, 30, 0, 0, time.UTC)
	h := startFollower(t, []string{p}, Options{StartOffset: func(_ string, r io.ReaderAt, size int64) int64 {
		return SeekBackByTime(r, size, since, kafkaTime)
	}})
	appendFile(t, p, "[2019-02-25 16:00:00,000] INFO d\n")
	h.waitLines(4)
	equalStrings(t, "lines", texts(h.stop()), []string{
		"[2019-02-25 15:00:00,000] ERROR b", "java.lang.Exception: trace",
		"[2019-02-25 15:30:00,000] INFO c", "[2019-02-25 16:00:00,000] INFO d",
	})
}

// A file input that does not exist at the start is followed from offset 0
// once it appears, also when its directory does not exist yet.
func TestLateFile(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		for _, sub := range []string{"", filepath.Join("not", "yet")} {
			name := "parent exists"
			if sub != "" {
				name = "parent missing"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				p := filepath.Join(dir, sub, "controller.log")
				h := startFollower(t, []string{p}, opts)
				h.waitFile(p, "missing", func(st FileState) bool { return st.Missing && st.Err == nil })
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				writeFile(t, p, "one\ntwo\n")
				h.waitLines(2)
				appendFile(t, p, "three\n")
				h.waitLines(3)
				equalStrings(t, "lines", texts(h.stop()), []string{"one", "two", "three"})
			})
		}
	})
}

// A directory input follows the files Match accepts, including new ones,
// and ignores the others.
func TestDirectory(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		dir := t.TempDir()
		a, b, c, d := filepath.Join(dir, "a.log"), filepath.Join(dir, "b.txt"), filepath.Join(dir, "c.log"), filepath.Join(dir, "d.txt")
		writeFile(t, a, "old a\n")
		writeFile(t, b, "old b\n")
		opts.Match = func(name string) bool { return strings.HasSuffix(name, ".log") }
		h := startFollower(t, []string{dir}, opts)
		appendFile(t, a, "a1\n")
		writeFile(t, c, "c1\nc2\n")
		writeFile(t, d, "d1\n")
		appendFile(t, b, "b1\n")
		if err := os.Mkdir(filepath.Join(dir, "sub.log"), 0o755); err != nil {
			t.Fatal(err)
		}
		appendFile(t, a, "a2\n")
		h.waitCount(c, 2)
		h.waitCount(a, 2)
		appendFile(t, c, "c3\n")
		h.waitCount(c, 3)
		lines := h.stop()
		equalStrings(t, "a.log", textsOf(lines, a), []string{"a1", "a2"})
		equalStrings(t, "c.log", textsOf(lines, c), []string{"c1", "c2", "c3"})
		if len(lines) != 5 {
			t.Fatalf("unexpected lines: %q", texts(lines))
		}
		var paths []string
		for _, st := range h.f.Files() {
			paths = append(paths, st.Path)
		}
		slices.Sort(paths)
		equalStrings(t, "Files", paths, []string{a, c})
	})
}

// Errors name the file; following goes on; a file that becomes readable is
// picked up. (Root can read anything, so a directory in the file's place
// stands in for an unreadable file.)
func TestErrorRecovery(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		dir := t.TempDir()
		p, q := filepath.Join(dir, "broken.log"), filepath.Join(dir, "fine.log")
		writeFile(t, q, "")
		h := startFollower(t, []string{p, q}, opts)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		h.waitError(errNotRegular, p)
		h.waitFile(p, "error state", func(st FileState) bool { return st.Err != nil })
		appendFile(t, q, "q1\n")
		h.waitCount(q, 1)
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, "p1\n")
		h.waitCount(p, 1)
		h.waitFile(p, "no error", func(st FileState) bool { return st.Err == nil && !st.Missing })
		lines := h.stop()
		equalStrings(t, "broken.log", textsOf(lines, p), []string{"p1"})
		equalStrings(t, "fine.log", textsOf(lines, q), []string{"q1"})
		var pe *fs.PathError
		if errs := h.errors(); !errors.As(errs[0], &pe) || pe.Path != p {
			t.Fatalf("error %v does not name %s", errs[0], p)
		}
	})
}

// A file that cannot be opened is reported and picked up once it can be,
// starting where it would have started.
func TestPermission(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads unreadable files")
	}
	modes(t, func(t *testing.T, opts Options) {
		p := tempPath(t, "server.log")
		writeFile(t, p, "old\n")
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
		h := startFollower(t, []string{p}, opts)
		h.waitError(fs.ErrPermission, p)
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
		appendFile(t, p, "new\n")
		h.waitLines(1)
		equalStrings(t, "lines", texts(h.stop()), []string{"new"})
	})
}

// Lines come in batches of at most 4096.
func TestBatches(t *testing.T) {
	p := tempPath(t, "server.log")
	want, text := numbered("line", 0, 10000)
	writeFile(t, p, text)
	h := startFollower(t, []string{p}, Options{FromStart: true})
	h.waitLines(len(want))
	equalStrings(t, "lines", texts(h.stop()), want)
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.batches) < 3 {
		t.Fatalf("batches %v: want at least 3", h.batches)
	}
	for _, n := range h.batches {
		if n > maxBatchLines || n == 0 {
			t.Fatalf("batches %v: want 1..%d lines each", h.batches, maxBatchLines)
		}
	}
}

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	p, q := filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")
	writeFile(t, p, "12345\n")
	f, err := New([]string{p, q}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := f.Files()
	if len(st) != 2 || st[0].Path != p || st[1].Path != q {
		t.Fatalf("Files before Run = %+v", st)
	}
	h := runFollower(t, f)
	h.waitFile(p, "at end", func(st FileState) bool { return st.Offset == 6 && st.Size == 6 && !st.Missing })
	h.waitFile(q, "missing", func(st FileState) bool { return st.Missing })
	appendFile(t, p, "abc\n")
	h.waitFile(p, "offset 10", func(st FileState) bool { return st.Offset == 10 && st.Size == 10 })
	writeFile(t, q, "x\n")
	h.waitFile(q, "present", func(st FileState) bool { return !st.Missing && st.Offset == 2 })
	h.stop()
}

func TestNewAndRunErrors(t *testing.T) {
	if _, err := New(nil, Options{}); err == nil {
		t.Error("New(nil) succeeded")
	}
	if _, err := New([]string{"x"}, Options{MaxLine: -1}); err == nil {
		t.Error("New with negative MaxLine succeeded")
	}
	f, err := New([]string{tempPath(t, "x.log")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	results := make(chan error, 2)
	go func() { results <- f.Run(ctx) }()
	go func() { results <- f.Run(ctx) }()
	go func() {
		for range f.Lines() {
		}
	}()
	if err := <-results; err == nil {
		t.Error("second Run did not fail")
	}
	cancel()
	if err := <-results; err != nil {
		t.Errorf("Run: %v", err)
	}
}

// Run returns after cancellation even when nobody receives Lines.
func TestStopWithoutReceiver(t *testing.T) {
	p := tempPath(t, "server.log")
	_, text := numbered("line", 0, 10000)
	writeFile(t, p, text)
	f, err := New([]string{p}, Options{FromStart: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	// Wait until Run has read something (and is blocked handing it over).
	deadline := time.Now().Add(waitLimit)
	for f.Files()[0].Offset == 0 {
		if time.Now().After(deadline) {
			t.Fatal("nothing read")
		}
		time.Sleep(2 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Run did not return")
	}
	if _, ok := <-f.Lines(); ok {
		t.Fatal("Lines not closed")
	}
}
