package parser

import (
	"bytes"
	"strings"
)

// brokerOf is the broker a line comes from: the id its prefix names, else
// the source's (kafka.log.Log lines carry only the partition, "Session
// expired." nothing), known when the source has shown exactly one broker
// id, or none and its path names one.
func (p *Parser) brokerOf(id int32) int32 {
	if id != Unknown {
		return id
	}
	if len(p.rec.Prefix) > 0 {
		// One file, several brokers' output interleaved (docker compose
		// logs, kubectl logs --prefix, stern): the collector's prefix names
		// the container or pod each line came from.
		if !bytes.Equal(p.rec.Prefix, p.prefixSeen) {
			p.prefixSeen = append(p.prefixSeen[:0], p.rec.Prefix...)
			p.prefixBroker = brokerFromPrefix(p.rec.Prefix)
		}
		if p.prefixBroker != Unknown {
			return p.prefixBroker
		}
	}
	if len(p.Stats.Brokers) == 1 {
		return p.Stats.Brokers[0]
	}
	if len(p.Stats.Brokers) == 0 && p.PathBroker != Unknown {
		return p.PathBroker
	}
	return Unknown
}

// brokerFromPrefix reads a broker id from a collector's prefix:
// "kafka-2  |", "[pod/kafka-0/kafka]", "kafka-0 kafka", a journald
// "host unit[pid]:" part. Unknown if none.
func brokerFromPrefix(b []byte) int32 {
	return BrokerFromPath(strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '[', ']', '|', ':':
			return '/'
		}
		return r
	}, string(b)))
}

// BrokerFromPath reads a broker id from a log's path, for files whose
// lines do not name it: a directory or file named broker-2, broker_2,
// broker2, kafka-2, kafka2 (as in kafka-2/server.log, kafka2.log), or a
// Kubernetes pod name ending in -2 after "kafka". Unknown if none.
func BrokerFromPath(path string) int32 {
	id := Unknown
	for _, part := range strings.FieldsFunc(path, func(r rune) bool { return r == '/' || r == '\\' }) {
		part = strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(part, ".gz"), ".log"))
		for _, pre := range []string{"broker", "kafka"} {
			for from := 0; ; {
				i := strings.Index(part[from:], pre)
				if i < 0 {
					break
				}
				i += from
				from = i + len(pre)
				if v := idAfter(part[from:]); v != Unknown {
					id = v
					break
				}
			}
		}
	}
	return id
}

// idAfter reads "-2", "_2", "2" (followed by nothing or a separator).
func idAfter(rest string) int32 {
	// kafka-0.kafka-headless, kafka-2-0: the leading digits after the prefix.
	rest = strings.TrimLeft(rest, "-_.")
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	if j == 0 || j > 9 || (j < len(rest) && rest[j] != '.' && rest[j] != '-' && rest[j] != '_') {
		return Unknown
	}
	return atoi32([]byte(rest[:j]))
}

// isrLine: ISR shrink / expand / committed / rejected (broker.md §6.1),
// written by the partition's leader.
func (p *Parser) isrLine(pf prefix, s []byte) bool {
	t, part, ok := pf.tp(p)
	if !ok {
		return false
	}
	ev := p.start(KindISRChange)
	ev.Broker, ev.Topic, ev.Partition = pf.id, t, part
	ev.Leader = pf.id
	switch {
	case bytes.HasPrefix(s, []byte("Shrinking ISR")), bytes.HasPrefix(s, []byte("Expanding ISR")):
		ev.Text = "shrink"
		if s[0] == 'E' {
			ev.Text = "expand"
		}
		from, to, ok := fromTo(s)
		if !ok {
			return false
		}
		ev.PrevISR, ev.ISR = parseIntList(from), parseIntList(to)
	case bytes.HasPrefix(s, []byte("ISR updated to ")), bytes.HasPrefix(s, []byte("ISR updated from AlterIsr to ")):
		ev.Text = "updated"
		rest := s[index(s, " to ")+4:]
		if e := index(rest, " and "); e >= 0 {
			rest = rest[:e]
		}
		ev.ISR = parseIntList(rest)
	case bytes.HasPrefix(s, []byte("Cached zkVersion")):
		ev.Text = "rejected"
		ev.Rejected = true
	default:
		return false
	}
	p.send()
	return true
}

// fromTo reads "... from A to B" where A and B are comma-separated ids;
// B ends at ". " or the end.
func fromTo(s []byte) (from, to []byte, ok bool) {
	i := index(s, " from ")
	if i < 0 {
		return nil, nil, false
	}
	rest := s[i+6:]
	j := index(rest, " to ")
	if j < 0 {
		return nil, nil, false
	}
	from, to = rest[:j], rest[j+4:]
	if k := bytes.IndexAny(to, " ."); k >= 0 {
		to = to[:k]
	}
	return from, to, true
}

// truncation: follower log truncation after a leader change (§6.3, §6.4),
// and the FATAL refusal that betrays an unclean leader.
func (p *Parser) truncation(pf prefix, s []byte) bool {
	if !contains(s, "runcat") {
		return true
	}
	ev := p.start(KindTruncation)
	ev.Broker = p.brokerOf(pf.id)
	// ok: the partition was read; at: the offsets too (a line cut before
	// them is unparsed, not a truncation to offset 0).
	var ok bool
	at := true
	off := func(marker string) int64 {
		v, found := intAfter(s, marker)
		at = at && found
		return v
	}
	switch {
	case bytes.HasPrefix(s, []byte("Exiting because log truncation is not allowed for partition ")):
		ev.Topic, ev.Partition, ok = p.partitionAfter(s, "for partition ")
		ev.Offset = off("current leader's latest offset ")
		ev.EndOffset = off("replica's latest offset ")
		ev.Unclean = true
		ev.Text = "refused"
	case bytes.HasPrefix(s, []byte("Truncating partition ")):
		ev.Topic, ev.Partition, ok = p.partitionAfter(s, "Truncating partition ")
		if v, found := intAfter(s, "TruncationState(offset="); found {
			ev.Offset = v
		} else {
			ev.Offset = off("local high watermark ")
		}
		ev.Text = "truncate"
	case bytes.HasPrefix(s, []byte("Truncating to offset ")) && len(pf.tpRaw) > 0:
		ev.Topic, ev.Partition, ok = pf.tp(p)
		ev.Offset = off("Truncating to offset ")
		ev.Text = "truncate"
	case bytes.HasPrefix(s, []byte("Truncating log ")):
		// ≤0.11: "Truncating log t-p to offset N."
		ev.Topic, ev.Partition, ok = p.firstWordTP(s[len("Truncating log "):])
		ev.Offset = off(" to offset ")
		ev.Text = "truncate"
	case bytes.HasPrefix(s, []byte("Truncating ")) && contains(s, " below high watermark "):
		ev.Topic, ev.Partition, ok = p.firstWordTP(s[len("Truncating "):])
		ev.Offset = off(" to offset ")
		ev.EndOffset = off("below high watermark ")
		ev.Text = "below_high_watermark"
	case bytes.HasPrefix(s, []byte("Truncating to ")) && contains(s, " has no effect") && len(pf.tpRaw) > 0:
		// 1.0+: the follower's truncation step ran and found nothing to cut.
		ev.Topic, ev.Partition, ok = pf.tp(p)
		ev.Offset = off("Truncating to ")
		ev.Text = "noop"
	case bytes.HasPrefix(s, []byte("Truncating ")) && contains(s, " has no effect"):
		// ≤0.11: "Truncating t-p to N has no effect as the largest offset in the log is M."
		ev.Topic, ev.Partition, ok = p.firstWordTP(s[len("Truncating "):])
		ev.Offset = off(" to ")
		ev.Text = "noop"
	default:
		// "Deleting segments as part of log truncation".
		return true
	}
	if !ok || !at {
		return false
	}
	p.send()
	return true
}

// firstWordTP reads the "t-p" that starts s and ends at a space (the ≤0.11
// truncation lines name the partition right after their verb).
func (p *Parser) firstWordTP(s []byte) (string, int32, bool) {
	if sp := bytes.IndexByte(s, ' '); sp > 0 {
		return p.topicPartition(s[:sp])
	}
	return "", 0, false
}

// fetcherManager: "Removed fetcher for partitions ..." / "Added fetcher to
// broker L for partitions ..." (§6.2): per partition, the moment a broker
// stopped fetching (became leader or switched leader) and started fetching
// from the new leader. The epoch is resolved by the timeline.
func (p *Parser) fetcherManager(pf prefix, s []byte) bool {
	var phase Phase
	leader := Unknown
	switch {
	case bytes.HasPrefix(s, []byte("Removed fetcher for partitions ")):
		phase = PhaseStoppedFetchers
		s = s[len("Removed fetcher for partitions "):]
	case bytes.HasPrefix(s, []byte("Added fetcher to broker ")):
		phase = PhaseStartedFetcher
		rest := s[len("Added fetcher to broker "):]
		if bytes.HasPrefix(rest, []byte("BrokerEndPoint(id=")) {
			leader = atoi32(rest[len("BrokerEndPoint(id="):])
		} else {
			leader = atoi32(rest)
		}
		i := index(s, " for partitions ")
		if i < 0 {
			return false
		}
		s = s[i+len(" for partitions "):]
	case bytes.HasPrefix(s, []byte("Added fetcher for partitions ")):
		// ≤2.0: List([[t,p], initOffset N to broker BrokerEndPoint(2,host,port)] )
		phase = PhaseStartedFetcher
		s = s[len("Added fetcher for partitions "):]
		if v, ok := intAfter(s, "to broker BrokerEndPoint("); ok {
			leader = int32(v)
		} else if v, ok := intAfter(s, "to broker id:"); ok {
			leader = int32(v)
		}
	default:
		return true
	}
	n := 0
	p.eachTP(s, func(t string, part int32) {
		if n >= 100000 {
			return
		}
		n++
		ev := p.start(KindPhase)
		ev.Phase = phase
		ev.Broker = pf.id
		ev.Topic, ev.Partition = t, part
		ev.Leader = leader
		if phase == PhaseStartedFetcher {
			ev.Role = RoleFollower
		}
		p.send()
	})
	return true
}

// eachTP finds the partitions named in a Scala collection rendering:
// Set(t-1, t-2), HashSet(...), t-1,t-2, [t,1],[t,2], Map(t-1 -> (...), ...),
// List([[t,1], initOffset ...] ).
// The topics are p's (topicPartition): a fetcher line names hundreds of
// partitions, each an event, and a string for each was a good part of the
// reader's allocations.
func (p *Parser) eachTP(s []byte, fn func(string, int32)) {
	for i := 0; i < len(s); {
		c := s[i]
		if c == 'B' && bytes.HasPrefix(s[i:], []byte("BrokerEndPoint(")) {
			// "BrokerEndPoint(2,kafka-2,9092)": a host, not a partition.
			if e := bytes.IndexByte(s[i:], ')'); e > 0 {
				i += e + 1
				continue
			}
		}
		if c == '[' && i+1 < len(s) && s[i+1] != '[' {
			// "[t,p]" form.
			if e := bytes.IndexByte(s[i:], ']'); e > 0 {
				if t, part, ok := p.topicPartition(s[i : i+e+1]); ok {
					fn(t, part)
					i += e + 1
					continue
				}
			}
		}
		if isTopicByte(c) {
			j := i
			for j < len(s) && isTopicByte(s[j]) {
				j++
			}
			// A token directly after '=' or '(' followed by a digit-only
			// tail can still be a partition: let TopicPartition decide.
			if (i == 0 || !isTopicByte(s[i-1])) && (j == len(s) || s[j] != '=') {
				if t, part, ok := p.topicPartition(s[i:j]); ok && (i == 0 || s[i-1] != '=') {
					fn(t, part)
				}
			}
			i = j
			continue
		}
		i++
	}
}

func isTopicByte(c byte) bool {
	return c == '.' || c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// coordinator: group coordinator moves (broker.md §8.3).
func (p *Parser) coordinator(pf prefix, s []byte) bool {
	life := LifeNone
	switch {
	case bytes.HasPrefix(s, []byte("Elected as the group coordinator for partition ")):
		life = LifeCoordinatorElected
	case bytes.HasPrefix(s, []byte("Resigned as the group coordinator for partition ")):
		life = LifeCoordinatorResigned
	default:
		return true
	}
	ev := p.start(KindBrokerLifecycle)
	ev.Lifecycle = life
	ev.Broker = p.brokerOf(pf.id)
	ev.Topic = "__consumer_offsets"
	ev.Partition = int32After(s, "for partition ")
	if ev.Partition == Unknown {
		return false
	}
	if e, ok := intAfter(s, " in epoch "); ok {
		ev.LeaderEpoch = int32(e)
	}
	p.send()
	return true
}
