package kraft

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

func gzipBytes(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func lz4Bytes(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	w := lz4.NewWriter(&buf)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zstdBytes(t testing.TB, b []byte) []byte {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(b, nil)
}

// xerialBytes frames snappy blocks the way snappy-java's
// SnappyOutputStream (Kafka's Java client) does.
func xerialBytes(b []byte, block int) []byte {
	out := append([]byte{}, xerialMagic...)
	out = binary.BigEndian.AppendUint32(out, 1) // version
	out = binary.BigEndian.AppendUint32(out, 1) // compatible version
	for len(b) > 0 {
		n := min(block, len(b))
		enc := s2.EncodeSnappy(nil, b[:n])
		out = binary.BigEndian.AppendUint32(out, uint32(len(enc)))
		out = append(out, enc...)
		b = b[n:]
	}
	return out
}

// Every codec decodes a real PartitionChange batch (renoagil's 52-record
// controlled shutdown at offset 10308) to the same records.
func TestCompressionCodecs(t *testing.T) {
	orig := readShared(t, "renoagil-textlogs/00000000000000000000.log")
	batches, _ := rawBatches(t, orig)
	var plain []byte
	for _, b := range batches {
		if parseHeader(b).baseOffset == 10308 {
			plain = b
		}
	}
	if plain == nil {
		t.Fatal("batch 10308 not found")
	}
	h := parseHeader(plain)
	records := plain[batchHeaderSize:]
	_, want := collect(t, plain)
	if len(want) != 52 || want[1].Type != "PartitionChangeRecord" {
		t.Fatalf("plain batch: %d records", len(want))
	}
	for _, tc := range []struct {
		name  string
		codec int16
		data  []byte
	}{
		{"gzip", CompressionGzip, gzipBytes(t, records)},
		{"snappy raw", CompressionSnappy, s2.EncodeSnappy(nil, records)},
		{"snappy xerial", CompressionSnappy, xerialBytes(records, 1000)},
		{"snappy xerial one block", CompressionSnappy, xerialBytes(records, 1<<20)},
		{"lz4", CompressionLZ4, lz4Bytes(t, records)},
		{"zstd", CompressionZstd, zstdBytes(t, records)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := rebatch(plain, h.attributes|tc.codec, tc.data)
			c, got := collect(t, b)
			if c.Batches != 1 || len(c.Corrupt) != 0 || c.Compression[compressionNames[tc.codec]] != 1 {
				t.Fatalf("census %+v", c)
			}
			if len(got) != len(want) {
				t.Fatalf("%d records, want %d", len(got), len(want))
			}
			for i := range got {
				if got[i].Offset != want[i].Offset || got[i].Type != want[i].Type || !reflect.DeepEqual(got[i].Value, want[i].Value) {
					t.Fatalf("record %d: %+v, want %+v", i, got[i], want[i])
				}
			}
		})
		t.Run(tc.name+" damaged", func(t *testing.T) {
			d := bytes.Clone(tc.data)
			d = d[:len(d)/2]
			b := rebatch(plain, h.attributes|tc.codec, d) // valid CRC, bad payload
			c, got := collect(t, b)
			if c.Batches != 1 || len(c.Corrupt) != 1 || len(got) >= len(want) {
				t.Errorf("census %+v, %d records", c, len(got))
			}
		})
	}
	// An unknown codec is reported, not fatal.
	c, got := collect(t, rebatch(plain, h.attributes|6, records))
	if len(c.Corrupt) != 1 || len(got) != 0 {
		t.Errorf("codec 6: census %+v", c)
	}
}
