package follow

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// idleTree makes dirs directories of perDir files of one line each under a
// new directory, and returns it and the files' paths.
func idleTree(t *testing.T, dirs, perDir int) (string, []string) {
	t.Helper()
	root := t.TempDir()
	var paths []string
	for d := range dirs {
		dir := filepath.Join(root, fmt.Sprintf("broker-%02d", d))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range perDir {
			p := filepath.Join(dir, fmt.Sprintf("state-change-%03d.log", i))
			writeFile(t, p, "first "+p+"\n")
			paths = append(paths, p)
		}
	}
	return root, paths
}

// stepper drives a Follower by hand, tick by tick, without its event
// loop: no fsnotify event is ever handled, so to the Follower every change
// goes unannounced, as when events are lost.
type stepper struct {
	t     *testing.T
	f     *Follower
	lines map[string][]string
}

func newStepper(t *testing.T, paths []string, opts Options) *stepper {
	t.Helper()
	f, err := New(paths, opts)
	if err != nil {
		t.Fatal(err)
	}
	f.start()
	if f.watcher == nil {
		t.Skip("fsnotify unavailable")
	}
	t.Cleanup(func() {
		f.watcher.Close()
		f.closeAll()
	})
	s := &stepper{t: t, f: f, lines: map[string][]string{}}
	s.process()
	return s
}

// process reads what is queued, taking every batch.
func (s *stepper) process() {
	for {
		s.f.process()
		for _, l := range s.f.batch {
			if s.lines != nil {
				s.lines[l.Path] = append(s.lines[l.Path], string(l.Text))
			}
		}
		full := s.f.full()
		s.f.batch, s.f.batchBytes = nil, 0
		if !full {
			return
		}
	}
}

func (s *stepper) tick() {
	s.f.onTick()
	s.process()
}

// closeAll ticks until every file is closed (IdleClose), a few ticks at
// most: a file the tick queued is not closed by it.
func (s *stepper) closeAll() {
	s.t.Helper()
	for range 8 {
		s.tick()
		if s.f.nOpen == 0 {
			return
		}
	}
	s.t.Fatalf("%d files still open", s.f.nOpen)
}

// 3,000 idle files in 30 directories, all closed: the safety net's work
// per tick (stats, and names listed) stays within the sweep's rate,
// whatever the number of files, and what no event announced (an append to
// a closed file, a new file) is still found within one round of the sweep.
// A look at every directory once a second, and at every closed file every
// tenth, made 83,275 stats and names listed in 100 ticks here (20,000 idle
// files: 6% of a core).
func TestIdleSweepBounded(t *testing.T) {
	const dirs, perDir = 30, 100
	root, paths := idleTree(t, dirs, perDir)
	s := newStepper(t, []string{root}, Options{Recursive: true, FromStart: true, IdleClose: time.Nanosecond})
	for _, p := range paths {
		if got := s.lines[p]; len(got) != 1 {
			t.Fatalf("%s: lines %q, want its first", p, got)
		}
	}
	s.tick() // closes every file: idle for more than IdleClose
	if s.f.nOpen != 0 {
		t.Fatalf("%d files open after the first tick, want 0", s.f.nOpen)
	}

	per := sweepRate * int(defaultPollInterval) / int(time.Second)
	const ticks = 100
	before := s.f.calls
	for range ticks {
		s.tick()
	}
	// A directory is listed whole, so the sweep may be one listing ahead.
	calls, bound := s.f.calls-before, ticks*per+perDir+1
	t.Logf("%d files idle: %d stats and names listed in %d ticks (bound %d)", len(paths), calls, ticks, bound)
	if calls > bound {
		t.Errorf("%d stats and names listed in %d ticks over %d idle files, want at most %d (%d a tick)", calls, ticks, len(paths), bound, per)
	}

	// Unannounced: an append to a closed file, a file made meanwhile.
	appendFile(t, paths[1234], "second\n")
	late := filepath.Join(root, "broker-07", "state-change-late.log")
	writeFile(t, late, "late\n")
	round := (2*len(paths)+dirs+1)/per + 2 + int(safetyInterval/defaultPollInterval)
	n := 0
	for ; n < round && (len(s.lines[paths[1234]]) < 2 || len(s.lines[late]) < 1); n++ {
		s.tick()
	}
	if got := s.lines[paths[1234]]; len(got) != 2 || got[1] != "second" {
		t.Errorf("after %d ticks the appended file's lines are %q", n, got)
	}
	if got := s.lines[late]; len(got) != 1 || got[0] != "late" {
		t.Errorf("after %d ticks the new file's lines are %q", n, got)
	}
	t.Logf("the unannounced changes found after %d ticks (a round: at most %d)", n, round)
}
