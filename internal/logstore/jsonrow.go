package logstore

import (
	"bytes"
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

var errMalformed = errors.New("malformed JSON object")

// scanObject reads one flat JSON object, as the VictoriaLogs query API
// writes them (every value a string), calling fn with each key and value,
// unescaped. Scalars other than strings are passed as their text; nested
// objects and arrays are malformed here. The slices are valid during the
// call only. It is the hot path of reading from the store: encoding/json
// into a map costs several times more per row.
func scanObject(b []byte, scratch *[]byte, fn func(k, v []byte)) error {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errMalformed
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		if skipWS(b, i+1) != len(b) {
			return errMalformed
		}
		return nil
	}
	buf := (*scratch)[:0]
	for {
		if i >= len(b) || b[i] != '"' {
			return errMalformed
		}
		ks := len(buf)
		var ok bool
		buf, i, ok = unquote(b, i, buf)
		if !ok {
			return errMalformed
		}
		ke := len(buf)
		i = skipWS(b, i)
		if i >= len(b) || b[i] != ':' {
			return errMalformed
		}
		i = skipWS(b, i+1)
		if i >= len(b) {
			return errMalformed
		}
		vs := len(buf)
		if b[i] == '"' {
			buf, i, ok = unquote(b, i, buf)
			if !ok {
				return errMalformed
			}
		} else {
			j := i
			for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ' ' && b[j] != '\t' && b[j] != '\r' && b[j] != '\n' {
				if b[j] == '{' || b[j] == '[' || b[j] == '"' {
					return errMalformed
				}
				j++
			}
			if j == i {
				return errMalformed
			}
			buf = append(buf, b[i:j]...)
			i = j
		}
		fn(buf[ks:ke], buf[vs:])
		i = skipWS(b, i)
		if i >= len(b) {
			return errMalformed
		}
		if b[i] == '}' {
			*scratch = buf
			if skipWS(b, i+1) != len(b) {
				return errMalformed
			}
			return nil
		}
		if b[i] != ',' {
			return errMalformed
		}
		i = skipWS(b, i+1)
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// unquote appends the JSON string starting at b[i] (a quote) to buf and
// returns the index after its closing quote. Runs without escapes are
// found with IndexByte, which is most of a log line. Raw control
// characters, which JSON forbids and no store writes, are kept.
func unquote(b []byte, i int, buf []byte) ([]byte, int, bool) {
	i++
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return buf, len(b), false
		}
		seg := b[i : i+q]
		e := bytes.IndexByte(seg, '\\')
		if e < 0 {
			return append(buf, seg...), i + q + 1, true
		}
		buf = append(buf, seg[:e]...)
		i += e + 1 // at the escaped character
		if i >= len(b) {
			return buf, i, false
		}
		switch b[i] {
		case '"', '\\', '/':
			buf = append(buf, b[i])
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := hex4(b, i+1)
			if !ok {
				return buf, i, false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(-1), false
				if i+2 < len(b) && b[i+1] == '\\' && b[i+2] == 'u' {
					r2, ok2 = hex4(b, i+3)
				}
				if d := utf16.DecodeRune(r, r2); ok2 && d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return buf, i, false
		}
		i++
	}
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}
