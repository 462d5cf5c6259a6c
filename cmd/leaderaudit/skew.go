package main

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/report"
	"github.com/leaderaudit/leaderaudit/internal/skew"
	"github.com/leaderaudit/leaderaudit/internal/source"
	"github.com/leaderaudit/leaderaudit/internal/textfmt"
	"github.com/leaderaudit/leaderaudit/parser"
)

// skewFlags is --skew: "auto" (estimate from causality and correct) and
// GLOB=±DURATION rules that set a path's offset by hand.
type skewFlags struct {
	auto  bool
	rules []skewRule
}

type skewRule struct {
	glob, text string
	offset     time.Duration
}

func loadSkew(vals []string) (*skewFlags, error) {
	sf := &skewFlags{}
	for _, v := range vals {
		if v == "auto" {
			sf.auto = true
			continue
		}
		glob, d, ok := strings.Cut(v, "=")
		if !ok || glob == "" {
			return nil, fmt.Errorf("--skew %q: want auto or GLOB=OFFSET, e.g. 'broker-2/*=+120ms' (the clock ran 120 ms ahead)", v)
		}
		off, err := time.ParseDuration(strings.TrimPrefix(d, "+"))
		if err != nil {
			return nil, fmt.Errorf("--skew %q: %q is not a duration like +120ms or -1.5s", v, d)
		}
		if _, err := path.Match(glob, ""); err != nil {
			return nil, fmt.Errorf("--skew %q: bad glob", v)
		}
		sf.rules = append(sf.rules, skewRule{glob: glob, text: v, offset: off})
	}
	return sf, nil
}

// forLive is --skew for watch and audit --follow: by hand only (auto reads
// the logs twice, which following cannot).
func (sf *skewFlags) forLive(cmd string) (func(string) time.Duration, error) {
	if sf.auto {
		return nil, fmt.Errorf("--skew auto is for a batch audit (it reads the logs twice); run leaderaudit audit --skew auto once and pass the offsets it reports to %s as --skew GLOB=OFFSET", cmd)
	}
	return func(p string) time.Duration {
		r, _ := sf.byHand(p)
		return r.offset
	}, nil
}

// byHand gives the first rule matching p.
func (sf *skewFlags) byHand(p string) (skewRule, bool) {
	for _, r := range sf.rules {
		if matchPath(r.glob, p) {
			return r, true
		}
	}
	return skewRule{}, false
}

// clocksOf groups sources by the host that wrote them: every file of one
// broker (its state-change.log, server.log, controller.log) shares that
// broker's clock; a file several brokers wrote at once (one host running
// them all) is a clock of its own; so is every client log.
func clocksOf(srcs []*source.Source, brokerFor func(string) int32) []skew.Clock {
	brokers := map[int32]bool{}
	for _, s := range srcs {
		for _, b := range s.Stats.Brokers {
			brokers[b] = true
		}
	}
	byName := map[string]int{}
	var clocks []skew.Clock
	add := func(name string, src int) {
		i, ok := byName[name]
		if !ok {
			i = len(clocks)
			byName[name] = i
			clocks = append(clocks, skew.Clock{Name: name})
		}
		clocks[i].Sources = append(clocks[i].Sources, src)
	}
	for _, s := range srcs {
		if s.Binary || s.Metadata != nil || s.Input.Metadata || !s.Read {
			continue
		}
		if source.Kind(s) == "client application log" {
			// A client's log: its own host, whatever its path says.
			add(s.Path, s.Index)
			continue
		}
		id := brokerFor(s.Path)
		if id == parser.Unknown {
			ids := append(append([]int32(nil), s.Stats.Brokers...), s.Stats.Controllers...)
			slices.Sort(ids)
			ids = slices.Compact(ids)
			switch {
			case len(ids) == 1:
				id = ids[0]
			case len(ids) > 1:
				add(fmt.Sprintf("%s (one host: brokers %s)", s.Path, textfmt.JoinIDs(ids)), s.Index)
				continue
			}
		}
		if id == parser.Unknown {
			add(s.Path, s.Index)
			continue
		}
		if brokers[id] {
			add("broker "+strconv.Itoa(int(id)), s.Index)
		} else {
			add("controller "+strconv.Itoa(int(id)), s.Index)
		}
	}
	return clocks
}

// estimateSkew reads every input once, only to pair causes with effects
// across hosts (--skew auto: the audit proper then reads them again with
// the offsets applied).
func estimateSkew(ctx context.Context, ins []source.Input, zs *zones, bs *brokerIDs) skew.Estimate {
	rd := source.NewReader(ins, zs.forPath)
	rd.BrokerFor = bs.forPath
	est := skew.NewEstimator()
	rd.Run(ctx, func(src int, ev *parser.Event) { est.Add(src, ev) })
	return est.Estimate(clocksOf(rd.Sources, bs.forPath))
}

// applySkew sets each source's offset: by hand where a --skew rule matches,
// else the estimate of its clock when auto is on.
func applySkew(srcs []*source.Source, sf *skewFlags, es *skew.Estimate) {
	auto := map[int]time.Duration{}
	if sf.auto && es != nil {
		for _, r := range es.Results {
			for _, s := range r.Clock.Sources {
				auto[s] = r.Offset
			}
		}
	}
	for _, s := range srcs {
		if r, ok := sf.byHand(s.Path); ok {
			s.Skew = r.offset
			continue
		}
		s.Skew = auto[s.Index]
	}
}

// skewReport renders the estimate for the report, with the sources set by
// hand listed as such.
func skewReport(srcs []*source.Source, name func(src int) string, sf *skewFlags, es *skew.Estimate, loc *time.Location) []report.ClockSkew {
	recs := report.SkewRecords(es, name, loc, sf.auto)
	for i := range recs {
		for _, p := range recs[i].Sources {
			if _, ok := sf.byHand(p); ok {
				recs[i].Applied = false
			}
		}
	}
	for _, r := range sf.rules {
		var paths []string
		for _, s := range srcs {
			if got, ok := sf.byHand(s.Path); ok && got.text == r.text {
				paths = append(paths, s.Path)
			}
		}
		if len(paths) == 0 {
			continue
		}
		recs = append(recs, report.ClockSkew{Type: "clock_skew", Clock: r.glob, Sources: paths, OffsetMs: r.offset.Milliseconds(), Applied: true, ByHand: r.text})
	}
	return recs
}
