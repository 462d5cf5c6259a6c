package kraft

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// Record is one decoded record of a metadata log segment or snapshot.
type Record struct {
	// Offset is the record's log offset; BatchOffset its batch's base offset.
	Offset      int64
	BatchOffset int64
	// Pos is the file position of the record's batch.
	Pos int64
	// BatchTime is the batch's maxTimestamp (the controller's append time,
	// UTC); Timestamp is the record's own (baseTimestamp + delta).
	BatchTime time.Time
	Timestamp time.Time
	// QuorumEpoch is the batch's partitionLeaderEpoch: the Raft epoch of the
	// controller that wrote it.
	QuorumEpoch int32
	// Control is true for Raft control records (LeaderChangeMessage,
	// SnapshotHeaderRecord, ...). APIKey is then the control type.
	Control bool
	// Snapshot is true for records read from a snapshot (.checkpoint).
	Snapshot bool
	// APIKey is the metadata record's apiKey (or the control type) and
	// Version its schema version; -1 when the frame itself was unreadable.
	APIKey  int16
	Version int16
	// Type names the record: "PartitionChangeRecord", "NoOpRecord",
	// "LeaderChangeMessage", "UnknownRecord(42)", ...
	Type string
	// Value is the decoded record, a pointer to one of the *Record /
	// *Message types of this package (e.g. *PartitionChangeRecord). It is
	// nil when Err is set, and for known types this package counts but does
	// not decode (ACLs, SCRAM credentials, delegation tokens, quotas).
	Value any
	// Err says why a record could not be decoded (ErrUnknownType,
	// ErrUnknownVersion or a malformed value). Such records are counted and
	// skipped, never fatal.
	Err error
}

// BadBatch describes a stretch of a file that could not be decoded.
type BadBatch struct {
	// Pos is the file position of the batch; BaseOffset and Length its
	// header fields as read (possibly garbage).
	Pos        int64 `json:"pos"`
	BaseOffset int64 `json:"base_offset"`
	Length     int32 `json:"length"`
	// Reason says what was wrong.
	Reason string `json:"reason"`
	// Skipped is how many bytes from Pos were skipped before decoding
	// resumed (-1: nothing after Pos could be decoded).
	Skipped int64 `json:"skipped"`
}

// NoOpStats summarises the active controller's NoOpRecord heartbeats
// (written every metadata.max.idle.interval.ms, 500 ms by default). A long
// gap within one quorum epoch is a controller stall; a gap across epochs is
// a failover or restart.
type NoOpStats struct {
	Records int `json:"records"`
	// MedianGap and MaxGap are between consecutive NoOp batches.
	MedianGap time.Duration `json:"median_gap"`
	MaxGap    time.Duration `json:"max_gap"`
	// MaxGapAfter is the offset of the NoOp before the longest gap.
	MaxGapAfter int64 `json:"max_gap_after"`
	// Stalls counts gaps over StallThreshold within one quorum epoch;
	// MaxStall is the longest of them.
	Stalls      int           `json:"stalls"`
	MaxStall    time.Duration `json:"max_stall"`
	MaxStallAt  int64         `json:"max_stall_after"`
	EpochGaps   int           `json:"epoch_gaps"`
	gaps        []time.Duration
	lastTime    time.Time
	lastEpoch   int32
	lastOffset  int64
	initialized bool
}

// StallThreshold is the NoOp gap above which NoOpStats counts a stall.
const StallThreshold = 5 * time.Second

// Census is what decoding one file found.
type Census struct {
	Path     string `json:"path,omitempty"`
	Size     int64  `json:"size"`
	Snapshot bool   `json:"snapshot"`
	// Batches counts batches that passed their CRC (control batches
	// included); ControlBatches those with the control attribute.
	Batches        int `json:"batches"`
	ControlBatches int `json:"control_batches"`
	// Records counts records by Type.
	Records map[string]int `json:"records"`
	// PartitionChangeLeader counts PartitionChangeRecords that carry the
	// Leader tagged field.
	PartitionChangeLeader int `json:"partition_change_leader"`
	// Compression counts batches by codec name ("none", "gzip", ...).
	Compression map[string]int `json:"compression"`
	// UndecodedRecords counts records whose value could not be decoded
	// (unknown type or version, malformed value), by Type.
	UndecodedRecords map[string]int `json:"undecoded_records,omitempty"`
	// CRCFailures lists batches whose CRC-32C did not match; Corrupt lists
	// undecodable headers and malformed record sections.
	CRCFailures []BadBatch `json:"crc_failures"`
	Corrupt     []BadBatch `json:"corrupt,omitempty"`
	// Truncated is set when the file ends inside a batch that starts at
	// TruncatedAt. TrailingZeros counts zero bytes after the last batch
	// (preallocated space), which are not an error.
	Truncated     bool  `json:"truncated"`
	TruncatedAt   int64 `json:"truncated_at,omitempty"`
	TrailingZeros int64 `json:"trailing_zeros,omitempty"`
	// NotALog is set when the file does not start with a v2 record batch.
	NotALog       bool   `json:"not_a_log"`
	NotALogReason string `json:"not_a_log_reason,omitempty"`
	// FirstOffset/LastOffset are the first and last record offsets (-1 when
	// there are none). FirstBatch is the first batch's baseTimestamp and
	// LastBatch the last batch's maxTimestamp, UTC.
	FirstOffset int64     `json:"first_offset"`
	LastOffset  int64     `json:"last_offset"`
	FirstBatch  time.Time `json:"first_batch"`
	LastBatch   time.Time `json:"last_batch"`
	// MinQuorumEpoch and MaxQuorumEpoch bound the batches' Raft epochs.
	MinQuorumEpoch int32 `json:"min_quorum_epoch"`
	MaxQuorumEpoch int32 `json:"max_quorum_epoch"`
	// BrokerIDs are the ids seen in RegisterBrokerRecords, sorted.
	BrokerIDs []int32 `json:"broker_ids"`
	// MetadataVersion is the last metadata.version feature level seen (0 if
	// none) and MetadataVersionName its Kafka name.
	MetadataVersion     int16     `json:"metadata_version,omitempty"`
	MetadataVersionName string    `json:"metadata_version_name,omitempty"`
	NoOp                NoOpStats `json:"noop"`
}

// Count returns the number of records of the given Type.
func (c *Census) Count(typ string) int { return c.Records[typ] }

// ReadFile decodes the segment or snapshot at path, calling fn (which may be
// nil) for every record in offset order. Corrupt or truncated input is
// reported in the Census, not as an error; the error is an I/O error or the
// first error fn returns, which stops decoding. Files named *.checkpoint,
// and files whose first record is a SnapshotHeaderRecord, yield records
// with Snapshot set.
func ReadFile(path string, fn func(Record) error) (Census, error) {
	f, err := os.Open(path)
	if err != nil {
		return Census{Path: path}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Census{Path: path}, err
	}
	if st.IsDir() {
		return Census{Path: path}, fmt.Errorf("kraft: %s is a directory", path)
	}
	d := newDecoder(f, st.Size(), fn)
	d.snapshot = strings.HasSuffix(path, ".checkpoint")
	d.c.Path = path
	err = d.run()
	return d.c, err
}

// Read is ReadFile for a reader. Readers that are also io.ReaderAt and
// io.Seeker (files, bytes.Reader) are read in place; others are read into
// memory first.
func Read(r io.Reader, fn func(Record) error) (Census, error) {
	if ra, ok := r.(interface {
		io.ReaderAt
		io.Seeker
	}); ok {
		start, err := ra.Seek(0, io.SeekCurrent)
		if err == nil {
			var end int64
			if end, err = ra.Seek(0, io.SeekEnd); err == nil {
				d := newDecoder(io.NewSectionReader(ra, start, end-start), end-start, fn)
				err = d.run()
				return d.c, err
			}
		}
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return Census{}, err
	}
	return ReadBytes(b, fn)
}

// ReadBytes is ReadFile for a file's contents held in memory.
func ReadBytes(b []byte, fn func(Record) error) (Census, error) {
	d := newDecoder(bytes.NewReader(b), int64(len(b)), fn)
	d.src.buf = b // the whole input is the window
	d.src.bufPos = 0
	d.src.whole = true
	err := d.run()
	return d.c, err
}

// window serves byte ranges of a ReaderAt from a reusable buffer.
type window struct {
	ra     io.ReaderAt
	size   int64
	buf    []byte
	bufPos int64
	whole  bool // buf is the entire input
	pooled *[]byte
}

// release returns a pooled buffer.
func (w *window) release() {
	if w.pooled != nil {
		windowPool.Put(w.pooled)
		w.pooled, w.buf = nil, nil
	}
}

const windowSize = 1 << 20

var windowPool = sync.Pool{New: func() any { b := make([]byte, windowSize); return &b }}

// at returns n bytes at pos, valid until the next call.
func (w *window) at(pos int64, n int) ([]byte, error) {
	if pos < 0 || n < 0 || pos+int64(n) > w.size {
		return nil, io.ErrUnexpectedEOF
	}
	if pos >= w.bufPos && pos+int64(n) <= w.bufPos+int64(len(w.buf)) {
		off := pos - w.bufPos
		return w.buf[off : off+int64(n)], nil
	}
	if w.whole {
		return nil, io.ErrUnexpectedEOF
	}
	want := max(n, windowSize)
	if rest := w.size - pos; int64(want) > rest {
		want = int(rest)
	}
	if cap(w.buf) < want {
		if want <= windowSize {
			w.pooled = windowPool.Get().(*[]byte)
			w.buf = *w.pooled
		} else {
			w.release()
			w.buf = make([]byte, want)
		}
	}
	w.buf = w.buf[:want]
	m, err := w.ra.ReadAt(w.buf, pos)
	if m < n {
		w.buf = w.buf[:0]
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	w.buf = w.buf[:m]
	w.bufPos = pos
	return w.buf[:n], nil
}

type decoder struct {
	src      window
	fn       func(Record) error
	c        Census
	snapshot bool
	brokers  map[int32]bool
	first    bool // no valid batch yet
	// counts[control][apiKey] counts records of known types; other types
	// go to the census map directly.
	counts [2][32]int
	codecs [8]int
	// crcBudget bounds the bytes resync may checksum (crafted input could
	// otherwise make scanning quadratic).
	crcBudget int64
}

func newDecoder(ra io.ReaderAt, size int64, fn func(Record) error) *decoder {
	return &decoder{
		src: window{ra: ra, size: size},
		fn:  fn,
		c: Census{
			Size:           size,
			Records:        map[string]int{},
			Compression:    map[string]int{},
			CRCFailures:    []BadBatch{},
			FirstOffset:    -1,
			LastOffset:     -1,
			MinQuorumEpoch: -1,
			MaxQuorumEpoch: -1,
			BrokerIDs:      []int32{},
		},
		brokers:   map[int32]bool{},
		first:     true,
		crcBudget: 16*size + 64<<20,
	}
}

// ioError wraps read failures so run can tell them from callback errors.
type ioError struct{ err error }

func (e ioError) Error() string { return e.err.Error() }
func (e ioError) Unwrap() error { return e.err }

func (d *decoder) run() error {
	err := d.loop()
	d.src.release()
	d.finish()
	if e, ok := err.(ioError); ok {
		return e.err
	}
	return err
}

func (d *decoder) loop() error {
	size := d.src.size
	var pos int64
	for pos < size {
		rem := size - pos
		if rem < batchHeaderSize {
			tail, err := d.src.at(pos, int(rem))
			if err != nil {
				return ioError{err}
			}
			// A tail shorter than a header is a cut batch even if it is
			// zeros so far (a base offset starts with zero bytes);
			// preallocated space is longer.
			switch {
			case pos == 0 && allZero(tail):
				d.c.TrailingZeros = rem
			case pos == 0:
				d.notALog(fmt.Sprintf("%d bytes, shorter than a record batch header", rem))
			default:
				d.c.Truncated, d.c.TruncatedAt = true, pos
			}
			return nil
		}
		hb, err := d.src.at(pos, batchHeaderSize)
		if err != nil {
			return ioError{err}
		}
		h := parseHeader(hb)
		if problem := headerProblem(h); problem != "" {
			if allZero(hb) {
				zero, err := d.zeroTail(pos)
				if err != nil {
					return err
				}
				if zero {
					d.c.TrailingZeros = rem
					return nil
				}
			}
			next, err := d.resync(pos + 1)
			if err != nil {
				return err
			}
			if pos == 0 && next < 0 {
				d.notALog(problem)
				return nil
			}
			bad := BadBatch{Pos: pos, BaseOffset: h.baseOffset, Length: h.length, Reason: problem, Skipped: -1}
			if next >= 0 {
				bad.Skipped = next - pos
			}
			d.c.Corrupt = append(d.c.Corrupt, bad)
			if next < 0 {
				return nil
			}
			pos = next
			continue
		}
		end := pos + logOverhead + int64(h.length)
		if end > size {
			d.c.Truncated, d.c.TruncatedAt = true, pos
			return nil
		}
		batch, err := d.src.at(pos, int(end-pos))
		if err != nil {
			return ioError{err}
		}
		if got := batchCRC(batch); got != h.crc {
			bad := BadBatch{Pos: pos, BaseOffset: h.baseOffset, Length: h.length,
				Reason: fmt.Sprintf("crc mismatch: stored %08x, computed %08x", h.crc, got)}
			// Trust the length field only if a batch (or the end of the
			// file) follows where it points.
			next := end
			if ok, err := d.boundary(end); err != nil {
				return err
			} else if !ok {
				if next, err = d.resync(pos + 1); err != nil {
					return err
				}
			}
			bad.Skipped = -1
			if next >= 0 {
				bad.Skipped = next - pos
			}
			d.c.CRCFailures = append(d.c.CRCFailures, bad)
			if next < 0 {
				return nil
			}
			pos = next
			continue
		}
		if err := d.batch(pos, h, batch); err != nil {
			return err
		}
		pos = end
	}
	return nil
}

func (d *decoder) notALog(reason string) {
	d.c.NotALog = true
	d.c.NotALogReason = reason
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// zeroTail reports whether everything from pos to the end is zero bytes.
func (d *decoder) zeroTail(pos int64) (bool, error) {
	for pos < d.src.size {
		n := int(min(int64(windowSize), d.src.size-pos))
		b, err := d.src.at(pos, n)
		if err != nil {
			return false, ioError{err}
		}
		if !allZero(b) {
			return false, nil
		}
		pos += int64(n)
	}
	return true, nil
}

// boundary reports whether a batch can start at pos: the end of the file,
// trailing zeros, or a plausible header.
func (d *decoder) boundary(pos int64) (bool, error) {
	rem := d.src.size - pos
	if rem == 0 {
		return true, nil
	}
	if rem < batchHeaderSize {
		return d.zeroTail(pos)
	}
	hb, err := d.src.at(pos, batchHeaderSize)
	if err != nil {
		return false, ioError{err}
	}
	if allZero(hb) {
		return d.zeroTail(pos)
	}
	return headerProblem(parseHeader(hb)) == "", nil
}

// resync finds the next position from pos holding a batch with a plausible
// header and a matching CRC, or -1.
func (d *decoder) resync(pos int64) (int64, error) {
	size := d.src.size
	for ; pos+batchHeaderSize <= size; pos++ {
		// Cheap tests first: the magic byte, then the header.
		mb, err := d.src.at(pos+offMagic, 1)
		if err != nil {
			return -1, ioError{err}
		}
		if mb[0] != 2 {
			continue
		}
		hb, err := d.src.at(pos, batchHeaderSize)
		if err != nil {
			return -1, ioError{err}
		}
		h := parseHeader(hb)
		if headerProblem(h) != "" {
			continue
		}
		end := pos + logOverhead + int64(h.length)
		if end > size {
			continue
		}
		if d.crcBudget -= end - pos; d.crcBudget < 0 {
			return -1, nil
		}
		batch, err := d.src.at(pos, int(end-pos))
		if err != nil {
			return -1, ioError{err}
		}
		if batchCRC(batch) == h.crc {
			return pos, nil
		}
	}
	return -1, nil
}

// batch decodes the records of a batch whose CRC matched.
func (d *decoder) batch(pos int64, h batchHeader, batch []byte) error {
	c := &d.c
	c.Batches++
	control := h.attributes&attrControl != 0
	if control {
		c.ControlBatches++
	}
	codec := int(h.attributes & attrCompressionMask)
	d.codecs[codec]++
	if d.first {
		d.first = false
		c.FirstBatch = time.UnixMilli(h.baseTimestamp).UTC()
		c.MinQuorumEpoch, c.MaxQuorumEpoch = h.leaderEpoch, h.leaderEpoch
	}
	c.LastBatch = time.UnixMilli(h.maxTimestamp).UTC()
	c.MinQuorumEpoch = min(c.MinQuorumEpoch, h.leaderEpoch)
	c.MaxQuorumEpoch = max(c.MaxQuorumEpoch, h.leaderEpoch)

	data := batch[batchHeaderSize:]
	if codec != CompressionNone {
		out, err := decompress(codec, data)
		if err != nil {
			c.Corrupt = append(c.Corrupt, BadBatch{Pos: pos, BaseOffset: h.baseOffset, Length: h.length,
				Reason: fmt.Sprintf("%s decompression: %v", compressionNames[codec], err)})
			return nil
		}
		data = out
	}
	rec := Record{
		BatchOffset: h.baseOffset,
		Pos:         pos,
		BatchTime:   time.UnixMilli(h.maxTimestamp).UTC(),
		QuorumEpoch: h.leaderEpoch,
		Control:     control,
	}
	r := reader{b: data}
	for i := int32(0); i < h.recordsCount; i++ {
		if r.remaining() == 0 {
			c.Corrupt = append(c.Corrupt, BadBatch{Pos: pos, BaseOffset: h.baseOffset, Length: h.length,
				Reason: fmt.Sprintf("batch holds %d of %d records", i, h.recordsCount)})
			return nil
		}
		length := r.varint()
		body := r.take(int(length))
		if r.err != nil || length < 0 {
			c.Corrupt = append(c.Corrupt, BadBatch{Pos: pos, BaseOffset: h.baseOffset, Length: h.length,
				Reason: fmt.Sprintf("record %d: bad length %d", i, length)})
			return nil
		}
		if err := d.record(&rec, h, body); err != nil {
			if _, malformed := err.(malformedError); malformed {
				c.Corrupt = append(c.Corrupt, BadBatch{Pos: pos, BaseOffset: h.baseOffset, Length: h.length,
					Reason: fmt.Sprintf("record %d: %v", i, err)})
				return nil
			}
			return err
		}
	}
	return nil
}

type malformedError struct{ err error }

func (e malformedError) Error() string { return e.err.Error() }

// record decodes one record body and hands it to the callback.
func (d *decoder) record(rec *Record, h batchHeader, body []byte) error {
	r := reader{b: body}
	r.int8() // attributes, unused
	tsDelta := r.varlong()
	offDelta := r.varint()
	keyLen := r.varint()
	var key []byte
	if keyLen >= 0 {
		key = r.take(int(keyLen))
	}
	valLen := r.varint()
	var value []byte
	if valLen >= 0 {
		value = r.take(int(valLen))
	}
	nh := r.varint()
	for j := int32(0); j < nh && r.err == nil; j++ {
		if n := r.varint(); n > 0 {
			r.take(int(n))
		}
		if n := r.varint(); n > 0 {
			r.take(int(n))
		}
	}
	if r.err != nil {
		return malformedError{r.err}
	}
	rec.Offset = h.baseOffset + int64(offDelta)
	rec.Timestamp = time.UnixMilli(h.baseTimestamp + tsDelta).UTC()
	rec.Value, rec.Err = nil, nil
	if rec.Control {
		rec.APIKey, rec.Version, rec.Type, rec.Value, rec.Err = decodeControlValue(key, value)
		if d.c.FirstOffset < 0 && rec.APIKey == ControlSnapshotHeader {
			d.snapshot = true
		}
	} else {
		rec.APIKey, rec.Version, rec.Type, rec.Value, rec.Err = decodeMetadataValue(value)
	}
	rec.Snapshot = d.snapshot
	d.count(rec)
	if d.fn != nil {
		return d.fn(*rec)
	}
	return nil
}

// count updates the census with one record.
func (d *decoder) count(rec *Record) {
	c := &d.c
	if c.FirstOffset < 0 {
		c.FirstOffset = rec.Offset
	}
	c.LastOffset = rec.Offset
	if k := rec.APIKey; k >= 0 && int(k) < len(d.counts[0]) {
		ci := 0
		if rec.Control {
			ci = 1
		}
		d.counts[ci][k]++
	} else {
		c.Records[rec.Type]++
	}
	if rec.Err != nil {
		if c.UndecodedRecords == nil {
			c.UndecodedRecords = map[string]int{}
		}
		c.UndecodedRecords[rec.Type]++
		return
	}
	switch v := rec.Value.(type) {
	case *NoOpRecord:
		c.NoOp.add(rec)
	case *PartitionChangeRecord:
		if v.HasLeader {
			c.PartitionChangeLeader++
		}
	case *RegisterBrokerRecord:
		d.brokers[v.BrokerID] = true
	case *FeatureLevelRecord:
		if v.Name == "metadata.version" {
			c.MetadataVersion = v.FeatureLevel
			c.MetadataVersionName = MetadataVersionName(v.FeatureLevel)
		}
	}
}

func (s *NoOpStats) add(rec *Record) {
	s.Records++
	t := rec.BatchTime
	if s.initialized {
		gap := t.Sub(s.lastTime)
		if gap < 0 {
			gap = 0
		}
		s.gaps = append(s.gaps, gap)
		if gap > s.MaxGap {
			s.MaxGap, s.MaxGapAfter = gap, s.lastOffset
		}
		if gap > StallThreshold {
			if rec.QuorumEpoch == s.lastEpoch {
				s.Stalls++
				if gap > s.MaxStall {
					s.MaxStall, s.MaxStallAt = gap, s.lastOffset
				}
			} else {
				s.EpochGaps++
			}
		}
	}
	s.initialized = true
	s.lastTime, s.lastEpoch, s.lastOffset = t, rec.QuorumEpoch, rec.Offset
}

func (d *decoder) finish() {
	c := &d.c
	c.Snapshot = d.snapshot
	for codec, n := range d.codecs {
		if n > 0 {
			c.Compression[compressionNames[codec]] += n
		}
	}
	for ci := range d.counts {
		for k, n := range d.counts[ci] {
			if n == 0 {
				continue
			}
			name := TypeName(int16(k))
			if ci == 1 {
				name = ControlTypeName(int16(k))
			}
			c.Records[name] += n
		}
	}
	for id := range d.brokers {
		c.BrokerIDs = append(c.BrokerIDs, id)
	}
	slices.Sort(c.BrokerIDs)
	if g := c.NoOp.gaps; len(g) > 0 {
		slices.Sort(g)
		c.NoOp.MedianGap = g[len(g)/2]
	}
	c.NoOp.gaps = nil
}
