package verdict

import (
	"strings"
	"testing"

	"github.com/leaderaudit/leaderaudit/internal/report"
)

func skewFinding(t *testing.T, cs ...report.ClockSkew) []Finding {
	t.Helper()
	a := New(Config{})
	a.SetClockSkew(cs)
	var out []Finding
	for _, f := range a.Finish(nil, nil, nil) {
		if f.Code == CodeClockSkew {
			out = append(out, f)
		}
	}
	return out
}

func i64(v int64) *int64 { return &v }

// Case 4's broker 2 (+118 ms, from cmd/leaderaudit's run): uncorrected it
// is a warning with the two pairs' lines as evidence; corrected, info.
func TestClockSkewFinding(t *testing.T) {
	cs := report.ClockSkew{Clock: "broker 2", OffsetMs: 118, MinMs: i64(93), MaxMs: i64(143), Pairs: 16,
		Evidence: []report.SkewEvidence{{CauseFile: "broker-2/server.log", CauseLine: 5, EffectFile: "broker-1/controller.log", EffectLine: 3}}}
	fs := skewFinding(t, cs)
	if len(fs) != 1 || fs[0].Severity != Warning || !strings.Contains(fs[0].Message, "broker 2's clock ran 118 ms ahead of the others") ||
		len(fs[0].Evidence) != 2 || fs[0].Evidence[0].String() != "broker-2/server.log:5" || fs[0].Data["max_ms"] != int64(143) {
		t.Fatalf("%+v", fs)
	}
	cs.Applied = true
	if fs := skewFinding(t, cs); len(fs) != 1 || fs[0].Severity != Info || !strings.Contains(fs[0].Message, "corrected (--skew auto)") {
		t.Fatalf("applied: %+v", fs)
	}
	byHand := report.ClockSkew{Clock: "broker-2/*", OffsetMs: -120, ByHand: "broker-2/*=-120ms", Applied: true}
	if fs := skewFinding(t, byHand); len(fs) != 1 || fs[0].Severity != Info || !strings.Contains(fs[0].Message, "120 ms behind") {
		t.Fatalf("by hand: %+v", fs)
	}
}

// Offsets the logs do not show, or smaller than 10 ms, are no finding.
func TestClockSkewNotTriggered(t *testing.T) {
	if fs := skewFinding(t, report.ClockSkew{Clock: "broker 1", OffsetMs: 0, Pairs: 40}, report.ClockSkew{Clock: "broker 3", OffsetMs: -9, Pairs: 4}); len(fs) != 0 {
		t.Fatalf("%+v", fs)
	}
}
