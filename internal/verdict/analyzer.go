package verdict

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/report"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// Bounds on what the analyzer keeps (besides one small record per partition).
const (
	maxClients       = 1024
	maxClientTopics  = 64
	maxClientParts   = 1024
	maxClientKeys    = 256
	maxClientFinals  = 64
	maxClientRefs    = 8
	maxLagSample     = 2048
	maxInterest      = 16384
	maxRecent        = 4096
	maxRuns          = 65536
	maxBrokerRuns    = 4096
	maxUnclean       = 64
	maxSlow          = 10
	maxOffline       = 64
	maxOffsetsMoves  = 64
	maxRunChanges    = 12
	maxNone          = 1024
	maxBrokersSeen   = 4096
	maxAbsentSpans   = 64
	maxSpanGap       = 5 * time.Minute
	runGap           = time.Second
	maxEpisodeRefs   = 4
	offsetsTopicName = "__consumer_offsets"
)

// change is one leader move of a partition.
type change struct {
	t           time.Time
	epoch       int32
	from, to    int32
	cause       parser.Cause
	causeBroker int32 // first of Episode.CauseBrokers, or Unknown
	unclean     bool
	ref         timeline.Ref
	trunc       *trunc // the first replica that cut records after it
}

// trunc is a replica cutting its log after a leader change: records it
// had and the new leader did not are gone ([offset, end) when end is known).
type trunc struct {
	t       time.Time
	broker  int32
	offset  int64
	end     int64 // 0: not logged
	refused bool  // "log truncation is not allowed": the new leader was unclean
	ref     timeline.Ref
}

func (tr *trunc) text() string {
	if tr.refused {
		return fmt.Sprintf("broker %s refused to truncate to offset %d (its log ends at %d: offsets %d–%d are lost)", itoa(tr.broker), tr.offset, tr.end, tr.offset, tr.end-1)
	}
	if tr.end > tr.offset {
		return fmt.Sprintf("broker %s truncated offsets %d–%d", itoa(tr.broker), tr.offset, tr.end-1)
	}
	return fmt.Sprintf("broker %s truncated its log to offset %d", itoa(tr.broker), tr.offset)
}

// truncs copies an episode's truncations (bounded), the old leader's first.
func truncs(e *timeline.Episode, prev int32, n int) []trunc {
	if len(e.Truncations) == 0 {
		return nil
	}
	out := make([]trunc, 0, min(n, len(e.Truncations)))
	for pass := 0; pass < 2; pass++ {
		for _, x := range e.Truncations {
			if (pass == 0) != (x.Broker == prev && prev >= 0) || len(out) >= n {
				continue
			}
			out = append(out, trunc{t: x.Time, broker: x.Broker, offset: x.Offset, end: x.EndOffset, refused: x.Refused, ref: x.Ref})
		}
	}
	return out
}

// hard: the old leader went away without handing over (broker failure,
// fence, offline partition) or the new one came from outside the ISR.
func (c *change) hard() bool {
	if c.unclean {
		return true
	}
	switch c.cause {
	case parser.CauseBrokerFailure, parser.CauseBrokerFenced, parser.CauseOfflinePartition, parser.CauseUnclean:
		return true
	}
	return false
}

// flapRun is a stretch of changes each completing FlapChanges within FlapWindow.
type flapRun struct {
	start, end time.Time
	n          int
	changes    []change
}

// offWin is a time a partition had no leader.
type offWin struct {
	tp         timeline.TP
	epoch      int32
	start, end time.Time // end zero: still open
	ref        timeline.Ref
	endRef     timeline.Ref
	replicas   []int32
}

// partAgg is what the analyzer remembers per partition.
type partAgg struct {
	lastLeader, lastEpoch int32 // newest epoch with a known leader (may be -1)
	realLeader, realEpoch int32 // newest epoch with a leader ≥ 0
	replicas              []int32
	changes               int
	firstChange           time.Time
	lastChange            time.Time
	ring                  []change // the newest changes, oldest first
	run, best             *flapRun
	off                   *offWin
	moves                 []change // __consumer_offsets only: leader moves incl. to/from -1
}

// run is a stretch of elections less than runGap apart.
type run struct {
	start, end time.Time
	n, moved   int
	unknown    int // elections whose previous leader no line shows
}

type runs struct {
	list    []run
	max     int // 0: maxRuns
	dropped int
}

func (r *runs) add(t time.Time, moved, unknown bool) {
	m, u := 0, 0
	if moved {
		m = 1
	}
	if unknown {
		u = 1
	}
	if n := len(r.list); n > 0 {
		last := &r.list[n-1]
		if !t.Before(last.start.Add(-runGap)) && !t.After(last.end.Add(runGap)) {
			last.n++
			last.moved += m
			last.unknown += u
			if t.After(last.end) {
				last.end = t
			}
			if t.Before(last.start) {
				last.start = t
			}
			return
		}
	}
	limit := r.max
	if limit <= 0 {
		limit = maxRuns
	}
	if len(r.list) >= limit {
		r.dropped++
		return
	}
	r.list = append(r.list, run{start: t, end: t, n: 1, moved: m, unknown: u})
}

// count sums the elections, leader moves and elections with an unknown
// previous leader of the runs starting in [from, to].
func (r *runs) count(from, to time.Time) (n, moved, unknown int) {
	for _, x := range r.list {
		if !x.start.Before(from) && !x.start.After(to) {
			n += x.n
			moved += x.moved
			unknown += x.unknown
		}
	}
	return
}

// epSum is an episode reduced to what the client verdicts need.
type epSum struct {
	filled              bool
	key                 timeline.Key
	start, end, decided time.Time
	leader, prev        int32
	cause               parser.Cause
	causeBrokers        []int32
	unclean, changed    bool
	refs                []timeline.Ref
	truncs              []trunc
	// notLeaderFrom/To: when producers were told NOT_LEADER (the
	// timeline's NotLeaderWindow); hasNotLeader: the new leader's
	// readiness was logged.
	notLeaderFrom, notLeaderTo time.Time
	hasNotLeader               bool
}

func (s *epSum) dur() time.Duration { return s.end.Sub(s.start) }

// slowEp is a slow election and its slowest step.
type slowEp struct {
	key      timeline.Key
	start    time.Time
	dur      time.Duration
	step     string
	stepDur  time.Duration
	worst    time.Duration
	refs     []timeline.Ref
	stepRef  timeline.Ref
	cause    parser.Cause
	brokers  int
	elapsed  time.Duration
	elapsedB int32
}

type finalErr struct {
	t     time.Time
	err   string
	tp    timeline.TP
	key   *timeline.Key
	match timeline.Match
	lag   time.Duration
	ref   timeline.Ref
}

type clientKey struct {
	id  string
	src int // -1 when id is set
}

// clientAgg aggregates one producer's errors.
type clientAgg struct {
	key         clientKey
	srcs        map[int]int
	n, finals   int
	notLeader   int
	matched     int
	byErr       map[string]int
	first, last time.Time
	refs        []timeline.Ref
	topics      map[string]struct{}
	parts       map[timeline.TP]int
	keys        map[timeline.Key]bool // matched elections; true: a NOT_LEADER-type error among them
	finalsNL    []finalErr
	finalsNLN   int
	after       int
	lags        []time.Duration
	lagMax      time.Duration
	lagSum      time.Duration
	afterRefs   []timeline.Ref
	afterKeys   map[timeline.Key]int
	// retried: per election, the retries it cost (retry-margin).
	retried map[timeline.Key]*retryUse
	rng     uint64
}

// retryUse is how much of its retry budget a producer spent on one election.
type retryUse struct {
	n           int
	minLeft     int64 // fewest attempts left a retry line named; -1 unknown
	minRef      timeline.Ref
	first, last time.Time
	firstRef    timeline.Ref
	final       bool // a send failed for good in this election
}

func (u *retryUse) add(pe *timeline.ProducerError) {
	if pe.Final {
		u.final = true
		return
	}
	u.n++
	if u.first.IsZero() || pe.Time.Before(u.first) {
		u.first, u.firstRef = pe.Time, pe.Ref
	}
	if pe.Time.After(u.last) {
		u.last = pe.Time
	}
	if pe.AttemptsLeft >= 0 && (u.minLeft < 0 || pe.AttemptsLeft < u.minLeft) {
		u.minLeft, u.minRef = pe.AttemptsLeft, pe.Ref
	}
}

func (u *retryUse) merge(b *retryUse) {
	u.final = u.final || b.final
	u.n += b.n
	if !b.first.IsZero() && (u.first.IsZero() || b.first.Before(u.first)) {
		u.first, u.firstRef = b.first, b.firstRef
	}
	if b.last.After(u.last) {
		u.last = b.last
	}
	if b.minLeft >= 0 && (u.minLeft < 0 || b.minLeft < u.minLeft) {
		u.minLeft, u.minRef = b.minLeft, b.minRef
	}
}

// noneAgg counts errors no election explains, per partition.
type noneAgg struct {
	n           int
	clients     map[string]struct{}
	errs        map[string]int
	first, last time.Time
	refs        []timeline.Ref
	brokerSide  map[int]int // source index → errors the broker itself logged
}

type span struct{ from, to time.Time }

// spanSet is a bounded set of time spans, merged when less than maxSpanGap apart.
type spanSet struct {
	spans []span
	n     int
}

func (s *spanSet) add(t time.Time) {
	s.n++
	for i := range s.spans {
		sp := &s.spans[i]
		if !t.Before(sp.from.Add(-maxSpanGap)) && !t.After(sp.to.Add(maxSpanGap)) {
			if t.Before(sp.from) {
				sp.from = t
			}
			if t.After(sp.to) {
				sp.to = t
			}
			return
		}
	}
	if len(s.spans) < maxAbsentSpans {
		s.spans = append(s.spans, span{t, t})
	}
}

// Analyzer is a timeline.Sink that collects what the verdicts need. Not
// safe for concurrent use: the timeline calls it from one goroutine.
type Analyzer struct {
	cfg Config
	// skew: the clock offsets of this audit (SetClockSkew).
	skew  []report.ClockSkew
	zones []report.ZoneHint

	episodes, transitions, moved, bursts int64
	first, last                          time.Time

	parts      map[timeline.TP]*partAgg
	brokerRuns map[int32]*runs        // episodes naming the broker as cause
	causeRuns  map[parser.Cause]*runs // episodes naming no broker, by cause
	allRuns    runs

	interest        map[timeline.Key]*epSum
	interestDropped int
	// recent: the newest transition episodes, for errors that reach the
	// analyzer after their election (the timeline normally hands errors
	// over first).
	recent     map[timeline.Key]int32 // → its place in recentKeys and recentSums
	recentKeys []timeline.Key
	recentSums []epSum
	recentHead int // next slot to reuse once recentKeys is full

	clients        map[clientKey]*clientAgg
	clientsDropped int
	errors         int

	unclean  []epSum
	uncleanN int
	slow     []slowEp
	slowN    int
	offline  []offWin
	offlineN int

	none        map[timeline.TP]*noneAgg
	noneDropped int

	// catchUps: per broker, when it applied elections decided while it
	// was not serving (first phase → last), for unstable-broker.
	catchUps map[int32][]span

	brokersSeen map[int32]int      // broker → elections it logged a line for
	absent      map[int32]*spanSet // broker → times it was leader/replica but logged nothing
	offsetsMax  int32              // highest __consumer_offsets partition seen
}

// New returns an analyzer.
func New(cfg Config) *Analyzer {
	cfg.defaults()
	return &Analyzer{
		cfg: cfg, parts: map[timeline.TP]*partAgg{}, brokerRuns: map[int32]*runs{}, causeRuns: map[parser.Cause]*runs{},
		interest: map[timeline.Key]*epSum{}, recent: map[timeline.Key]int32{}, clients: map[clientKey]*clientAgg{}, none: map[timeline.TP]*noneAgg{},
		brokersSeen: map[int32]int{}, absent: map[int32]*spanSet{}, offsetsMax: -1, catchUps: map[int32][]span{},
	}
}

// maxCatchUps bounds the catch-up spans kept per broker.
const maxCatchUps = 256

func (a *Analyzer) noteCatchUps(e *timeline.Episode) {
	for _, bt := range e.Brokers {
		if !bt.CatchUp {
			continue
		}
		first, ok := bt.FirstPhase()
		last := bt.AppliedAt()
		if !ok || last.IsZero() {
			continue
		}
		l := a.catchUps[bt.Broker]
		if l == nil && len(a.catchUps) >= maxBrokersSeen || len(l) >= maxCatchUps {
			continue
		}
		a.catchUps[bt.Broker] = append(l, span{first, last})
	}
}

// caughtUp is how long broker b took to apply what it had missed, from its
// first catch-up line in [from, to] to its last.
func (a *Analyzer) caughtUp(b int32, from, to time.Time) (time.Duration, bool) {
	var lo, hi time.Time
	for _, sp := range a.catchUps[b] {
		if sp.from.Before(from) || sp.from.After(to) {
			continue
		}
		if lo.IsZero() || sp.from.Before(lo) {
			lo = sp.from
		}
		if sp.to.After(hi) {
			hi = sp.to
		}
	}
	if lo.IsZero() {
		return 0, false
	}
	return hi.Sub(lo), true
}

// Config returns the effective configuration (defaults filled in).
func (a *Analyzer) Config() Config { return a.cfg }

func (a *Analyzer) part(tp timeline.TP) *partAgg {
	p := a.parts[tp]
	if p == nil {
		p = &partAgg{lastLeader: timeline.Unknown, lastEpoch: timeline.Unknown, realLeader: timeline.Unknown, realEpoch: timeline.Unknown}
		a.parts[tp] = p
	}
	return p
}

func episodeRefs(e *timeline.Episode, n int) []timeline.Ref {
	k := 0
	for _, r := range e.Evidence {
		if r.Line > 0 && k < n {
			k++
		}
	}
	if k == 0 {
		return nil
	}
	out := make([]timeline.Ref, 0, k)
	for _, r := range e.Evidence {
		if r.Line > 0 && len(out) < n {
			out = append(out, r)
		}
	}
	return out
}

// firstRef is episodeRefs(e, 1)[0], without the slice.
func firstRef(e *timeline.Episode) (timeline.Ref, bool) {
	for _, r := range e.Evidence {
		if r.Line > 0 {
			return r, true
		}
	}
	return timeline.Ref{}, false
}

// Burst implements timeline.Sink.
func (a *Analyzer) Burst(b *timeline.Burst) { a.bursts++ }

// Episode implements timeline.Sink.
func (a *Analyzer) Episode(e *timeline.Episode) {
	a.episodes++
	if a.first.IsZero() || (!e.Start.IsZero() && e.Start.Before(a.first)) {
		a.first = e.Start
	}
	if e.End.After(a.last) {
		a.last = e.End
	}
	tp := timeline.TP{Topic: e.Topic, Partition: e.Partition}
	pa := a.part(tp)
	if len(e.Replicas) > 0 {
		pa.replicas = append(pa.replicas[:0], e.Replicas...)
	}
	if e.Topic == offsetsTopicName && e.Partition > a.offsetsMax {
		a.offsetsMax = e.Partition
	}
	a.noteBrokers(e)

	// Who led before: the episode's own view, else the newest epoch seen.
	prev := e.PreviousLeader
	if (prev == timeline.Unknown || prev == -1) && pa.realLeader != timeline.Unknown && pa.realEpoch < e.LeaderEpoch {
		prev = pa.realLeader
	}
	prevAny := e.PreviousLeader
	if prevAny == timeline.Unknown && pa.lastLeader != timeline.Unknown && pa.lastEpoch < e.LeaderEpoch {
		prevAny = pa.lastLeader
	}
	changed := e.Leader >= 0 && prev >= 0 && e.Leader != prev
	live := e.IsElection()

	sum := epSum{
		filled: true, key: e.Key, start: e.Start, end: e.End, decided: e.Decided, leader: e.Leader, prev: prev,
		cause: e.Cause, causeBrokers: append([]int32(nil), e.CauseBrokers...), unclean: e.Unclean, changed: changed,
		refs: episodeRefs(e, maxEpisodeRefs), truncs: truncs(e, prev, 3),
	}
	sum.notLeaderFrom, sum.notLeaderTo, sum.hasNotLeader = e.NotLeaderWindow()
	if live {
		a.noteCatchUps(e)
	}
	if s, ok := a.interest[e.Key]; ok && !s.filled {
		*s = sum
	}
	if e.Transition {
		i, ok := a.recent[e.Key]
		if !ok {
			// A ring: the oldest key gives way (no copying per episode).
			if len(a.recentKeys) >= maxRecent {
				i = int32(a.recentHead)
				delete(a.recent, a.recentKeys[i])
				a.recentKeys[i] = e.Key
				a.recentHead = (a.recentHead + 1) % len(a.recentKeys)
			} else {
				i = int32(len(a.recentKeys))
				a.recentKeys = append(a.recentKeys, e.Key)
				a.recentSums = append(a.recentSums, epSum{})
			}
			a.recent[e.Key] = i
		}
		a.recentSums[i] = sum
	}

	// No leader: a window opens; the next epoch with a leader closes it. A
	// topic being deleted has no leader on purpose.
	if e.Leader == -1 && e.Cause != parser.CauseTopicDeletion {
		if pa.off == nil {
			w := &offWin{tp: tp, epoch: e.LeaderEpoch, start: e.Start, replicas: append([]int32(nil), e.Replicas...)}
			if r, ok := firstRef(e); ok {
				w.ref = r
			}
			pa.off = w
		}
	} else if e.Leader >= 0 && pa.off != nil && e.LeaderEpoch > pa.off.epoch {
		w := pa.off
		w.end = e.Start
		if !e.Decided.IsZero() && e.Decided.Before(w.end) {
			w.end = e.Decided
		}
		if r, ok := firstRef(e); ok {
			w.endRef = r
		}
		a.keepOffline(*w)
		pa.off = nil
	}

	if live {
		a.transitions++
		prevUnknown := prev == timeline.Unknown || prev == -1
		a.allRuns.add(e.Start, changed, prevUnknown)
		if changed {
			a.moved++
		}
		// Leaderships moved per broker incident (unstable-broker).
		if len(e.CauseBrokers) > 0 {
			for _, b := range e.CauseBrokers {
				r := a.brokerRuns[b]
				if r == nil {
					if len(a.brokerRuns) >= maxBrokersSeen {
						continue
					}
					r = &runs{max: maxBrokerRuns}
					a.brokerRuns[b] = r
				}
				r.add(e.Start, changed, prevUnknown)
			}
		} else if e.Cause != parser.CauseUnknown {
			r := a.causeRuns[e.Cause]
			if r == nil {
				r = &runs{max: maxBrokerRuns}
				a.causeRuns[e.Cause] = r
			}
			r.add(e.Start, changed, prevUnknown)
		}
		if changed {
			c := change{t: e.Start, epoch: e.LeaderEpoch, from: prev, to: e.Leader, cause: e.Cause, causeBroker: timeline.Unknown, unclean: e.Unclean}
			if !e.Decided.IsZero() && e.Decided.Before(c.t) {
				c.t = e.Decided
			}
			if len(e.CauseBrokers) > 0 {
				c.causeBroker = e.CauseBrokers[0]
			}
			if r, ok := firstRef(e); ok {
				c.ref = r
			}
			if len(sum.truncs) > 0 {
				// The first of truncs(e, prev, 3) is truncs(e, prev, 1)'s;
				// no one writes to either.
				c.trunc = &sum.truncs[0]
			}
			a.noteChange(pa, c)
		}
		// A coordinator move: the leader of a __consumer_offsets partition
		// changed, or a new epoch whose previous leader no line shows.
		if e.Topic == offsetsTopicName && e.Leader != timeline.Unknown && e.Leader != prevAny && len(pa.moves) < maxOffsetsMoves &&
			e.Cause != parser.CauseNewPartition && e.LeaderEpoch > 0 {
			c := change{t: e.Start, epoch: e.LeaderEpoch, from: prevAny, to: e.Leader, cause: e.Cause, causeBroker: timeline.Unknown, unclean: e.Unclean}
			if len(e.CauseBrokers) > 0 {
				c.causeBroker = e.CauseBrokers[0]
			}
			if r, ok := firstRef(e); ok {
				c.ref = r
			}
			pa.moves = append(pa.moves, c)
		}
		if e.Unclean {
			a.uncleanN++
			if len(a.unclean) < maxUnclean {
				u := sum
				u.unclean = true
				a.unclean = append(a.unclean, u)
			}
		}
		a.noteSlow(e)
	}

	if e.Leader != timeline.Unknown && (pa.lastEpoch == timeline.Unknown || e.LeaderEpoch >= pa.lastEpoch) {
		pa.lastLeader, pa.lastEpoch = e.Leader, e.LeaderEpoch
	}
	if e.Leader >= 0 && (pa.realEpoch == timeline.Unknown || e.LeaderEpoch >= pa.realEpoch) {
		pa.realLeader, pa.realEpoch = e.Leader, e.LeaderEpoch
	}
}

// noteBrokers records which brokers took part in an election and which,
// though leader or replica, logged nothing for it.
func (a *Analyzer) noteBrokers(e *timeline.Episode) {
	if !e.IsElection() {
		return
	}
	// An election names a few brokers: a list beats a map here.
	var room [16]int32
	logged := room[:0]
	for _, bt := range e.Brokers {
		if !slices.Contains(logged, bt.Broker) {
			logged = append(logged, bt.Broker)
		}
		if _, ok := a.brokersSeen[bt.Broker]; ok || len(a.brokersSeen) < maxBrokersSeen {
			a.brokersSeen[bt.Broker]++
		}
	}
	part := func(b int32) {
		if b < 0 || slices.Contains(logged, b) {
			return
		}
		logged = append(logged, b)
		s := a.absent[b]
		if s == nil {
			if len(a.absent) >= maxBrokersSeen {
				return
			}
			s = &spanSet{}
			a.absent[b] = s
		}
		s.add(e.Start)
	}
	if e.Leader != timeline.Unknown {
		part(e.Leader)
	}
	for _, b := range e.Replicas {
		part(b)
	}
	for _, b := range e.ISR {
		part(b)
	}
}

func (a *Analyzer) noteChange(pa *partAgg, c change) {
	pa.changes++
	if pa.firstChange.IsZero() {
		pa.firstChange = c.t
	}
	if c.t.After(pa.lastChange) {
		pa.lastChange = c.t
	}
	n := a.cfg.FlapChanges
	size := n
	if size < 4 {
		size = 4
	}
	if len(pa.ring) >= size {
		copy(pa.ring, pa.ring[1:])
		pa.ring[len(pa.ring)-1] = c
	} else {
		pa.ring = append(pa.ring, c)
	}
	flapping := len(pa.ring) >= n && c.t.Sub(pa.ring[len(pa.ring)-n].t) <= a.cfg.FlapWindow
	switch {
	case flapping && pa.run == nil:
		r := &flapRun{start: pa.ring[len(pa.ring)-n].t, end: c.t, n: n}
		r.changes = append(r.changes, pa.ring[len(pa.ring)-n:]...)
		pa.run = r
	case flapping:
		pa.run.end = c.t
		pa.run.n++
		if len(pa.run.changes) < maxRunChanges {
			pa.run.changes = append(pa.run.changes, c)
		}
	case pa.run != nil:
		pa.run = nil
	}
	if pa.run != nil && (pa.best == nil || pa.run.n > pa.best.n) {
		pa.best = pa.run
	}
}

func (a *Analyzer) keepOffline(w offWin) {
	a.offlineN++
	if len(a.offline) < maxOffline {
		a.offline = append(a.offline, w)
		return
	}
	// Keep the longest windows.
	d := w.end.Sub(w.start)
	mi := 0
	for i := range a.offline {
		if a.offline[i].end.Sub(a.offline[i].start) < a.offline[mi].end.Sub(a.offline[mi].start) {
			mi = i
		}
	}
	if d > a.offline[mi].end.Sub(a.offline[mi].start) {
		a.offline[mi] = w
	}
}

var stepNames = [...]string{
	parser.PhaseReceived:        "receiving the LeaderAndIsr request",
	parser.PhaseHandling:        "starting the transition",
	parser.PhaseStoppedFetchers: "stopping fetchers",
	parser.PhaseTruncated:       "truncation",
	parser.PhaseStartedFetcher:  "starting the fetcher",
	parser.PhaseCompleted:       "completing the transition",
	parser.PhaseCached:          "caching the new metadata",
	parser.PhaseEpochStart:      "starting the new leader epoch",
	parser.PhaseFinished:        "finishing the LeaderAndIsr request",
}

// slowestStep finds the longest step of an election: a gap between two
// phases one broker logged (named by the phase that ended it), the
// controller's decision reaching the brokers, or a broker's own "Finished
// LeaderAndIsr request in Xms".
// What the slowest step of an election is (slowestStep), named only for
// the slow ones: noteSlow asks every election.
const (
	stepNone = iota
	stepGap
	stepElapsed
	stepLateStart
	stepSending
	stepReaching
)

type step struct {
	what   int
	ph     parser.Phase
	broker int32
}

func (s step) String() string {
	switch s.what {
	case stepGap:
		return stepNames[s.ph] + " on broker " + itoa(s.broker)
	case stepElapsed:
		return "the LeaderAndIsr request on broker " + itoa(s.broker) + " (its own \"Finished ... in\")"
	case stepLateStart:
		return "broker " + itoa(s.broker) + " starting to apply it"
	case stepSending:
		return "the controller sending LeaderAndIsr after deciding"
	case stepReaching:
		return "the controller's decision reaching the brokers"
	}
	return ""
}

func slowestStep(e *timeline.Episode) (st step, d time.Duration, ref timeline.Ref, broker int32) {
	broker = timeline.Unknown
	const (
		none      = stepNone
		gap       = stepGap
		elapsed   = stepElapsed
		lateStart = stepLateStart
		sending   = stepSending
		reaching  = stepReaching
	)
	what, ph := none, parser.PhaseReceived
	type pt struct {
		ph parser.Phase
		t  time.Time
	}
	firstBroker := time.Time{}
	for _, bt := range e.Brokers {
		if bt.CatchUp {
			continue
		}
		var arr [parser.NumPhases]pt
		pts := arr[:0]
		for p := parser.PhaseReceived; p < parser.NumPhases; p++ {
			if t := bt.Phases[p]; !t.IsZero() {
				// In time order, the earlier phase first among equal
				// times (a stable sort).
				i := len(pts)
				pts = append(pts, pt{})
				for i > 0 && t.Before(pts[i-1].t) {
					pts[i] = pts[i-1]
					i--
				}
				pts[i] = pt{p, t}
				if p != parser.PhaseCached && (firstBroker.IsZero() || t.Before(firstBroker)) {
					firstBroker = t
				}
			}
		}
		for i := 1; i < len(pts); i++ {
			if g := pts[i].t.Sub(pts[i-1].t); g > d {
				d, what, ph, ref, broker = g, gap, pts[i].ph, bt.First, bt.Broker
			}
		}
		if bt.Elapsed > d {
			d, what, ref, broker = bt.Elapsed, elapsed, bt.First, bt.Broker
		}
	}
	// A broker that started applying the change long after the decision
	// (or after the first broker did): it was out of touch.
	ref0 := e.Decided
	if !e.SentLeaderAndIsr.IsZero() {
		ref0 = e.SentLeaderAndIsr
	}
	if ref0.IsZero() {
		ref0 = firstBroker
	}
	if !ref0.IsZero() {
		for _, bt := range e.Brokers {
			if bt.CatchUp {
				continue
			}
			var bf time.Time
			for p := parser.PhaseReceived; p < parser.NumPhases; p++ {
				if t := bt.Phases[p]; !t.IsZero() && p != parser.PhaseCached && (bf.IsZero() || t.Before(bf)) {
					bf = t
				}
			}
			if !bf.IsZero() {
				if g := bf.Sub(ref0); g > d {
					d, what, ref, broker = g, lateStart, bt.First, bt.Broker
				}
			}
		}
	}
	if !e.Decided.IsZero() {
		sent := e.SentLeaderAndIsr
		if !sent.IsZero() {
			if g := sent.Sub(e.Decided); g > d {
				d, what, broker = g, sending, timeline.Unknown
				ref = timeline.Ref{}
			}
		} else {
			sent = e.Decided
		}
		if !firstBroker.IsZero() {
			if g := firstBroker.Sub(sent); g > d {
				d, what, broker = g, reaching, timeline.Unknown
				ref = timeline.Ref{}
			}
		}
	}
	return step{what, ph, broker}, d, ref, broker
}

// stepsWithin says whether no step slowestStep can find exceeds limit,
// without finding them: every step is between two times inside the
// election's first and last line (a broker's phases, the decision, the
// send; a broker whose lines did not move them is a catch-up, left out)
// or a broker's own "Finished ... in".
func stepsWithin(e *timeline.Episode, limit time.Duration) bool {
	if e.Start.IsZero() || e.End.Sub(e.Start) > limit {
		return false
	}
	for _, bt := range e.Brokers {
		if bt.Elapsed > limit {
			return false
		}
	}
	return true
}

// noteSlow weighs what the election took (to the new leader ready) and its
// slowest step among the brokers that were serving: a returning broker's
// catch-up is its unstable-broker incident, not a slow election.
func (a *Analyzer) noteSlow(e *timeline.Episode) {
	dur := e.Took()
	if dur <= a.cfg.SlowElection && stepsWithin(e, a.cfg.SlowElection) {
		return
	}
	st, sd, sref, _ := slowestStep(e)
	if dur <= a.cfg.SlowElection && sd <= a.cfg.SlowElection {
		return
	}
	a.slowN++
	s := slowEp{key: e.Key, start: e.Start, dur: dur, step: st.String(), stepDur: sd, worst: dur, refs: episodeRefs(e, 3), stepRef: sref, cause: e.Cause, brokers: len(e.Brokers)}
	if sd > s.worst {
		s.worst = sd
	}
	if len(a.slow) < maxSlow {
		a.slow = append(a.slow, s)
	} else if s.worst > a.slow[len(a.slow)-1].worst {
		a.slow[len(a.slow)-1] = s
	} else {
		return
	}
	sort.SliceStable(a.slow, func(i, j int) bool { return a.slow[i].worst > a.slow[j].worst })
}

// ProducerError implements timeline.Sink.
func (a *Analyzer) ProducerError(pe *timeline.ProducerError) {
	a.errors++
	k := clientKey{id: pe.ClientID, src: -1}
	if pe.ClientID == "" {
		k.src = pe.Ref.Source
	}
	ca := a.clients[k]
	if ca == nil {
		if len(a.clients) >= maxClients {
			a.clientsDropped++
			return
		}
		ca = &clientAgg{key: k, srcs: map[int]int{}, byErr: map[string]int{}, topics: map[string]struct{}{},
			parts: map[timeline.TP]int{}, keys: map[timeline.Key]bool{}, afterKeys: map[timeline.Key]int{}, retried: map[timeline.Key]*retryUse{}}
		a.clients[k] = ca
	}
	ca.n++
	if len(ca.srcs) < 16 {
		ca.srcs[pe.Ref.Source]++
	}
	ca.byErr[pe.Error]++
	if ca.first.IsZero() || pe.Time.Before(ca.first) {
		ca.first = pe.Time
	}
	if pe.Time.After(ca.last) {
		ca.last = pe.Time
	}
	if len(ca.refs) < maxClientRefs && pe.Ref.Line > 0 {
		ca.refs = append(ca.refs, pe.Ref)
	}
	if _, ok := ca.topics[pe.Topic]; ok || len(ca.topics) < maxClientTopics {
		ca.topics[pe.Topic] = struct{}{}
	}
	tp := timeline.TP{Topic: pe.Topic, Partition: pe.Partition}
	if pe.Partition != timeline.Unknown {
		if _, ok := ca.parts[tp]; ok || len(ca.parts) < maxClientParts {
			ca.parts[tp]++
		}
	}
	nl := notLeaderType(pe.Error)
	if nl {
		ca.notLeader++
	}
	if pe.Final {
		ca.finals++
	}
	if pe.Election != nil && pe.Match != timeline.MatchNone {
		ca.matched++
		key := *pe.Election
		if _, ok := ca.keys[key]; ok || len(ca.keys) < maxClientKeys {
			ca.keys[key] = ca.keys[key] || nl
		}
		if nl {
			u := ca.retried[key]
			if u == nil && len(ca.retried) < maxClientKeys {
				u = &retryUse{minLeft: -1}
				ca.retried[key] = u
			}
			if u != nil {
				u.add(pe)
			}
		}
		if s, ok := a.interest[key]; !ok || !s.filled {
			switch r, inRecent := a.recent[key]; {
			case inRecent:
				c := a.recentSums[r]
				a.interest[key] = &c
			case ok:
			case len(a.interest) < maxInterest:
				a.interest[key] = &epSum{key: key}
			default:
				a.interestDropped++
			}
		}
	}
	if pe.Final && nl {
		ca.finalsNLN++
		if len(ca.finalsNL) < maxClientFinals {
			fe := finalErr{t: pe.Time, err: pe.Error, tp: tp, match: pe.Match, lag: pe.Lag, ref: pe.Ref}
			if pe.Election != nil {
				k := *pe.Election
				fe.key = &k
			}
			ca.finalsNL = append(ca.finalsNL, fe)
		}
	}
	switch pe.Match {
	case timeline.MatchAfter:
		ca.after++
		ca.lagSum += pe.Lag
		if pe.Lag > ca.lagMax {
			ca.lagMax = pe.Lag
		}
		// A deterministic reservoir keeps the sample bounded.
		if len(ca.lags) < maxLagSample {
			ca.lags = append(ca.lags, pe.Lag)
		} else {
			ca.rng = ca.rng*6364136223846793005 + 1442695040888963407
			if j := int((ca.rng >> 33) % uint64(ca.after)); j < maxLagSample {
				ca.lags[j] = pe.Lag
			}
		}
		if len(ca.afterRefs) < maxClientRefs && pe.Ref.Line > 0 {
			ca.afterRefs = append(ca.afterRefs, pe.Ref)
		}
		if pe.Election != nil {
			if _, ok := ca.afterKeys[*pe.Election]; ok || len(ca.afterKeys) < maxClientKeys {
				ca.afterKeys[*pe.Election]++
			}
		}
	case timeline.MatchNone:
		na := a.none[tp]
		if na == nil {
			if len(a.none) >= maxNone {
				a.noneDropped++
				return
			}
			na = &noneAgg{clients: map[string]struct{}{}, errs: map[string]int{}, brokerSide: map[int]int{}}
			a.none[tp] = na
		}
		na.n++
		na.errs[pe.Error]++
		if len(na.clients) < 16 {
			na.clients[pe.ClientID] = struct{}{}
		}
		if na.first.IsZero() || pe.Time.Before(na.first) {
			na.first = pe.Time
		}
		if pe.Time.After(na.last) {
			na.last = pe.Time
		}
		if len(na.refs) < maxClientRefs && pe.Ref.Line > 0 {
			na.refs = append(na.refs, pe.Ref)
		}
		if pe.BrokerSide && len(na.brokerSide) < 16 {
			na.brokerSide[pe.Ref.Source]++
		}
	}
}
