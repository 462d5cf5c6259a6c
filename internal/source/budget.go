package source

import (
	"io"
	"sync"
)

// ReadBudget is the memory the readers of one Run hold between them, by
// design rather than by input: events on their way to the merge, events
// held for reordering, and read buffers. With few files each gets the
// full sizes; with many, batches and reorder windows shrink (to a floor)
// and only a bounded number of files are open at once.
const ReadBudget = 24 << 20

// itemBytes is what one Item costs in a batch (unsafe.Sizeof, rounded up
// for the ISR and replica slices events carry).
const itemBytes = 400

// budget is what each reader may hold.
type budget struct {
	batch   int // events per batch to the merge
	reorder int // events held for reordering
	bufSize int // read buffer
	// fds: files open at once (the descriptor limit); bufs: files being
	// read at once (each with its buffer).
	fds, bufs *slots
}

func newBudget(chains int, fdLimit int) budget {
	chains = max(chains, 1)
	// A batch in the making, chainDepth queued, one being merged; the
	// reorder window about one more.
	per := ReadBudget / 2 / (chains * (chainDepth + 3) * itemBytes)
	b := budget{batch: min(max(per, 8), batchSize)}
	b.reorder = min(max(per, 16), reorderMax)
	b.bufSize = 256 << 10
	if chains > 16 {
		b.bufSize = 64 << 10
	}
	b.bufs = newSlots(max(min(ReadBudget/2/b.bufSize, maxOpen), 2))
	// Descriptors: what the limit leaves after a reserve for everything
	// else (stdout, the store's connections, watch's inotify).
	fds := maxFDs
	if fdLimit > 0 {
		fds = min(fds, fdLimit-fdReserve)
	}
	b.fds = newSlots(max(fds, 2))
	return b
}

// maxOpen bounds the files read at once (their buffers).
const maxOpen = 64

// maxFDs bounds the files open at once however high the descriptor limit.
const maxFDs = 8192

// fdReserve: descriptors left to everything but the log files.
const fdReserve = 64

// slots bound something readers hold (descriptors, buffers). A reader
// takes one and gives it back when it waits on the merge while another
// reader waits for one (closing its file or dropping its buffer, and going
// on at the same offset after): the merge may need that other reader's
// events first.
type slots struct {
	sem     chan struct{}
	mu      sync.Mutex
	waiting int
	wake    chan struct{} // closed when a reader starts waiting
	bufs    sync.Pool
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
	close(s.wake)
	s.wake = make(chan struct{})
	s.mu.Unlock()
	s.sem <- struct{}{}
	s.mu.Lock()
	s.waiting--
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
