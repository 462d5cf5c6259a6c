package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/leaderaudit/leaderaudit/internal/live"
	"github.com/leaderaudit/leaderaudit/internal/report"
	"github.com/leaderaudit/leaderaudit/internal/skew"
	"github.com/leaderaudit/leaderaudit/internal/source"
	"github.com/leaderaudit/leaderaudit/internal/textfmt"
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
	// window is what audit reports (--since/--until/--topic/--partition);
	// windowed the sink that applies it, set by sink.
	window   report.Window
	windowed *report.WindowedSink
}

// sink is what the timeline feeds: the collector and the analyzer, behind
// the report's window.
func (r *reporter) sink() timeline.Sink {
	r.windowed = report.WindowSink(&r.window, verdict.Tee(r.col, r.an))
	return r.windowed
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
	var infos []source.Info
	var facts []verdict.SourceFacts
	for _, s := range srcs {
		if s.Binary {
			continue
		}
		infos = append(infos, source.Describe(s, r.loc))
		facts = append(facts, verdict.Facts(s, source.Kind(s), source.EraName(&s.Stats)))
	}
	rep := report.New(r.col, tl, infos, interrupted)
	rep.Skipped = skipped
	rep.Skew = skewReport(srcs, path, r.skew, est, r.loc)
	rep.SkewInconsistent = report.InconsistentSkew(est, path, r.loc)
	rep.ZoneHints = report.ZoneHints(est, path, r.loc)
	r.an.SetClockSkew(rep.Skew)
	r.an.SetZoneHints(rep.ZoneHints)
	findings := r.an.Finish(tl, func(i int) string { return textfmt.Clean(path(i)) }, facts)
	if r.window.Active() && r.windowed != nil {
		findings = r.scope(findings)
	}
	rep.Window = r.window
	for _, f := range findings {
		rf := report.Finding{Severity: f.Severity, Code: f.Code, Subject: f.Subject, Message: f.Message, Remedy: f.Remedy, Record: f.Record()}
		for _, e := range f.Evidence {
			rf.Evidence = append(rf.Evidence, e.String())
		}
		rep.Findings = append(rep.Findings, rf)
	}
	r.findings = findings
	return rep
}

// scope keeps the findings that concern what the window reports: none
// when it reports no election and no producer error (so --fail-on has
// nothing to fail on), and a finding about a broker only when a reported
// election involved that broker.
func (r *reporter) scope(fs []verdict.Finding) []verdict.Finding {
	w := r.windowed
	if w.Elections == 0 && w.Errors == 0 {
		return nil
	}
	var out []verdict.Finding
	for _, f := range fs {
		if id, ok := strings.CutPrefix(f.Subject, "broker "); ok {
			if n, err := strconv.ParseInt(id, 10, 32); err == nil && !w.Involves(int32(n)) {
				continue
			}
		}
		out = append(out, f)
	}
	return out
}

// textWidth is the text report's width: the terminal's when out is one,
// else report.DefaultWidth (a file, a pipe, a pager).
func textWidth(out any) int {
	if f, ok := out.(fd); ok && term.IsTerminal(f.Fd()) {
		if w, _, err := term.GetSize(f.Fd()); err == nil && w >= 40 {
			return w
		}
	}
	return report.DefaultWidth
}

// sourcePaths names sources by index for producer errors' "lines", as the
// source records and findings name them; srcs is asked again only for an
// index not seen yet (stores add streams as their rows arrive).
func sourcePaths(srcs func() []*source.Source) func(int) string {
	names := map[int]string{}
	return func(i int) string {
		if n, ok := names[i]; ok {
			return n
		}
		for _, s := range srcs() {
			names[s.Index] = textfmt.Clean(s.Path)
		}
		return names[i]
	}
}
