package verdict

import (
	"fmt"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/report"
	"github.com/leaderaudit/leaderaudit/internal/textfmt"
)

// SkewThresholdMs: a host clock off by less than this is not a finding (a
// few milliseconds is what log4j's resolution and message latency leave).
const SkewThresholdMs = 10

// SetClockSkew hands the analyzer the clock offsets estimated (and maybe
// applied) for this audit; Finish turns the large ones into findings.
func (a *Analyzer) SetClockSkew(recs []report.ClockSkew) { a.skew = recs }

// SetZoneHints hands the analyzer the files that look read in the wrong
// zone.
func (a *Analyzer) SetZoneHints(z []report.ZoneHint) { a.zones = z }

// clockSkew: a host whose clock was off. Uncorrected it is a warning
// (phase times across hosts and producer-error matching use the logged
// times); corrected, by --skew auto or by hand, it is information.
func (f *finisher) clockSkew() {
	for _, z := range f.a.zones {
		f.add(Finding{Code: CodeClockSkew, Severity: Warning, Subject: z.Clock,
			Message: fmt.Sprintf("%s's lines come %s after the %s lines they follow from (%d causal pairs): its files look read in the wrong zone, so its times are off by that much",
				z.Clock, textfmt.Dur(time.Duration(z.OffsetMs)*time.Millisecond), z.RelativeTo, z.Pairs),
			Remedy:   "Give that host's zone with --tz 'GLOB=ZONE' (Kafka's log4j timestamps carry none; the audit reads them in --tz, default this machine's zone).",
			Evidence: []Evidence{{File: z.Evidence.CauseFile, Line: z.Evidence.CauseLine}, {File: z.Evidence.EffectFile, Line: z.Evidence.EffectLine}},
			Data:     map[string]any{"clock": z.Clock, "relative_to": z.RelativeTo, "offset_ms": z.OffsetMs, "pairs": z.Pairs, "zone": true},
		})
	}
	for _, cs := range f.a.skew {
		off := cs.OffsetMs
		if off < 0 {
			off = -off
		}
		if off < SkewThresholdMs {
			continue
		}
		dir := "ahead of"
		if cs.OffsetMs < 0 {
			dir = "behind"
		}
		fd := Finding{Code: CodeClockSkew, Subject: cs.Clock,
			Remedy: "Fix time synchronisation on that host (chrony or ntpd against the same servers as the others); until then audit with --skew auto, or --skew 'GLOB=OFFSET' for watch and audit --follow.",
			Data:   map[string]any{"clock": cs.Clock, "offset_ms": cs.OffsetMs, "pairs": cs.Pairs, "applied": cs.Applied || cs.ByHand != ""},
		}
		if cs.MinMs != nil {
			fd.Data["min_ms"] = *cs.MinMs
		}
		if cs.MaxMs != nil {
			fd.Data["max_ms"] = *cs.MaxMs
		}
		switch {
		case cs.ByHand != "":
			fd.Severity = Info
			fd.Message = fmt.Sprintf("%s's clock is taken as %d ms %s the others (--skew %s); its times were corrected", cs.Clock, off, dir, cs.ByHand)
		case cs.Applied:
			fd.Severity = Info
			fd.Message = fmt.Sprintf("%s's clock ran %d ms %s the others (%d causal pairs across hosts); its times were corrected (--skew auto)", cs.Clock, off, dir, cs.Pairs)
		default:
			fd.Severity = Warning
			fd.Message = fmt.Sprintf("%s's clock ran %d ms %s the others (%d causal pairs across hosts show its lines out of order with their causes); not corrected: phase times across hosts and producer-error matching use the logged times; re-run with --skew auto", cs.Clock, off, dir, cs.Pairs)
		}
		for _, e := range cs.Evidence {
			fd.Evidence = append(fd.Evidence, Evidence{File: e.CauseFile, Line: e.CauseLine}, Evidence{File: e.EffectFile, Line: e.EffectLine})
		}
		f.add(fd)
	}
}
