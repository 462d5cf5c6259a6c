package source

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"
	"time"
)

// A quiet pipe whose bytes the pump took off before Ctrl-C: the reader
// that gives up still gets them, then the interrupt. With the io.Pipe it
// replaced they were lost when the interrupt came before the hand-over.
func TestPumpKeepsWhatItReadBeforeTheInterrupt(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	p := newPump(ctx, r)
	w.Write([]byte("line 1\nline 2\n"))
	for deadline := time.Now().Add(10 * time.Second); len(p.data) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the pump never read the pipe")
		}
	}
	cancel()
	got, err := io.ReadAll(p)
	if string(got) != "line 1\nline 2\n" || !errors.Is(err, context.Canceled) {
		t.Fatalf("after the interrupt: %q, %v", got, err)
	}
}

// Read to the end, the pump gives every byte in order and io.EOF.
func TestPumpReadsToTheEnd(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want := make([]byte, 5*pumpChunk+123)
	for i := range want {
		want[i] = byte(i % 251)
	}
	go func() {
		w.Write(want)
		w.Close()
	}()
	got, err := io.ReadAll(newPump(context.Background(), r))
	if err != nil || string(got) != string(want) {
		t.Fatalf("read %d of %d bytes, %v", len(got), len(want), err)
	}
}
