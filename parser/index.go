package parser

import "bytes"

// index is bytes.Index(s, []byte(w)) for the slow path's literals in a
// whole message. bytes.Index looks for a long haystack's first byte with
// IndexByte, and the first bytes of these ("c" of "correlation", " " of
// " with leader ") come back every few bytes of a state-change line: a
// search cost 65–150 ns of a 250-byte line, four to six of them a line.
// Where pairIndex is the machine's, index looks for two bytes of w at
// once (its first and last that are not spaces), 16 places a compare,
// and checks w only where both are.
func index(s []byte, w string) int {
	n := len(w)
	if !pairSearch || n < 3 || len(s) < 48 {
		return bytes.Index(s, []byte(w))
	}
	a, b := 0, n-1
	for a < b && w[a] == ' ' {
		a++
	}
	for b > a && w[b] == ' ' {
		b--
	}
	if a == b {
		return bytes.Index(s, []byte(w))
	}
	for from := a; ; {
		j := pairIndex(s, from, b-a, w[a], w[b])
		if j < 0 {
			return -1
		}
		if i := j - a; i+n <= len(s) && string(s[i:i+n]) == w {
			return i
		}
		from = j + 1
	}
}

// contains is bytes.Contains(s, []byte(w)) by index.
func contains(s []byte, w string) bool { return index(s, w) >= 0 }

// pairIndexGo is pairIndex in Go: the first j >= from with s[j] == c0
// and s[j+d] == c1, or -1.
func pairIndexGo(s []byte, from, d int, c0, c1 byte) int {
	for j := from; j+d < len(s); j++ {
		if s[j] == c0 && s[j+d] == c1 {
			return j
		}
	}
	return -1
}

// indexAny8Go is indexAny8 in Go.
func indexAny8Go(s []byte, set *[8][16]byte) int {
	for i, c := range s {
		for _, a := range set {
			if c == a[0] {
				return i
			}
		}
	}
	return -1
}

// indexAny2Go is indexAny2 in Go.
func indexAny2Go(s []byte, c0, c1 byte) int {
	for i, c := range s {
		if c == c0 || c == c1 {
			return i
		}
	}
	return -1
}
