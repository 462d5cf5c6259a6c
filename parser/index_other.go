//go:build !amd64

package parser

// pairSearch: without an assembly pairIndex, index is bytes.Index.
const pairSearch = false

func pairIndex(s []byte, from, d int, c0, c1 byte) int { return pairIndexGo(s, from, d, c0, c1) }

func indexAny8(s []byte, set *[8][16]byte) int { return indexAny8Go(s, set) }

func indexAny2(s []byte, c0, c1 byte) int { return indexAny2Go(s, c0, c1) }
