// Package follow follows growing log files the way `tail -F` does. It knows
// nothing about Kafka: it turns appended bytes into lines, survives log
// rotation, and hands lines over in batches.
//
// # Inputs
//
// [New] takes a list of paths. A path that is a directory when New is called
// is a directory input: every regular file directly in it whose base name
// Options.Match accepts is followed, including files that appear later
// (with Options.Recursive, in its subdirectories too, at any depth).
// Any other path is a file input: it is followed whether or not it exists yet.
//
// Changes are noticed with fsnotify watching the parent directory of each
// file (and each directory input), filtering events by name, so rename
// rotation, deletion and re-creation are all seen. With Options.Poll, or when
// fsnotify cannot be used, files are polled every Options.PollInterval
// instead. In fsnotify mode the events drive everything: an overflow of
// the event queue makes a look at every file at once, directories that do
// not exist yet are polled until they do, and, as a safety net for events
// lost without notice, a sweep goes through every directory and file at a
// bounded rate (sweepRate looks a second, a round at most once a second):
// idle, a tree of 20,000 files costs what a few hundred stats a second
// cost, not a stat of every file. With fsnotify a line usually arrives
// within a millisecond of being written; polling adds up to PollInterval.
//
// # Descriptors
//
// Descriptors are bounded by design, not by the number of files: a file is
// kept open only while it is active, and at most Options.MaxOpen files are
// open at once (by default the descriptor limit, the soft one raised to the
// hard one, less a reserve, at most 8,192: fdlimit.Files). A file that has
// had nothing new for Options.IdleClose (default 5 s), or the least
// recently active one when the bound is reached, is closed; its path,
// identity (device and inode, and a sum of its first 64 bytes: a deleted
// file's inode number goes to the next file made), read offset and the
// bytes before that offset are kept, and it is opened again when it
// changes: an event for it, or, at each look, a size or modification time
// other than when it was closed. Rotation is told apart the same way as
// for an open file (the identity at the path, the 64 bytes before the
// offset). A closed file that was renamed is looked for by its identity
// in its directory and read to its end there first; one that was deleted
// while closed cannot be read any more (see below). fsnotify watches
// directories only, never files.
//
// # Start position
//
// [New] is the start. With Options.FromStart every file is read from offset
// 0. Otherwise a file present at New starts at Options.StartOffset(path, r,
// size) if that is set, else at its end. A start offset that falls inside a
// line is moved forward to the next line start, so the first line delivered
// is always whole. Files that appear after New are read from offset 0.
//
// # Rotation
//
// Each followed path is bound to one open file (inode) at a time, and each
// file is followed under one name only: a second name for a file that is
// already followed (a hard link) waits until the first lets go of it.
//
//   - Rename rotation (log4j: state-change.log -> state-change.log.2019-02-25-15,
//     new state-change.log): the old file is read to EOF before the new one is
//     read from offset 0. When a directory input's Match also accepts the
//     rotated name, the rotated file is followed on under that name from
//     where it was left, not read again.
//   - Copytruncate: when the file shrinks below the read offset, or the 64
//     bytes before the read offset changed (so truncating and writing as
//     much or more between two looks is caught too, unless the new bytes
//     there happen to be the same), reading restarts at offset 0.
//   - Delete and re-create: the deleted file is read to EOF through the
//     open descriptor, an error wrapping [ErrDeleted] is reported, and the new
//     file is read from offset 0.
//
// Some lines cannot be seen by anyone: those of a file that is rotated or
// deleted before it was ever opened (say, created and renamed away between
// two polls), those a copytruncate copies away before they were read, and
// those written to a file while it was closed (idle, or the least recently
// active one at the descriptor bound) just before it was deleted or
// renamed out of its directory.
//
// # Lines
//
// A line is the bytes up to '\n'; the '\n' and one '\r' before it are removed.
// A last line with no '\n' yet is held until it completes; it is delivered as
// it is when its file is rotated away, or truncated, or when Run stops. A
// line longer than Options.MaxLine is cut to MaxLine bytes and delivered with
// Truncated set as soon as that is known; the rest of it is skipped. Memory
// use does not depend on file sizes.
//
// Lines are delivered on [Follower.Lines] in batches of up to 4096 lines
// (and about 4 MiB). A batch is handed over as soon as the receiver is ready;
// while the receiver is busy, lines accumulate into the next batch, so
// batches grow under load and latency stays low when it is light. Each line
// is delivered once, in file order; lines of different files interleave.
//
// Files are opened read-only (on Windows sharing read, write and delete, so
// the writer can still rotate them) and never written, renamed, locked or
// truncated.
//
// # Errors
//
// Problems with one file (cannot open or read it, it was deleted, it is not a
// regular file) are sent to [Follower.Errors] as *fs.PathError naming the
// path (the Op "follow" with [ErrDeleted] for deletion, or for a file that
// left its directory while it was closed), and following goes on
// for the other files; a file that becomes readable again is picked up
// again. An error is reported once per change of state, not on every retry.
// Errors are dropped when nobody receives them and the buffer (64) is full;
// [Follower.Files] always shows each file's current error. Errors not about
// one file (fsnotify failing, so that polling takes over) are plain errors.
//
// # Use
//
//	f, err := follow.New(paths, follow.Options{Match: isLog})
//	...
//	go func() { errc <- f.Run(ctx) }()
//	for batch := range f.Lines() { ... } // ends after ctx is cancelled
//
// The receiver should keep draining Lines until it is closed: when ctx is
// cancelled Run hands over what it has already read (including held partial
// lines) before closing Lines, waiting up to one second for the receiver.
package follow

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/leaderaudit/leaderaudit/internal/fdlimit"
)

// Line is one line of a followed file.
type Line struct {
	// Path is the file's path: a file input as given to New, or a directory
	// input joined with the file's name.
	Path string
	// Text is the line without its "\n" or "\r\n". It belongs to the
	// receiver; it may share a backing array with other lines of the same
	// batch, but never with anything the Follower writes to later.
	Text []byte
	// Truncated reports that the line was longer than Options.MaxLine and
	// Text holds only its first MaxLine bytes.
	Truncated bool
	// Restart: the first line of another file at Path (rotated in,
	// re-created, or the file truncated and rewritten), so line numbers
	// start again. Lines of the previous file all came before it.
	Restart bool
}

// Options configure a Follower. The zero value follows with fsnotify from
// the end of every file.
type Options struct {
	// Match selects the files of directory inputs by base name. Nil
	// follows every regular file. It is not applied to file inputs.
	Match func(name string) bool
	// Poll checks files every PollInterval instead of using fsnotify, for
	// filesystems where inotify does not work (NFS, some FUSE and container
	// mounts).
	Poll bool
	// PollInterval is the polling period (default 250ms). In fsnotify mode
	// it is how often directories that cannot be watched (not there yet)
	// are polled.
	PollInterval time.Duration
	// FromStart reads every file from offset 0.
	FromStart bool
	// StartOffset, if set and FromStart is not, gives the start offset of a
	// file present at New; r reads the file (only during the call) and size
	// is its size at New.
	// The result is clamped to [0, size]. Nil means start at the end.
	// SeekBackByTime is meant to be used here. It is called by Run, when
	// the file is first opened.
	StartOffset func(path string, r io.ReaderAt, size int64) int64
	// MaxLine is the longest line delivered whole, in bytes (default 1 MiB).
	MaxLine int
	// Recursive makes directory inputs take in their subdirectories too,
	// at any depth and including those created later (each watched like a
	// directory input), so a log tree is followed the way a batch walk
	// reads it. Dir, if set, selects the subdirectories by base name.
	Recursive bool
	Dir       func(name string) bool
	// MaxOpen bounds the files open at once (default fdlimit.Files(): the
	// descriptor limit less a reserve). IdleClose closes a file that has
	// had nothing new for that long (default 5s; negative: only at the
	// bound).
	MaxOpen   int
	IdleClose time.Duration
}

// FileState describes one followed file, for status displays.
type FileState struct {
	Path    string
	Offset  int64 // bytes of the current file consumed so far
	Size    int64 // size of the current file when last looked at
	Missing bool  // the path does not exist (yet)
	Err     error // why the file cannot be followed right now, or nil
}

// ErrDeleted is wrapped by the error reported when a followed file was
// deleted (its last link removed) while it was being followed. Its contents
// were still read to the end. Filter with errors.Is if that is expected, as
// with delete-and-recreate rotation.
var ErrDeleted = errors.New("file deleted while being followed")

var errNotRegular = errors.New("not a regular file")

const (
	defaultPollInterval = 250 * time.Millisecond
	defaultMaxLine      = 1 << 20
	defaultIdleClose    = 5 * time.Second
	safetyInterval      = time.Second // fsnotify mode: a sweep round starts at most this often
	maxBatchLines       = 4096
	maxBatchBytes       = 4 << 20
	readSize            = 64 << 10
	readBudget          = 1 << 20 // bytes read from one file before others get a turn
	maxRetired          = 64
	stopGrace           = time.Second
	errBuffer           = 64
)

// sweepRate bounds the safety net's work in fsnotify mode: names listed
// and files looked at per second, whatever the number of files.
const sweepRate = 512

// Follower follows a set of files. Create it with New, then call Run.
type Follower struct {
	opts      Options
	maxLine   int
	interval  time.Duration
	maxOpen   int
	idleClose time.Duration

	lines   chan []Line
	errs    chan error
	started atomic.Bool

	mu    sync.Mutex // guards order and every entry's pub, for Files
	order []*entry

	// Everything below belongs to the Run goroutine (and to New before it).
	dirs     map[string]*dirState // by absolute path
	dirOrder []*dirState
	entries  map[string]*entry // by absolute path
	gone     map[string]bool   // paths whose entry had a file open and was removed
	queue    []*entry          // entries to read
	watcher  *fsnotify.Watcher
	ticks    int
	retired  []retired // rotated-away files remembered for a while, see retire
	recheck  bool      // a file was retired: entries waiting for it may take it
	scans    int       // full looks at everything so far (rescan)
	drained  bool      // the queue was empty since the last full look
	// The sweep (fsnotify mode): the next directory of dirOrder, the files
	// of the last one still to look at, the looks it may make this tick,
	// the tick its round began; and how many directories are not watched.
	sweepAt     int
	sweepFiles  []*entry
	sweepCredit int
	sweepBegan  int
	unwatched   int
	// calls counts stats and directory entries listed (tests).
	calls int

	// Descriptors: the entries with an open file, most recently active
	// first, and how many; entries by the file they follow (open or
	// closed: a file is followed under one name), and the start files.
	lru    list.List
	nOpen  int
	held   map[fileKey]*entry
	starts map[fileKey]bool
	moved  []*entry  // closed files whose paths moved on, for findMoved
	epoch  time.Time // entries' active times count from it

	batch      []Line
	batchBytes int
	arena      []byte
	buf        []byte
}

// dirState is a directory that is watched: the parent of file inputs, or a
// directory input.
type dirState struct {
	abs     string
	path    string // as the caller spelled it (for Line.Path of discovered files)
	input   bool   // a directory input: follow files that Match accepts
	watched bool
	err     error // last watch/scan error reported
	depth   int   // below the directory input it was found in (Recursive)
	// index: its files by identity, while findMoved runs (see locate).
	index map[fileKey]string
	// files: the entries of files in it, for markDir (a look at every
	// directory of a large tree must not go through every file for each).
	files map[*entry]struct{}
}

// retired is a file that was renamed away from its entry's path and read
// to its end (or could not be found to be). It is remembered (not kept
// open) over the next full scan so that an entry that finds it under
// another name (a directory input whose Match accepts rotated names)
// follows it on from where it was left instead of reading it again. Should
// its inode number be reused meanwhile by another file, the bytes before
// the offset tell them apart.
type retired struct {
	id   fileID
	off  int64
	prev tail
	head head
	scan int // f.scans when it was retired
}

// New returns a Follower for paths. It records the start: which files exist
// and their sizes. It opens nothing and starts nothing; Run does.
func New(paths []string, opts Options) (*Follower, error) {
	if len(paths) == 0 {
		return nil, errors.New("follow: no paths")
	}
	if opts.MaxLine < 0 {
		return nil, fmt.Errorf("follow: negative MaxLine %d", opts.MaxLine)
	}
	f := &Follower{
		opts:     opts,
		maxLine:  opts.MaxLine,
		interval: opts.PollInterval,
		lines:    make(chan []Line),
		errs:     make(chan error, errBuffer),
		dirs:     make(map[string]*dirState),
		entries:  make(map[string]*entry),
		gone:     make(map[string]bool),
		buf:      make([]byte, readSize),
		held:     make(map[fileKey]*entry),
		starts:   make(map[fileKey]bool),
		maxOpen:  opts.MaxOpen,
		epoch:    time.Now(),
	}
	if f.maxLine == 0 {
		f.maxLine = defaultMaxLine
	}
	if f.maxOpen <= 0 {
		f.maxOpen = fdlimit.Files()
	}
	switch f.idleClose = opts.IdleClose; {
	case f.idleClose == 0:
		f.idleClose = defaultIdleClose
	case f.idleClose < 0:
		f.idleClose = 0
	}
	if f.interval <= 0 {
		f.interval = defaultPollInterval
	}
	var dirInputs []*dirState
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("follow: %w", err)
		}
		fi, err := os.Stat(p)
		if err == nil && fi.IsDir() {
			d := f.dir(abs, p)
			if !d.input {
				d.input = true
				d.path = p
				dirInputs = append(dirInputs, d)
			}
			continue
		}
		if f.entries[abs] != nil {
			continue
		}
		e := f.addEntry(p, abs, f.dir(filepath.Dir(abs), filepath.Dir(p)), true)
		e.pub.Missing = errors.Is(err, fs.ErrNotExist)
		if err == nil && fi.Mode().IsRegular() {
			f.setStart(e, fi)
			e.pub.Size = fi.Size()
		}
	}
	if opts.Recursive {
		visited := map[string]bool{}
		for _, d := range append([]*dirState(nil), dirInputs...) {
			dirInputs = f.subdirs(d, visited, 0, dirInputs)
		}
	}
	for _, d := range dirInputs {
		des, err := os.ReadDir(d.abs)
		if err != nil {
			continue // Run reports it
		}
		for _, de := range des {
			name := de.Name()
			abs := filepath.Join(d.abs, name)
			if !f.match(name) || f.entries[abs] != nil {
				continue
			}
			fi, err := os.Stat(abs)
			if err != nil || !fi.Mode().IsRegular() || f.sameAsStart(fi) {
				continue
			}
			e := f.addEntry(filepath.Join(d.path, name), abs, d, false)
			f.setStart(e, fi)
			e.pub.Missing, e.pub.Size = false, fi.Size()
		}
	}
	f.starts = nil // only New tells start files from others
	return f, nil
}

// Lines returns the channel batches of lines are delivered on. It is closed
// when Run returns.
func (f *Follower) Lines() <-chan []Line { return f.lines }

// Errors returns the channel per-file errors are reported on (buffered;
// errors are dropped when it is full). It is closed when Run returns.
func (f *Follower) Errors() <-chan error { return f.errs }

// Files returns the state of every followed file: file inputs in the order
// given, then files of directory inputs in the order they were found. Files
// of directory inputs that no longer exist are left out. Safe to call from
// any goroutine at any time.
func (f *Follower) Files() []FileState {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]FileState, len(f.order))
	for i, e := range f.order {
		out[i] = e.pub
	}
	return out
}

// Run follows the files until ctx is done, then delivers what it has already
// read, closes Lines and Errors, closes every file and returns nil. It returns
// an error without following anything only when called a second time.
func (f *Follower) Run(ctx context.Context) error {
	if !f.started.CompareAndSwap(false, true) {
		return errors.New("follow: Run called more than once")
	}
	defer close(f.errs)
	defer close(f.lines)
	defer f.closeAll()

	events, werrs := f.start()
	if w := f.watcher; w != nil {
		defer w.Close()
	}
	tick := time.NewTicker(f.interval)
	defer tick.Stop()
	for {
		f.process()
		var out chan<- []Line
		if len(f.batch) > 0 {
			out = f.lines
		}
		select {
		case <-ctx.Done():
			f.finish()
			return nil
		case out <- f.batch:
			f.batch, f.batchBytes = nil, 0
		case ev, ok := <-events:
			if !ok { // the watcher broke down: poll instead
				events, werrs, f.watcher = nil, nil, nil
				continue
			}
			f.handleEvent(ev)
			f.drainEvents(events)
		case err, ok := <-werrs:
			if !ok {
				events, werrs, f.watcher = nil, nil, nil
				continue
			}
			f.handleWatchError(err)
		case <-tick.C:
			f.onTick()
		}
	}
}

// start sets up the watches and queues every file for a first look.
func (f *Follower) start() (<-chan fsnotify.Event, <-chan error) {
	var events <-chan fsnotify.Event
	var werrs <-chan error
	if !f.opts.Poll {
		w, err := fsnotify.NewWatcher()
		if err != nil {
			f.report(fmt.Errorf("follow: fsnotify unavailable, polling instead: %w", err))
		} else {
			f.watcher = w
			events, werrs = w.Events, w.Errors
		}
	}
	for _, d := range f.dirOrder {
		f.addWatch(d)
	}
	// Watches first, then look: whatever changes after this is an event.
	for _, d := range f.dirOrder {
		if d.input {
			f.scanDir(d, true)
		}
	}
	f.mu.Lock()
	all := append([]*entry(nil), f.order...)
	f.mu.Unlock()
	for _, e := range all {
		f.markDirty(e)
	}
	return events, werrs
}

// stat and readDir are os.Stat and os.ReadDir, counted (calls).
func (f *Follower) stat(path string) (os.FileInfo, error) {
	f.calls++
	return os.Stat(path)
}

func (f *Follower) readDir(path string) ([]os.DirEntry, error) {
	des, err := os.ReadDir(path)
	f.calls += 1 + len(des)
	return des, err
}

func (f *Follower) match(name string) bool {
	return f.opts.Match == nil || f.opts.Match(name)
}

// dir returns the dirState for abs, creating it.
func (f *Follower) dir(abs, path string) *dirState {
	d := f.dirs[abs]
	if d == nil {
		d = &dirState{abs: abs, path: path}
		f.unwatched++
		f.dirs[abs] = d
		f.dirOrder = append(f.dirOrder, d)
	}
	return d
}

func (f *Follower) addEntry(path, abs string, d *dirState, explicit bool) *entry {
	if abs == path {
		abs = path // one string, not two, for each of many files
	}
	e := &entry{path: path, abs: abs, dir: d, explicit: explicit, opened: f.gone[abs]}
	e.pub = FileState{Path: path, Missing: true}
	f.entries[abs] = e
	if d.files == nil {
		d.files = make(map[*entry]struct{})
	}
	d.files[e] = struct{}{}
	f.mu.Lock()
	f.order = append(f.order, e)
	f.mu.Unlock()
	return e
}

func (f *Follower) removeEntry(e *entry) {
	e.removed = true
	if e.opened {
		// A file that turns up at this path again is another file.
		f.gone[e.abs] = true
	}
	delete(f.entries, e.abs)
	delete(e.dir.files, e)
	f.mu.Lock()
	for i, o := range f.order {
		if o == e {
			f.order = append(f.order[:i], f.order[i+1:]...)
			break
		}
	}
	f.mu.Unlock()
}

func (f *Follower) setStart(e *entry, fi os.FileInfo) {
	e.start, e.startSize = idOf(fi), fi.Size()
	if k, ok := e.start.key(); ok {
		f.starts[k] = true
	}
}

// sameAsStart reports whether fi is the start file of an entry (New).
func (f *Follower) sameAsStart(fi os.FileInfo) bool {
	id := idOf(fi)
	if k, ok := id.key(); ok {
		return f.starts[k]
	}
	for _, e := range f.entries {
		if e.start.same(id) {
			return true
		}
	}
	return false
}

// holder returns the entry other than e that follows file id (open or
// closed).
func (f *Follower) holder(id fileID, e *entry) *entry {
	if k, ok := id.key(); ok {
		if o := f.held[k]; o != nil && o != e {
			return o
		}
		return nil
	}
	for _, o := range f.entries {
		if o != e && o.id.same(id) {
			return o
		}
	}
	return nil
}

func (f *Follower) markDirty(e *entry) {
	if !e.queued && !e.removed {
		e.queued = true
		f.queue = append(f.queue, e)
	}
}

func (f *Follower) markDir(d *dirState) {
	for e := range d.files {
		f.markDirty(e)
	}
}

// process reads queued entries until the queue is empty or the batch full.
func (f *Follower) process() {
	for !f.full() {
		if len(f.queue) == 0 && len(f.moved) > 0 {
			f.findMoved()
			continue
		}
		if len(f.queue) == 0 {
			if !f.recheck {
				f.drained = true
				return
			}
			f.recheck = false
			for _, e := range f.entries {
				if e.waiting {
					f.markDirty(e)
				}
			}
			continue
		}
		e := f.queue[0]
		f.queue[0] = nil
		f.queue = f.queue[1:]
		e.queued = false
		if e.removed {
			continue
		}
		budget := readBudget
		more := f.service(e, &budget)
		if e.removed {
			continue
		}
		f.publish(e)
		if more {
			f.markDirty(e)
		}
	}
}

func (f *Follower) full() bool {
	return len(f.batch) >= maxBatchLines || f.batchBytes >= maxBatchBytes
}

func (f *Follower) drainEvents(events <-chan fsnotify.Event) {
	for range 4096 {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			f.handleEvent(ev)
		default:
			return
		}
	}
}

func (f *Follower) handleEvent(ev fsnotify.Event) {
	if d := f.dirs[ev.Name]; d != nil {
		// A watched directory itself (seen from its own watch, or from its
		// parent's when that is watched too).
		switch {
		case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
			// Its watch is gone; ticks add it again once a directory is
			// there again.
			if d.watched {
				d.watched = false
				f.unwatched++
				_ = f.watcher.Remove(d.abs)
			}
			f.markDir(d)
		case ev.Has(fsnotify.Create) && !d.watched:
			f.addWatch(d)
			if d.input {
				f.scanDir(d, true)
			}
			f.markDir(d)
		}
		return
	}
	if e := f.entries[ev.Name]; e != nil {
		e.touched = true // a closed file is opened again, whatever its size says
		f.markDirty(e)
		return
	}
	d := f.dirs[filepath.Dir(ev.Name)]
	if d == nil || !d.input || !ev.Has(fsnotify.Create|fsnotify.Write|fsnotify.Chmod) {
		return
	}
	name := filepath.Base(ev.Name)
	if f.opts.Recursive && ev.Has(fsnotify.Create) {
		if fi, err := f.stat(ev.Name); err == nil && fi.IsDir() {
			f.subdir(d, name)
			return
		}
	}
	if f.match(name) {
		f.discover(d, name, true)
	}
}

func (f *Follower) handleWatchError(err error) {
	if !errors.Is(err, fsnotify.ErrEventOverflow) {
		f.report(fmt.Errorf("follow: fsnotify: %w", err))
	}
	// Events may have been lost: look at everything.
	f.rescan(true)
}

func (f *Follower) onTick() {
	f.ticks++
	if f.watcher == nil {
		f.rescan(true) // polling: everything, every tick
	} else {
		f.rescan(false)
		f.sweep()
	}
	f.closeIdle(time.Now())
}

// rescan looks at the directories that are not watched, or at all of them.
func (f *Follower) rescan(all bool) {
	if all {
		f.forgetRetired()
	} else if f.unwatched == 0 {
		return
	}
	for _, d := range f.dirOrder {
		if d.watched && !all {
			continue
		}
		f.addWatch(d)
		if d.input {
			f.scanDir(d, true)
		}
		f.markDir(d)
	}
}

// sweep is the safety net in fsnotify mode, for events lost without an
// overflow said so (a write through mmap, a filesystem that reports some
// changes only): it goes through every directory (listing a directory
// input for files it has not heard of) and every file (an open one is
// read on if it grew, a closed one stat'ed and opened again if it
// changed), making at most sweepRate looks a second. A look at everything
// once a second cost what the files number: 20,000 idle files, 6% of a
// core. A round starts at most once per safetyInterval, and ends the
// retired files' wait as a full look does (forgetRetired).
func (f *Follower) sweep() {
	per := max(1, int(sweepRate*f.interval/time.Second))
	f.sweepCredit = min(f.sweepCredit+per, per)
	for f.sweepCredit > 0 {
		if n := len(f.sweepFiles); n > 0 {
			e := f.sweepFiles[n-1]
			f.sweepFiles[n-1] = nil
			f.sweepFiles = f.sweepFiles[:n-1]
			if !e.removed {
				f.markDirty(e)
				f.sweepCredit--
			}
			continue
		}
		if f.sweepAt >= len(f.dirOrder) {
			if len(f.dirOrder) == 0 || f.ticks-f.sweepBegan < max(1, int(safetyInterval/f.interval)) {
				return
			}
			f.forgetRetired()
			f.sweepAt, f.sweepBegan = 0, f.ticks
		}
		d := f.dirOrder[f.sweepAt]
		f.sweepAt++
		f.sweepCredit--
		f.addWatch(d)
		if d.input {
			// A directory is listed at once, whatever it costs; the
			// credit going below zero makes the next ticks pay for it.
			f.sweepCredit -= f.scanDir(d, false)
		}
		for e := range d.files {
			f.sweepFiles = append(f.sweepFiles, e)
		}
	}
}

// forgetRetired, at a full scan, forgets the retired files no entry took
// over: those retired before the previous full scan, once every entry
// queued since has been looked at. That scan found every name they could
// have gone to.
func (f *Follower) forgetRetired() {
	if f.drained {
		keep := f.retired[:0]
		for _, r := range f.retired {
			if r.scan == f.scans {
				keep = append(keep, r)
			}
		}
		clear(f.retired[len(keep):])
		f.retired = keep
	}
	f.scans++
	f.drained = false
}

func (f *Follower) addWatch(d *dirState) {
	if f.watcher == nil || d.watched {
		return
	}
	err := f.watcher.Add(d.abs)
	if err == nil {
		d.watched = true
		f.unwatched--
		return
	}
	// A directory that is not there (yet) is polled, not an error.
	if fi, serr := f.stat(d.abs); serr == nil && fi.IsDir() {
		f.dirError(d, "watch", err)
	}
}

func (f *Follower) dirError(d *dirState, op string, err error) {
	perr := &fs.PathError{Op: op, Path: d.path, Err: unwrapPathError(err)}
	if d.err == nil || d.err.Error() != perr.Error() {
		f.report(perr)
	}
	d.err = perr
}

// scanDir lists a directory input and discovers the files Match accepts;
// with known, the files already followed are queued too. It returns how
// many names it listed.
func (f *Follower) scanDir(d *dirState, known bool) int {
	des, err := f.readDir(d.abs)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			f.dirError(d, "scan", err)
		}
		return len(des)
	}
	d.err = nil
	for _, de := range des {
		name := de.Name()
		if f.opts.Recursive && (de.IsDir() || de.Type()&fs.ModeSymlink != 0) {
			if fi, err := f.stat(filepath.Join(d.abs, name)); err == nil && fi.IsDir() {
				f.subdir(d, name)
				continue
			}
		}
		if f.match(name) {
			f.discover(d, name, known)
		}
	}
	return len(des)
}

// maxDepth bounds how deep Recursive goes below a directory input (the
// batch walk's limit).
const maxDepth = 32

// subdirs adds the subdirectories of d, at any depth, as directory inputs
// (New, before anything is watched). Real paths already visited are
// skipped, so symlink loops end.
func (f *Follower) subdirs(d *dirState, visited map[string]bool, depth int, out []*dirState) []*dirState {
	real, err := filepath.EvalSymlinks(d.abs)
	if err != nil || visited[real] || depth > maxDepth {
		return out
	}
	visited[real] = true
	d.depth = depth
	des, err := os.ReadDir(d.abs)
	if err != nil {
		return out
	}
	for _, de := range des {
		name := de.Name()
		if !f.dirOK(name) {
			continue
		}
		abs := filepath.Join(d.abs, name)
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			continue
		}
		sd := f.dir(abs, filepath.Join(d.path, name))
		if sd.input {
			continue
		}
		sd.input = true
		out = append(out, sd)
		out = f.subdirs(sd, visited, depth+1, out)
	}
	return out
}

func (f *Follower) dirOK(name string) bool {
	return f.opts.Dir == nil || f.opts.Dir(name)
}

// subdir takes in a subdirectory of directory input d seen while running
// (created after New, or missed): it is watched and scanned like d, and
// what is in it is new, so read from its first byte.
func (f *Follower) subdir(d *dirState, name string) {
	abs := filepath.Join(d.abs, name)
	if sd := f.dirs[abs]; sd != nil && sd.input || !f.dirOK(name) || d.depth >= maxDepth {
		return
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		// A link back up the tree would recurse for ever.
		for _, o := range f.dirOrder {
			if o.input && o.abs != abs {
				if r, err := filepath.EvalSymlinks(o.abs); err == nil && r == real {
					return
				}
			}
		}
	}
	sd := f.dir(abs, filepath.Join(d.path, name))
	sd.input, sd.depth = true, d.depth+1
	f.addWatch(sd)
	f.scanDir(sd, true)
}

// discover handles a name in a directory input that Match accepts; a
// file already followed is queued if known.
func (f *Follower) discover(d *dirState, name string, known bool) {
	abs := filepath.Join(d.abs, name)
	if e := f.entries[abs]; e != nil {
		if known {
			f.markDirty(e)
		}
		return
	}
	fi, err := f.stat(abs)
	if err != nil && errors.Is(err, fs.ErrNotExist) || err == nil && !fi.Mode().IsRegular() {
		return
	}
	e := f.addEntry(filepath.Join(d.path, name), abs, d, false)
	if err == nil && f.isRetired(idOf(fi)) {
		// A rotated file under its new name: take it over now, before
		// it is forgotten.
		f.open(e)
		f.publish(e)
	}
	f.markDirty(e)
}

// finish hands over what has been read, including held partial lines.
func (f *Follower) finish() {
	f.mu.Lock()
	all := append([]*entry(nil), f.order...)
	f.mu.Unlock()
	for _, e := range all {
		f.flushPartial(e)
		f.publish(e)
	}
	timer := time.NewTimer(stopGrace)
	defer timer.Stop()
	for len(f.batch) > 0 {
		n := min(len(f.batch), maxBatchLines)
		select {
		case f.lines <- f.batch[:n:n]:
			f.batch = f.batch[n:]
		case <-timer.C:
			return
		}
	}
}

func (f *Follower) closeAll() {
	for _, e := range f.entries {
		if e.f != nil {
			f.detach(e)
		}
	}
	f.retired = nil
}

// report sends err on Errors unless the buffer is full.
func (f *Follower) report(err error) {
	select {
	case f.errs <- err:
	default:
	}
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
