// Package parser turns log lines written by Kafka brokers, controllers and
// clients into typed events. It does no I/O: callers feed it lines, one source
// (file) per Parser, and receive events through a callback.
package parser

import "time"

// Unknown marks an int32 field the line did not carry. -1 is a real value in
// Kafka (leader -1 = no leader), so it cannot double as "unknown".
const Unknown int32 = -1 << 31

// Kind says what an event is.
type Kind uint8

const (
	KindNone Kind = iota
	// KindPhase: one broker applied one step of a leadership change for one
	// partition (Phase says which). Topic/Partition always set; LeaderEpoch
	// set when the line carries it, otherwise the timeline resolves it from
	// the broker's earlier lines of the same request (CorrelationID).
	KindPhase
	// KindRequestStart: a request-level line that covers Count partitions
	// ("Handling LeaderAndIsr request correlationId C ... for N partitions",
	// KRaft "Transitioning N partition(s) to local leaders.").
	KindRequestStart
	// KindRequestPhase: a request-level step for the partitions of the open
	// request with role Role ("Stopped fetchers as part of ... for N partitions").
	KindRequestPhase
	// KindRequestFinished: "Finished LeaderAndIsr request in Xms correlationId C".
	KindRequestFinished
	// KindDecision: the controller chose a leader (and usually epoch) for a
	// partition: ZK "Changed partition ... with state LeaderAndIsr(...)",
	// "Sending become-leader LeaderAndIsr request ...", "elected leader",
	// KRaft "partition change for t-p: leader: a -> b".
	KindDecision
	// KindTrigger: something that makes the controller move leaders: broker
	// failure, controlled shutdown, preferred election, reassignment, fencing.
	KindTrigger
	// KindControllerChange: a controller was elected, resigned, or a KRaft
	// quorum leader changed. Never a partition election.
	KindControllerChange
	// KindBrokerLifecycle: broker started, shut down, ZooKeeper session expired,
	// registered, fenced.
	KindBrokerLifecycle
	// KindProducerError: a producer logged a leader-related error.
	KindProducerError
	// KindProducerConfig: a "ProducerConfig values:" block.
	KindProducerConfig
	// KindClientVersion: "Kafka version: x" from AppInfoParser.
	KindClientVersion
	// KindConsumer: a consumer-side group event (Consumer says which).
	KindConsumer
	// KindISRChange: the partition leader (Broker) shrank, expanded or
	// committed the ISR: PrevISR → ISR. Rejected: ZooKeeper refused it
	// ("Cached zkVersion ... not equal"), so it never took effect.
	KindISRChange
	// KindTruncation: a follower truncated its log (Offset) after a leader
	// change; Unclean when it refused because the new leader is behind
	// (Offset = leader's end, EndOffset = its own: the lost range).
	KindTruncation
	// KindUnknownConfig: a client's AbstractConfig.logUnused() line: the
	// keys it was given and did not use (Config: key → supplied value,
	// "" where the line does not print it; a key keeps its stray spaces),
	// Text: the config class ("ProducerConfig", "ConsumerConfig", ...; ""
	// when neither the logger nor an earlier config block says).
	KindUnknownConfig
)

// ConsumerEvent refines KindConsumer.
type ConsumerEvent uint8

const (
	ConsNone ConsumerEvent = iota
	ConsCoordinatorDiscovered
	ConsCoordinatorDead // marked dead / unavailable or invalid
	ConsJoin            // (Re-)joining group
	ConsJoined          // Successfully joined group with generation
	ConsRevoke          // revoking / lost partitions
	ConsAssign          // newly assigned partitions
	ConsPollTimeout     // max.poll.interval.ms exceeded
	ConsCommitFailed    // offset commit failed
	ConsFetchError      // fetch error naming a partition's leader (NOT_LEADER, FENCED_LEADER_EPOCH)
)

var consumerNames = [...]string{"", "coordinator_discovered", "coordinator_dead", "join", "joined", "revoke", "assign", "poll_timeout", "commit_failed", "fetch_error"}

func (c ConsumerEvent) String() string {
	if int(c) < len(consumerNames) {
		return consumerNames[c]
	}
	return "consumer?"
}

// Phase is one step of a broker applying a leadership change.
type Phase uint8

const (
	PhaseNone Phase = iota
	PhaseReceived
	PhaseHandling
	PhaseStoppedFetchers
	PhaseTruncated
	PhaseStartedFetcher
	PhaseCompleted
	PhaseCached
	PhaseEpochStart
	PhaseFinished
	NumPhases
)

var phaseNames = [...]string{"", "received", "handling", "stopped_fetchers", "truncated", "started_fetcher", "completed", "cached", "epoch_start", "finished"}

func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return "phase?"
}

// Role is the part a broker plays for a partition after a change.
type Role uint8

const (
	RoleUnknown Role = iota
	RoleLeader
	RoleFollower
)

func (r Role) String() string {
	switch r {
	case RoleLeader:
		return "leader"
	case RoleFollower:
		return "follower"
	}
	return ""
}

// Cause is why the controller moved a leader, as far as the logs say.
type Cause uint8

const (
	CauseUnknown Cause = iota
	CauseBrokerFailure
	CauseControlledShutdown
	CausePreferred
	CauseReassignment
	CauseUnclean
	CauseOfflinePartition
	CauseNewPartition
	CauseBrokerFenced
	CauseBrokerUnfenced
	CauseBrokerStartup
	CauseControllerFailover
	CauseTopicDeletion
)

var causeNames = [...]string{"", "broker_failure", "controlled_shutdown", "preferred_election", "reassignment", "unclean_election", "offline_partition", "new_partition", "broker_fenced", "broker_unfenced", "broker_startup", "controller_failover", "topic_deletion"}

func (c Cause) String() string {
	if int(c) < len(causeNames) {
		return causeNames[c]
	}
	return "cause?"
}

// Lifecycle refines KindBrokerLifecycle and KindControllerChange.
type Lifecycle uint8

const (
	LifeNone Lifecycle = iota
	LifeStarting
	LifeStarted
	LifeShuttingDown
	LifeShutdown
	LifeControlledShutdown
	LifeSessionExpired
	LifeRegistered
	LifeFenced
	LifeUnfenced
	LifeControllerElected
	LifeControllerResigned
	LifeQuorumLeader
	LifeCoordinatorElected // group coordinator for __consumer_offsets-Partition
	LifeCoordinatorResigned
)

var lifeNames = [...]string{"", "starting", "started", "shutting_down", "shut_down", "controlled_shutdown", "zk_session_expired", "registered", "fenced", "unfenced", "controller_elected", "controller_resigned", "quorum_leader", "coordinator_elected", "coordinator_resigned"}

func (l Lifecycle) String() string {
	if int(l) < len(lifeNames) {
		return lifeNames[l]
	}
	return "lifecycle?"
}

// Event is what one log record means for leadership. Fields a record does not
// carry are Unknown (int32), -1 (CorrelationID, AttemptsLeft) or zero.
type Event struct {
	Time time.Time
	// Line is the 1-based physical line number of the record's first line.
	Line int64
	Kind Kind

	Phase     Phase
	Role      Role
	Cause     Cause
	Lifecycle Lifecycle

	// Broker is the broker that wrote the line (or, for triggers and
	// lifecycle events logged by a controller, the broker they are about).
	Broker int32
	// Controller and ControllerEpoch: the ZK controller (or KRaft quorum
	// controller) that sent or made the change.
	Controller      int32
	ControllerEpoch int32
	// StateControllerEpoch is the controllerEpoch inside a partition-state
	// struct: the epoch of the controller that made the change, which can be
	// older than the epoch of the controller (re)sending it.
	StateControllerEpoch int32

	Topic       string
	Partition   int32
	LeaderEpoch int32
	Leader      int32
	// PrevLeader is set only where a line states the old leader outright
	// (KRaft "leader: 1 -> 2", "Current leader 2 for partition ...", a
	// sarama producer "abandoning broker 1"). On a producer error, Leader
	// is the broker the client moved to where it says so (sarama
	// "selected broker 2").
	PrevLeader int32
	ISR        []int32
	Replicas   []int32
	// Subjects: brokers a trigger names ("deleted brokers: 3", "Shutting down broker 2").
	Subjects []int32

	CorrelationID int64
	// Count: partitions covered by a request-level line.
	Count int32
	// Elapsed: a duration the line states itself ("Finished ... in 32ms").
	Elapsed time.Duration
	// Unclean is set when the line says the leader came from outside the ISR.
	Unclean bool
	// Metadata is set on KindPhase/KindDecision events that only re-state
	// metadata (UpdateMetadata "Cached leader info", controller "Sending
	// UpdateMetadata"): they confirm an epoch but do not make a change.
	Metadata bool

	// Client side.
	ClientID     string
	Error        string // NOT_LEADER_OR_FOLLOWER, NOT_LEADER_FOR_PARTITION, LEADER_NOT_AVAILABLE, ...
	AttemptsLeft int64
	// Attempt: which retry this is, where the client counts up instead of
	// down (sarama "[retrying-N]", kafka-go "attempt N"); 0 when not said.
	Attempt int64
	Final   bool // the send failed for good (callback / listener), not a retry
	// TopicOnly: a final failure that named the topic but not the partition.
	TopicOnly bool
	// Piece: which part of a failed send a producer-error line is; the
	// parser's assembler joins pieces and emits PieceWhole events only.
	Piece PieceKind
	// Conn: the connection a client line names (a broker address), which
	// scopes its CorrelationID.
	Conn string
	// Lines: on an emitted producer error, the physical lines it was built
	// from, in order; nil when it is Line alone.
	Lines []int64
	// Candidates: on a final failure whose partition the lines cannot
	// decide, the partitions it may be (sorted); Partition is Unknown.
	Candidates []int32
	Config     map[string]string
	// Values: on KindUnknownConfig, the consumer's or admin client's config
	// block logged just before (what it ran with); nil otherwise.
	Values  map[string]string
	Text    string // client version, or a short free-text detail
	PrevISR []int32
	// Offset / EndOffset: truncation offsets (KindTruncation).
	Offset, EndOffset int64
	// Rejected: an ISR change ZooKeeper refused (KindISRChange).
	Rejected bool
	// Consumer side: the group and what happened (KindConsumer). Broker
	// holds the coordinator's broker id where the line names it.
	GroupID  string
	Consumer ConsumerEvent
}

func newEvent(kind Kind) Event {
	return Event{
		Kind: kind, Broker: Unknown, Controller: Unknown, ControllerEpoch: Unknown, StateControllerEpoch: Unknown,
		Partition: Unknown, LeaderEpoch: Unknown, Leader: Unknown, PrevLeader: Unknown,
		CorrelationID: -1, AttemptsLeft: -1,
	}
}
