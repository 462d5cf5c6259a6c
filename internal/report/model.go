package report

import (
	"github.com/leaderaudit/leaderaudit/internal/source"
	"github.com/leaderaudit/leaderaudit/internal/textfmt"
	"time"

	"github.com/leaderaudit/leaderaudit/timeline"
)

// Report is one audit's outcome, built once when the reading is over and
// rendered by WriteText (the postmortem) and WriteJSON (the closing JSON
// lines). audit, audit --follow and watch's exit report all render this
// one value, so what one of them says the others say too. Elections,
// producer errors and bursts are streamed as JSON lines while the
// timeline finishes them (Collector.JSON, or a live sink); the report
// holds their aggregates.
type Report struct {
	// Agg holds the aggregates of elections, producer errors and bursts.
	Agg *Collector
	// Timeline is the context the timeline kept: broker and controller
	// events, ISR changes, truncations, consumer events.
	Timeline *timeline.Stats
	// SkewTolerance and StaleWindow are the timeline's matching windows.
	SkewTolerance, StaleWindow time.Duration
	Sources                    []source.Info
	// Skipped: inputs not read, as "path: reason".
	Skipped []string
	// Skew: clock offsets estimated (and maybe applied); SkewInconsistent:
	// the pairs of a contradiction; ZoneHints: clocks read in the wrong
	// zone.
	Skew             []ClockSkew
	SkewInconsistent []SkewEvidence
	ZoneHints        []ZoneHint
	Findings         []Finding
	Summary          Summary
	// Window: what the report was asked to cover (--since/--until/--topic/
	// --partition). The logs are read whole either way; the window only
	// chooses what is reported.
	Window Window
	// Width: the text report's line width (DefaultWidth when 0). Full:
	// print every list whole instead of its top few.
	Width int
	Full  bool
}

// Finding is one verdict as the report shows it. Package verdict builds
// findings and imports this one, so the report holds what its renderings
// need: the fields the text shows, and the JSON line.
type Finding struct {
	Severity, Code, Subject, Message, Remedy string
	// Evidence: "file:line" of the lines it rests on.
	Evidence []string
	Record   any // its JSON line (type "finding")
}

// Summary is the closing JSON line.
type Summary struct {
	Type            string         `json:"type"`
	Elections       int            `json:"elections"`
	Transitions     int            `json:"transitions"`
	LeaderChanged   int            `json:"leader_changed"`
	LeaderKept      int            `json:"leader_kept"`
	LeaderNone      int            `json:"leader_none"`
	MetadataOnly    int            `json:"metadata_only"`
	Resent          int            `json:"resent"`
	CarriedOver     int            `json:"carried_over"`
	Unclean         int            `json:"unclean"`
	P50Ms           int64          `json:"duration_p50_ms"`
	P99Ms           int64          `json:"duration_p99_ms"`
	MaxMs           int64          `json:"duration_max_ms"`
	ReadyP50Ms      int64          `json:"leader_ready_p50_ms"`
	ReadyP99Ms      int64          `json:"leader_ready_p99_ms"`
	ReadyMaxMs      int64          `json:"leader_ready_max_ms"`
	Bursts          int            `json:"bursts"`
	ProducerErrors  int            `json:"producer_errors"`
	Matched         map[string]int `json:"producer_errors_by_match"`
	FinalFailures   int            `json:"final_failures"`
	Sources         int            `json:"sources"`
	TimeZone        string         `json:"time_zone"`
	ZoneNote        string         `json:"zone_note"`
	SkewToleranceMs int64          `json:"skew_tolerance_ms"`
	StaleWindowMs   int64          `json:"stale_window_ms"`
	OrphanLines     int64          `json:"orphan_lines"`
	LateLines       int64          `json:"late_lines"`
	Interrupted     bool           `json:"interrupted"`
	// Partial: a log store failed part way; the audit covers what it
	// sent before.
	Partial bool `json:"partial,omitempty"`
	// StoreSkipped: lines of a log store's answers that were not rows.
	StoreSkipped int64 `json:"store_skipped_lines,omitempty"`
}

// New assembles the report from the collector the timeline fed and the
// closed timeline tl; the caller fills in sources, skew and findings.
func New(c *Collector, tl *timeline.Timeline, sources []source.Info, interrupted bool) *Report {
	cfg := tl.Config()
	r := &Report{
		Agg: c, Timeline: &tl.Stats,
		SkewTolerance: cfg.SkewTolerance, StaleWindow: cfg.StaleWindow, Sources: sources,
	}
	r.Summary = Summary{
		Type: "summary", Elections: c.Episodes, Transitions: c.Transitions, LeaderChanged: c.LeaderMoved,
		LeaderKept: c.LeaderKept, LeaderNone: c.LeaderNone, MetadataOnly: c.MetadataOnly, Resent: c.Resent, CarriedOver: c.CarriedOver, Unclean: c.Unclean,
		P50Ms: c.Spans.P(50).Milliseconds(), P99Ms: c.Spans.P(99).Milliseconds(), MaxMs: c.Spans.P(100).Milliseconds(),
		ReadyP50Ms: c.Durations.P(50).Milliseconds(), ReadyP99Ms: c.Durations.P(99).Milliseconds(), ReadyMaxMs: c.Durations.P(100).Milliseconds(), Bursts: len(c.Bursts), ProducerErrors: c.Errors,
		Matched:       map[string]int{"during": c.ByMatch[timeline.MatchDuring], "after": c.ByMatch[timeline.MatchAfter], "none": c.ByMatch[timeline.MatchNone]},
		FinalFailures: c.Finals, Sources: len(sources), TimeZone: c.Opt.Loc.String(), ZoneNote: c.Opt.ZoneNote,
		SkewToleranceMs: cfg.SkewTolerance.Milliseconds(), StaleWindowMs: cfg.StaleWindow.Milliseconds(),
		OrphanLines: tl.Stats.Orphans, LateLines: tl.Stats.Late, Interrupted: interrupted,
	}
	if n := c.ByMatch[timeline.MatchOther]; n > 0 {
		r.Summary.Matched["not_leadership"] = n
	}
	return r
}

// WriteJSON writes the report's closing lines after the streamed records:
// the context, one "source" line per input, clock skew, zone hints,
// findings and the summary; then flushes.
func (r *Report) WriteJSON(j *JSONWriter) error {
	j.Context(r.Timeline, &r.Window)
	for _, si := range r.Sources {
		j.Any(si)
	}
	for _, cs := range r.Skew {
		j.Any(cs)
	}
	for _, z := range r.ZoneHints {
		j.Any(z)
	}
	for _, f := range r.Findings {
		j.Any(f.Record)
	}
	j.Any(r.Summary)
	return j.Flush()
}

// SourcePath names source i as its source record does.
func (m *Report) SourcePath(i int) string {
	for _, s := range m.Sources {
		if s.Index == i {
			return textfmt.Clean(s.Path)
		}
	}
	return ""
}
