package parser

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// index and pairIndex agree with bytes.Index and pairIndexGo on random
// text of a few letters (many near misses), every length around the
// 16-byte steps, words with and without spaces at their ends.
func TestIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "ab c\n"
	words := []string{"ab", "abc", "a b", " ab ", "ba c", "  cab", "abcabc ", "c a b c a b", "correlation", " with leader ", "aaaa", "   ", "b   "}
	for n := 0; n < 300; n++ {
		s := make([]byte, n)
		for i := range s {
			s[i] = alphabet[r.IntN(len(alphabet))]
		}
		for _, w := range words {
			if got, want := index(s, w), bytes.Index(s, []byte(w)); got != want {
				t.Fatalf("index(%q, %q) = %d, want %d", s, w, got, want)
			}
		}
		for from := 0; from < n; from += 1 + r.IntN(7) {
			for d := 1; d < 20; d += 3 {
				c0, c1 := alphabet[r.IntN(3)], alphabet[r.IntN(3)]
				if got, want := pairIndex(s, from, d, c0, c1), pairIndexGo(s, from, d, c0, c1); got != want {
					t.Fatalf("pairIndex(%q, %d, %d, %q, %q) = %d, want %d", s, from, d, c0, c1, got, want)
				}
			}
		}
	}
}

// BenchmarkIndex: the slow path's searches in a state-change line, by
// index and by bytes.Index.
func BenchmarkIndex(b *testing.B) {
	line := []byte(`Broker 1 cached leader info (LeaderAndIsrInfo:(Leader:1,ISR:1,3,2,LeaderEpoch:38,ControllerEpoch:32),ReplicationFactor:3),AllReplicas:1,3,2) for partition __consumer_offsets-0 in response to UpdateMetadata request sent by controller 1 epoch 32 with correlation id 2`)
	words := []string{"correlation", "controller ", " with leader ", "for partition "}
	n := 0
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			for _, w := range words {
				n += index(line, w)
			}
		}
	})
	b.Run("bytes", func(b *testing.B) {
		for b.Loop() {
			for _, w := range words {
				n += bytes.Index(line, []byte(w))
			}
		}
	})
}
