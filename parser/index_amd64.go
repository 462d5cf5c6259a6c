package parser

// pairSearch: pairIndex is the machine's own.
const pairSearch = true

// pairIndex returns the first j >= from with s[j] == c0 and s[j+d] ==
// c1, or -1 (SSE2, which every amd64 has). d > 0, from >= 0.
//
//go:noescape
func pairIndex(s []byte, from, d int, c0, c1 byte) int

// indexAny8 returns the index of the first byte of s that is one of
// set's eight, each given in all 16 lanes (repeat one to look for
// fewer), or -1 (SSE2).
//
//go:noescape
func indexAny8(s []byte, set *[8][16]byte) int

// indexAny2 returns the index of the first byte of s that is c0 or c1,
// or -1 (SSE2).
//
//go:noescape
func indexAny2(s []byte, c0, c1 byte) int
