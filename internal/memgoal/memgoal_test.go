package memgoal

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// The limit is the goal while the live heap is small and half again the
// live heap once it is not: never a limit under what is live, which would
// have the collector run back to back.
func TestLimitFollowsTheLiveHeap(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") != "" {
		t.Skip("GOMEMLIMIT or GOGC set")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	Start()
	waitFor := func(ok func(int64) bool) int64 {
		deadline := time.Now().Add(5 * time.Second)
		for {
			runtime.GC()
			l := Limit()
			if ok(l) || time.Now().After(deadline) {
				return l
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if l := waitFor(func(l int64) bool { return l == Goal }); l != Goal {
		t.Errorf("small heap: limit %d MiB, want the goal %d MiB", l>>20, Goal>>20)
	}
	big := make([][]byte, 100)
	for i := range big {
		big[i] = make([]byte, 1<<20)
	}
	if l := waitFor(func(l int64) bool { return l >= 150<<20 }); l < 150<<20 {
		t.Errorf("100 MiB live: limit %d MiB, want at least 150 MiB", l>>20)
	}
	runtime.KeepAlive(big)
	big = nil
	if l := waitFor(func(l int64) bool { return l == Goal }); l != Goal {
		t.Errorf("heap freed: limit %d MiB, want the goal again", l>>20)
	}
}
