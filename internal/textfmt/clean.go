package textfmt

import (
	"strings"
	"unicode/utf8"
)

// Clean makes log-derived text safe for a terminal: escape sequences (CSI,
// OSC, DCS, single ESC commands) are removed whole, other C0 and C1 control
// characters and DEL become '?', Unicode bidirectional controls are
// removed, invalid UTF-8 becomes U+FFFD. Tabs stay.
func Clean(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\t' || c == 0x7f || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c == 0x1b {
			i = skipEscape(s, i)
			continue
		}
		if c < 0x80 {
			if (c < 0x20 && c != '\t') || c == 0x7f {
				b.WriteByte('?')
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteRune(utf8.RuneError)
		case r == 0x9b || r == 0x9d || r == 0x90:
			// C1 CSI / OSC / DCS: drop the whole sequence.
			i = skipC1(s, i+n, r)
			continue
		case r >= 0x80 && r <= 0x9f:
			b.WriteByte('?')
		case isBidi(r):
			// Dropped: it would reorder what follows on the line (a topic
			// shown reversed, a TUI column shifted: "Trojan Source").
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// skipEscape returns the index after the escape sequence starting at i.
func skipEscape(s string, i int) int {
	i++ // ESC
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[': // CSI: parameters then a final byte 0x40–0x7e
		i++
		for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) {
			i++
		}
		return min(i+1, len(s))
	case ']', 'P', '_', '^', 'X': // OSC, DCS, APC, PM, SOS: until BEL or ST
		i++
		for i < len(s) {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			i++
		}
		return i
	default: // two-byte sequence
		return i + 1
	}
}

func skipC1(s string, i int, r rune) int {
	if r == 0x9b {
		for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) {
			i++
		}
		return min(i+1, len(s))
	}
	for i < len(s) {
		if s[i] == 0x07 {
			return i + 1
		}
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
			return i + 2
		}
		if r2, n := utf8.DecodeRuneInString(s[i:]); r2 == 0x9c {
			return i + n
		}
		i++
	}
	return i
}

// isBidi: the explicit bidirectional formatting characters (embeddings and
// overrides U+202A–202E, isolates U+2066–2069) and the LRM/RLM marks.
func isBidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f
}
