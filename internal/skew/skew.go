// Package skew estimates how far each host's clock was off, from causality
// across sources: an effect logged on one host cannot come before its cause
// logged on another. Kafka's log4j lines carry no zone and no clock
// quality, so a broker whose clock runs 120 ms ahead writes every line
// 120 ms late, and a merge by timestamp puts its lines in the wrong order.
//
// Causal pairs used (cause → effect), each only within Window:
//   - the controller decided partition P at leader epoch E → a broker
//     applied epoch E of P (any phase that names the epoch);
//   - a broker registered in ZooKeeper → the controller saw it join
//     ("Newly added brokers: N", "New broker startup callback for N");
//   - a broker began a controlled shutdown → the controller acted on it
//     ("Shutting down broker N", KRaft "… in controlled shutdown");
//   - a follower added a fetcher to leader L for P → L expanded P's ISR
//     to include that follower.
//
// Every pair bounds one clock against another (effect time − cause time ≥
// 0 in true time). The estimate is the smallest set of corrections that
// satisfies every bound: clocks the bounds do not contradict keep offset 0.
// A corrected clock bounded from both sides gets the middle of its
// interval, as NTP does with a round trip.
//
// Pairs further apart than Window are no skew. When several between two
// hosts agree on a whole number of quarter hours, that host's files were
// read in the wrong zone: Estimate names it as a ZoneHint instead.
package skew

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

// Point is one log record that takes part in a causal pair.
type Point struct {
	Src  int
	Line int64
	Time time.Time
	// Node: the broker or controller that wrote the line (parser.Unknown
	// when the line does not say).
	Node int32
}

// Sample is one causal pair: Effect cannot have happened before Cause.
type Sample struct {
	Cause, Effect Point
	// What says what the pair is, in Kafka's words.
	What string
	// Slack: how far the effect may be logged before the cause although
	// it happened after (the two lines are not the two ends of one message).
	Slack time.Duration
}

// Bound is what the pair allows: the effect's clock minus the cause's is at
// most this (before the timestamp tolerance).
func (s Sample) Bound() time.Duration { return s.Delta() + s.Slack }

// registrationSlack: a broker logs "Registered broker N at path" after its
// znode exists, and the controller learns of the znode through a watch: the
// controller's line can come first by a few milliseconds.
const registrationSlack = 10 * time.Millisecond

// Delta is effect − cause as logged: negative means the logs show the
// effect first, which only a clock offset explains.
func (s Sample) Delta() time.Duration { return s.Effect.Time.Sub(s.Cause.Time) }

// DefaultWindow: how far apart a cause and its effect may be logged and
// still be paired. A LeaderAndIsr is applied within seconds; an offset
// larger than this is a zone mistake, for --tz, not a skew.
const DefaultWindow = 30 * time.Second

// Tolerance absorbs the millisecond resolution of log4j timestamps on both
// ends of a pair: bounds closer than this to 0 prove nothing.
const Tolerance = 2 * time.Millisecond

// keep: the smallest deltas kept per pair of sources.
const keep = 3

type tp struct {
	topic     string
	partition int32
}

type partState struct {
	epoch    int32
	decided  Point
	decision bool
	// applied: the earliest line per source naming this epoch.
	applied []applier
	// past: the last few finished epochs, so a line hours off (a file read
	// in the wrong zone) still finds its partner for a zone hint. Made on
	// a partition's second epoch: most partitions never need it.
	past  []pastEpoch
	npast int
}

// pastEpochs: finished epochs kept per partition.
const pastEpochs = 4

type pastEpoch struct {
	epoch    int32
	decided  Point
	decision bool
	// applied: the appliers' lines while no decision is known, to pair
	// with it when it comes; srcs: once it is known, only the sources
	// already paired. Every broker's file names every epoch, so these grow
	// with sources × partitions: a source id is a twelfth of a Point (1,100
	// copies of one dense state-change.log kept 25 MB of Points here).
	applied []applier
	srcs    []int32
}

// applier is a Point as an epoch's appliers keep it: two thirds of one
// (every source applies every epoch in a dense set; the zone is
// not needed, points are shown in the report's).
type applier struct {
	sec, line       int64
	nsec, src, node int32
}

func toApplier(p Point) applier {
	return applier{sec: p.Time.Unix(), line: p.Line, nsec: int32(p.Time.Nanosecond()), src: int32(p.Src), node: p.Node}
}

func (a applier) point() Point {
	return Point{Src: int(a.src), Line: a.line, Time: time.Unix(a.sec, int64(a.nsec)).UTC(), Node: a.node}
}

// laterThan: p was logged before a.
func (a applier) laterThan(p Point) bool {
	sec := p.Time.Unix()
	return sec < a.sec || sec == a.sec && int32(p.Time.Nanosecond()) < a.nsec
}

// pastApplied: appliers' lines kept per finished epoch still waiting for
// its decision (see finish).
const pastApplied = 16

// farMax: deltas kept per pair of sources that lie beyond Window.
const farMax = 16

type fetchKey struct {
	tp
	follower int32
}

type fetchStart struct {
	Point
	leader int32
}

type pairKey struct{ cause, effect int }

// lifeKey pairs a broker's own lifecycle line with the controller's.
type lifeKey struct {
	broker int32
	what   uint8
}

const (
	lifeRegistered uint8 = iota
	lifeControlledShutdown
)

var lifeWhat = [...]string{"broker %d registered → controller saw it join", "broker %d began a controlled shutdown → controller acted on it"}

// Estimator collects causal pairs from parsed events. Feed it every event
// with Add, then call Estimate. Memory grows with partitions and brokers,
// not with the logs.
type Estimator struct {
	// Window: see DefaultWindow (0 means DefaultWindow).
	Window time.Duration
	// Applied: the offset already subtracted from a source's times, added
	// back so estimates always describe the logs as written (nil: none).
	Applied func(src int) time.Duration

	parts   map[tp]*partState
	fetches map[fetchKey]fetchStart
	isr     map[tp][]int32
	brokerL map[lifeKey]Point     // the broker's own line, waiting for the controller's
	ctrlL   map[lifeKey]Point     // the controller's line, waiting for the broker's
	paired  map[lifeKey]time.Time // the controller's line of the last pair made
	pairs   map[pairKey][]Sample
	counts  map[pairKey]int // pairs seen per pair of sources (pairs keeps the tightest few)
	// far: pairs further apart than Window (a zone mistake, not a skew).
	far map[pairKey][]Sample
}

// NewEstimator returns an empty estimator.
func NewEstimator() *Estimator {
	return &Estimator{
		parts: map[tp]*partState{}, fetches: map[fetchKey]fetchStart{}, isr: map[tp][]int32{},
		brokerL: map[lifeKey]Point{}, ctrlL: map[lifeKey]Point{}, paired: map[lifeKey]time.Time{}, pairs: map[pairKey][]Sample{}, counts: map[pairKey]int{}, far: map[pairKey][]Sample{},
	}
}

func (e *Estimator) window() time.Duration {
	if e.Window > 0 {
		return e.Window
	}
	return DefaultWindow
}

// Add takes one event of source src (events of all sources, roughly in time
// order, as the reader merges them).
func (e *Estimator) Add(src int, ev *parser.Event) {
	t := ev.Time
	if e.Applied != nil {
		t = t.Add(e.Applied(src))
	}
	pt := Point{Src: src, Line: ev.Line, Time: t, Node: ev.Broker}
	switch ev.Kind {
	case parser.KindDecision:
		pt.Node = ev.Controller
		if ev.Topic == "" || ev.Partition == parser.Unknown {
			return
		}
		k := tp{ev.Topic, ev.Partition}
		if ev.ISR != nil {
			e.isr[k] = append(e.isr[k][:0], ev.ISR...)
		}
		if ev.Metadata || ev.LeaderEpoch == parser.Unknown {
			return
		}
		st := e.part(k, ev.LeaderEpoch)
		if st == nil {
			// A decision for an epoch already finished: its broker lines came
			// long before it (hours, in a file read in another zone).
			if pe := e.pastOf(k, ev.LeaderEpoch); pe != nil && !pe.decision {
				pe.decided, pe.decision = pt, true
				for _, a := range pe.applied {
					e.pair(k, pe.epoch, pt, a.point())
				}
				pe.paired()
			}
			return
		}
		if !st.decision || pt.Time.Before(st.decided.Time) {
			st.decided, st.decision = pt, true
		}
	case parser.KindPhase:
		if ev.Topic == "" || ev.Partition == parser.Unknown {
			return
		}
		k := tp{ev.Topic, ev.Partition}
		if ev.Phase == parser.PhaseStartedFetcher && ev.Leader >= 0 && ev.Broker >= 0 {
			e.fetches[fetchKey{k, ev.Broker}] = fetchStart{pt, ev.Leader}
		}
		if ev.LeaderEpoch == parser.Unknown {
			return
		}
		st := e.part(k, ev.LeaderEpoch)
		if st == nil {
			if pe := e.pastOf(k, ev.LeaderEpoch); pe != nil && pe.decision && !slices.Contains(pe.srcs, int32(src)) {
				pe.srcs = append(pe.srcs, int32(src))
				e.pair(k, pe.epoch, pe.decided, pt)
			}
			return
		}
		for i := range st.applied {
			if st.applied[i].src == int32(src) {
				if st.applied[i].laterThan(pt) {
					st.applied[i] = toApplier(pt)
				}
				return
			}
		}
		st.applied = append(st.applied, toApplier(pt))
	case parser.KindISRChange:
		if ev.Rejected || ev.Broker < 0 || ev.Topic == "" {
			return
		}
		k := tp{ev.Topic, ev.Partition}
		prev := ev.PrevISR
		if prev == nil {
			prev = e.isr[k]
		}
		for _, f := range ev.ISR {
			if f == ev.Broker || contains(prev, f) {
				continue
			}
			fs, ok := e.fetches[fetchKey{k, f}]
			if !ok || fs.leader != ev.Broker {
				continue
			}
			s := Sample{Cause: fs.Point, Effect: pt}
			if pk := (pairKey{s.Cause.Src, s.Effect.Src}); s.Cause.Src != s.Effect.Src && e.outOfKept(pk, s) {
				e.counts[pk]++ // as sample would: see pair
			} else {
				b, l := strconv.Itoa(int(ev.Broker)), strconv.Itoa(int(ev.Partition))
				s.What = "broker " + strconv.Itoa(int(f)) + " started fetching " + ev.Topic + "-" + l + " from broker " + b + " → broker " + b + " added it to the ISR"
				e.sample(s)
			}
			delete(e.fetches, fetchKey{k, f})
		}
		e.isr[k] = append(e.isr[k][:0], ev.ISR...)
	case parser.KindBrokerLifecycle:
		// A broker's own lines carry no controller; the controller's
		// lines about a broker do.
		if ev.Controller != parser.Unknown || ev.Broker < 0 {
			return
		}
		switch ev.Lifecycle {
		case parser.LifeRegistered:
			e.life(lifeKey{ev.Broker, lifeRegistered}, pt, true)
		case parser.LifeControlledShutdown:
			e.life(lifeKey{ev.Broker, lifeControlledShutdown}, pt, true)
		}
	case parser.KindTrigger:
		var what uint8
		switch ev.Cause {
		case parser.CauseBrokerStartup:
			what = lifeRegistered
		case parser.CauseControlledShutdown:
			what = lifeControlledShutdown
		default:
			return
		}
		for _, b := range ev.Subjects {
			e.life(lifeKey{b, what}, pt, false)
		}
	}
}

// life pairs the broker's line (cause) with the controller's (effect),
// whichever the merge delivers first.
func (e *Estimator) life(k lifeKey, pt Point, brokerSide bool) {
	mine, other := e.ctrlL, e.brokerL
	if brokerSide {
		mine, other = e.brokerL, e.ctrlL
	} else if last, ok := e.paired[k]; ok && absDur(pt.Time.Sub(last)) < time.Second {
		// The ZK controller writes two lines for one join ("Newly added
		// brokers: 2", "New broker startup callback for 2"): the second
		// must not wait for, and pair with, the broker's next registration.
		return
	}
	if o, ok := other[k]; ok && absDur(pt.Time.Sub(o.Time)) <= e.window() && o.Src != pt.Src {
		delete(other, k)
		s := Sample{Cause: o, Effect: pt, What: fmt.Sprintf(lifeWhat[k.what], k.broker)}
		if k.what == lifeRegistered {
			s.Slack = registrationSlack
		}
		if brokerSide {
			s.Cause, s.Effect = pt, o
		}
		if brokerSide {
			e.paired[k] = o.Time
		} else {
			e.paired[k] = pt.Time
		}
		e.sample(s)
		return
	}
	if _, ok := mine[k]; ok && !brokerSide {
		// The ZK controller writes two lines for one join; the first counts.
		if old := mine[k]; pt.Time.Sub(old.Time) < time.Second {
			return
		}
	}
	mine[k] = pt
}

// part returns the state of k at epoch, finishing an older epoch first;
// nil for an epoch older than the one in hand (a late line).
func (e *Estimator) part(k tp, epoch int32) *partState {
	st := e.parts[k]
	switch {
	case st == nil:
		st = &partState{epoch: epoch}
		e.parts[k] = st
	case epoch > st.epoch:
		e.finish(k, st)
		st.epoch, st.decision, st.applied = epoch, false, st.applied[:0]
	case epoch < st.epoch:
		return nil
	}
	return st
}

func (e *Estimator) finish(k tp, st *partState) {
	if st.decision {
		for _, a := range st.applied {
			e.pair(k, st.epoch, st.decided, a.point())
		}
	}
	if len(st.past) < pastEpochs {
		st.past = append(st.past, pastEpoch{})
	}
	pe := &st.past[st.npast%pastEpochs]
	st.npast++
	pe.epoch, pe.decided, pe.decision = st.epoch, st.decided, st.decision
	pe.srcs = pe.srcs[:0]
	if pe.decision {
		pe.applied = nil
		for _, a := range st.applied {
			pe.srcs = append(pe.srcs, a.src)
		}
	} else {
		// The first pastApplied appliers only: an epoch is applied by the
		// partition's replicas, a few files each; more sources naming one
		// epoch are copies of one broker's lines (1,100 in a dense set:
		// 20 MB of Points waiting for decisions that never came), and
		// their pairs with a late decision say nothing the first ones do not.
		pe.applied = append(pe.applied[:0], st.applied[:min(len(st.applied), pastApplied)]...)
	}
}

// paired keeps of the appliers, once they are paired, only their sources.
func (pe *pastEpoch) paired() {
	pe.srcs = pe.srcs[:0]
	for _, a := range pe.applied {
		pe.srcs = append(pe.srcs, a.src)
	}
	pe.applied = nil
}

// pair records "controller decided epoch E → broker applied E".
func (e *Estimator) pair(k tp, epoch int32, decided, a Point) {
	if a.Src == decided.Src {
		return
	}
	s := Sample{Cause: decided, Effect: a}
	pk := pairKey{s.Cause.Src, s.Effect.Src}
	if absDur(s.Delta()) > e.window() {
		if l := e.far[pk]; len(l) < farMax {
			s.What = pairWhat(k, epoch, decided, a)
			e.far[pk] = append(l, s)
		}
		return
	}
	if e.outOfKept(pk, s) {
		// Counted, not kept: its words would be made for nothing (every
		// epoch of every partition makes a pair per applying source).
		e.counts[pk]++
		return
	}
	s.What = pairWhat(k, epoch, decided, a)
	e.sample(s)
}

// pairWhat: concatenated, not fmt.Sprintf, which cost more than the rest of
// pair.
func pairWhat(k tp, epoch int32, decided, a Point) string {
	return "controller " + node(decided.Node) + " decided " + k.topic + "-" + strconv.Itoa(int(k.partition)) +
		" leader epoch " + strconv.Itoa(int(epoch)) + " → broker " + node(a.Node) + " applied it"
}

// outOfKept: s, whatever its words, orders after every pair kept for pk
// and there are keep of them, so sample would only count it. Words decide
// only between pairs of equal bound and times, which this leaves to sample.
func (e *Estimator) outOfKept(pk pairKey, s Sample) bool {
	l := e.pairs[pk]
	if len(l) < keep {
		return false
	}
	last := l[len(l)-1]
	if s.Bound() != last.Bound() {
		return s.Bound() > last.Bound()
	}
	if !s.Cause.Time.Equal(last.Cause.Time) {
		return s.Cause.Time.After(last.Cause.Time)
	}
	return s.Effect.Time.After(last.Effect.Time)
}

// pastOf finds a finished epoch of k still kept.
func (e *Estimator) pastOf(k tp, epoch int32) *pastEpoch {
	st := e.parts[k]
	if st == nil {
		return nil
	}
	for i := range st.past {
		if st.past[i].epoch == epoch {
			return &st.past[i]
		}
	}
	return nil
}

// before orders pairs by the bound they allow, ties by the lines' times and
// words: pairs arrive in map order (Flush) and a log store's rows in another
// order than the files' lines, and the pairs kept and named as evidence must
// be the same whatever the order.
func before(a, b Sample) bool {
	if a.Bound() != b.Bound() {
		return a.Bound() < b.Bound()
	}
	if !a.Cause.Time.Equal(b.Cause.Time) {
		return a.Cause.Time.Before(b.Cause.Time)
	}
	if !a.Effect.Time.Equal(b.Effect.Time) {
		return a.Effect.Time.Before(b.Effect.Time)
	}
	if a.What != b.What {
		return a.What < b.What
	}
	// Copies of one log (or brokers that logged alike) make pairs equal
	// but for their lines and sources: the evidence named must not be
	// whichever map order came first.
	if a.Cause.Line != b.Cause.Line {
		return a.Cause.Line < b.Cause.Line
	}
	if a.Effect.Line != b.Effect.Line {
		return a.Effect.Line < b.Effect.Line
	}
	if a.Cause.Src != b.Cause.Src {
		return a.Cause.Src < b.Cause.Src
	}
	return a.Effect.Src < b.Effect.Src
}

// sample keeps the smallest deltas per (cause source, effect source).
func (e *Estimator) sample(s Sample) {
	if s.Cause.Src == s.Effect.Src {
		return
	}
	pk := pairKey{s.Cause.Src, s.Effect.Src}
	e.counts[pk]++
	l := e.pairs[pk]
	i := sort.Search(len(l), func(i int) bool { return before(s, l[i]) })
	if i >= keep {
		return
	}
	l = append(l, Sample{})
	copy(l[i+1:], l[i:])
	l[i] = s
	if len(l) > keep {
		l = l[:keep]
	}
	e.pairs[pk] = l
}

// Flush pairs the epochs still in hand; call once at the end.
func (e *Estimator) Flush() {
	for k, st := range e.parts {
		if st.decision {
			for _, a := range st.applied {
				e.pair(k, st.epoch, st.decided, a.point())
			}
		}
		st.decision, st.applied = false, st.applied[:0]
	}
}

func node(id int32) string {
	if id < 0 {
		return "?"
	}
	return strconv.Itoa(int(id))
}

func contains(l []int32, x int32) bool {
	for _, v := range l {
		if v == x {
			return true
		}
	}
	return false
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
