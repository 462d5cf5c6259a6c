package parser

// pairSearch: pairIndex is the machine's own.
const pairSearch = true

// pairIndex returns the first j >= from with s[j] == c0 and s[j+d] ==
// c1, or -1 (SSE2, which every amd64 has). d > 0, from >= 0.
//
//go:noescape
func pairIndex(s []byte, from, d int, c0, c1 byte) int
