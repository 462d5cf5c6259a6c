package parser

import (
	"bytes"
)

// zkControllerStateChange: the ZooKeeper controller's lines in
// state-change.log (broker.md §4.1–4.3).
func (p *Parser) zkControllerStateChange(pf prefix, s []byte) bool {
	switch {
	case has(s, "changed partition "), has(s, "Changed partition "):
		return p.changedPartition(pf, s)
	case has(s, "sending become-leader LeaderAndIsr request "), has(s, "sending become-follower LeaderAndIsr request "):
		ev := p.start(KindDecision)
		ev.Controller, ev.ControllerEpoch = pf.id, pf.epoch
		st := ParseState(structBetween(s, "LeaderAndIsr request ", " to broker "))
		p.applyState(ev, st)
		if b, ok := intAfter(s, " to broker "); ok {
			ev.Broker = int32(b)
		}
		if contains(s[:min(len(s), 32)], "become-leader") {
			ev.Role = RoleLeader
		} else {
			ev.Role = RoleFollower
		}
		if st.Topic != "" && st.Partition >= 0 && validTopic([]byte(st.Topic)) {
			ev.Topic, ev.Partition = st.Topic, st.Partition
		} else if t, part, ok := p.partitionAfter(s, "for partition "); ok {
			ev.Topic, ev.Partition = t, part
		} else {
			return false
		}
		ev.CorrelationID = correlation(s)
		if v, ok := intAfter(s, "with correlationId "); ok {
			ev.CorrelationID = v
		}
		p.send()
		return true
	case has(s, "sending UpdateMetadata request "):
		if bytes.HasSuffix(s, []byte(" partitions")) && !contains(s, "for partition ") {
			// 2.6+ request-level summary: "Sending UpdateMetadata request to
			// brokers Set(1, 2, 3) for N partitions". The timeline ties it to
			// the decisions just logged and to each broker's "Add N partitions".
			ev := p.start(KindRequestPhase)
			ev.Phase = PhaseCached
			ev.Metadata = true
			ev.Controller, ev.ControllerEpoch = pf.id, pf.epoch
			if i := index(s, "to brokers "); i >= 0 {
				rest := s[i+len("to brokers "):]
				if j := index(rest, " for "); j >= 0 {
					ev.Subjects = parseIntList(rest[:j])
				}
			}
			n, _ := lastInt(s)
			ev.Count = int32(n)
			if n == 0 || len(ev.Subjects) == 0 {
				return true
			}
			p.send()
			return true
		}
		ev := p.start(KindDecision)
		ev.Controller, ev.ControllerEpoch = pf.id, pf.epoch
		ev.Metadata = true
		st := ParseState(structBetween(s, "UpdateMetadata request ", " to broker"))
		p.applyState(ev, st)
		t, part, ok := p.partitionAfter(s, "for partition ")
		if !ok {
			return false
		}
		ev.Topic, ev.Partition = t, part
		p.send()
		return true
	case has(s, "elected leader "):
		// "elected leader L for Offline partition TP" (≤1.0): no epoch.
		ev := p.start(KindDecision)
		ev.Controller, ev.ControllerEpoch = pf.id, pf.epoch
		ev.Leader = int32After(s, "lected leader ")
		ev.Cause = CauseOfflinePartition
		t, part, ok := p.partitionAfter(s, " partition ")
		if !ok {
			return false
		}
		ev.Topic, ev.Partition = t, part
		p.send()
		return true
	case has(s, "Partition ") && contains(s, " state changed to "):
		// 2.6+: "Partition t-p state changed to (Leader:L,ISR:..,LeaderEpoch:E,...)
		// after removing replica R from the ISR as part of transition to OfflineReplica"
		t, part, ok := p.partitionAfter(s, "Partition ")
		if !ok {
			return false
		}
		ev := p.start(KindDecision)
		ev.Controller, ev.ControllerEpoch = pf.id, pf.epoch
		p.applyState(ev, ParseState(structBetween(s, "state changed to ", " after removing")))
		ev.Topic, ev.Partition = t, part
		if r, ok := intAfter(s, "after removing replica "); ok {
			ev.Subjects = []int32{int32(r)}
		}
		// The replica went offline through a failure or a controlled
		// shutdown: the controller's trigger says which.
		p.send()
		return true
	case has(s, "sending LeaderAndIsr request to broker"), has(s, "changed state of replica "),
		has(s, "started leader election for partition "), has(s, "received response "),
		has(s, "initiated state change "), has(s, "encountered error "), has(s, "sending StopReplica"),
		has(s, "failed to change state"), has(s, "Controller "), has(s, "Not sending request"),
		has(s, "sending stop replica"), has(s, "Leader and isr for partition"):
		return true
	}
	return false
}

// changedPartition: "changed partition TP from X to Y with state LeaderAndIsr(...)",
// "... with leader L" (≤1.0), "... state from X to Y [with assigned replicas R]".
func (p *Parser) changedPartition(pf prefix, s []byte) bool {
	rest := s[len("changed partition "):]
	// TP runs to the next space.
	sp := bytes.IndexByte(rest, ' ')
	if sp <= 0 {
		return false
	}
	t, part, ok := p.topicPartition(rest[:sp])
	if !ok {
		return false
	}
	rest = rest[sp+1:]
	from, to := stateNames(rest)
	if !bytes.Equal(to, []byte("OnlinePartition")) {
		// To Offline / NonExistent / New: no leader chosen.
		return true
	}
	ev := p.start(KindDecision)
	ev.Controller, ev.ControllerEpoch = pf.id, pf.epoch
	ev.Topic, ev.Partition = t, part
	switch {
	case bytes.Equal(from, []byte("OfflinePartition")):
		ev.Cause = CauseOfflinePartition
	case bytes.Equal(from, []byte("NewPartition")):
		ev.Cause = CauseNewPartition
	}
	if i := index(rest, " with state "); i >= 0 {
		p.applyState(ev, ParseState(rest[i+len(" with state "):]))
	} else if v, ok := intAfter(rest, " with leader "); ok {
		ev.Leader = int32(v)
	} else {
		// "... with assigned replicas R": state only, no leader yet.
		return true
	}
	p.send()
	return true
}

// stateNames reads "from X to Y" or "state from X to Y".
func stateNames(s []byte) (from, to []byte) {
	i := index(s, "from ")
	if i < 0 {
		return nil, nil
	}
	s = s[i+5:]
	sp := bytes.IndexByte(s, ' ')
	if sp < 0 {
		return s, nil
	}
	from = s[:sp]
	s = s[sp+1:]
	if !bytes.HasPrefix(s, []byte("to ")) {
		return from, nil
	}
	s = s[3:]
	if sp := bytes.IndexByte(s, ' '); sp >= 0 {
		s = s[:sp]
	}
	return from, s
}

// jsonLeaderAndIsr reads {"leader":L,"leader_epoch":E,"isr":[...]} after marker.
func jsonAfter(s []byte, marker string) []byte {
	i := index(s, marker)
	if i < 0 {
		return nil
	}
	s = s[i+len(marker):]
	j := bytes.IndexByte(s, '}')
	if j < 0 {
		return nil
	}
	return s[:j+1]
}

// zkController: controller.log lines of the ZooKeeper controller (§4.4, §4.5).
func (p *Parser) zkController(pf prefix, s []byte) bool {
	trigger := func(c Cause, subjects []int32) {
		ev := p.start(KindTrigger)
		ev.Controller = pf.id
		ev.Cause = c
		ev.Subjects = subjects
		p.send()
	}
	switch {
	case bytes.HasPrefix(s, []byte("Newly added brokers: ")):
		added := listBetween(s, "Newly added brokers: ")
		deleted := listBetween(s, "deleted brokers: ")
		if len(deleted) > 0 {
			trigger(CauseBrokerFailure, deleted)
		}
		if len(added) > 0 {
			trigger(CauseBrokerStartup, added)
		}
		return true
	case bytes.HasPrefix(s, []byte("Broker failure callback for ")):
		trigger(CauseBrokerFailure, parseIntList(s[len("Broker failure callback for "):]))
		return true
	case bytes.HasPrefix(s, []byte("New broker startup callback for ")):
		trigger(CauseBrokerStartup, parseIntList(s[len("New broker startup callback for "):]))
		return true
	case bytes.HasPrefix(s, []byte("Shutting down broker ")):
		trigger(CauseControlledShutdown, parseIntList(s[len("Shutting down broker "):]))
		return true
	case bytes.HasPrefix(s, []byte("Processing automatic preferred replica leader election")):
		trigger(CausePreferred, nil)
		return true
	case bytes.HasPrefix(s, []byte("Starting preferred replica leader election")),
		bytes.HasPrefix(s, []byte("Starting replica leader election (")):
		c := CausePreferred
		if bytes.HasPrefix(s, []byte("Starting replica leader election (UNCLEAN)")) {
			c = CauseUnclean
		}
		trigger(c, nil)
		// The partitions it names start their elections here: one
		// trigger per partition, which the timeline takes as each
		// election's first line.
		if i := index(s, "for partitions "); i >= 0 {
			list := s[i+len("for partitions "):]
			if j := index(list, " triggered by "); j >= 0 {
				list = list[:j]
			}
			p.eachTP(list, func(t string, part int32) {
				ev := p.start(KindTrigger)
				ev.Controller = pf.id
				ev.Cause = c
				ev.Topic, ev.Partition = t, part
				p.send()
			})
		}
		return true
	case bytes.HasPrefix(s, []byte("Currently active brokers in the cluster: ")):
		// The live brokers a new controller found: a partition whose
		// leader is not among them lost it to a broker failure.
		ev := p.start(KindControllerChange)
		ev.Controller = pf.id
		ev.Subjects = parseIntList(s[len("Currently active brokers in the cluster: "):])
		if ev.Subjects == nil {
			ev.Subjects = []int32{}
		}
		p.send()
		return true
	case bytes.HasPrefix(s, []byte("Current leader ")) && contains(s, "is not the preferred replica"):
		p.partitionTrigger(pf, s, CausePreferred, "Current leader ")
		return true
	case bytes.HasPrefix(s, []byte("Partition ")) && contains(s, "completed preferred replica leader election"):
		t, part, ok := p.partitionAfter(s, "Partition ")
		if !ok {
			return false
		}
		ev := p.start(KindDecision)
		ev.Controller = pf.id
		ev.Topic, ev.Partition = t, part
		ev.Cause = CausePreferred
		if v, ok := intAfter(s, "New leader is "); ok {
			ev.Leader = int32(v)
		}
		p.send()
		return true
	case bytes.HasPrefix(s, []byte("Leader ")) && contains(s, "being reassigned"):
		p.partitionTrigger(pf, s, CauseReassignment, "Leader ")
		return true
	case bytes.HasPrefix(s, []byte("No broker in ISR is alive for ")):
		// Unclean election (≤1.0): "... Elect leader L from live brokers ... There's potential data loss."
		t, part, ok := p.partitionAfter(s, "is alive for ")
		if !ok {
			return false
		}
		ev := p.start(KindDecision)
		ev.Controller = pf.id
		ev.Topic, ev.Partition = t, part
		ev.Cause = CauseUnclean
		ev.Unclean = true
		if v, ok := intAfter(s, "Elect leader "); ok {
			ev.Leader = int32(v)
		}
		p.send()
		return true
	case bytes.HasPrefix(s, []byte("Selected new leader and ISR ")),
		bytes.HasPrefix(s, []byte("New leader and ISR for partition ")),
		bytes.HasPrefix(s, []byte("Initializing leader and isr for partition ")),
		bytes.HasPrefix(s, []byte("After leader election, leader cache for ")):
		return p.controllerLeaderLine(pf, s)
	case contains(s, "successfully elected as the controller"),
		bytes.HasPrefix(s, []byte("Broker ")) && contains(s, "starting become controller state transition"):
		ev := p.start(KindControllerChange)
		ev.Lifecycle = LifeControllerElected
		if v, _, ok := leadingInt(s); ok {
			ev.Controller = int32(v)
		} else if v, ok := intAfter(s, "Broker "); ok {
			ev.Controller = int32(v)
		} else {
			ev.Controller = pf.id
		}
		if v, ok := intAfter(s, "Epoch incremented to "); ok {
			ev.ControllerEpoch = int32(v)
		}
		p.Stats.Controllers = addID(p.Stats.Controllers, ev.Controller)
		p.send()
		return true
	case bytes.HasPrefix(s, []byte("Incremented epoch to ")):
		// 1.0–2.0: the new controller's epoch, logged during failover.
		ev := p.start(KindControllerChange)
		ev.Lifecycle = LifeControllerElected
		ev.Controller = pf.id
		ev.ControllerEpoch = int32After(s, "Incremented epoch to ")
		p.send()
		return true
	case contains(s, "ready to serve as the new controller with epoch "),
		bytes.HasPrefix(s, []byte("Ready to serve as the new controller with epoch ")):
		ev := p.start(KindControllerChange)
		ev.Lifecycle = LifeControllerElected
		ev.Controller = pf.id
		if pf.id == Unknown {
			if v, ok := intAfter(s, "Broker "); ok {
				ev.Controller = int32(v)
			}
		}
		if v, ok := intAfter(s, "with epoch "); ok {
			ev.ControllerEpoch = int32(v)
		}
		p.send()
		return true
	case bytes.HasPrefix(s, []byte("ISR for partition ")) && contains(s, " updated to "):
		// DEBUG (3.x ZK): the controller rewrote the ISR; leader and epoch as stored.
		t, part, ok := p.partitionAfter(s, "ISR for partition ")
		if !ok {
			return false
		}
		ev := p.start(KindDecision)
		ev.Controller = pf.id
		ev.Metadata = true
		p.applyState(ev, ParseState(s[index(s, " updated to "):]))
		ev.Topic, ev.Partition = t, part
		p.send()
		return true
	case bytes.Equal(s, []byte("Resigned")), contains(s, "resigned as the controller"):
		ev := p.start(KindControllerChange)
		ev.Lifecycle = LifeControllerResigned
		ev.Controller = pf.id
		p.send()
		return true
	}
	return !leadershipAnchor(s)
}

// partitionTrigger: a controller line that names one partition and its
// current (soon previous) leader before moving it: "Current leader L for
// partition t-p is not the preferred replica", "Leader L for partition t-p
// being reassigned".
func (p *Parser) partitionTrigger(pf prefix, s []byte, c Cause, leaderMarker string) {
	ev := p.start(KindTrigger)
	ev.Controller = pf.id
	ev.Cause = c
	if v, ok := intAfter(s, leaderMarker); ok {
		ev.PrevLeader = int32(v)
	}
	if t, part, ok := p.partitionAfter(s, "for partition "); ok {
		ev.Topic, ev.Partition = t, part
	}
	p.send()
}

// controllerLeaderLine: 0.8–1.0 controller.log lines that carry a leader
// and epoch (broker.md §4.4 and §10).
func (p *Parser) controllerLeaderLine(pf prefix, s []byte) bool {
	ev := p.start(KindDecision)
	ev.Controller = pf.id
	var st PartitionState
	var tp []byte
	switch {
	case bytes.HasPrefix(s, []byte("Selected new leader and ISR ")):
		st = ParseState(jsonAfter(s, "ISR "))
		if i := index(s, " for offline partition "); i >= 0 {
			tp = s[i+len(" for offline partition "):]
			ev.Cause = CauseOfflinePartition
		} else if i := bytes.LastIndex(s, []byte(" for ")); i >= 0 {
			tp = s[i+5:]
		}
	case bytes.HasPrefix(s, []byte("New leader and ISR for partition ")):
		rest := s[len("New leader and ISR for partition "):]
		if sp := bytes.IndexByte(rest, ' '); sp > 0 {
			tp = rest[:sp]
		}
		st = ParseState(jsonAfter(s, " is "))
	case bytes.HasPrefix(s, []byte("Initializing leader and isr for partition ")):
		rest := s[len("Initializing leader and isr for partition "):]
		if sp := bytes.IndexByte(rest, ' '); sp > 0 {
			tp = rest[:sp]
		}
		st = ParseState(rest)
		ev.Cause = CauseNewPartition
	case bytes.HasPrefix(s, []byte("After leader election, leader cache for ")):
		rest := s[len("After leader election, leader cache for "):]
		if sp := bytes.IndexByte(rest, ' '); sp > 0 {
			tp = rest[:sp]
		}
		st = ParseState(rest)
	}
	t, part, ok := p.topicPartition(bytes.TrimRight(tp, "."))
	if !ok {
		return false
	}
	p.applyState(ev, st)
	ev.Topic, ev.Partition = t, part
	p.send()
	return true
}

// listBetween reads the comma-separated ids right after marker.
func listBetween(s []byte, marker string) []int32 {
	i := index(s, marker)
	if i < 0 {
		return nil
	}
	s = s[i+len(marker):]
	end := 0
	for end < len(s) && (s[end] == ',' || (s[end] >= '0' && s[end] <= '9')) {
		end++
	}
	if end == 0 {
		return nil
	}
	return parseIntList(s[:end])
}

// kraftController: org.apache.kafka.controller.* lines (broker.md §5, §10).
func (p *Parser) kraftController(pf prefix, s []byte) bool {
	trigger := func(c Cause, subjects []int32, n int64) {
		ev := p.start(KindTrigger)
		ev.Controller = pf.id
		ev.Cause = c
		ev.Subjects = subjects
		ev.Count = int32(n)
		p.send()
	}
	switch {
	case bytes.HasPrefix(s, []byte("Fencing broker ")):
		// A line cut before the id names no broker: unparsed, not broker 0.
		v := int32After(s, "Fencing broker ")
		if v == Unknown {
			return false
		}
		trigger(CauseBrokerFenced, []int32{v}, 0)
		ev := p.start(KindBrokerLifecycle)
		ev.Lifecycle = LifeFenced
		ev.Broker = v
		ev.Controller = pf.id
		p.send()
		return true
	case bytes.HasPrefix(s, []byte("handleBrokerFenced: changing ")):
		n, _ := intAfter(s, "changing ")
		trigger(CauseBrokerFenced, nil, n)
		return true
	case bytes.HasPrefix(s, []byte("handleBrokerUnfenced: changing ")):
		n, _ := intAfter(s, "changing ")
		trigger(CauseBrokerUnfenced, nil, n)
		return true
	case bytes.HasPrefix(s, []byte("handleBrokerUnregistered: changing ")), bytes.HasPrefix(s, []byte("handleBrokerUncleanShutdown: changing ")):
		n, _ := intAfter(s, "changing ")
		trigger(CauseBrokerFailure, nil, n)
		return true
	case bytes.HasPrefix(s, []byte("enterControlledShutdown[")):
		v := int32After(s, "enterControlledShutdown[")
		if v == Unknown {
			return false
		}
		n, _ := intAfter(s, "changing ")
		trigger(CauseControlledShutdown, []int32{v}, n)
		return true
	case bytes.HasPrefix(s, []byte("maybeBalancePartitionLeaders: generated ")):
		if n, _ := intAfter(s, "generated "); n > 0 {
			trigger(CausePreferred, nil, n)
		}
		return true
	case bytes.HasPrefix(s, []byte("maybeElectUncleanLeaders: generated ")):
		if n, _ := intAfter(s, "generated "); n > 0 {
			trigger(CauseUnclean, nil, n)
		}
		return true
	case bytes.HasPrefix(s, []byte("UNCLEAN partition change for ")), bytes.HasPrefix(s, []byte("partition change for ")):
		unclean := s[0] == 'U'
		rest := s[index(s, "change for ")+len("change for "):]
		sp := bytes.IndexByte(rest, ' ')
		if sp <= 0 {
			return false
		}
		t, part, ok := p.topicPartition(rest[:sp])
		if !ok {
			return false
		}
		c := index(rest, ": ")
		if c < 0 {
			return false
		}
		d := parseDiff(rest[c+2:])
		if d.leader == Unknown && d.epoch == Unknown {
			return true // ISR-only change
		}
		ev := p.start(KindDecision)
		ev.Controller = pf.id
		ev.Topic, ev.Partition = t, part
		ev.Leader, ev.PrevLeader, ev.LeaderEpoch = d.leader, d.prevLeader, d.epoch
		ev.ISR = d.isr
		ev.Unclean = unclean
		if unclean {
			ev.Cause = CauseUnclean
		}
		p.send()
		return true
	case bytes.HasPrefix(s, []byte("Replayed PartitionRecord for new partition ")):
		if p.snapshot {
			return true // replaying old state, not a new decision
		}
		rest := s[len("Replayed PartitionRecord for new partition "):]
		sp := bytes.IndexByte(rest, ' ')
		if sp <= 0 {
			return false
		}
		t, part, ok := p.topicPartition(rest[:sp])
		if !ok {
			return false
		}
		ev := p.start(KindDecision)
		ev.Controller = pf.id
		ev.Topic, ev.Partition = t, part
		p.applyState(ev, ParseState(rest))
		ev.Cause = CauseNewPartition
		p.send()
		return true
	case bytes.HasPrefix(s, []byte("Starting to load snapshot")), bytes.HasPrefix(s, []byte("Starting loading snapshot")):
		p.snapshot = true
		return true
	case bytes.HasPrefix(s, []byte("Successfully loaded snapshot")), bytes.HasPrefix(s, []byte("Finished loading snapshot")):
		p.snapshot = false
		return true
	case bytes.HasPrefix(s, []byte("Becoming the active controller at epoch ")), bytes.HasPrefix(s, []byte("Becoming active at controller epoch ")):
		ev := p.start(KindControllerChange)
		ev.Lifecycle = LifeQuorumLeader
		ev.Controller = pf.id
		ev.ControllerEpoch = int32After(s, "epoch ")
		p.send()
		return true
	case bytes.HasPrefix(s, []byte("In the new epoch ")):
		ev := p.start(KindControllerChange)
		ev.Lifecycle = LifeQuorumLeader
		ev.ControllerEpoch = int32After(s, "In the new epoch ")
		ev.Controller = Unknown
		if l, ok := intAfter(s, "the leader is "); ok {
			ev.Controller = int32(l)
		}
		p.send()
		return true
	case bytes.HasPrefix(s, []byte("Renouncing the leadership")):
		ev := p.start(KindControllerChange)
		ev.Lifecycle = LifeControllerResigned
		ev.Controller = pf.id
		p.send()
		return true
	case bytes.HasPrefix(s, []byte("Replayed BrokerRegistrationChangeRecord")):
		b := int32After(s, "brokerId=")
		if b == Unknown {
			return false
		}
		ev := p.start(KindBrokerLifecycle)
		ev.Broker = b
		ev.Controller = pf.id
		switch {
		case contains(s, "fenced=1"):
			ev.Lifecycle = LifeFenced
		case contains(s, "fenced=-1"):
			ev.Lifecycle = LifeUnfenced
		case contains(s, "inControlledShutdown=1"):
			ev.Lifecycle = LifeControlledShutdown
		default:
			return true
		}
		p.send()
		return true
	case bytes.HasPrefix(s, []byte("Unfenced broker ")) && contains(s, "controlled shutdown"):
		v := int32After(s, "Unfenced broker ")
		if v == Unknown {
			return false
		}
		trigger(CauseControlledShutdown, []int32{v}, 0)
		return true
	case bytes.HasPrefix(s, []byte("Setting new leader for topicId ")) && contains(s, "unclean election"):
		trigger(CauseUnclean, nil, 1)
		return true
	}
	return !leadershipAnchor(s)
}

type diff struct {
	leader, prevLeader, epoch int32
	isr                       []int32
}

// parseDiff reads PartitionRegistration.diff output:
// "isr: [1, 2, 3] -> [2, 3], leader: 1 -> 2, leaderEpoch: 13 -> 14, partitionEpoch: 40 -> 41".
func parseDiff(s []byte) diff {
	d := diff{leader: Unknown, prevLeader: Unknown, epoch: Unknown}
	field := func(name string) (old, new []byte, ok bool) {
		i := index(s, name+": ")
		for i > 0 && s[i-1] != ' ' {
			j := index(s[i+1:], name+": ")
			if j < 0 {
				return nil, nil, false
			}
			i += 1 + j
		}
		if i < 0 {
			return nil, nil, false
		}
		v := s[i+len(name)+2:]
		a := index(v, " -> ")
		if a < 0 {
			return nil, nil, false
		}
		old = v[:a]
		v = v[a+4:]
		end := len(v)
		depth := 0
		for k, c := range v {
			if c == '[' {
				depth++
			} else if c == ']' {
				depth--
			} else if c == ',' && depth == 0 {
				end = k
				break
			}
		}
		return old, v[:end], true
	}
	if o, n, ok := field("leader"); ok {
		d.prevLeader, d.leader = atoi32(o), atoi32(n)
	}
	if _, n, ok := field("leaderEpoch"); ok {
		d.epoch = atoi32(n)
	}
	if _, n, ok := field("isr"); ok {
		d.isr = parseIntList(n)
	}
	return d
}

// serverLine: broker lifecycle lines of server.log (§6.5, §6.6).
func (p *Parser) serverLine(pf prefix, s []byte) bool {
	if !serverReads(s) {
		// serverStarts and serverWords, which the fast path shares, name
		// every message a case below reads.
		return true
	}
	life := LifeNone
	switch {
	case bytes.Equal(s, []byte("starting")), bytes.Equal(s, []byte("Starting broker")):
		life = LifeStarting
	case bytes.Equal(s, []byte("started")), bytes.HasPrefix(s, []byte("Kafka Server started")), bytes.Equal(s, []byte("Transition from STARTING to STARTED")):
		life = LifeStarted
	case bytes.Equal(s, []byte("shutting down")):
		life = LifeShuttingDown
	case bytes.Equal(s, []byte("shut down completed")):
		life = LifeShutdown
	case bytes.HasPrefix(s, []byte("Starting controlled shutdown")), bytes.HasPrefix(s, []byte("Beginning controlled shutdown")):
		life = LifeControlledShutdown
	case bytes.HasPrefix(s, []byte("Session expired")), contains(s, "zookeeper state changed (Expired)"):
		life = LifeSessionExpired
	case bytes.HasPrefix(s, []byte("Registered broker ")), bytes.HasPrefix(s, []byte("Successfully registered broker ")):
		life = LifeRegistered
		if v, ok := intAfter(s, "registered broker "); ok && pf.id == Unknown {
			pf.id = int32(v)
		} else if v, ok := intAfter(s, "Registered broker "); ok && pf.id == Unknown {
			pf.id = int32(v)
		}
	case bytes.HasPrefix(s, []byte("The broker has been unfenced")):
		life = LifeUnfenced
	case bytes.HasPrefix(s, []byte("Transitioning from ")) && bytes.HasSuffix(bytes.TrimRight(s, "."), []byte("to SHUTTING_DOWN")):
		// KRaft BrokerLifecycleManager: the broker is going down.
		life = LifeShuttingDown
	case bytes.HasPrefix(s, []byte("Produce request with correlation id ")) && contains(s, "Leader not local for partition"):
		// 0.8.2–0.9 brokers log the rejected produce (broker.md §6.7).
		p.Stats.Eras |= EraLeaderNotLocal
		t, part, ok := p.partitionAfter(s, " on partition ")
		if !ok {
			return false
		}
		ev := p.start(KindProducerError)
		ev.Topic, ev.Partition = t, part
		ev.Error = "NOT_LEADER_FOR_PARTITION"
		ev.Broker = pf.id
		if c, ok := tokenAfter(s, " from client "); ok {
			ev.ClientID = string(c)
		}
		if v, ok := intAfter(s, "correlation id "); ok {
			ev.CorrelationID = v
		}
		p.send()
		return true
	default:
		// The busiest logger family of a server.log (ReplicaManager,
		// KafkaApis, ...): no leadership line of ours is left here, so no
		// anchor scan either.
		return true
	}
	ev := p.start(KindBrokerLifecycle)
	ev.Lifecycle = life
	ev.Broker = p.brokerOf(pf.id)
	if pf.id != Unknown {
		p.Stats.Brokers = addID(p.Stats.Brokers, pf.id)
	}
	p.send()
	return true
}

// quorumLine: KRaft Raft transitions (controller quorum, never partitions).
func (p *Parser) quorumLine(pf prefix, s []byte) bool {
	if !bytes.HasPrefix(s, []byte("Completed transition to Leader(")) {
		return true
	}
	ev := p.start(KindControllerChange)
	ev.Lifecycle = LifeQuorumLeader
	ev.Controller = pf.id
	if v, ok := intAfter(s, "localId="); ok {
		ev.Controller = int32(v)
	} else if v, ok := intAfter(s, "ReplicaKey(id="); ok {
		ev.Controller = int32(v)
	}
	if v, ok := intAfter(s, "epoch="); ok {
		ev.ControllerEpoch = int32(v)
	}
	if ev.Controller != Unknown && ev.Controller == pf.id {
		// The node's own Raft state: only a voter becomes leader, so the
		// file is a controller's (045).
		p.Stats.Controllers = addID(p.Stats.Controllers, pf.id)
	}
	p.send()
	return true
}
