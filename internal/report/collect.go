// Package report turns the timeline's output into the text postmortem
// report and JSON lines. It holds aggregates, not episodes: memory grows
// with the number of elections kept for the report's lists (bounded), not
// with the size of the logs.
package report

import (
	"slices"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/quantile"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// Options says how to render.
type Options struct {
	// Loc is the zone every time is shown in.
	Loc *time.Location
	// ZoneNote says where Loc came from ("--tz UTC", "machine local zone").
	ZoneNote string
	// KeepEpisodes bounds the episodes kept for the text report's detail
	// section (the slowest and the ones with producer errors are kept).
	KeepEpisodes int
	// KeepErrors bounds the producer errors listed one by one.
	KeepErrors int
}

// brokerAgg aggregates one broker's apply times.
type brokerAgg struct {
	Broker     int32
	Partitions int
	Applied    quantile.Durs
	Max        time.Duration
	MaxKey     timeline.Key
	MaxPhase   parser.Phase
	MaxPhaseD  time.Duration
}

// Collector is a timeline.Sink that aggregates for the report, and
// optionally streams each finished record as a JSON line.
type Collector struct {
	Opt Options
	// JSON, if set, receives each finished record as it is finished.
	JSON *JSONWriter

	Episodes     int
	Transitions  int
	LeaderMoved  int
	LeaderKept   int
	LeaderNone   int // leader -1
	MetadataOnly int
	Resent       int
	// CarriedOver: epochs decided before the logs, only re-sent or
	// re-applied in them.
	CarriedOver int
	Unclean     int
	// Durations: each election's Took (leader ready); Spans: first →
	// last line.
	Durations quantile.Durs
	Spans     quantile.Durs
	ByCause   map[parser.Cause]int
	Slowest   []*EpisodeSummary // top N by duration
	Kept      []*EpisodeSummary // detail section
	Bursts    []*BurstSummary
	brokers   map[int32]*brokerAgg

	Errors     int
	ByMatch    [timeline.NumMatch]int
	Finals     int
	ByError    map[string]int
	Lags       quantile.Durs
	ErrorList  []*timeline.ProducerError
	Unexplain  map[timeline.TP]int
	ErrorsSeen map[string]int // by client

	First, Last time.Time
}

// BurstSummary is a burst without its per-election durations.
type BurstSummary struct {
	timeline.Burst
}

// EpisodeSummary is an episode reduced to what the text report prints.
type EpisodeSummary struct {
	*timeline.Episode
}

// NewCollector returns a collector.
func NewCollector(opt Options) *Collector {
	if opt.Loc == nil {
		opt.Loc = time.Local
	}
	if opt.KeepEpisodes == 0 {
		opt.KeepEpisodes = 200
	}
	if opt.KeepErrors == 0 {
		opt.KeepErrors = 200
	}
	return &Collector{
		Opt: opt, ByCause: map[parser.Cause]int{}, brokers: map[int32]*brokerAgg{},
		ByError: map[string]int{}, Unexplain: map[timeline.TP]int{}, ErrorsSeen: map[string]int{},
	}
}

const slowestN = 10

// Episode implements timeline.Sink.
func (c *Collector) Episode(e *timeline.Episode) {
	if c.JSON != nil {
		c.JSON.Episode(e)
	}
	c.Episodes++
	if c.First.IsZero() || e.Start.Before(c.First) {
		c.First = e.Start
	}
	if e.End.After(c.Last) {
		c.Last = e.End
	}
	if !e.Transition {
		c.MetadataOnly++
		return
	}
	if e.Resent {
		c.Resent++
		return
	}
	if e.CarriedOver {
		c.CarriedOver++
		return
	}
	c.Transitions++
	if e.Unclean {
		c.Unclean++
	}
	switch changed, known := e.LeaderChanged(); {
	case e.Leader == -1:
		c.LeaderNone++
	case known && changed:
		c.LeaderMoved++
	case known && !changed:
		c.LeaderKept++
	}
	c.ByCause[e.Cause]++
	d := e.Took()
	c.Durations.Add(d)
	c.Spans.Add(e.Duration())
	// The summary is made only for an election that is kept.
	var s *EpisodeSummary
	// Top N slowest, in the order a stable sort by Took, longest first,
	// gives: after those that took as long.
	if len(c.Slowest) < slowestN || d > c.Slowest[len(c.Slowest)-1].Took() {
		s = &EpisodeSummary{e}
		i := len(c.Slowest)
		for i > 0 && c.Slowest[i-1].Took() < d {
			i--
		}
		c.Slowest = slices.Insert(c.Slowest, i, s)
		if len(c.Slowest) > slowestN {
			c.Slowest = c.Slowest[:slowestN]
		}
	}
	if len(c.Kept) < c.Opt.KeepEpisodes {
		if s == nil {
			s = &EpisodeSummary{e}
		}
		c.Kept = append(c.Kept, s)
	}
	for _, bt := range e.Brokers {
		ba := c.brokers[bt.Broker]
		if ba == nil {
			ba = &brokerAgg{Broker: bt.Broker}
			c.brokers[bt.Broker] = ba
		}
		ap, ok := bt.Applied()
		if !ok {
			continue
		}
		ba.Partitions++
		ba.Applied.Add(ap)
		if ap >= ba.Max {
			ba.Max, ba.MaxKey = ap, e.Key
			ba.MaxPhase, ba.MaxPhaseD = slowestStep(bt)
		}
	}
}

// slowestStep finds the longest gap between consecutive phases a broker
// logged, naming the phase that ended it (e.g. "truncated" took 2.4 s).
func slowestStep(bt *timeline.BrokerTimeline) (parser.Phase, time.Duration) {
	type pt struct {
		ph parser.Phase
		t  time.Time
	}
	// In time order, the earlier phase first among equal times (a stable
	// sort), on the stack: a broker's applied time often ties its
	// maximum (0 ms in INFO logs), which asks this again.
	var room [parser.NumPhases]pt
	pts := room[:0]
	for ph := parser.PhaseReceived; ph < parser.NumPhases; ph++ {
		t := bt.Phases[ph]
		if ph == parser.PhaseCached || t.IsZero() {
			continue
		}
		i := len(pts)
		pts = append(pts, pt{})
		for i > 0 && t.Before(pts[i-1].t) {
			pts[i] = pts[i-1]
			i--
		}
		pts[i] = pt{ph, t}
	}
	best, bestD := parser.PhaseNone, time.Duration(0)
	for i := 1; i < len(pts); i++ {
		if d := pts[i].t.Sub(pts[i-1].t); d > bestD {
			best, bestD = pts[i].ph, d
		}
	}
	return best, bestD
}

// ProducerError implements timeline.Sink.
func (c *Collector) ProducerError(pe *timeline.ProducerError) {
	if c.JSON != nil {
		c.JSON.ProducerError(pe)
	}
	c.Errors++
	c.ByMatch[pe.Match]++
	if pe.Final {
		c.Finals++
	}
	c.ByError[pe.Error]++
	c.ErrorsSeen[pe.ClientID]++
	if pe.Match == timeline.MatchAfter {
		c.Lags.Add(pe.Lag)
	}
	if pe.Match == timeline.MatchNone {
		c.Unexplain[timeline.TP{Topic: pe.Topic, Partition: pe.Partition}]++
	}
	if len(c.ErrorList) < c.Opt.KeepErrors {
		cp := *pe
		c.ErrorList = append(c.ErrorList, &cp)
	}
}

// Burst implements timeline.Sink.
func (c *Collector) Burst(b *timeline.Burst) {
	if c.JSON != nil {
		c.JSON.Burst(b)
	}
	// Keep the burst without its per-election durations: the list grows
	// with the log, its entries should not.
	kept := *b
	kept.Durations = nil
	kept.P50, kept.P99 = quantile.Percentile(b.Durations, 50), quantile.Percentile(b.Durations, 99)
	c.Bursts = append(c.Bursts, &BurstSummary{Burst: kept})
}
