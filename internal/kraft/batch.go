package kraft

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Record batch v2 layout (Kafka DefaultRecordBatch).
const (
	offBaseOffset      = 0
	offLength          = 8
	offLeaderEpoch     = 12
	offMagic           = 16
	offCRC             = 17
	offAttributes      = 21
	offLastOffsetDelta = 23
	offBaseTimestamp   = 27
	offMaxTimestamp    = 35
	offProducerID      = 43
	offProducerEpoch   = 51
	offBaseSequence    = 53
	offRecordsCount    = 57
	batchHeaderSize    = 61
	logOverhead        = 12 // baseOffset + batchLength
	minBatchLength     = batchHeaderSize - logOverhead

	// maxBatchLength bounds the batchLength field we believe. Kafka's
	// message.max.bytes is far smaller; 1 GiB is the segment size limit.
	maxBatchLength = 1 << 30
	// maxDecompressed bounds the size of one decompressed batch.
	maxDecompressed = 256 << 20

	attrCompressionMask = 0x07
	attrTransactional   = 0x10
	attrControl         = 0x20
)

// Compression codecs (attributes bits 0-2).
const (
	CompressionNone   = 0
	CompressionGzip   = 1
	CompressionSnappy = 2
	CompressionLZ4    = 3
	CompressionZstd   = 4
)

var compressionNames = [8]string{"none", "gzip", "snappy", "lz4", "zstd", "codec5", "codec6", "codec7"}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// batchHeader is the fixed part of a record batch.
type batchHeader struct {
	baseOffset      int64
	length          int32
	leaderEpoch     int32
	magic           int8
	crc             uint32
	attributes      int16
	lastOffsetDelta int32
	baseTimestamp   int64
	maxTimestamp    int64
	producerID      int64
	producerEpoch   int16
	baseSequence    int32
	recordsCount    int32
}

func parseHeader(b []byte) (h batchHeader) {
	_ = b[batchHeaderSize-1]
	h.baseOffset = int64(binary.BigEndian.Uint64(b[offBaseOffset:]))
	h.length = int32(binary.BigEndian.Uint32(b[offLength:]))
	h.leaderEpoch = int32(binary.BigEndian.Uint32(b[offLeaderEpoch:]))
	h.magic = int8(b[offMagic])
	h.crc = binary.BigEndian.Uint32(b[offCRC:])
	h.attributes = int16(binary.BigEndian.Uint16(b[offAttributes:]))
	h.lastOffsetDelta = int32(binary.BigEndian.Uint32(b[offLastOffsetDelta:]))
	h.baseTimestamp = int64(binary.BigEndian.Uint64(b[offBaseTimestamp:]))
	h.maxTimestamp = int64(binary.BigEndian.Uint64(b[offMaxTimestamp:]))
	h.producerID = int64(binary.BigEndian.Uint64(b[offProducerID:]))
	h.producerEpoch = int16(binary.BigEndian.Uint16(b[offProducerEpoch:]))
	h.baseSequence = int32(binary.BigEndian.Uint32(b[offBaseSequence:]))
	h.recordsCount = int32(binary.BigEndian.Uint32(b[offRecordsCount:]))
	return h
}

// headerProblem says why a batch header cannot start a v2 batch, or "".
func headerProblem(h batchHeader) string {
	switch {
	case h.magic != 2:
		return fmt.Sprintf("magic %d, want 2", h.magic)
	case h.length < minBatchLength:
		return fmt.Sprintf("batch length %d below the minimum %d", h.length, minBatchLength)
	case h.length > maxBatchLength:
		return fmt.Sprintf("batch length %d implausible", h.length)
	case h.baseOffset < 0:
		return fmt.Sprintf("negative base offset %d", h.baseOffset)
	case h.recordsCount < 0:
		return fmt.Sprintf("negative record count %d", h.recordsCount)
	}
	return ""
}

func batchCRC(batch []byte) uint32 {
	return crc32.Checksum(batch[offAttributes:], castagnoli)
}

var errDecompressedTooLarge = errors.New("kraft: decompressed batch exceeds 256 MiB")

var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxDecompressed))
})

// xerialMagic starts snappy data framed by the xerial snappy-java
// SnappyOutputStream, which Kafka's Java client uses.
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

// decompress returns the records section of a compressed batch.
func decompress(codec int, src []byte) ([]byte, error) {
	switch codec {
	case CompressionGzip:
		zr, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return nil, err
		}
		return readLimited(zr)
	case CompressionSnappy:
		return unsnappy(src)
	case CompressionLZ4:
		return readLimited(lz4.NewReader(bytes.NewReader(src)))
	case CompressionZstd:
		d, err := zstdDecoder()
		if err != nil {
			return nil, err
		}
		out, err := d.DecodeAll(src, nil)
		if err == nil && len(out) > maxDecompressed {
			return nil, errDecompressedTooLarge
		}
		return out, err
	}
	return nil, fmt.Errorf("kraft: unknown compression codec %d", codec)
}

func readLimited(r io.Reader) ([]byte, error) {
	out, err := io.ReadAll(io.LimitReader(r, maxDecompressed+1))
	if err != nil {
		return nil, err
	}
	if len(out) > maxDecompressed {
		return nil, errDecompressedTooLarge
	}
	return out, nil
}

// unsnappy decodes xerial-framed snappy (magic, version, compatible version,
// then big-endian length-prefixed snappy blocks) or a raw snappy block.
func unsnappy(src []byte) ([]byte, error) {
	if !bytes.HasPrefix(src, xerialMagic) {
		return snappyBlock(nil, src)
	}
	if len(src) < 16 {
		return nil, errors.New("kraft: short xerial snappy header")
	}
	var out []byte
	for p := src[16:]; len(p) > 0; {
		if len(p) < 4 {
			return nil, errors.New("kraft: truncated xerial snappy block length")
		}
		n := binary.BigEndian.Uint32(p)
		p = p[4:]
		if uint64(n) > uint64(len(p)) {
			return nil, errors.New("kraft: truncated xerial snappy block")
		}
		var err error
		if out, err = snappyBlock(out, p[:n]); err != nil {
			return nil, err
		}
		p = p[n:]
	}
	return out, nil
}

// snappyBlock appends the decoding of one raw snappy block to dst.
func snappyBlock(dst, block []byte) ([]byte, error) {
	n, err := s2.DecodedLen(block)
	if err != nil {
		return nil, fmt.Errorf("kraft: snappy: %w", err)
	}
	if n > maxDecompressed || len(dst)+n > maxDecompressed {
		return nil, errDecompressedTooLarge
	}
	out, err := s2.Decode(nil, block)
	if err != nil {
		return nil, fmt.Errorf("kraft: snappy: %w", err)
	}
	if dst == nil {
		return out, nil
	}
	return append(dst, out...), nil
}
