package follow

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// stressLine is line i of the file tagged tag; lengths vary.
func stressLine(tag string, i int) string {
	return fmt.Sprintf("%s %07d %s", tag, i, strings.Repeat("x", (i*7919)%200))
}

// rotation is what a stress writer does every so many lines.
type rotation int

const (
	rotateRename rotation = iota
	rotateDelete
	rotateCopyTruncate
)

// stressWriter appends n lines to path in chunks of random size (sometimes
// splitting a line across two writes), rotating every `every` lines. Before
// a rename or delete rotation it waits until the follower has delivered a
// line of the current file, i.e. has it open; nobody can follow a file it
// never saw. Before a copytruncate it waits until the follower has caught
// up, since lines written between the follower's last read and the truncate
// exist only in the copy; so it does before a delete when the follower
// closes files to keep within a descriptor bound. It reports failures as errors (it runs outside the
// test goroutine).
func stressWriter(h *harness, path, tag string, n, every int, rot rotation, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 99))
	open := func() (*os.File, error) {
		return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	}
	wait := func(what string, cond func() bool) error {
		deadline := time.Now().Add(waitLimit)
		for !cond() {
			if time.Now().After(deadline) {
				return fmt.Errorf("%s: gave up waiting for %s (delivered %d); errors %v; files %+v", path, what, h.count(path), h.errors(), h.f.Files())
			}
			time.Sleep(time.Millisecond)
		}
		return nil
	}
	fh, err := open()
	if err != nil {
		return err
	}
	defer func() { fh.Close() }()
	genStart, gen := 0, 0
	var chunk strings.Builder
	for i := 0; i < n; {
		k := min(1+rng.IntN(64), n-i, genStart+every-i)
		chunk.Reset()
		for j := i; j < i+k; j++ {
			chunk.WriteString(stressLine(tag, j))
			chunk.WriteByte('\n')
		}
		s := chunk.String()
		if rng.IntN(4) == 0 {
			cut := rng.IntN(len(s))
			if _, err := fh.WriteString(s[:cut]); err != nil {
				return err
			}
			s = s[cut:]
		}
		if _, err := fh.WriteString(s); err != nil {
			return err
		}
		i += k
		if i == n || i != genStart+every {
			continue
		}
		switch rot {
		case rotateRename, rotateDelete:
			if err := wait("a line of the current file", func() bool { return h.count(path) > genStart }); err != nil {
				return err
			}
			if rot == rotateDelete && h.f.opts.MaxOpen > 0 {
				// The follower may have closed the file to keep within
				// its bound: what it had not read when the file is
				// deleted is gone for everyone.
				if err := wait("all lines so far", func() bool { return h.count(path) == i }); err != nil {
					return err
				}
			}
			if err := fh.Close(); err != nil {
				return err
			}
			if rot == rotateRename {
				err = os.Rename(path, fmt.Sprintf("%s.%d", path, gen))
			} else {
				err = os.Remove(path)
			}
			if err != nil {
				return err
			}
			if fh, err = open(); err != nil {
				return err
			}
		case rotateCopyTruncate:
			if err := wait("all lines so far", func() bool { return h.count(path) == i }); err != nil {
				return err
			}
			if err := os.Truncate(path, 0); err != nil {
				return err
			}
		}
		genStart = i
		gen++
	}
	return nil
}

// 100k lines appended to three files at once, each rotated ten times (by
// rename, delete-and-recreate, copytruncate), with lines split across
// writes: every line arrives exactly once and in order.
func TestExactlyOnceAcrossRotations(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		const total = 100_000
		dir := t.TempDir()
		logs := filepath.Join(dir, "logs")
		if err := os.Mkdir(logs, 0o755); err != nil {
			t.Fatal(err)
		}
		files := []struct {
			path, tag string
			rot       rotation
		}{
			// In a directory input whose Match accepts the rotated names.
			{filepath.Join(logs, "state-change.log"), "rename", rotateRename},
			{filepath.Join(dir, "controller.log"), "delete", rotateDelete},
			{filepath.Join(dir, "server.log"), "truncate", rotateCopyTruncate},
		}
		opts.Match = func(name string) bool { return strings.HasPrefix(name, "state-change.log") }
		h := startFollower(t, []string{logs, files[1].path, files[2].path}, opts)

		var wg sync.WaitGroup
		counts := make([]int, len(files))
		for i, fl := range files {
			counts[i] = total / len(files)
			if i == 0 {
				counts[i] += total % len(files)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := stressWriter(h, fl.path, fl.tag, counts[i], counts[i]/10, fl.rot, uint64(i)); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		for i, fl := range files {
			h.waitCount(fl.path, counts[i])
		}
		lines := h.stop()

		if len(lines) != total {
			per := map[string]int{}
			for _, l := range lines {
				per[l.Path]++
			}
			t.Errorf("got %d lines, want %d: %v", len(lines), total, per)
		}
		for i, fl := range files {
			got := textsOf(lines, fl.path)
			for j := 0; j < counts[i]; j++ {
				if j >= len(got) {
					t.Fatalf("%s: only %d lines, want %d", fl.tag, len(got), counts[i])
				}
				if want := stressLine(fl.tag, j); got[j] != want {
					t.Fatalf("%s: line %d is %.40q, want %.40q", fl.tag, j, got[j], want)
				}
			}
		}
		for _, err := range h.errors() {
			if !errors.Is(err, ErrDeleted) {
				t.Errorf("unexpected error: %v", err)
			}
		}
	})
}
