package logstore

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ReadOptions bound what Read asks of the store and holds in memory.
type ReadOptions struct {
	// ChunkRows: the window is split into chunks of about this many rows
	// (by Store.Counts), so neither the server's sort nor the rows fetched
	// ahead grow with the window. Default 200,000.
	ChunkRows int64
	// Concurrency: chunks fetched at once. Default 4.
	Concurrency int
	// AheadRows: rows a chunk fetched ahead of the one being read may
	// hold before its fetch waits. Default 16,384.
	AheadRows int
	// Retries of a chunk that failed (a connection error, a 5xx) before
	// any of its rows was handed on; Backoff is the first wait, doubled
	// each time. Defaults 4 and 500 ms.
	Retries int
	Backoff time.Duration
	// Retried, if set, is told of each retry (for a note on stderr).
	Retried func(w Window, attempt int, err error)
}

func (o *ReadOptions) defaults() {
	if o.ChunkRows <= 0 {
		o.ChunkRows = 200_000
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.AheadRows <= 0 {
		o.AheadRows = 16 << 10
	}
	if o.Retries < 0 {
		o.Retries = 0
	} else if o.Retries == 0 {
		o.Retries = 4
	}
	if o.Backoff <= 0 {
		o.Backoff = 500 * time.Millisecond
	}
}

// PartialError: the store failed after some rows of the window had been
// handed on; what came before is complete and in order, what follows is
// missing.
type PartialError struct {
	Rows int64     // rows handed on before the failure
	From time.Time // the first time not read
	Err  error
}

func (e *PartialError) Error() string {
	return fmt.Sprintf("read stopped after %d rows, nothing read from %s on: %v", e.Rows, e.From.UTC().Format(time.RFC3339Nano), e.Err)
}

func (e *PartialError) Unwrap() error { return e.Err }

var errStop = errors.New("stopped")

const batchRows = 256

type chunk struct {
	w    Window
	rows chan []Row
	err  error // set before rows is closed
}

// Plan splits q's window into chunks of about ChunkRows rows each. A
// bucket that alone holds more stays one chunk.
func Plan(ctx context.Context, s Store, q Query, chunkRows int64) ([]Window, error) {
	ws, _, err := plan(ctx, s, q, chunkRows)
	return ws, err
}

// plan is Plan, with the rows the store counted in each window.
func plan(ctx context.Context, s Store, q Query, chunkRows int64) ([]Window, []int64, error) {
	span := q.End.Sub(q.Start)
	step := (span / 1024).Truncate(time.Millisecond)
	if step < time.Second {
		step = time.Second
	}
	counts, err := s.Counts(ctx, q, step)
	if err != nil {
		return nil, nil, err
	}
	var out []Window
	var rows []int64
	start := q.Start
	var n int64
	for _, c := range counts {
		if n > 0 && n+c.Rows > chunkRows && c.Start.After(start) && c.Start.Before(q.End) {
			out = append(out, Window{start, c.Start})
			rows = append(rows, n)
			start, n = c.Start, 0
		}
		n += c.Rows
	}
	return append(out, Window{start, q.End}), append(rows, n), nil
}

// Read calls fn for every row q matches, in time order: the window is
// split into chunks (Plan), fetched Concurrency at a time, and handed on
// chunk after chunk. A chunk that fails before handing on a row is
// retried with backoff; a failure after that ends the read with a
// *PartialError. It returns the rows handed on.
func Read(ctx context.Context, s Store, q Query, opt ReadOptions, fn func(*Row) error) (int64, error) {
	opt.defaults()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	windows, counted, err := plan(ctx, s, q, opt.ChunkRows)
	if err != nil {
		return 0, err
	}
	var short *MissingError
	chunks := make([]*chunk, len(windows))
	depth := max(1, opt.AheadRows/batchRows)
	for i, w := range windows {
		chunks[i] = &chunk{w: w, rows: make(chan []Row, depth)}
	}
	sem := make(chan struct{}, opt.Concurrency)
	go func() {
		for _, c := range chunks {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			go func(c *chunk) {
				defer func() { <-sem }()
				c.err = fetch(ctx, s, Query{Text: q.Text, Window: c.w}, &opt, c.rows)
				close(c.rows)
			}(c)
		}
	}()
	var n int64
	for i, c := range chunks {
		before := n
		for {
			var b []Row
			var ok bool
			select {
			case b, ok = <-c.rows:
			case <-ctx.Done():
				return n, ctx.Err()
			}
			if !ok {
				break
			}
			for i := range b {
				if err := fn(&b[i]); err != nil {
					return n, err
				}
				n++
			}
		}
		if c.err != nil {
			if n == 0 && c == chunks[0] {
				return 0, c.err
			}
			return n, &PartialError{Rows: n, From: c.w.Start, Err: c.err}
		}
		if got := n - before; got < counted[i] {
			if short == nil {
				short = &MissingError{From: c.w.Start}
			}
			short.Chunks++
			short.Counted += counted[i]
			short.Got += got
		}
	}
	if short != nil {
		short.Rows = n
		return n, short
	}
	return n, nil
}

// MissingError: chunks of the window came back with fewer rows than the
// store had counted in them just before; the rest of the read went on. A
// VictoriaLogs cluster does that when a vlstorage node stops answering
// and vlselect runs with -search.allowPartialResponse: the answer is 200
// OK and says nothing. The audit covers what came and is incomplete.
type MissingError struct {
	Rows    int64     // rows handed on
	From    time.Time // the start of the first short chunk
	Chunks  int       // short chunks
	Counted int64     // rows the store counted in them
	Got     int64     // rows they returned
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("the store returned %d of the %d rows it counted in %d chunk(s) from %s on (a cluster's storage node not answering?)",
		e.Got, e.Counted, e.Chunks, e.From.UTC().Format(time.RFC3339Nano))
}

// fetch reads one chunk into out, retrying while nothing has been sent.
func fetch(ctx context.Context, s Store, q Query, opt *ReadOptions, out chan<- []Row) error {
	var note func(int, error)
	if opt.Retried != nil {
		note = func(attempt int, err error) { opt.Retried(q.Window, attempt, err) }
	}
	var batch []Row // read and not yet sent
	sent := false
	err := Retry(ctx, opt.Retries, Backoff{First: opt.Backoff}, func() error {
		sent = false
		batch = make([]Row, 0, batchRows)
		// The messages of a batch share one slab: one allocation per
		// batch instead of one per row (the garbage collector's share of
		// reading 1 GB was a fifth of the client's time).
		slab := make([]byte, 0, 64<<10)
		err := s.Rows(ctx, q, func(r *Row) error {
			row := *r
			if len(slab)+len(r.Msg) > cap(slab) {
				slab = make([]byte, 0, max(64<<10, len(r.Msg)))
			}
			n := len(slab)
			slab = append(slab, r.Msg...)
			row.Msg = slab[n:len(slab):len(slab)]
			batch = append(batch, row)
			if len(batch) == batchRows {
				select {
				case out <- batch:
				case <-ctx.Done():
					return errStop
				}
				sent = true
				batch = make([]Row, 0, batchRows)
				slab = make([]byte, 0, 64<<10)
			}
			return nil
		})
		if err == nil {
			if len(batch) > 0 {
				select {
				case out <- batch:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			batch = nil
			return nil
		}
		if errors.Is(err, errStop) {
			batch = nil
			return ctx.Err()
		}
		if sent {
			// A retry would send the rows sent so far again.
			return final{err}
		}
		return err
	}, note)
	if err != nil && len(batch) > 0 {
		// The rows of this chunk read so far are sent on, also when no
		// batch went before them (an answer that stalled after a few
		// rows: they are audited); what follows them is missing.
		select {
		case out <- batch:
		case <-ctx.Done():
		}
	}
	return err
}
