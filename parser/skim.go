package parser

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
	"sync"
)

// The fast path for lines that cannot matter. A noise-dominated server.log
// is 95–98% lines that no rule reads; for them the audit only counts what
// the source summary reports (records, levels, layouts, loggers, era hints,
// time span and disorder). Line tries to finish such a line with a
// fixed-position read of Kafka's log4j layout, "[yyyy-MM-dd HH:mm:ss,SSS]
// LEVEL message (logger)", and the rule table below; anything else (another
// layout, a line that does not fit exactly, a logger some rule reads, a
// record held for its continuation lines) goes the slow way, through the
// layout parsers and dispatch. skim_test.go parses every line of the
// samples, the incidents and generated sets of every era both ways and
// compares events and Stats: a rule added without a word here fails it.

// ruleStarts: for the busiest loggers whose rules all read the start of the
// message after its component prefix ([Log partition=…], [GroupCoordinator
// N]:), how a message that a rule reads begins. broker() rejects the rest
// with the same table, so a new rule for these loggers is a new entry here
// or it never runs, slow path or fast.
var ruleStarts = [NumLoggerKinds][]string{
	lgLog:         {"Truncat", "Exiting because log truncation"},
	lgFetcher:     {"Truncat", "Exiting because log truncation"},
	lgCoordinator: {"Elected as the group coordinator for partition ", "Resigned as the group coordinator for partition "},
}

// ruleFirst: the first bytes of each kind's ruleStarts, a bit per byte.
var ruleFirst = func() (set [NumLoggerKinds][4]uint64) {
	for lg, ws := range ruleStarts {
		for _, w := range ws {
			set[lg][w[0]>>6] |= 1 << (w[0] & 63)
		}
	}
	return set
}()

// serverStarts: how a message of a server logger (lgServer, no component
// prefix) that serverLine reads begins, and serverWords what it holds
// elsewhere; serverLine rejects the rest with the same table. ZooKeeper's
// ClientCnxn alone writes a few percent of a ZK broker's server.log.
var (
	serverStarts = []string{
		"starting", "Starting broker", "started", "Kafka Server started", "Transition from STARTING to STARTED",
		"shutting down", "shut down completed", "Starting controlled shutdown", "Beginning controlled shutdown",
		"Session expired", "Registered broker ", "Successfully registered broker ", "The broker has been unfenced",
		"Transitioning from ", "Produce request with correlation id ",
	}
	serverWords = []string{"zookeeper state changed (Expired)"}
)

// serverReads reports whether serverLine may read message s.
func serverReads(s []byte) bool {
	for _, w := range serverStarts {
		if bytes.HasPrefix(s, []byte(w)) {
			return true
		}
	}
	return serverWordSet.in(s)
}

var serverWordSet = newWordSet(serverWords)

// ruleReads reports whether a rule of a lgLog, lgFetcher or lgCoordinator
// logger may read message m.
func ruleReads(lg loggerKind, m []byte) bool {
	s := afterPrefix(m)
	if len(s) == 0 || ruleFirst[lg][s[0]>>6]&(1<<(s[0]&63)) == 0 {
		// Most messages of these loggers begin with a byte no rule
		// start does.
		return false
	}
	for _, w := range ruleStarts[lg] {
		if s[0] == w[0] && bytes.HasPrefix(s, []byte(w)) {
			return true
		}
	}
	return false
}

// clientWords: words that lines of an application's own logger (a logger
// no rule names, below WARN) carry when a rule reads them; dispatch's
// default branch looks for the same. A rule added there for such lines
// lists its word here.
var clientWords = []string{
	"Got error produce response", "Received invalid metadata error",
}

// libraryWords: literals every sarama, franz-go, kafka-go, librdkafka and
// KafkaJS line a rule reads carries, in whatever layout it comes. Their
// own layouts never take the fast path; these keep such a line the slow
// way even when an application's log4j layout wraps it.
var libraryWords = []string{
	"producer/", "Retrying batch for ", "consumer/broker/",
	"kip-951", "batch in a produce request failed", "metadata update triggered",
	"error writing messages to ", "failed to read from current broker",
	"|MSGSET|", "|BROKERUA|", "|LEADERUA|",
	"Response Produce(", "Request Produce(",
}

// skimState is what the fast path defers: the newest record's stamp, whose
// wall-clock key and time the slow path builds only when it needs them.
type skimState struct {
	last     [23]byte // stamp of the last record, when haveLast
	max      [23]byte // stamp of the newest in-order record, when maxStale and not maxIsLast
	haveLast bool     // last holds the stamp whose key p.lastKey stands for
	keyStale bool     // p.lastKey is not yet key(last)
	maxStale bool     // p.maxRec is not yet max
	// maxIsLast: the newest in-order record is the last one, so max is
	// not copied on every in-order line, only when a record goes back.
	maxIsLast bool
	off       bool  // every line the slow way (tests)
	taken     int64 // records the fast path finished
	// loggers: loggers the fast path read, each in one of two places its
	// line's last bytes choose (loggerSlots); a line that ends with one is
	// not searched for its logger. A server.log has 10-20 busy loggers and
	// changes logger on most lines. What a logger is does not depend on
	// the source: the entries are shared (internLogger), a source holds
	// pointers, not copies.
	loggers [32]*loggerInfo
	used    [32]uint32 // useTick when each was last found
	useTick uint32     // counts lookups
	// notRecords: the last few lines the slow path found to be no record
	// in any layout (a stack trace's exception line, the logger line
	// after a LogCleaner block), none tab-led or holding a NUL. Whether a
	// line is a record depends on its bytes alone, so the same line again
	// is a continuation without trying every layout.
	// Made when the slow path first finds one.
	notRecords *notRecords
	// wrapped: the record held (pendWrapped) is one skimWrapped took,
	// whose dispatch does nothing.
	wrapped bool
	// refused: the number of the line Skim stopped at, which the fast
	// path does not take: Line, given it next, goes the slow way without
	// asking skim again (every line of a state-change.log, a controller.log).
	refused int64
}

// maxNotRecord: the longest line notRecords keeps.
const maxNotRecord = 256

type notRecords struct {
	lines [4][]byte
	next  int
}

// noRecord keeps line, which the slow path found to be no record.
func (sk *skimState) noRecord(line []byte) {
	if len(line) == 0 || len(line) > maxNotRecord || line[0] == '\t' || bytes.IndexByte(line, 0) >= 0 || sk.knownNoRecord(line) {
		return
	}
	nr := sk.notRecords
	if nr == nil {
		nr = new(notRecords)
		sk.notRecords = nr
	}
	e := &nr.lines[nr.next]
	nr.next = (nr.next + 1) % len(nr.lines)
	*e = append((*e)[:0], line...)
}

// knownNoRecord: line is one of notRecords.
func (sk *skimState) knownNoRecord(line []byte) bool {
	if sk.notRecords == nil {
		return false
	}
	for _, e := range sk.notRecords.lines {
		if len(e) == len(line) && string(e) == string(line) {
			return true
		}
	}
	return false
}

// loggerInfo is what the fast path reads of a logger: tail is "(" name ")".
type loggerInfo struct {
	tail string
	kind loggerKind
	// The pattern " " tail as words, for seenLogger to compare with the
	// words lastWords read of a line's end, no call and no second
	// pointer: px, py (masked by mx, my) are its last 16 bytes as the
	// line's last 16 hold them (right-aligned, so a short pattern
	// leaves the message's bytes out), pw its leading words when it is
	// longer; pn its length, 0 when it is too long for pw (ends then).
	px, py, mx, my uint64
	pw             [6]uint64
	pn             int
	internal       bool // brokerInternal(name)
	broker         bool // a broker's own logger, never inside a connector (connectContext)
	// era: what markEraOf gives every record of the logger (lgLog), and
	// logPrefix whether it gives EraLogPrefix to a "[Log partition="
	// message: read once per logger, not per line.
	logPrefix bool
	era       Era
}

// readLogger reads what the logger of tail, "(" name ")", is (all but tail).
func readLogger(tail []byte) loggerInfo {
	name := tail[1 : len(tail)-1]
	e := loggerInfo{
		kind:     loggerClass(name),
		internal: brokerInternal(name),
		broker:   bytes.HasPrefix(name, []byte("kafka.")) || bytes.HasPrefix(name, []byte("state.")),
	}
	if e.kind == lgLog {
		e.era = logEra(name, nil)
		e.logPrefix = e.era == 0 && logEra(name, []byte(logPrefixMsg)) == EraLogPrefix
	}
	return e
}

// loggerInfos: every parser's loggers, one entry per logger tail: 20,000
// followed files of a few loggers each hold pointers, not 32 entries and
// a copy of each name apiece.
var loggerInfos struct {
	sync.Mutex
	m map[string]*loggerInfo
}

// maxLoggerInfos bounds loggerInfos: a process sees a few hundred
// loggers; past the bound (input made of distinct names) the lines of
// loggers not kept go the slow way.
const maxLoggerInfos = 4096

// internLogger returns the shared entry for tail, made if new; nil when
// loggerInfos is full. Only a line whose logger its source's cache
// misses comes here.
func internLogger(tail []byte) *loggerInfo {
	loggerInfos.Lock()
	defer loggerInfos.Unlock()
	if e, ok := loggerInfos.m[string(tail)]; ok {
		return e
	}
	if len(loggerInfos.m) >= maxLoggerInfos {
		return nil
	}
	if loggerInfos.m == nil {
		loggerInfos.m = make(map[string]*loggerInfo)
	}
	e := readLogger(tail)
	e.tail = string(tail)
	e.setPattern()
	loggerInfos.m[e.tail] = &e
	return &e
}

// seenLogger finds the logger m ends with among those seen, and the
// index of its "(" in m: where splitLogger's search back from the end
// stops, as a logger name holds no "(" or space. Else it returns -1 and
// the slot for see to keep m's logger in.
func (sk *skimState) seenLogger(m []byte) (int, *loggerInfo, int) {
	x, y := lastWords(m)
	a, b := loggerSlots(x, y)
	sk.useTick++
	if j, ok := sk.loggers[a].endsWords(m, x, y); ok {
		sk.used[a] = sk.useTick
		return j, sk.loggers[a], a
	}
	if j, ok := sk.loggers[b].endsWords(m, x, y); ok {
		sk.used[b] = sk.useTick
		return j, sk.loggers[b], b
	}
	if sk.used[b] < sk.used[a] {
		a = b
	}
	return -1, nil, a
}

// wordsEnd: m (16 bytes or more, its last 16 x and y) ends with " " and
// e's tail, e's pattern in words (pn > 0).
func (e *loggerInfo) wordsEnd(m []byte, x, y uint64) bool {
	if e == nil || e.pn == 0 || len(m) <= e.pn || x&e.mx != e.px || y&e.my != e.py {
		return false
	}
	s := m[len(m)-e.pn:]
	for off := 0; off+16 < len(s); off += 8 {
		if binary.LittleEndian.Uint64(s[off:]) != e.pw[off/8] {
			return false
		}
	}
	return true
}

// lastWords: m's last 16 bytes, the logger's or its name's own, as two
// little-endian words (a shorter m right-aligned in them).
func lastWords(m []byte) (x, y uint64) {
	if n := len(m); n >= 16 {
		return binary.LittleEndian.Uint64(m[n-16:]), binary.LittleEndian.Uint64(m[n-8:])
	}
	for _, c := range m {
		x = x<<8 | y>>56
		y = y<<8 | uint64(c)
	}
	return x, y
}

// loggerSlots: the two places in loggers for the logger that a message
// with its " (logger)" ends with, from its lastWords x, y.
func loggerSlots(x, y uint64) (int, int) {
	h := (x*0x9e3779b97f4a7c15 ^ y) * 0xc2b2ae3d27d4eb4f
	a, b := int(h>>59), int(h>>54&31)
	if b == a {
		b ^= 1
	}
	return a, b
}

// setPattern fills px, py, mx, my, pw and pn from tail.
func (e *loggerInfo) setPattern() {
	pat := " " + e.tail
	q := len(pat)
	if q > 16+8*len(e.pw) {
		return
	}
	var end, mask [16]byte
	k := min(q, 16)
	copy(end[16-k:], pat[q-k:])
	for i := 16 - k; i < 16; i++ {
		mask[i] = 0xff
	}
	e.px, e.py = binary.LittleEndian.Uint64(end[:8]), binary.LittleEndian.Uint64(end[8:])
	e.mx, e.my = binary.LittleEndian.Uint64(mask[:8]), binary.LittleEndian.Uint64(mask[8:])
	for off := 0; off+16 < q; off += 8 {
		e.pw[off/8] = binary.LittleEndian.Uint64([]byte(pat[off:]))
	}
	e.pn = q
}

// endsWords is ends for a message whose lastWords are x, y: the pattern's
// words compared with the line's, where the tail fits them.
func (e *loggerInfo) endsWords(m []byte, x, y uint64) (int, bool) {
	if e == nil {
		return 0, false
	}
	n, q := len(m), e.pn
	if q == 0 || n < 16 {
		return e.ends(m)
	}
	// n > q: a byte before the space, as ends asks.
	if n <= q || x&e.mx != e.px || y&e.my != e.py {
		return 0, false
	}
	s := m[n-q:]
	for off := 0; off+16 < q; off += 8 {
		if binary.LittleEndian.Uint64(s[off:]) != e.pw[off/8] {
			return 0, false
		}
	}
	return n - q + 1, true
}

// ends reports whether m ends with " " and e's tail, and where the tail
// starts. e may be nil: an empty slot.
func (e *loggerInfo) ends(m []byte) (int, bool) {
	if e == nil {
		return 0, false
	}
	j := len(m) - len(e.tail)
	return j, j > 1 && m[j] == '(' && m[j-1] == ' ' && string(m[j:]) == e.tail
}

// stampLen: "yyyy-MM-dd HH:mm:ss,SSS".
const stampLen = 23

// logPrefixMsg: how the message of a kafka.log.Log record that marks
// EraLogPrefix begins.
const logPrefixMsg = "[Log partition="

// sameMinute: stamps a and b agree up to the seconds ("yyyy-MM-dd HH:mm:").
func sameMinute(a, b []byte) bool {
	return binary.LittleEndian.Uint64(a) == binary.LittleEndian.Uint64(b) &&
		binary.LittleEndian.Uint64(a[8:]) == binary.LittleEndian.Uint64(b[8:]) && a[16] == b[16]
}

// secondsKey orders stamps of one minute as bytes.Compare does: its
// bytes 15–22 ("m:ss,SSS") read big-endian.
func secondsKey(st []byte) uint64 { return binary.BigEndian.Uint64(st[15:stampLen]) }

// skim finishes line if it is a log4j record that no rule reads, and
// reports whether it did. The caller has counted the line.
func (p *Parser) skim(line []byte) bool {
	sk := &p.skimSt
	if sk.wrapped && p.pend.kind == pendWrapped && len(line) > 1 && line[0] == '\t' && len(p.held) == 0 {
		// continuation() of the record skimWrapped held: counted, and
		// the held record dispatched, which does nothing.
		if !p.skimContinuation(line) {
			return false
		}
		p.pend.kind, sk.wrapped = pendNone, false
		return true
	}
	if !p.skimOpen() {
		return false
	}
	n := len(line)
	if n > 1 && line[0] == '\t' {
		return p.skimContinuation(line)
	}
	if !log4jShaped(line) {
		if n > 0 && sk.knownNoRecord(line) {
			// continuation(), with a record before and none held.
			p.Stats.Continuations++
			return true
		}
		if n > stampLen+8 && line[0] == '[' && line[stampLen+1] == ']' && line[stampLen+2] == ' ' && line[n-1] != ')' {
			return p.skimWrapped(line)
		}
		return false
	}
	return p.skimRecord(line)
}

// skimOpen: the fast path may take a line now, no record held or
// pending, the first record's time known. Only the slow path and
// skimWrapped change what it says.
func (p *Parser) skimOpen() bool {
	return !p.skimSt.off && p.haveRecord && p.pend.kind == pendNone && len(p.held) == 0 && !p.Stats.First.IsZero()
}

// log4jShaped: line has the frame of Kafka's log4j layout,
// "[" stamp "] " level " " message " (" logger ")".
func log4jShaped(line []byte) bool {
	n := len(line)
	return n >= 40 && line[0] == '[' && line[n-1] == ')' && line[stampLen+1] == ']' && line[stampLen+2] == ' '
}

// skimRecord is skim for a log4jShaped line, with skimOpen true.
func (p *Parser) skimRecord(line []byte) bool {
	sk := &p.skimSt
	n := len(line)
	st := line[1 : 1+stampLen]
	sameMin := sk.haveLast && sameMinute(st, sk.last[:])
	if sameMin {
		// The minute of the last record, checked then: the seconds and
		// millis are left.
		if st[17]-'0' > 6 || st[18]-'0' > 9 || st[17] == '6' && st[18] != '0' || st[19] != ',' || st[20]-'0' > 9 || st[21]-'0' > 9 || st[22]-'0' > 9 {
			return false
		}
	} else if !fixedStamp(st) {
		return false
	}
	// parseLevel, without the call for the level of most lines.
	lv, k := LevelInfo, 4
	if binary.LittleEndian.Uint32(line[stampLen+3:]) != lvINFO {
		if lv, k = parseLevel(line[stampLen+3:]); lv == LevelNone {
			return false
		}
	}
	i := stampLen + 3 + k
	for i < n && line[i] == ' ' {
		i++
	}
	m := line[i:]
	// seenLogger, by hand where m has its 16 bytes and the two slots'
	// loggers their words (seenLogger asks ends otherwise).
	j, lgr, slot := -1, (*loggerInfo)(nil), 0
	if n := len(m); n >= 16 {
		x, y := binary.LittleEndian.Uint64(m[n-16:]), binary.LittleEndian.Uint64(m[n-8:])
		a, b := loggerSlots(x, y)
		ea, eb := sk.loggers[a], sk.loggers[b]
		sk.useTick++
		switch {
		case ea.wordsEnd(m, x, y):
			j, lgr, slot = n-ea.pn+1, ea, a
			sk.used[a] = sk.useTick
		case eb.wordsEnd(m, x, y):
			j, lgr, slot = n-eb.pn+1, eb, b
			sk.used[b] = sk.useTick
		case ea != nil && ea.pn == 0, eb != nil && eb.pn == 0:
			sk.useTick--
			j, lgr, slot = sk.seenLogger(m)
		case sk.used[b] < sk.used[a]:
			slot = b
		default:
			slot = a
		}
	} else {
		j, lgr, slot = sk.seenLogger(m)
	}
	if j < 0 {
		// splitLogger, where the logger is plainly there: " (" name ")"
		// with no space in the name and no Connect ":line" suffix.
		j = bytes.LastIndexByte(m, '(')
		if j <= 0 || m[j-1] != ' ' {
			return false
		}
		name := m[j+1 : len(m)-1]
		if len(name) == 0 || bytes.IndexByte(name, ' ') >= 0 || name[len(name)-1]-'0' <= 9 {
			return false
		}
		if lgr = internLogger(m[j:]); lgr == nil {
			// Past the bound of loggers kept (input of endless new
			// names): the slow way, which reads any logger.
			return false
		}
		sk.loggers[slot], sk.used[slot] = lgr, sk.useTick
	}
	logger := m[j+1 : len(m)-1]
	m = m[:j-1]
	if !lgr.broker {
		_, m = connectContext(m, logger)
	}
	lg := lgr.kind
	if !p.skippable(lg, lv, lgr.internal, m) {
		return false
	}
	p.Stats.Records++
	p.Stats.Levels |= 1 << lv
	p.Stats.Layouts |= 1 << LayoutLog4j
	p.Stats.ByLogger[lg]++
	if lg == lgLog {
		// markEraOf, with what it reads of the logger read once.
		p.Stats.Eras |= lgr.era
		if lgr.logPrefix && p.Stats.Eras&EraLogPrefix == 0 && bytes.HasPrefix(m, []byte(logPrefixMsg)) {
			p.Stats.Eras |= EraLogPrefix
		}
	}
	if sameMin {
		// skimOrder's first case, without the call.
		if secondsKey(st) < secondsKey(sk.last[:]) {
			p.skimBack()
		} else {
			sk.maxStale, sk.maxIsLast = true, true
		}
		copy(sk.last[17:], st[17:])
		sk.keyStale = true
	} else {
		p.skimOrder(st, false)
	}
	sk.taken++
	return true
}

// skimBack counts a record older than the last one (skimOrder).
func (p *Parser) skimBack() {
	sk := &p.skimSt
	p.Stats.OutOfOrder++
	if sk.maxStale && sk.maxIsLast {
		sk.max, sk.maxIsLast = sk.last, false
	}
}

// skimOrder is record()'s disorder count and newest time for a record
// of stamp st (sameMin: in the last record's minute), by comparing
// stamps: fixed-width fields in range order as their wall-clock keys do.
func (p *Parser) skimOrder(st []byte, sameMin bool) {
	sk := &p.skimSt
	var c int
	if sameMin {
		switch a, b := secondsKey(st), secondsKey(sk.last[:]); {
		case a < b:
			c = -1
		case a > b:
			c = 1
		}
	} else if sk.haveLast {
		c = bytes.Compare(st, sk.last[:])
	} else {
		s, _, _ := parseStampLazy(st)
		switch k := s.key(); {
		case k < p.lastKey:
			c = -1
		case k > p.lastKey:
			c = 1
		}
	}
	if c < 0 {
		p.skimBack()
	} else {
		sk.maxStale, sk.maxIsLast = true, true
	}
	if sameMin {
		copy(sk.last[17:], st[17:])
	} else {
		copy(sk.last[:], st)
	}
	sk.haveLast, sk.keyStale = true, true
}

// skimWrapped takes a log4j record with no "(logger)" on its line (a
// LogCleaner statistics block's head, whose logger comes after the
// block): record() counts it and dispatch holds it for one line, as it
// may be a hard-wrapped paste (pendWrapped). Taken only when dispatching
// it later does nothing; the tab-led line after it then finishes it in
// skim, any other goes the slow way with the record held as dispatch
// holds it.
func (p *Parser) skimWrapped(line []byte) bool {
	sk := &p.skimSt
	st := line[1 : 1+stampLen]
	if !fixedStamp(st) {
		return false
	}
	lv, k := parseLevel(line[stampLen+3:])
	if lv == LevelNone {
		return false
	}
	i := stampLen + 3 + k
	for i < len(line) && line[i] == ' ' {
		i++
	}
	m := trimBlankRight(line[i:])
	if len(m) == 0 || m[len(m)-1] == ')' {
		return false
	}
	_, m = connectContext(m, nil)
	if !p.wrappedQuiet(lv, m) {
		return false
	}
	p.Stats.Records++
	p.Stats.Levels |= 1 << lv
	p.Stats.Layouts |= 1 << LayoutLog4j
	p.Stats.ByLogger[lgNone]++
	p.skimOrder(st, sk.haveLast && sameMinute(st, sk.last[:]))
	// hold(pendWrapped, line).
	s, _, _ := parseStampLazy(st)
	p.pend.holdRecord(pendWrapped, p.lineNo, s.time(p.loc), line)
	sk.wrapped = true
	sk.taken++
	return true
}

// wrappedQuiet: dispatch does nothing with a loggerless log4j record of
// level lv and message m, first (configNotice) or when it finishes the
// held record (the default branch with no logger).
func (p *Parser) wrappedQuiet(lv Level, m []byte) bool {
	switch {
	case configShaped(m), bytes.HasPrefix(m, []byte("ProducerConfig values:")),
		bytes.HasPrefix(m, []byte("[Broker id=")), bytes.HasPrefix(m, []byte("[Controller id=")),
		bytes.HasPrefix(m, []byte("Broker ")), bytes.HasPrefix(m, []byte("Controller ")),
		goClientMsg(m), len(p.Stats.Brokers) == 0 && len(m) > 1 && m[1]|0x20 == 'b',
		mayBeClientFailure(lv, m), containsAny(m, clientWords):
		return false
	}
	return true
}

// Skim takes the lines at the start of b, each ended by a LF and holding
// no CR, for as long as the fast path finishes them, and returns how many
// bytes it took: what Line would do with them one by one. A reader hands
// it what it has buffered before it splits lines itself.
func (p *Parser) Skim(b []byte) int {
	off := 0
	// open: skimOpen, asked again only after skim, as skimRecord
	// leaves what it reads alone; most lines of a server.log are
	// log4jShaped and go straight to skimRecord.
	open := p.skimOpen()
	for {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 {
			return off
		}
		line := b[off : off+i]
		// As Line, the line is numbered before skim reads it.
		p.lineNo++
		var ok bool
		if open && log4jShaped(line) {
			ok = p.skimRecord(line)
		} else {
			ok = p.skim(line)
			open = p.skimOpen()
		}
		if !ok {
			p.lineNo--
			p.skimSt.refused = p.lineNo + 1
			return off
		}
		p.Stats.Lines++
		off += i + 1
	}
}

// plainLine: line holds no NUL, and no '|' in its first 128 bytes, so
// skimContinuation need not look for a NUL or a collector's "| ". One
// pass over the line (both bytes 16 at a time where indexAny2 is the
// machine's, else eight bytes at a time): a search per buffer for each
// (a window past the line, as this once was) read every byte of a
// server.log twice more, stack frames or not.
func plainLine(line []byte) bool {
	if pairSearch {
		// indexAny2, 16 bytes a compare.
		n := min(len(line), 128)
		return indexAny2(line[:n], 0, '|') < 0 && (n == len(line) || bytes.IndexByte(line[n:], 0) < 0)
	}
	return plainLineGo(line)
}

// plainLineGo is plainLine in Go.
func plainLineGo(line []byte) bool {
	const ones, highs, bars = 0x0101010101010101, 0x8080808080808080, 0x7c7c7c7c7c7c7c7c
	i := 0
	for ; i+8 <= len(line); i += 8 {
		// A byte of w is zero (a NUL), or of w^bars ('|'), exactly
		// when the word's t has a high bit set.
		w := binary.LittleEndian.Uint64(line[i:])
		t := (w - ones) &^ w
		if i < 128 {
			b := w ^ bars
			t |= (b - ones) &^ b
		}
		if t&highs != 0 {
			return false
		}
	}
	for ; i < len(line); i++ {
		if line[i] == 0 || line[i] == '|' && i < 128 {
			return false
		}
	}
	return true
}

// skimContinuation finishes a tab-indented line (a stack frame, a
// LogCleaner statistics line) after a record that was not held for its
// continuation lines, where the slow path only counts it: no indented
// record (indentedRecord), no collector prefix (looksLikeHeader), no NUL,
// not a config line continuation() reads.
func (p *Parser) skimContinuation(line []byte) bool {
	switch c := line[1]; {
	case c == 'i' && p.Stats.ProtocolVersion == "", c == 'b' && len(p.Stats.Brokers) == 0:
		return false
	case (c == ' ' || c == '\t' || c == '[' || c == '{' || isDigit(c)) && indentedRecord(line) != nil:
		// Maybe a whole record indented (LogCleaner's "\t22.4 MB of
		// log processed" is not).
		return false
	}
	if !plainLine(line) && (len(line) >= 20 && bytes.Contains(line[:min(len(line), 128)], []byte("| ")) || bytes.IndexByte(line, 0) >= 0) {
		return false
	}
	p.Stats.Continuations++
	return true
}

// skippable: dispatch would only count a record of logger class lg, level
// lv and message m (after the layout's logger and Connect context).
func (p *Parser) skippable(lg loggerKind, lv Level, internal bool, m []byte) bool {
	// configShaped's first test here: most messages begin with neither
	// a capital nor "T".
	if len(m) >= 20 && m[0]-'A' < 26 && configShaped(m) {
		return false
	}
	switch lg {
	case lgLog, lgFetcher, lgCoordinator:
		return !ruleReads(lg, m)
	case lgServer:
		// With a component prefix ([KafkaServer id=1], [ReplicaFetcherManager
		// on broker 1]) the line names its broker: the slow way.
		return lg == forgetRule || len(m) > 0 && m[0] != '[' && !serverReads(m)
	case lgNone:
		if len(p.Stats.Brokers) == 0 && len(m) > 1 && m[1]|0x20 == 'b' {
			return false // brokerIdentity reads it
		}
		if internal {
			return true
		}
		return !mayBeClientFailure(lv, m) && !skimWords.in(m)
	}
	return lg == forgetRule
}

// forgetRule, set by a test, makes the fast path skip the lines of one more
// logger kind, as a rule whose word the tables above miss would: the
// equivalence test must then fail.
var forgetRule = NumLoggerKinds

// mayBeClientFailure: a record of an application's logger that
// clientFailure reads (with the stack trace after it).
func mayBeClientFailure(lv Level, m []byte) bool {
	return lv >= LevelError || lv == LevelWarn && bytes.Contains(m, []byte("send"))
}

// skimWords finds clientWords and libraryWords in one pass per rare byte:
// an application's lines (an InvoiceEmitter's INFO, most of a producer's
// log) go through it, and a bytes.Contains per word cost them more than
// the rest of the fast path.
var skimWords = newWordSet(slices.Concat(clientWords, libraryWords))

// wordSet looks for any of its words by the rarest byte of each (anchor):
// one IndexByte scan of the text per distinct anchor, each hit checked
// against the words anchored there.
type wordSet struct {
	anchors []byte
	words   [][]anchored // by anchors' index
	// With two to eight anchors and indexAny8 the machine's, one pass
	// finds the next of any of them (set: the anchors in 16 lanes each,
	// the last repeated to eight) and slot says whose words to check
	// there.
	many bool
	set  [8][16]byte
	slot [256]uint8
}

type anchored struct {
	word string
	off  int // the anchor's index in word
}

// byteRank: how common a byte is in log messages, lowest first; bytes not
// listed (capitals, most punctuation) are rarer than all of these.
const byteRank = " etaoinsrhldcumfpgwybv.-_=:,0123456789kxjqz"

func newWordSet(words []string) *wordSet {
	ws := &wordSet{}
	for _, w := range words {
		best, rank := 0, -1
		for i := 0; i < len(w); i++ {
			r := strings.IndexByte(byteRank, w[i])
			if r < 0 {
				r = len(byteRank)
			}
			if r > rank {
				best, rank = i, r
			}
		}
		k := bytes.IndexByte(ws.anchors, w[best])
		if k < 0 {
			k = len(ws.anchors)
			ws.anchors = append(ws.anchors, w[best])
			ws.words = append(ws.words, nil)
		}
		ws.words[k] = append(ws.words[k], anchored{w, best})
	}
	if ws.many = pairSearch && len(ws.anchors) >= 2 && len(ws.anchors) <= len(ws.set); ws.many {
		for i := range ws.set {
			a := ws.anchors[min(i, len(ws.anchors)-1)]
			ws.set[i] = [16]byte(bytes.Repeat([]byte{a}, 16))
			ws.slot[a] = uint8(bytes.IndexByte(ws.anchors, a))
		}
	}
	return ws
}

// in reports whether m contains one of the words.
func (ws *wordSet) in(m []byte) bool {
	if ws.many {
		for i := 0; i < len(m); i++ {
			j := indexAny8(m[i:], &ws.set)
			if j < 0 {
				return false
			}
			i += j
			for _, w := range ws.words[ws.slot[m[i]]] {
				if s := i - w.off; s >= 0 && len(m)-s >= len(w.word) && string(m[s:s+len(w.word)]) == w.word {
					return true
				}
			}
		}
		return false
	}
	for k, a := range ws.anchors {
		for i := 0; ; {
			j := bytes.IndexByte(m[i:], a)
			if j < 0 {
				break
			}
			i += j
			for _, w := range ws.words[k] {
				if s := i - w.off; s >= 0 && len(m)-s >= len(w.word) && string(m[s:s+len(w.word)]) == w.word {
					return true
				}
			}
			i++
		}
	}
	return false
}

func containsAny(m []byte, words []string) bool {
	for _, w := range words {
		if bytes.Contains(m, []byte(w)) {
			return true
		}
	}
	return false
}

// configShaped: configNotice may read m (logUnused()'s lines, a
// "<Class>Config values:" block's head).
func configShaped(m []byte) bool {
	if len(m) < 20 {
		return false
	}
	if m[0] == 'T' {
		return bytes.HasPrefix(m, []byte(unusedKeysHead)) || bytes.HasPrefix(m, []byte(unknownKeyHead))
	}
	return m[0] >= 'A' && m[0] <= 'Z' && configBlockHead(m) > 0
}

// configBlockHead: the length of the class in "<Class>Config values:", or 0.
func configBlockHead(m []byte) int {
	i := firstSpace(m, 48)
	if i < len(m) && i < 48 && i > len("Config") && m[i-1] == 'g' && bytes.HasSuffix(m[:i], []byte("Config")) && bytes.HasPrefix(m[i:], []byte(" values:")) {
		return i
	}
	return 0
}

// firstSpace is the index of the first space in m's first n bytes, or
// min(len(m), n). Eight bytes at a time: the first word of a message is
// short, where an IndexByte call costs more than the search, and a byte
// loop over it was a tenth of the fast path on a server.log.
func firstSpace(m []byte, n int) int {
	n = min(n, len(m))
	i := 0
	for ; i+8 <= n; i += 8 {
		// The lowest byte of x that is zero is the first space: bytes
		// above it may show as zero too, never one below.
		x := binary.LittleEndian.Uint64(m[i:]) ^ 0x2020202020202020
		if t := (x - 0x0101010101010101) &^ x & 0x8080808080808080; t != 0 {
			return i + bits.TrailingZeros64(t)/8
		}
	}
	for ; i < n && m[i] != ' '; i++ {
	}
	return i
}

// fixedStamp: b is "yyyy-MM-dd HH:mm:ss,SSS" with every field in the
// range parseStampLazy accepts.
func fixedStamp(b []byte) bool {
	if b[4] != '-' || b[7] != '-' || b[10] != ' ' || b[13] != ':' || b[16] != ':' || b[19] != ',' {
		return false
	}
	for _, i := range [...]uint8{0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22} {
		if b[i]-'0' > 9 {
			return false
		}
	}
	two := func(i int) int { return int(b[i]-'0')*10 + int(b[i+1]-'0') }
	mo, d := two(5), two(8)
	return mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && two(11) <= 23 && two(14) <= 59 && two(17) <= 60
}

// skimSync brings lastKey and maxRec up to the records the fast path took,
// before the slow path or Flush reads them.
func (p *Parser) skimSync() {
	sk := &p.skimSt
	if sk.keyStale {
		s, _, _ := parseStampLazy(sk.last[:])
		p.lastKey = s.key()
		sk.keyStale = false
	}
	if sk.maxStale {
		if sk.maxIsLast {
			sk.max, sk.maxIsLast = sk.last, false
		}
		s, _, _ := parseStampLazy(sk.max[:])
		p.maxRec = recTime{st: s, loc: p.loc, lazy: true}
		p.haveMax = true
		sk.maxStale = false
	}
	sk.haveLast, sk.wrapped = false, false
}

// quietLoggers: loggers that write much of a broker's server.log and none
// of whose records a rule reads, that mark no era and name no broker
// (lgNone loggers under kafka., and the group coordinator's, whose two
// rule lines quietKeep keeps). A log store may leave their records out of
// its answer (QuietRecords).
var quietLoggers = []string{
	"kafka.log.Log", "kafka.log.UnifiedLog", "kafka.log.LocalLog", "kafka.log.LocalLog$",
	"kafka.log.LogCleaner", "kafka.log.LogCleanerManager$", "kafka.log.LogSegment", "kafka.log.ProducerStateManager",
	"kafka.log.TimeIndex", "kafka.log.OffsetIndex", "kafka.log.TransactionIndex",
	"kafka.coordinator.group.GroupCoordinator", "kafka.coordinator.group.GroupMetadataManager",
	"kafka.coordinator.GroupCoordinator", "kafka.coordinator.GroupMetadataManager",
	"org.apache.kafka.storage.internals.log.LogSegment", "org.apache.kafka.storage.internals.log.ProducerStateManager",
}

// quietKeep: words that make a quiet logger's record one a rule (or the
// source summary) reads after all: the coordinator's rule starts, what
// configNotice and brokerIdentity look for.
var quietKeep = slices.Concat(ruleStarts[lgCoordinator], ruleStarts[lgLog], []string{
	unknownKeyHead, unusedKeysHead, "Config values:", "heartbeat", "BrokerToControllerChannelManager", "-to-controller",
})

// QuietRecords names what a log store can leave out of the rows it
// returns without changing any event: records with a line that ends with
// " (L)" for a logger L of loggers (the header's logger, or on a line of
// its own after a block), unless they carry a word of keep. Only the
// source summary's counts (lines, records) differ.
func QuietRecords() (loggers, keep []string) {
	return slices.Clone(quietLoggers), slices.Clone(quietKeep)
}

// EraHint is an era a source's quiet records name (markEra): a store that
// leaves them out asks which streams hold a record of Logger whose message
// begins with MsgPrefix ("" for any), and gives those streams the era.
type EraHint struct {
	Logger, MsgPrefix string
	Era               Era
}

// QuietEras lists the eras only quiet records mark.
func QuietEras() []EraHint {
	return []EraHint{
		{Logger: "kafka.log.Log", MsgPrefix: "[Log partition=", Era: EraLogPrefix},
		{Logger: "kafka.log.UnifiedLog", Era: EraUnifiedLog},
	}
}
