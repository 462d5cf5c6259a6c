package verdict_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/source"
	"github.com/leaderaudit/leaderaudit/internal/verdict"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// noteSlow skips slowestStep where stepsWithin says no step can exceed the
// threshold: on every election of the incidents and samples, the slowest
// step is no longer than the election's first → last line or a broker's
// own "Finished ... in", and stepsWithin is false for any limit below it.
func TestStepsWithinBoundsTheSlowestStep(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/incidents/*")
	samples, _ := filepath.Glob("../../testdata/samples/*.log")
	n := 0
	for _, in := range append(dirs, samples...) {
		ins, _ := source.Discover([]string{in}, 0)
		rd := source.NewReader(ins, func(string) *time.Location { return time.UTC })
		k := &keep{}
		tl := timeline.New(timeline.Config{}, k)
		rd.Run(context.Background(), func(src int, ev *parser.Event) { tl.Add(src, ev) })
		tl.Close()
		for _, e := range k.eps {
			d := verdict.SlowestStepDuration(e)
			if verdict.StepsWithin(e, d-1) && d > 0 {
				t.Errorf("%s %v: slowest step %v, but steps within %v (span %v–%v)", in, e.Key, d, d-1, e.Start, e.End)
			}
			n++
		}
	}
	for _, e := range benchElections(2000) {
		if d := verdict.SlowestStepDuration(e); d > 0 && verdict.StepsWithin(e, d-1) {
			t.Errorf("%v: slowest step %v, but steps within %v", e.Key, d, d-1)
		}
		n++
	}
	if n < 1000 {
		t.Fatalf("only %d elections", n)
	}
	t.Logf("%d elections", n)
}
