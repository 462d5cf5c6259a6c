package parser

import (
	"bytes"
	"time"
)

// The layouts of Go's structured loggers that applications hand their
// Kafka client (sarama.Logger is any Print/Printf/Println; client.md §11):
// logrus's TextFormatter (logfmt) and zap's console encoder. zap's and
// zerolog's JSON go through parseJSON.

var bLogrus = []byte("logrus")

// parseLogfmt reads logrus's TextFormatter (and other logfmt writers):
//
//	time="2026-12-02T18:35:33.245Z" level=info msg="producer/broker/1 ..." component=sarama
//
// time, level and msg are the formatter's own keys (logrus
// text_formatter.go FieldKeyTime/Level/Msg); a logger or component field
// names the logger.
func parseLogfmt(line []byte, loc *time.Location, r *Record) bool {
	var ts, lv, msg, lg []byte
	msgQuoted := false
	b := line
	for n := 0; len(b) > 0 && n < 32; n++ {
		for len(b) > 0 && b[0] == ' ' {
			b = b[1:]
		}
		eq := bytes.IndexByte(b, '=')
		if eq <= 0 || bytes.IndexByte(b[:eq], ' ') >= 0 {
			break
		}
		key := b[:eq]
		b = b[eq+1:]
		var val []byte
		quoted := len(b) > 0 && b[0] == '"'
		if quoted {
			e := closingQuote(b)
			if e < 0 {
				return false
			}
			val, b = b[1:e], b[e+1:]
		} else {
			e := bytes.IndexByte(b, ' ')
			if e < 0 {
				e = len(b)
			}
			val, b = b[:e], b[e:]
		}
		switch string(key) {
		case "time", "ts":
			ts = val
		case "level", "lvl":
			lv = val
		case "msg":
			msg, msgQuoted = val, quoted
		case "logger", "component":
			lg = val
		}
	}
	if ts == nil || lv == nil || msg == nil {
		return false
	}
	st, n, ok := parseStampLazy(ts)
	if !ok {
		return false
	}
	if off, _, ok := parseOffset(ts[n:]); ok {
		r.Time, r.HasZone = st.time(fixedZone(off)), true
	} else {
		r.st, r.loc, r.lazy = st, loc, true
	}
	r.Level, _ = parseLevel(upperLevel(lv))
	if r.Level == LevelNone {
		r.Level = LevelInfo
	}
	if msgQuoted {
		msg = unquoteLogfmt(msg)
	}
	r.Layout, r.Logger, r.Msg = LayoutLogfmt, lg, msg
	if len(r.Logger) == 0 {
		r.Logger = bLogrus
	}
	return true
}

// closingQuote finds the quote that ends a quoted value at b[0].
func closingQuote(b []byte) int {
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// unquoteLogfmt undoes strconv.Quote's escapes where there are any. Go's
// log adds a newline to what sarama prints, and logrus quotes it: the
// message ends in a literal `\n` (client.md §11), which is dropped.
func unquoteLogfmt(v []byte) []byte {
	v = bytes.TrimSuffix(v, []byte(`\n`))
	if bytes.IndexByte(v, '\\') < 0 {
		return v
	}
	out := make([]byte, 0, len(v))
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '\\' || i+1 == len(v) {
			out = append(out, c)
			continue
		}
		i++
		switch v[i] {
		case 'n':
			out = append(out, ' ')
		case 't':
			out = append(out, '\t')
		default:
			out = append(out, v[i])
		}
	}
	return out
}

// upperLevel maps logrus's and zap's lower-case level names ("info",
// "warning", "error") onto parseLevel's; short slices only.
func upperLevel(lv []byte) []byte {
	switch string(lv) {
	case "trace":
		return []byte("TRACE")
	case "debug":
		return []byte("DEBUG")
	case "info":
		return []byte("INFO")
	case "warn", "warning":
		return []byte("WARN")
	case "error", "dpanic":
		return []byte("ERROR")
	case "fatal", "panic":
		return []byte("FATAL")
	}
	return lv
}

// parseZapConsole reads zap's console encoder after its ISO8601 time and
// the tab that follows it (zapcore/console_encoder.go):
//
//	2026-12-02T18:35:33.245Z	INFO	sarama	producer/broker/1 state change ...
//
// time, level, the logger's name if it has one, the caller if enabled,
// the message, then a JSON object of fields.
func parseZapConsole(rest []byte, r *Record) bool {
	tab := bytes.IndexByte(rest, '\t')
	if tab <= 0 || tab > 8 {
		return false
	}
	lv, k := parseLevel(upperLevel(rest[:tab]))
	if lv == LevelNone || k != tab {
		return false
	}
	rest = rest[tab+1:]
	// Name and caller are single words before a tab; the message is the
	// first piece with a space in it, or the last piece.
	for i := 0; i < 2; i++ {
		t := bytes.IndexByte(rest, '\t')
		if t <= 0 || bytes.IndexByte(rest[:t], ' ') >= 0 || t+1 == len(rest) || rest[t+1] == '{' {
			break
		}
		if !bytes.Contains(rest[:t], []byte(".go:")) {
			r.Logger = rest[:t]
		}
		rest = rest[t+1:]
	}
	if t := bytes.IndexByte(rest, '\t'); t >= 0 {
		rest = rest[:t]
	}
	r.Level, r.Layout, r.Msg = lv, LayoutZap, bytes.TrimRight(rest, " \r")
	return len(r.Msg) > 0
}
