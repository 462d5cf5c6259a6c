package parser

import (
	"bytes"
	"strings"
	"time"
)

// clientID finds the producer's client id: the "[Producer clientId=X]"
// LogContext prefix (1.0+), else the network thread name
// "kafka-producer-network-thread | X" (full in file layouts; Logback's
// console layout keeps only its last 15 characters, which we do not trust).
func clientID(msg, thread []byte) (string, []byte) {
	if bytes.HasPrefix(msg, []byte("[Producer clientId=")) {
		e := bytes.IndexByte(msg, ']')
		if e > 0 {
			id := msg[len("[Producer clientId="):e]
			if c := bytes.IndexByte(id, ','); c >= 0 {
				id = id[:c]
			}
			rest := msg[e+1:]
			if len(rest) > 0 && rest[0] == ' ' {
				rest = rest[1:]
			}
			return string(id), rest
		}
	}
	if i := bytes.Index(thread, []byte("kafka-producer-network-thread | ")); i >= 0 {
		return string(thread[i+len("kafka-producer-network-thread | "):]), msg
	}
	return "", msg
}

// errorName maps an exception class to the Errors enum name a producer
// would print for it.
func errorName(exc []byte) string {
	for _, e := range errorTexts {
		if bytes.Contains(exc, []byte(e.text)) && (e.also == "" || bytes.Contains(exc, []byte(e.also))) {
			return e.name
		}
	}
	return ""
}

// errorTexts: what names a producer error in an exception or a client's
// message, first match wins (so a longer text before one it holds). A
// log store is asked for the records that hold one (Candidates).
var errorTexts = []struct{ text, also, name string }{
	{text: "NotLeaderOrFollowerException", name: "NOT_LEADER_OR_FOLLOWER"},
	{text: "NotLeaderForPartitionException", name: "NOT_LEADER_FOR_PARTITION"},
	{text: "LeaderNotAvailableException", name: "LEADER_NOT_AVAILABLE"},
	{text: "FencedLeaderEpochException", name: "FENCED_LEADER_EPOCH"},
	{text: "UnknownLeaderEpochException", name: "UNKNOWN_LEADER_EPOCH"},
	{text: "NotEnoughReplicasAfterAppendException", name: "NOT_ENOUGH_REPLICAS_AFTER_APPEND"},
	{text: "NotEnoughReplicasException", name: "NOT_ENOUGH_REPLICAS"},
	{text: "KafkaStorageException", name: "KAFKA_STORAGE_ERROR"},
	{text: "NetworkException", name: "NETWORK_EXCEPTION"},
	{text: "Expiring ", also: "record(s) for ", name: "BATCH_EXPIRED"},
	// librdkafka's rd_kafka_err2str texts (rdkafka.c _ERR_DESC).
	{text: "Broker: Not leader for partition", name: "NOT_LEADER_FOR_PARTITION"},
	{text: "Broker: Leader not available", name: "LEADER_NOT_AVAILABLE"},
	{text: "Broker: Not enough in-sync replicas", name: "NOT_ENOUGH_REPLICAS"},
	{text: "Broker: Message(s) written to insufficient number of in-sync replicas", name: "NOT_ENOUGH_REPLICAS_AFTER_APPEND"},
	{text: "Broker: Leader epoch is older than broker epoch", name: "FENCED_LEADER_EPOCH"},
	{text: "Broker: Leader epoch is newer than broker epoch", name: "UNKNOWN_LEADER_EPOCH"},
	{text: "in the middle of a leadership election", name: "LEADER_NOT_AVAILABLE"},
	// KafkaJS's protocol/error.js texts.
	{text: "This server is not the leader for that topic-partition", name: "NOT_LEADER_FOR_PARTITION"},
	// sarama's KError texts (errors.go).
	{text: "not the leader for some partition", name: "NOT_LEADER_FOR_PARTITION"},
	{text: "In the middle of a leadership election", name: "LEADER_NOT_AVAILABLE"},
	{text: "Messages are written to the log, but to fewer in-sync replicas", name: "NOT_ENOUGH_REPLICAS_AFTER_APPEND"},
	{text: "Messages are rejected since there are fewer in-sync replicas", name: "NOT_ENOUGH_REPLICAS"},
	// kafka-go's "[6] Not Leader For Partition: ..." (error.go Title()).
	{text: "] Not Leader For Partition", name: "NOT_LEADER_FOR_PARTITION"},
	{text: "] Leader Not Available", name: "LEADER_NOT_AVAILABLE"},
	{text: "] Not Enough Replicas After Append", name: "NOT_ENOUGH_REPLICAS_AFTER_APPEND"},
	{text: "] Not Enough Replicas", name: "NOT_ENOUGH_REPLICAS"},
	// The Errors enum name itself (franz-go's kerr "NOT_LEADER_FOR_PARTITION:
	// This server ...", Java "Error: NOT_LEADER_OR_FOLLOWER").
	{text: "NOT_LEADER_OR_FOLLOWER", name: "NOT_LEADER_OR_FOLLOWER"},
	{text: "NOT_LEADER_FOR_PARTITION", name: "NOT_LEADER_FOR_PARTITION"},
	{text: "LEADER_NOT_AVAILABLE", name: "LEADER_NOT_AVAILABLE"},
	{text: "NOT_ENOUGH_REPLICAS_AFTER_APPEND", name: "NOT_ENOUGH_REPLICAS_AFTER_APPEND"},
	{text: "NOT_ENOUGH_REPLICAS", name: "NOT_ENOUGH_REPLICAS"},
	{text: "FENCED_LEADER_EPOCH", name: "FENCED_LEADER_EPOCH"},
	{text: "UNKNOWN_LEADER_EPOCH", name: "UNKNOWN_LEADER_EPOCH"},
}

// LeaderRelated reports whether a producer error is one a leader election
// causes (or, for NOT_ENOUGH_REPLICAS, the ISR shrink around it).
func LeaderRelated(e string) bool {
	switch e {
	case "NOT_LEADER_OR_FOLLOWER", "NOT_LEADER_FOR_PARTITION", "LEADER_NOT_AVAILABLE",
		"FENCED_LEADER_EPOCH", "UNKNOWN_LEADER_EPOCH", "NOT_ENOUGH_REPLICAS", "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
		"KAFKA_STORAGE_ERROR":
		return true
	}
	return false
}

// Leadership reports whether a producer error is one a leader change
// causes: the partition's leader moved (NOT_LEADER_*), is being elected
// (LEADER_NOT_AVAILABLE) or its epoch moved (FENCED/UNKNOWN_LEADER_EPOCH).
// NOT_ENOUGH_REPLICAS, OUT_OF_ORDER_SEQUENCE_NUMBER, timeouts and the
// rest are reported under their own code and matched to no election.
func Leadership(e string) bool {
	// By prefix: a line may glue more text to the name (a token up to
	// the next space, control sequences included).
	for _, n := range [...]string{"NOT_LEADER_OR_FOLLOWER", "NOT_LEADER_FOR_PARTITION", "LEADER_NOT_AVAILABLE",
		"FENCED_LEADER_EPOCH", "UNKNOWN_LEADER_EPOCH"} {
		if strings.HasPrefix(e, n) {
			return true
		}
	}
	return false
}

// undatedError counts an exception line of a producer's send failure
// that no record dates ("org.apache.kafka.common.errors.
// NotLeaderForPartitionException: …", "…TimeoutException: Expiring 1
// record(s) for T-P: …"): the log is a producer's, its time unknown.
func (p *Parser) undatedError(line []byte) bool {
	l := bytes.TrimLeft(line, " \t")
	l = bytes.TrimPrefix(l, []byte("Caused by: "))
	if !bytes.HasPrefix(l, []byte("org.apache.kafka.common.errors.")) {
		return false
	}
	if e := errorName(l); e == "" || e == "NETWORK_EXCEPTION" {
		return false
	}
	p.Stats.UndatedErrors++
	p.Stats.Eras |= EraProducer
	return true
}

// sender: the Java producer's Sender lines (client.md §3.2, §3.3).
func (p *Parser) sender() bool {
	r := &p.rec
	cid, s := clientID(r.Msg, r.Thread)
	// A client id may itself contain "]": cut the prefix where the
	// message proper starts instead.
	for _, m := range [...]string{"Got error produce response", "Received invalid metadata error"} {
		if i := bytes.Index(r.Msg, []byte(m)); i > 0 && !bytes.HasPrefix(s, []byte(m)) {
			s = r.Msg[i:]
			if pre := r.Msg[:i]; bytes.HasPrefix(pre, []byte("[Producer clientId=")) {
				id := bytes.TrimSuffix(bytes.TrimRight(pre, " "), []byte("]"))
				cid = string(id[len("[Producer clientId="):])
			}
			break
		}
	}
	switch {
	case bytes.HasPrefix(s, []byte("Got error produce response with correlation id ")):
		p.Stats.Eras |= EraProducer
		t, part, ok := p.partitionAfter(s, "on topic-partition ")
		if !ok {
			return false
		}
		ev := p.start(KindProducerError)
		ev.ClientID = cid
		ev.Topic, ev.Partition = t, part
		if len(r.Context) > 0 {
			// Kafka Connect: which connector task's producer.
			ev.Text = string(r.Context)
		}
		if v, ok := intAfter(s, "correlation id "); ok {
			ev.CorrelationID = v
		}
		if v, ok := intAfter(s, "retrying ("); ok {
			ev.AttemptsLeft = v
		}
		if e, ok := tokenAfter(s, "Error: "); ok {
			e = bytes.TrimRight(e, ".,")
			ev.Error = string(e)
		}
		ev.Piece = PieceAttempt
		p.noteErrorEra(ev.Error)
		p.noteProducer(cid)
		p.send()
		return true
	case bytes.HasPrefix(s, []byte("Received invalid metadata error in produce request on partition ")):
		p.Stats.Eras |= EraProducer
		t, part, ok := p.partitionAfter(s, "on partition ")
		if !ok {
			return false
		}
		ev := p.start(KindProducerError)
		ev.ClientID = cid
		ev.Topic, ev.Partition = t, part
		ev.Error = errorName(s)
		if ev.Error == "" {
			return true
		}
		// Sender.completeBatch logs this after it retried the batch ("Got
		// error …", just before) or failed it (the callback's ERROR,
		// just before): alone, it is the batch's failure.
		ev.Piece = PieceDetailOrFinal
		p.noteErrorEra(ev.Error)
		p.noteProducer(cid)
		p.send()
		return true
	case bytes.HasPrefix(s, []byte("Got error produce response in correlation id ")),
		bytes.HasPrefix(s, []byte("Received unknown topic or partition error")):
		return true
	}
	return true
}

func (p *Parser) noteProducer(cid string) {
	if cid == "" {
		return
	}
	for _, x := range p.Stats.Producers {
		if x == cid {
			return
		}
	}
	if len(p.Stats.Producers) < 64 {
		p.Stats.Producers = append(p.Stats.Producers, cid)
	}
}

// noteClient records a client id of a line that is not a producer's.
func (p *Parser) noteClient(cid string) {
	if cid == "" {
		return
	}
	for _, x := range p.Stats.Clients {
		if x == cid {
			return
		}
	}
	if len(p.Stats.Clients) < 64 {
		p.Stats.Clients = append(p.Stats.Clients, cid)
	}
}

func (p *Parser) noteErrorEra(e string) {
	switch e {
	case "NOT_LEADER_OR_FOLLOWER":
		p.Stats.Eras |= EraNotLeaderOrFollower
	case "NOT_LEADER_FOR_PARTITION":
		p.Stats.Eras |= EraNotLeaderForPartition
	}
}

// producerConfig reads a held "ProducerConfig values:" record and its
// tab-indented "key = value" continuation lines (client.md §5.1).
func (p *Parser) producerConfig() {
	cfg := map[string]string{}
	add := func(l []byte) {
		l = bytes.TrimRight(l, " \r")
		if len(l) == 0 || (l[0] != '\t' && l[0] != ' ') {
			return
		}
		l = bytes.TrimLeft(l, " \t")
		eq := bytes.Index(l, []byte(" = "))
		if eq <= 0 {
			if bytes.HasSuffix(l, []byte(" =")) {
				cfg[string(l[:len(l)-2])] = ""
			}
			return
		}
		cfg[string(l[:eq])] = string(l[eq+3:])
	}
	// JSON layouts keep the whole block in the message.
	if i := bytes.IndexByte(p.rec.Msg, '\n'); i >= 0 {
		for _, l := range bytes.Split(p.rec.Msg[i+1:], []byte("\n")) {
			add(l)
		}
	}
	for _, l := range p.pend.conts {
		add(l)
	}
	if len(cfg) == 0 {
		return
	}
	if v, ok := cfg["retry.backoff.ms"]; ok {
		if ms, ok := intAfter([]byte(" "+v), " "); ok {
			p.assembler().noteBackoff(cfg["client.id"], time.Duration(ms)*time.Millisecond)
		}
	}
	ev := p.start(KindProducerConfig)
	ev.Config = cfg
	ev.ClientID = cfg["client.id"]
	p.Stats.Eras |= EraProducer
	p.send()
}

// appInfo: "Kafka version: 3.6.1" (2.2+) / "Kafka version : 1.0.0" (≤2.1).
func (p *Parser) appInfo() {
	s := p.rec.Msg
	i := bytes.Index(s, []byte("Kafka version"))
	if i < 0 {
		return
	}
	s = bytes.TrimLeft(s[i+len("Kafka version"):], " :")
	if len(s) == 0 {
		return
	}
	ev := p.start(KindClientVersion)
	ev.Text = string(bytes.TrimSpace(s))
	p.send()
}

// clientFailure: a send that failed for good, as the application (Kafka's
// ErrorLoggingCallback, Spring's LoggingProducerListener, or the app's own
// logger) reports it: the record plus the exception on the lines after it.
func (p *Parser) clientFailure() {
	r := &p.rec
	msg := r.Msg
	// The exception text: JSON stack field, continuation lines, or inline.
	var exc []byte
	if len(r.Stack) > 0 {
		exc = r.Stack
	}
	for _, c := range p.pend.conts {
		if len(exc) > 4096 {
			break
		}
		exc = append(append(exc, '\n'), c...)
	}
	errName := errorName(exc)
	if errName == "" {
		errName = errorName(msg)
	}
	// The exception's own line is one the record was built from.
	excLine := int64(-1)
	if len(r.Stack) == 0 && errName != "" {
		for i, c := range p.pend.conts {
			if errorName(c) == errName {
				excLine = p.lineNo + 1 + int64(i)
				break
			}
		}
	}
	if errName == "" || errName == "NETWORK_EXCEPTION" {
		return
	}
	cid, body := clientID(msg, r.Thread)
	ev := p.start(KindProducerError)
	ev.ClientID = cid
	ev.Error = errName
	ev.Final = true
	ev.Piece = PieceFinal
	if excLine > 0 {
		ev.Lines = []int64{ev.Line, excLine}
	}
	// Which partition: "topic-partition T-P", "for T-P:" (Expiring ...),
	// "to topic T and partition P", "to topic T".
	all := append(append([]byte(nil), body...), exc...)
	switch {
	case bytes.Contains(all, []byte("on topic-partition ")):
		ev.Topic, ev.Partition, _ = p.partitionAfter(all, "on topic-partition ")
	case bytes.Contains(all, []byte(" record(s) for ")):
		i := bytes.Index(all, []byte(" record(s) for "))
		rest := all[i+len(" record(s) for "):]
		if c := bytes.IndexByte(rest, ':'); c > 0 {
			ev.Topic, ev.Partition, _ = p.topicPartition(rest[:c])
		}
	}
	if ev.Topic == "" {
		if i := bytes.Index(body, []byte("to topic ")); i >= 0 {
			rest := body[i+len("to topic "):]
			e := bytes.IndexAny(rest, " :")
			if e < 0 {
				e = len(rest)
			}
			ev.Topic = strings.TrimRight(string(rest[:e]), ".:")
			if v, ok := intAfter(rest, " and partition "); ok {
				ev.Partition = int32(v)
			} else {
				ev.TopicOnly = true
			}
		} else if i := bytes.Index(all, []byte("partition ")); i >= 0 {
			if t, part, ok := p.partitionAfter(all, "partition "); ok {
				ev.Topic, ev.Partition = t, part
			}
		}
	}
	if ev.Topic == "" || !validTopic([]byte(ev.Topic)) {
		return
	}
	p.Stats.Eras |= EraProducer
	p.noteErrorEra(errName)
	p.noteProducer(cid)
	p.send()
}

// librdkafka's debug lines that name a partition a request failed on
// (read at v0.11.6, v1.0.0, v1.5.0, v1.9.0, v2.11.1):
//
//   - MSGSET (debug=msg, all versions), one per failed batch:
//     "T [P]: MessageSet with N message(s) [(MsgId M, BaseSeq S) ]encountered
//     error: ERR (actions A)[ [NOT LEADER]]" (rdkafka_request.c
//     rd_kafka_handle_Produce_error; 1.0+ adds MsgId/BaseSeq).
//   - LEADERUA (≤1.2) / BROKERUA (1.3+) (debug=topic), from
//     rd_kafka_toppar_leader_unavailable: "T [P]: leader|broker unavailable:
//     produce|fetch: ERR". On produce it follows that batch's MSGSET.
//
// REQERR ("ProduceRequest failed: ERR: actions A") names no partition and
// repeats what MSGSET says: not read. So a response is one producer error
// whichever of the debug contexts is on (client.md §11: 2.11 logs all
// three per NOT_LEADER response).
func (p *Parser) librdkafka() {
	r := &p.rec
	fac := string(r.Logger)
	if fac != "LEADERUA" && fac != "BROKERUA" && fac != "MSGSET" {
		return
	}
	s := r.Msg
	if i := bytes.Index(s, []byte("]: ")); i >= 0 && bytes.HasPrefix(s, []byte("[thrd:")) {
		s = s[i+3:]
	}
	if fac == "MSGSET" {
		// Broker-scoped: "host:port/id: " before the partition.
		if i := bytes.Index(s, []byte(": ")); i > 0 && bytes.IndexByte(s[:i], ' ') < 0 && bytes.IndexByte(s[:i], '/') > 0 {
			s = s[i+2:]
		}
	}
	sp := bytes.Index(s, []byte(" ["))
	if sp <= 0 {
		return
	}
	e := bytes.IndexByte(s[sp:], ']')
	if e < 0 {
		return
	}
	part := atoi32(s[sp+2 : sp+e])
	if part == Unknown || !validTopic(s[:sp]) {
		return
	}
	t, rest := s[:sp], s[sp+e+1:]
	cid := string(r.Thread)
	if fac == "MSGSET" {
		x := bytes.Index(rest, []byte(" encountered error: "))
		if x < 0 {
			return
		}
		errText := rest[x+len(" encountered error: "):]
		ev := p.start(KindProducerError)
		ev.Topic, ev.Partition, ev.ClientID = string(t), part, cid
		if ev.Error = errorName(errText); ev.Error == "" {
			return
		}
		// "Permanent": librdkafka fails the batch instead of retrying.
		ev.Piece = PieceAttempt
		if a := bytes.Index(errText, []byte(" (actions ")); a >= 0 && bytes.Contains(errText[a:], []byte("Permanent")) {
			ev.Piece = PieceFinal
		}
		p.noteProducer(cid)
		p.send()
		return
	}
	// ": leader unavailable: produce: ERR" / ": broker unavailable: fetch: ERR".
	fetch := bytes.Contains(rest, []byte(" unavailable: fetch: "))
	errName := errorName(rest)
	if errName == "" {
		errName = "LEADER_NOT_AVAILABLE"
	}
	if fetch {
		p.goFetchError(string(t), part, errName, s)
		return
	}
	// The detail of that batch's MSGSET line when debug=msg is on too
	// (several broker threads write at once: the newest open MSGSET of
	// this client and partition, not the line before); alone, the retry.
	ev := p.start(KindProducerError)
	ev.Topic, ev.Partition = string(t), part
	ev.ClientID = cid
	ev.Error = errName
	ev.Piece = PieceDetailOrRetry
	p.noteProducer(ev.ClientID)
	p.send()
}

// kafkajs reads KafkaJS's JSON logger (kafkajs 2.2.4 src/network/connection.js,
// src/producer/sendMessages.js). A Produce response that failed is logged
// at ERROR, and once more at DEBUG when the level is debug:
//
//	{"level":"ERROR",...,"logger":"kafkajs","message":"[Connection] Response Produce(key: 0, version: 7)",
//	 "broker":"127.0.0.1:34871","clientId":"kafkajs-info","error":"This server is not the leader for that
//	 topic-partition","correlationId":70,"size":158}
//
// It names neither topic nor partition, and neither does the DEBUG
// "[Connection] Request Produce" line of the same correlation id, nor the
// "[Producer] Failed to send messages: …" line after it (client.md §11):
// one producer error per response, partition unknown, paired with its
// DEBUG copy by broker and correlation id. It reports whether the record
// was one of these.
func (p *Parser) kafkajs() bool {
	r := &p.rec
	m := r.Msg
	switch {
	case bytes.HasPrefix(m, []byte("[Connection] Response Produce(")):
		if len(r.Stack) == 0 {
			return true
		}
		errName := errorName(r.Stack)
		if errName == "" {
			return true
		}
		cid := string(r.Thread)
		ev := p.start(KindProducerError)
		ev.ClientID, ev.Error, ev.Conn = cid, errName, string(r.Conn)
		ev.Piece = PieceAttempt
		if r.Level <= LevelDebug {
			// connection.js logs the error, then the response at debug.
			ev.Piece = PieceDetailOrRetry
		}
		if r.HasCorr {
			ev.CorrelationID = r.Corr
		}
		p.noteProducer(cid)
		p.send()
		return true
	case bytes.HasPrefix(m, []byte("[Producer] Failed to send messages: ")):
		// The response above said it.
		return true
	}
	return false
}
