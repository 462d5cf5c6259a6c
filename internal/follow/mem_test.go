package follow

import (
	"runtime"
	"testing"
	"time"
)

// heapNow is the live heap after a collection.
func heapNow() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// maxBytesPerFile bounds what following one file costs while it is
// closed (the most of a large tree): its entry, path, identity, place in
// the maps. Each file kept two os.FileInfo (its file's and the start
// file's: 208 bytes each on the heap), its path twice and a start key
// for ever: 989 bytes here.
const maxBytesPerFile = 720

// 5,000 files in 50 directories followed, read and closed: the heap they
// take, per file, stays within maxBytesPerFile. audit --follow and watch
// follow trees of tens of thousands of files.
func TestBytesPerFollowedFile(t *testing.T) {
	const dirs, perDir = 50, 100
	root, paths := idleTree(t, dirs, perDir)
	base := heapNow()
	s := newStepper(t, []string{root}, Options{Recursive: true, FromStart: true, IdleClose: time.Nanosecond})
	if n := len(s.lines); n != len(paths) {
		t.Fatalf("lines of %d files, want %d", n, len(paths))
	}
	s.lines = nil // the test's, not the follower's
	s.tick()      // closes every file
	if s.f.nOpen != 0 {
		t.Fatalf("%d files open, want 0", s.f.nOpen)
	}
	per := (heapNow() - base) / int64(len(paths))
	runtime.KeepAlive(s)
	t.Logf("%d files followed, all closed: %d bytes each", len(paths), per)
	if per > maxBytesPerFile {
		t.Errorf("%d bytes of heap per followed file, want at most %d", per, maxBytesPerFile)
	}
}
