package verdict

import (
	"math"
	"unicode/utf16"
)

// JavaStringHash is Java's String.hashCode: h = 31*h + c over the UTF-16
// code units of s, with int32 overflow.
func JavaStringHash(s string) int32 {
	var h int32
	for _, c := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(c)
	}
	return h
}

// OffsetsPartition is the __consumer_offsets partition (and so the group
// coordinator) of a consumer group: Utils.abs(groupId.hashCode) % n, where
// Utils.abs(Integer.MIN_VALUE) is 0 (broker.md §8.3).
func OffsetsPartition(group string, n int) int32 {
	if n <= 0 {
		n = 50
	}
	h := JavaStringHash(group)
	if h == math.MinInt32 {
		h = 0
	} else if h < 0 {
		h = -h
	}
	return h % int32(n)
}
