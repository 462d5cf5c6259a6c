// Package timeline builds leader-election episodes from parsed events and
// matches producer errors to them. It is pure and deterministic: the same
// events in the same order give the same episodes. It knows nothing about
// files; callers say which source each event came from by index.
package timeline

import (
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

// Unknown mirrors parser.Unknown.
const Unknown = parser.Unknown

// LeaderDuringDelete is Kafka's LeaderAndIsr.LeaderDuringDelete: the
// leader a partition of a topic being deleted is sent with.
const LeaderDuringDelete = -2

// Key identifies one election: a partition at one leader epoch.
type Key struct {
	Topic       string
	Partition   int32
	LeaderEpoch int32
}

// TP is a topic partition.
type TP struct {
	Topic     string
	Partition int32
}

// Ref points at a log line: the source index given to Add and the line number.
type Ref struct {
	Source int
	Line   int64
}

// BrokerTimeline is what one broker logged for one episode.
type BrokerTimeline struct {
	Broker int32
	Role   parser.Role
	// Phases holds the first time each phase was logged; zero = not logged.
	Phases [parser.NumPhases]time.Time
	// Repeats counts later occurrences of a phase already timed (a restart
	// re-logging "starts at leader epoch", an UpdateMetadata re-caching).
	Repeats int
	// Elapsed is the broker's own "Finished LeaderAndIsr request in Xms".
	Elapsed time.Duration
	First   Ref
	// CatchUp: the broker was not serving when the decision was made (the
	// failed, fenced or stopping broker, or one that (re)started after it):
	// its phases are kept, however late, and left out of the measures.
	CatchUp bool
	// late: its first phase came after the episode went quiet; its lines
	// do not move Start or End. begun: First and CatchUp are set.
	late, begun bool
	// shared: phases timed from the broker's whole request (2.6+ INFO,
	// KRaft), which a line about this partition replaces, in whichever
	// order the two come: it is the partition's own time, not a repeat.
	shared uint32
}

// own reports whether phase ph is still to be timed by a line about the
// partition (not yet timed, or only from the broker's whole request), and
// if so takes it as at.
func (b *BrokerTimeline) own(ph parser.Phase, at time.Time) bool {
	if !b.Phases[ph].IsZero() && b.shared&(1<<ph) == 0 {
		return false
	}
	b.Phases[ph] = at
	b.shared &^= 1 << ph
	return true
}

// Applied is how long the broker took to apply the change: from the first
// phase it logged to the last of completed / finished / epoch_start /
// started_fetcher (metadata caching excluded).
func (b *BrokerTimeline) Applied() (time.Duration, bool) {
	var first, last time.Time
	for ph := parser.PhaseReceived; ph < parser.NumPhases; ph++ {
		t := b.Phases[ph]
		if t.IsZero() || ph == parser.PhaseCached {
			continue
		}
		if first.IsZero() || t.Before(first) {
			first = t
		}
		if last.IsZero() || t.After(last) {
			last = t
		}
	}
	if first.IsZero() {
		return 0, false
	}
	return last.Sub(first), true
}

// FirstPhase is the earliest time the broker logged anything for the episode.
func (b *BrokerTimeline) FirstPhase() (time.Time, bool) {
	var first time.Time
	for ph := parser.PhaseReceived; ph < parser.NumPhases; ph++ {
		if t := b.Phases[ph]; !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	return first, !first.IsZero()
}

// Episode is one (topic, partition, leader epoch) as every source saw it.
type Episode struct {
	Key
	Leader          int32 // -1 = no leader; Unknown = no line named it
	PreviousLeader  int32
	Controller      int32
	ControllerEpoch int32
	Cause           parser.Cause
	// CauseBrokers: the brokers the trigger named (failed, shut down, fenced).
	CauseBrokers []int32
	Unclean      bool
	ISR          []int32
	Replicas     []int32
	// Decided: the controller's decision (first controller line that
	// chose this leader and epoch); zero if not logged.
	Decided time.Time
	// SentLeaderAndIsr / SentUpdateMetadata: the controller's first send
	// of the new state to brokers.
	SentLeaderAndIsr   time.Time
	SentUpdateMetadata time.Time
	Start, End         time.Time
	Brokers            []*BrokerTimeline
	// Transition is true when some line shows the change being made (a
	// controller decision, a LeaderAndIsr phase, "starts at leader
	// epoch"); false when only metadata caches mention the epoch.
	Transition bool
	// Late counts lines for this key that arrived after the episode had
	// been quiet for Config.Quiet; they do not move End.
	Late int
	// Resent: every controller line that carried this epoch re-sent a
	// state an earlier controller epoch had decided (broker restart,
	// controller failover): the epoch was re-applied, not elected here.
	Resent     bool
	resentSeen bool
	freshSeen  bool
	// CarriedOver: the epoch was first seen being re-sent or re-applied
	// (a controller starting, brokers starting) and no line of the logs
	// decided it: state from before the logs, not an election.
	CarriedOver bool
	// chosen: a controller line chose this leader and epoch (not only a
	// send of it); firstSeen: no earlier epoch of the partition was seen.
	chosen    bool
	firstSeen bool
	// DetectFrom: the failed broker's last line before the controller's
	// trigger (broker failures); zero when its logs do not show it.
	DetectFrom     time.Time
	ProducerErrors int
	BurstID        int
	Evidence       []Ref // first lines that built it (bounded)
	// Truncations: followers cutting their logs after this change.
	Truncations []Truncation
	// LastActivity: the last time a line added something new to it; an
	// episode quiet for Config.Quiet is over (live views show it as done).
	LastActivity time.Time
	// mi: its slots in the partition's and the topic's match index
	// (matchindex.go), once it has a Start.
	mi [2]*matchSlot
	// mx: the indexes those slots are in, while indexed, so that a line
	// extending the episode finds them without hashing its topic twice.
	mx      [2]*matchIndex
	indexed bool
	// evidence: room for the first refs of Evidence in the episode
	// itself (growing it from nothing cost four allocations).
	evidence [4]Ref
	// meas: Measures as of the hand-over (From apart, which is cheap),
	// which the report asks for several times (statistics, slowest
	// lists, JSON, verdicts).
	meas packedMeasures
}

// Clone returns a deep copy, for handing an episode to another goroutine.
func (e *Episode) Clone() *Episode {
	c := *e
	c.mi = [2]*matchSlot{} // the index's tree is not the copy's
	c.mx = [2]*matchIndex{}
	c.CauseBrokers = append([]int32(nil), e.CauseBrokers...)
	c.ISR = append([]int32(nil), e.ISR...)
	c.Replicas = append([]int32(nil), e.Replicas...)
	c.Evidence = append([]Ref(nil), e.Evidence...)
	c.Truncations = append([]Truncation(nil), e.Truncations...)
	c.Brokers = make([]*BrokerTimeline, len(e.Brokers))
	for i, b := range e.Brokers {
		bc := *b
		c.Brokers[i] = &bc
	}
	return &c
}

// Duration is End − Start.
func (e *Episode) Duration() time.Duration { return e.End.Sub(e.Start) }

// LeaderChanged says whether the leader moved (false for epoch bumps that
// kept the leader, e.g. the ZK controller re-sending after an ISR change).
func (e *Episode) LeaderChanged() (changed, known bool) {
	if e.PreviousLeader == Unknown || e.Leader == Unknown {
		return false, false
	}
	return e.PreviousLeader != e.Leader, true
}

// Broker returns the timeline of broker b, creating it.
func (e *Episode) broker(b int32) *BrokerTimeline { return e.brokerFrom(b, nil) }

// brokerFrom is broker, taking a new timeline from slab when it is given.
func (e *Episode) brokerFrom(b int32, slab *brokerSlab) *BrokerTimeline {
	for _, bt := range e.Brokers {
		if bt.Broker == b {
			return bt
		}
	}
	var bt *BrokerTimeline
	if slab != nil {
		bt = slab.next()
	} else {
		bt = new(BrokerTimeline)
	}
	bt.Broker = b
	if e.Brokers == nil {
		e.Brokers = make([]*BrokerTimeline, 0, 4)
	}
	// Keep brokers sorted by id for deterministic output.
	i := len(e.Brokers)
	e.Brokers = append(e.Brokers, bt)
	for i > 0 && e.Brokers[i-1].Broker > b {
		e.Brokers[i] = e.Brokers[i-1]
		i--
	}
	e.Brokers[i] = bt
	return bt
}

// brokerSlab hands out broker timelines allocated a chunk at a time: an
// election's brokers are most of what the timeline allocates per event.
// A chunk lives while any of its timelines does; elections are handed
// over in about the order they were opened, so few chunks are pinned.
type brokerSlab struct{ free []BrokerTimeline }

const slabChunk = 16

func (s *brokerSlab) next() *BrokerTimeline {
	if len(s.free) == 0 {
		s.free = make([]BrokerTimeline, slabChunk)
	}
	bt := &s.free[0]
	s.free = s.free[1:]
	return bt
}

// Match classes for producer errors.
type Match uint8

const (
	MatchNone Match = iota
	MatchDuring
	MatchAfter
	// MatchOther: not an error a leader change causes (NOT_ENOUGH_REPLICAS,
	// OUT_OF_ORDER_SEQUENCE_NUMBER, timeouts): reported, never matched.
	MatchOther
	NumMatch
)

func (m Match) String() string {
	switch m {
	case MatchDuring:
		return "during"
	case MatchAfter:
		return "after"
	case MatchOther:
		return "not_leadership"
	}
	return "none"
}

// ProducerError is one producer-side error and what explains it.
type ProducerError struct {
	Time      time.Time
	ClientID  string
	Topic     string
	Partition int32 // Unknown when the lines name only the topic (see Candidates)
	// Candidates: the partitions a topic-only final failure may be, when
	// the producer's exhausted retries name several (sorted).
	Candidates   []int32
	Error        string
	AttemptsLeft int64 // -1 unknown
	Final        bool
	// Leadership: the error is one a leader change causes (parser.Leadership);
	// other errors are reported under their code and never matched.
	Leadership bool
	// BrokerSide: the error was logged by the broker that rejected it.
	BrokerSide bool
	Match      Match
	Election   *Key
	Lag        time.Duration // for MatchAfter: time since the election ended
	// Ref: the first line it was built from; Lines: all of them.
	Ref   Ref
	Lines []Ref

	matched bool // classified, waiting for the errors before it
}

// Burst groups episodes that started within Config.BurstGap of each other
// with the same cause: one trigger moving many partitions.
type Burst struct {
	ID           int
	Start, End   time.Time
	Cause        parser.Cause
	CauseBrokers []int32
	Episodes     int
	Durations    []time.Duration
	// P50, P99: filled in by consumers that drop Durations.
	P50, P99   time.Duration
	Slowest    Key
	SlowestDur time.Duration
}

// Client is what the logs say about one producer.
type Client struct {
	ID      string
	Version string
	Config  map[string]string
	Ref     Ref
	Errors  int
}

// ControllerEvent is a controller election/resignation or a quorum leader
// change: context, never a partition election.
type ControllerEvent struct {
	Time       time.Time
	Controller int32
	Epoch      int32
	Lifecycle  parser.Lifecycle
	Ref        Ref
}

// BrokerEvent is a broker lifecycle event or a trigger the controller logged.
type BrokerEvent struct {
	Time      time.Time
	Broker    int32
	Lifecycle parser.Lifecycle
	Cause     parser.Cause // for triggers
	Brokers   []int32
	Ref       Ref
}

// Truncation is a follower truncating its log after a leader change.
type Truncation struct {
	Time      time.Time
	Broker    int32
	Topic     string
	Partition int32
	Offset    int64 // truncated to
	// Refused: the follower would have had to truncate below its own end
	// (EndOffset) to the new leader's end (Offset) and refused: the new
	// leader was elected uncleanly and [Offset, EndOffset) is lost.
	Refused   bool
	EndOffset int64
	Ref       Ref
}

// ISRChange is a partition leader changing the ISR.
type ISRChange struct {
	Time      time.Time
	Broker    int32
	Topic     string
	Partition int32
	Kind      string // shrink, expand, updated
	From, To  []int32
	Rejected  bool // ZooKeeper refused it (zombie leader)
	Ref       Ref
}

// ConsumerEvent is a consumer group event from a client log.
type ConsumerEvent struct {
	Time        time.Time
	ClientID    string
	GroupID     string
	Kind        parser.ConsumerEvent
	Coordinator int32 // broker id of the coordinator the line names, or Unknown
	Text        string
	Ref         Ref
}

// Sink receives what the timeline has finished with, in a deterministic order.
type Sink interface {
	Episode(*Episode)
	ProducerError(*ProducerError)
	Burst(*Burst)
}

// Config tunes the timeline. Zero values take the defaults.
type Config struct {
	// Quiet: an episode with no new line for this long is closed; later
	// lines for its key count as Late. Default 10s.
	Quiet time.Duration
	// SkewTolerance widens an episode's window when matching producer
	// errors, for clocks that disagree between hosts. Default 200ms.
	SkewTolerance time.Duration
	// StaleWindow: an error this long after an election ended can still be
	// blamed on stale client metadata ("after"); later ones match none.
	// Default 5m (the producer's metadata.max.age.ms default).
	StaleWindow time.Duration
	// EmitAfter: how long after its last line an episode is handed to the
	// sink. Default StaleWindow + SkewTolerance, so that its count of
	// producer errors is final; live views use Quiet and accept that
	// later "after" matches are not counted on the episode.
	EmitAfter time.Duration
	// BurstGap: episodes starting within this of the previous one (same
	// cause) form one burst. Default 1s.
	BurstGap time.Duration
	// TriggerWindow: how long after a trigger a decision may be blamed on
	// it. Default 60s.
	TriggerWindow time.Duration
	// SettleErrors: match an error that only a still-active election could
	// cover once that election is quiet (audit); live views show errors at
	// once instead.
	SettleErrors bool
	// MaxOpen bounds episodes held in memory; past it the oldest are
	// finished early and counted in Stats.Evicted. Default 1,000,000.
	MaxOpen int
}

func (c *Config) defaults() {
	if c.Quiet <= 0 {
		c.Quiet = 10 * time.Second
	}
	if c.SkewTolerance < 0 {
		c.SkewTolerance = 0
	} else if c.SkewTolerance == 0 {
		c.SkewTolerance = 200 * time.Millisecond
	}
	if c.StaleWindow <= 0 {
		c.StaleWindow = 5 * time.Minute
	}
	if c.EmitAfter <= 0 {
		c.EmitAfter = c.StaleWindow + c.SkewTolerance
	}
	if c.BurstGap <= 0 {
		c.BurstGap = time.Second
	}
	if c.TriggerWindow <= 0 {
		c.TriggerWindow = 60 * time.Second
	}
	if c.MaxOpen <= 0 {
		c.MaxOpen = 1_000_000
	}
}

// Stats counts what the timeline did with its input.
type Stats struct {
	Events   int64
	Episodes int64
	Orphans  int64 // phase lines whose epoch could not be resolved
	Late     int64 // lines for an episode already finished
	// DeletionMarkers: lines stating leader -2 (a topic being deleted).
	DeletionMarkers int64
	Evicted         int64
	ProducerErrs    int64
	Controllers     []ControllerEvent
	BrokerEvents    []BrokerEvent
	Consumers       []ConsumerEvent
	ISRChanges      []ISRChange
	Truncations     []Truncation
	// UnknownConfigs: clients' lists of settings they were given and did
	// not know or use (bounded like the other context lists).
	UnknownConfigs []UnknownConfig
	ControllerCap  int
}

// UnknownConfig is one AbstractConfig.logUnused() line: settings a client
// was given that its config class does not define (or, 3.3+, did not use).
type UnknownConfig struct {
	Time time.Time
	// Class: "ProducerConfig", "ConsumerConfig", "AdminClientConfig", ...,
	// or "" when the line does not say.
	Class string
	// ClientID: the producer whose config block the line follows, when
	// Producer (the line itself names no client); else the client.id of
	// the consumer's or admin client's block in Values.
	ClientID string
	Producer bool
	// Values: a consumer's or admin client's config block logged just
	// before the line: what it ran with (producers have Client.Config).
	Values map[string]string
	// Keys: key as given (stray spaces kept) → the value, where the line
	// prints it (0.8.2–0.10.0), else "".
	Keys map[string]string
	Ref  Ref
}
