package source

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

func readAllLines(next func() ([]byte, error)) (lines []string, err error) {
	for {
		line, err := next()
		if line != nil || err == nil {
			lines = append(lines, string(line))
		}
		if err != nil {
			return lines, err
		}
	}
}

// blockReader gives what LineReader gives: the same lines, cuts, lone-CR
// splits and byte counts, whatever the reads return at a time.
func TestBlockReaderEqualsLineReader(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"a", "[2024-03-11 10:00:05,128] INFO x (kafka.log.Log)", "\r", "\r\n", "\n", "\n\n", " ", "\t", "\x00"}
	inputs := []string{"", "\n", "no newline", "a\r\rb\n", "x\r\n", "x\r\r\n", "\r", strings.Repeat("y", blockSize) + "\n", strings.Repeat("z", blockSize*3+7), strings.Repeat("w", blockSize-1) + "\r\nnext\n"}
	for i := 0; i < 300; i++ {
		var b strings.Builder
		for j := rng.Intn(200); j > 0; j-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
			if rng.Intn(100) == 0 {
				b.WriteString(strings.Repeat("L", rng.Intn(3*blockSize)))
			}
		}
		inputs = append(inputs, b.String())
	}
	wraps := []func(io.Reader) io.Reader{
		func(r io.Reader) io.Reader { return r },
		iotest.OneByteReader, iotest.HalfReader, iotest.DataErrReader,
	}
	for _, in := range inputs {
		for _, max := range []int{MaxLine, 10, blockSize + 5} {
			for wi, wrap := range wraps {
				if wi == 1 && len(in) > 1<<16 {
					continue
				}
				lr := NewLineReader(wrap(strings.NewReader(in)), max)
				br := newBlockReader(wrap(strings.NewReader(in)), max)
				want, werr := readAllLines(lr.Next)
				got, gerr := readAllLines(br.Next)
				if !errors.Is(gerr, werr) || len(got) != len(want) || br.Cut != lr.Cut || br.Bytes != lr.Bytes {
					t.Fatalf("input %q (max %d, reader %d): %d lines cut %d bytes %d err %v, want %d lines cut %d bytes %d err %v",
						in[:min(len(in), 80)], max, wi, len(got), br.Cut, br.Bytes, gerr, len(want), lr.Cut, lr.Bytes, werr)
				}
				for k := range want {
					if got[k] != want[k] {
						t.Fatalf("input %q (max %d, reader %d): line %d is %q, want %q", in[:min(len(in), 80)], max, wi, k, got[k][:min(len(got[k]), 80)], want[k][:min(len(want[k]), 80)])
					}
				}
				// Taking some of whole's lines a buffer at a time (as
				// Parser.Skim does) and the rest by Next gives them too.
				br = newBlockReader(wrap(strings.NewReader(in)), max)
				got, gerr = readAllLines(wholeThenNext(br, rng))
				if !errors.Is(gerr, werr) || !slices.Equal(got, want) || br.Cut != lr.Cut || br.Bytes != lr.Bytes {
					t.Fatalf("input %q (max %d, reader %d), with whole: %d lines cut %d bytes %d err %v, want %d lines cut %d bytes %d err %v",
						in[:min(len(in), 80)], max, wi, len(got), br.Cut, br.Bytes, gerr, len(want), lr.Cut, lr.Bytes, werr)
				}
			}
		}
	}
}

// wholeThenNext reads br as the file reader does: a random number of the
// lines whole offers, taken by skip, then one by Next.
func wholeThenNext(br *blockReader, rng *rand.Rand) func() ([]byte, error) {
	var queue [][]byte
	return func() ([]byte, error) {
		if len(queue) == 0 {
			if b := br.whole(); len(b) > 0 {
				if b[len(b)-1] != '\n' || bytes.IndexByte(b, '\r') >= 0 {
					return nil, fmt.Errorf("whole gave %q", b)
				}
				take := rng.Intn(bytes.Count(b, []byte("\n")) + 1)
				n := 0
				for ; take > 0; take-- {
					i := bytes.IndexByte(b[n:], '\n')
					queue = append(queue, b[n:n+i])
					n += i + 1
				}
				br.skip(n)
			}
		}
		if len(queue) > 0 {
			l := queue[0]
			queue = queue[1:]
			return l, nil
		}
		return br.Next()
	}
}

// A read error after some lines is returned after them, as LineReader does.
func TestBlockReaderError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("one\ntwo\nthr"), iotest.ErrReader(boom))
	got, err := readAllLines(newBlockReader(r, MaxLine).Next)
	if !errors.Is(err, boom) || len(got) != 3 || got[2] != "thr" {
		t.Fatalf("got %q, %v", got, err)
	}
}
