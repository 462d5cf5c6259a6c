package parser

import (
	"bytes"
	"math/rand/v2"
	"slices"
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

// indexAny8 and indexAny2 agree with their Go forms, plainLine with its
// eight bytes at a time, and a wordSet's one pass with its
// search per anchor.
func TestIndexAny8(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var sets [][8][16]byte
	for _, b := range []string{"aaaaaaaa", "xyaxxxxx", "\x01\x02\x03\x04\x05\x06\x07\x08", "\x00|\x00\x00\x00\x00\x00\x00"} {
		var set [8][16]byte
		for i := range set {
			set[i] = [16]byte(bytes.Repeat([]byte{b[i]}, 16))
		}
		sets = append(sets, set)
	}
	for n := 0; n < 200; n++ {
		s := make([]byte, n)
		for i := range s {
			s[i] = byte(r.IntN(12))
			if r.IntN(3) == 0 {
				s[i] = "xyza|"[r.IntN(5)]
			}
		}
		for k, set := range sets {
			for from := 0; from <= n; from++ {
				if got, want := indexAny8(s[from:], &set), indexAny8Go(s[from:], &set); got != want {
					t.Fatalf("indexAny8(%q, set %d) = %d, want %d", s[from:], k, got, want)
				}
			}
		}
	}
	for n := 0; n < 200; n++ {
		s := make([]byte, n)
		for i := range s {
			s[i] = "ab|\x00"[r.IntN(4)]
			if r.IntN(2) == 0 {
				s[i] = 'a'
			}
		}
		for from := 0; from <= n; from++ {
			if got, want := indexAny2(s[from:], 0, '|'), indexAny2Go(s[from:], 0, '|'); got != want {
				t.Fatalf("indexAny2(%q) = %d, want %d", s[from:], got, want)
			}
			if got, want := plainLine(s[from:]), plainLineGo(s[from:]); got != want {
				t.Fatalf("plainLine(%q) = %v, want %v", s[from:], got, want)
			}
		}
	}
	ws := newWordSet(slices.Concat(clientWords, libraryWords))
	one := *ws
	one.many = false
	for _, m := range []string{"", "Got error produce response", "x Got error produce respons", "producer/broker/1 state change to [retrying-1]", "kip-95", "kip-951 x", "|MSGSET|", "|MSGSET", "triggered writing grow Got"} {
		if got, want := ws.in([]byte(m)), one.in([]byte(m)); got != want {
			t.Errorf("in(%q) = %v, want %v", m, got, want)
		}
	}
}
