package logstore

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestBackoffDoublesToMaxAndResets(t *testing.T) {
	b := Backoff{First: time.Microsecond, Max: 5 * time.Microsecond}
	var waits []time.Duration
	for range 5 {
		if err := b.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		waits = append(waits, b.wait)
	}
	// b.wait is the step after each Wait: 2, 4, then held at Max.
	want := []time.Duration{2, 4, 5, 5, 5}
	for i := range want {
		if waits[i] != want[i]*time.Microsecond {
			t.Fatalf("waits %v, want %v µs", waits, want)
		}
	}
	b.Reset()
	if b.Wait(context.Background()); b.wait != 2*time.Microsecond {
		t.Errorf("after Reset the next step is %v", b.wait)
	}
	var d Backoff
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := d.Wait(ctx); !errors.Is(err, context.Canceled) || d.wait != 500*time.Millisecond {
		t.Errorf("zero Backoff on a done context: %v, step %v", err, d.wait)
	}
}

func TestRetryRule(t *testing.T) {
	ctx := context.Background()
	fast := Backoff{First: time.Microsecond}
	reset := errors.New("connection reset by peer")
	for _, c := range []struct {
		name     string
		errs     []error // what each attempt returns; nil once exhausted
		n        int
		attempts int
		want     error
	}{
		{"a connection error is retried until it works", []error{reset, reset}, 4, 3, nil},
		{"retries run out", []error{reset, reset, reset}, 2, 3, reset},
		{"a 5xx is retried", []error{&StatusError{Status: 503}}, 1, 2, nil},
		{"a 429 is retried", []error{&StatusError{Status: 429}}, 1, 2, nil},
		{"a 4xx is not", []error{&StatusError{Status: 400}}, 4, 1, &StatusError{Status: 400}},
		{"final is not, and comes back unwrapped", []error{final{reset}}, 4, 1, reset},
		{"n=0: one attempt", []error{reset}, 0, 1, reset},
	} {
		calls, notes := 0, 0
		err := Retry(ctx, c.n, fast, func() error {
			calls++
			if calls <= len(c.errs) {
				return c.errs[calls-1]
			}
			return nil
		}, func(attempt int, _ error) {
			notes++
			if attempt != notes {
				t.Errorf("%s: note for attempt %d, want %d", c.name, attempt, notes)
			}
		})
		var se, wse *StatusError
		same := err == c.want || (errors.As(err, &se) && errors.As(c.want, &wse) && se.Status == wse.Status)
		if calls != c.attempts || notes != calls-1 && c.want == nil || !same {
			t.Errorf("%s: %d attempts, %d notes, %v; want %d attempts, %v", c.name, calls, notes, err, c.attempts, c.want)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	calls := 0
	if err := Retry(ctx, 4, fast, func() error { calls++; return reset }, nil); calls != 1 || err != reset {
		t.Errorf("done context: %d attempts, %v", calls, err)
	}
}
