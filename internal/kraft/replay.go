package kraft

import (
	"math"
	"slices"
	"sort"
	"time"
)

// Unknown marks an int32 of a Decision that the replay could not know
// (same value as parser.Unknown): the partition's earlier state was not in
// the replayed files.
const Unknown int32 = math.MinInt32

// Causes of a Decision.
const (
	CauseNewPartition       = "new_partition"
	CauseUncleanElection    = "unclean_election"
	CauseReassignment       = "reassignment"
	CauseBrokerFenced       = "broker_fenced"
	CauseControlledShutdown = "controlled_shutdown"
	CauseBrokerUnregistered = "broker_unregistered"
	// CauseBrokerRestarted: the broker registered a new incarnation while
	// its previous one was still registered and unfenced (an unclean
	// restart), and the controller moved leadership off the old one.
	CauseBrokerRestarted   = "broker_restarted"
	CauseBrokerUnfenced    = "broker_unfenced"
	CausePreferredElection = "preferred_election"
	// CauseISRShrink: the leader stayed, the ISR shrank, and (before MV
	// 3.6-IV0) the controller bumped the leader epoch anyway.
	CauseISRShrink = "isr_shrink"
	// CauseISRChange: an ISR-only change (emitted only with
	// Replayer.ISRChanges).
	CauseISRChange = "isr_change"
	// CauseLeaderRecovered: the leader elected uncleanly finished
	// recovering (leader recovery state back to RECOVERED).
	CauseLeaderRecovered = "leader_recovered"
	CauseUnknown         = "unknown"
)

// Decision is one leadership decision the controller committed: a new
// partition, or a PartitionChangeRecord that set the leader (which bumps the
// leader epoch, also when the leader stays) or the leader recovery state.
type Decision struct {
	// Time is the commit time: the batch's maxTimestamp, UTC.
	Time time.Time `json:"time"`
	// Offset is the record's offset and QuorumEpoch the Raft epoch of the
	// controller that wrote it.
	Offset      int64  `json:"offset"`
	QuorumEpoch int32  `json:"quorum_epoch"`
	Topic       string `json:"topic"`
	TopicID     UUID   `json:"topic_id"`
	Partition   int32  `json:"partition"`
	// Leader is the new leader (-1: none); PrevLeader the one before, or
	// Unknown.
	Leader     int32 `json:"leader"`
	PrevLeader int32 `json:"prev_leader"`
	// LeaderEpoch and PartitionEpoch are the epochs after the change, or
	// Unknown when the partition's earlier state was not replayed.
	LeaderEpoch    int32 `json:"leader_epoch"`
	PartitionEpoch int32 `json:"partition_epoch"`
	// ISR and PrevISR are the ISR after and before (PrevISR nil when
	// unknown); Replicas the replica list after.
	ISR      []int32 `json:"isr"`
	PrevISR  []int32 `json:"prev_isr"`
	Replicas []int32 `json:"replicas"`
	// Unclean is set when the new leader was in neither the previous ISR nor
	// the previous ELR, or the record set leader recovery state RECOVERING.
	Unclean bool `json:"unclean"`
	// Cause is one of the Cause* constants.
	Cause string `json:"cause"`
	// Stale is set when the partition's state before this decision came
	// from a snapshot older than the replayed segments (records are missing
	// in between) or was not known at all: PrevLeader, PrevISR, Unclean and
	// the epochs may be off. Dir.Replay corrects the epochs (and clears
	// Stale when the previous leader and ISR were set by replayed records)
	// once it reaches a newer snapshot.
	Stale bool `json:"stale,omitempty"`

	// bumps of the partition's epochs since its state was last exact, at
	// this decision; prevStale: leader or ISR before it were not exact.
	bumpsLE, bumpsPE int32
	prevStale        bool
	key              partKey
}

// PartitionState is the replayed state of one partition.
type PartitionState struct {
	Topic               string  `json:"topic"`
	TopicID             UUID    `json:"topic_id"`
	Partition           int32   `json:"partition"`
	Leader              int32   `json:"leader"`
	LeaderEpoch         int32   `json:"leader_epoch"`
	PartitionEpoch      int32   `json:"partition_epoch"`
	ISR                 []int32 `json:"isr"`
	Replicas            []int32 `json:"replicas"`
	RemovingReplicas    []int32 `json:"removing_replicas,omitempty"`
	AddingReplicas      []int32 `json:"adding_replicas,omitempty"`
	ELR                 []int32 `json:"eligible_leader_replicas,omitempty"`
	LastKnownELR        []int32 `json:"last_known_elr,omitempty"`
	LeaderRecoveryState int8    `json:"leader_recovery_state"`
	// Stale: see Decision.Stale.
	Stale bool `json:"stale,omitempty"`
}

// partState is a PartitionState with what the replay knows about it.
type partState struct {
	PartitionState
	// staleLeader/staleISR: not set by a replayed record since the state
	// was last exact. staleEpochs: the epochs' base is off or unknown.
	staleLeader, staleISR, staleEpochs bool
	// bumpsLE/bumpsPE count epoch bumps since the state was last exact.
	bumpsLE, bumpsPE int32
}

func (st *partState) stale() bool { return st.staleLeader || st.staleISR || st.staleEpochs }

// BrokerState is the replayed registration of one broker.
type BrokerState struct {
	ID                   int32 `json:"id"`
	Epoch                int64 `json:"epoch"`
	Incarnation          UUID  `json:"incarnation"`
	Fenced               bool  `json:"fenced"`
	InControlledShutdown bool  `json:"in_controlled_shutdown"`
}

type partKey struct {
	topic UUID
	part  int32
}

type eventKind uint8

const (
	evNone eventKind = iota
	evUnfenced
	evRestarted
	evControlledShutdown
	evFenced
	evUnregistered
)

type brokerEvent struct {
	broker int32
	kind   eventKind
}

type pending struct {
	d        Decision
	newPart  bool
	reassign bool
	// subjects are the brokers whose loss explains the decision: the
	// previous leader, or the members removed from the ISR.
	subjects []int32
	// subjectState is each subject's state when the record was applied.
	subjectState []eventKind
}

// Replayer folds metadata records, in offset order, into topic, partition
// and broker state and leadership Decisions. It is deterministic and does no
// I/O. The zero value is not usable; call NewReplayer.
//
// Epoch rule (PartitionRegistration.merge in Kafka's metadata module): a
// PartitionChangeRecord that carries the Leader field (any value but -2)
// increments the leader epoch, even when the leader stays the same (before
// MV 3.6-IV0 the controller sets it on every ISR shrink); every
// PartitionChangeRecord increments the partition epoch.
type Replayer struct {
	// OnDecision, if set, receives each Decision once its batch is complete
	// (causes are read off the whole batch). Otherwise Decisions collects
	// them.
	OnDecision func(Decision)
	// ISRChanges also emits Decisions (Cause "isr_change") for
	// PartitionChangeRecords that change only the ISR.
	ISRChanges bool

	topics    map[UUID]string
	hints     map[UUID]string
	parts     map[partKey]*partState
	brokers   map[int32]*BrokerState
	decisions []Decision
	// hold keeps decisions in held until rebase can correct them.
	hold bool
	held []Decision

	batch   int64
	inBatch bool
	pend    []pending
	events  []brokerEvent
}

// NewReplayer returns an empty Replayer.
func NewReplayer() *Replayer {
	return &Replayer{
		topics:  map[UUID]string{},
		hints:   map[UUID]string{},
		parts:   map[partKey]*partState{},
		brokers: map[int32]*BrokerState{},
	}
}

// Apply folds one record. Records must come in offset order; a snapshot's
// records (Record.Snapshot) replace the state and yield no Decisions.
func (p *Replayer) Apply(rec Record) {
	if !p.inBatch || rec.BatchOffset != p.batch {
		p.Flush()
		p.batch, p.inBatch = rec.BatchOffset, true
	}
	if rec.Value == nil {
		return
	}
	switch v := rec.Value.(type) {
	case *SnapshotHeaderRecord:
		if rec.Snapshot {
			p.reset()
		}
	case *TopicRecord:
		p.topics[v.TopicID] = v.Name
		for k, st := range p.parts {
			if k.topic == v.TopicID {
				st.Topic = v.Name
			}
		}
	case *RemoveTopicRecord:
		for k := range p.parts {
			if k.topic == v.TopicID {
				delete(p.parts, k)
			}
		}
		// Keep the name: later records of a removed id are rare, but
		// naming them helps.
	case *PartitionRecord:
		p.applyPartition(rec, v)
	case *PartitionChangeRecord:
		p.applyChange(rec, v)
	case *RegisterBrokerRecord:
		b := p.broker(v.BrokerID)
		if b.Epoch >= 0 && !b.Fenced && b.Incarnation != v.IncarnationID && !rec.Snapshot {
			p.events = append(p.events, brokerEvent{v.BrokerID, evRestarted})
		}
		*b = BrokerState{ID: v.BrokerID, Epoch: v.BrokerEpoch, Incarnation: v.IncarnationID,
			Fenced: v.Fenced, InControlledShutdown: v.InControlledShutdown}
	case *UnregisterBrokerRecord:
		delete(p.brokers, v.BrokerID)
		p.events = append(p.events, brokerEvent{v.BrokerID, evUnregistered})
	case *FenceBrokerRecord:
		p.broker(v.ID).Fenced = true
		p.events = append(p.events, brokerEvent{v.ID, evFenced})
	case *UnfenceBrokerRecord:
		p.broker(v.ID).Fenced = false
		p.events = append(p.events, brokerEvent{v.ID, evUnfenced})
	case *BrokerRegistrationChangeRecord:
		b := p.broker(v.BrokerID)
		switch v.Fenced {
		case 1:
			b.Fenced = true
			p.events = append(p.events, brokerEvent{v.BrokerID, evFenced})
		case -1:
			b.Fenced = false
			b.InControlledShutdown = false
			p.events = append(p.events, brokerEvent{v.BrokerID, evUnfenced})
		}
		if v.InControlledShutdown == 1 {
			b.InControlledShutdown = true
			p.events = append(p.events, brokerEvent{v.BrokerID, evControlledShutdown})
		}
	}
}

func (p *Replayer) broker(id int32) *BrokerState {
	b := p.brokers[id]
	if b == nil {
		b = &BrokerState{ID: id, Epoch: -1, Fenced: true}
		p.brokers[id] = b
	}
	return b
}

func (p *Replayer) reset() {
	p.Flush()
	clear(p.topics)
	clear(p.parts)
	clear(p.brokers)
}

func (p *Replayer) topicName(id UUID) string {
	if n, ok := p.topics[id]; ok {
		return n
	}
	return p.hints[id]
}

func (p *Replayer) applyPartition(rec Record, v *PartitionRecord) {
	st := &partState{PartitionState: PartitionState{
		Topic:               p.topicName(v.TopicID),
		TopicID:             v.TopicID,
		Partition:           v.PartitionID,
		Leader:              v.Leader,
		LeaderEpoch:         v.LeaderEpoch,
		PartitionEpoch:      v.PartitionEpoch,
		ISR:                 v.ISR,
		Replicas:            v.Replicas,
		RemovingReplicas:    v.RemovingReplicas,
		AddingReplicas:      v.AddingReplicas,
		ELR:                 v.ELR,
		LastKnownELR:        v.LastKnownELR,
		LeaderRecoveryState: v.LeaderRecoveryState,
	}}
	p.parts[partKey{v.TopicID, v.PartitionID}] = st
	if rec.Snapshot {
		return
	}
	p.pend = append(p.pend, pending{newPart: true, d: Decision{
		Time: rec.BatchTime, Offset: rec.Offset, QuorumEpoch: rec.QuorumEpoch,
		Topic: st.Topic, TopicID: v.TopicID, Partition: v.PartitionID,
		Leader: v.Leader, PrevLeader: NoLeader,
		LeaderEpoch: v.LeaderEpoch, PartitionEpoch: v.PartitionEpoch,
		ISR: v.ISR, PrevISR: []int32{}, Replicas: v.Replicas,
		Unclean: v.LeaderRecoveryState == LeaderRecoveryRecovering,
	}})
}

func (p *Replayer) applyChange(rec Record, v *PartitionChangeRecord) {
	k := partKey{v.TopicID, v.PartitionID}
	st := p.parts[k]
	if st == nil {
		// Created before the replayed files: nothing but what this record
		// says is known.
		st = &partState{
			PartitionState: PartitionState{
				Topic: p.topicName(v.TopicID), TopicID: v.TopicID, Partition: v.PartitionID,
				Leader: Unknown, LeaderEpoch: Unknown, PartitionEpoch: Unknown, Stale: true,
			},
			staleLeader: true, staleISR: true, staleEpochs: true,
		}
		p.parts[k] = st
	}
	prevLeader, prevISR, prevELR := st.Leader, st.ISR, st.ELR
	prevStale := st.staleLeader || st.staleISR
	if v.Replicas != nil {
		st.Replicas = v.Replicas
	}
	if v.ISR != nil {
		st.ISR = v.ISR
		st.staleISR = false
	}
	if v.RemovingReplicas != nil {
		st.RemovingReplicas = v.RemovingReplicas
	}
	if v.AddingReplicas != nil {
		st.AddingReplicas = v.AddingReplicas
	}
	if v.ELR != nil {
		st.ELR = v.ELR
	}
	if v.LastKnownELR != nil {
		st.LastKnownELR = v.LastKnownELR
	}
	if v.LeaderRecoveryState != LeaderRecoveryUnchanged {
		st.LeaderRecoveryState = v.LeaderRecoveryState
	}
	leaderSet := v.Leader != LeaderUnchanged
	if leaderSet {
		st.Leader = v.Leader
		st.staleLeader = false
		st.bumpsLE++
		if st.LeaderEpoch != Unknown {
			st.LeaderEpoch++
		}
	}
	st.bumpsPE++
	if st.PartitionEpoch != Unknown {
		st.PartitionEpoch++
	}
	st.Stale = st.stale()
	if rec.Snapshot {
		return
	}
	recovering := v.LeaderRecoveryState == LeaderRecoveryRecovering
	if !leaderSet && v.LeaderRecoveryState == LeaderRecoveryUnchanged && !(p.ISRChanges && v.ISR != nil) {
		return
	}
	pd := pending{d: Decision{
		Time: rec.BatchTime, Offset: rec.Offset, QuorumEpoch: rec.QuorumEpoch,
		Topic: st.Topic, TopicID: v.TopicID, Partition: v.PartitionID,
		Leader: st.Leader, PrevLeader: prevLeader,
		LeaderEpoch: st.LeaderEpoch, PartitionEpoch: st.PartitionEpoch,
		ISR: st.ISR, PrevISR: prevISR, Replicas: st.Replicas,
		Stale:   prevStale || st.staleEpochs,
		bumpsLE: st.bumpsLE, bumpsPE: st.bumpsPE, prevStale: prevStale, key: k,
	}}
	pd.reassign = v.Replicas != nil || v.AddingReplicas != nil || v.RemovingReplicas != nil
	changed := leaderSet && st.Leader != prevLeader
	if recovering {
		pd.d.Unclean = true
	} else if changed && st.Leader >= 0 && !prevStale &&
		!slices.Contains(prevISR, st.Leader) && !slices.Contains(prevELR, st.Leader) {
		pd.d.Unclean = true
	}
	if changed && prevLeader >= 0 {
		pd.subjects = []int32{prevLeader}
	} else if !changed {
		// The leader stayed (or stayed none): the brokers that left the
		// ISR, else the ISR's members, are what the controller reacted to.
		if v.ISR != nil {
			for _, b := range prevISR {
				if !slices.Contains(v.ISR, b) {
					pd.subjects = append(pd.subjects, b)
				}
			}
		}
		if len(pd.subjects) == 0 {
			pd.subjects = slices.Clone(prevISR)
		}
	}
	for _, b := range pd.subjects {
		pd.subjectState = append(pd.subjectState, p.stateKind(b))
	}
	switch {
	case !leaderSet && v.LeaderRecoveryState == LeaderRecoveryUnchanged:
		pd.d.Cause = CauseISRChange
	case !leaderSet && v.LeaderRecoveryState == LeaderRecoveryRecovered:
		pd.d.Cause = CauseLeaderRecovered
	}
	p.pend = append(p.pend, pd)
}

// stateKind is what a broker's current registration says about it.
func (p *Replayer) stateKind(id int32) eventKind {
	b, ok := p.brokers[id]
	switch {
	case !ok:
		return evNone // never seen, or unregistered; unknown either way
	case b.InControlledShutdown:
		return evControlledShutdown
	case b.Fenced:
		return evFenced
	}
	return evNone
}

// Flush resolves the causes of the current batch's Decisions and emits
// them. Apply calls it when a new batch starts; call it after the last
// record.
func (p *Replayer) Flush() {
	for i := range p.pend {
		pd := &p.pend[i]
		if pd.d.Cause == "" {
			pd.d.Cause = p.cause(pd)
		}
		if p.hold {
			p.held = append(p.held, pd.d)
		} else {
			p.emit(pd.d)
		}
	}
	p.pend = p.pend[:0]
	p.events = p.events[:0]
	p.inBatch = false
}

func (p *Replayer) emit(d Decision) {
	if p.OnDecision != nil {
		p.OnDecision(d)
	} else {
		p.decisions = append(p.decisions, d)
	}
}

// release emits the held decisions.
func (p *Replayer) release() {
	p.Flush()
	for _, d := range p.held {
		p.emit(d)
	}
	p.held = p.held[:0]
}

// batchEvent returns the strongest event of the batch for a broker.
func (p *Replayer) batchEvent(id int32) eventKind {
	k := evNone
	for _, e := range p.events {
		if e.broker == id && e.kind > k && e.kind != evUnfenced {
			k = e.kind
		}
	}
	return k
}

func (p *Replayer) hasEvent(id int32, kind eventKind) bool {
	for _, e := range p.events {
		if e.broker == id && e.kind == kind {
			return true
		}
	}
	return false
}

func causeOf(k eventKind) string {
	switch k {
	case evFenced:
		return CauseBrokerFenced
	case evControlledShutdown:
		return CauseControlledShutdown
	case evUnregistered:
		return CauseBrokerUnregistered
	case evRestarted:
		return CauseBrokerRestarted
	}
	return ""
}

func (p *Replayer) cause(pd *pending) string {
	d := &pd.d
	switch {
	case pd.newPart:
		return CauseNewPartition
	case d.Unclean:
		return CauseUncleanElection
	case pd.reassign:
		return CauseReassignment
	}
	// A broker that lost leadership or left the ISR: what happened to it in
	// this batch, else what its registration said when the record applied.
	for _, b := range pd.subjects {
		if c := causeOf(p.batchEvent(b)); c != "" {
			return c
		}
	}
	for _, k := range pd.subjectState {
		if c := causeOf(k); c != "" {
			return c
		}
	}
	if d.PrevLeader == Unknown && d.Leader < 0 {
		// Nothing known of the partition before: if the batch did one
		// thing to brokers, that is the cause.
		c := ""
		for _, e := range p.events {
			if ec := causeOf(e.kind); ec != "" && ec != c {
				if c != "" {
					c = ""
					break
				}
				c = ec
			}
		}
		if c != "" {
			return c
		}
	}
	changed := d.Leader != d.PrevLeader
	switch {
	case changed && d.Leader >= 0 && p.hasEvent(d.Leader, evUnfenced):
		return CauseBrokerUnfenced
	case changed && d.Leader >= 0 && d.PrevLeader >= 0 && len(d.Replicas) > 0 && d.Replicas[0] == d.Leader:
		return CausePreferredElection
	case !changed && len(pd.subjects) > 0:
		return CauseISRShrink
	}
	return CauseUnknown
}

// Decisions flushes the current batch and returns the Decisions collected
// so far (none when OnDecision is set).
func (p *Replayer) Decisions() []Decision {
	p.Flush()
	return p.decisions
}

// TopicName returns the name of a topic id, or "" if unknown.
func (p *Replayer) TopicName(id UUID) string { return p.topicName(id) }

// Topics returns the known topic names by id.
func (p *Replayer) Topics() map[UUID]string {
	m := make(map[UUID]string, len(p.topics))
	for k, v := range p.hints {
		m[k] = v
	}
	for k, v := range p.topics {
		m[k] = v
	}
	return m
}

// Partition returns the state of one partition.
func (p *Replayer) Partition(topic UUID, partition int32) (PartitionState, bool) {
	st, ok := p.parts[partKey{topic, partition}]
	if !ok {
		return PartitionState{}, false
	}
	return st.PartitionState, true
}

// Partitions returns the state of every partition, sorted by topic name,
// topic id and partition.
func (p *Replayer) Partitions() []PartitionState {
	out := make([]PartitionState, 0, len(p.parts))
	for _, st := range p.parts {
		out = append(out, st.PartitionState)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		if a.Topic != b.Topic {
			return a.Topic < b.Topic
		}
		if a.TopicID != b.TopicID {
			return a.TopicID.String() < b.TopicID.String()
		}
		return a.Partition < b.Partition
	})
	return out
}

// Brokers returns the registered brokers sorted by id.
func (p *Replayer) Brokers() []BrokerState {
	out := make([]BrokerState, 0, len(p.brokers))
	for _, b := range p.brokers {
		out = append(out, *b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// nameHint names a topic id that no TopicRecord in the replay names (used
// for names read from snapshots that are not replayed).
func (p *Replayer) nameHint(id UUID, name string) {
	p.hints[id] = name
	for k, st := range p.parts {
		if k.topic == id && st.Topic == "" {
			st.Topic = name
		}
	}
}

// markStale flags every partition's state as stale (records are missing
// after it).
func (p *Replayer) markStale() {
	for _, st := range p.parts {
		st.staleLeader, st.staleISR, st.staleEpochs = true, true, true
		st.bumpsLE, st.bumpsPE = 0, 0
		st.Stale = true
	}
}

// rebase compares the replayed partitions with a snapshot's (taken at the
// offset the replay has reached) and adopts the snapshot's state. It
// returns the partitions whose leader, epochs, ISR or replicas differed.
func (p *Replayer) rebase(snap *Replayer) []PartitionDiff {
	p.Flush()
	var diffs []PartitionDiff
	for k, want := range snap.parts {
		got, ok := p.parts[k]
		if !ok || got.Leader != want.Leader || got.LeaderEpoch != want.LeaderEpoch ||
			got.PartitionEpoch != want.PartitionEpoch || !slices.Equal(got.ISR, want.ISR) ||
			!slices.Equal(got.Replicas, want.Replicas) {
			d := PartitionDiff{Want: want.PartitionState}
			if ok {
				d.Got = got.PartitionState
			} else {
				d.Got = PartitionState{TopicID: k.topic, Partition: k.part, Leader: Unknown, LeaderEpoch: Unknown, PartitionEpoch: Unknown}
			}
			diffs = append(diffs, d)
		}
		// Held decisions of a partition whose epochs were off get them
		// back: each is the snapshot's minus the bumps after it.
		if ok && got.staleEpochs {
			for i := range p.held {
				d := &p.held[i]
				if d.key != k {
					continue
				}
				d.LeaderEpoch = want.LeaderEpoch - (got.bumpsLE - d.bumpsLE)
				d.PartitionEpoch = want.PartitionEpoch - (got.bumpsPE - d.bumpsPE)
				d.Stale = d.prevStale
			}
		}
		st := &partState{PartitionState: want.PartitionState}
		if st.Topic == "" {
			st.Topic = p.topicName(k.topic)
		}
		p.parts[k] = st
	}
	for k := range p.parts {
		if _, ok := snap.parts[k]; !ok {
			delete(p.parts, k) // gone by the snapshot's offset
		}
	}
	for id, name := range snap.topics {
		if _, ok := p.topics[id]; !ok {
			p.topics[id] = name
		}
	}
	clear(p.brokers)
	for id, b := range snap.brokers {
		c := *b
		p.brokers[id] = &c
	}
	sort.Slice(diffs, func(i, j int) bool {
		a, b := diffs[i].Want, diffs[j].Want
		if a.Topic != b.Topic {
			return a.Topic < b.Topic
		}
		return a.Partition < b.Partition
	})
	return diffs
}

// PartitionDiff is a partition whose replayed state (Got) differed from a
// snapshot's (Want).
type PartitionDiff struct {
	Got  PartitionState `json:"got"`
	Want PartitionState `json:"want"`
}
