package gen

// Renderings of the structs that ZooKeeper-mode Kafka embeds in leadership
// lines. Every function cites the version whose toString it reproduces; the
// formats are listed in shared/formats/broker.md §2.2 and were checked
// against the Kafka source at the era's tag.

// Logger names.
const (
	lgSC          = "state.change.logger"
	lgKC          = "kafka.controller.KafkaController"
	lgPSM         = "kafka.controller.PartitionStateMachine"
	lgRSM         = "kafka.controller.ReplicaStateMachine"
	lgBrokerChg   = "kafka.controller.ReplicaStateMachine$BrokerChangeListener" // 0.10.2 inner class
	lgOfflineSel  = "kafka.controller.OfflinePartitionLeaderSelector"
	lgPrefSel     = "kafka.controller.PreferredReplicaPartitionLeaderSelector"
	lgCSSel       = "kafka.controller.ControlledShutdownLeaderSelector"
	lgFetcherMgr  = "kafka.server.ReplicaFetcherManager"
	lgFetcher     = "kafka.server.ReplicaFetcherThread"
	lgPartition   = "kafka.cluster.Partition"
	lgLog         = "kafka.log.Log"
	lgUnifiedLog  = "kafka.log.UnifiedLog"
	lgKafkaServer = "kafka.server.KafkaServer"
	lgKafkaConfig = "kafka.server.KafkaConfig"
	lgLogManager  = "kafka.log.LogManager"
)

// zkState is a snapshot of one partition's leadership as sent in a request.
type zkState struct {
	leader int32
	epoch  int32
	isr    []int32
	zkv    int32
	cep    int32 // epoch of the controller that wrote this leadership
}

// appendLICE renders LeaderIsrAndControllerEpoch:
// 0.8.2-2.6 "(Leader:2,ISR:2,3,LeaderEpoch:14,ControllerEpoch:27)",
// 2.7-3.1   "(Leader:2,ISR:2,3,LeaderEpoch:14,ZkVersion:41,ControllerEpoch:27)".
func appendLICE(b []byte, s *zkState, withZkVersion bool) []byte {
	b = append(b, "(Leader:"...)
	b = ai32(b, s.leader)
	b = append(b, ",ISR:"...)
	b = appendInts(b, s.isr, ",")
	b = append(b, ",LeaderEpoch:"...)
	b = ai32(b, s.epoch)
	if withZkVersion {
		b = append(b, ",ZkVersion:"...)
		b = ai32(b, s.zkv)
	}
	b = append(b, ",ControllerEpoch:"...)
	b = ai32(b, s.cep)
	return append(b, ')')
}

// appendPSI010 renders 0.10.2 kafka.api.PartitionStateInfo (unbalanced ')' verbatim).
func appendPSI010(b []byte, s *zkState, replicas []int32) []byte {
	b = append(b, "(LeaderAndIsrInfo:"...)
	b = appendLICE(b, s, false)
	b = append(b, ",ReplicationFactor:"...)
	b = ai(b, int64(len(replicas)))
	b = append(b, "),AllReplicas:"...)
	b = appendInts(b, replicas, ",")
	return append(b, ')')
}

// appendPS010 renders 0.10.x o.a.k.common.requests.PartitionState.
func appendPS010(b []byte, s *zkState, replicas []int32) []byte {
	b = append(b, "PartitionState(controllerEpoch="...)
	b = ai32(b, s.cep)
	b = append(b, ", leader="...)
	b = ai32(b, s.leader)
	b = append(b, ", leaderEpoch="...)
	b = ai32(b, s.epoch)
	b = append(b, ", isr=["...)
	b = appendInts(b, s.isr, ", ")
	b = append(b, "], zkVersion="...)
	b = ai32(b, s.zkv)
	b = append(b, ", replicas=["...)
	b = appendInts(b, replicas, ", ")
	return append(b, "])"...)
}

// appendLisrPS23 renders 1.0-2.3 LeaderAndIsrRequest.PartitionState
// ("isr=2,3 ... replicas=2,3,1, isNew=false").
func appendLisrPS23(b []byte, s *zkState, replicas []int32, isNew bool) []byte {
	b = append(b, "PartitionState(controllerEpoch="...)
	b = ai32(b, s.cep)
	b = append(b, ", leader="...)
	b = ai32(b, s.leader)
	b = append(b, ", leaderEpoch="...)
	b = ai32(b, s.epoch)
	b = append(b, ", isr="...)
	b = appendInts(b, s.isr, ",")
	b = append(b, ", zkVersion="...)
	b = ai32(b, s.zkv)
	b = append(b, ", replicas="...)
	b = appendInts(b, replicas, ",")
	if isNew {
		return append(b, ", isNew=true)"...)
	}
	return append(b, ", isNew=false)"...)
}

// appendUmPS23 renders 1.0-2.3 UpdateMetadataRequest.PartitionState.
func appendUmPS23(b []byte, s *zkState, replicas, offline []int32) []byte {
	b = append(b, "PartitionState(controllerEpoch="...)
	b = ai32(b, s.cep)
	b = append(b, ", leader="...)
	b = ai32(b, s.leader)
	b = append(b, ", leaderEpoch="...)
	b = ai32(b, s.epoch)
	b = append(b, ", isr=["...)
	b = appendInts(b, s.isr, ", ")
	b = append(b, "], zkVersion="...)
	b = ai32(b, s.zkv)
	b = append(b, ", replicas=["...)
	b = appendInts(b, replicas, ", ")
	b = append(b, "], offlineReplicas=["...)
	b = appendInts(b, offline, ", ")
	return append(b, "])"...)
}

// appendLeaderAndIsr renders kafka.api.LeaderAndIsr:
// 0.10.2 JSON {"leader":2,"leader_epoch":14,"isr":[2,3]},
// 1.1-3.1 LeaderAndIsr(leader=2, leaderEpoch=14, isr=List(2, 3), zkVersion=41).
func appendLeaderAndIsr(b []byte, e Era, s *zkState) []byte {
	if e == Era010 {
		b = append(b, `{"leader":`...)
		b = ai32(b, s.leader)
		b = append(b, `,"leader_epoch":`...)
		b = ai32(b, s.epoch)
		b = append(b, `,"isr":[`...)
		b = appendInts(b, s.isr, ",")
		return append(b, "]}"...)
	}
	b = append(b, "LeaderAndIsr(leader="...)
	b = ai32(b, s.leader)
	b = append(b, ", leaderEpoch="...)
	b = ai32(b, s.epoch)
	b = append(b, ", isr=List("...)
	b = appendInts(b, s.isr, ", ")
	b = append(b, "), zkVersion="...)
	b = ai32(b, s.zkv)
	return append(b, ')')
}

// appendIDSet renders a mutable Set[Int] of broker ids (e.g. the
// UpdateMetadata recipients): "Set(...)" under Scala 2.11/2.12, "HashSet(...)"
// under 2.13 (Kafka 2.6+).
func appendIDSet(b []byte, e Era, ids []int32) []byte {
	if e == Era26Info {
		b = append(b, "HashSet("...)
	} else {
		b = append(b, "Set("...)
	}
	b = appendInts(b, ids, ", ")
	return append(b, ')')
}

// Scala collection classes whose toString differs by Scala version.
const (
	setImmutable = iota // immutable Set: Set1..Set4 print "Set", larger "HashSet" under 2.13
	setMutable          // mutable.HashSet: "Set" under 2.11/2.12, "HashSet" under 2.13
	setKeySet           // Map#keySet view: "Set" in every version
)

// appendNameSet renders a Scala set of TopicPartitions. Kafka 2.6+ ships
// with Scala 2.13, where hash-based collections print as "HashSet".
// appendImmutableIDSet renders an immutable Set[Int] (e.g. ControllerContext
// liveBrokerIds): "Set(...)" up to 4 elements, "HashSet(...)" beyond under
// Scala 2.13.
func appendImmutableIDSet(b []byte, e Era, ids []int32) []byte {
	if e == Era26Info && len(ids) > 4 {
		b = append(b, "HashSet("...)
	} else {
		b = append(b, "Set("...)
	}
	b = appendInts(b, ids, ", ")
	return append(b, ')')
}

func appendNameSet(b []byte, e Era, parts []*part, style int) []byte {
	s213 := e == Era26Info || e == EraKRaft
	switch {
	case style == setMutable && s213, style == setImmutable && s213 && len(parts) > 4:
		b = append(b, "HashSet("...)
	default:
		b = append(b, "Set("...)
	}
	for i, p := range parts {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, p.name...)
	}
	return append(b, ')')
}

// appendScalaMapPrefix renders the class of the partition map in "Added
// fetcher ..." lines: an immutable Map prints "Map" up to 4 entries and
// "HashMap" beyond under Scala 2.13 (Kafka 2.6+), "Map" under 2.11/2.12.
func appendScalaMapPrefix(b []byte, e Era, n int) []byte {
	if e == EraKRaft || (e == Era26Info && n > 4) {
		// KRaft 3.9 groups a mutable.HashMap: always "HashMap"
		return append(b, "HashMap("...)
	}
	return append(b, "Map("...)
}

// brokerEndPoint renders kafka.cluster.BrokerEndPoint: 0.10.2 case-class
// default "BrokerEndPoint(2,kafka-2,9092)", 2.1+ "BrokerEndPoint(id=2, host=kafka-2:9092)".
func appendBrokerEndPoint(b []byte, e Era, id int32) []byte {
	if e == Era010 {
		b = append(b, "BrokerEndPoint("...)
		b = ai32(b, id)
		b = append(b, ",kafka-"...)
		b = ai32(b, id)
		return append(b, ",9092)"...)
	}
	b = append(b, "BrokerEndPoint(id="...)
	b = ai32(b, id)
	b = append(b, ", host=kafka-"...)
	b = ai32(b, id)
	return append(b, ":9092)"...)
}

const logDir = "/var/lib/kafka/data"
