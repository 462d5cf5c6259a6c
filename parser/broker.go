package parser

import (
	"bytes"
	"time"
)

// side is who wrote a state-change style line, read off its prefix.
type side uint8

const (
	sideUnknown side = iota
	sideBroker
	sideController
)

type prefix struct {
	side      side
	id        int32 // broker / controller / node id
	epoch     int32 // controller epoch when the prefix carries it
	component []byte
	// tpRaw is the partition a prefix names ("[Partition t-p broker=N]",
	// "[Log partition=t-p, ...]"), parsed only when a rule needs it so
	// that noise lines cost no allocation.
	tpRaw      []byte
	bracketTP  bool
	kraftCtrl  bool // [QuorumController id=N] or the older KRaft "[Controller N] "
	quorumNode bool // [RaftManager id=N]
}

var (
	bBrokerID     = []byte("Broker id=")
	bControllerID = []byte("Controller id=")
)

// afterPrefix is the message parsePrefix leaves after the component
// prefix, without reading the prefix.
func afterPrefix(m []byte) []byte {
	if len(m) == 0 || m[0] != '[' {
		return m
	}
	e := bytes.IndexByte(m, ']')
	if e < 0 {
		return m
	}
	rest := m[e+1:]
	if len(rest) > 0 && (rest[0] == ':' || rest[0] == ',') {
		rest = rest[1:]
	}
	if len(rest) > 0 && rest[0] == ' ' {
		rest = rest[1:]
	}
	return rest
}

// parsePrefix strips the component prefix Kafka puts inside %m (broker.md
// §1.5) and reports what it says.
func parsePrefix(m []byte) (prefix, []byte) {
	pf := prefix{id: Unknown, epoch: Unknown}
	if len(m) == 0 {
		return pf, m
	}
	if m[0] == '[' {
		e := bytes.IndexByte(m, ']')
		if e < 0 {
			return pf, m
		}
		in := m[1:e]
		rest := m[e+1:]
		// "]: " (≤0.11 components) or "], " (0.8 KafkaServer) or "] ".
		if len(rest) > 0 && (rest[0] == ':' || rest[0] == ',') {
			rest = rest[1:]
		}
		if len(rest) > 0 && rest[0] == ' ' {
			rest = rest[1:]
		}
		// A byte loop: the prefix is short, and IndexAny builds its byte
		// set on every call (every broker record the slow path reads).
		sp := 0
		for sp < len(in) && in[sp] != ' ' && in[sp] != '=' {
			sp++
		}
		if sp == len(in) {
			pf.component = in
			if bytes.HasPrefix(in, []byte("KafkaApi-")) {
				pf.side, pf.id = sideBroker, atoi32(in[len("KafkaApi-"):])
			}
			return pf, rest
		}
		pf.component = in[:sp]
		switch {
		case bytes.HasPrefix(in, bBrokerID):
			pf.side = sideBroker
			pf.id = atoi32(in[len(bBrokerID):])
		case bytes.HasPrefix(in, bControllerID):
			pf.side = sideController
			pf.id = atoi32(in[len(bControllerID):])
			if v, ok := intAfter(in, "epoch="); ok {
				pf.epoch = int32(v)
			}
		case bytes.HasPrefix(in, []byte("Controller ")):
			// KRaft 3.0–3.2 "[Controller 0] " (broker.md §10); ZK ≤0.11 "[Controller 0]: ".
			pf.side = sideController
			pf.id = atoi32(in[len("Controller "):])
			pf.kraftCtrl = len(m) > e+1 && m[e+1] == ' '
		case bytes.HasPrefix(in, []byte("QuorumController id=")):
			pf.side = sideController
			pf.kraftCtrl = true
			pf.id = atoi32(in[len("QuorumController id="):])
		case bytes.HasPrefix(in, []byte("Partition ")):
			// "[Partition t-p broker=N]"
			body := in[len("Partition "):]
			if b := index(body, " broker="); b > 0 {
				pf.id = atoi32(body[b+len(" broker="):])
				pf.side = sideBroker
				pf.tpRaw = body[:b]
			}
		case bytes.HasPrefix(in, []byte("Log partition=")), bytes.HasPrefix(in, []byte("UnifiedLog partition=")), bytes.HasPrefix(in, []byte("LocalLog partition=")):
			body := in[bytes.IndexByte(in, '=')+1:]
			if c := bytes.IndexByte(body, ','); c > 0 {
				body = body[:c]
			}
			pf.tpRaw = body
			return pf, rest
		case bytes.HasPrefix(in, []byte("RaftManager ")):
			pf.quorumNode = true
			// "[RaftManager id=N]" (3.0–3.2), "[RaftManager nodeId=N]" (3.3+).
			if v, ok := intAfter(in, "id="); ok {
				pf.id = int32(v)
			} else if v, ok := intAfter(in, "nodeId="); ok {
				pf.id = int32(v)
			}
		default:
			// [ReplicaFetcherManager on broker N], [KafkaServer id=N],
			// [Kafka Server N], [BrokerLifecycleManager id=N], [ReplicaManager broker=N],
			// [PartitionStateMachine controllerId=N], [Partition state machine on Controller N],
			// [ReplicaFetcher replicaId=N, ...], [GroupMetadataManager brokerId=N], [GroupCoordinator N].
			// Switch on the component so a line pays for one search at most.
			var key string
			sd := sideBroker
			switch string(pf.component) {
			case "ReplicaFetcherManager":
				key = "on broker "
			case "ReplicaManager", "ReplicaAlterLogDirsManager":
				key = "broker="
			case "ReplicaFetcher", "ReplicaAlterLogDirsThread":
				key = "replicaId="
			case "GroupMetadataManager", "TransactionCoordinator":
				key = "brokerId="
			case "GroupCoordinator":
				pf.id, pf.side = atoi32(in[len("GroupCoordinator "):]), sideBroker
			case "Kafka":
				if bytes.HasPrefix(in, []byte("Kafka Server ")) {
					pf.id, pf.side = atoi32(in[len("Kafka Server "):]), sideBroker
				}
			case "PartitionStateMachine", "ReplicaStateMachine", "Channel", "RequestSendThread", "ControllerEventThread":
				key, sd = "controllerId=", sideController
			case "Partition", "Replica":
				if v, ok := intAfter(in, "on Controller "); ok {
					pf.id, pf.side = int32(v), sideController
				} else if v, ok := intAfter(in, "on controller "); ok {
					pf.id, pf.side = int32(v), sideController
				}
			case "KafkaServer", "BrokerServer", "ControllerServer", "SharedServer", "BrokerLifecycleManager",
				"BrokerMetadataPublisher", "BrokerToControllerChannelManager", "KafkaApi":
				key = "id="
			}
			if key != "" {
				if v, ok := intAfter(in, key); ok {
					pf.id, pf.side = int32(v), sd
				}
			}
		}
		return pf, rest
	}
	// 0.8.2–0.11 text prefixes: "Broker N ..." / "Controller N epoch E ...".
	if bytes.HasPrefix(m, []byte("Broker ")) {
		v, rest, ok := leadingInt(m[len("Broker "):])
		if ok && len(rest) > 1 && rest[0] == ' ' {
			pf.side, pf.id = sideBroker, int32(v)
			return pf, rest[1:]
		}
	}
	if bytes.HasPrefix(m, []byte("Controller ")) {
		v, rest, ok := leadingInt(m[len("Controller "):])
		if ok && bytes.HasPrefix(rest, []byte(" epoch ")) {
			e, rest2, ok2 := leadingInt(rest[len(" epoch "):])
			if ok2 && len(rest2) > 1 && rest2[0] == ' ' {
				pf.side, pf.id, pf.epoch = sideController, int32(v), int32(e)
				return pf, rest2[1:]
			}
		}
	}
	// 0.8–0.11 Partition logIdent: "Partition [t,p] on broker N: ".
	if bytes.HasPrefix(m, []byte("Partition [")) {
		if i := index(m, "] on broker "); i > 0 {
			if v, rest, ok := leadingInt(m[i+len("] on broker "):]); ok && bytes.HasPrefix(rest, []byte(": ")) {
				pf.side, pf.id = sideBroker, int32(v)
				pf.tpRaw = m[len("Partition ") : i+1]
				return pf, rest[2:]
			}
		}
	}
	return pf, m
}

// tp parses the partition the prefix names (its topic one of p's).
func (pf *prefix) tp(p *Parser) (string, int32, bool) {
	if len(pf.tpRaw) == 0 {
		return "", 0, false
	}
	return p.topicPartition(pf.tpRaw)
}

// has reports whether s starts with w, ignoring the case of the first
// letter (0.x wrote "received", 1.0+ "Received").
func has(s []byte, w string) bool {
	if len(s) < len(w) {
		return false
	}
	a, b := s[0], w[0]
	if a != b && a^0x20 != b {
		return false
	}
	return string(s[1:len(w)]) == w[1:]
}

// leadershipAnchor: words that only leadership lines carry. A record from a
// leadership logger with one of these that no rule matched is "unparsed".
func leadershipAnchor(m []byte) bool { return anchorWordSet.in(m) }

// anchorWords are leadershipAnchor's words, looked for by their rare
// bytes (wordSet): seven bytes.Contains, most of them led by an 'e' or a
// 'b' that every message holds many of, were a third of what a ZK
// controller.log's RequestSendThread lines cost the slow path.
var (
	anchorWords = []string{
		"LeaderAndIsr", "eader epoch", "eader Epoch", "become-leader", "become-follower",
		"partition(s) to local", "leader info",
	}
	anchorWordSet = newWordSet(anchorWords)
)

// broker handles lines from broker and controller loggers. It reports false
// only for a leadership-looking line it could not read.
func (p *Parser) broker(lg loggerKind) bool {
	r := &p.rec
	// The busiest loggers of a server.log say little that matters: look
	// for the few words that do before parsing anything.
	// Every rule for these loggers matches the start of the message after
	// the component prefix (truncation, coordinator), so look there instead
	// of searching the whole line.
	// (ruleStarts, which the fast path in skim.go shares.)
	switch lg {
	case lgLog, lgFetcher, lgCoordinator:
		if !ruleReads(lg, r.Msg) {
			return true
		}
	}
	pf, rest := parsePrefix(r.Msg)
	p.noteWriter(pf.id)
	switch pf.side {
	case sideBroker:
		p.Stats.Brokers = addID(p.Stats.Brokers, pf.id)
	case sideController:
		p.Stats.Controllers = addID(p.Stats.Controllers, pf.id)
	}
	if lg == lgStateChange {
		if pf.side == sideController && !pf.kraftCtrl {
			p.Stats.Eras |= EraZKController
			if p.zkControllerStateChange(pf, rest) {
				return true
			}
		} else if pf.side == sideBroker {
			if p.brokerStateChange(pf, rest) {
				return true
			}
		}
		// KRaft brokers also write Partition lines to state-change.log.
		if p.partitionLine(pf, rest) {
			return true
		}
		return !leadershipAnchor(rest)
	}
	switch lg {
	case lgPartition:
		if p.partitionLine(pf, rest) {
			return true
		}
		if p.isrLine(pf, rest) {
			return true
		}
		return p.partitionMisc(pf, rest)
	case lgController:
		if pf.kraftCtrl || bytes.HasPrefix(r.Logger, []byte("org.apache.kafka.controller")) {
			p.Stats.Eras |= EraQuorumController
			if p.kraftController(pf, rest) {
				return true
			}
		} else {
			p.Stats.Eras |= EraZKController
			if p.zkController(pf, rest) {
				return true
			}
		}
	case lgServer:
		if bytes.HasPrefix(r.Msg, []byte("[ReplicaFetcherManager")) {
			return p.fetcherManager(pf, rest)
		}
		if p.serverLine(pf, rest) {
			return true
		}
	case lgFetcher:
		return p.truncation(pf, rest)
	case lgLog:
		return p.truncation(pf, rest)
	case lgCoordinator:
		return p.coordinator(pf, rest)
	case lgQuorum:
		if p.quorumLine(pf, rest) {
			return true
		}
	}
	return !leadershipAnchor(rest)
}

// controllerFrom reads "from controller K epoch CE" anywhere in s.
func controllerFrom(s []byte, ev *Event) {
	i := index(s, "controller ")
	for i >= 0 {
		v, rest, ok := leadingInt(s[i+len("controller "):])
		if ok {
			ev.Controller = int32(v)
			if bytes.HasPrefix(rest, []byte(" epoch ")) {
				if e, _, ok := leadingInt(rest[len(" epoch "):]); ok {
					ev.ControllerEpoch = int32(e)
				}
			}
			return
		}
		j := index(s[i+1:], "controller ")
		if j < 0 {
			return
		}
		i += 1 + j
	}
}

// correlation reads "correlation id N", else "correlationId N": one
// search for "correlation" finds both.
func correlation(s []byte) int64 {
	first := -1 // the first "correlationId "
	for i := 0; ; {
		j := index(s[i:], "correlation")
		if j < 0 {
			break
		}
		i += j + len("correlation")
		switch rest := s[i:]; {
		case bytes.HasPrefix(rest, []byte(" id ")):
			// The first "correlation id " decides, whatever follows it.
			if v, _, ok := leadingInt(rest[len(" id "):]); ok {
				return v
			}
			if first < 0 {
				if k := index(s, "correlationId "); k >= 0 {
					first = k + len("correlationId ")
				}
			}
			return correlationAt(s, first)
		case first < 0 && bytes.HasPrefix(rest, []byte("Id ")):
			first = i + len("Id ")
		}
	}
	return correlationAt(s, first)
}

// correlationAt reads the id at s[i:], or -1.
func correlationAt(s []byte, i int) int64 {
	if i < 0 {
		return -1
	}
	if v, _, ok := leadingInt(s[i:]); ok {
		return v
	}
	return -1
}

func (p *Parser) applyState(ev *Event, st PartitionState) {
	ev.Leader = st.Leader
	ev.LeaderEpoch = st.LeaderEpoch
	ev.ISR = st.ISR
	ev.Replicas = st.Replicas
	ev.StateControllerEpoch = st.ControllerEpoch
}

// structBetween returns the struct text between "request " (or "info ") and
// the marker that follows it.
func structBetween(s []byte, after, before string) []byte {
	i := index(s, after)
	if i < 0 {
		return nil
	}
	s = s[i+len(after):]
	j := index(s, before)
	if j < 0 {
		return nil
	}
	return s[:j]
}

// brokerStateChange: ReplicaManager / MetadataCache lines of broker.md §3.
func (p *Parser) brokerStateChange(pf prefix, s []byte) bool {
	r := &p.rec
	if r.Level == LevelTrace {
		p.Stats.Eras |= EraTrace
	}
	if bytes.HasPrefix(r.Msg, []byte("Broker ")) {
		p.Stats.Eras |= EraBrokerN
	} else {
		p.Stats.Eras |= EraBrokerID
	}
	phase := PhaseNone
	role := RoleUnknown
	switch {
	case has(s, "received LeaderAndIsr request "):
		phase = PhaseReceived
	case has(s, "handling LeaderAndIsr request "):
		if contains(s, "become-leader") {
			phase, role = PhaseHandling, RoleLeader
		} else if contains(s, "become-follower") {
			phase, role = PhaseHandling, RoleFollower
		} else if n, ok := intAfter(s, " for "); ok && bytes.HasSuffix(s, []byte(" partitions")) {
			// 2.6+ request start.
			p.Stats.Eras |= EraRequestInfo
			ev := p.start(KindRequestStart)
			ev.Broker = pf.id
			ev.CorrelationID = correlation(s)
			ev.Count = int32(n)
			controllerFrom(s, ev)
			p.send()
			return true
		}
	case has(s, "stopped fetchers as part of "):
		if contains(s, "become-leader") {
			role = RoleLeader
		} else {
			role = RoleFollower
		}
		if bytes.HasSuffix(s, []byte(" partitions")) && !contains(s, "for partition ") {
			n, _ := lastInt(s)
			ev := p.start(KindRequestPhase)
			if contains(s, "controlled shutdown") {
				// KRaft: this broker is shutting down; its partitions lose it.
				role = RoleFollower
				ev.Cause = CauseControlledShutdown
			}
			ev.Phase = PhaseStoppedFetchers
			ev.Role = role
			ev.Broker = pf.id
			ev.Count = int32(n)
			ev.CorrelationID = correlation(s)
			controllerFrom(s, ev)
			p.send()
			return true
		}
		phase = PhaseStoppedFetchers
	case has(s, "started fetchers as part of "):
		n, _ := lastInt(s)
		ev := p.start(KindRequestPhase)
		ev.Phase = PhaseStartedFetcher
		ev.Role = RoleFollower
		ev.Broker = pf.id
		ev.Count = int32(n)
		p.send()
		return true
	case has(s, "truncated logs and checkpointed recovery boundaries for partition "):
		phase, role = PhaseTruncated, RoleFollower
	case has(s, "started fetcher to new leader "):
		phase, role = PhaseStartedFetcher, RoleFollower
	case has(s, "completed LeaderAndIsr request "):
		phase = PhaseCompleted
		if contains(s, "become-leader") {
			role = RoleLeader
		} else {
			role = RoleFollower
		}
	case has(s, "cached leader info "):
		phase = PhaseCached
	case has(s, "finished LeaderAndIsr request in "):
		p.Stats.Eras |= EraFinished | EraRequestInfo
		ev := p.start(KindRequestFinished)
		ev.Broker = pf.id
		ms, _ := intAfter(s, "request in ")
		ev.Elapsed = time.Duration(ms) * time.Millisecond
		ev.CorrelationID = correlation(s)
		controllerFrom(s, ev)
		if n, ok := intAfter(s, " for "); ok {
			ev.Count = int32(n)
		}
		p.send()
		return true
	case has(s, "Transitioning "):
		p.Stats.Eras |= EraKRaft
		n, _ := intAfter(s, "Transitioning ")
		ev := p.start(KindRequestStart)
		ev.Broker = pf.id
		ev.Count = int32(n)
		if contains(s, "local leaders") {
			ev.Role = RoleLeader
		} else if contains(s, "local followers") {
			ev.Role = RoleFollower
		} else {
			return false
		}
		p.send()
		return true
	case has(s, "Add ") && contains(s, "from metadata cache"):
		// Request-level UpdateMetadata summary (2.6+); names no partitions.
		n, _ := intAfter(s, "Add ")
		ev := p.start(KindRequestPhase)
		ev.Phase = PhaseCached
		ev.Broker = pf.id
		ev.Count = int32(n)
		ev.Metadata = true
		ev.CorrelationID = correlation(s)
		controllerFrom(s, ev)
		p.send()
		return true
	case has(s, "skipped the become-"), has(s, "ignoring "), has(s, "deleted partition "),
		has(s, "handling stop replica"), has(s, "finished handling stop replica"), has(s, "received stop replica"),
		has(s, "received StopReplica"), has(s, "handling StopReplica"), has(s, "Updating log for "),
		has(s, "received update metadata request"), has(s, "Deleting "), has(s, "error "),
		has(s, "unable to "), has(s, "While handling full LeaderAndIsr"), has(s, "Skipped the adding-fetcher"),
		has(s, "received LeaderAndIsrRequest with correlation id"):
		return true
	default:
		return false
	}
	// Per-partition phase line.
	ev := p.start(KindPhase)
	ev.Phase = phase
	ev.Role = role
	ev.Broker = pf.id
	ev.CorrelationID = correlation(s)
	controllerFrom(s, ev)
	switch phase {
	case PhaseReceived:
		st := ParseState(structBetween(s, "request ", " correlation id "))
		p.applyState(ev, st)
		if st.Topic != "" && st.Partition >= 0 && validTopic([]byte(st.Topic)) {
			ev.Topic, ev.Partition = st.Topic, st.Partition
			p.Stats.Eras |= EraGenerated
		} else if contains(s, "PartitionState(") {
			p.Stats.Eras |= EraPartitionState
		}
		if st.Leader != Unknown && pf.id != Unknown {
			if st.Leader == pf.id {
				ev.Role = RoleLeader
			} else {
				ev.Role = RoleFollower
			}
		}
	case PhaseCached:
		st := ParseState(structBetween(s, "info ", " for partition "))
		p.applyState(ev, st)
		ev.Metadata = true
	}
	if ev.Topic == "" {
		t, part, ok := p.partitionAfter(s, "for partition ")
		if !ok {
			return false
		}
		ev.Topic, ev.Partition = t, part
		if contains(s, "for partition [") {
			p.Stats.Eras |= EraBracketTP
		} else if bytes.HasPrefix(r.Msg, []byte("Broker ")) {
			p.Stats.Eras |= EraTPInTransition
		}
	}
	if ev.Leader == Unknown {
		// " with leader L", else " with leader BrokerEndPoint(id=L": the
		// first of those is at or after the first of these.
		if i := index(s, " with leader "); i >= 0 {
			if v, _, ok := leadingInt(s[i+len(" with leader "):]); ok {
				ev.Leader = int32(v)
			} else if v, ok := intAfter(s[i:], " with leader BrokerEndPoint(id="); ok {
				ev.Leader = int32(v)
			}
		}
	}
	if ev.Role == RoleLeader && ev.Leader == Unknown {
		ev.Leader = pf.id
	}
	p.send()
	return true
}

// lastInt returns the last integer in s (the "N" of "... for N partitions").
func lastInt(s []byte) (int64, bool) {
	end := len(s)
	for end > 0 && (s[end-1] < '0' || s[end-1] > '9') {
		end--
	}
	st := end
	for st > 0 && s[st-1] >= '0' && s[st-1] <= '9' {
		st--
	}
	if st == end {
		return 0, false
	}
	v, _, ok := leadingInt(s[st:end])
	return v, ok
}

// partitionLine: the Partition "starts at leader epoch" lines (broker.md
// §3.7), in server.log (0.11–2.5) and state-change.log (2.6+, KRaft).
func (p *Parser) partitionLine(pf prefix, s []byte) bool {
	var role Role
	body := s
	switch {
	case bytes.HasPrefix(s, []byte("Leader ")):
		role, body = RoleLeader, s[len("Leader "):]
	case bytes.HasPrefix(s, []byte("Follower ")):
		role, body = RoleFollower, s[len("Follower "):]
	default:
		// "t-p starts at Leader Epoch E ..." (0.11–2.5, server.log): leader side.
		if !contains(s, " starts at ") {
			return false
		}
		role = RoleLeader
	}
	sp := bytes.IndexByte(body, ' ')
	if sp <= 0 {
		return false
	}
	i := index(body, "starts at ")
	if i < 0 {
		return false
	}
	t, part, ok := p.topicPartition(body[:sp])
	if !ok {
		return false
	}
	at := body[i+len("starts at "):]
	var epoch int64
	switch {
	case bytes.HasPrefix(at, []byte("leader epoch ")):
		epoch, _, ok = leadingInt(at[len("leader epoch "):])
	case bytes.HasPrefix(at, []byte("Leader Epoch ")):
		epoch, _, ok = leadingInt(at[len("Leader Epoch "):])
		p.Stats.Eras |= EraLeaderEpochServerLog
	default:
		return false
	}
	if !ok {
		return false
	}
	// An era once marked is not looked for again: these searches run
	// over every epoch line of a state-change.log.
	if p.Stats.Eras&EraTopicID == 0 && contains(body, "with topic id ") {
		p.Stats.Eras |= EraTopicID
	}
	if p.Stats.Eras&EraPreviousLeader == 0 && (contains(body, "Previous leader Some(") || contains(body, "Previous leader None")) {
		p.Stats.Eras |= EraPreviousLeader
	}
	ev := p.start(KindPhase)
	ev.Phase = PhaseEpochStart
	ev.Role = role
	ev.Broker = pf.id
	ev.Topic, ev.Partition = t, part
	ev.LeaderEpoch = int32(epoch)
	if role == RoleLeader {
		ev.Leader = pf.id
	} else if v, ok := intAfter(body, "Current leader is "); ok {
		ev.Leader = int32(v)
	}
	if role == RoleLeader {
		if isr := index(body, " ISR "); isr >= 0 {
			// 2.6+ prints isr.mkString("[", ",", "]") (3.x then ", adding
			// replicas"); 2.4/2.5 a bare "0": a bracketed list ends at ']'.
			v := body[isr+5:]
			e := bytes.IndexAny(v, " ,")
			if len(v) > 0 && v[0] == '[' {
				e = bytes.IndexByte(v, ']') + 1
			}
			if e > 0 {
				ev.ISR = parseIntList(v[:e])
			}
		}
	}
	p.send()
	return true
}

// partitionMisc: other kafka.cluster.Partition lines we understand but do
// not turn into events yet (ISR changes are a later concern).
func (p *Parser) partitionMisc(pf prefix, s []byte) bool {
	switch {
	case bytes.HasPrefix(s, []byte("Shrinking ISR")), bytes.HasPrefix(s, []byte("Expanding ISR")),
		bytes.HasPrefix(s, []byte("ISR updated")), bytes.HasPrefix(s, []byte("Cached zkVersion")),
		bytes.HasPrefix(s, []byte("Skipped the become-")), bytes.HasPrefix(s, []byte("The topic partition ")),
		bytes.HasPrefix(s, []byte("Failed to ")), bytes.HasPrefix(s, []byte("A ZooKeeper client exception")):
		return true
	}
	return !leadershipAnchor(s)
}
