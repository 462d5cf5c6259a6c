package follow

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// waitLimit bounds every wait for a condition. Tests wait for conditions,
// never for fixed times; the limit only decides when to give up.
const waitLimit = 15 * time.Second

// harness runs a Follower and collects everything it delivers.
type harness struct {
	t      *testing.T
	f      *Follower
	cancel context.CancelFunc
	runErr chan error
	done   chan struct{} // Lines closed and collected

	stopOnce sync.Once

	mu      sync.Mutex
	lines   []Line
	batches []int
	errs    []error
	perPath map[string]int
}

func startFollower(t *testing.T, paths []string, opts Options) *harness {
	t.Helper()
	f, err := New(paths, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return runFollower(t, f)
}

func runFollower(t *testing.T, f *Follower) *harness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{t: t, f: f, cancel: cancel, runErr: make(chan error, 1), done: make(chan struct{}),
		perPath: make(map[string]int)}
	go func() { h.runErr <- f.Run(ctx) }()
	go func() {
		defer close(h.done)
		for b := range f.Lines() {
			h.mu.Lock()
			h.lines = append(h.lines, b...)
			h.batches = append(h.batches, len(b))
			for _, l := range b {
				h.perPath[l.Path]++
			}
			h.mu.Unlock()
		}
	}()
	go func() {
		for err := range f.Errors() {
			h.mu.Lock()
			h.errs = append(h.errs, err)
			h.mu.Unlock()
		}
	}()
	t.Cleanup(func() { h.stop() })
	return h
}

// stop cancels Run, waits for Lines to close and returns every line.
func (h *harness) stop() []Line {
	h.t.Helper()
	h.stopOnce.Do(func() {
		h.cancel()
		select {
		case <-h.done:
		case <-time.After(waitLimit):
			h.t.Errorf("Lines not closed %v after cancel", waitLimit)
			return
		}
		select {
		case err := <-h.runErr:
			if err != nil {
				h.t.Errorf("Run: %v", err)
			}
		case <-time.After(waitLimit):
			h.t.Errorf("Run did not return %v after cancel", waitLimit)
		}
	})
	return h.snapshot()
}

func (h *harness) snapshot() []Line {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Line(nil), h.lines...)
}

func (h *harness) errors() []error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]error(nil), h.errs...)
}

// waitFor polls cond until it holds, failing the test after waitLimit.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			got := texts(h.snapshot())
			n := len(got)
			if len(got) > 20 {
				got = got[len(got)-20:]
			}
			h.t.Fatalf("gave up waiting for %s; got %d lines, the last %q; errors %v; files %+v",
				what, n, got, h.errors(), h.f.Files())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// count returns how many lines of path arrived so far.
func (h *harness) count(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.perPath[path]
}

// waitCount waits until at least n lines of path arrived.
func (h *harness) waitCount(path string, n int) {
	h.t.Helper()
	h.waitFor(fmt.Sprintf("%d lines of %s", n, path), func() bool { return h.count(path) >= n })
}

// waitLines waits until at least n lines arrived and returns them all.
func (h *harness) waitLines(n int) []Line {
	h.t.Helper()
	h.waitFor(fmt.Sprintf("%d lines", n), func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.lines) >= n
	})
	return h.snapshot()
}

// waitError waits for an error matching target (errors.Is) and, if path is
// not empty, naming path.
func (h *harness) waitError(target error, path string) {
	h.t.Helper()
	h.waitFor(fmt.Sprintf("error %v for %s", target, path), func() bool {
		for _, err := range h.errors() {
			if errors.Is(err, target) && strings.Contains(err.Error(), path) {
				return true
			}
		}
		return false
	})
}

// waitFile waits until Files reports a state for path that cond accepts.
func (h *harness) waitFile(path string, what string, cond func(FileState) bool) {
	h.t.Helper()
	h.waitFor(path+" "+what, func() bool {
		for _, st := range h.f.Files() {
			if st.Path == path && cond(st) {
				return true
			}
		}
		return false
	})
}

func texts(lines []Line) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = string(l.Text)
		if l.Truncated {
			out[i] += "<truncated>"
		}
	}
	return out
}

func textsOf(lines []Line, path string) []string {
	var out []string
	for _, l := range lines {
		if l.Path == path {
			out = append(out, string(l.Text))
		}
	}
	return out
}

func equalStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d lines %q, want %d lines %q", what, len(got), got, len(want), want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: line %d: got %q, want %q\nall got: %q", what, i, got[i], want[i], got)
		}
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fh.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
}

func numbered(prefix string, from, to int) (lines []string, text string) {
	var b strings.Builder
	for i := from; i < to; i++ {
		l := fmt.Sprintf("%s %06d", prefix, i)
		lines = append(lines, l)
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return lines, b.String()
}

// modes runs a test in fsnotify mode and in polling mode.
func modes(t *testing.T, test func(t *testing.T, opts Options)) {
	t.Run("fsnotify", func(t *testing.T) { test(t, Options{}) })
	t.Run("poll", func(t *testing.T) { test(t, Options{Poll: true, PollInterval: 20 * time.Millisecond}) })
	// One file open at a time, closed as soon as it is idle: every file is
	// closed and opened again between reads.
	t.Run("one-open", func(t *testing.T) { test(t, Options{MaxOpen: 1, IdleClose: time.Nanosecond}) })
}

func tempPath(t *testing.T, name string) string {
	return filepath.Join(t.TempDir(), name)
}
