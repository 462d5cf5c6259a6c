package kraft

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// sharedDir holds the real metadata logs (see its README.md).
const sharedDir = "../../../shared/metadata-logs"

func haveShared() bool {
	_, err := os.Stat(filepath.Join(sharedDir, "README.md"))
	return err == nil
}

func needShared(tb testing.TB) {
	tb.Helper()
	if _, err := os.Stat(filepath.Join(sharedDir, "README.md")); err != nil {
		tb.Skipf("real metadata logs not available: %v", err)
	}
}

func largestSegment(tb testing.TB) string {
	tb.Helper()
	needShared(tb)
	files, _ := filepath.Glob(filepath.Join(sharedDir, "*", "[0-9]*.log"))
	best, size := "", int64(-1)
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.Size() > size {
			best, size = f, st.Size()
		}
	}
	if best == "" {
		tb.Skip("no segments")
	}
	return best
}

// rawBatches splits a well-formed segment into its batches.
func rawBatches(tb testing.TB, data []byte) (batches [][]byte, pos []int64) {
	tb.Helper()
	for p := 0; p < len(data); {
		if len(data)-p < batchHeaderSize {
			tb.Fatalf("short tail at %d", p)
		}
		h := parseHeader(data[p:])
		end := p + logOverhead + int(h.length)
		batches = append(batches, data[p:end])
		pos = append(pos, int64(p))
		p = end
	}
	return batches, pos
}

func appendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendVarint(b []byte, v int64) []byte {
	return appendUvarint(b, uint64(v<<1)^uint64(v>>63))
}

// encodeRecord frames one record of a v2 batch.
func encodeRecord(offDelta int32, tsDelta int64, key, value []byte) []byte {
	var body []byte
	body = append(body, 0) // attributes
	body = appendVarint(body, tsDelta)
	body = appendVarint(body, int64(offDelta))
	if key == nil {
		body = appendVarint(body, -1)
	} else {
		body = appendVarint(body, int64(len(key)))
		body = append(body, key...)
	}
	if value == nil {
		body = appendVarint(body, -1)
	} else {
		body = appendVarint(body, int64(len(value)))
		body = append(body, value...)
	}
	body = appendVarint(body, 0) // headers
	return append(appendVarint(nil, int64(len(body))), body...)
}

// makeBatch assembles a v2 batch around an (optionally compressed) records
// section and sets its CRC.
func makeBatch(base int64, epoch int32, attrs int16, baseTS, maxTS int64, lastOffDelta, count int32, records []byte) []byte {
	b := make([]byte, batchHeaderSize, batchHeaderSize+len(records))
	binary.BigEndian.PutUint64(b[offBaseOffset:], uint64(base))
	binary.BigEndian.PutUint32(b[offLength:], uint32(batchHeaderSize-logOverhead+len(records)))
	binary.BigEndian.PutUint32(b[offLeaderEpoch:], uint32(epoch))
	b[offMagic] = 2
	binary.BigEndian.PutUint16(b[offAttributes:], uint16(attrs))
	binary.BigEndian.PutUint32(b[offLastOffsetDelta:], uint32(lastOffDelta))
	binary.BigEndian.PutUint64(b[offBaseTimestamp:], uint64(baseTS))
	binary.BigEndian.PutUint64(b[offMaxTimestamp:], uint64(maxTS))
	binary.BigEndian.PutUint64(b[offProducerID:], ^uint64(0))
	binary.BigEndian.PutUint16(b[offProducerEpoch:], 0xffff)
	binary.BigEndian.PutUint32(b[offBaseSequence:], ^uint32(0))
	binary.BigEndian.PutUint32(b[offRecordsCount:], uint32(count))
	b = append(b, records...)
	binary.BigEndian.PutUint32(b[offCRC:], batchCRC(b))
	return b
}

// rebatch rebuilds a real batch with its records section replaced.
func rebatch(orig []byte, attrs int16, records []byte) []byte {
	h := parseHeader(orig)
	return makeBatch(h.baseOffset, h.leaderEpoch, attrs, h.baseTimestamp, h.maxTimestamp, h.lastOffsetDelta, h.recordsCount, records)
}

// collect decodes data and returns the census and records.
func collect(tb testing.TB, data []byte) (Census, []Record) {
	tb.Helper()
	var recs []Record
	c, err := ReadBytes(data, func(r Record) error { recs = append(recs, r); return nil })
	if err != nil {
		tb.Fatal(err)
	}
	return c, recs
}

func readShared(tb testing.TB, rel string) []byte {
	tb.Helper()
	needShared(tb)
	b, err := os.ReadFile(filepath.Join(sharedDir, rel))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func writeFile(tb testing.TB, path string, data []byte) {
	tb.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}
