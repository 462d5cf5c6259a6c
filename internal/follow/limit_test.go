package follow

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/fdlimit"
)

// fdLimitEnv carries the descriptor limit into the test's own run under
// it (see TestManyFilesUnderALowDescriptorLimit).
const fdLimitEnv = "LEADERAUDIT_FOLLOW_FDLIMIT"

// openFDs counts this process's open descriptors; when none is left to
// count them with, limit+1.
func openFDs(limit int) int {
	des, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return limit + 1
	}
	return len(des)
}

// 5,000 files in 50 directories followed from their start under `ulimit
// -n 128`: every file's line arrives, lines appended later to a few of
// them arrive, no error, and the descriptors open never pass the bound the
// limit gives (fdlimit.Files: 64 here) plus a few. The follower kept one
// descriptor per file: "too many open files" for all but about 120, whose
// lines were never read.
func TestManyFilesUnderALowDescriptorLimit(t *testing.T) {
	const limit, dirs, perDir = 128, 50, 100
	if os.Getenv(fdLimitEnv) == "" {
		if _, err := os.Stat("/proc/self/fd"); err != nil {
			t.Skip("no /proc/self/fd")
		}
		if testing.Short() {
			t.Skip("makes 5,000 files")
		}
		// Run this test again under the limit (soft and hard: nothing can
		// raise it back).
		cmd := exec.Command("sh", "-c", `ulimit -n `+strconv.Itoa(limit)+` && exec "$0" -test.run='^TestManyFilesUnderALowDescriptorLimit$' -test.count=1 -test.v`, os.Args[0])
		cmd.Env = append(os.Environ(), fdLimitEnv+"="+strconv.Itoa(limit))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("under ulimit -n %d: %v\n%s", limit, err, out)
		}
		t.Logf("under ulimit -n %d:\n%s", limit, out)
		return
	}
	if got := fdlimit.Limit(); got != limit {
		t.Fatalf("descriptor limit %d, want %d", got, limit)
	}
	bound := fdlimit.Files()
	root, paths := idleTree(t, dirs, perDir)

	base := openFDs(limit)
	var peak atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if n := int64(openFDs(limit)); n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	h := startFollower(t, []string{root}, Options{Recursive: true, FromStart: true})
	h.waitLines(len(paths))
	// A few files get more lines once everything is idle and closed.
	some := []string{paths[0], paths[1234], paths[2500], paths[4999]}
	for _, p := range some {
		appendFile(t, p, "second "+p+"\n")
	}
	for _, p := range some {
		h.waitCount(p, 2)
	}
	lines := h.stop()
	close(stop)
	<-sampled

	if len(lines) != len(paths)+len(some) {
		t.Errorf("%d lines, want %d", len(lines), len(paths)+len(some))
	}
	for _, p := range paths {
		want := []string{"first " + p}
		for _, q := range some {
			if q == p {
				want = append(want, "second "+p)
			}
		}
		if got := textsOf(lines, p); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("%s: lines %q, want %q", p, got, want)
		}
	}
	if errs := h.errors(); len(errs) > 0 {
		t.Errorf("%d errors, the first %v", len(errs), errs[0])
	}
	// The follower's own: its open files and the inotify descriptor.
	if extra := int(peak.Load()) - base; extra > bound+2 {
		t.Errorf("peak %d descriptors open, %d more than before following; bound %d", peak.Load(), extra, bound)
	}
	t.Logf("%d files, limit %d, bound %d: peak %d descriptors open (%d before following)", len(paths), limit, bound, peak.Load(), base)
}
