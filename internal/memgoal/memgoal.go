// Package memgoal holds the process's memory near a fixed goal while the
// data it keeps are small, and gives it room in proportion once they are
// not. The Go collector alone lets the heap grow to 1+GOGC/100 times what
// is live: an audit of 1,100 logs whose readers keep 25-35 MiB live
// (source.ReadBudget) peaked past 75 MiB, all of it garbage waiting for a
// collection. A fixed memory limit would keep that to the goal, but an
// audit's live data grow with partitions and elections (not with the
// logs): past the limit the collector would run back to back for no gain
// (tried: 3x the CPU, and the peak still 116 MB). So the limit is the goal
// or half again the live heap, whichever is more, set again after every
// collection: below about two thirds of the goal the peak stays at the
// goal for a collection a little more often; above, the headroom is half
// the live heap, at most 1.5 times the collector's work at GOGC=75 (Start's).
package memgoal

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Goal is the Go runtime's memory the process is held to while what it
// keeps is small: 64 MiB of resident memory less the 12 MiB the binary's
// pages and the runtime take before reading anything (`leaderaudit
// --version`: 11.5 MB max RSS).
const Goal = 52 << 20

// Start sets how the process collects (watch and audit alike), unless
// GOGC or GOMEMLIMIT says how: once.
func Start() { once.Do(start) }

var once sync.Once

func start() {
	if os.Getenv("GOGC") != "" {
		return
	}
	// The audit's live heap is small and steady (per partition, not per
	// line); collecting at +75% instead of +100% keeps the peak RSS of a
	// 4 GB audit near 50 MB for a few percent of CPU.
	debug.SetGCPercent(75)
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(Goal)
	arm()
}

// sentinel is found unreachable by every collection: its finalizer runs
// once after each and arms the next. It holds a pointer so it is not
// tiny-allocated (where finalizers may never run).
type sentinel struct{ _ *int }

func arm() {
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		adjust()
		arm()
	})
}

var live = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}

func adjust() {
	metrics.Read(live)
	if live[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	x := live[0].Value.Uint64()
	debug.SetMemoryLimit(int64(max(Goal, x+x/2)))
}

// Limit is the limit in force now.
func Limit() int64 { return debug.SetMemoryLimit(-1) }
