package kraft

import (
	"os"
	"testing"
)

// BenchmarkReadLargestSegment decodes the largest real segment (CRC, record
// framing and typed values for every record) from memory.
func BenchmarkReadLargestSegment(b *testing.B) {
	path := largestSegment(b)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		c, err := ReadBytes(data, func(r Record) error { n++; return nil })
		if err != nil || c.Batches == 0 || n == 0 {
			b.Fatalf("census %+v err %v", c, err)
		}
	}
}

// BenchmarkReadFileLargestSegment is the same through ReadFile (page cache).
func BenchmarkReadFileLargestSegment(b *testing.B) {
	path := largestSegment(b)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadFile(path, func(Record) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplayLargestSegment decodes and replays into decisions.
func BenchmarkReplayLargestSegment(b *testing.B) {
	path := largestSegment(b)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		p := NewReplayer()
		if _, err := ReadBytes(data, func(r Record) error { p.Apply(r); return nil }); err != nil {
			b.Fatal(err)
		}
		p.Flush()
	}
}
