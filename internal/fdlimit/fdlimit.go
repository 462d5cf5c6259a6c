// Package fdlimit is the process's descriptor limit, for the readers and
// the follower that size how many files they keep open from it.
package fdlimit

import "sync"

// Reserve is what the log files leave to everything else: standard
// streams, a log store's connections, watch's inotify and terminal.
const Reserve = 64

// Max bounds the log files open at once however high the limit.
const Max = 8192

var (
	once  sync.Once
	limit int
)

// Limit raises the soft limit on open files to the hard one (Go does so at
// start-up too, since 1.19) and returns it; 0 where it is unknown.
func Limit() int {
	once.Do(func() { limit = raise() })
	return limit
}

// Files is how many log files may be open at once: Limit less Reserve,
// at most Max, at least 2.
func Files() int {
	n := Max
	if l := Limit(); l > 0 {
		n = min(n, l-Reserve)
	}
	return max(n, 2)
}
