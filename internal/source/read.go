package source

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/leaderaudit/leaderaudit/parser"
)

// MaxLine is the longest line kept whole; longer lines are cut there and
// counted, and the file goes on.
const MaxLine = 1 << 20

// Source is one input file being (or having been) read.
type Source struct {
	Input
	Index int
	Loc   *time.Location
	Stats parser.Stats
	// Err: the file could not be opened or read to the end; what was read
	// before the error is still audited.
	Err error
	// Read: the file was opened and read (maybe partly).
	Read  bool
	Bytes int64
	// Metadata summarises a KRaft metadata source.
	Metadata *MetadataSummary
	// Skew: how far this source's clock ran ahead; subtracted from every
	// event's time before the merge (--skew).
	Skew time.Duration
	// Reordered: events put back in time order (written out of order within
	// ReorderWindow); LateEvents: further out of order, left in file order.
	Reordered, LateEvents int64
}

// LineReader yields lines of at most max bytes, without their line ending.
// Longer lines are cut and the rest of the physical line skipped.
type LineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
	// Cut counts lines that were longer than max.
	Cut   int64
	Bytes int64
	rest  []byte // what follows a lone CR in the current line
}

// NewLineReader wraps r.
func NewLineReader(r io.Reader, max int) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, 256<<10), max: max}
}

// Next returns the next line; the slice is valid until the next call.
// A last line without a newline is returned too. err is io.EOF at the end.
// A lone CR (old Mac line ends, some pastes) also ends a line.
func (lr *LineReader) Next() ([]byte, error) {
	if lr.rest != nil {
		return lr.splitCR(lr.rest), nil
	}
	line, err := lr.next()
	if err != nil || bytes.IndexByte(line, '\r') < 0 {
		return line, err
	}
	return lr.splitCR(line), nil
}

// splitCR returns the part of b before its first CR and keeps the rest.
func (lr *LineReader) splitCR(b []byte) []byte {
	i := bytes.IndexByte(b, '\r')
	if i < 0 {
		lr.rest = nil
		return b
	}
	if i+1 < len(b) {
		lr.rest = b[i+1:]
	} else {
		lr.rest = nil
	}
	return b[:i]
}

func (lr *LineReader) next() ([]byte, error) {
	line, err := lr.r.ReadSlice('\n')
	lr.Bytes += int64(len(line))
	if err == nil {
		line = trimEOL(line)
		if len(line) > lr.max {
			lr.Cut++
			line = line[:lr.max]
		}
		return line, nil
	}
	if err == bufio.ErrBufferFull {
		lr.buf = append(lr.buf[:0], line...)
		for {
			line, err = lr.r.ReadSlice('\n')
			lr.Bytes += int64(len(line))
			if len(lr.buf) < lr.max {
				room := lr.max - len(lr.buf)
				if len(line) > room {
					lr.buf = append(lr.buf, line[:room]...)
				} else {
					lr.buf = append(lr.buf, line...)
				}
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if len(lr.buf) >= lr.max {
			lr.Cut++
		}
		if err == io.EOF && len(lr.buf) > 0 {
			err = nil
		}
		return trimEOL(lr.buf), err
	}
	if len(line) > 0 {
		// Last line without newline.
		line = trimEOL(line)
		if len(line) > lr.max {
			lr.Cut++
			line = line[:lr.max]
		}
		return line, nil
	}
	return nil, err
}

func trimEOL(b []byte) []byte {
	n := len(b)
	if n > 0 && b[n-1] == '\n' {
		n--
	}
	if n > 0 && b[n-1] == '\r' {
		n--
	}
	return b[:n]
}

// Item is one event and the source it came from.
type Item struct {
	Src int
	Ev  parser.Event
}

// batchSize and chainDepth bound the events in flight between a file's
// reader and the merge: memory that does not depend on the logs.
const (
	batchSize  = 256
	chainDepth = 2
)

// Reader reads a set of inputs concurrently and merges their events.
type Reader struct {
	Sources []*Source
	// LocFor picks the zone for zone-less timestamps of a path.
	LocFor func(path string) *time.Location
	// BrokerFor names the broker a path's lines come from when they name
	// none themselves (default parser.BrokerFromPath).
	BrokerFor func(path string) int32
	// Stdin replaces os.Stdin for "-" (tests).
	Stdin io.Reader
	// Section, if set, bounds what is read of each plain file (live reads
	// back from --since and follows on from where it stopped).
	Section func(*Source) Section
	// Parser, if set, gives each source's parser (live keeps them to go
	// on with the lines that follow).
	Parser func(*Source) *parser.Parser
	budget *budget
	// fdLimit replaces the process's descriptor limit (tests).
	fdLimit int
	chains  [][]*Source
	stores  []*store
	wg      sync.WaitGroup
}

func (r *Reader) brokerFor(path string) int32 {
	if r.BrokerFor != nil {
		return r.BrokerFor(path)
	}
	return parser.BrokerFromPath(path)
}

// NewReader prepares sources for the inputs, grouped into chains.
func NewReader(ins []Input, locFor func(string) *time.Location) *Reader {
	r := &Reader{LocFor: locFor}
	var cur []*Source
	last := ""
	for i, in := range ins {
		s := &Source{Input: in, Index: i}
		if locFor != nil {
			s.Loc = locFor(in.Path)
		}
		if s.Loc == nil {
			s.Loc = time.Local
		}
		r.Sources = append(r.Sources, s)
		if in.Err != nil {
			s.Err = in.Err // found, cannot be opened: not read
			continue
		}
		if in.Binary {
			continue
		}
		if in.Metadata {
			// Decoded on its own, in one piece: a chain of its own.
			if len(cur) > 0 {
				r.chains = append(r.chains, cur)
				cur = nil
			}
			r.chains = append(r.chains, []*Source{s})
			last = ""
			continue
		}
		if in.Chain != last && len(cur) > 0 {
			r.chains = append(r.chains, cur)
			cur = nil
		}
		last = in.Chain
		cur = append(cur, s)
	}
	if len(cur) > 0 {
		r.chains = append(r.chains, cur)
	}
	return r
}

type chainState struct {
	ch     chan []Item
	batch  []Item
	pos    int
	budget *budget
}

// before is the merge order of files and store streams alike: earliest
// first, the lower source index among equal times.
func before(a, b *Item) bool {
	if !a.Ev.Time.Equal(b.Ev.Time) {
		return a.Ev.Time.Before(b.Ev.Time)
	}
	return a.Src < b.Src
}

// batcher hands a reader's events to the merge about size at a time. Its
// sends block until the merge takes them, interrupt or not: the merge
// drains every reader to its end (see runGroup), so what was read is
// audited.
type batcher struct {
	out   chan<- []Item
	batch []Item
	size  int
	b     *budget
	// full, if set, hands on a batch that has grown past size (a file's
	// reader, which may give up its open file while it waits); else the
	// batch goes at size.
	full func()
}

func newBatcher(out chan<- []Item, b *budget) *batcher {
	return &batcher{out: out, batch: b.newBatch(), size: b.batch, b: b}
}

// renew starts a batch after one was handed on.
func (b *batcher) renew() { b.batch = b.b.newBatch() }

func (b *batcher) send(it *Item) {
	if b.full != nil && len(b.batch) >= b.size && len(b.batch) == cap(b.batch) {
		// A line with more events than the batch has room for (a
		// request for thousands of partitions): handed on before the
		// line ends.
		b.full()
	}
	b.batch = append(b.batch, *it)
	if b.full == nil && len(b.batch) >= b.size {
		b.flush()
	}
}

// flush hands on what is batched (also at the end of input, and part way
// through a log whose events are far apart, so the merge is not held up
// until a sparse controller.log has yielded a whole batch).
func (b *batcher) flush() {
	if len(b.batch) == 0 {
		return
	}
	b.out <- b.batch
	b.renew()
}

// maxChains bounds how many logs one merge takes: past it the chains are
// merged in groups, and ordering across groups is by group. Below it the
// memory is ReadBudget's (a reader's share shrinks with their number) and
// the open files are bounded by slots.
const maxChains = 4096

// Run reads everything and calls fn with every event in time order (file
// order within a file); fn must not keep the *Event. It returns when all input is read or ctx is done.
// Once ctx is done the readers stop reading, hand on what they hold (the
// parser's pending record, the reorder window, a part batch) and the merge
// goes on until every reader is drained: the audit covers everything read
// before the interrupt, and each source's Err says where its read stopped
// (errors.Is(err, ErrInterrupted)).
//
// The streams of log stores (AddStore) join the first group. Run returns
// only once their readers are done, so their sources may be read after.
func (r *Reader) Run(ctx context.Context, fn func(src int, ev *parser.Event)) {
	defer r.wg.Wait()
	stores := r.stores
	for start := 0; start < len(r.chains) || stores != nil; start += maxChains {
		end := min(start+maxChains, len(r.chains))
		if ctx.Err() != nil {
			for _, c := range r.chains[start:end] {
				for _, s := range c {
					s.Err = errNotRead
				}
			}
			continue
		}
		r.runGroup(ctx, r.chains[start:end], stores, fn)
		stores = nil
	}
}

// ErrInterrupted is in the chain of a source's Err when the read was
// stopped (Ctrl-C, SIGTERM) before the source's end: what was read of it
// is audited; the error says how far that was.
var ErrInterrupted = errors.New("interrupted")

type interruptedError struct{ msg string }

func (e *interruptedError) Error() string        { return e.msg }
func (e *interruptedError) Is(target error) bool { return target == ErrInterrupted }

var errNotRead = &interruptedError{"not read: the audit was interrupted before it was opened"}

// stoppedAt says how much of a source was read when the interrupt came.
func stoppedAt(s *Source, lines int64) error {
	msg := fmt.Sprintf("interrupted after line %d (%d bytes read", lines, s.Bytes)
	if s.Size > 0 && !s.Gzip {
		msg += fmt.Sprintf(" of %d", s.Size)
	}
	return &interruptedError{msg + "); what was read is audited"}
}

func (r *Reader) runGroup(ctx context.Context, chains [][]*Source, stores []*store, fn func(src int, ev *parser.Event)) {
	limit := r.fdLimit
	if limit == 0 {
		limit = fileLimit()
	}
	r.budget = newBudget(len(chains)+len(stores), limit)
	states := make([]*chainState, len(chains), len(chains)+len(stores))
	for _, s := range stores {
		st := &chainState{ch: make(chan []Item, r.budget.depth), budget: r.budget}
		states = append(states, st)
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.readStore(ctx, s, st.ch)
		}()
	}
	for i, c := range chains {
		st := &chainState{ch: make(chan []Item, r.budget.depth), budget: r.budget}
		states[i] = st
		// Run waits for every reader (they write their sources' Stats,
		// Err and Bytes, which the caller reads once Run returns); readers
		// give up promptly once ctx is done (see interruptible).
		r.wg.Add(1)
		if len(c) == 1 && c[0].Input.Metadata {
			go func() {
				defer r.wg.Done()
				r.readMetadata(ctx, c[0], st.ch)
			}()
			continue
		}
		go func() {
			defer r.wg.Done()
			r.readChain(ctx, c, st.ch)
		}()
	}
	// No ctx here: every reader closes its channel soon after ctx is done,
	// having handed on what it read, and all of that is merged.
	h := merger[*chainState]{head: func(st *chainState) *Item { return &st.batch[st.pos] }}
	for _, st := range states {
		if st.next() {
			h.xs = append(h.xs, st)
		}
	}
	h.init()
	for h.Len() > 0 {
		st := h.first()
		it := &st.batch[st.pos]
		fn(it.Src, &it.Ev)
		st.pos++
		if st.pos < len(st.batch) || st.next() {
			h.moved()
		} else {
			h.drop()
		}
	}
}

// next waits for the chain's next batch, giving back the one used up.
func (st *chainState) next() bool {
	if st.batch != nil {
		st.budget.done(st.batch)
		st.batch = nil
	}
	for b := range st.ch {
		if len(b) > 0 {
			st.batch, st.pos = b, 0
			return true
		}
	}
	return false
}

func (r *Reader) readChain(ctx context.Context, chain []*Source, out chan<- []Item) {
	defer close(out)
	bt := newBatcher(out, r.budget)
	send := bt.send
	held := reorder{max: r.budget.reorder}
	for _, s := range chain {
		if ctx.Err() != nil {
			s.Err = errNotRead
			continue
		}
		p := r.parser(s)
		emit := func(ev *parser.Event) {
			moved, late := held.push(s.Index, ev, s.Skew, send)
			if moved {
				s.Reordered++
			} else if late {
				s.LateEvents++
			}
		}
		r.readFile(ctx, s, p, emit, bt)
		p.Flush(emit)
		s.Stats = p.Stats
	}
	held.flush(send)
	bt.flush()
}

// interruptible makes a read that waits on a pipe, a FIFO or a terminal
// give up once ctx is done, so that Run can wait for its readers and still
// return at once on Ctrl-C. A file the runtime poller handles (a FIFO, a
// non-blocking pipe) gets a read deadline; a blocking one (stdin from a
// pipe) is read by a goroutine of its own, which is left behind blocked in
// its read and touches nothing but its own buffer. Regular files and
// other readers never wait long and are read as they are.
func interruptible(ctx context.Context, rd io.Reader) (io.Reader, func()) {
	f, ok := rd.(*os.File)
	if !ok {
		return rd, func() {}
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		return rd, func() {}
	}
	if f.SetReadDeadline(time.Time{}) == nil {
		stop := context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Now()) })
		return rd, func() { stop() }
	}
	return newPump(ctx, f), func() {}
}

// sparseLines: after this many lines a part batch is handed on, so a log
// with few events (a huge controller.log) does not hold the merge up.
const sparseLines = 1 << 14

// ctxLines: how often (in lines) a reader looks whether ctx is done.
const ctxLines = 4096

// fileIn is a file being read. It holds a descriptor slot while its file
// is open and a buffer slot while it has a read buffer; waiting on the
// merge while others wait for a slot it gives them up (at a line's end)
// and takes them again after, going on at the same offset.
type fileIn struct {
	r  *Reader
	s  *Source
	f  *os.File
	zr *gzip.Reader
	lr *blockReader
	id [2]uint64
	// fd, buf: holds a descriptor slot, a buffer slot.
	fd, buf bool
	// seekable: a regular file, reopened where it was left.
	seekable bool
	// line: the line being parsed, copied out of the buffer while others
	// wait for a slot (kept), so that a reader whose batch fills part way
	// through the line's events can give up its buffer and file for the
	// wait (detached) and take them again at the line's end.
	line           []byte
	kept, detached bool
}

func (fi *fileIn) open(ctx context.Context) error {
	s := fi.s
	if !s.Pipe {
		fi.r.budget.fds.acquire()
		fi.fd = true
	}
	f, err := fi.r.open(ctx, s)
	if err != nil {
		return err
	}
	fi.f = f
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		fi.seekable = true
		fi.id, _ = fileID(st)
	}
	return nil
}

// close closes the file and gives back its descriptor slot.
func (fi *fileIn) close() {
	if fi.zr != nil {
		fi.zr.Close()
		fi.zr = nil
	}
	if fi.f != nil {
		fi.f.Close()
		fi.f = nil
	}
	if fi.fd {
		fi.fd = false
		fi.r.budget.fds.release()
	}
}

// takeBuffer gives the line reader a buffer, taking a buffer slot.
func (fi *fileIn) takeBuffer(rd io.Reader) {
	bs := fi.r.budget.bufs
	if fi.seekable {
		bs.acquire()
		fi.buf = true
	}
	fi.lr.attach(bs.buffer(fi.r.budget.bufSize), rd)
}

// dropBuffer gives the buffer and its slot back (at a line's end).
func (fi *fileIn) dropBuffer() {
	if fi.lr.r == nil {
		return
	}
	fi.r.budget.bufs.put(fi.lr.detach())
	if fi.buf {
		fi.buf = false
		fi.r.budget.bufs.release()
	}
}

// handOn sends the batch to the merge. At a line's end, a regular file
// whose reader would wait while another reader waits for a slot gives up
// its buffer (and its descriptor, if that is what is short; a gzip file
// both, as it cannot seek back) for the wait. Part way through a line
// (one line with many events) it cannot give them up: it waits keeping
// them while budget.mayWaitMidLine allows, else the batch grows instead,
// until the line's end.
func (fi *fileIn) handOn(bt *batcher, atLine bool) error {
	if len(bt.batch) == 0 {
		return nil
	}
	if !fi.seekable {
		bt.flush()
		return nil
	}
	for {
		select {
		case bt.out <- bt.batch:
			bt.renew()
			return nil
		default:
		}
		fdShort, fdWake := fi.r.budget.fds.contended()
		bufShort, bufWake := fi.r.budget.bufs.contended()
		if fdShort || bufShort {
			if atLine {
				return fi.suspendFor(bt, fdShort || fi.s.Gzip)
			}
			if fi.kept {
				fi.detachFor(bt, fdShort || fi.s.Gzip)
				return nil
			}
			if !fi.r.budget.mayWaitMidLine() {
				// The batch grows instead, to the line's end.
				return nil
			}
			bt.out <- bt.batch
			fi.r.budget.doneMidLine()
			bt.renew()
			return nil
		}
		select {
		case bt.out <- bt.batch:
			bt.renew()
			return nil
		case <-fdWake:
		case <-bufWake:
		}
	}
}

// ErrUnreadable is in the chain of a source's Err when its file could not
// be opened again to go on (removed, replaced, out of descriptors): part
// of it was not read.
var ErrUnreadable = errors.New("could not be read to its end")

type unreadableError struct{ msg string }

func (e *unreadableError) Error() string        { return e.msg }
func (e *unreadableError) Is(target error) bool { return target == ErrUnreadable }

func unreadable(format string, args ...any) error {
	return &unreadableError{fmt.Sprintf(format, args...)}
}

// keep copies the line about to be parsed out of the buffer.
func (fi *fileIn) keep(line []byte) []byte {
	if cap(fi.line) > 64<<10 {
		fi.line = nil
	}
	fi.line = append(fi.line[:0], line...)
	fi.kept = true
	return fi.line
}

// detachFor waits on the merge part way through a kept line without a
// buffer (and without the open file if closeFile); resume takes them
// again once the line is parsed.
func (fi *fileIn) detachFor(bt *batcher, closeFile bool) {
	fi.dropBuffer()
	if closeFile {
		fi.close()
	}
	fi.detached = true
	bt.flush()
}

// suspendFor waits on the merge without a buffer (and without the open
// file if closeFile), then goes on where the lines returned so far end.
func (fi *fileIn) suspendFor(bt *batcher, closeFile bool) error {
	fi.dropBuffer()
	if closeFile {
		fi.close()
		bt.flush()
	} else {
		// Keeping the file open for the wait, unless descriptors run
		// short meanwhile.
	wait:
		for {
			select {
			case bt.out <- bt.batch:
				break wait
			default:
			}
			short, wake := fi.r.budget.fds.contended()
			if short {
				fi.close()
				bt.out <- bt.batch
				break
			}
			select {
			case bt.out <- bt.batch:
				break wait
			case <-wake:
			}
		}
		bt.renew()
	}
	return fi.resume()
}

// resume takes a buffer (and the file, reopened, if it was closed) and
// goes on where the lines returned so far end.
func (fi *fileIn) resume() error {
	fi.detached = false
	var rd io.Reader = fi.f
	if fi.f == nil {
		fi.r.budget.fds.acquire()
		fi.fd = true
		f, err := os.Open(fi.s.Path)
		if err != nil {
			return unreadable("reopened to go on after line %d: %s", fi.s.Stats.Lines, reason(err))
		}
		fi.f = f
		if st, err := f.Stat(); err != nil {
			return unreadable("reopened to go on: %v", err)
		} else if id, ok := fileID(st); ok && id != fi.id {
			return unreadable("replaced while it was read (rotated?); read up to byte %d", fi.lr.Bytes)
		}
		rd = f
		if fi.s.Gzip {
			zr, err := gzip.NewReader(f)
			if err != nil {
				return unreadable("reopened to go on: %v", err)
			}
			fi.zr = zr
			// No seeking in a gzip stream: decompress up to where it was.
			if _, err := io.CopyN(io.Discard, zr, fi.lr.Bytes); err != nil {
				return unreadable("reopened to go on: %v", err)
			}
			rd = zr
		}
	}
	if !fi.s.Gzip {
		if sr, ok := fi.r.section(fi.s, fi.f); ok {
			// Bytes counts from the section's start.
			if _, err := sr.(io.Seeker).Seek(fi.lr.Bytes, io.SeekStart); err != nil {
				return unreadable("going on after line %d: %v", fi.s.Stats.Lines, err)
			}
			rd = sr
		} else if _, err := fi.f.Seek(fi.s.NULs+fi.lr.Bytes, io.SeekStart); err != nil {
			return unreadable("going on after line %d: %v", fi.s.Stats.Lines, err)
		}
	}
	fi.takeBuffer(rd)
	return nil
}

func (r *Reader) readFile(ctx context.Context, s *Source, p *parser.Parser, emit func(*parser.Event), bt *batcher) {
	var rd io.Reader
	fi := &fileIn{r: r, s: s}
	if s.Path == "-" {
		rd = r.Stdin
		if rd == nil {
			rd = os.Stdin
		}
	} else {
		err := fi.open(ctx)
		defer fi.close()
		if err != nil {
			if errors.Is(err, ErrInterrupted) {
				s.Err = err
			} else {
				s.Err = because(err)
			}
			return
		}
		if s.NULs > 0 && !s.Gzip {
			if _, err := fi.f.Seek(s.NULs, io.SeekStart); err != nil {
				s.Err = because(err)
				return
			}
		}
		rd = fi.f
		if sr, ok := r.section(s, fi.f); ok {
			rd = sr
		}
	}
	rd, stop := interruptible(ctx, rd)
	defer stop()
	s.Read = true
	if s.Gzip {
		zr, err := gzip.NewReader(rd)
		if err != nil {
			if ctx.Err() == nil {
				s.Err = fmt.Errorf("not a readable gzip file: %w", err)
			} else {
				s.Err = stoppedAt(s, 0)
			}
			return
		}
		fi.zr = zr
		rd = zr
	}
	lr := &blockReader{max: MaxLine}
	fi.lr = lr
	fi.takeBuffer(rd)
	eof := false
	defer func() {
		p.Stats.CutLines = lr.Cut
		s.Bytes = lr.Bytes
		if ctx.Err() != nil && s.Err == nil && !eof {
			s.Err = stoppedAt(s, p.Stats.Lines)
		}
		fi.dropBuffer()
	}()
	// A batch that fills part way through a line's events is handed on
	// there; at a line's end the buffer may go too (see handOn).
	lines0 := p.Stats.Lines
	var handErr error
	bt.full = func() {
		if handErr == nil {
			handErr = fi.handOn(bt, false)
		} else {
			bt.flush()
		}
	}
	defer func() { bt.full = nil }()
	// n counts lines (those the fast path takes a buffer at a time too);
	// every sparseLines a part batch is handed on, every ctxLines ctx is
	// looked at.
	var n, handAt, ctxAt int64 = 0, sparseLines, ctxLines
	for {
		if b := lr.whole(); len(b) > 0 {
			if k := p.Skim(b); k > 0 {
				lr.skip(k)
				n = p.Stats.Lines - lines0
			}
		}
		line, err := lr.Next()
		if line != nil || err == nil {
			if line != nil && fi.seekable && !s.Gzip && r.budget.short() {
				line = fi.keep(line)
			}
			p.Line(line, emit)
			fi.kept = false
			if fi.detached && err == nil && handErr == nil {
				handErr = fi.resume()
			}
		}
		if err != nil {
			eof = errors.Is(err, io.EOF)
			// An interrupted read is not the file's fault.
			if !eof && ctx.Err() == nil {
				if errors.Is(err, io.ErrUnexpectedEOF) && s.Gzip {
					s.Err = fmt.Errorf("gzip stream truncated after line %d", p.Stats.Lines)
				} else {
					s.Err = fmt.Errorf("read error after line %d: %w", p.Stats.Lines, err)
				}
			}
			break
		}
		n++
		sparse := n >= handAt
		if sparse {
			handAt = n + sparseLines
		}
		if handErr == nil && (len(bt.batch) >= bt.size || sparse) {
			handErr = fi.handOn(bt, true)
		}
		if handErr != nil {
			s.Err = handErr
			break
		}
		if n >= ctxAt {
			ctxAt = n + ctxLines
			if ctx.Err() != nil {
				break
			}
		}
	}
}

// open opens a source's file. A FIFO's open waits for a writer: that wait
// gives up once ctx is done, leaving a goroutine to close the FIFO if a
// writer ever comes.
func (r *Reader) open(ctx context.Context, s *Source) (*os.File, error) {
	if !s.Pipe {
		return os.Open(s.Path)
	}
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(s.Path)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-ctx.Done():
		go func() {
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, &interruptedError{"interrupted before a writer opened the FIFO: nothing read"}
	}
}
