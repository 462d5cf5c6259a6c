package logstore

import (
	"context"
	"time"
)

// Backoff spaces out attempts at a store that failed in a way a retry may
// cure: First (500 ms if zero), then doubling, at most Max if Max is set.
// Every retry of the tool (a chunk, listing the streams, the live tail)
// waits through one, so they back off alike.
type Backoff struct {
	First, Max time.Duration
	wait       time.Duration
}

// Wait waits the next step and lengthens the one after; it returns
// ctx.Err() if ctx is done first.
func (b *Backoff) Wait(ctx context.Context) error {
	if b.wait <= 0 {
		b.wait = b.First
		if b.wait <= 0 {
			b.wait = 500 * time.Millisecond
		}
	}
	t := time.NewTimer(b.wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	b.wait *= 2
	if b.Max > 0 && b.wait > b.Max {
		b.wait = b.Max
	}
	return nil
}

// Reset makes the next wait First again: the store answered in between.
func (b *Backoff) Reset() { b.wait = 0 }

// final is what fn gives Retry for an error no retry may cure whatever
// it is (Retry returns the error inside).
type final struct{ error }

// Retry runs fn, and again up to n more times with b between the
// attempts, while it fails in a way a retry may cure (Retryable) and ctx
// is not done. note, if set, is told of each retry before its wait.
func Retry(ctx context.Context, n int, b Backoff, fn func() error, note func(attempt int, err error)) error {
	for attempt := 1; ; attempt++ {
		err := fn()
		if f, ok := err.(final); ok {
			return f.error
		}
		if err == nil || attempt > n || !Retryable(err) || ctx.Err() != nil {
			return err
		}
		if note != nil {
			note(attempt, err)
		}
		if werr := b.Wait(ctx); werr != nil {
			return werr
		}
	}
}
