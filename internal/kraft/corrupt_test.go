package kraft

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The corruption tests work on copies of azercell-3node's segment (27
// batches, uncompressed) written to t.TempDir and read with ReadFile.

const corruptBase = "azercell-3node/00000000000000000000.log"

func writeTemp(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readTemp(t *testing.T, data []byte) (Census, []Record) {
	t.Helper()
	var recs []Record
	c, err := ReadFile(writeTemp(t, data), func(r Record) error { recs = append(recs, r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return c, recs
}

func TestCRCFailureSkipsBatch(t *testing.T) {
	orig := readShared(t, corruptBase)
	batches, pos := rawBatches(t, orig)
	good, goodRecs := collect(t, orig)
	k := 10
	data := bytes.Clone(orig)
	data[pos[k]+batchHeaderSize+3] ^= 0x40 // inside the records
	c, recs := readTemp(t, data)
	if len(c.CRCFailures) != 1 {
		t.Fatalf("CRC failures %+v", c.CRCFailures)
	}
	bad := c.CRCFailures[0]
	h := parseHeader(batches[k])
	if bad.Pos != pos[k] || bad.BaseOffset != h.baseOffset || bad.Skipped != int64(len(batches[k])) || !strings.Contains(bad.Reason, "crc") {
		t.Errorf("bad batch %+v, want pos %d base %d", bad, pos[k], h.baseOffset)
	}
	if c.Batches != good.Batches-1 || len(recs) != len(goodRecs)-int(h.recordsCount) {
		t.Errorf("batches %d records %d, want %d %d", c.Batches, len(recs), good.Batches-1, len(goodRecs)-int(h.recordsCount))
	}
	if c.LastOffset != good.LastOffset || c.Truncated || c.NotALog {
		t.Errorf("census %+v", c)
	}
	for _, r := range recs {
		if r.BatchOffset == h.baseOffset {
			t.Fatalf("record %d of the bad batch was delivered", r.Offset)
		}
	}
}

func TestCRCFailureInHeaderFields(t *testing.T) {
	orig := readShared(t, corruptBase)
	_, pos := rawBatches(t, orig)
	good, _ := collect(t, orig)
	// The CRC covers attributes..end: a flipped timestamp is caught too.
	data := bytes.Clone(orig)
	data[pos[3]+offMaxTimestamp+7] ^= 1
	c, _ := readTemp(t, data)
	if len(c.CRCFailures) != 1 || c.CRCFailures[0].Pos != pos[3] || c.Batches != good.Batches-1 {
		t.Errorf("census %+v", c)
	}
	// A stored CRC that is wrong.
	data = bytes.Clone(orig)
	data[pos[5]+offCRC] ^= 0xff
	c, _ = readTemp(t, data)
	if len(c.CRCFailures) != 1 || c.CRCFailures[0].Pos != pos[5] || c.Batches != good.Batches-1 {
		t.Errorf("census %+v", c)
	}
}

func TestCorruptLengthResyncs(t *testing.T) {
	orig := readShared(t, corruptBase)
	batches, pos := rawBatches(t, orig)
	good, _ := collect(t, orig)
	k := 7
	for _, tc := range []struct {
		name   string
		length uint32
		crc    bool // reported as a CRC failure (length plausible) or corrupt header
	}{
		{"huge", 0x7fff0000, false},
		{"negative", 0xffffff00, false},
		{"too small", 10, false},
		{"a little longer", uint32(len(batches[k])-logOverhead) + 10, true},
		{"a little shorter", uint32(len(batches[k])-logOverhead) - 10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := bytes.Clone(orig)
			binary.BigEndian.PutUint32(data[pos[k]+offLength:], tc.length)
			c, _ := readTemp(t, data)
			list := c.Corrupt
			if tc.crc {
				list = c.CRCFailures
			}
			if len(list) != 1 || len(c.CRCFailures)+len(c.Corrupt) != 1 {
				t.Fatalf("crc %+v corrupt %+v", c.CRCFailures, c.Corrupt)
			}
			if list[0].Pos != pos[k] || list[0].Skipped != int64(len(batches[k])) {
				t.Errorf("bad %+v, want pos %d skipped %d", list[0], pos[k], len(batches[k]))
			}
			if c.Batches != good.Batches-1 || c.LastOffset != good.LastOffset {
				t.Errorf("batches %d last %d", c.Batches, c.LastOffset)
			}
		})
	}
}

func TestGarbageBetweenBatches(t *testing.T) {
	orig := readShared(t, corruptBase)
	_, pos := rawBatches(t, orig)
	good, _ := collect(t, orig)
	junk := bytes.Repeat([]byte("not a batch "), 10)
	data := append(append(bytes.Clone(orig[:pos[4]]), junk...), orig[pos[4]:]...)
	c, _ := readTemp(t, data)
	if len(c.Corrupt) != 1 || c.Corrupt[0].Pos != pos[4] || c.Corrupt[0].Skipped != int64(len(junk)) {
		t.Errorf("corrupt %+v", c.Corrupt)
	}
	if c.Batches != good.Batches {
		t.Errorf("batches %d, want %d", c.Batches, good.Batches)
	}
	// Garbage at the start of a real log is corruption, not "not a log".
	data = append(bytes.Clone(junk), orig...)
	c, _ = readTemp(t, data)
	if c.NotALog || len(c.Corrupt) != 1 || c.Corrupt[0].Skipped != int64(len(junk)) || c.Batches != good.Batches {
		t.Errorf("census %+v", c)
	}
}

func TestTruncatedTail(t *testing.T) {
	orig := readShared(t, corruptBase)
	batches, pos := rawBatches(t, orig)
	good, goodRecs := collect(t, orig)
	last := len(batches) - 1
	for _, cut := range []int{1, 30, batchHeaderSize, len(batches[last]) - 1} {
		data := orig[:int(pos[last])+cut]
		c, recs := readTemp(t, data)
		if !c.Truncated || c.TruncatedAt != pos[last] {
			t.Errorf("cut %d: truncated %v at %d, want %d", cut, c.Truncated, c.TruncatedAt, pos[last])
		}
		if c.Batches != good.Batches-1 || len(c.CRCFailures) != 0 || len(c.Corrupt) != 0 {
			t.Errorf("cut %d: census %+v", cut, c)
		}
		if len(recs) >= len(goodRecs) {
			t.Errorf("cut %d: %d records", cut, len(recs))
		}
	}
}

func TestTrailingZeros(t *testing.T) {
	orig := readShared(t, corruptBase)
	good, _ := collect(t, orig)
	for _, n := range []int{61, 100, 4096} {
		data := append(bytes.Clone(orig), make([]byte, n)...)
		c, _ := readTemp(t, data)
		if c.TrailingZeros != int64(n) || c.Truncated || len(c.Corrupt) != 0 || c.Batches != good.Batches {
			t.Errorf("%d zeros: census %+v", n, c)
		}
	}
	// Fewer zeros than a batch header: the start of a cut batch.
	c, _ := readTemp(t, append(bytes.Clone(orig), make([]byte, 7)...))
	if !c.Truncated || c.TrailingZeros != 0 || c.Batches != good.Batches {
		t.Errorf("7 zeros: census %+v", c)
	}
}

func TestNotALog(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 100000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	for name, data := range map[string][]byte{
		"text":     []byte(strings.Repeat("[2025-08-06 17:31:13,456] INFO [Broker id=1] hello\n", 100)),
		"short":    []byte("hello"),
		"random":   random,
		"json":     []byte(`{"clusterId":"","leaderId":1,"leaderEpoch":5,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1}],"data_version":0}`),
		"magic 1":  append(make([]byte, 16), append([]byte{1}, make([]byte, 100)...)...),
		"v2 zeros": append(append(make([]byte, 11), 49, 0, 0, 0, 0, 2), make([]byte, 60)...),
	} {
		c, err := ReadBytes(data, func(Record) error { t.Errorf("%s: got a record", name); return nil })
		if err != nil {
			t.Fatal(err)
		}
		// "v2 zeros" has a plausible header whose CRC fails.
		if name == "v2 zeros" {
			if len(c.CRCFailures) != 1 || c.Batches != 0 {
				t.Errorf("%s: census %+v", name, c)
			}
			continue
		}
		if !c.NotALog || c.NotALogReason == "" || c.Batches != 0 {
			t.Errorf("%s: census %+v", name, c)
		}
	}
	c, err := ReadBytes(nil, nil)
	if err != nil || c.NotALog || c.Batches != 0 || c.Truncated {
		t.Errorf("empty: %+v %v", c, err)
	}
	c, err = ReadBytes(make([]byte, 1000), nil)
	if err != nil || c.NotALog || c.TrailingZeros != 1000 {
		t.Errorf("zeros: %+v %v", c, err)
	}
}

func TestMalformedRecordsInValidBatch(t *testing.T) {
	orig := readShared(t, corruptBase)
	batches, _ := rawBatches(t, orig)
	b := batches[1]
	// Claim one more record than the batch holds.
	h := parseHeader(b)
	more := makeBatch(h.baseOffset, h.leaderEpoch, h.attributes, h.baseTimestamp, h.maxTimestamp, h.lastOffsetDelta, h.recordsCount+1, b[batchHeaderSize:])
	c, recs := collect(t, more)
	if c.Batches != 1 || len(c.Corrupt) != 1 || len(recs) != int(h.recordsCount) {
		t.Errorf("census %+v, %d records", c, len(recs))
	}
	// A record whose length runs past the batch.
	bad := rebatch(b, h.attributes, append(appendVarint(nil, 1000), 1, 2, 3))
	c, recs = collect(t, bad)
	if len(c.Corrupt) != 1 || len(recs) != 0 {
		t.Errorf("census %+v", c)
	}
	// A metadata value that does not parse is counted, not fatal.
	val := []byte{1, 5, 0, 0, 0} // PartitionChangeRecord v0, cut short
	c, recs = collect(t, makeBatch(0, 1, 0, 1, 1, 0, 1, encodeRecord(0, 0, nil, val)))
	if len(recs) != 1 || recs[0].Err == nil || recs[0].Type != "PartitionChangeRecord" || c.UndecodedRecords["PartitionChangeRecord"] != 1 {
		t.Errorf("census %+v records %+v", c, recs)
	}
	// Unknown apiKey and unknown version.
	for _, v := range [][]byte{{1, 99, 0}, {1, 5, 9, 0}, {7, 5, 0, 0}} {
		c, recs = collect(t, makeBatch(0, 1, 0, 1, 1, 0, 1, encodeRecord(0, 0, nil, v)))
		if len(recs) != 1 || recs[0].Err == nil || recs[0].Value != nil || len(c.Corrupt) != 0 {
			t.Errorf("value %v: census %+v records %+v", v, c, recs)
		}
	}
	if recs := recs; len(recs) == 1 && recs[0].Type != "PartitionChangeRecord" {
		t.Errorf("frame version 7: type %q", recs[0].Type)
	}
	_, recs = collect(t, makeBatch(0, 1, 0, 1, 1, 0, 1, encodeRecord(0, 0, nil, []byte{1, 99, 0})))
	if recs[0].Type != "UnknownRecord(99)" || recs[0].Err != ErrUnknownType {
		t.Errorf("unknown: %+v", recs[0])
	}
	_, recs = collect(t, makeBatch(0, 1, 0, 1, 1, 0, 1, encodeRecord(0, 0, nil, []byte{1, 5, 9, 0})))
	if recs[0].Err != ErrUnknownVersion || recs[0].Version != 9 {
		t.Errorf("unknown version: %+v", recs[0])
	}
}

// Random damage to a real segment never panics, and what decodes is
// accounted for.
func TestRandomDamage(t *testing.T) {
	orig := readShared(t, corruptBase)
	good, _ := collect(t, orig)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 2000; i++ {
		data := bytes.Clone(orig)
		switch i % 4 {
		case 0:
			for j := 0; j < 1+rng.IntN(5); j++ {
				data[rng.IntN(len(data))] = byte(rng.Uint32())
			}
		case 1:
			data = data[:rng.IntN(len(data))]
		case 2:
			p := rng.IntN(len(data))
			data = append(data[:p], data[min(len(data), p+rng.IntN(200)):]...)
		case 3:
			p := rng.IntN(len(data))
			ins := make([]byte, rng.IntN(100))
			for j := range ins {
				ins[j] = byte(rng.Uint32())
			}
			data = append(data[:p], append(ins, orig[p:]...)...)
		}
		c, err := ReadBytes(data, func(Record) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if c.Batches > good.Batches+1 {
			t.Fatalf("case %d: %d batches from a %d-batch file", i, c.Batches, good.Batches)
		}
	}
}

// Crafted input full of plausible headers whose CRCs fail cannot make the
// resynchronising scan quadratic.
func TestResyncIsBounded(t *testing.T) {
	const n = 4 << 20
	data := make([]byte, n)
	for p := 64; p+batchHeaderSize <= n; p += 64 {
		binary.BigEndian.PutUint32(data[p+offLength:], uint32(n/2))
		data[p+offMagic] = 2
	}
	copy(data, "garbage at the start")
	start := time.Now()
	c, err := ReadBytes(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
	if !c.NotALog || c.Batches != 0 {
		t.Errorf("census %+v", c)
	}
}
