package parser

import (
	"bytes"
	"time"
)

// Go clients (client.md §7.2–7.4). Their loggers are bare: sarama goes
// through Go's log package ("[Sarama] " prefix, then log.LstdFlags: date and
// time to the second), franz-go's BasicLogger prints "[LEVEL] msg; k: v"
// with no time, kafka-go's ErrorLogger is whatever the application passed,
// usually log.Printf-like. Without a timestamp a line can only be placed by
// a collector's (kubectl --timestamps, journald, syslog).

var (
	saramaLogger = []byte("sarama")
	bFranzLogger = []byte("franz-go")
	bKafkaGo     = []byte("kafka-go")
)

// parseBare recognises the Go clients' layouts at the start of b.
func parseBare(b []byte, loc *time.Location, r *Record) bool {
	if len(b) < 8 {
		return false
	}
	if b[0] == '[' {
		if (b[1] == 'S' || b[1] == 's') && bytes.HasPrefix(b[2:], []byte("arama]")) {
			// log.New(w, "[sarama]", ...) without the space is as common
			// as sarama's own "[Sarama] " (client.md §11).
			b = b[len("[Sarama]"):]
			if b[0] == ' ' {
				b = b[1:]
			}
			return parseSarama(b, loc, r)
		}
		// kgo.BasicLogger: "[WARN] msg; key: val, key: val".
		e := bytes.IndexByte(b[:min(len(b), 8)], ']')
		if e < 5 || e+1 >= len(b) || b[e+1] != ' ' {
			return false
		}
		lv, k := parseLevel(b[1:e])
		if lv == LevelNone || k != e-1 {
			return false
		}
		r.Level, r.Layout, r.Logger, r.noTime = lv, LayoutFranzGo, bFranzLogger, true
		r.Msg = bytes.TrimRight(b[e+2:], " \r")
		return true
	}
	if kafkaGoMsg(b) {
		r.Level, r.Layout, r.Logger, r.noTime = LevelError, LayoutKafkaGo, bKafkaGo, true
		r.Msg = bytes.TrimRight(b, " \r")
		return true
	}
	return false
}

// parseSarama reads what follows "[Sarama] ": Go's log time (when the
// logger has date flags) and the message.
func parseSarama(b []byte, loc *time.Location, r *Record) bool {
	if st, n, ok := parseStampLazy(b); ok && b[4] == '/' && b[10] == ' ' && n < len(b) && b[n] == ' ' {
		r.st, r.loc, r.lazy = st, loc, true
		r.coarse = n == 19
		b = b[n+1:]
	} else {
		r.noTime = true
	}
	r.Level, r.Layout, r.Logger = LevelInfo, LayoutSarama, saramaLogger
	r.Msg = bytes.TrimRight(b, " \r")
	return len(r.Msg) > 0
}

// saramaMsg: sarama's own message shapes, for lines whose logger printed no
// "[Sarama] " prefix (sarama.Logger = log.New(w, "", log.LstdFlags)).
func saramaMsg(m []byte) bool {
	return bytes.HasPrefix(m, []byte("producer/")) || bytes.HasPrefix(m, []byte("consumer/")) ||
		bytes.HasPrefix(m, []byte("client/")) || bytes.HasPrefix(m, []byte("Retrying batch for "))
}

// saramaSeq: lines of one sarama retry sequence (client.md §7.2), which
// fill in the held error's attempt and new leader.
func saramaSeq(m []byte) bool {
	return bytes.HasPrefix(m, []byte("producer/")) || bytes.HasPrefix(m, []byte("Retrying batch for "))
}

func kafkaGoMsg(m []byte) bool {
	return bytes.HasPrefix(m, []byte("error writing messages to ")) ||
		bytes.HasPrefix(m, []byte("failed to read from current broker for partition "))
}

// goClient reads a Go client's message by its shape, whatever layout
// carried it: the clients print through whatever logger the application
// hands them (logrus, zap, zerolog wrap sarama's Printf; client.md §11).
func (p *Parser) goClient() {
	m := p.rec.Msg
	switch {
	case p.rec.Layout == LayoutFranzGo || franzMsg(m):
		p.franzGo()
	case p.rec.Layout == LayoutKafkaGo || kafkaGoMsg(m):
		p.kafkaGo()
	case p.rec.Layout == LayoutSarama || saramaMsg(m):
		p.sarama()
	}
}

// goClientMsg: a Go client's message behind a logger that does not say
// it is one; the first byte keeps this off the busy path.
func goClientMsg(m []byte) bool {
	if len(m) < 16 {
		return false
	}
	switch m[0] {
	case 'p', 'c', 'R':
		return saramaMsg(m)
	case 'm', 'b':
		return franzMsg(m)
	}
	return false
}

// franzMsg: franz-go messages the audit reads, for layouts that do not
// say franz-go wrote them.
func franzMsg(m []byte) bool {
	return bytes.HasPrefix(m, []byte("moving producing partition due to kip-951 ")) ||
		bytes.HasPrefix(m, []byte("moving consuming partition due to kip-951 ")) ||
		bytes.HasPrefix(m, []byte("batch in a produce request failed; "))
}

// saramaTPBecause reads sarama's "... <marker>%s/%d because %v": the
// partition after marker, and the text from " because" on.
func saramaTPBecause(s []byte, marker string) (topic string, part int32, why []byte, ok bool) {
	i := bytes.Index(s, []byte(marker))
	if i < 0 {
		return "", 0, nil, false
	}
	rest := s[i+len(marker):]
	b := bytes.Index(rest, []byte(" because "))
	if b < 0 {
		return "", 0, nil, false
	}
	topic, part, ok = slashTP(rest[:b])
	return topic, part, rest[b:], ok
}

// slashTP reads sarama's "topic/partition" (topics cannot contain '/').
func slashTP(b []byte) (string, int32, bool) {
	i := bytes.LastIndexByte(b, '/')
	if i <= 0 || !validTopic(b[:i]) {
		return "", 0, false
	}
	part := atoi32(b[i+1:])
	if part == Unknown || part < 0 {
		return "", 0, false
	}
	return string(b[:i]), part, true
}

// maxHeld bounds the sarama retries waiting for their leader lines.
const maxHeld = 64

func (p *Parser) sarama() {
	r := &p.rec
	s := r.Msg
	switch {
	case bytes.HasPrefix(s, []byte("producer/leader/")):
		// "producer/leader/%s/%d state change to [retrying-%d]" / "abandoning
		// broker %d" / "selected broker %d": the retry of an error held.
		rest := s[len("producer/leader/"):]
		sp := bytes.IndexByte(rest, ' ')
		if sp < 0 {
			return
		}
		t, part, ok := slashTP(rest[:sp])
		if !ok {
			return
		}
		var ev *Event
		for i := len(p.held) - 1; i >= 0; i-- {
			if p.held[i].Topic == t && p.held[i].Partition == part {
				ev = &p.held[i]
				break
			}
		}
		if ev == nil {
			return
		}
		what := rest[sp+1:]
		switch {
		case bytes.HasPrefix(what, []byte("state change to [retrying-")):
			if v, ok := intAfter(what, "[retrying-"); ok {
				ev.Attempt = v
			}
		case bytes.HasPrefix(what, []byte("abandoning broker ")):
			if v, ok := intAfter(what, "broker "); ok {
				ev.PrevLeader = int32(v)
			}
		case bytes.HasPrefix(what, []byte("selected broker ")):
			if v, ok := intAfter(what, "broker "); ok {
				ev.Leader = int32(v)
			}
		}
	case bytes.HasPrefix(s, []byte("producer/broker/")), bytes.HasPrefix(s, []byte("producer/flusher")):
		// "producer/broker/%d state change to [retrying] on %s/%d because %v"
		// (older releases: "producer/flusher/%d ..." and "producer/flusher ...")
		if t, part, why, ok := saramaTPBecause(s, " state change to [retrying] on "); ok {
			p.holdGoError(t, part, errorName(why))
			if p.retries == nil {
				// Only a sarama client's log has these: the other
				// sources do not carry the ring.
				p.retries = new(saramaRetries)
			}
			p.retries.note(t, part)
		}
	case bytes.HasPrefix(s, []byte("Retrying batch for ")):
		// Idempotent producer: "Retrying batch for %v-%d because of %v".
		rest := s[len("Retrying batch for "):]
		b := bytes.Index(rest, []byte(" because of "))
		if b < 0 {
			return
		}
		t, part, ok := p.topicPartition(rest[:b])
		if !ok {
			return
		}
		// retryBatch runs on a goroutine the retry line's handler starts
		// (async_producer.go, v1.27+): the same error, logged again.
		if p.retries != nil && p.retries.take(t, part) {
			return
		}
		p.holdGoError(t, part, errorName(rest[b:]))
	case bytes.HasPrefix(s, []byte("consumer/broker/")):
		// "consumer/broker/%d abandoned subscription to %s/%d because %s"
		if t, part, why, ok := saramaTPBecause(s, " abandoned subscription to "); ok {
			p.goFetchError(t, part, errorName(why), s)
		}
	}
}

// saramaRetries: the partitions of sarama's latest retry lines, which the
// idempotent producer's "Retrying batch for" repeats.
type saramaRetries struct {
	ring [16]tpRef
	next int
}

func (sr *saramaRetries) note(t string, part int32) {
	sr.ring[sr.next%len(sr.ring)] = tpRef{t, part}
	sr.next++
}

// take reports whether t-part is among the latest retries, newest first,
// and forgets it: one retry line repeats one retry.
func (sr *saramaRetries) take(t string, part int32) bool {
	for i := 1; i <= len(sr.ring); i++ {
		r := &sr.ring[(sr.next-i+2*len(sr.ring))%len(sr.ring)]
		if r.partition == part && r.topic == t {
			r.topic = ""
			return true
		}
	}
	return false
}

// holdGoError keeps a sarama retry until the lines that name its attempt
// and new leader have been read; nothing else is emitted meanwhile, so
// events stay in line order.
func (p *Parser) holdGoError(t string, part int32, errName string) {
	if errName == "" {
		// Timeouts, unknown topic: not a leader move.
		return
	}
	if len(p.held) >= maxHeld {
		p.flushHeld()
	}
	ev := newEvent(KindProducerError)
	ev.Time, ev.Line = p.rec.When(), p.lineNo
	ev.Topic, ev.Partition, ev.Error = t, part, errName
	p.held = append(p.held, ev)
}

func (p *Parser) flushHeld() {
	for i := range p.held {
		if p.ev == nil {
			p.ev = evPool.Get().(*Event)
		}
		*p.ev = p.held[i]
		p.noteErrorEra(p.ev.Error)
		p.send()
	}
	p.held = p.held[:0]
}

func (p *Parser) goFetchError(t string, part int32, errName string, s []byte) {
	if errName == "" {
		return
	}
	ev := p.start(KindConsumer)
	ev.Consumer = ConsFetchError
	ev.Topic, ev.Partition, ev.Error = t, part, errName
	if len(s) > 200 {
		s = s[:200]
	}
	ev.Text = string(s)
	p.send()
}

// franz-go: "msg; key: val, key: val" (pkg/kgo/logger.go BasicLogger).
func (p *Parser) franzGo() {
	s := p.rec.Msg
	i := bytes.Index(s, []byte("; "))
	if i < 0 {
		return
	}
	msg, kv := s[:i], s[i+2:]
	switch string(msg) {
	case "moving producing partition due to kip-951 not_leader_for_partition",
		"moving consuming partition due to kip-951 not_leader_for_partition":
		// topics_and_partitions.go (v1.17+): a Produce or Fetch response
		// refused the partition and named its new leader (KIP-951), so
		// the client moved it without a metadata request. One line per
		// refused partition: "topic: T, partition: P, new_leader: N,
		// new_leader_epoch: E, old_leader: O, old_leader_epoch: E".
		t, ok := kvValue(kv, "topic")
		if !ok || !validTopic(t) {
			return
		}
		pv, _ := kvValue(kv, "partition")
		part := atoi32(pv)
		if part == Unknown {
			return
		}
		if msg[len("moving ")] == 'c' {
			p.goFetchError(string(t), part, "NOT_LEADER_FOR_PARTITION", s)
			return
		}
		ev := p.start(KindProducerError)
		ev.Topic, ev.Partition, ev.Error = string(t), part, "NOT_LEADER_FOR_PARTITION"
		if v, ok := kvValue(kv, "new_leader"); ok {
			ev.Leader = atoi32(v)
		}
		if v, ok := kvValue(kv, "old_leader"); ok {
			ev.PrevLeader = atoi32(v)
		}
		p.send()
	case "batch in a produce request failed":
		// sink.go: broker, topic, partition, err, err_is_retryable,
		// max_retries_reached. Logged when the batch fails for good.
		t, ok := kvValue(kv, "topic")
		if !ok || !validTopic(t) {
			return
		}
		pv, ok := kvValue(kv, "partition")
		part := atoi32(pv)
		if !ok || part == Unknown {
			return
		}
		e := bytes.Index(kv, []byte("err: "))
		if e < 0 {
			return
		}
		errName := errorName(kv[e:])
		if errName == "" {
			return
		}
		ev := p.start(KindProducerError)
		ev.Topic, ev.Partition, ev.Error, ev.Final = string(t), part, errName, true
		p.noteErrorEra(errName)
		p.send()
	case "produced":
		// DEBUG, sink.go handleReqResp: "broker: B, to: T[P{…}, P{…}], T2[…]",
		// one entry per partition of the response. Before KIP-951
		// (Produce < v10, brokers < 3.7) the only line that names a
		// retried partition: "P{retrying@OFFSET,N(ERR: text)}". A KIP-951
		// move ("move:…") is the INFO line's; a batch failed for good
		// ("err@…") is "batch in a produce request failed"'s.
		if i := bytes.Index(kv, []byte("to: ")); i >= 0 {
			p.franzProduced(kv[i+len("to: "):])
		}
	case "immediate metadata update triggered", "metadata update triggered":
		// why: "fetch had inner topic errors from broker 1: NOT_LEADER_FOR_PARTITION{orders[3 5] pay[1]}, ..."
		w := bytes.Index(kv, []byte("why: fetch had inner topic errors from broker "))
		if w < 0 {
			return
		}
		why := kv[w+len("why: "):]
		c := bytes.Index(why, []byte(": "))
		if c < 0 {
			return
		}
		p.franzFetchErrors(why[c+2:], s)
	}
}

// franzProduced reads the "to" list of franz-go's "produced" line.
func (p *Parser) franzProduced(b []byte) {
	for n := 0; n < 64 && len(b) > 0; n++ {
		o := bytes.IndexByte(b, '[')
		if o <= 0 {
			return
		}
		t := b[:o]
		b = b[o+1:]
		for len(b) > 0 && b[0] != ']' {
			c := bytes.IndexByte(b, '{')
			e := bytes.IndexByte(b, '}')
			if c <= 0 || e < c {
				return
			}
			part, body := atoi32(b[:c]), b[c+1:e]
			b = bytes.TrimPrefix(b[e+1:], []byte(", "))
			if part == Unknown || !bytes.HasPrefix(body, []byte("retrying@")) || !validTopic(t) {
				continue
			}
			errName := errorName(body)
			if errName == "" {
				continue
			}
			ev := p.start(KindProducerError)
			ev.Topic, ev.Partition, ev.Error = string(t), part, errName
			p.send()
		}
		b = bytes.TrimPrefix(bytes.TrimPrefix(b, []byte("]")), []byte(", "))
	}
}

// franzFetchErrors reads "ERR{topic[1 2] topic2[3]} ERR2{...}" (metadata.go
// multiUpdateWhy.reason) and emits a fetch error per leader-related
// partition.
func (p *Parser) franzFetchErrors(b, s []byte) {
	for n := 0; n < 64; n++ {
		o := bytes.IndexByte(b, '{')
		if o < 0 {
			return
		}
		name := b[:o]
		if sp := bytes.LastIndexAny(name, " ,"); sp >= 0 {
			name = name[sp+1:]
		}
		e := bytes.IndexByte(b[o:], '}')
		if e < 0 {
			return
		}
		body := b[o+1 : o+e]
		b = b[o+e+1:]
		errName := errorName(name)
		if errName == "" {
			continue
		}
		for len(body) > 0 {
			lb := bytes.IndexByte(body, '[')
			if lb < 0 {
				break
			}
			rb := bytes.IndexByte(body[lb:], ']')
			if rb < 0 {
				break
			}
			t := bytes.TrimSpace(body[:lb])
			parts := body[lb+1 : lb+rb]
			body = body[lb+rb+1:]
			if !validTopic(t) {
				continue
			}
			for _, f := range bytes.Fields(parts) {
				if part := atoi32(f); part != Unknown {
					p.goFetchError(string(t), part, errName, s)
				}
			}
		}
	}
}

// kvValue finds "key: value" in franz-go's "k: v, k: v" list.
func kvValue(kv []byte, key string) ([]byte, bool) {
	for off := 0; off < len(kv); {
		i := bytes.Index(kv[off:], []byte(key+": "))
		if i < 0 {
			return nil, false
		}
		i += off
		if i == 0 || (i >= 2 && kv[i-2] == ',' && kv[i-1] == ' ') {
			v := kv[i+len(key)+2:]
			if c := bytes.Index(v, []byte(", ")); c >= 0 {
				v = v[:c]
			}
			return v, true
		}
		off = i + 1
	}
	return nil, false
}

// kafka-go: Writer "error writing messages to %s (partition %d, attempt %d): %s"
// (v0.4.43+; without ", attempt %d" before), Reader "failed to read from
// current broker for partition %d of %s at offset %d: %v" (older readers:
// "..., not the leader").
func (p *Parser) kafkaGo() {
	s := p.rec.Msg
	switch {
	case bytes.HasPrefix(s, []byte("error writing messages to ")):
		rest := s[len("error writing messages to "):]
		o := bytes.Index(rest, []byte(" (partition "))
		if o <= 0 || !validTopic(rest[:o]) {
			return
		}
		t := rest[:o]
		part, ok := intAfter(rest[o:], "(partition ")
		if !ok {
			return
		}
		c := bytes.Index(rest, []byte("): "))
		if c < 0 {
			return
		}
		errName := errorName(rest[c:])
		if errName == "" {
			return
		}
		ev := p.start(KindProducerError)
		ev.Topic, ev.Partition, ev.Error = string(t), int32(part), errName
		if v, ok := intAfter(rest[o:c], "attempt "); ok {
			ev.Attempt = v
		}
		p.noteErrorEra(errName)
		p.send()
	case bytes.HasPrefix(s, []byte("failed to read from current broker for partition ")):
		rest := s[len("failed to read from current broker for partition "):]
		part, ok := intAfter(rest, "")
		o := bytes.Index(rest, []byte(" of "))
		a := bytes.Index(rest, []byte(" at offset "))
		if !ok || o < 0 || a < o+4 || !validTopic(rest[o+4:a]) {
			return
		}
		errName := errorName(rest[a:])
		if errName == "" && bytes.HasSuffix(rest, []byte(", not the leader")) {
			// Before ": %v" (v0.2-era reader.go) the reason was spelled out.
			errName = "NOT_LEADER_FOR_PARTITION"
		}
		p.goFetchError(string(rest[o+4:a]), int32(part), errName, s)
	}
}
