package parser

import (
	"bytes"
	"encoding/binary"
	"sync"
	"time"
)

// Layout is a line layout a record header was recognised in.
type Layout uint8

const (
	LayoutNone       Layout = iota
	LayoutLog4j             // [%d] %p %m (%c)
	LayoutStrimzi           // %d %p %m (%c) [%t]   (and bare "%d %p %m (%c)")
	LayoutSpring            // Spring Boot console/file: %d %5p PID --- [%t] logger : %m
	LayoutJSON              // logstash / JSON layouts, one object a line
	LayoutLinkedIn          // yyyy/MM/dd HH:mm:ss.SSS LEVEL [Logger] [thread] [app] [] msg
	LayoutLibrdkafka        // %7|secs.ms|FAC|name| msg
	LayoutSarama            // [Sarama] 2006/01/02 15:04:05 msg (Go's log package, log.LstdFlags)
	LayoutFranzGo           // [WARN] msg; key: val, key: val (kgo.BasicLogger)
	LayoutKafkaGo           // free-form Writer/Reader ErrorLogger text
	LayoutLogfmt            // time="..." level=info msg="..." (logrus TextFormatter)
	LayoutZap               // zap console: time<TAB>LEVEL<TAB>[name<TAB>]msg
	NumLayouts
)

var layoutNames = [...]string{"", "log4j", "strimzi", "spring-boot", "json", "linkedin", "librdkafka", "sarama", "franz-go", "kafka-go", "logfmt", "zap"}

func (l Layout) String() string {
	if int(l) < len(layoutNames) {
		return layoutNames[l]
	}
	return "layout?"
}

// Level is a log level.
type Level uint8

const (
	LevelNone Level = iota
	LevelTrace
	LevelDebug
	LevelInfo
	LevelWarn
	LevelError
	LevelFatal
)

var levelNames = [...]string{"", "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"}

func (l Level) String() string { return levelNames[l] }

// Record is one log record's header line split into its parts. The byte
// slices alias the input line (or the parser's scratch buffer) and are valid
// only until the next call.
type Record struct {
	// Time: read it through When(); layouts without a zone fill it lazily.
	Time    time.Time
	st      stamp
	loc     *time.Location
	lazy    bool
	HasZone bool // the layout carried its own offset
	Level   Level
	Layout  Layout
	// noTime: a layout that prints no timestamp of its own (franz-go's
	// BasicLogger, kafka-go); only a collector's timestamp can place it.
	noTime bool
	// coarse: the layout's timestamp has whole seconds only (Go's
	// log.LstdFlags); a collector's finer timestamp is preferred.
	coarse bool
	// yearless: st has no year yet (RFC 3164 syslog); parseRecord dates it.
	yearless bool
	// Collectors: which collector wrappers were peeled off (bit per
	// Collector; kubectl --prefix and --timestamps can both be present).
	Collectors uint16
	Logger     []byte
	Thread     []byte
	Msg        []byte
	// Prefix is what a collector put before the layout (docker-compose
	// "kafka  | ", kubectl --timestamps), kept for source identity.
	Prefix []byte
	// Context is Kafka Connect's connector context "[name|task-0]" that
	// connect-log4j.properties puts before the message (%X{connector.context}).
	Context []byte
	// Stack holds a JSON layout's stack_trace field, which carries what a
	// text layout would print on continuation lines.
	Stack []byte
	// Conn and Corr: the broker connection and correlation id KafkaJS's
	// JSON logger names on its request and response lines (HasCorr: the
	// line has one).
	Conn    []byte
	Corr    int64
	HasCorr bool
}

func digits(b []byte, n int) (int, bool) {
	if len(b) < n {
		return 0, false
	}
	v := 0
	for i := 0; i < n; i++ {
		c := b[i] - '0'
		if c > 9 {
			return 0, false
		}
		v = v*10 + int(c)
	}
	return v, true
}

// parseStamp reads "yyyy-MM-dd HH:mm:ss,SSS" (also '.' before the millis,
// 'T' or ' ' between date and time, '/' as the date separator) at the start
// of b. It returns the number of bytes used. No allocation.
// stamp is a parsed wall-clock timestamp; turning it into a time.Time
// (time.Date, a zone lookup) is left until someone needs it, which for the
// lines the audit ignores is never.
type stamp struct {
	y, mo, d, h, mi, s, ns int
}

func (st stamp) time(loc *time.Location) time.Time {
	return time.Date(st.y, time.Month(st.mo), st.d, st.h, st.mi, st.s, st.ns, loc)
}

// daysIn is the length of month mo of year y: time.Date would read Feb
// 30 as Mar 1, a line placed a day off instead of not a timestamp.
func daysIn(mo, y int) int {
	switch mo {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// key orders stamps by wall clock without building a time.Time.
func (st stamp) key() int64 {
	// Seconds in a 13-month, 32-day calendar, then microseconds: fits
	// int64 until the year 20000.
	secs := ((((int64(st.y)*13+int64(st.mo))*32+int64(st.d))*24+int64(st.h))*60+int64(st.mi))*61 + int64(st.s)
	return secs*1e6 + int64(st.ns)/1000
}

func stampOf(t time.Time) stamp {
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	return stamp{y, int(mo), d, h, mi, s, t.Nanosecond()}
}

func parseStamp(b []byte, loc *time.Location) (time.Time, int, bool) {
	st, n, ok := parseStampLazy(b)
	if !ok {
		return time.Time{}, 0, false
	}
	return st.time(loc), n, true
}

func parseStampLazy(b []byte) (stamp, int, bool) {
	if len(b) < 19 {
		return stamp{}, 0, false
	}
	y, ok1 := digits(b, 4)
	mo, ok2 := digits(b[5:], 2)
	d, ok3 := digits(b[8:], 2)
	h, ok4 := digits(b[11:], 2)
	mi, ok5 := digits(b[14:], 2)
	s, ok6 := digits(b[17:], 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return stamp{}, 0, false
	}
	sep := b[4]
	if (sep != '-' && sep != '/') || b[7] != sep || (b[10] != ' ' && b[10] != 'T') || b[13] != ':' || b[16] != ':' {
		return stamp{}, 0, false
	}
	if mo < 1 || mo > 12 || d < 1 || d > daysIn(mo, y) || h > 23 || mi > 59 || s > 60 {
		return stamp{}, 0, false
	}
	n := 19
	ns := 0
	if len(b) > 20 && (b[19] == ',' || b[19] == '.') {
		// 1 to 9 fractional digits; log4j writes 3.
		j := 20
		scale := 100000000
		for j < len(b) && j < 29 && b[j] >= '0' && b[j] <= '9' {
			ns += int(b[j]-'0') * scale
			scale /= 10
			j++
		}
		if j > 20 {
			n = j
		}
	}
	return stamp{y, mo, d, h, mi, s, ns}, n, true
}

// parseOffset reads a zone offset after a timestamp: "Z", "+03:00", "+0300".
func parseOffset(b []byte) (offsetSec int, n int, ok bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	if b[0] == 'Z' {
		return 0, 1, true
	}
	if b[0] != '+' && b[0] != '-' {
		return 0, 0, false
	}
	h, ok1 := digits(b[1:], 2)
	if !ok1 {
		return 0, 0, false
	}
	m := 0
	n = 3
	if len(b) >= 6 && b[3] == ':' {
		mm, ok2 := digits(b[4:], 2)
		if ok2 {
			m, n = mm, 6
		}
	} else if mm, ok2 := digits(b[3:], 2); ok2 {
		m, n = mm, 5
	}
	off := h*3600 + m*60
	if b[0] == '-' {
		off = -off
	}
	return off, n, true
}

// withOffset reinterprets a wall-clock time read in some location as a time
// at the given fixed UTC offset.
func withOffset(t time.Time, off int) time.Time {
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	return time.Date(y, mo, d, h, mi, s, t.Nanosecond(), fixedZone(off))
}

// zoneCache keeps one *time.Location per offset so that parsing a line with
// an offset does not allocate; parsers of several files share it.
var zoneCache sync.Map

func fixedZone(off int) *time.Location {
	if off == 0 {
		return time.UTC
	}
	if l, ok := zoneCache.Load(off); ok {
		return l.(*time.Location)
	}
	l, _ := zoneCache.LoadOrStore(off, time.FixedZone("", off))
	return l.(*time.Location)
}

// The first four bytes of each level's name, read little-endian.
const (
	lvINFO = 'I' | 'N'<<8 | 'F'<<16 | 'O'<<24
	lvWARN = 'W' | 'A'<<8 | 'R'<<16 | 'N'<<24
	lvTRAC = 'T' | 'R'<<8 | 'A'<<16 | 'C'<<24
	lvDEBU = 'D' | 'E'<<8 | 'B'<<16 | 'U'<<24
	lvERRO = 'E' | 'R'<<8 | 'R'<<16 | 'O'<<24
	lvFATA = 'F' | 'A'<<8 | 'T'<<16 | 'A'<<24
)

func parseLevel(b []byte) (Level, int) {
	if len(b) < 4 {
		return LevelNone, 0
	}
	// One compare of the first four bytes, then the fifth: every record
	// of every layout comes through here.
	five := func(c byte) bool { return len(b) > 4 && b[4] == c }
	switch binary.LittleEndian.Uint32(b) {
	case lvINFO:
		return LevelInfo, 4
	case lvWARN:
		if len(b) >= 7 && b[4] == 'I' && b[5] == 'N' && b[6] == 'G' {
			return LevelWarn, 7
		}
		return LevelWarn, 4
	case lvTRAC:
		if five('E') {
			return LevelTrace, 5
		}
	case lvDEBU:
		if five('G') {
			return LevelDebug, 5
		}
	case lvERRO:
		if five('R') {
			return LevelError, 5
		}
	case lvFATA:
		if five('L') {
			return LevelFatal, 5
		}
	}
	return LevelNone, 0
}

// splitLogger cuts the trailing " (logger)" of log4j-style messages. The
// message may itself contain parentheses, so the logger is the last " (".
func splitLogger(m []byte) (msg, logger []byte) {
	m = trimBlankRight(m)
	if len(m) < 3 || m[len(m)-1] != ')' {
		return m, nil
	}
	// bytes.LastIndex is a Rabin-Karp scan; looking back for '(' is
	// cheaper on the per-line path.
	i := bytes.LastIndexByte(m, '(')
	for i > 0 && m[i-1] != ' ' {
		i = bytes.LastIndexByte(m[:i], '(')
	}
	if i <= 0 {
		return m, nil
	}
	i--
	lg := m[i+2 : len(m)-1]
	// A logger name has no spaces; anything else is message text that
	// happens to end in a parenthesis.
	if len(lg) == 0 || bytes.IndexByte(lg, ' ') >= 0 {
		return m, nil
	}
	// Kafka Connect's pattern is "(%c:%L)": drop the line number. Only
	// names ending in a digit are looked at (LastIndexByte is a plain loop).
	if c := lg[len(lg)-1]; c >= '0' && c <= '9' {
		j := len(lg) - 1
		for j > 0 && lg[j-1] >= '0' && lg[j-1] <= '9' {
			j--
		}
		if j > 1 && lg[j-1] == ':' {
			lg = lg[:j-1]
		}
	}
	return m[:i], lg
}

// When returns the record's time, building it on first use.
func (r *Record) When() time.Time {
	if r.lazy {
		r.Time, r.lazy = r.st.time(r.loc), false
	}
	return r.Time
}

// wallKey orders records by wall-clock time without building a time.Time.
func (r *Record) wallKey() int64 {
	if r.lazy {
		return r.st.key()
	}
	return stampOf(r.Time).key()
}

// ParseHeader recognises a record header line in any supported layout and
// fills r. It reports false for continuation lines and lines in no known
// layout. loc is the zone assumed for timestamps that carry none.
// A syslog stamp without a year is dated by this machine's clock (see
// Parser.Now).
func ParseHeader(line []byte, loc *time.Location, r *Record) bool {
	return parseHeaderAt(line, loc, time.Now, r)
}

func parseHeaderAt(line []byte, loc *time.Location, now func() time.Time, r *Record) bool {
	if !parseRecord(line, loc, r) {
		return false
	}
	if r.yearless {
		r.dateYear(now)
	}
	r.When()
	return true
}

// parseRecord is ParseHeader without building the time; the caller dates
// a yearless stamp (Record.yearless, dateYear) with its clock.
func parseRecord(line []byte, loc *time.Location, r *Record) bool {
	*r = Record{}
	if len(line) == 0 {
		return false
	}
	return parseHeader(line, loc, r, 0)
}

// dateYear gives a yearless stamp its year by the clock now.
func (r *Record) dateYear(now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	r.st.y = syslogYear(r.st, r.loc, now())
	r.yearless = false
}

func parseHeader(line []byte, loc *time.Location, r *Record, depth int) bool {
	// depth counts collector wrappers peeled off; real ones nest two deep
	// (kubectl --prefix around --timestamps).
	if len(line) < 20 || depth > 3 {
		return false
	}
	switch c := line[0]; {
	case c == '[':
		if parseLog4j(line, loc, r) {
			return true
		}
		switch line[1] {
		case 'p':
			if bytes.HasPrefix(line, []byte("[pod/")) && parseKubectlPrefix(line, loc, r, depth) {
				return true
			}
		case 'S', 's':
			// sarama through Go's log with date flags; without them the
			// line has no time and only a collector can place it.
			*r = Record{}
			if parseBare(line, loc, r) && !r.noTime {
				return true
			}
			*r = Record{}
		}
	case c >= '0' && c <= '9':
		if parseDigitLead(line, loc, r, depth) {
			return true
		}
	case c == '{':
		if parseJSON(line, loc, r) {
			return true
		}
	case c == '%':
		if parseLibrdkafka(line, r) {
			return true
		}
	case c == '<' || c >= 'A' && c <= 'S':
		if parseSyslog(line, loc, r, depth) {
			return true
		}
	case c == 't' || c == 'l':
		if (bytes.HasPrefix(line, []byte("time=")) || bytes.HasPrefix(line, []byte("level="))) && parseLogfmt(line, loc, r) {
			return true
		}
		*r = Record{}
	}
	if depth > 0 {
		return false
	}
	// Collector prefixes: docker-compose "name   | ", "> " quote markers from
	// pasted tickets, stern "pod container ". Look for a layout start a
	// little way in.
	return parsePrefixed(line, loc, r)
}

func parsePrefixed(line []byte, loc *time.Location, r *Record) bool {
	lim := len(line)
	if lim > 256 {
		lim = 256
	}
	// docker-compose: "name   | rest".
	if i := bytes.Index(line[:lim], []byte("| ")); i > 0 {
		rest := line[i+2:]
		if parseHeader(rest, loc, r, 1) {
			r.Prefix = bytes.TrimSpace(line[:i])
			r.Collectors |= 1 << CollectorDockerCompose
			return true
		}
	}
	// Anything else: the first '[' followed by a date, or a date after a
	// space. stern's "pod container " is the common case.
	for i := 1; i < lim; i++ {
		c := line[i]
		at := -1
		if c == '[' && i+1 < len(line) && line[i+1] >= '0' && line[i+1] <= '9' {
			at = i
		} else if c == ' ' && i+1 < len(line) && line[i+1] >= '0' && line[i+1] <= '9' {
			at = i + 1
		}
		if at >= 0 && parseHeader(line[at:], loc, r, 1) {
			r.Prefix = bytes.TrimSpace(line[:i])
			if sternPrefix(r.Prefix) {
				r.Collectors |= 1 << CollectorStern
			} else {
				r.Collectors |= 1 << CollectorOther
			}
			return true
		}
	}
	return false
}

// [2019-02-25 15:01:03,023] TRACE message (logger)
func parseLog4j(line []byte, loc *time.Location, r *Record) bool {
	st, n, ok := parseStampLazy(line[1:])
	if !ok {
		return false
	}
	i := 1 + n
	r.st, r.loc, r.lazy = st, loc, true
	if i < len(line) && line[i] != ']' {
		// ISO8601 with offset inside the brackets (custom patterns).
		if off, k, ok := parseOffset(line[i:]); ok {
			r.Time, r.lazy = st.time(fixedZone(off)), false
			r.HasZone = true
			i += k
		}
	}
	if i+1 >= len(line) || line[i] != ']' || line[i+1] != ' ' {
		return false
	}
	i += 2
	lv, k := parseLevel(line[i:])
	if lv == LevelNone {
		return false
	}
	i += k
	for i < len(line) && line[i] == ' ' {
		i++
	}
	r.Level, r.Layout = lv, LayoutLog4j
	r.Msg, r.Logger = splitLogger(line[i:])
	r.Context, r.Msg = connectContext(r.Msg, r.Logger)
	return true
}

// connectContext cuts Kafka Connect's "[connector|task-0] " (or "|worker",
// "|task-0|offsets") that connect-log4j.properties puts before %m, so that
// the message starts where the client wrote it ("[Producer clientId=...").
func connectContext(m, logger []byte) (ctx, msg []byte) {
	// Brokers' own loggers never run inside a connector: skip the scan on
	// the busiest lines.
	if len(m) < 8 || m[0] != '[' || bytes.HasPrefix(logger, []byte("kafka.")) || bytes.HasPrefix(logger, []byte("state.")) {
		return nil, m
	}
	// A byte loop that stops at the first space: the client prefixes
	// ("[Producer clientId=", "[Consumer ") end it within a few bytes,
	// where two IndexByte calls cost more. Connector names with spaces
	// are not recognised.
	bar := -1
	for i := 1; i < len(m) && i < 256; i++ {
		switch m[i] {
		case '|':
			if bar < 0 {
				bar = i
			}
		case ' ':
			return nil, m
		case ']':
			if bar < 2 || i+1 >= len(m) || m[i+1] != ' ' {
				return nil, m
			}
			scope := m[bar+1 : i]
			if !bytes.HasPrefix(scope, []byte("task-")) && !bytes.HasPrefix(scope, []byte("worker")) {
				return nil, m
			}
			return m[1:i], m[i+2:]
		}
	}
	return nil, m
}

// Lines that start with a digit: Strimzi / log4j without brackets, Spring
// Boot, LinkedIn's fork, kubectl --timestamps and journald prefixes, Go's
// log package.
func parseDigitLead(line []byte, loc *time.Location, r *Record, depth int) bool {
	st, n, ok := parseStampLazy(line)
	if !ok {
		return false
	}
	i := n
	hasZone := false
	var t time.Time
	off, k, ok := parseOffset(line[i:])
	if ok {
		t = st.time(fixedZone(off))
		hasZone = true
		i += k
	}
	if i < len(line) && line[i] == '\t' {
		if hasZone {
			r.Time, r.HasZone = t, true
		} else {
			r.st, r.loc, r.lazy = st, loc, true
		}
		return parseZapConsole(line[i+1:], r)
	}
	if i >= len(line) || line[i] != ' ' {
		return false
	}
	j := i
	for j < len(line) && line[j] == ' ' {
		j++
	}
	lv, k := parseLevel(line[j:])
	if lv == LevelNone {
		return parseStampPrefix(line, loc, r, depth, st, off, hasZone, n, i, j)
	}
	j += k
	if j >= len(line) || line[j] != ' ' {
		return false
	}
	rest := line[j+1:]
	r.Level, r.HasZone = lv, hasZone
	if hasZone {
		r.Time = t
	} else {
		r.st, r.loc, r.lazy = st, loc, true
	}
	if line[4] == '/' && len(rest) > 0 && rest[0] == '[' {
		return parseLinkedIn(rest, r)
	}
	if sp := springRest(rest); sp >= 0 {
		return parseSpring(rest[sp:], r)
	}
	// Strimzi: "msg (logger) [thread]" or plain "msg (logger)".
	r.Layout = LayoutStrimzi
	m := trimBlankRight(rest)
	if len(m) > 0 && m[len(m)-1] == ']' {
		if o := bytes.LastIndex(m, []byte(") [")); o >= 0 {
			r.Thread = m[o+3 : len(m)-1]
			m = m[:o+1]
		}
	}
	r.Msg, r.Logger = splitLogger(m)
	r.Context, r.Msg = connectContext(r.Msg, r.Logger)
	return true
}

// parseStampPrefix handles a timestamp followed by no level: a collector's
// stamp before the real line (kubectl --timestamps, journald short-iso), or
// Go's log package before a Go client's message.
func parseStampPrefix(line []byte, loc *time.Location, r *Record, depth int, st stamp, off int, hasZone bool, n, i, j int) bool {
	if j >= len(line) {
		return false
	}
	if hasZone {
		ct := ctime{st: st, off: off, zone: true}
		// kubectl logs --timestamps: "2024-03-11T20:35:28.207123456Z <line>".
		if parseInner(line[j:], loc, r, &ct, depth) {
			r.Prefix = line[:i]
			r.Collectors |= 1 << CollectorKubectlTimestamps
			return true
		}
		// journalctl -o short-iso: "2024-03-11T20:35:28+0000 host unit[pid]: <line>".
		if h := hostTag(line[j:]); h > 0 && parseInner(line[j+h:], loc, r, &ct, depth) {
			r.Prefix = bytes.TrimRight(line[:j+h], ": ")
			r.Collectors |= 1 << CollectorJournald
			return true
		}
		return false
	}
	// Go's log.LstdFlags "2006/01/02 15:04:05 " before sarama (logger
	// without its "[Sarama] " prefix) or kafka-go text.
	if hasZone || line[4] != '/' {
		return false
	}
	m := line[j:]
	if len(m) > 8 && (m[1] == 's' || m[1] == 'S') && bytes.HasPrefix(m[2:], []byte("arama] ")) {
		// log.Lmsgprefix puts the prefix after the time.
		m = m[len("[sarama] "):]
	}
	if c := bytes.Index(m[:min(len(m), 64)], []byte(".go:")); c > 0 && bytes.IndexByte(m[:c], ' ') < 0 {
		// log.Lshortfile/Llongfile: "async_producer.go:1441: " before
		// the message.
		if e := bytes.Index(m[c:], []byte(": ")); e > 0 {
			m = m[c+e+2:]
		}
	}
	switch {
	case m[0] == '[':
		// kgo.BasicLogger writing into Go's log: "[INFO] msg; k: v".
		e := bytes.IndexByte(m[:min(len(m), 8)], ']')
		if e < 5 || e+1 >= len(m) || m[e+1] != ' ' {
			return false
		}
		lv, k := parseLevel(m[1:e])
		if lv == LevelNone || k != e-1 {
			return false
		}
		r.Layout, r.Logger, r.Level = LayoutFranzGo, bFranzLogger, lv
		m = m[e+2:]
	case saramaMsg(m):
		r.Layout, r.Logger = LayoutSarama, saramaLogger
		r.Level = LevelInfo
	case kafkaGoMsg(m):
		r.Layout, r.Logger = LayoutKafkaGo, bKafkaGo
		r.Level = LevelError
	default:
		return false
	}
	r.st, r.loc, r.lazy = st, loc, true
	r.coarse = n == 19
	r.Msg = bytes.TrimRight(m, " \r")
	return true
}

// springRest finds "PID --- " after the level in Spring Boot layouts and
// returns the offset just past it, or -1.
func springRest(b []byte) int {
	i := 0
	for i < len(b) && b[i] == ' ' {
		i++
	}
	j := i
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	if j == i {
		// ${PID:- } renders a lone space when unset.
		j = i
	}
	if bytes.HasPrefix(b[j:], []byte(" --- ")) {
		return j + 5
	}
	if j == i && bytes.HasPrefix(b[j:], []byte("--- ")) {
		return j + 4
	}
	return -1
}

// [app] [thread] [correlation] logger : msg   (app/correlation optional)
func parseSpring(b []byte, r *Record) bool {
	r.Layout = LayoutSpring
	// Brackets up to the logger: the last one before the logger is the thread.
	for len(b) > 0 && b[0] == '[' {
		e := bytes.IndexByte(b, ']')
		if e < 0 {
			return false
		}
		r.Thread = bytes.TrimSpace(b[1:e])
		b = b[e+1:]
		for len(b) > 0 && b[0] == ' ' {
			b = b[1:]
		}
	}
	k := bytes.Index(b, []byte(" : "))
	if k < 0 {
		return false
	}
	r.Logger = bytes.TrimSpace(b[:k])
	r.Msg = bytes.TrimRight(b[k+3:], " \r")
	return true
}

// [ShortLogger] [thread] [app] [] msg — thread may contain spaces.
func parseLinkedIn(b []byte, r *Record) bool {
	r.Layout = LayoutLinkedIn
	var parts [4][]byte
	for n := 0; n < 4; n++ {
		if len(b) == 0 || b[0] != '[' {
			return false
		}
		e := bytes.IndexByte(b, ']')
		if e < 0 {
			return false
		}
		parts[n] = b[1:e]
		b = b[e+1:]
		if len(b) > 0 && b[0] == ' ' {
			b = b[1:]
		}
	}
	r.Logger, r.Thread, r.Msg = parts[0], parts[1], bytes.TrimRight(b, " \r")
	return true
}

// %7|1503493693.024|REQERR|mqtt_reader.1#producer-1| [thrd:...]: msg
func parseLibrdkafka(line []byte, r *Record) bool {
	if len(line) < 4 || line[2] != '|' {
		return false
	}
	lvl := line[1]
	rest := line[3:]
	p := bytes.IndexByte(rest, '|')
	if p < 0 {
		return false
	}
	ts := rest[:p]
	dot := bytes.IndexByte(ts, '.')
	if dot < 0 {
		return false
	}
	sec, ok := atoi64(ts[:dot])
	ms, ok2 := atoi64(ts[dot+1:])
	if !ok || !ok2 {
		return false
	}
	rest = rest[p+1:]
	f := bytes.IndexByte(rest, '|')
	if f < 0 {
		return false
	}
	fac := rest[:f]
	rest = rest[f+1:]
	nm := bytes.IndexByte(rest, '|')
	if nm < 0 {
		return false
	}
	r.Thread = rest[:nm]
	r.Logger = fac
	r.Msg = bytes.TrimLeft(rest[nm+1:], " ")
	r.Time = time.Unix(sec, ms*int64(time.Millisecond)).UTC()
	r.HasZone = true
	r.Layout = LayoutLibrdkafka
	switch lvl {
	case '7':
		r.Level = LevelDebug
	case '6', '5':
		r.Level = LevelInfo
	case '4':
		r.Level = LevelWarn
	default:
		r.Level = LevelError
	}
	return true
}

func atoi64(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// trimBlankRight is bytes.TrimRight(b, " \t\r") without the byte set
// TrimRight builds on every call (every record the slow path reads).
func trimBlankRight(b []byte) []byte {
	for len(b) > 0 {
		if c := b[len(b)-1]; c != ' ' && c != '\t' && c != '\r' {
			break
		}
		b = b[:len(b)-1]
	}
	return b
}
