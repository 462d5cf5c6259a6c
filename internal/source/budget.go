package source

import (
	"io"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/leaderaudit/leaderaudit/internal/fdlimit"
)

// ReadBudget is the memory the readers of one Run hold between them, by
// design rather than by input: events on their way to the merge, events
// held for reordering, and read buffers. With few files each gets the
// full sizes; with many, batches and reorder windows shrink (to a floor)
// and only a bounded number of files are open at once.
const ReadBudget = 24 << 20

// itemBytes is what one Item costs held (its size, and the ISR and
// replica slices events carry).
const itemBytes = int(unsafe.Sizeof(Item{})) + 32

// budget is what each reader may hold.
type budget struct {
	batch   int // events per batch to the merge
	reorder int // events held for reordering
	depth   int // batches queued for the merge per chain
	bufSize int // read buffer
	// fds: files open at once (the descriptor limit); bufs: files being
	// read at once (each with its buffer).
	fds, bufs *slots
	// batches the merge is done with, for the readers to fill again.
	batches sync.Pool
	// midLine: readers waiting on the merge part way through a line's
	// events, holding their buffer and descriptor (see handOn).
	midLine atomic.Int32
	// crowded: more chains than slots, so readers wait for them.
	crowded bool
}

func newBudget(chains int, fdLimit int) *budget {
	chains = max(chains, 1)
	// What a chain holds: the reorder window, a batch in the making,
	// depth queued and one being merged. With few chains the full sizes;
	// with many the queue goes first, then batches and windows shrink to
	// their floors.
	per := ReadBudget / 2 / (chains * itemBytes)
	b := &budget{batch: min(max(per/5, 8), batchSize)}
	b.reorder = min(max(per/5, 16), reorderMax)
	b.depth = min(max((per-b.reorder)/b.batch-2, 0), chainDepth)
	b.bufSize = 256 << 10
	if chains > 16 {
		b.bufSize = 64 << 10
	}
	b.bufs = newSlots(max(min(ReadBudget/2/b.bufSize, maxOpen), 2))
	// Descriptors: what the limit leaves after a reserve for everything
	// else (stdout, the store's connections, watch's inotify).
	fds := fdlimit.Max
	if fdLimit > 0 {
		fds = min(fds, fdLimit-fdlimit.Reserve)
	}
	b.fds = newSlots(max(fds, 2))
	b.crowded = chains > b.bufs.cap() || chains > b.fds.cap()
	return b
}

// newBatch is an empty batch to fill: one the merge is done with, or new.
func (b *budget) newBatch() []Item {
	if x, ok := b.batches.Get().(*[]Item); ok {
		return (*x)[:0]
	}
	return make([]Item, 0, b.batch)
}

// done takes back a batch the merge has used up. One grown (a line with
// many events) is left to the collector.
func (b *budget) done(batch []Item) {
	if cap(batch) != b.batch {
		return
	}
	// The events' strings and slices go with the batch, not with the pool.
	clear(batch)
	b.batches.Put(&batch)
}

// mayWaitMidLine reports whether a reader part way through a line may
// wait on the merge keeping its buffer and descriptor; if so it calls
// doneMidLine after. One slot of each is always left to the readers
// that wait at a line's end and give theirs up, so the reader the merge
// needs next can always get one.
func (b *budget) mayWaitMidLine() bool {
	if int(b.midLine.Add(1)) < min(b.bufs.cap(), b.fds.cap()) {
		return true
	}
	b.midLine.Add(-1)
	return false
}

func (b *budget) doneMidLine() { b.midLine.Add(-1) }

// short reports whether a reader may have to give up its buffer part way
// through a line: there are more chains than slots, or a reader waits for
// one now.
func (b *budget) short() bool {
	return b.crowded || b.bufs.short.Load() > 0 || b.fds.short.Load() > 0
}

// maxOpen bounds the files read at once (their buffers).
const maxOpen = 64

// slots bound something readers hold (descriptors, buffers). A reader
// takes one and gives it back when it waits on the merge while another
// reader waits for one (closing its file or dropping its buffer, and going
// on at the same offset after): the merge may need that other reader's
// events first.
type slots struct {
	sem     chan struct{}
	mu      sync.Mutex
	waiting int
	// short mirrors waiting for a look without the lock (once a line).
	short atomic.Int32
	wake  chan struct{} // closed when a reader starts waiting
	bufs  sync.Pool
}

func newSlots(n int) *slots {
	return &slots{sem: make(chan struct{}, n), wake: make(chan struct{})}
}

func (s *slots) acquire() {
	select {
	case s.sem <- struct{}{}:
		return
	default:
	}
	s.mu.Lock()
	s.waiting++
	s.short.Add(1)
	close(s.wake)
	s.wake = make(chan struct{})
	s.mu.Unlock()
	s.sem <- struct{}{}
	s.mu.Lock()
	s.waiting--
	s.short.Add(-1)
	s.mu.Unlock()
}

func (s *slots) release() { <-s.sem }

// contended reports whether a reader waits for a slot, and a channel closed
// when one next starts to.
func (s *slots) contended() (bool, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiting > 0, s.wake
}

// buffer returns a read buffer of n bytes.
func (s *slots) buffer(n int) []byte {
	if b, ok := s.bufs.Get().(*[]byte); ok && len(*b) == n {
		return *b
	}
	return make([]byte, n)
}

func (s *slots) put(b []byte) {
	if b != nil {
		s.bufs.Put(&b)
	}
}

// detach gives up the read buffer (a reader waiting on the merge): what it
// holds beyond the lines returned is dropped, and the reader is attached
// again at Bytes. The rest of a CR-split line is kept.
func (br *blockReader) detach() []byte {
	b := br.buf
	br.buf, br.r = nil, nil
	if br.rest != nil {
		br.rest = append([]byte(nil), br.rest...)
	}
	if cap(br.long) > 64<<10 {
		br.long = nil
	}
	br.start, br.end, br.cr, br.err = 0, 0, 0, nil
	return b
}

// attach reads on from rd into buf.
func (br *blockReader) attach(buf []byte, rd io.Reader) {
	br.buf, br.r = buf, rd
	br.start, br.end, br.cr, br.err = 0, 0, 0, nil
	br.fills++
}

func (s *slots) cap() int { return cap(s.sem) }
