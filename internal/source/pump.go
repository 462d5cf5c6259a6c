package source

import (
	"context"
	"os"
)

// pumpChunks bounds what a pump reads ahead of its reader.
const (
	pumpChunks = 4
	pumpChunk  = 64 << 10
)

// pump reads a blocking file (stdin from a pipe) in a goroutine of its own
// so that its reader can give up on Ctrl-C while the goroutine stays blocked
// in read. What the goroutine has read is queued before anyone can give up
// on it, and a reader that gives up takes what is queued first: bytes taken
// off the pipe before the interrupt are audited. An io.Pipe hands a chunk
// over only when both sides meet, so a chunk read from the file but not yet
// handed over was lost (TestInterruptKeepsWhatWasRead: "interrupted after
// line 0 (0 bytes read)" for a pipe that had been drained).
type pump struct {
	ctx context.Context
	// data has room for every chunk the goroutine can hold a slot for,
	// and for the final error: sending on it never blocks.
	data  chan chunk
	space chan struct{}
	cur   []byte
	err   error
}

type chunk struct {
	b   []byte
	err error
}

func newPump(ctx context.Context, f *os.File) *pump {
	p := &pump{ctx: ctx, data: make(chan chunk, pumpChunks+1), space: make(chan struct{}, pumpChunks)}
	for range pumpChunks {
		p.space <- struct{}{}
	}
	go func() {
		for {
			// A slot first, then the read: a chunk read always has
			// room in the queue.
			select {
			case <-p.space:
			case <-ctx.Done():
				return
			}
			buf := make([]byte, pumpChunk)
			n, err := f.Read(buf)
			if n > 0 {
				p.data <- chunk{b: buf[:n]}
			} else {
				p.space <- struct{}{}
			}
			if err != nil {
				p.data <- chunk{err: err}
				return
			}
		}
	}()
	return p
}

func (p *pump) Read(b []byte) (int, error) {
	for len(p.cur) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		var c chunk
		select {
		case c = <-p.data:
		case <-p.ctx.Done():
			select {
			case c = <-p.data:
			default:
				return 0, p.ctx.Err()
			}
		}
		if c.err != nil {
			p.err = c.err
			continue
		}
		p.cur = c.b
		p.space <- struct{}{}
	}
	n := copy(b, p.cur)
	p.cur = p.cur[n:]
	return n, nil
}
