package report

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/skew"
	"github.com/leaderaudit/leaderaudit/internal/textfmt"
)

// ClockSkew is one host clock's estimated offset: a "clock_skew" JSON line
// and a row of the text report's "Clock skew" section.
type ClockSkew struct {
	Type     string   `json:"type"`
	Clock    string   `json:"clock"`
	Sources  []string `json:"sources"`
	OffsetMs int64    `json:"offset_ms"`
	// MinMs..MaxMs: what the causal pairs allow (absent: unbounded).
	MinMs    *int64         `json:"min_ms,omitempty"`
	MaxMs    *int64         `json:"max_ms,omitempty"`
	Pairs    int            `json:"pairs"`
	Applied  bool           `json:"applied"`
	ByHand   string         `json:"by_hand,omitempty"` // the --skew value that set it
	Evidence []SkewEvidence `json:"evidence,omitempty"`
}

// SkewEvidence is one causal pair behind an estimate.
type SkewEvidence struct {
	What    string `json:"what"`
	Cause   string `json:"cause"`  // file:line time
	Effect  string `json:"effect"` // file:line time
	DeltaMs int64  `json:"delta_ms"`
	// The same places, for verdict evidence.
	CauseFile, EffectFile string `json:"-"`
	CauseLine, EffectLine int64  `json:"-"`
}

// SkewRecords turns an estimate into records; name gives a source's path,
// applied says whether the offsets were subtracted.
func SkewRecords(es *skew.Estimate, name func(int) string, loc *time.Location, applied bool) []ClockSkew {
	var out []ClockSkew
	for _, r := range es.Results {
		cs := ClockSkew{Type: "clock_skew", Clock: r.Clock.Name, OffsetMs: r.Offset.Milliseconds(), Pairs: r.Pairs, Applied: applied && r.Offset != 0}
		cs.Sources = sourceNames(r.Clock.Sources, name)
		if r.HasLo {
			v := r.Lo.Milliseconds()
			cs.MinMs = &v
		}
		if r.HasHi {
			v := r.Hi.Milliseconds()
			cs.MaxMs = &v
		}
		for _, s := range r.Evidence {
			cs.Evidence = append(cs.Evidence, skewEvidence(s, name, loc))
		}
		out = append(out, cs)
	}
	return out
}

// sourceNames names a clock's sources by path, not in the order they were
// found (a log store's tail finds its streams in the order of their first
// rows).
func sourceNames(srcs []int, name func(int) string) []string {
	var out []string
	for _, s := range srcs {
		out = append(out, name(s))
	}
	slices.Sort(out)
	return out
}

// ZoneHint is a "zone_hint" JSON line: Clock's lines came OffsetMs after
// the lines of RelativeTo they follow from, by whole quarter hours: a file
// read in the wrong zone.
type ZoneHint struct {
	Type       string       `json:"type"`
	Clock      string       `json:"clock"`
	Sources    []string     `json:"sources"`
	RelativeTo string       `json:"relative_to"`
	OffsetMs   int64        `json:"offset_ms"`
	Pairs      int          `json:"pairs"`
	Evidence   SkewEvidence `json:"evidence"`
}

// ZoneHints turns an estimate's zone hints into records.
func ZoneHints(es *skew.Estimate, name func(int) string, loc *time.Location) []ZoneHint {
	var out []ZoneHint
	for _, h := range es.Zones {
		z := ZoneHint{Type: "zone_hint", Clock: h.Late.Name, RelativeTo: h.Early.Name, OffsetMs: h.Offset.Milliseconds(),
			Pairs: h.Pairs, Evidence: skewEvidence(h.Example, name, loc)}
		z.Sources = sourceNames(h.Late.Sources, name)
		out = append(out, z)
	}
	return out
}

// InconsistentSkew describes bounds that contradict each other.
func InconsistentSkew(es *skew.Estimate, name func(int) string, loc *time.Location) []SkewEvidence {
	var out []SkewEvidence
	for _, s := range es.Inconsistent {
		out = append(out, skewEvidence(s, name, loc))
	}
	return out
}

func skewEvidence(s skew.Sample, name func(int) string, loc *time.Location) SkewEvidence {
	pt := func(p skew.Point) string {
		return fmt.Sprintf("%s:%d %s", name(p.Src), p.Line, p.Time.In(loc).Format("2006-01-02 15:04:05.000"))
	}
	return SkewEvidence{What: s.What, Cause: pt(s.Cause), Effect: pt(s.Effect), DeltaMs: s.Delta().Milliseconds(),
		CauseFile: name(s.Cause.Src), CauseLine: s.Cause.Line, EffectFile: name(s.Effect.Src), EffectLine: s.Effect.Line}
}

// writeSkew renders the "Clock skew" section.
func writeSkew(w io.Writer, m *Report) {
	if len(m.Skew) == 0 && len(m.SkewInconsistent) == 0 && len(m.ZoneHints) == 0 {
		return
	}
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("Clock skew (estimated from causality across hosts: an effect cannot be logged before its cause)\n")
	if len(m.SkewInconsistent) > 0 {
		p("  the causal pairs contradict each other, so no clock was estimated; the pairs:\n")
		for _, e := range m.SkewInconsistent {
			p("    %s: %s → %s (%+d ms)\n", textfmt.Clean(e.What), textfmt.Clean(e.Cause), textfmt.Clean(e.Effect), e.DeltaMs)
		}
	}
	for _, z := range m.ZoneHints {
		p("  %s's lines come %s after the %s lines they follow from (%d causal pairs, all within 2 min of that): read in the wrong zone? Give its zone with --tz 'GLOB=ZONE'\n",
			textfmt.Clean(z.Clock), textfmt.Dur(time.Duration(z.OffsetMs)*time.Millisecond), textfmt.Clean(z.RelativeTo), z.Pairs)
		p("    %s\n      cause  %s\n      effect %s\n", textfmt.Clean(z.Evidence.What), textfmt.Clean(z.Evidence.Cause), textfmt.Clean(z.Evidence.Effect))
	}
	var steady []string
	for _, cs := range m.Skew {
		if cs.OffsetMs == 0 && cs.ByHand == "" {
			steady = append(steady, fmt.Sprintf("%s (%s)", textfmt.Clean(cs.Clock), bounds(&cs)))
			continue
		}
		dir := "ahead of"
		if cs.OffsetMs < 0 {
			dir = "behind"
		}
		p("  %s: %+d ms (%s the others)", textfmt.Clean(cs.Clock), cs.OffsetMs, dir)
		switch {
		case cs.ByHand != "":
			p(", set by --skew %s, corrected\n", textfmt.Clean(cs.ByHand))
		case cs.Applied:
			p(", allowed %s by %d causal pair(s), corrected (--skew auto)\n", bounds(&cs), cs.Pairs)
		default:
			p(", allowed %s by %d causal pair(s); NOT corrected: re-run with --skew auto\n", bounds(&cs), cs.Pairs)
		}
		for _, e := range cs.Evidence {
			rel := "after"
			d := e.DeltaMs
			if d < 0 {
				rel, d = "before", -d
			}
			p("    %s: logged %d ms %s its cause\n      cause  %s\n      effect %s\n", textfmt.Clean(e.What), d, rel, textfmt.Clean(e.Cause), textfmt.Clean(e.Effect))
		}
	}
	if len(steady) > 0 {
		p("  consistent with the others, left as logged: ")
		for i, s := range steady {
			if i > 0 {
				p(", ")
			}
			if i == 8 {
				p("and %d more", len(steady)-i)
				break
			}
			p("%s", s)
		}
		p("\n")
	}
	p("\n")
}

func bounds(cs *ClockSkew) string {
	lo, hi := "−∞", "+∞"
	if cs.MinMs != nil {
		lo = fmt.Sprintf("%+d", *cs.MinMs)
	}
	if cs.MaxMs != nil {
		hi = fmt.Sprintf("%+d", *cs.MaxMs)
	}
	return lo + " … " + hi + " ms"
}
