package source

import (
	"bytes"
	"io"
)

// Start is how a file begins, by SniffStart: the one rule audit and watch
// share for telling text logs from other files.
type Start struct {
	// Gzip: the gzip magic.
	Gzip bool
	// Binary: not a text log (a KRaft record-batch segment starts with an
	// 8-byte base offset and a length, mostly NULs, then binary fields).
	Binary bool
	// NULs: the file starts with this many NUL bytes and text follows:
	// the hole copytruncate leaves when the writer appends through a `>`
	// redirect (kafkaServer.out) at its old offset. Read from after them.
	NULs int64
}

// sniffWindow is how much text after the NULs the rule looks at.
const sniffWindow = 512

// SniffStart reads the start of r. A file is binary when the first line
// after its leading NULs (within 512 bytes) holds a NUL: no text log
// writes one (other control bytes are log text to sanitise, not a sign of
// binary). NULs further on (space preallocated before a crash) are read
// as lines nobody understands. A file of nothing but NULs is text with
// nothing to read.
func SniffStart(r io.ReaderAt) (Start, error) {
	var st Start
	buf := make([]byte, 64<<10)
	for {
		n, err := r.ReadAt(buf, st.NULs)
		if n == 0 {
			if err != nil && err != io.EOF {
				return st, err
			}
			return st, nil
		}
		b := buf[:n]
		if st.NULs == 0 && n >= 2 && b[0] == 0x1f && b[1] == 0x8b {
			st.Gzip = true
			return st, nil
		}
		i := 0
		for i < n && b[i] == 0 {
			i++
		}
		st.NULs += int64(i)
		if i < n {
			break
		}
		if err != nil {
			if err == io.EOF {
				return st, nil
			}
			return st, err
		}
	}
	n, err := r.ReadAt(buf[:sniffWindow], st.NULs)
	if n == 0 && err != nil && err != io.EOF {
		return st, err
	}
	// The first line with something on it: a segment's length byte may
	// be a newline.
	first := bytes.TrimLeft(buf[:n], "\r\n")
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	st.Binary = bytes.IndexByte(first, 0) >= 0
	if st.Binary {
		// Binary from its first byte on: nothing was skipped to read it.
		st.NULs = 0
	}
	return st, nil
}
