package parser

import (
	"bytes"
	"time"
)

// Collector is something that wrapped a log line on its way to the file we
// read: a container runtime, kubectl, stern, journald, syslog.
type Collector uint8

const (
	CollectorNone              Collector = iota
	CollectorDockerCompose               // "kafka-1  | <line>"
	CollectorKubectlTimestamps           // kubectl logs --timestamps: "2024-03-11T20:35:28.207123456Z <line>"
	CollectorKubectlPrefix               // kubectl logs --prefix: "[pod/kafka-0/kafka] <line>"
	CollectorStern                       // stern: "kafka-0 kafka <line>"
	CollectorJournald                    // journalctl -o short-iso: "2024-03-11T20:35:28+0000 host unit[pid]: <line>"
	CollectorSyslog                      // RFC 3164: "Mar 11 20:35:28 host kafka[1234]: <line>"
	CollectorSyslog5424                  // RFC 5424: "<14>1 2024-03-11T20:35:28.207Z host kafka 1234 - - <line>"
	CollectorOther                       // anything else before a layout ("> " quote markers of a pasted ticket)
	NumCollectors
)

var collectorNames = [...]string{"", "docker-compose", "kubectl --timestamps", "kubectl --prefix", "stern", "journald", "syslog", "syslog RFC 5424", "prefix"}

func (c Collector) String() string {
	if int(c) < len(collectorNames) {
		return collectorNames[c]
	}
	return "collector?"
}

// CollectorNames lists the collectors in a Record.Collectors or
// Stats.Collectors bit set, outermost kinds first.
func CollectorNames(bits uint16) []string {
	var out []string
	for c := CollectorDockerCompose; c < NumCollectors; c++ {
		if bits&(1<<c) != 0 {
			out = append(out, c.String())
		}
	}
	return out
}

// ctime is a collector's timestamp, applied to the inner record only when
// that record has none of its own or only whole seconds: the line's own
// time is what the application saw, the collector's is when it was read.
type ctime struct {
	st          stamp
	off         int
	zone        bool
	yearUnknown bool // RFC 3164 syslog prints no year
}

func (c *ctime) apply(r *Record, loc *time.Location) {
	st := c.st
	if c.yearUnknown {
		// The year is guessed from the reader's clock once the header is
		// read (parseRecord): the time stays lazy until then.
		if c.zone {
			loc = fixedZone(c.off)
		}
		r.st, r.loc, r.lazy, r.yearless = st, loc, true, true
		r.HasZone = c.zone
		r.noTime, r.coarse = false, false
		return
	}
	if c.zone {
		r.Time, r.lazy, r.HasZone = st.time(fixedZone(c.off)), false, true
	} else {
		r.Time = time.Time{}
		r.st, r.loc, r.lazy = st, loc, true
		r.HasZone = false
	}
	r.noTime, r.coarse = false, false
}

// syslogYear guesses the year of a yearless syslog stamp: this year, unless
// that puts it more than two days ahead of now (a December line read in
// January).
func syslogYear(st stamp, loc *time.Location, now time.Time) int {
	n := now.In(loc)
	y := n.Year()
	if time.Date(y, time.Month(st.mo), st.d, st.h, st.mi, st.s, 0, loc).After(n.Add(48 * time.Hour)) {
		y--
	}
	return y
}

// parseInner reads the line a collector wrapped: any layout, or one of the
// Go clients' layouts that carry no timestamp, which then take ct's.
func parseInner(b []byte, loc *time.Location, r *Record, ct *ctime, depth int) bool {
	var in Record
	if !parseHeader(b, loc, &in, depth+1) {
		in = Record{}
		if !parseBare(b, loc, &in) {
			return false
		}
	}
	if in.noTime || in.coarse {
		if ct == nil {
			if in.noTime {
				return false
			}
		} else {
			ct.apply(&in, loc)
		}
	}
	*r = in
	return true
}

// hostTag measures "host tag: " (syslog HOSTNAME and TAG, journald's
// "host unit[pid]: ") at the start of b, or returns -1.
func hostTag(b []byte) int {
	sp := bytes.IndexByte(b[:min(len(b), 256)], ' ')
	if sp <= 0 {
		return -1
	}
	t := b[sp+1:]
	c := bytes.Index(t[:min(len(t), 128)], []byte(": "))
	if c <= 0 || bytes.IndexByte(t[:c], ' ') >= 0 {
		return -1
	}
	return sp + 1 + c + 2
}

var monthNames = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// parseSyslog: "<PRI>" optional, then RFC 5424 ("1 " VERSION) or the
// classic BSD layout "Mmm dd hh:mm:ss host tag: msg".
func parseSyslog(line []byte, loc *time.Location, r *Record, depth int) bool {
	b := line
	if b[0] == '<' {
		e := bytes.IndexByte(b[:min(len(b), 6)], '>')
		if e < 2 {
			return false
		}
		for _, c := range b[1:e] {
			if c < '0' || c > '9' {
				return false
			}
		}
		b = b[e+1:]
		if len(b) > 2 && b[0] == '1' && b[1] == ' ' {
			return parse5424(line, b[2:], loc, r, depth)
		}
	}
	return parse3164(line, b, loc, r, depth)
}

func parse3164(line, b []byte, loc *time.Location, r *Record, depth int) bool {
	if len(b) < 17 || b[3] != ' ' || b[6] != ' ' || b[9] != ':' || b[12] != ':' || b[15] != ' ' {
		return false
	}
	mo := 0
	for i, m := range monthNames {
		if string(b[:3]) == m {
			mo = i + 1
			break
		}
	}
	if mo == 0 {
		return false
	}
	d, ok := digits(b[5:], 1)
	if b[4] != ' ' {
		d, ok = digits(b[4:], 2)
	}
	h, ok2 := digits(b[7:], 2)
	mi, ok3 := digits(b[10:], 2)
	s, ok4 := digits(b[13:], 2)
	if !(ok && ok2 && ok3 && ok4) || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60 {
		return false
	}
	k := hostTag(b[16:])
	if k < 0 {
		return false
	}
	ct := ctime{st: stamp{0, mo, d, h, mi, s, 0}, yearUnknown: true}
	head := len(line) - len(b) + 16 + k
	if !parseInner(line[head:], loc, r, &ct, depth) {
		return false
	}
	r.Prefix = bytes.TrimRight(line[:head], ": ")
	r.Collectors |= 1 << CollectorSyslog
	return true
}

// RFC 5424: TIMESTAMP HOSTNAME APP-NAME PROCID MSGID STRUCTURED-DATA MSG.
func parse5424(line, b []byte, loc *time.Location, r *Record, depth int) bool {
	var ct *ctime
	if len(b) > 1 && b[0] == '-' && b[1] == ' ' {
		b = b[2:]
	} else {
		st, n, ok := parseStampLazy(b)
		if !ok || b[10] != 'T' {
			return false
		}
		off, k, ok := parseOffset(b[n:])
		if !ok || n+k >= len(b) || b[n+k] != ' ' {
			return false
		}
		ct = &ctime{st: st, off: off, zone: true}
		b = b[n+k+1:]
	}
	// HOSTNAME APP-NAME PROCID MSGID: four tokens, "-" when absent.
	for f := 0; f < 4; f++ {
		sp := bytes.IndexByte(b[:min(len(b), 256)], ' ')
		if sp <= 0 {
			return false
		}
		b = b[sp+1:]
	}
	// STRUCTURED-DATA: "-" or one or more "[id k="v" ...]" (']' escaped as "\]").
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	} else {
		for len(b) > 0 && b[0] == '[' {
			i := 1
			for i < len(b) && b[i] != ']' {
				if b[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(b) {
				return false
			}
			b = b[i+1:]
		}
	}
	if len(b) == 0 || b[0] != ' ' {
		return false
	}
	b = bytes.TrimPrefix(b[1:], []byte("\xef\xbb\xbf"))
	head := len(line) - len(b)
	if !parseInner(b, loc, r, ct, depth) {
		return false
	}
	r.Prefix = bytes.TrimRight(line[:head], " ")
	r.Collectors |= 1 << CollectorSyslog5424
	return true
}

// kubectl logs --prefix: "[pod/kafka-0/kafka] <line>".
func parseKubectlPrefix(line []byte, loc *time.Location, r *Record, depth int) bool {
	e := bytes.Index(line[:min(len(line), 256)], []byte("] "))
	if e < 0 || !parseInner(line[e+2:], loc, r, nil, depth) {
		return false
	}
	r.Prefix = line[1:e]
	r.Collectors |= 1 << CollectorKubectlPrefix
	return true
}

// sternPrefix: stern's default "pod container " — two tokens of the
// characters Kubernetes allows in names.
func sternPrefix(p []byte) bool {
	sp := bytes.IndexByte(p, ' ')
	if sp <= 0 || sp == len(p)-1 || bytes.IndexByte(p[sp+1:], ' ') >= 0 {
		return false
	}
	for _, c := range p {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == ' ') {
			return false
		}
	}
	return true
}
