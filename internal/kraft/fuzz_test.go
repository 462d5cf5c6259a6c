package kraft

import (
	"path/filepath"
	"testing"
)

// rawRecords returns the key and value of every record of an uncompressed
// batch.
func rawRecords(batch []byte) (keys, values [][]byte) {
	h := parseHeader(batch)
	r := reader{b: batch[batchHeaderSize:]}
	for i := int32(0); i < h.recordsCount && r.err == nil; i++ {
		n := r.varint()
		body := reader{b: r.take(int(n))}
		body.int8()
		body.varlong()
		body.varint()
		var k, v []byte
		if kl := body.varint(); kl >= 0 {
			k = body.take(int(kl))
		}
		if vl := body.varint(); vl >= 0 {
			v = body.take(int(vl))
		}
		if body.err == nil {
			keys, values = append(keys, k), append(values, v)
		}
	}
	return keys, values
}

// fuzzSeeds returns real batches: a few from each set, one of each record
// type and version.
func fuzzSeeds(tb testing.TB) (batches [][]byte) {
	files, _ := filepath.Glob(filepath.Join(sharedDir, "*", "[0-9]*.log"))
	cps, _ := filepath.Glob(filepath.Join(sharedDir, "*", "[0-9]*.checkpoint"))
	seen := map[[2]int]bool{}
	for _, f := range append(files, cps...) {
		data := readShared(tb, f[len(sharedDir)+1:])
		bs, _ := rawBatches(tb, data)
		for i, b := range bs {
			_, vals := rawRecords(b)
			keep := i < 3
			for _, v := range vals {
				r := reader{b: v}
				r.uvarint()
				k := [2]int{int(r.uvarint()), int(r.uvarint())}
				if parseHeader(b).attributes&attrControl != 0 {
					k[0] += 1000
				}
				if !seen[k] {
					seen[k] = true
					keep = true
				}
			}
			if keep && len(b) < 8192 {
				batches = append(batches, b)
			}
		}
	}
	return batches
}

// FuzzReadBytes feeds whole files to the decoder: framing, CRC checks,
// resynchronisation, truncation. Seeds: the first batches of real
// segments and snapshots, and a damaged copy of each.
func FuzzReadBytes(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("not a log at all"))
	f.Add(makeBatch(0, 1, 0, 1, 1, 0, 1, encodeRecord(0, 0, nil, []byte{1, 20, 0, 0})))
	if haveShared() {
		var file []byte
		for _, b := range fuzzSeeds(f) {
			f.Add(b)
			file = append(file, b...)
			if len(file) > 16<<10 {
				f.Add(file)
				file = nil
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		c, err := ReadBytes(data, func(r Record) error {
			n++
			if r.Value != nil && r.Err != nil {
				t.Fatalf("record with value and error: %+v", r)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, k := range c.Records {
			total += k
		}
		if total != n {
			t.Fatalf("census counts %d records, callback saw %d", total, n)
		}
		if c.Batches*minBatchLength > len(data) {
			t.Fatalf("%d batches in %d bytes", c.Batches, len(data))
		}
	})
}

// FuzzBatch builds a batch with a correct CRC around fuzzed attributes,
// record count and records section, so record framing and decompression
// are reached.
func FuzzBatch(f *testing.F) {
	f.Add(int16(0), int32(1), encodeRecord(0, 0, nil, []byte{1, 20, 0, 0}))
	f.Add(int16(attrControl), int32(1), encodeRecord(0, 0, []byte{0, 0, 0, 2}, []byte{0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 1, 2, 0, 0, 0, 1, 0, 0}))
	f.Add(int16(CompressionSnappy), int32(1), xerialBytes(encodeRecord(0, 0, nil, []byte{1, 20, 0, 0}), 3))
	f.Add(int16(CompressionGzip), int32(1), gzipBytes(f, encodeRecord(0, 0, nil, []byte{1, 20, 0, 0})))
	f.Add(int16(CompressionLZ4), int32(1), lz4Bytes(f, encodeRecord(0, 0, nil, []byte{1, 20, 0, 0})))
	f.Add(int16(CompressionZstd), int32(1), zstdBytes(f, encodeRecord(0, 0, nil, []byte{1, 20, 0, 0})))
	if haveShared() {
		for _, b := range fuzzSeeds(f) {
			h := parseHeader(b)
			f.Add(h.attributes, h.recordsCount, b[batchHeaderSize:])
		}
	}
	f.Fuzz(func(t *testing.T, attrs int16, count int32, records []byte) {
		b := makeBatch(100, 3, attrs, 1000, 2000, count, count, records)
		c, err := ReadBytes(b, func(r Record) error {
			if r.Control != (attrs&attrControl != 0) || r.QuorumEpoch != 3 || r.BatchOffset != 100 {
				t.Fatalf("record %+v", r)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if count < 0 {
			// A negative record count is not a batch header.
			if !c.NotALog || c.Batches != 0 {
				t.Fatalf("census %+v", c)
			}
			return
		}
		if c.Batches != 1 || len(c.CRCFailures) != 0 || c.NotALog || c.Truncated {
			t.Fatalf("census %+v", c)
		}
	})
}

// FuzzDecodeValue feeds record values to the metadata and control record
// decoders. Seeds: one real value of every type and version.
func FuzzDecodeValue(f *testing.F) {
	f.Add(false, []byte{1, 5, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 1, 1, 4, 0, 0, 0, 2})
	f.Add(true, []byte{0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 1, 2, 0, 0, 0, 1, 0, 0})
	if haveShared() {
		for _, b := range fuzzSeeds(f) {
			keys, vals := rawRecords(b)
			control := parseHeader(b).attributes&attrControl != 0
			for i, v := range vals {
				if control {
					f.Add(true, append(append([]byte{}, keys[i]...), v...))
				} else {
					f.Add(false, v)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, control bool, data []byte) {
		if control {
			key := data[:min(4, len(data))]
			ct, _, typ, val, err := decodeControlValue(key, data[len(key):])
			if (val == nil) == (err == nil) {
				t.Fatalf("type %s (%d): value %v, err %v", typ, ct, val, err)
			}
			return
		}
		_, _, typ, val, err := decodeMetadataValue(data)
		if val != nil && err != nil {
			t.Fatalf("%s: value and error", typ)
		}
		if typ == "" {
			t.Fatal("no type name")
		}
		_ = Record{Value: val}.Fields()
	})
}
