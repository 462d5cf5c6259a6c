package follow

import (
	"bytes"
	"container/list"
	"errors"
	"io"
	"io/fs"
	"os"
	"time"
)

// entry is one followed path and the file currently open for it.
type entry struct {
	path     string // as reported in Line.Path
	abs      string
	dir      *dirState
	explicit bool // a file input (kept while missing); else found in a directory input
	removed  bool
	queued   bool

	// The file at this path when New ran; none once it was opened.
	start     fileID
	startSize int64
	// The file that was open when a read failed, to resume where it stopped.
	resume    fileID
	resumeOff int64

	f        *os.File
	id       fileID // of f, or of the file closed while idle (f nil)
	off      int64  // next byte of f to read
	prev     tail   // the bytes just before off
	head     head   // its first bytes, when it was last closed
	rotating bool   // path no longer refers to f: drain f to EOF, then switch
	waiting  bool   // the file at path is another entry's open file: wait for it
	skip     bool   // discarding up to the next '\n'
	partial  []byte // start of a line with no '\n' yet, at most maxLine+1 bytes
	opened   bool   // a file was open for this path before
	restart  bool   // the next line is the first of another file at this path

	size    int64
	missing bool
	err     error

	// Descriptors: its place in the Follower's lru while f is open; when
	// bytes were last read (or it was opened), since the Follower's
	// epoch; the modification time (Unix ns) when it was closed while
	// idle; an event named it since (open it again).
	elem    *list.Element
	active  time.Duration
	closeMt int64
	touched bool
	moved   bool // in Follower.moved

	pub FileState // copy for Files, guarded by Follower.mu
}

func (f *Follower) publish(e *entry) {
	st := FileState{Path: e.path, Offset: e.off, Size: max(e.size, e.off), Missing: e.missing, Err: e.err}
	f.mu.Lock()
	e.pub = st
	f.mu.Unlock()
}

// setErr records that e cannot be followed right now, reporting it if it is
// news.
func (f *Follower) setErr(e *entry, op string, err error) {
	perr := &fs.PathError{Op: op, Path: e.path, Err: unwrapPathError(err)}
	if e.err == nil || e.err.Error() != perr.Error() {
		f.report(perr)
	}
	e.err = perr
	e.missing = false
}

// service reads what is new in e's file, handling rotation and truncation.
// It reports whether more remains to be read (the budget or the batch ran
// out).
func (f *Follower) service(e *entry, budget *int) (more bool) {
	for {
		if e.f == nil {
			if !e.id.none() {
				if !f.reopen(e) {
					return false
				}
			} else if !f.open(e) {
				return false
			}
		}
		if !e.rotating {
			st, err := f.stat(e.abs)
			switch {
			case err == nil && idOf(st).same(e.id):
				e.size = st.Size()
				e.err = nil
			case err == nil || errors.Is(err, fs.ErrNotExist):
				// Renamed or deleted, perhaps replaced. Whatever was
				// written to the old file before that is read below.
				e.rotating = true
			default:
				f.setErr(e, "stat", err) // keep reading the open file
			}
		}
		eof, ok := f.read(e, budget)
		if !ok {
			return false
		}
		if !eof {
			return true
		}
		if !e.rotating {
			return false
		}
		f.retire(e)
		// Go round: open whatever is at the path now, from offset 0.
	}
}

// open opens the file at e's path. It reports whether e now has a file.
func (f *Follower) open(e *entry) bool {
	e.waiting = false
	st, err := f.stat(e.abs)
	if err == nil && !st.Mode().IsRegular() {
		err = errNotRegular
	}
	if err != nil {
		f.openFailed(e, err)
		return false
	}
	if o := f.holder(idOf(st), e); o != nil {
		// Another entry has this file open: it was renamed here from that
		// entry's path (or is a second link to it). Wait until that entry
		// has read it to the end and let go of it (retire), then carry on
		// from there; see process. A hard link is never let go of, so a
		// file is followed under one name only.
		e.waiting, e.missing, e.err = true, false, nil
		f.markDirty(o)
		return false
	}
	e.rotating = false
	f.slot(e)
	file, err := openFile(e.abs)
	if err != nil {
		f.openFailed(e, err)
		return false
	}
	fi, err := file.Stat()
	if err != nil {
		file.Close()
		f.setErr(e, "open", err)
		return false
	}
	id := idOf(fi)
	if r, ok := f.takeRetired(id, file); ok {
		// A rotated file that arrived under this name: carry on where its
		// previous name left it.
		f.flushPartial(e)
		f.attach(e, file, id)
		e.off, e.prev = r.off, r.prev
		e.start, e.resume = fileID{}, fileID{}
		e.missing, e.err, e.size = false, nil, fi.Size()
		return true
	}
	var off int64
	resumed := false
	switch {
	case e.start.same(id):
		off = f.startOffset(e, file, fi.Size())
	case e.resume.same(id) && e.head.of(file):
		off, resumed = e.resumeOff, true
	}
	e.start, e.resume = fileID{}, fileID{}
	f.attach(e, file, id)
	e.off = 0
	e.missing, e.err, e.size = false, nil, fi.Size()
	if !resumed {
		// Whatever was held came from a file that is gone.
		f.flushPartial(e)
		e.restart = e.opened
	}
	e.opened = true
	e.prev = tail{}
	if off > 0 {
		if e.prev.load(file, off) {
			e.off = off
			if !resumed && e.prev.b[e.prev.n-1] != '\n' {
				e.skip = true // started inside a line
			}
		}
	}
	return true
}

// tailLen is how many bytes before the read offset are compared on every
// read. One byte is not enough: copytruncate and a new write of the same
// length between two looks leave the size as it was and a '\n' before the
// offset; the timestamped line before it is another matter.
const tailLen = 64

// headLen is how many of a file's first bytes, with its device and
// inode, tell it from another file while it is closed. A deleted file's
// inode number goes to the next file made, in the same or another
// directory; the 64 bytes before the offset alone took a new file whose
// bytes there were the same (lines ending in the same run, the same
// frame of a stack trace) for the old one, and went on at the old
// offset: its lines up to there were lost (the stress test's rotated
// state-change.log given a deleted controller.log's inode).
const headLen = 64

// head is a file's first bytes, up to headLen and no further than what
// was read of it: their FNV-1a sum and how many.
type head struct {
	sum uint64
	n   uint8
}

func readHead(r io.ReaderAt, off int64) head {
	var b [headLen]byte
	n, _ := r.ReadAt(b[:min(off, headLen)], 0)
	return head{sum: fnv1a(b[:n]), n: uint8(n)}
}

// of reports whether r starts with h's bytes (none: any file does).
func (h head) of(r io.ReaderAt) bool {
	if h.n == 0 {
		return true
	}
	var b [headLen]byte
	n, _ := r.ReadAt(b[:h.n], 0)
	return n == int(h.n) && fnv1a(b[:n]) == h.sum
}

func fnv1a(b []byte) uint64 {
	s := uint64(14695981039346656037)
	for _, c := range b {
		s ^= uint64(c)
		s *= 1099511628211
	}
	return s
}

// tail is the last bytes read before the read offset.
type tail struct {
	b [tailLen]byte
	n int
}

// load reads the bytes before off from r.
func (t *tail) load(r io.ReaderAt, off int64) bool {
	n := int(min(off, tailLen))
	m, _ := r.ReadAt(t.b[:n], off-int64(n))
	if m < n {
		t.n = 0
		return false
	}
	t.n = n
	return true
}

// push adds bytes just read after the tail.
func (t *tail) push(p []byte) {
	if len(p) >= tailLen {
		t.n = copy(t.b[:], p[len(p)-tailLen:])
		return
	}
	if keep := tailLen - len(p); t.n > keep {
		copy(t.b[:], t.b[t.n-keep:t.n])
		t.n = keep
	}
	t.n += copy(t.b[t.n:], p)
}

func (f *Follower) openFailed(e *entry, err error) {
	if errors.Is(err, fs.ErrNotExist) {
		if !e.explicit {
			f.flushPartial(e)
			f.removeEntry(e)
			return
		}
		e.missing, e.err, e.size, e.off = true, nil, 0, 0
		return
	}
	f.setErr(e, "open", err)
}

// startOffset is where a file present at New starts.
func (f *Follower) startOffset(e *entry, r io.ReaderAt, size int64) int64 {
	if f.opts.FromStart {
		return 0
	}
	if size < e.startSize {
		return 0 // shrank since New: truncated, read it all
	}
	if f.opts.StartOffset == nil {
		return e.startSize
	}
	return min(max(f.opts.StartOffset(e.path, r, e.startSize), 0), e.startSize)
}

// read reads e's file from e.off until EOF, the budget or a full batch. It
// reports whether it reached EOF, and false in ok after a read error (the
// file is then closed, to be reopened and resumed later).
func (f *Follower) read(e *entry, budget *int) (eof, ok bool) {
	for {
		if f.full() || *budget <= 0 {
			return false, true
		}
		// Read from the tail before e.off: if those bytes are gone or
		// changed, the file was truncated (and maybe rewritten past e.off).
		at := e.off - int64(e.prev.n)
		n, err := e.f.ReadAt(f.buf, at)
		if err != nil && err != io.EOF {
			f.setErr(e, "read", err)
			e.resume, e.resumeOff = e.id, e.off
			e.head = readHead(e.f, e.off)
			f.detach(e)
			f.let(e)
			e.rotating = false
			return false, false
		}
		*budget -= n
		data := f.buf[:n]
		if k := e.prev.n; k > 0 {
			if n < k || !bytes.Equal(data[:k], e.prev.b[:k]) {
				f.flushPartial(e)
				e.off, e.restart, e.prev = 0, true, tail{}
				continue
			}
			data = data[k:]
		}
		c := f.consume(e, data)
		if c > 0 {
			e.off += int64(c)
			e.prev.push(data[:c])
			f.activeNow(e)
		}
		if c < len(data) {
			return false, true // batch full
		}
		if err == io.EOF || n < len(f.buf) {
			return true, true
		}
	}
}

// retire lets go of e's file after it was read to EOF and its path moved on.
func (f *Follower) retire(e *entry) {
	f.flushPartial(e)
	deleted := false
	if fi, err := e.f.Stat(); err == nil {
		if n, ok := linkCount(fi); ok && n == 0 {
			deleted = true
		}
	}
	if deleted {
		f.report(&fs.PathError{Op: "follow", Path: e.path, Err: ErrDeleted})
	}
	if !deleted {
		e.head = readHead(e.f, e.off)
		f.remember(e)
	}
	f.detach(e)
	f.let(e)
	e.off, e.rotating = 0, false
}

// remember makes e's file, renamed away, a retired one: it may turn up
// under another followed name.
func (f *Follower) remember(e *entry) {
	if e.off == 0 || !e.dir.input && !f.anyWaiting() {
		return
	}
	f.retired = append(f.retired, retired{id: e.id, off: e.off, prev: e.prev, head: e.head, scan: f.scans})
	if len(f.retired) > maxRetired {
		f.retired = f.retired[1:]
	}
	f.recheck = true
}

func (f *Follower) anyWaiting() bool {
	for _, e := range f.entries {
		if e.waiting {
			return true
		}
	}
	return false
}

func (f *Follower) isRetired(id fileID) bool {
	for _, r := range f.retired {
		if r.id.same(id) {
			return true
		}
	}
	return false
}

// takeRetired takes the retired file that file (id) is, if any. One with
// id but another start is not it: its inode number went to a new file.
func (f *Follower) takeRetired(id fileID, file io.ReaderAt) (retired, bool) {
	for i, r := range f.retired {
		if r.id.same(id) {
			f.retired = append(f.retired[:i], f.retired[i+1:]...)
			return r, r.head.of(file)
		}
	}
	return retired{}, false
}

// consume splits data into lines for e. It returns how many bytes it used,
// which is less than len(data) only when the batch filled up.
func (f *Follower) consume(e *entry, data []byte) int {
	i := 0
	for i < len(data) {
		if f.full() {
			return i
		}
		rest := data[i:]
		nl := bytes.IndexByte(rest, '\n')
		if e.skip {
			if nl < 0 {
				return len(data)
			}
			e.skip = false
			i += nl + 1
			continue
		}
		if nl < 0 {
			f.hold(e, rest)
			return len(data)
		}
		f.emit(e, rest[:nl])
		i += nl + 1
	}
	return i
}

// hold keeps b, the start of an unfinished line. Once the line is known to
// be longer than MaxLine its first MaxLine bytes are delivered and the rest
// is skipped.
func (f *Follower) hold(e *entry, b []byte) {
	room := f.maxLine + 1 - len(e.partial)
	if len(b) <= room {
		e.partial = append(e.partial, b...)
		return
	}
	// More than MaxLine+1 bytes and still no '\n': too long even if the
	// line ends in "\r\n".
	e.partial = append(e.partial, b[:room]...)
	text := f.alloc(f.maxLine)
	copy(text, e.partial)
	f.add(e, text, true)
	f.dropPartial(e)
	e.skip = true
}

// emit delivers e's held partial line followed by seg as one line.
func (f *Follower) emit(e *entry, seg []byte) {
	p := e.partial
	n := len(p) + len(seg)
	if len(seg) > 0 && seg[len(seg)-1] == '\r' || len(seg) == 0 && len(p) > 0 && p[len(p)-1] == '\r' {
		n--
	}
	trunc := n > f.maxLine
	if trunc {
		n = f.maxLine
	}
	text := f.alloc(n)
	c := copy(text, p)
	copy(text[c:], seg)
	f.dropPartial(e)
	f.add(e, text, trunc)
}

// flushPartial delivers e's held partial line, if any, as it is.
func (f *Follower) flushPartial(e *entry) {
	if len(e.partial) > 0 {
		f.emit(e, nil)
	}
	e.skip = false
}

func (f *Follower) dropPartial(e *entry) {
	if cap(e.partial) > readSize {
		e.partial = nil // do not keep a MaxLine-sized buffer per file
	} else {
		e.partial = e.partial[:0]
	}
}

func (f *Follower) add(e *entry, text []byte, trunc bool) {
	f.batch = append(f.batch, Line{Path: e.path, Text: text, Truncated: trunc, Restart: e.restart})
	e.restart = false
	f.batchBytes += len(text)
}

// alloc returns n bytes for a line's text. Small texts are carved out of a
// shared block that is never written again once handed out.
func (f *Follower) alloc(n int) []byte {
	const block = 64 << 10
	if n > block/8 {
		return make([]byte, n)
	}
	if cap(f.arena)-len(f.arena) < n {
		f.arena = make([]byte, 0, block)
	}
	s := len(f.arena)
	f.arena = f.arena[:s+n]
	return f.arena[s : s+n : s+n]
}
