package main

import (
	"time"

	"github.com/leaderaudit/leaderaudit/internal/live"
	"github.com/leaderaudit/leaderaudit/internal/report"
	"github.com/leaderaudit/leaderaudit/internal/skew"
	"github.com/leaderaudit/leaderaudit/internal/source"
	"github.com/leaderaudit/leaderaudit/internal/verdict"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// reporter is what audit, audit --follow and watch share from the first
// line read to the report: the collector and the verdict analyzer the
// timeline feeds, and the clock-skew estimator that sees every event as
// read. build turns them into the one report.Report all three render, so
// the three cannot drift apart.
type reporter struct {
	loc       *time.Location
	skew      *skewFlags
	brokerFor func(string) int32
	col       *report.Collector
	an        *verdict.Analyzer
	est       *skew.Estimator
	// findings are the verdicts of the last build (for --fail-on).
	findings []verdict.Finding
}

func newReporter(loc *time.Location, zoneNote string, vc verdict.Config, sf *skewFlags, brokerFor func(string) int32) *reporter {
	return &reporter{
		loc: loc, skew: sf, brokerFor: brokerFor,
		col: report.NewCollector(report.Options{Loc: loc, ZoneNote: zoneNote}),
		an:  verdict.New(vc),
		est: skew.NewEstimator(),
	}
}

// feed makes a live pipeline feed the reporter: its collector and
// analyzer get what the timeline finishes (and stream, if set, before the
// analyzer), its estimator every event as read.
func (r *reporter) feed(cfg *live.Config, stream timeline.Sink) {
	cfg.Collector = r.col
	cfg.Sink = r.an
	if stream != nil {
		cfg.Sink = verdict.Tee(stream, r.an)
	}
	cfg.Observe = r.est.Add
}

// build assembles the report once the timeline is closed. srcs are the
// inputs read (Index as the timeline's refs carry it); estimated is the
// clock-skew estimate made before reading (--skew auto), nil to estimate
// from the events the estimator saw.
func (r *reporter) build(tl *timeline.Timeline, srcs []*source.Source, estimated *skew.Estimate, skipped []string, interrupted bool) *report.Report {
	est := estimated
	if est == nil {
		e := r.est.Estimate(clocksOf(srcs, r.brokerFor))
		est = &e
	}
	byIndex := map[int]*source.Source{}
	for _, s := range srcs {
		byIndex[s.Index] = s
	}
	path := func(i int) string {
		if s := byIndex[i]; s != nil {
			return s.Path
		}
		return ""
	}
	var infos []report.SourceInfo
	var facts []verdict.SourceFacts
	for _, s := range srcs {
		if s.Binary {
			continue
		}
		infos = append(infos, report.Describe(s, r.loc))
		facts = append(facts, verdict.Facts(s, report.Kind(s), report.EraName(&s.Stats)))
	}
	rep := report.New(r.col, tl, infos, interrupted)
	rep.Skipped = skipped
	rep.Skew = skewReport(srcs, path, r.skew, est, r.loc)
	rep.SkewInconsistent = report.InconsistentSkew(est, path, r.loc)
	rep.ZoneHints = report.ZoneHints(est, path, r.loc)
	r.an.SetClockSkew(rep.Skew)
	r.an.SetZoneHints(rep.ZoneHints)
	findings := r.an.Finish(tl, func(i int) string { return report.Clean(path(i)) }, facts)
	for _, f := range findings {
		rep.Findings = append(rep.Findings, report.Finding{Text: verdict.Lines([]verdict.Finding{f}), Record: f.Record()})
	}
	r.findings = findings
	return rep
}
