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
	// idx: open episodes in Start order, for matching producer errors.
	idx matchIndex
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

type srcBroker struct {
	src    int
	broker int32
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
	corrs    map[corrKey]corrRef
	// corrBase: what corrRef.at counts from (the first "received" line
	// while none was kept).
	corrBase time.Time
	topicIDs map[string]int32
	// fetchHeld: epoch-less "Removed fetcher" phases waiting for the
	// broker's next line about the partition.
	// The values are pointers, from heldFree when one is there: a
	// parser.Event is too big for a map to keep in place, so a value
	// map allocated one per held line.
	fetchHeld map[fetchKey]*heldPhase
	heldFree  []*heldPhase
	triggers  []trigger

	errs []*ProducerError // waiting for the watermark to pass t + tolerance
	// byTopic: each topic's open episodes in Start order, for final
	// failures that name only the topic.
	byTopic map[string]*matchIndex

	Clients   map[string]*Client
	srcClient map[int]string
	ctrlEpoch map[int32]int32 // ZK controller id → its controller epoch, from failover lines
	// recentDecisions: per controller, the partitions decided since its last
	// UpdateMetadata summary; umBatches: those summaries waiting for brokers.
	recentDecisions map[int32][]Key
	umBatches       []*umBatch
	liveBrokers     []int32 // brokers a new controller found alive
	// life: each broker's latest lifecycle lines, for telling a broker
	// that was not serving when a decision was made; lastSeen: the time of
	// each broker's latest line from its own logs.
	life        map[int32]*brokerLife
	lastSeen    map[int32]time.Time
	liveAt      time.Time
	watermark   time.Time
	lastSweep   time.Time // watermark at the last sweep of open requests and episodes
	minEnd      time.Time // earliest End among open episodes at the last sweep
	burst       *Burst
	nextBurstID int
	ready       []*Episode
	timers      timers
	timerSeq    uint64
	slab        brokerSlab
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
		corrs:           map[corrKey]corrRef{},
		topicIDs:        map[string]int32{},
		fetchHeld:       map[fetchKey]*heldPhase{},
		Clients:         map[string]*Client{},
		srcClient:       map[int]string{},
		ctrlEpoch:       map[int32]int32{},
		recentDecisions: map[int32][]Key{},
		life:            map[int32]*brokerLife{},
		lastSeen:        map[int32]time.Time{},
		byTopic:         map[string]*matchIndex{},
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
	if len(t.timers) > 0 {
		t.runTimers(ev.Time)
	}
	ref := Ref{Source: src, Line: ev.Line}
	t.seen(ev)
	if ev.Leader == LeaderDuringDelete && (ev.Kind == parser.KindDecision || ev.Kind == parser.KindPhase) {
		// The ZK controller's UpdateMetadata for a topic being deleted
		// states leader -2 (LeaderAndIsr.LeaderDuringDelete): the brokers
		// drop the partition from their caches; nothing is elected.
		t.Stats.DeletionMarkers++
		return
	}
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
		t.lifecycle(ev)
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
	case parser.KindUnknownConfig:
		if len(t.Stats.UnknownConfigs) < maxContext {
			// logUnused() runs at the end of the client's constructor,
			// after its config block: that block's client is this one.
			uc := UnknownConfig{Time: ev.Time, Class: ev.Text, Keys: ev.Config, Values: ev.Values, ClientID: ev.ClientID, Ref: ref}
			if id, ok := t.srcClient[src]; ok && ev.Text == "ProducerConfig" {
				uc.ClientID, uc.Producer = id, true
			}
			t.Stats.UnknownConfigs = append(t.Stats.UnknownConfigs, uc)
		}
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
		if t.due(e, at) {
			// Handed over as of at, whether or not a sweep has run since.
			t.Stats.Late++
			return nil
		}
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
	e.firstSeen = ps.lastEpoch == Unknown
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
	// The match index orders by Start and End alone: most lines of an
	// election fall inside them and leave it as it is.
	changed := !e.indexed
	if e.Start.IsZero() || at.Before(e.Start) {
		e.Start, changed = at, true
	}
	if at.After(e.End) {
		e.End, changed = at, true
	}
	if at.After(e.LastActivity) {
		e.LastActivity = at
	}
	if changed {
		t.moved(e)
	}
	if len(e.Evidence) < maxEvidence {
		if e.Evidence == nil {
			e.Evidence = e.evidence[:0]
		}
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
		e.chosen = true
		touchTime := p.t
		ps.pending = nil
		t.touch(e, touchTime, p.ref)
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
	tr := trigger{t: ev.Time, cause: ev.Cause, brokers: ev.Subjects, controller: ev.Controller, topic: ev.Topic, partition: ev.Partition, count: ev.Count, ref: ref}
	if len(tr.brokers) == 0 && len(t.triggers) > 0 {
		// KRaft "handleBrokerFenced: changing N partition(s)" follows
		// "Fencing broker X" without naming X again.
		if last := t.triggers[len(t.triggers)-1]; last.cause == tr.cause && last.controller == tr.controller && tr.t.Sub(last.t) <= time.Second {
			tr.brokers, tr.lastSeen = last.brokers, last.lastSeen
		}
	}
	if len(ev.Subjects) == 1 && (ev.Cause == parser.CauseBrokerFailure || ev.Cause == parser.CauseBrokerFenced) {
		if at, ok := t.lastSeen[ev.Subjects[0]]; ok && ev.Time.Sub(at) <= t.cfg.TriggerWindow && !at.After(ev.Time) {
			tr.lastSeen = at
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

// Advance tells the timeline that no event older than now (minus the
// tolerances) will come: it matches waiting errors and hands finished
// episodes to the sink.
func (t *Timeline) Advance(now time.Time) {
	if now.After(t.watermark) {
		t.watermark = now
	}
	// A live view advances on the clock while no line comes: what falls
	// due meanwhile is decided as a line would have found it.
	if len(t.timers) > 0 {
		t.runTimers(t.watermark)
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

// finish hands episodes whose end is before cutoff to the sink, ordered by
// start time (then key), and groups them into bursts.
//
// A due episode that starts after one still open waits for it, so that the
// sink sees elections in start order whatever the sweeps' cadence (how
// many events came between them, which differs between a directory and a
// store, or with one more producer log); not behind one open for longer
// than EmitAfter, which only a broker logging new phases of one epoch for
// that long could keep open.
func (t *Timeline) finish(cutoff time.Time, all bool) {
	var done []*Episode
	var first *Episode // the first, in start order, of those not due
	t.minEnd = time.Time{}
	for _, e := range t.episodes {
		if all || t.due(e, t.watermark) {
			done = append(done, e)
			continue
		}
		if t.minEnd.IsZero() || e.End.Before(t.minEnd) {
			t.minEnd = e.End
		}
		if !e.Start.Before(cutoff.Add(-t.cfg.EmitAfter)) && (first == nil || lessEpisode(e, first)) {
			first = e
		}
	}
	if first != nil {
		n := 0
		for _, e := range done {
			if lessEpisode(e, first) {
				done[n] = e
				n++
			} else if t.minEnd.IsZero() || e.End.Before(t.minEnd) {
				t.minEnd = e.End
			}
		}
		done = done[:n]
	}
	if len(done) == 0 {
		return
	}
	t.emit(done)
}

// due reports whether e is handed to the sink as of at: EmitAfter past its
// end and quiet (a --stale-window shorter than --quiet does not cut an
// election that is still logging). A line for it after that is late, as it
// is once a sweep has handed it over; deciding by the line's time keeps
// the sweeps' cadence out of the result.
func (t *Timeline) due(e *Episode, at time.Time) bool {
	return !e.End.IsZero() && at.Sub(e.End) > t.cfg.EmitAfter && at.Sub(e.LastActivity) > t.cfg.Quiet
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
		t.unindex(e)
		tp := TP{e.Topic, e.Partition}
		ps := t.parts[tp]
		if ps != nil {
			if len(ps.open) > 0 && ps.open[0] == e {
				// Oldest first, the usual case: no copy of the rest.
				ps.open[0] = nil
				ps.open = ps.open[1:]
			} else {
				for i, o := range ps.open {
					if o == e {
						ps.open = append(ps.open[:i], ps.open[i+1:]...)
						break
					}
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
		// Carried over only on the brokers' own word (lifecycle lines), not
		// because the trigger named them.
		e.CarriedOver = carriedOver(e)
		t.markCatchUp(e)
		// Its brokers, roles and times are final: measure it once.
		e.meas = packMeasures(e.Measures())
		if e.LeaderEpoch == 0 && e.Cause == parser.CauseUnknown && !e.Resent && !e.CarriedOver && e.Transition {
			// Leader epochs start at 0 when a partition is created.
			e.Cause = parser.CauseNewPartition
		}
		if InBurst(e) {
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
