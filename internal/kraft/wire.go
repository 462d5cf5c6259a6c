package kraft

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"math"
)

// errShort is the sticky error of a reader that ran past its input.
var errShort = errors.New("kraft: unexpected end of data")

// errTooLong is returned for a length or count that cannot fit the input.
var errTooLong = errors.New("kraft: length or count larger than the data")

// errVarint is returned for a varint longer than its type allows.
var errVarint = errors.New("kraft: malformed varint")

// UUID is a Kafka Uuid (topic id, incarnation id, log directory id).
type UUID [16]byte

// String formats the id the way Kafka prints it: URL-safe base64 without
// padding (22 characters), e.g. "MrU9bfT9Rc2K6Mt9CuXfMg".
func (u UUID) String() string {
	return base64.RawURLEncoding.EncodeToString(u[:])
}

// IsZero reports whether u is Kafka's ZERO_UUID.
func (u UUID) IsZero() bool { return u == UUID{} }

// MarshalText implements encoding.TextMarshaler (JSON shows the Kafka form).
func (u UUID) MarshalText() ([]byte, error) { return []byte(u.String()), nil }

// UnmarshalText parses the Kafka form of a Uuid.
func (u *UUID) UnmarshalText(b []byte) error {
	var tmp [16]byte
	n, err := base64.RawURLEncoding.Decode(tmp[:], b)
	if err != nil {
		return err
	}
	if n != 16 {
		return errors.New("kraft: uuid is not 16 bytes")
	}
	*u = tmp
	return nil
}

// ParseUUID parses the Kafka form of a Uuid.
func ParseUUID(s string) (UUID, error) {
	var u UUID
	err := u.UnmarshalText([]byte(s))
	return u, err
}

// reader decodes Kafka's wire types from a byte slice. Errors are sticky:
// after the first failure every method returns a zero value, so decoders can
// read a whole struct and check err once.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.off = len(r.b)
}

func (r *reader) remaining() int { return len(r.b) - r.off }

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.off {
		r.fail(errShort)
		return nil
	}
	s := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return s
}

func (r *reader) int8() int8 {
	if r.err != nil || r.off >= len(r.b) {
		r.fail(errShort)
		return 0
	}
	v := int8(r.b[r.off])
	r.off++
	return v
}

func (r *reader) bool() bool { return r.int8() != 0 }

func (r *reader) int16() int16 {
	if b := r.take(2); b != nil {
		return int16(binary.BigEndian.Uint16(b))
	}
	return 0
}

func (r *reader) uint16() uint16 { return uint16(r.int16()) }

func (r *reader) int32() int32 {
	if b := r.take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (r *reader) int64() int64 {
	if b := r.take(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

func (r *reader) float64() float64 { return math.Float64frombits(uint64(r.int64())) }

func (r *reader) uuid() (u UUID) {
	if b := r.take(16); b != nil {
		copy(u[:], b)
	}
	return u
}

// uvarint reads an unsigned varint of at most 32 bits (Kafka's
// readUnsignedVarint).
func (r *reader) uvarint() uint32 {
	if r.err != nil {
		return 0
	}
	var x uint32
	for shift := uint(0); ; shift += 7 {
		if r.off >= len(r.b) {
			r.fail(errShort)
			return 0
		}
		c := r.b[r.off]
		r.off++
		if shift == 28 && c > 0x0f {
			r.fail(errVarint)
			return 0
		}
		x |= uint32(c&0x7f) << shift
		if c < 0x80 {
			return x
		}
	}
}

// varint reads a zig-zag signed varint of at most 32 bits.
func (r *reader) varint() int32 {
	u := r.uvarint()
	return int32(u>>1) ^ -int32(u&1)
}

// varlong reads a zig-zag signed varint of at most 64 bits.
func (r *reader) varlong() int64 {
	if r.err != nil {
		return 0
	}
	var x uint64
	for shift := uint(0); ; shift += 7 {
		if r.off >= len(r.b) {
			r.fail(errShort)
			return 0
		}
		c := r.b[r.off]
		r.off++
		if shift == 63 && c > 1 {
			r.fail(errVarint)
			return 0
		}
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(x>>1) ^ -int64(x&1)
		}
	}
}

// compactLen reads a compact length (N+1, 0 = null) and checks it against
// the remaining input given the minimum size of one element.
func (r *reader) compactLen(minElem int) (n int, null bool) {
	u := r.uvarint()
	if r.err != nil {
		return 0, true
	}
	if u == 0 {
		return 0, true
	}
	n = int(u - 1)
	if minElem > 0 && n > r.remaining()/minElem {
		r.fail(errTooLong)
		return 0, true
	}
	return n, false
}

func (r *reader) compactString() string {
	n, null := r.compactLen(1)
	if null {
		return ""
	}
	return string(r.take(n))
}

func (r *reader) compactNullableString() *string {
	n, null := r.compactLen(1)
	if null {
		return nil
	}
	s := string(r.take(n))
	if r.err != nil {
		return nil
	}
	return &s
}

func (r *reader) compactBytesLen() int {
	n, null := r.compactLen(1)
	if null {
		return 0
	}
	r.take(n)
	return n
}

// compactInt32s reads a compact []int32; a null array is returned as nil and
// an empty one as a non-nil empty slice.
func (r *reader) compactInt32s() []int32 {
	n, null := r.compactLen(4)
	if null {
		return nil
	}
	out := make([]int32, n)
	b := r.take(4 * n)
	if b == nil {
		return nil
	}
	for i := range out {
		out[i] = int32(binary.BigEndian.Uint32(b[4*i:]))
	}
	return out
}

func (r *reader) compactUUIDs() []UUID {
	n, null := r.compactLen(16)
	if null {
		return nil
	}
	out := make([]UUID, n)
	b := r.take(16 * n)
	if b == nil {
		return nil
	}
	for i := range out {
		copy(out[i][:], b[16*i:])
	}
	return out
}

func (r *reader) compactStrings() []string {
	n, null := r.compactLen(1)
	if null {
		return nil
	}
	out := make([]string, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		out = append(out, r.compactString())
	}
	return out
}

// taggedFields reads a tagged-field section, calling fn for each field with
// a reader limited to the field's bytes. Fields fn does not know (returns
// false) are skipped by their size. The field reader's errors propagate.
func (r *reader) taggedFields(fn func(tag uint32, f *reader) bool) {
	n := r.uvarint()
	if r.err != nil {
		return
	}
	if int(n) > r.remaining()/2 && n > 0 {
		r.fail(errTooLong)
		return
	}
	for i := uint32(0); i < n && r.err == nil; i++ {
		tag := r.uvarint()
		size := r.uvarint()
		data := r.take(int(size))
		if r.err != nil {
			return
		}
		if fn == nil {
			continue
		}
		f := reader{b: data}
		if fn(tag, &f) && f.err != nil {
			r.fail(f.err)
		}
	}
}

// skipTagged skips a tagged-field section.
func (r *reader) skipTagged() { r.taggedFields(nil) }
