package parser

import (
	"bytes"
	"sync"
	"time"
)

// Era markers: line shapes that only some Kafka versions write. A source's
// markers together name the version range it came from.
type Era uint32

const (
	EraBrokerN               Era = 1 << iota // "Broker N received ..." (0.8.2–0.11)
	EraBracketTP                             // "[t,p]" partition notation (≤0.11)
	EraTPInTransition                        // 0.10.2+ "t-p" in transition lines under "Broker N"
	EraBrokerID                              // "[Broker id=N]" (1.0+)
	EraPartitionState                        // "PartitionState(" (0.10–2.3)
	EraGenerated                             // "LeaderAndIsrPartitionState(" (2.4+)
	EraRequestInfo                           // "Handling LeaderAndIsr request ... for N partitions" (2.6+)
	EraFinished                              // "Finished LeaderAndIsr request in" (2.7+)
	EraKRaft                                 // "Transitioning N partition(s)" (KRaft 3.0+)
	EraTopicID                               // "with topic id Some(" (3.3+)
	EraPreviousLeader                        // "Previous leader Some(" (3.6+)
	EraQuorumController                      // KRaft controller lines
	EraZKController                          // ZK controller lines
	EraLeaderEpochServerLog                  // "starts at Leader Epoch" in server.log (0.11–2.5)
	EraProducer                              // Java producer lines
	EraClientPrefix                          // "[Producer clientId=" (client 1.0+)
	EraTrace                                 // per-partition TRACE state-change lines
	EraNotLeaderOrFollower                   // NOT_LEADER_OR_FOLLOWER (client 2.6+)
	EraNotLeaderForPartition                 // NOT_LEADER_FOR_PARTITION (client ≤2.5)
	EraLeaderNotLocal                        // broker WARN "Leader not local for partition" (0.8.2; broker.md §6.7)
	EraLogPrefix                             // logger kafka.log.Log with "[Log partition=" (1.0–3.0)
	EraUnifiedLog                            // logger kafka.log.UnifiedLog (3.1–3.9)
	EraStorage4                              // logger org.apache.kafka.storage.internals.log.* (4.x)
	EraRaft                                  // KRaft quorum (Raft) lines: QuorumState, KafkaRaftClient
	EraKafkaJS                               // KafkaJS JSON lines (logger "kafkajs")
)

// Stats counts what one source contained.
type Stats struct {
	Lines         int64
	Records       int64
	Continuations int64
	// NotUnderstood: lines in no known layout that do not continue a record
	// (shell noise before the first record, binary garbage).
	NotUnderstood int64
	// Unparsed: records from leadership loggers (or naming LeaderAndIsr)
	// that no rule understood. A rising count means a format we miss.
	Unparsed int64
	// Events: events emitted.
	Events     int64
	CutLines   int64  // lines longer than the reader's limit, cut
	OutOfOrder int64  // records whose time went backwards within the source
	Levels     uint8  // bit per Level
	Layouts    uint16 // bit per Layout
	// Collectors: bit per Collector whose prefix was seen (CollectorNames).
	Collectors uint16
	Eras       Era
	HasZone    bool
	First      time.Time
	Last       time.Time
	// ProtocolVersion: inter.broker.protocol.version from a KafkaConfig dump.
	ProtocolVersion string
	// Writers: per broker or controller id, the records whose prefix names
	// it as their writer ([Broker id=N], [Controller id=N], Broker N): a
	// file several JVMs wrote at once, split by id.
	Writers []WriterStats
	// Brokers: ids seen in the lines ([Broker id=N], Broker N, broker=N).
	Brokers []int32
	// Controllers: ids seen acting as ZK or KRaft controller.
	Controllers []int32
	// Producers: client ids seen.
	Producers []string
	// Clients: client ids of lines that are not a producer's (Java
	// consumers, KafkaJS), for source identity.
	Clients []string
	// UndatedErrors: a producer's exception lines with no record above
	// them to give them a time (a file of printStackTrace output, a
	// paste of the exceptions alone): seen, but not placeable in time.
	UndatedErrors int64
	// UnparsedSamples: the first few unparsed lines, for diagnostics.
	UnparsedSamples []string
	// ByLogger counts records by the kind of logger that wrote them.
	ByLogger [NumLoggerKinds]int64
}

// WriterStats is one writer's share of a source.
type WriterStats struct {
	ID          int32
	Records     int64
	First, Last time.Time
	// OutOfOrder: this writer's records whose time went backwards, apart
	// from the other writers' lines between them.
	OutOfOrder int64
	lastKey    int64
	// last: the newest record's time, read into Last at Flush (as the
	// source's own Last is): no time.Time built per record.
	last recTime
}

// recTime is a record's time, possibly not yet built.
type recTime struct {
	t    time.Time
	st   stamp
	loc  *time.Location
	lazy bool
}

func (rt recTime) when() time.Time {
	if rt.lazy {
		return rt.st.time(rt.loc)
	}
	return rt.t
}

// noteWriter counts the current record for writer id.
func (p *Parser) noteWriter(id int32) {
	if id == Unknown || id < 0 {
		return
	}
	var w *WriterStats
	for i := range p.Stats.Writers {
		if p.Stats.Writers[i].ID == id {
			w = &p.Stats.Writers[i]
			break
		}
	}
	if w == nil {
		if len(p.Stats.Writers) >= 64 {
			return
		}
		p.Stats.Writers = append(p.Stats.Writers, WriterStats{ID: id})
		w = &p.Stats.Writers[len(p.Stats.Writers)-1]
	}
	w.Records++
	if w.Records == 1 {
		w.First = p.rec.When()
	}
	r := &p.rec
	if k := r.wallKey(); k < w.lastKey {
		w.OutOfOrder++
	} else {
		w.lastKey, w.last = k, recTime{r.Time, r.st, r.loc, r.lazy}
	}
}

// LoggerKind groups Kafka's loggers by what they write.
type LoggerKind = loggerKind

// Logger kinds, for Stats.ByLogger.
const (
	LoggerOther       = lgNone
	LoggerStateChange = lgStateChange
	LoggerController  = lgController
	LoggerPartition   = lgPartition
	LoggerServer      = lgServer
	LoggerQuorum      = lgQuorum
	LoggerSender      = lgProducerSender
	LoggerConfig      = lgProducerConfig
	LoggerAppInfo     = lgAppInfo
	LoggerCallback    = lgClientCallback
	LoggerLibrdkafka  = lgLibrdkafka
	LoggerConsumer    = lgConsumer
	LoggerFetcher     = lgFetcher
	LoggerLog         = lgLog
	LoggerCoordinator = lgCoordinator
	LoggerGoClient    = lgGoClient
	NumLoggerKinds    = lgGoClient + 1
)

func addID(ids []int32, id int32) []int32 {
	if id == Unknown || id < 0 {
		return ids
	}
	for _, x := range ids {
		if x == id {
			return ids
		}
	}
	if len(ids) >= 64 {
		return ids
	}
	return append(ids, id)
}

// Parser parses the lines of one source. It is not safe for concurrent use;
// use one Parser per file.
type Parser struct {
	loc   *time.Location
	Stats Stats
	// PathBroker: the broker id the file's path names (BrokerFromPath), used
	// for lines that name none when the file itself names no broker.
	PathBroker int32
	// Now dates syslog stamps that print no year (RFC 3164): this year,
	// or last year for a date that would be more than two days ahead.
	// Default time.Now.
	Now  func() time.Time
	emit func(*Event)

	lineNo     int64
	haveRecord bool  // a record header has been seen (continuations attach to it)
	lastKey    int64 // wall-clock order of the last record, for out-of-order counting
	// maxRec: the newest record's time so far, which becomes Stats.Last at
	// Flush: its time alone, not a whole Record.
	maxRec  recTime
	haveMax bool

	// pend holds a record whose meaning depends on the lines after it
	// (exception lines, a config block, a hard-wrapped line).
	pend     pending
	snapshot bool // KRaft controller is replaying a snapshot
	// lastConfig: the class of the latest "<Class> values:" block, and
	// lastBlock the values of the latest consumer or admin client block
	// (configNotice).
	lastConfig []byte
	lastBlock  map[string]string

	// retries: made on a sarama client's first retry line.
	retries *saramaRetries
	rec     Record
	// ev: the event being built, from evPool, given back at Flush.
	ev *Event
	// held: sarama retries waiting for the lines that name their attempt
	// and new leader (goclient.go).
	held []Event
	// prefixSeen / prefixBroker: the last collector prefix and the broker
	// id it names (brokerOf), so a prefix is read once per run of lines.
	prefixSeen   []byte
	prefixBroker int32
	// asm joins the lines of one failed send (assemble.go), made with the
	// source's first producer error or config block.
	asm    *assembler
	skimSt skimState
	// lastTopic: the topic last handed out, and topics every other one
	// (topic), made with the source's second topic.
	lastTopic string
	topics    map[string]string
}

type tpRef struct {
	topic     string
	partition int32
}

type pendKind uint8

const (
	pendNone pendKind = iota
	pendWrapped
	pendConfig
	pendClientError
	pendOtherConfig // a consumer's or admin client's config block (configNotice)
)

// pending: kind, read on every line, and the held record, made when a
// source first holds one (most never do).
type pending struct {
	kind pendKind
	*heldRecord
}

type heldRecord struct {
	line  int64
	time  time.Time // the held record's time
	head  []byte    // copy of the header line
	conts [][]byte
	size  int
}

// holdRecord starts holding a record of kind k, line at lineNo, time t.
func (pd *pending) holdRecord(k pendKind, lineNo int64, t time.Time, line []byte) {
	if pd.heldRecord == nil {
		pd.heldRecord = new(heldRecord)
	}
	pd.kind, pd.line, pd.time = k, lineNo, t
	pd.head = append(pd.head[:0], line...)
	pd.conts, pd.size = pd.conts[:0], 0
}

// maxPending bounds what one multi-line record may hold.
const maxPending = 256 << 10

// New returns a parser that reads zone-less timestamps in loc.
func New(loc *time.Location) *Parser {
	if loc == nil {
		loc = time.Local
	}
	return &Parser{loc: loc, PathBroker: Unknown, Now: time.Now}
}

// Location is the zone assumed for timestamps without one.
func (p *Parser) Location() *time.Location { return p.loc }

// Line parses one physical line (without its line ending) and calls emit for
// every event it yields. emit must not keep the *Event; copy it.
func (p *Parser) Line(line []byte, emit func(*Event)) {
	p.lineNo++
	p.Stats.Lines++
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	p.emit = emit
	if p.skimSt.refused == p.lineNo {
		// Skim has just turned this line down (the same line, unless
		// the caller gave Line another: then it goes the slow way,
		// which the fast path only ever shortens).
		p.skimSt.refused = 0
	} else if p.skim(line) {
		return
	}
	p.skimSync()
	if len(line) > 0 && (line[0] == ' ' || line[0] == '\t') {
		if t := indentedRecord(line); t != nil && parseRecord(t, p.loc, &p.rec) {
			// A whole record indented by a paste, a document or a
			// collector: a record, not a continuation.
			line = t
		}
	}
	if !looksLikeHeader(line) || !parseRecord(line, p.loc, &p.rec) {
		p.skimSt.noRecord(line)
		p.continuation(line)
		return
	}
	if p.rec.yearless {
		p.rec.dateYear(p.Now)
	}
	p.finishPending()
	p.haveRecord = true
	p.record(line)
}

// Flush finishes a record still waiting for continuation lines. Call at end
// of input, and in live mode when a source has been quiet for a while.
func (p *Parser) Flush(emit func(*Event)) {
	p.emit = emit
	p.skimSync()
	p.finishPending()
	p.flushHeld()
	p.asm.flush(p)
	if p.haveMax {
		p.Stats.Last = p.maxRec.when()
	}
	for i := range p.Stats.Writers {
		p.Stats.Writers[i].Last = p.Stats.Writers[i].last.when()
	}
	if p.ev != nil {
		// A source is flushed when it has gone quiet (live mode) or
		// ended: the event being built, which only lives while Line or
		// Flush runs, goes to the next busy source, not kept by one of
		// 20,000 followed files that write a line an hour. A busy
		// source keeps its own: no pool on every line.
		evPool.Put(p.ev)
		p.ev = nil
	}
}

var evPool = sync.Pool{New: func() any { return new(Event) }}

// Pending reports the time of a record held back until the lines after it
// are seen (a config block, a client error's stack trace, a hard-wrapped
// line). Its events come out only with the source's next record or Flush,
// so whoever merges several parsers by time must not let later events of
// other sources pass before it.
func (p *Parser) Pending() (time.Time, bool) {
	t, ok := p.asm.oldest()
	if p.pend.kind != pendNone && (!ok || p.pend.time.Before(t)) {
		return p.pend.time, true
	}
	return t, ok
}

// indentedRecord returns line without its indentation when what follows
// starts as a timestamped record does ("[2019-03-04 …", "2019-03-04 …",
// a JSON object); nil otherwise (stack frames, config blocks).
func indentedRecord(line []byte) []byte {
	i := 0
	for i < len(line) && i < 64 && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	t := line[i:]
	if len(t) < 20 {
		return nil
	}
	switch {
	case t[0] == '[' && isDigit(t[1]) && isDigit(t[2]) && isDigit(t[3]) && isDigit(t[4]) && t[5] == '-':
	case isDigit(t[0]) && isDigit(t[1]) && isDigit(t[2]) && isDigit(t[3]) && t[4] == '-':
	case t[0] == '{' && t[1] == '"':
	default:
		return nil
	}
	return t
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// looksLikeHeader is the cheap test that keeps stack-trace lines away from
// the layout parsers.
func looksLikeHeader(line []byte) bool {
	if len(line) < 20 {
		return false
	}
	switch c := line[0]; {
	case c == '\t' || c == ' ':
		// Indented: a stack frame or config line, unless a collector
		// prefix was padded ("kafka  | [2020-...").
		return bytes.Contains(line[:min(len(line), 128)], []byte("| "))
	case c == 'a' && bytes.HasPrefix(line, []byte("at ")):
		return false
	}
	return true
}

func (p *Parser) continuation(line []byte) {
	if !p.haveRecord || bytes.IndexByte(line, 0) >= 0 {
		// Before the first record, or NULs (preallocated space after a
		// crash, binary garbage): not part of any record.
		if !p.haveRecord && p.undatedError(line) {
			return
		}
		if len(bytes.TrimSpace(line)) > 0 {
			p.Stats.NotUnderstood++
		}
		return
	}
	p.Stats.Continuations++
	if len(line) > 33 && line[1] == 'i' && line[0] == '\t' && p.Stats.ProtocolVersion == "" && bytes.HasPrefix(line, []byte(protocolVersionLine)) {
		// The same dump gives the protocol the broker speaks: the version
		// it runs, or older while an upgrade is under way (040: 1.0-IV0).
		p.Stats.ProtocolVersion = string(bytes.TrimSpace(line[len(protocolVersionLine):]))
	}
	if len(line) > 13 && line[1] == 'b' && line[0] == '\t' && len(p.Stats.Brokers) == 0 && bytes.HasPrefix(line, []byte(brokerIDLine)) {
		// The broker's "KafkaConfig values:" dump names it even when no
		// leadership line does (040, a broker's stdout).
		if v, ok := intAfter(line, "= "); ok {
			p.Stats.Brokers = addID(p.Stats.Brokers, int32(v))
		}
	}
	switch p.pend.kind {
	case pendNone:
		return
	case pendWrapped:
		// A paste that hard-wrapped the line: glue the piece back on and
		// re-read the record, unless this is plainly a stack frame.
		if len(line) > 0 && line[0] != '\t' && line[0] != ' ' && !bytes.HasPrefix(line, []byte("Caused by")) {
			joined := append(p.pend.head, line...)
			p.pend.head = joined
			p.pend.kind = pendNone
			if parseHeaderAt(joined, p.loc, p.Now, &p.rec) {
				p.Stats.Continuations--
				p.record(joined)
			}
			return
		}
		p.pend.kind = pendNone
		if parseHeaderAt(p.pend.head, p.loc, p.Now, &p.rec) {
			p.dispatch(p.pend.head, false)
		}
		return
	}
	if p.pend.size+len(line) > maxPending || len(p.pend.conts) > 4096 {
		return
	}
	c := append([]byte(nil), line...)
	p.pend.conts = append(p.pend.conts, c)
	p.pend.size += len(c)
}

// record handles a freshly parsed header in p.rec.
func (p *Parser) record(line []byte) {
	r := &p.rec
	p.Stats.Records++
	p.Stats.Levels |= 1 << r.Level
	p.Stats.Layouts |= 1 << r.Layout
	p.Stats.Collectors |= r.Collectors
	if r.HasZone {
		p.Stats.HasZone = true
	}
	if p.Stats.First.IsZero() {
		p.Stats.First = r.When()
	}
	k := r.wallKey()
	if k < p.lastKey {
		p.Stats.OutOfOrder++
	} else {
		// Only the time is needed later: copy that, not the whole
		// Record, on every line.
		p.maxRec = recTime{r.Time, r.st, r.loc, r.lazy}
		p.haveMax = true
	}
	p.lastKey = k
	if p.asm.holding() {
		p.asm.advance(p, r.When())
	}
	if len(p.held) > 0 && !saramaSeq(r.Msg) {
		p.flushHeld()
	}
	p.dispatch(line, true)
}

// dispatch routes a record by its logger, then by message shape. first is
// false when a held record is being finished.
func (p *Parser) dispatch(line []byte, first bool) {
	r := &p.rec
	lg := loggerClass(r.Logger)
	if first {
		p.Stats.ByLogger[lg]++
	}
	if lg == lgNone && bytes.HasPrefix(r.Msg, []byte("ProducerConfig values:")) {
		// Kafka's log4j layout puts the logger after the block, on a line of
		// its own: " (org.apache.kafka.clients.producer.ProducerConfig)".
		lg = lgProducerConfig
	}
	if p.configNotice(line, first) {
		return
	}
	if first && lg == lgNone && (r.Layout == LayoutLog4j || r.Layout == LayoutStrimzi) && len(r.Logger) == 0 {
		// No "(logger)" where the layout has one: maybe a hard-wrapped paste.
		// Hold it for one line.
		p.hold(pendWrapped, line)
		return
	}
	switch lg {
	case lgStateChange, lgController, lgPartition, lgServer, lgQuorum, lgFetcher, lgLog, lgCoordinator:
		if first {
			p.markEra(lg)
		}
		if !p.broker(lg) {
			p.unparsed(line)
		}
	case lgProducerSender:
		if !p.sender() {
			p.unparsed(line)
		}
	case lgProducerConfig:
		if bytes.HasPrefix(r.Msg, []byte("ProducerConfig values:")) || bytes.Contains(r.Msg, []byte("ProducerConfig values:")) {
			if first {
				p.hold(pendConfig, line)
				return
			}
			p.producerConfig()
		}
	case lgAppInfo:
		p.appInfo()
	case lgClientCallback:
		if first {
			p.hold(pendClientError, line)
			return
		}
		p.clientFailure()
	case lgLibrdkafka:
		p.librdkafka()
	case lgGoClient:
		p.goClient()
	case lgConsumer:
		p.consumer()
	default:
		// Unknown logger (an application's own, or none): only a few
		// shapes matter here, looked for with cheap byte checks.
		m := r.Msg
		if len(r.Logger) == 0 && (bytes.HasPrefix(m, []byte(loggerlessBroker[0])) || bytes.HasPrefix(m, []byte(loggerlessBroker[1])) || bytes.HasPrefix(m, []byte(loggerlessBroker[2])) || bytes.HasPrefix(m, []byte(loggerlessBroker[3]))) {
			if p.broker(lgStateChange) {
				return
			}
		}
		if goClientMsg(m) {
			// A Go client behind the application's own logger (zerolog
			// names none; logrus and zap name what the application chose).
			p.goClient()
			return
		}
		if r.Layout == LayoutJSON && string(r.Logger) == kafkaJSLogger {
			// KafkaJS names its client in every line (049).
			p.noteClient(string(r.Thread))
			p.Stats.Eras |= EraKafkaJS
			if p.kafkajs() {
				return
			}
		}
		if len(p.Stats.Brokers) == 0 && (len(r.Msg) > 1 && r.Msg[1]|0x20 == 'b' || len(r.Thread) > 0 && r.Thread[0] == 'B') {
			// Only "[Broker…"/"[broker-…" messages and "BrokerTo…" threads.
			p.brokerIdentity()
		}
		if brokerInternal(r.Logger) {
			// The broker's own noise (kafka.*, ZooKeeper): no producer
			// failure is logged there, so skip the scans below.
			return
		}
		if mayBeClientFailure(r.Level, m) {
			if first {
				p.hold(pendClientError, line)
				return
			}
			p.clientFailure()
			return
		}
		if len(r.Logger) == 0 && containsAny(m, clientWords) {
			p.sender()
		}
	}
}

// brokerIdentity finds the broker id in the broker-to-controller channel's
// prefix or thread name, which a server.log with no leadership line still
// carries: "[BrokerToControllerChannelManager id=101 name=heartbeat]",
// "[broker-101-to-controller-heartbeat-channel-manager]: " (046), thread
// "BrokerToControllerChannelManager broker=78001 name=alterIsr" (048).
func (p *Parser) brokerIdentity() {
	r := &p.rec
	var s []byte
	if bytes.Contains(r.Msg[:min(len(r.Msg), 80)], []byte(heartbeatWord)) || bytes.Contains(r.Thread, []byte(heartbeatWord)) {
		// Only a KRaft broker has a heartbeat channel to the controller
		// (046: "[broker-101-to-controller-heartbeat-channel-manager]").
		p.Stats.Eras |= EraKRaft
	}
	switch {
	case len(r.Msg) > 0 && r.Msg[0] == '[' && bytes.HasPrefix(r.Msg[1:], []byte(identityWords[0])):
		s = r.Msg[:min(len(r.Msg), 80)]
	case bytes.HasPrefix(r.Thread, []byte(identityWords[0])):
		s = r.Thread
	case bytes.HasPrefix(r.Msg, []byte(identityWords[1])):
		if v, rest, ok := leadingInt(r.Msg[len(identityWords[1]):]); ok && bytes.HasPrefix(rest, []byte(identityWords[2])) {
			p.Stats.Brokers = addID(p.Stats.Brokers, int32(v))
		}
		return
	default:
		return
	}
	if e := bytes.IndexByte(s, ']'); e > 0 {
		s = s[:e]
	}
	if v, ok := intAfter(s, " id="); ok {
		p.Stats.Brokers = addID(p.Stats.Brokers, int32(v))
	} else if v, ok := intAfter(s, " broker="); ok {
		p.Stats.Brokers = addID(p.Stats.Brokers, int32(v))
	}
}

func (p *Parser) hold(k pendKind, line []byte) {
	p.pend.holdRecord(k, p.lineNo, p.rec.When(), line)
}

// markEra notes the version hints a server.log line's logger and prefix
// give (broker.md §6.1, §6.4): server.log alone then still names an era.
func (p *Parser) markEra(lg loggerKind) { p.markEraOf(lg, p.rec.Logger, p.rec.Msg) }

func (p *Parser) markEraOf(lg loggerKind, logger, msg []byte) {
	switch lg {
	case lgQuorum:
		p.Stats.Eras |= EraRaft
	case lgLog:
		p.Stats.Eras |= logEra(logger, msg)
	case lgPartition:
		if bytes.HasPrefix(msg, []byte("Partition [")) {
			// "Partition [t,p] on broker 1: Shrinking ISR ..." (≤0.11).
			p.Stats.Eras |= EraBracketTP
		}
	}
}

// logEra is the era a record of a lgLog logger marks.
func logEra(logger, msg []byte) Era {
	switch {
	case bytes.HasPrefix(logger, []byte("org.apache.kafka.storage.")):
		return EraStorage4
	case bytes.Equal(logger, []byte("kafka.log.UnifiedLog")):
		return EraUnifiedLog
	case bytes.Equal(logger, []byte("kafka.log.Log")) && bytes.HasPrefix(msg, []byte(logPrefixMsg)):
		return EraLogPrefix
	}
	return 0
}

func (p *Parser) finishPending() {
	if p.pend.kind == pendNone {
		return
	}
	k := p.pend.kind
	p.pend.kind = pendNone
	saved := p.rec
	if !parseRecord(p.pend.head, p.loc, &p.rec) {
		p.rec = saved
		return
	}
	if p.rec.yearless {
		p.rec.dateYear(p.Now)
	}
	lineNo := p.lineNo
	p.lineNo = p.pend.line
	switch k {
	case pendWrapped:
		p.dispatch(p.pend.head, false)
	case pendConfig:
		p.producerConfig()
	case pendClientError:
		p.clientFailure()
	case pendOtherConfig:
		p.otherConfig()
	}
	p.lineNo = lineNo
	p.rec = saved
}

func (p *Parser) unparsed(line []byte) {
	// Only count records that plausibly carry leadership content; the
	// leadership loggers also write plenty we deliberately ignore.
	p.Stats.Unparsed++
	if len(p.Stats.UnparsedSamples) < 20 {
		s := line
		if len(s) > 300 {
			s = s[:300]
		}
		p.Stats.UnparsedSamples = append(p.Stats.UnparsedSamples, string(s))
	}
}

// start fills p.ev for a new event from the current record.
func (p *Parser) start(kind Kind) *Event {
	if p.ev == nil {
		p.ev = evPool.Get().(*Event)
	}
	*p.ev = newEvent(kind)
	p.ev.Time = p.rec.When()
	p.ev.Line = p.lineNo
	return p.ev
}

func (p *Parser) send() {
	if p.ev.Kind == KindProducerError || p.asm.holding() {
		p.push(p.ev)
		return
	}
	p.out(p.ev)
}

func (p *Parser) out(ev *Event) {
	p.Stats.Events++
	p.emit(ev)
}

type loggerKind uint8

const (
	lgNone loggerKind = iota
	lgStateChange
	lgController // ZK kafka.controller.* and KRaft org.apache.kafka.controller.*
	lgPartition  // kafka.cluster.Partition
	lgServer     // broker lifecycle, fetchers, ZooKeeper client
	lgQuorum     // org.apache.kafka.raft.*
	lgProducerSender
	lgProducerConfig
	lgAppInfo
	lgClientCallback
	lgLibrdkafka
	lgConsumer
	lgFetcher     // kafka.server.ReplicaFetcherThread
	lgLog         // kafka.log.Log / UnifiedLog / LocalLog
	lgCoordinator // kafka.coordinator.group.*
	lgGoClient    // sarama, franz-go, kafka-go: the layout names the logger
)

// brokerInternal: loggers of broker internals that never carry a
// producer's send failure.
func brokerInternal(lg []byte) bool {
	return bytes.HasPrefix(lg, []byte("kafka.")) || bytes.HasPrefix(lg, []byte("org.apache.zookeeper")) ||
		bytes.HasPrefix(lg, []byte("org.apache.kafka.storage")) || bytes.HasPrefix(lg, []byte("org.apache.kafka.server")) ||
		bytes.HasPrefix(lg, []byte("org.apache.kafka.raft")) || bytes.HasPrefix(lg, []byte("org.apache.kafka.image")) ||
		bytes.HasPrefix(lg, []byte("org.apache.kafka.metadata")) || bytes.HasPrefix(lg, []byte("org.apache.kafka.coordinator"))
}

// loggerClass maps a logger name (full, Logback-abbreviated or short) to
// what it writes. Switches on the last dotted component so that
// "org.apache.kafka.clients.producer.internals.Sender",
// "o.a.k.clients.producer.internals.Sender" and "o.a.k.c.p.i.Sender" agree.
func loggerClass(lg []byte) loggerKind {
	if len(lg) == 0 {
		return lgNone
	}
	if string(lg) == stateChangeLogger {
		return lgStateChange
	}
	if bytes.HasPrefix(lg, []byte(controllerPackages[0])) || bytes.HasPrefix(lg, []byte(controllerPackages[1])) {
		return lgController
	}
	last := lg
	if i := bytes.LastIndexByte(lg, '.'); i >= 0 {
		last = lg[i+1:]
	}
	if i := bytes.IndexByte(last, '$'); i >= 0 {
		last = last[:i]
	}
	k, ok := loggerByName[string(last)]
	if !ok {
		return lgNone
	}
	if k == lgProducerSender && !bytes.Contains(lg, []byte("producer")) && !bytes.Contains(lg, []byte(".p.")) && !bytes.HasPrefix(lg, []byte("o.a.k")) {
		// Many libraries have a Sender: only the producer's is read.
		return lgNone
	}
	return k
}

// loggerNames: by kind, the loggers' last name components (after the
// last '.', before a '$') loggerClass knows. A log store is asked for the
// records of most of them (Candidates): a name added here is asked for.
var loggerNames = [NumLoggerKinds][]string{
	lgController: {"KafkaController", "PartitionStateMachine", "ZkPartitionStateMachine", "ReplicaStateMachine",
		"ZkReplicaStateMachine", "OfflinePartitionLeaderSelector", "PreferredReplicaPartitionLeaderSelector",
		"ControlledShutdownLeaderSelector", "ReassignedPartitionLeaderSelector", "QuorumController",
		"ReplicationControlManager", "ClusterControlManager", "BrokerHeartbeatManager", "PartitionChangeBuilder",
		"ControllerEventManager", "TopicDeletionManager", "PartitionRegistration"},
	lgPartition: {"Partition"},
	lgServer: {"KafkaServer", "BrokerServer", "KafkaRaftServer", "BrokerLifecycleManager", "ZooKeeperClient",
		"KafkaZkClient", "ZkUtils", "KafkaHealthcheck", "ReplicaFetcherManager", "ReplicaManager", "KafkaApis",
		"ControllerServer", "SharedServer", "BrokerMetadataPublisher", zkClientLoggers[0], zkClientLoggers[1]},
	lgQuorum:         {"QuorumState", "KafkaRaftClient", "RaftManager"},
	lgFetcher:        {"ReplicaFetcherThread", "AbstractFetcherThread"},
	lgLog:            {"Log", "UnifiedLog", "LocalLog"},
	lgCoordinator:    {"GroupCoordinator", "GroupMetadataManager"},
	lgProducerSender: {"Sender"},
	lgProducerConfig: {"ProducerConfig"},
	lgAppInfo:        {"AppInfoParser"},
	lgClientCallback: {"ErrorLoggingCallback", "LoggingProducerListener", "KafkaTemplate"},
	lgGoClient:       {"sarama", "franz-go", "kafka-go"},
	lgLibrdkafka:     {"REQERR", "LEADERUA", "MSGSET", "FAIL", "PARTCNT", "METADATA", "BROKERUA"},
	lgConsumer: {"AbstractCoordinator", "ConsumerCoordinator", "ConsumerRebalanceListenerInvoker", "Fetcher", "FetchCollector",
		"KafkaMessageListenerContainer", "AbstractMessageListenerContainer", "ConcurrentMessageListenerContainer",
		"CoordinatorRequestManager", "MembershipManagerImpl", "SubscriptionState"},
}

// stateChangeLogger is lgStateChange's one logger; the loggers under
// controllerPackages are all lgController.
const stateChangeLogger = "state.change.logger"

var controllerPackages = [...]string{"org.apache.kafka.controller.", "kafka.controller."}

// zkClientLoggers: ZooKeeper's client loggers (lgServer), which never
// write a component prefix: serverStarts and serverWords are all a rule
// reads of them.
var zkClientLoggers = [...]string{"ZkClient", "ClientCnxn"}

var loggerByName = func() map[string]loggerKind {
	m := map[string]loggerKind{}
	for k, names := range loggerNames {
		for _, n := range names {
			m[n] = loggerKind(k)
		}
	}
	return m
}()
