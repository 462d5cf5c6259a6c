package gen

import (
	"time"
)

// Times inside the generator are int64 milliseconds since the Unix epoch.
// Log lines print them as wall-clock time in the configured zone without an
// offset (log4j's ISO8601 "%d"); the truth file prints RFC 3339 with the
// zone's offset.

// tsCache formats timestamps, recomputing the calendar fields only when the
// second changes (many lines share a second).
type tsCache struct {
	loc    *time.Location
	sec    int64
	valid  bool
	date   [19]byte // "2006-01-02 15:04:05"
	offset []byte   // "Z" or "+03:00" for the zone at sec
}

func newTSCache(loc *time.Location) *tsCache { return &tsCache{loc: loc} }

func (c *tsCache) load(ms int64) {
	sec := floorDiv(ms, 1000)
	if c.valid && sec == c.sec {
		return
	}
	t := time.Unix(sec, 0).In(c.loc)
	b := t.AppendFormat(c.date[:0], "2006-01-02 15:04:05")
	copy(c.date[:], b)
	c.offset = t.AppendFormat(c.offset[:0], "Z07:00")
	c.sec = sec
	c.valid = true
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func appendMillis(b []byte, ms int64) []byte {
	m := ms - floorDiv(ms, 1000)*1000
	return append(b, byte('0'+m/100), byte('0'+m/10%10), byte('0'+m%10))
}

// appendLog4j appends "yyyy-MM-dd HH:mm:ss,SSS".
func (c *tsCache) appendLog4j(b []byte, ms int64) []byte {
	c.load(ms)
	b = append(b, c.date[:]...)
	b = append(b, ',')
	return appendMillis(b, ms)
}

// appendISO appends "yyyy-MM-ddTHH:mm:ss.SSS<offset>" (Spring Boot 3 console
// date and the truth file's RFC 3339 form).
func (c *tsCache) appendISO(b []byte, ms int64) []byte {
	c.load(ms)
	b = append(b, c.date[:10]...)
	b = append(b, 'T')
	b = append(b, c.date[11:]...)
	b = append(b, '.')
	b = appendMillis(b, ms)
	return append(b, c.offset...)
}

// rfc3339 returns the truth-file rendering of ms.
func rfc3339(ms int64, loc *time.Location) string {
	return time.UnixMilli(ms).In(loc).Format("2006-01-02T15:04:05.000Z07:00")
}
