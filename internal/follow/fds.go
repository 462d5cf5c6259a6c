package follow

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Descriptors (see the package documentation): a followed file is open
// only while it is active. Closed, its entry keeps id (so it still holds
// the file: holder), off, prev and the modification time, and reopen
// takes it up again when it changed.

// slot makes room for one more open file: at the bound, the least
// recently active open file other than keep's is closed. Files being read
// to their end after a rotation are not: they could not be found again.
func (f *Follower) slot(keep *entry) {
	for f.nOpen >= f.maxOpen {
		el := f.lru.Back()
		for el != nil && (el.Value.(*entry) == keep || el.Value.(*entry).rotating) {
			el = el.Prev()
		}
		if el == nil {
			return
		}
		f.park(el.Value.(*entry))
	}
}

// attach makes file (id) e's open file.
func (f *Follower) attach(e *entry, file *os.File, id fileID) {
	e.f, e.id = file, id
	if k, ok := id.key(); ok {
		f.held[k] = e
	}
	f.nOpen++
	e.elem = f.lru.PushFront(e)
	e.active = time.Since(f.epoch)
}

// detach closes e's file; e still follows it (id) until let.
func (f *Follower) detach(e *entry) {
	e.f.Close()
	e.f = nil
	f.nOpen--
	f.lru.Remove(e.elem)
	e.elem = nil
}

// let makes e follow no file.
func (f *Follower) let(e *entry) {
	if e.id.none() {
		return
	}
	if k, ok := e.id.key(); ok && f.held[k] == e {
		delete(f.held, k)
	}
	e.id = fileID{}
}

// activeNow: bytes of e's file were just read.
func (f *Follower) activeNow(e *entry) {
	e.active = time.Since(f.epoch)
	if e.elem != nil {
		f.lru.MoveToFront(e.elem)
	}
}

// park closes e's file while it is idle (or to make room), remembering
// what tells a change: its modification time now, besides the read offset.
func (f *Follower) park(e *entry) {
	e.closeMt = 0
	if st, err := e.f.Stat(); err == nil {
		e.closeMt = st.ModTime().UnixNano()
	}
	e.head = readHead(e.f, e.off)
	f.detach(e)
}

// closeIdle closes the files that have had nothing new for IdleClose.
func (f *Follower) closeIdle(now time.Time) {
	if f.idleClose <= 0 {
		return
	}
	at := now.Sub(f.epoch)
	for el := f.lru.Back(); el != nil; {
		e, prev := el.Value.(*entry), el.Prev()
		if at-e.active < f.idleClose {
			return
		}
		if !e.rotating && !e.queued {
			f.park(e)
		}
		el = prev
	}
}

// reopen takes up e's closed file again if it changed. It reports whether
// e has a file open: its own, or (e.rotating) the one it followed, renamed
// while closed, to be read to its end before the file now at the path.
func (f *Follower) reopen(e *entry) bool {
	st, err := f.stat(e.abs)
	switch {
	case err == nil && idOf(st).same(e.id):
		e.size = st.Size()
		if !e.touched && st.Size() == e.off && st.ModTime().UnixNano() == e.closeMt {
			return false // nothing new
		}
		e.touched = false
		return f.openSame(e, e.abs)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		f.setErr(e, "stat", err)
		return false
	}
	e.touched = false
	// Renamed, deleted or replaced while closed. What was written to it
	// meanwhile is read where it went, as an open file's would be, once
	// process has found where that is (findMoved).
	if !e.moved {
		e.moved = true
		f.moved = append(f.moved, e)
	}
	return false
}

// findMoved looks for the closed files whose paths moved on, in one
// listing per directory made after all of them were seen to move (a
// rotation of many files in one directory lists it once, not once per
// file), and queues each: to be read to its end where it went, or, gone,
// to go on with the file at its path.
func (f *Follower) findMoved() {
	moved := f.moved
	f.moved = nil
	for _, e := range moved {
		e.moved = false
		if e.removed || e.f != nil || e.id.none() {
			continue
		}
		if p := f.locate(e); p != "" && f.openSame(e, p) {
			// Back at its own path (renamed back, or a new file given
			// the freed inode number): read on as usual there, the bytes
			// before the offset telling a new file.
			e.rotating = p != e.abs
		} else {
			// Gone from its directory: deleted, or moved out of it. A
			// followed name it turns up under still carries on from the
			// offset (retired).
			f.flushPartial(e)
			f.report(&fs.PathError{Op: "follow", Path: e.path, Err: ErrDeleted})
			f.remember(e)
			f.let(e)
			e.off, e.prev = 0, tail{}
		}
		f.markDirty(e)
	}
	for _, e := range moved {
		e.dir.index = nil
	}
}

// openSame opens path for e if it is still the file e follows.
func (f *Follower) openSame(e *entry, path string) bool {
	f.slot(e)
	file, err := openFile(path)
	if err != nil {
		if path == e.abs {
			if errors.Is(err, fs.ErrNotExist) {
				f.markDirty(e) // renamed since the stat: look again
			} else {
				f.setErr(e, "open", err)
			}
		}
		return false
	}
	fi, err := file.Stat()
	if err != nil || !idOf(fi).same(e.id) {
		file.Close()
		if path == e.abs {
			f.markDirty(e) // replaced since the stat: look again
		}
		return false
	}
	if !e.head.of(file) {
		// Another file in its inode: the number of a deleted file given
		// to a new one, or the file truncated and rewritten while closed.
		if path != e.abs {
			file.Close()
			return false // not where it went
		}
		f.flushPartial(e)
		e.off, e.prev, e.restart = 0, tail{}, true
	}
	f.attach(e, file, e.id)
	e.err, e.missing = nil, false
	return true
}

// locate finds where e's closed file is now in its directory, by identity,
// in the directory's listing made by the first call of a findMoved.
func (f *Follower) locate(e *entry) string {
	d := e.dir
	k, keyed := e.id.key()
	if keyed && d.index != nil {
		return d.index[k]
	}
	des, err := f.readDir(d.abs)
	if err != nil {
		return ""
	}
	if keyed {
		d.index = make(map[fileKey]string, len(des))
	}
	found := ""
	for _, de := range des {
		if !de.Type().IsRegular() {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue
		}
		p := filepath.Join(d.abs, de.Name())
		if keyed {
			if k2, ok := idOf(fi).key(); ok {
				d.index[k2] = p
			}
		}
		if found == "" && idOf(fi).same(e.id) {
			found = p
			if !keyed {
				break
			}
		}
	}
	return found
}
