package follow

import (
	"bufio"
	"bytes"
	"io"
	"time"
)

// maxTimePrefix is how much of a line SeekBackByTime hands to lineTime.
const maxTimePrefix = 64 << 10

// SeekBackByTime returns the offset of the first line in r (size bytes) whose
// timestamp is at or after since, or size if there is none. lineTime parses a
// line's timestamp (the line comes without "\n" or "\r\n", cut to 64 KiB);
// lines it returns false for (stack traces, continuation lines, garbage) are
// skipped. It binary-searches line starts, so it reads O(log size) short
// stretches of the file when most lines have a timestamp. It assumes
// timestamps do not decrease through the file; if they do, it returns some
// line start. A last line without '\n' is considered too.
//
// It suits Options.StartOffset:
//
//	StartOffset: func(_ string, r io.ReaderAt, size int64) int64 {
//		return follow.SeekBackByTime(r, size, time.Now().Add(-time.Hour), parseTime)
//	}
func SeekBackByTime(r io.ReaderAt, size int64, since time.Time, lineTime func(line []byte) (time.Time, bool)) int64 {
	if size <= 0 {
		return 0
	}
	s := &seeker{r: r, size: size, lineTime: lineTime}
	// Find the smallest p for which the first timestamped line starting at
	// or after p is at or after since (or does not exist). That property
	// only turns from false to true as p grows.
	lo, hi := int64(0), size
	for lo < hi {
		mid := lo + (hi-lo)/2
		start, t, ok := s.probe(mid)
		if !ok || !t.Before(since) {
			hi = mid
		} else {
			lo = max(mid, start) + 1 // every p up to start finds this line or an earlier one
		}
	}
	start, _, ok := s.probe(lo)
	if !ok {
		return size
	}
	return start
}

type seeker struct {
	r        io.ReaderAt
	size     int64
	lineTime func([]byte) (time.Time, bool)
	br       *bufio.Reader
	prefix   []byte
}

// probe finds the first line with a timestamp that starts at or after p.
func (s *seeker) probe(p int64) (start int64, t time.Time, ok bool) {
	at := max(p-1, 0)
	if s.br == nil {
		s.br = bufio.NewReaderSize(nil, 32<<10)
	}
	s.br.Reset(io.NewSectionReader(s.r, at, s.size-at))
	pos := at
	if p > 0 {
		// Move to the start of the first line at or after p: p itself if
		// the byte before it ends a line.
		b, err := s.br.ReadByte()
		if err != nil {
			return 0, time.Time{}, false
		}
		pos++
		if b != '\n' {
			_, n, err := s.readLine()
			pos += n
			if err != nil {
				return 0, time.Time{}, false
			}
		}
	}
	for {
		line, n, err := s.readLine()
		if n == 0 {
			return 0, time.Time{}, false
		}
		if tt, ok := s.lineTime(line); ok {
			return pos, tt, true
		}
		pos += n
		if err != nil {
			return 0, time.Time{}, false
		}
	}
}

// readLine reads one line. It returns the line without its end (at most
// maxTimePrefix bytes, valid until the next read), how many bytes it took
// and io.EOF when the file ended before a '\n'.
func (s *seeker) readLine() ([]byte, int64, error) {
	var n int64
	s.prefix = s.prefix[:0]
	for {
		chunk, err := s.br.ReadSlice('\n')
		n += int64(len(chunk))
		if err == nil && len(s.prefix) == 0 {
			return trimEOL(chunk), n, nil
		}
		if room := maxTimePrefix - len(s.prefix); room > 0 {
			s.prefix = append(s.prefix, chunk[:min(room, len(chunk))]...)
		}
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
			return trimEOL(s.prefix), n, nil
		default:
			return trimEOL(s.prefix), n, io.EOF
		}
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}
