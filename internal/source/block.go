package source

import (
	"bytes"
	"io"
)

// blockReader yields the lines LineReader does (same cuts, same lone-CR
// splits, same byte count) but finds them over whole read buffers: one
// IndexByte per line for its end, and one per buffer for a CR, where
// LineReader searches every line twice. On a noise-dominated log the line
// split is a good part of what the audit costs.
type blockReader struct {
	r     io.Reader
	max   int
	buf   []byte
	start int // unread data is buf[start:end]
	end   int
	// cr: index in buf of the first CR at or after start, or end when the
	// unread data has none (crEnd: up to where it was looked for).
	cr  int
	err error
	// lf: the end of the last whole line in buf as of the fills-th read
	// (lfFill), for whole.
	lf, fills, lfFill int
	long              []byte // a line longer than buf, gathered up to max
	rest              []byte // what follows a lone CR in the current line
	Cut               int64
	Bytes             int64
}

// blockSize: LineReader's buffer size, which also decides where an
// over-long line is cut.
const blockSize = 256 << 10

func newBlockReader(r io.Reader, max int) *blockReader {
	return &blockReader{r: r, max: max, buf: make([]byte, blockSize)}
}

// Next is LineReader.Next.
func (br *blockReader) Next() ([]byte, error) {
	if br.rest != nil {
		return br.splitCR(br.rest), nil
	}
	line, hasCR, err := br.next()
	if err != nil || !hasCR {
		return line, err
	}
	if bytes.IndexByte(line, '\r') < 0 {
		return line, nil
	}
	return br.splitCR(line), nil
}

func (br *blockReader) splitCR(b []byte) []byte {
	i := bytes.IndexByte(b, '\r')
	if i < 0 {
		br.rest = nil
		return b
	}
	if i+1 < len(b) {
		br.rest = b[i+1:]
	} else {
		br.rest = nil
	}
	return b[:i]
}

// whole returns the unread lines in the buffer that Next would return as
// they are (each ended by a LF, no CR in them, none cut), for the parser's
// fast path to take in one go; skip says how much of it was taken.
func (br *blockReader) whole() []byte {
	if br.rest != nil || len(br.buf) > br.max {
		return nil
	}
	if br.lfFill != br.fills {
		// Once per read: the parser hands back after every line it
		// does not take.
		br.lf = br.start + bytes.LastIndexByte(br.buf[br.start:br.end], '\n') + 1
		br.lfFill = br.fills
	}
	e := br.lf
	if br.cr < e {
		e = br.start + bytes.LastIndexByte(br.buf[br.start:br.cr], '\n') + 1
	}
	if e <= br.start {
		return nil
	}
	return br.buf[br.start:e]
}

// skip passes over n bytes of what whole returned.
func (br *blockReader) skip(n int) {
	br.start += n
	br.Bytes += int64(n)
}

// next returns the next physical line without its end, and whether it
// may hold a CR.
func (br *blockReader) next() ([]byte, bool, error) {
	for {
		if i := bytes.IndexByte(br.buf[br.start:br.end], '\n'); i >= 0 {
			s, e := br.start, br.start+i+1
			br.start = e
			br.Bytes += int64(e - s)
			hasCR := br.cr < e
			if hasCR {
				br.findCR()
			}
			line := trimEOL(br.buf[s:e])
			if len(line) > br.max {
				br.Cut++
				line = line[:br.max]
			}
			return line, hasCR, nil
		}
		if br.err != nil {
			if br.start < br.end {
				// Last line without newline.
				line := br.buf[br.start:br.end]
				br.Bytes += int64(len(line))
				br.start = br.end
				br.cr = br.end
				line = trimEOL(line)
				if len(line) > br.max {
					br.Cut++
					line = line[:br.max]
				}
				return line, true, nil
			}
			return nil, false, br.err
		}
		if br.start == 0 && br.end == len(br.buf) {
			return br.longLine()
		}
		br.fill()
	}
}

// fill moves the unread data to the front and reads more after it.
func (br *blockReader) fill() {
	if br.start > 0 {
		n := copy(br.buf, br.buf[br.start:br.end])
		br.cr -= br.start
		br.start, br.end = 0, n
	}
	br.fills++
	from := br.end
	for i := 0; i < 100 && br.end < len(br.buf); i++ {
		n, err := br.r.Read(br.buf[br.end:])
		br.end += n
		if err != nil {
			br.err = err
			break
		}
		if n > 0 {
			break
		}
	}
	if br.end == from && br.err == nil {
		br.err = io.ErrNoProgress
	}
	if br.cr >= from {
		// No CR was seen before the new data: look in it.
		if j := bytes.IndexByte(br.buf[from:br.end], '\r'); j >= 0 {
			br.cr = from + j
		} else {
			br.cr = br.end
		}
	}
}

// findCR moves cr to the first CR after the line just taken.
func (br *blockReader) findCR() {
	if j := bytes.IndexByte(br.buf[br.start:br.end], '\r'); j >= 0 {
		br.cr = br.start + j
	} else {
		br.cr = br.end
	}
}

// longLine gathers a line longer than the buffer as LineReader does: the
// first buffer whole, then what fits under max, the rest skipped.
func (br *blockReader) longLine() ([]byte, bool, error) {
	br.long = append(br.long[:0], br.buf...)
	br.Bytes += int64(len(br.buf))
	br.start, br.end, br.cr = 0, 0, 0
	var err error
	for {
		br.fill()
		chunk := br.buf[br.start:br.end]
		found := false
		if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
			chunk, found = chunk[:i+1], true
		}
		br.start += len(chunk)
		br.Bytes += int64(len(chunk))
		if len(br.long) < br.max {
			room := br.max - len(br.long)
			br.long = append(br.long, chunk[:min(len(chunk), room)]...)
		}
		if found {
			break
		}
		if br.err != nil && br.start == br.end {
			err = br.err
			break
		}
		if br.start == br.end {
			br.start, br.end = 0, 0
		}
	}
	br.findCR()
	if len(br.long) >= br.max {
		br.Cut++
	}
	if err == io.EOF && len(br.long) > 0 {
		err = nil
	}
	return trimEOL(br.long), true, err
}
