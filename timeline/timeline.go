package timeline

import (
	"sort"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

const maxEvidence = 8
const maxContext = 10000

// partState is what the timeline remembers per partition between episodes.
type partState struct {
	lastEpoch  int32 // highest epoch with a known leader
	lastLeader int32
	maxEmitted int32 // highest epoch already handed to the sink
	open       []*Episode
	pending    *pendingDecision
	prevHint   int32 // "Current leader L ... is not the preferred replica"
	prevHintAt time.Time
	// recent: episodes already handed to the sink that producer errors may
	// still be matched to (Config.EmitAfter < StaleWindow).
	recent []finished
	// started: the controller named this partition when starting an
	// election ("Starting replica leader election (PREFERRED) for partitions").
	started      time.Time
	startedCause parser.Cause
	startedRef   Ref
}

// finished is what matching needs of an episode already handed over.
type finished struct {
	Key
	Start, End time.Time
}

// pendingDecision: a controller line that chose a leader but did not print
// the epoch (≤1.0 "elected leader L", "... with leader L").
type pendingDecision struct {
	t          time.Time
	leader     int32
	controller int32
	ctrlEpoch  int32
	cause      parser.Cause
	unclean    bool
	ref        Ref
}

// request is a broker's LeaderAndIsr request (2.6+ INFO) or KRaft metadata
// delta being applied: request-level lines are attached to its partitions.
type request struct {
	corr      int64
	role      parser.Role // KRaft "Transitioning ... to local leaders|followers"
	start     time.Time
	last      time.Time
	finished  time.Time
	elapsed   time.Duration
	members   []member
	phases    [3][parser.NumPhases]time.Time // by role
	ctrl      int32
	closed    bool
	source    int
	brokerID  int32
	memberCap int
}

type member struct {
	key  Key
	role parser.Role
}

type srcBroker struct {
	src    int
	broker int32
}

// fetchKey: a broker's fetcher line (server.log) waits for the same
// broker's epoch line (state-change.log), so it is keyed by broker, not by
// file, when the broker is known.
type fetchKey struct {
	sb srcBroker
	tp TP
}

func keyFetch(src int, broker int32, tp TP) fetchKey {
	if broker != Unknown {
		src = -1
	}
	return fetchKey{srcBroker{src, broker}, tp}
}

type heldPhase struct {
	ev  parser.Event
	ref Ref
}

type corrRef struct {
	corr int64
	key  Key
	t    time.Time
}

type trigger struct {
	t          time.Time
	cause      parser.Cause
	brokers    []int32
	controller int32
	topic      string
	partition  int32
}

type pendingErr struct {
	pe *ProducerError
}

// Timeline is the election engine. Not safe for concurrent use.
type Timeline struct {
	cfg   Config
	sink  Sink
	Stats Stats

	episodes map[Key]*Episode
	parts    map[TP]*partState
	reqs     map[srcBroker]*request
	lastReq  map[srcBroker]*request
	corrs    map[srcBroker]map[TP]corrRef
	// fetchHeld: epoch-less "Removed fetcher" phases waiting for the
	// broker's next line about the partition.
	fetchHeld map[fetchKey]heldPhase
	triggers  []trigger

	errs []*ProducerError // waiting for the watermark to pass t + tolerance
	// retriesOut: per client and topic, the partition whose retry countdown
	// last reached 0 (for topic-only final failures).
	retriesOut map[string]map[string]struct {
		partition int32
		t         time.Time
	}

	Clients   map[string]*Client
	srcClient map[int]string
	ctrlEpoch map[int32]int32 // ZK controller id → its controller epoch, from failover lines
	// recentDecisions: per controller, the partitions decided since its last
	// UpdateMetadata summary; umBatches: those summaries waiting for brokers.
	recentDecisions map[int32][]Key
	umBatches       []*umBatch
	liveBrokers     []int32 // brokers a new controller found alive
	liveAt          time.Time
	watermark       time.Time
	lastSweep       time.Time // watermark at the last sweep of open requests and episodes
	minEnd          time.Time // earliest End among open episodes at the last sweep
	burst           *Burst
	nextBurstID     int
	ready           []*Episode
}

// New returns a timeline that hands finished episodes, errors and bursts to sink.
func New(cfg Config, sink Sink) *Timeline {
	cfg.defaults()
	return &Timeline{
		cfg: cfg, sink: sink,
		episodes:        map[Key]*Episode{},
		parts:           map[TP]*partState{},
		reqs:            map[srcBroker]*request{},
		lastReq:         map[srcBroker]*request{},
		corrs:           map[srcBroker]map[TP]corrRef{},
		fetchHeld:       map[fetchKey]heldPhase{},
		Clients:         map[string]*Client{},
		srcClient:       map[int]string{},
		ctrlEpoch:       map[int32]int32{},
		recentDecisions: map[int32][]Key{},
		retriesOut: map[string]map[string]struct {
			partition int32
			t         time.Time
		}{},
	}
}

// Config returns the effective configuration (defaults filled in).
func (t *Timeline) Config() Config { return t.cfg }

func (t *Timeline) part(tp TP) *partState {
	ps := t.parts[tp]
	if ps == nil {
		ps = &partState{lastEpoch: Unknown, lastLeader: Unknown, maxEmitted: Unknown, prevHint: Unknown}
		t.parts[tp] = ps
	}
	return ps
}

// Add feeds one event from source src. Events should arrive in roughly
// time order across sources (a k-way merge) and in file order within one.
func (t *Timeline) Add(src int, ev *parser.Event) {
	t.Stats.Events++
	if ev.Time.After(t.watermark) {
		t.watermark = ev.Time
	}
	ref := Ref{Source: src, Line: ev.Line}
	switch ev.Kind {
	case parser.KindPhase:
		t.phase(src, ev, ref)
	case parser.KindRequestStart:
		t.requestStart(src, ev)
	case parser.KindRequestPhase:
		t.requestPhase(src, ev)
	case parser.KindRequestFinished:
		t.requestFinished(src, ev)
	case parser.KindDecision:
		t.decision(ev, ref)
	case parser.KindTrigger:
		t.trigger(ev, ref)
	case parser.KindControllerChange:
		if len(t.Stats.Controllers) < maxContext {
			t.Stats.Controllers = append(t.Stats.Controllers, ControllerEvent{Time: ev.Time, Controller: ev.Controller, Epoch: ev.ControllerEpoch, Lifecycle: ev.Lifecycle, Ref: ref})
		}
		if ev.Subjects != nil {
			t.liveBrokers, t.liveAt = ev.Subjects, ev.Time
			break
		}
		if ev.Lifecycle == parser.LifeControllerElected && ev.Controller != Unknown && ev.ControllerEpoch != Unknown {
			t.ctrlEpoch[ev.Controller] = ev.ControllerEpoch
		}
		if ev.Lifecycle == parser.LifeControllerElected {
			t.addTrigger(trigger{t: ev.Time, cause: parser.CauseControllerFailover, controller: ev.Controller, partition: Unknown})
		}
	case parser.KindBrokerLifecycle:
		if len(t.Stats.BrokerEvents) < maxContext {
			t.Stats.BrokerEvents = append(t.Stats.BrokerEvents, BrokerEvent{Time: ev.Time, Broker: ev.Broker, Lifecycle: ev.Lifecycle, Ref: ref})
		}
	case parser.KindProducerError:
		t.producerError(src, ev, ref)
	case parser.KindISRChange:
		t.isrChange(ev, ref)
	case parser.KindTruncation:
		t.truncation(src, ev, ref)
	case parser.KindConsumer:
		if len(t.Stats.Consumers) < maxContext {
			t.Stats.Consumers = append(t.Stats.Consumers, ConsumerEvent{Time: ev.Time, ClientID: ev.ClientID, GroupID: ev.GroupID, Kind: ev.Consumer, Coordinator: ev.Broker, Text: ev.Text, Ref: ref})
		}
	case parser.KindProducerConfig:
		id := ev.ClientID
		if id == "" {
			id = t.srcClient[src]
		}
		c := t.client(id, src)
		c.Config = ev.Config
		c.Ref = ref
		t.srcClient[src] = c.ID
	case parser.KindClientVersion:
		// Brokers log "Kafka version" too: it belongs to a client only in a
		// source where a producer was seen (its config block comes first).
		if id, ok := t.srcClient[src]; ok {
			if c := t.Clients[id]; c != nil && c.Version == "" {
				c.Version = ev.Text
			}
		}
	}
}

func (t *Timeline) client(id string, src int) *Client {
	c := t.Clients[id]
	if c == nil {
		c = &Client{ID: id}
		t.Clients[id] = c
	}
	return c
}

// episode returns the episode for k, creating it. It reports nil when the
// key was already finished (the line is late).
func (t *Timeline) episode(k Key, at time.Time, ref Ref) *Episode {
	if e := t.episodes[k]; e != nil {
		if at.Sub(e.LastActivity) > t.cfg.Quiet && !e.Start.IsZero() {
			e.Late++
			t.Stats.Late++
			return nil
		}
		return e
	}
	ps := t.part(TP{k.Topic, k.Partition})
	if ps.maxEmitted != Unknown && k.LeaderEpoch <= ps.maxEmitted {
		t.Stats.Late++
		return nil
	}
	if len(t.episodes) >= t.cfg.MaxOpen {
		t.evictOldest()
	}
	e := &Episode{
		Key: k, Leader: Unknown, PreviousLeader: Unknown, Controller: Unknown, ControllerEpoch: Unknown,
		LastActivity: at,
	}
	if ps.lastEpoch != Unknown && ps.lastEpoch < k.LeaderEpoch {
		e.PreviousLeader = ps.lastLeader
	}
	if ps.prevHint != Unknown && at.Sub(ps.prevHintAt) <= t.cfg.TriggerWindow {
		e.PreviousLeader = ps.prevHint
		ps.prevHint = Unknown
	}
	t.episodes[k] = e
	ps.open = append(ps.open, e)
	t.Stats.Episodes++
	return e
}

// touch records that something happened in e at time at.
func (t *Timeline) touch(e *Episode, at time.Time, ref Ref) {
	if e.Start.IsZero() || at.Before(e.Start) {
		e.Start = at
	}
	if at.After(e.End) {
		e.End = at
	}
	if at.After(e.LastActivity) {
		e.LastActivity = at
	}
	if len(e.Evidence) < maxEvidence {
		e.Evidence = append(e.Evidence, ref)
	}
}

func (t *Timeline) setLeader(e *Episode, leader int32) {
	if leader == Unknown || e.Leader != Unknown {
		return
	}
	e.Leader = leader
	ps := t.part(TP{e.Topic, e.Partition})
	if ps.lastEpoch == Unknown || e.LeaderEpoch > ps.lastEpoch {
		ps.lastEpoch, ps.lastLeader = e.LeaderEpoch, leader
	}
	if p := ps.pending; p != nil && p.leader == leader && e.Start.Sub(p.t) <= t.cfg.TriggerWindow && e.Start.Sub(p.t) >= -time.Second {
		t.applyDecision(e, p.t, p.controller, p.ctrlEpoch, p.cause, p.unclean)
		touchTime := p.t
		ps.pending = nil
		t.touch(e, touchTime, p.ref)
	}
}

func (t *Timeline) applyDecision(e *Episode, at time.Time, controller, ctrlEpoch int32, cause parser.Cause, unclean bool) {
	if e.Decided.IsZero() || at.Before(e.Decided) {
		e.Decided = at
	}
	if controller != Unknown && e.Controller == Unknown {
		e.Controller = controller
	}
	if ctrlEpoch == Unknown && controller != Unknown {
		if ce, ok := t.ctrlEpoch[controller]; ok {
			ctrlEpoch = ce
		}
	}
	if ctrlEpoch != Unknown && e.ControllerEpoch == Unknown {
		e.ControllerEpoch = ctrlEpoch
	}
	if unclean {
		e.Unclean = true
		e.Cause = parser.CauseUnclean
	}
	if cause != parser.CauseUnknown && e.Cause != parser.CauseUnclean && e.Cause != parser.CauseNewPartition {
		if e.Cause == parser.CauseUnknown || cause == parser.CauseNewPartition || cause == parser.CauseUnclean {
			e.Cause = cause
		}
	}
	e.Transition = true
}

// phase handles a per-partition broker line.
func (t *Timeline) phase(src int, ev *parser.Event, ref Ref) {
	tp := TP{ev.Topic, ev.Partition}
	sb := srcBroker{src, ev.Broker}
	epoch := ev.LeaderEpoch
	if ev.Phase == parser.PhaseReceived && epoch != Unknown {
		m := t.corrs[sb]
		if m == nil {
			m = map[TP]corrRef{}
			t.corrs[sb] = m
		}
		m[tp] = corrRef{corr: ev.CorrelationID, key: Key{tp.Topic, tp.Partition, epoch}, t: ev.Time}
	}
	if epoch == Unknown {
		// TRACE lines after "received" carry only the correlation id.
		if m := t.corrs[sb]; m != nil {
			if c, ok := m[tp]; ok && (ev.CorrelationID < 0 || c.corr == ev.CorrelationID || c.corr < 0) {
				epoch = c.key.LeaderEpoch
				if ev.Phase == parser.PhaseCompleted {
					delete(m, tp)
				}
			}
		}
	}
	if epoch == Unknown && ev.CorrelationID < 0 && ev.Phase == parser.PhaseStoppedFetchers {
		// "Removed fetcher for partitions ..." comes before the new
		// leader's epoch line (ZK makeLeader, KRaft leaders) but after a
		// follower's: hold it until the broker's next line for the
		// partition says which epoch it belongs to.
		k := keyFetch(src, ev.Broker, tp)
		if _, ok := t.fetchHeld[k]; !ok {
			t.fetchHeld[k] = heldPhase{ev: *ev, ref: ref}
		}
		return
	}
	if held, ok := t.fetchHeld[keyFetch(src, ev.Broker, tp)]; ok && epoch != Unknown {
		delete(t.fetchHeld, keyFetch(src, ev.Broker, tp))
		if ev.Time.Sub(held.ev.Time) <= time.Second {
			// Not before the controller decided this epoch: a fetcher
			// removed earlier belongs to something else (a restart).
			if e := t.episodes[Key{tp.Topic, tp.Partition, epoch}]; e != nil && !e.Decided.IsZero() && held.ev.Time.Before(e.Decided) {
				t.Stats.Orphans++
			} else {
				h := held.ev
				h.LeaderEpoch = epoch
				defer t.phase(held.ref.Source, &h, held.ref)
			}
		} else {
			t.releaseHeld(src, held)
		}
	}
	if epoch == Unknown {
		// Fall back to the partition's newest open episode.
		if ps := t.parts[tp]; ps != nil && len(ps.open) > 0 {
			last := ps.open[len(ps.open)-1]
			if ev.Time.Sub(last.LastActivity) <= t.cfg.Quiet {
				epoch = last.LeaderEpoch
			}
		}
	}
	if epoch == Unknown {
		t.Stats.Orphans++
		return
	}
	e := t.episode(Key{tp.Topic, tp.Partition, epoch}, ev.Time, ref)
	if e == nil {
		return
	}
	bt := e.broker(ev.Broker)
	if bt.First == (Ref{}) {
		bt.First = ref
	}
	if bt.Role == parser.RoleUnknown && ev.Role != parser.RoleUnknown {
		bt.Role = ev.Role
	}
	first := bt.Phases[ev.Phase].IsZero()
	if first {
		bt.Phases[ev.Phase] = ev.Time
		t.touch(e, ev.Time, ref)
	} else {
		bt.Repeats++
	}
	if !ev.Metadata {
		e.Transition = true
		if e.Cause == parser.CauseUnknown {
			t.causeFromTrigger(e)
		}
	}
	noteFreshness(e, ev)
	if ev.Leader != Unknown {
		if ev.Role == parser.RoleLeader && ev.Broker != Unknown {
			t.setLeader(e, ev.Broker)
		} else {
			t.setLeader(e, ev.Leader)
		}
	} else if ev.Role == parser.RoleLeader && ev.Broker != Unknown {
		t.setLeader(e, ev.Broker)
	}
	if e.ISR == nil && ev.ISR != nil {
		e.ISR = ev.ISR
	}
	if e.Replicas == nil && ev.Replicas != nil {
		e.Replicas = ev.Replicas
	}
	if e.Controller == Unknown && ev.Controller != Unknown && !ev.Metadata {
		e.Controller = ev.Controller
	}
	if e.ControllerEpoch == Unknown && !ev.Metadata {
		if ev.StateControllerEpoch != Unknown {
			e.ControllerEpoch = ev.StateControllerEpoch
		} else if ev.ControllerEpoch != Unknown && ev.Phase == parser.PhaseReceived {
			e.ControllerEpoch = ev.ControllerEpoch
		}
	}
	// Request-level context (2.6+ INFO, KRaft): the partition belongs to the
	// broker's open request. A re-logged epoch (broker restart) does not:
	// that request's times are not this election's.
	if ev.Phase == parser.PhaseEpochStart && first {
		if rq := t.reqs[sb]; rq != nil && !rq.closed && ev.Time.Sub(rq.last) <= t.cfg.Quiet {
			if rq.role == parser.RoleUnknown || rq.role == ev.Role {
				if len(rq.members) < 1<<20 {
					rq.members = append(rq.members, member{key: e.Key, role: ev.Role})
				}
				rq.last = ev.Time
			}
		}
	}
}

func (t *Timeline) requestStart(src int, ev *parser.Event) {
	sb := srcBroker{src, ev.Broker}
	if rq := t.reqs[sb]; rq != nil && !rq.closed {
		t.closeRequest(rq)
	}
	rq := &request{corr: ev.CorrelationID, role: ev.Role, start: ev.Time, last: ev.Time, ctrl: ev.Controller, source: src, brokerID: ev.Broker}
	t.reqs[sb] = rq
}

func (t *Timeline) requestPhase(src int, ev *parser.Event) {
	sb := srcBroker{src, ev.Broker}
	if ev.Phase == parser.PhaseCached && ev.Broker == Unknown && ev.Controller != Unknown {
		t.controllerUpdateMetadata(ev)
		return
	}
	if ev.Phase == parser.PhaseCached && t.brokerUpdateMetadata(src, ev) {
		return
	}
	if ev.Phase == parser.PhaseCached {
		// "Add N partitions ... from metadata cache": the UpdateMetadata
		// that follows a LeaderAndIsr covers its partitions.
		if rq := t.reqs[sb]; rq != nil && !rq.closed {
			t.closeRequest(rq)
		}
		rq := t.lastReq[sb]
		if rq == nil || ev.Time.Sub(rq.last) > 5*time.Second || !rq.phases[0][parser.PhaseCached].IsZero() {
			return
		}
		rq.phases[0][parser.PhaseCached] = ev.Time
		for _, m := range rq.members {
			t.setPhase(m.key, ev.Broker, m.role, parser.PhaseCached, ev.Time, Ref{Source: src, Line: ev.Line}, true)
		}
		return
	}
	rq := t.reqs[sb]
	if rq == nil || rq.closed {
		return
	}
	if rq.phases[ev.Role][ev.Phase].IsZero() {
		rq.phases[ev.Role][ev.Phase] = ev.Time
	}
	if ev.Cause != parser.CauseUnknown {
		for _, m := range rq.members {
			if e := t.episodes[m.key]; e != nil && e.Cause == parser.CauseUnknown {
				e.Cause, e.CauseBrokers = ev.Cause, []int32{ev.Broker}
			}
		}
	}
	rq.last = ev.Time
	// KRaft has no end-of-request line: fetchers started ends the follower batch.
	if ev.Phase == parser.PhaseStartedFetcher && rq.role == parser.RoleFollower {
		t.closeRequest(rq)
	}
}

func (t *Timeline) requestFinished(src int, ev *parser.Event) {
	sb := srcBroker{src, ev.Broker}
	rq := t.reqs[sb]
	if rq == nil || rq.closed || (rq.corr >= 0 && ev.CorrelationID >= 0 && rq.corr != ev.CorrelationID) {
		return
	}
	rq.finished = ev.Time
	rq.elapsed = ev.Elapsed
	rq.last = ev.Time
	t.closeRequest(rq)
}

// umBatch is an UpdateMetadata the controller sent for the partitions it
// had just decided (2.6+ INFO): the brokers' "Add N partitions" summaries
// say when each of them cached those leaders, replicas or not.
type umBatch struct {
	t       time.Time
	count   int32
	keys    []Key
	pending []int32 // brokers that have not logged it yet
}

func (t *Timeline) controllerUpdateMetadata(ev *parser.Event) {
	dec := t.recentDecisions[ev.Controller]
	if len(dec) == 0 {
		return
	}
	// The decisions since the last send, newest last: the batch is the
	// last Count of them.
	n := int(ev.Count)
	if n > len(dec) {
		n = len(dec)
	}
	b := &umBatch{t: ev.Time, count: ev.Count, keys: append([]Key(nil), dec[len(dec)-n:]...), pending: append([]int32(nil), ev.Subjects...)}
	t.recentDecisions[ev.Controller] = dec[:0]
	t.umBatches = append(t.umBatches, b)
	if len(t.umBatches) > 64 {
		t.umBatches = t.umBatches[len(t.umBatches)-64:]
	}
}

// brokerUpdateMetadata attributes a broker's "Add N partitions" to the
// oldest unclaimed controller batch of the same size that names it.
func (t *Timeline) brokerUpdateMetadata(src int, ev *parser.Event) bool {
	for _, b := range t.umBatches {
		if b.count != ev.Count || ev.Time.Before(b.t) || ev.Time.Sub(b.t) > t.cfg.Quiet {
			continue
		}
		for i, br := range b.pending {
			if br != ev.Broker {
				continue
			}
			b.pending = append(b.pending[:i], b.pending[i+1:]...)
			for _, k := range b.keys {
				t.setPhase(k, ev.Broker, parser.RoleUnknown, parser.PhaseCached, ev.Time, Ref{Source: src, Line: ev.Line}, true)
			}
			return true
		}
	}
	return false
}

// closeRequest applies a request's request-level times to its partitions.
func (t *Timeline) closeRequest(rq *request) {
	if rq.closed {
		return
	}
	rq.closed = true
	t.lastReq[srcBroker{rq.source, rq.brokerID}] = rq
	ref := Ref{Source: rq.source}
	for _, m := range rq.members {
		t.setPhase(m.key, rq.brokerID, m.role, parser.PhaseHandling, rq.start, ref, false)
		for _, role := range []parser.Role{m.role, parser.RoleUnknown} {
			for ph := parser.PhaseReceived; ph < parser.NumPhases; ph++ {
				if at := rq.phases[role][ph]; !at.IsZero() {
					t.setPhase(m.key, rq.brokerID, m.role, ph, at, ref, false)
				}
			}
		}
		if !rq.finished.IsZero() {
			t.setPhase(m.key, rq.brokerID, m.role, parser.PhaseFinished, rq.finished, ref, false)
			if e := t.episodes[m.key]; e != nil {
				e.broker(rq.brokerID).Elapsed = rq.elapsed
			}
		}
	}
}

// setPhase records a request-level time for one partition's broker timeline.
func (t *Timeline) setPhase(k Key, broker int32, role parser.Role, ph parser.Phase, at time.Time, ref Ref, metadata bool) {
	e := t.episodes[k]
	if e == nil {
		return
	}
	bt := e.broker(broker)
	if bt.Role == parser.RoleUnknown {
		bt.Role = role
	}
	if bt.Phases[ph].IsZero() {
		bt.Phases[ph] = at
		if at.Before(e.Start) {
			e.Start = at
		}
		if at.After(e.End) {
			e.End = at
		}
	} else if metadata {
		bt.Repeats++
	}
}

func (t *Timeline) decision(ev *parser.Event, ref Ref) {
	tp := TP{ev.Topic, ev.Partition}
	ps := t.part(tp)
	if ev.LeaderEpoch == Unknown {
		if ev.Leader == Unknown {
			return
		}
		if ev.Cause == parser.CausePreferred {
			// "Partition t-p completed preferred replica leader election.
			// New leader is L" comes after the election it names.
			for i := len(ps.open) - 1; i >= 0; i-- {
				e := ps.open[i]
				if e.Leader == ev.Leader && ev.Time.Sub(e.LastActivity) <= t.cfg.Quiet {
					if e.Cause == parser.CauseUnknown {
						e.Cause = parser.CausePreferred
					}
					break
				}
			}
			return
		}
		// "elected leader L", "changed partition ... with leader L" (≤1.0)
		// print no epoch and come before the LeaderAndIsr that carries the
		// new one: they belong to the next episode with that leader.
		if p := ps.pending; p != nil && p.leader == ev.Leader && ev.Time.Sub(p.t) <= t.cfg.Quiet {
			// "elected leader L" then "changed partition ... with leader L":
			// one decision; keep the first time and the most specific cause.
			if p.cause == parser.CauseUnknown {
				p.cause = ev.Cause
			}
			p.unclean = p.unclean || ev.Unclean
			return
		}
		ps.pending = &pendingDecision{t: ev.Time, leader: ev.Leader, controller: ev.Controller, ctrlEpoch: ev.ControllerEpoch, cause: ev.Cause, unclean: ev.Unclean, ref: ref}
		return
	}
	e := t.episode(Key{tp.Topic, tp.Partition, ev.LeaderEpoch}, ev.Time, ref)
	if e == nil {
		return
	}
	if ev.PrevLeader != Unknown {
		e.PreviousLeader = ev.PrevLeader
	}
	ctrlEpoch := ev.StateControllerEpoch
	if ctrlEpoch == Unknown {
		ctrlEpoch = ev.ControllerEpoch
	}
	noteFreshness(e, ev)
	if ev.Metadata {
		if e.SentUpdateMetadata.IsZero() {
			e.SentUpdateMetadata = ev.Time
			t.touch(e, ev.Time, ref)
		}
		if e.Controller == Unknown {
			e.Controller = ev.Controller
		}
		if e.ControllerEpoch == Unknown {
			e.ControllerEpoch = ctrlEpoch
		}
	} else {
		if ev.Broker != Unknown && (ev.Role == parser.RoleLeader || ev.Role == parser.RoleFollower) {
			// "Sending become-leader LeaderAndIsr request ... to broker B"
			if e.SentLeaderAndIsr.IsZero() {
				e.SentLeaderAndIsr = ev.Time
			}
			bt := e.broker(ev.Broker)
			if bt.Role == parser.RoleUnknown {
				bt.Role = ev.Role
			}
		}
		t.applyDecision(e, ev.Time, ev.Controller, ctrlEpoch, ev.Cause, ev.Unclean)
		t.touch(e, ev.Time, ref)
		if ev.Controller != Unknown && ev.Broker == Unknown {
			if d := t.recentDecisions[ev.Controller]; len(d) < 100000 && (len(d) == 0 || d[len(d)-1] != e.Key) {
				t.recentDecisions[ev.Controller] = append(d, e.Key)
			}
		}
		if !ps.started.IsZero() && ev.Time.Sub(ps.started) >= 0 && ev.Time.Sub(ps.started) <= t.cfg.TriggerWindow {
			if e.Cause == parser.CauseUnknown || e.Cause == parser.CauseOfflinePartition {
				e.Cause = ps.startedCause
			}
			t.touch(e, ps.started, ps.startedRef)
			ps.started = time.Time{}
		}
	}
	if e.ISR == nil {
		e.ISR = ev.ISR
	}
	if e.Replicas == nil {
		e.Replicas = ev.Replicas
	}
	t.setLeader(e, ev.Leader)
	if !ev.Metadata && (e.Cause == parser.CauseUnknown || e.Cause == parser.CauseOfflinePartition) {
		t.causeFromTrigger(e)
	}
	if len(e.CauseBrokers) == 0 && len(ev.Subjects) > 0 {
		// "after removing replica R from the ISR": R is the broker it is about.
		e.CauseBrokers = ev.Subjects
	}
}

func (t *Timeline) addTrigger(tr trigger) {
	t.triggers = append(t.triggers, tr)
	if len(t.triggers) > 256 {
		copy(t.triggers, t.triggers[128:])
		t.triggers = t.triggers[:len(t.triggers)-128]
	}
}

func (t *Timeline) trigger(ev *parser.Event, ref Ref) {
	if ev.Topic != "" && ev.Partition != Unknown {
		ps := t.part(TP{ev.Topic, ev.Partition})
		if ev.PrevLeader != Unknown {
			ps.prevHint, ps.prevHintAt = ev.PrevLeader, ev.Time
		}
	}
	if ev.Topic != "" && ev.Partition != Unknown && ev.PrevLeader == Unknown {
		// "Starting replica leader election (PREFERRED) for partitions ...":
		// the election of this partition starts here.
		ps := t.part(TP{ev.Topic, ev.Partition})
		ps.started, ps.startedCause, ps.startedRef = ev.Time, ev.Cause, ref
		return
	}
	tr := trigger{t: ev.Time, cause: ev.Cause, brokers: ev.Subjects, controller: ev.Controller, topic: ev.Topic, partition: ev.Partition}
	if len(tr.brokers) == 0 && len(t.triggers) > 0 {
		// KRaft "handleBrokerFenced: changing N partition(s)" follows
		// "Fencing broker X" without naming X again.
		if last := t.triggers[len(t.triggers)-1]; last.cause == tr.cause && last.controller == tr.controller && tr.t.Sub(last.t) <= time.Second {
			tr.brokers = last.brokers
		}
	}
	t.addTrigger(tr)
	if len(t.Stats.BrokerEvents) < maxContext && (ev.Cause == parser.CauseBrokerFailure || ev.Cause == parser.CauseControlledShutdown || ev.Cause == parser.CauseBrokerFenced || ev.Cause == parser.CauseBrokerStartup || ev.Cause == parser.CauseBrokerUnfenced) {
		b := Unknown
		if len(ev.Subjects) > 0 {
			b = ev.Subjects[0]
		}
		t.Stats.BrokerEvents = append(t.Stats.BrokerEvents, BrokerEvent{Time: ev.Time, Broker: b, Cause: ev.Cause, Brokers: ev.Subjects, Ref: ref})
	}
}

// causeFromTrigger blames the most recent trigger before the episode.
func (t *Timeline) causeFromTrigger(e *Episode) {
	at := e.Start
	if !e.Decided.IsZero() {
		at = e.Decided
	}
	// Prefer the newest trigger at or before the decision; one logged up to
	// 10 ms after it (threads racing) only when none came before. Live
	// input can deliver a controller.log ahead of the state-change.log, so
	// "newest seen" is not enough.
	if !t.pickTrigger(e, at, at) {
		t.pickTrigger(e, at, at.Add(10*time.Millisecond))
	}
}

func (t *Timeline) pickTrigger(e *Episode, at, latest time.Time) bool {
	for i := len(t.triggers) - 1; i >= 0; i-- {
		tr := t.triggers[i]
		if tr.t.After(latest) {
			continue
		}
		if at.Sub(tr.t) > t.cfg.TriggerWindow {
			continue
		}
		if tr.topic != "" && (tr.topic != e.Topic || tr.partition != e.Partition) {
			continue
		}
		if e.Controller != Unknown && tr.controller != Unknown && tr.controller != e.Controller && tr.cause != parser.CauseControllerFailover {
			continue
		}
		if tr.cause == parser.CauseBrokerStartup && e.Cause == parser.CauseUnknown {
			// A broker joining moves leaders only through preferred
			// elections, which have their own trigger; keep looking.
			continue
		}
		e.Cause = tr.cause
		e.CauseBrokers = tr.brokers
		if tr.cause == parser.CauseControllerFailover && e.PreviousLeader >= 0 && t.liveBrokers != nil && !at.Before(t.liveAt) && at.Sub(t.liveAt) <= t.cfg.TriggerWindow && !contains(t.liveBrokers, e.PreviousLeader) {
			// The new controller found the old leader dead (often the old
			// controller itself): a broker failure, seen through a failover.
			e.Cause = parser.CauseBrokerFailure
			e.CauseBrokers = []int32{e.PreviousLeader}
		}
		return true
	}
	return false
}

func (t *Timeline) producerError(src int, ev *parser.Event, ref Ref) {
	t.Stats.ProducerErrs++
	pe := &ProducerError{
		Time: ev.Time, ClientID: ev.ClientID, Topic: ev.Topic, Partition: ev.Partition, Error: ev.Error,
		AttemptsLeft: ev.AttemptsLeft, Final: ev.Final, Ref: ref, BrokerSide: ev.Broker != Unknown,
	}
	if ev.ClientID != "" {
		t.srcClient[src] = ev.ClientID
		t.client(ev.ClientID, src).Errors++
	} else if id, ok := t.srcClient[src]; ok {
		pe.ClientID = id
		if c := t.Clients[id]; c != nil {
			c.Errors++
		}
	}
	if ev.AttemptsLeft == 0 && ev.Partition != Unknown {
		m := t.retriesOut[pe.ClientID]
		if m == nil {
			m = map[string]struct {
				partition int32
				t         time.Time
			}{}
			t.retriesOut[pe.ClientID] = m
		}
		m[ev.Topic] = struct {
			partition int32
			t         time.Time
		}{ev.Partition, ev.Time}
	}
	if ev.TopicOnly {
		pe.Partition = Unknown
		pe.Inferred = true
		if m := t.retriesOut[pe.ClientID]; m != nil {
			if r, ok := m[ev.Topic]; ok && ev.Time.Sub(r.t) <= 30*time.Second && ev.Time.Sub(r.t) >= 0 {
				pe.Partition = r.partition
			}
		}
	}
	t.errs = append(t.errs, pe)
}

// Advance tells the timeline that no event older than now (minus the
// tolerances) will come: it matches waiting errors and hands finished
// episodes to the sink.
func (t *Timeline) Advance(now time.Time) {
	if now.After(t.watermark) {
		t.watermark = now
	}
	if len(t.errs) > 0 {
		t.matchErrors(t.watermark.Add(-t.cfg.SkewTolerance), false)
	}
	// The scans below walk every open request and episode: do them at most
	// once per second of log time, and only when something can be due.
	if t.watermark.Sub(t.lastSweep) < time.Second {
		return
	}
	t.lastSweep = t.watermark
	t.closeRequests(false)
	cutoff := t.watermark.Add(-t.cfg.EmitAfter)
	if !t.minEnd.IsZero() && t.minEnd.Before(cutoff) || len(t.episodes) >= t.cfg.MaxOpen {
		t.finish(cutoff, false)
	} else if t.minEnd.IsZero() && len(t.episodes) > 0 {
		t.finish(cutoff, false)
	}
}

// Close finishes everything.
func (t *Timeline) Close() {
	t.closeRequests(true)
	t.matchErrors(time.Time{}, true)
	t.finish(time.Time{}, true)
	t.flushBurst()
}

// releaseHeld gives a held fetcher phase to the episode the broker was
// already in: the partition's newest open episode, if this broker logged
// a phase for it before the fetcher line (a follower's own sequence).
func (t *Timeline) releaseHeld(src int, h heldPhase) {
	tp := TP{h.ev.Topic, h.ev.Partition}
	e := t.newestOpen(tp, h.ev.Time)
	if e == nil {
		t.Stats.Orphans++
		return
	}
	for _, bt := range e.Brokers {
		if bt.Broker != h.ev.Broker {
			continue
		}
		for ph := parser.PhaseReceived; ph < parser.NumPhases; ph++ {
			if at := bt.Phases[ph]; !at.IsZero() && !at.After(h.ev.Time) {
				ev := h.ev
				ev.LeaderEpoch = e.LeaderEpoch
				t.phase(src, &ev, h.ref)
				return
			}
		}
	}
	t.Stats.Orphans++
}

func (t *Timeline) closeRequests(all bool) {
	if len(t.fetchHeld) > 0 {
		var due []fetchKey
		for k, h := range t.fetchHeld {
			if all || t.watermark.Sub(h.ev.Time) > time.Second {
				due = append(due, k)
			}
		}
		// Map order is random; release in a fixed order.
		sort.Slice(due, func(i, j int) bool {
			a, b := t.fetchHeld[due[i]], t.fetchHeld[due[j]]
			if !a.ev.Time.Equal(b.ev.Time) {
				return a.ev.Time.Before(b.ev.Time)
			}
			return a.ref.Source < b.ref.Source || (a.ref.Source == b.ref.Source && a.ref.Line < b.ref.Line) ||
				(a.ref == b.ref && (due[i].tp.Topic < due[j].tp.Topic || (due[i].tp.Topic == due[j].tp.Topic && due[i].tp.Partition < due[j].tp.Partition)))
		})
		for _, k := range due {
			h := t.fetchHeld[k]
			delete(t.fetchHeld, k)
			t.releaseHeld(h.ref.Source, h)
		}
	}
	for _, rq := range t.reqs {
		if !rq.closed && (all || t.watermark.Sub(rq.last) > t.cfg.Quiet) {
			t.closeRequest(rq)
		}
	}
	if all || len(t.corrs) > 0 {
		for sb, m := range t.corrs {
			for tp, c := range m {
				if all || t.watermark.Sub(c.t) > t.cfg.Quiet {
					delete(m, tp)
				}
			}
			if len(m) == 0 {
				delete(t.corrs, sb)
			}
		}
	}
}

func (t *Timeline) matchErrors(before time.Time, all bool) {
	n := 0
	for _, pe := range t.errs {
		if !all && !pe.Time.Before(before) {
			t.errs[n] = pe
			n++
			continue
		}
		t.match(pe)
	}
	for i := n; i < len(t.errs); i++ {
		t.errs[i] = nil
	}
	t.errs = t.errs[:n]
}

func (t *Timeline) match(pe *ProducerError) {
	tol := t.cfg.SkewTolerance
	var cands []*Episode
	if pe.Partition != Unknown {
		if ps := t.parts[TP{pe.Topic, pe.Partition}]; ps != nil {
			cands = ps.open
		}
	} else if pe.Inferred {
		// Topic only: any partition of the topic whose election covers it.
		for tp, ps := range t.parts {
			if tp.Topic != pe.Topic {
				continue
			}
			for _, e := range ps.open {
				if !pe.Time.Before(e.Start.Add(-tol)) && !pe.Time.After(e.End.Add(tol)) {
					cands = append(cands, e)
				}
			}
		}
		sort.Slice(cands, func(i, j int) bool {
			if !cands[i].Start.Equal(cands[j].Start) {
				return cands[i].Start.Before(cands[j].Start)
			}
			return cands[i].Partition < cands[j].Partition
		})
		if len(cands) > 0 {
			pe.Partition = cands[len(cands)-1].Partition
		}
	}
	var during, after *Episode
	var recentDuring, recentAfter *finished
	if pe.Partition != Unknown {
		if ps := t.parts[TP{pe.Topic, pe.Partition}]; ps != nil {
			for i := range ps.recent {
				f := &ps.recent[i]
				if !pe.Time.Before(f.Start.Add(-tol)) && !pe.Time.After(f.End.Add(tol)) {
					recentDuring = f
				} else if f.End.Add(tol).Before(pe.Time) && pe.Time.Sub(f.End) <= t.cfg.StaleWindow {
					recentAfter = f
				}
			}
		}
	}
	for _, e := range cands {
		if !e.Transition {
			continue
		}
		if !pe.Time.Before(e.Start.Add(-tol)) && !pe.Time.After(e.End.Add(tol)) {
			if during == nil || e.Start.After(during.Start) {
				during = e
			}
		} else if e.End.Add(tol).Before(pe.Time) && pe.Time.Sub(e.End) <= t.cfg.StaleWindow {
			if after == nil || e.End.After(after.End) {
				after = e
			}
		}
	}
	switch {
	case during != nil:
		pe.Match = MatchDuring
		k := during.Key
		pe.Election = &k
		during.ProducerErrors++
	case after != nil:
		pe.Match = MatchAfter
		k := after.Key
		pe.Election = &k
		pe.Lag = pe.Time.Sub(after.End)
		after.ProducerErrors++
	case recentDuring != nil:
		pe.Match = MatchDuring
		k := recentDuring.Key
		pe.Election = &k
	case recentAfter != nil:
		pe.Match = MatchAfter
		k := recentAfter.Key
		pe.Election = &k
		pe.Lag = pe.Time.Sub(recentAfter.End)
	default:
		pe.Match = MatchNone
	}
	t.sink.ProducerError(pe)
}

// finish hands episodes whose end is before cutoff to the sink, ordered by
// start time (then key), and groups them into bursts.
func (t *Timeline) finish(cutoff time.Time, all bool) {
	var done []*Episode
	t.minEnd = time.Time{}
	for _, e := range t.episodes {
		if all || e.End.Before(cutoff) {
			done = append(done, e)
		} else if t.minEnd.IsZero() || e.End.Before(t.minEnd) {
			t.minEnd = e.End
		}
	}
	if len(done) == 0 {
		return
	}
	t.emit(done)
}

func lessEpisode(a, b *Episode) bool {
	if !a.Start.Equal(b.Start) {
		return a.Start.Before(b.Start)
	}
	if a.Topic != b.Topic {
		return a.Topic < b.Topic
	}
	if a.Partition != b.Partition {
		return a.Partition < b.Partition
	}
	return a.LeaderEpoch < b.LeaderEpoch
}

func (t *Timeline) emit(done []*Episode) {
	sort.Slice(done, func(i, j int) bool { return lessEpisode(done[i], done[j]) })
	for _, e := range done {
		delete(t.episodes, e.Key)
		tp := TP{e.Topic, e.Partition}
		ps := t.parts[tp]
		if ps != nil {
			for i, o := range ps.open {
				if o == e {
					ps.open = append(ps.open[:i], ps.open[i+1:]...)
					break
				}
			}
			if ps.maxEmitted == Unknown || e.LeaderEpoch > ps.maxEmitted {
				ps.maxEmitted = e.LeaderEpoch
			}
			if t.cfg.EmitAfter < t.cfg.StaleWindow && e.Transition {
				// Handed over early (live): keep what matching needs.
				ps.recent = append(ps.recent, finished{Key: e.Key, Start: e.Start, End: e.End})
				if len(ps.recent) > 8 {
					ps.recent = ps.recent[len(ps.recent)-8:]
				}
			}
		}
		t.fillRoles(e)
		e.Resent = e.resentSeen && !e.freshSeen
		if e.LeaderEpoch == 0 && e.Cause == parser.CauseUnknown && !e.Resent && e.Transition {
			// Leader epochs start at 0 when a partition is created.
			e.Cause = parser.CauseNewPartition
		}
		if e.Transition && !e.Resent {
			t.addToBurst(e)
		}
		t.sink.Episode(e)
	}
}

// newestOpen returns the partition's newest episode still active at.
func (t *Timeline) newestOpen(tp TP, at time.Time) *Episode {
	ps := t.parts[tp]
	if ps == nil || len(ps.open) == 0 {
		return nil
	}
	e := ps.open[len(ps.open)-1]
	if at.Sub(e.LastActivity) > t.cfg.Quiet {
		return nil
	}
	return e
}

func (t *Timeline) isrChange(ev *parser.Event, ref Ref) {
	if len(t.Stats.ISRChanges) >= maxContext {
		return
	}
	if ev.Rejected {
		// "Cached zkVersion ... not equal": the shrink just before it
		// never happened.
		for i := len(t.Stats.ISRChanges) - 1; i >= 0 && i >= len(t.Stats.ISRChanges)-64; i-- {
			c := &t.Stats.ISRChanges[i]
			if c.Topic == ev.Topic && c.Partition == ev.Partition && c.Broker == ev.Broker {
				c.Rejected = true
				return
			}
		}
		return
	}
	t.Stats.ISRChanges = append(t.Stats.ISRChanges, ISRChange{Time: ev.Time, Broker: ev.Broker, Topic: ev.Topic, Partition: ev.Partition,
		Kind: ev.Text, From: ev.PrevISR, To: ev.ISR, Ref: ref})
}

func (t *Timeline) truncation(src int, ev *parser.Event, ref Ref) {
	tr := Truncation{Time: ev.Time, Broker: ev.Broker, Topic: ev.Topic, Partition: ev.Partition, Offset: ev.Offset,
		Refused: ev.Unclean, EndOffset: ev.EndOffset, Ref: ref}
	if len(t.Stats.Truncations) < maxContext && ev.Text != "noop" {
		t.Stats.Truncations = append(t.Stats.Truncations, tr)
	}
	e := t.newestOpen(TP{ev.Topic, ev.Partition}, ev.Time)
	if e == nil {
		return
	}
	if len(e.Truncations) < 16 && ev.Text != "noop" {
		e.Truncations = append(e.Truncations, tr)
	}
	if tr.Refused {
		e.Unclean = true
		e.Cause = parser.CauseUnclean
	}
	if ev.Broker != Unknown {
		// The fetcher's truncation is the per-partition "truncated" phase
		// that 2.6+ no longer writes to state-change.log.
		bt := e.broker(ev.Broker)
		if bt.Phases[parser.PhaseTruncated].IsZero() {
			bt.Phases[parser.PhaseTruncated] = ev.Time
			t.touch(e, ev.Time, ref)
		}
	}
}

func contains(v []int32, x int32) bool {
	for _, y := range v {
		if y == x {
			return true
		}
	}
	return false
}

// noteFreshness compares the controller epoch inside the partition state
// (who decided it) with the epoch of the controller sending it: an older
// one means the state is being re-sent (a broker restarted, a controller
// failed over), not decided now.
func noteFreshness(e *Episode, ev *parser.Event) {
	if ev.Metadata || ev.StateControllerEpoch == Unknown || ev.ControllerEpoch == Unknown {
		return
	}
	if ev.StateControllerEpoch < ev.ControllerEpoch {
		e.resentSeen = true
	} else {
		e.freshSeen = true
	}
}

// fillRoles names the role of brokers that only cached metadata.
func (t *Timeline) fillRoles(e *Episode) {
	for _, bt := range e.Brokers {
		if bt.Role != parser.RoleUnknown {
			continue
		}
		if e.Leader != Unknown && bt.Broker == e.Leader {
			bt.Role = parser.RoleLeader
			continue
		}
		for _, r := range e.Replicas {
			if r == bt.Broker {
				bt.Role = parser.RoleFollower
			}
		}
	}
}

func (t *Timeline) addToBurst(e *Episode) {
	b := t.burst
	if b != nil && (e.Start.Sub(b.End) > t.cfg.BurstGap || e.Start.Before(b.Start.Add(-t.cfg.BurstGap)) || e.Cause != b.Cause) {
		t.flushBurst()
		b = nil
	}
	if b == nil {
		t.nextBurstID++
		b = &Burst{ID: t.nextBurstID, Start: e.Start, End: e.Start, Cause: e.Cause, CauseBrokers: e.CauseBrokers}
		t.burst = b
	}
	if e.Start.After(b.End) {
		b.End = e.Start
	}
	b.Episodes++
	d := e.Duration()
	b.Durations = append(b.Durations, d)
	if b.Episodes == 1 || d > b.SlowestDur {
		b.Slowest, b.SlowestDur = e.Key, d
	}
	e.BurstID = b.ID
}

func (t *Timeline) flushBurst() {
	if t.burst != nil {
		t.sink.Burst(t.burst)
		t.burst = nil
	}
}

func (t *Timeline) evictOldest() {
	var oldest *Episode
	for _, e := range t.episodes {
		if oldest == nil || e.LastActivity.Before(oldest.LastActivity) {
			oldest = e
		}
	}
	if oldest != nil {
		t.Stats.Evicted++
		t.matchErrors(oldest.End.Add(t.cfg.StaleWindow), false)
		t.emit([]*Episode{oldest})
	}
}

// Open returns the episodes not yet finished, newest first (for live views).
func (t *Timeline) Open() []*Episode {
	out := make([]*Episode, 0, len(t.episodes))
	for _, e := range t.episodes {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return lessEpisode(out[j], out[i]) })
	return out
}

// Watermark is the newest time the timeline has seen.
func (t *Timeline) Watermark() time.Time { return t.watermark }
