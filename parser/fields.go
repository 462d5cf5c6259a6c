package parser

import (
	"bytes"
	"math"
)

// PartitionState is what the struct renderings embedded in state-change
// lines say about one partition (see broker.md §2.2): PartitionState(...),
// LeaderAndIsrPartitionState(...), UpdateMetadataPartitionState(...),
// (LeaderAndIsrInfo:(Leader:2,ISR:2,3,LeaderEpoch:14,...)...),
// LeaderAndIsr(leader=2, leaderEpoch=14, isr=List(2, 3), ...),
// {"leader":2,"leader_epoch":14,"isr":[2,3]}, PartitionRegistration(...).
type PartitionState struct {
	Topic           string
	Partition       int32
	Leader          int32
	LeaderEpoch     int32
	ControllerEpoch int32
	ISR             []int32
	Replicas        []int32
}

// ParseState reads the key/value pairs of any of the struct renderings.
// Fields not present are Unknown (or nil).
func ParseState(s []byte) PartitionState {
	st := PartitionState{Partition: Unknown, Leader: Unknown, LeaderEpoch: Unknown, ControllerEpoch: Unknown}
	scanFields(s, func(k, v []byte) {
		switch string(k) {
		case "leader", "Leader":
			st.Leader = atoi32(v)
		case "leaderEpoch", "LeaderEpoch", "leader_epoch":
			st.LeaderEpoch = atoi32(v)
		case "controllerEpoch", "ControllerEpoch":
			st.ControllerEpoch = atoi32(v)
		case "isr", "ISR", "isrWithBrokerEpoch":
			st.ISR = parseIntList(v)
		case "replicas", "AllReplicas":
			st.Replicas = parseIntList(v)
		case "topicName":
			st.Topic = string(bytes.Trim(v, "'\""))
		case "partitionIndex":
			st.Partition = atoi32(v)
		}
	})
	return st
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '"' || c == '\'' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// scanFields walks "key=value" / "key:value" / "\"key\":value" pairs at any
// nesting depth. A value runs to the next ", " or "," that starts another
// key, or to a bracket that closes the value's container. Lists written
// without brackets ("ISR:2,3,LeaderEpoch:14", "isr=2,3, zkVersion=1") keep
// their commas because a digit follows them.
func scanFields(s []byte, fn func(key, val []byte)) {
	n := len(s)
	i := 0
	for i < n {
		c := s[i]
		if !isIdentByte(c) {
			i++
			continue
		}
		// Read an identifier.
		j := i
		quoted := c == '"' || c == '\''
		if quoted {
			j++
		}
		for j < n && (s[j] == '_' || (s[j] >= 'a' && s[j] <= 'z') || (s[j] >= 'A' && s[j] <= 'Z') || (s[j] >= '0' && s[j] <= '9')) {
			j++
		}
		key := s[i:j]
		if quoted {
			key = key[1:]
			if j < n && s[j] == c {
				j++
			}
		}
		if j >= n || (s[j] != '=' && s[j] != ':') || len(key) == 0 {
			i = j + 1
			continue
		}
		// A preceding letter means this was the tail of a word, not a key.
		if i > 0 && ((s[i-1] >= 'a' && s[i-1] <= 'z') || (s[i-1] >= 'A' && s[i-1] <= 'Z')) {
			i = j + 1
			continue
		}
		j++ // past '=' or ':'
		for j < n && s[j] == ' ' {
			j++
		}
		// Value.
		start := j
		depth := 0
		for j < n {
			ch := s[j]
			switch ch {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				if depth == 0 {
					goto done
				}
				depth--
			case ',':
				if depth == 0 {
					k := j + 1
					for k < n && s[k] == ' ' {
						k++
					}
					if k < n && (s[k] < '0' || s[k] > '9') && s[k] != '-' {
						goto done
					}
					if k > j+1 {
						// ", " followed by a digit inside an unbracketed list
						// does not happen in Kafka's renderings; ", 3" ends.
						goto done
					}
				}
			}
			j++
		}
	done:
		val := s[start:j]
		fn(key, val)
		// Descend into nested structs: continue scanning inside the value.
		// (Two IndexByte: IndexAny builds its byte set on every call,
		// once a field of every partition state line.)
		if len(val) > 0 && (bytes.IndexByte(val, '=') >= 0 || bytes.IndexByte(val, ':') >= 0) {
			i = start
			// Skip the value's own leading identifier (e.g. "List(") so the
			// loop can find keys inside.
			for i < j && s[i] != '(' && s[i] != '[' && s[i] != '{' {
				i++
			}
			if i >= j {
				i = j
			}
			continue
		}
		i = j
	}
}

// parseIntList reads "[2, 3]", "2,3", "List(2, 3)", "Set(1)", "[]",
// "List(BrokerState(brokerId=2, brokerEpoch=-1), ...)".
func parseIntList(v []byte) []int32 {
	if contains(v, "brokerId=") {
		var out []int32
		for {
			i := index(v, "brokerId=")
			if i < 0 {
				return out
			}
			v = v[i+len("brokerId="):]
			out = append(out, atoi32(v))
		}
	}
	out := make([]int32, 0, 4)
	num, in := int64(0), false
	neg := false
	for _, c := range v {
		if c >= '0' && c <= '9' {
			num = num*10 + int64(c-'0')
			in = true
			continue
		}
		if c == '-' && !in {
			neg = true
			continue
		}
		if in {
			if neg {
				num = -num
			}
			out = append(out, int32(num))
		}
		num, in, neg = 0, false, false
	}
	if in {
		if neg {
			num = -num
		}
		out = append(out, int32(num))
	}
	return out
}

// atoi32 reads a leading (optionally negative) integer; Unknown if none or
// out of int32 range.
func atoi32(b []byte) int32 {
	i := 0
	for i < len(b) && b[i] == ' ' {
		i++
	}
	neg := false
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	start := i
	var v int64
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		v = v*10 + int64(b[i]-'0')
		if v > 1<<31 {
			return Unknown
		}
		i++
	}
	if i == start {
		return Unknown
	}
	if neg {
		v = -v
	}
	if v > 1<<31-1 || v < -(1<<31)+1 {
		return Unknown
	}
	return int32(v)
}

// atoi64 with sign, for correlation ids and counts.
func atoiSigned64(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg = true
		b = b[1:]
	}
	v, ok := atoi64(b)
	if neg {
		v = -v
	}
	return v, ok
}

// leadingInt returns the integer at the start of b and the bytes after it.
func leadingInt(b []byte) (int64, []byte, bool) {
	i := 0
	neg := false
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	s := i
	var v int64
	for i < len(b) && b[i] >= '0' && b[i] <= '9' && i-s < 18 {
		v = v*10 + int64(b[i]-'0')
		i++
	}
	if i == s {
		return 0, b, false
	}
	// Longer than 18 digits: not a number we model.
	if i < len(b) && b[i] >= '0' && b[i] <= '9' {
		return 0, b, false
	}
	if neg {
		v = -v
	}
	return v, b[i:], true
}

// TopicPartition splits "t-p" at the last hyphen, or reads "[t,p]".
// Topic names may contain '-', '.', '_'.
func TopicPartition(b []byte) (string, int32, bool) {
	t, p, ok := topicPartition(b)
	if !ok {
		return "", 0, false
	}
	return string(t), p, true
}

// topicPartition is TopicPartition with the topic left in b.
func topicPartition(b []byte) ([]byte, int32, bool) {
	b = bytes.TrimSpace(b)
	if len(b) > 2 && b[0] == '[' && b[len(b)-1] == ']' {
		in := b[1 : len(b)-1]
		c := bytes.LastIndexByte(in, ',')
		if c <= 0 {
			return nil, 0, false
		}
		p := atoi32(in[c+1:])
		if p == Unknown || p < 0 || !validTopic(in[:c]) {
			return nil, 0, false
		}
		for _, d := range in[c+1:] {
			if d < '0' || d > '9' {
				return nil, 0, false
			}
		}
		return in[:c], p, true
	}
	// TopicIdPartition: "<topicId>:t-p".
	if c := bytes.IndexByte(b, ':'); c == 22 {
		b = b[c+1:]
	}
	h := bytes.LastIndexByte(b, '-')
	if h <= 0 || h == len(b)-1 {
		return nil, 0, false
	}
	num := b[h+1:]
	for _, c := range num {
		if c < '0' || c > '9' {
			return nil, 0, false
		}
	}
	p := atoi32(num)
	if p == Unknown {
		return nil, 0, false
	}
	if !validTopic(b[:h]) {
		return nil, 0, false
	}
	return b[:h], p, true
}

// maxTopics bounds the topic names a parser keeps to hand out again.
const maxTopics = 1 << 14

// topic is string(b), the same string for every event of a topic: a
// state-change.log names a few topics in every line, and a string per
// event is most of what its parse allocates.
func (p *Parser) topic(b []byte) string {
	if string(b) == p.lastTopic && p.lastTopic != "" {
		// Most sources name one topic, or the same one line after
		// line: no map for them.
		return p.lastTopic
	}
	if s, ok := p.topics[string(b)]; ok {
		p.lastTopic = s
		return s
	}
	s := string(b)
	if p.lastTopic == "" {
		p.lastTopic = s
		return s
	}
	if p.topics == nil {
		// The first topic goes in too: it is handed out again from here
		// once lastTopic names another.
		p.topics = map[string]string{p.lastTopic: p.lastTopic}
	}
	p.lastTopic = s
	if len(p.topics) < maxTopics {
		p.topics[s] = s
	}
	return s
}

// topicPartition is TopicPartition with the parser's topic strings.
func (p *Parser) topicPartition(b []byte) (string, int32, bool) {
	t, part, ok := topicPartition(b)
	if !ok {
		return "", 0, false
	}
	return p.topic(t), part, true
}

// validTopic: Kafka topic names are [a-zA-Z0-9._-]{1,249}.
func validTopic(b []byte) bool {
	if len(b) == 0 || len(b) > 249 {
		return false
	}
	for _, c := range b {
		if !(c == '.' || c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

// tokenAfter returns the bytes after the first occurrence of marker up to
// the next space (or end), trimmed of trailing punctuation '.' ',' ')'.
func tokenAfter(s []byte, marker string) ([]byte, bool) {
	i := index(s, marker)
	if i < 0 {
		return nil, false
	}
	rest := s[i+len(marker):]
	e := bytes.IndexByte(rest, ' ')
	if e >= 0 {
		rest = rest[:e]
	}
	return rest, true
}

// intAfter reads the integer right after marker.
func intAfter(s []byte, marker string) (int64, bool) {
	i := index(s, marker)
	if i < 0 {
		return 0, false
	}
	v, _, ok := leadingInt(s[i+len(marker):])
	return v, ok
}

// int32After reads the broker id, leader or epoch right after marker, or
// Unknown when there is none (a line cut short): never 0, a real id.
func int32After(s []byte, marker string) int32 {
	v, ok := intAfter(s, marker)
	if !ok || v < math.MinInt32 || v > math.MaxInt32 {
		return Unknown
	}
	return int32(v)
}

// partitionAfter reads "t-p" or "[t,p]" right after marker.
func (p *Parser) partitionAfter(s []byte, marker string) (string, int32, bool) {
	i := index(s, marker)
	if i < 0 {
		return "", 0, false
	}
	rest := s[i+len(marker):]
	var tok []byte
	if len(rest) > 0 && rest[0] == '[' {
		e := bytes.IndexByte(rest, ']')
		if e < 0 {
			return "", 0, false
		}
		tok = rest[:e+1]
	} else {
		// Byte loops: the token is short, and IndexAny and TrimRight
		// build their byte set on every call (every partition line).
		e := 0
		for e < len(rest) && rest[e] != ' ' && rest[e] != ',' && rest[e] != ';' {
			e++
		}
		tok = rest[:e]
		for len(tok) > 0 && (tok[len(tok)-1] == '.' || tok[len(tok)-1] == ':' || tok[len(tok)-1] == ')') {
			tok = tok[:len(tok)-1]
		}
	}
	return p.topicPartition(tok)
}
