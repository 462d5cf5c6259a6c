package tui

import (
	"strings"
	"testing"

	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// A controller re-sending an old decision in the middle of a controlled
// shutdown is no election of the burst: the screen, like the timeline (and
// so the report), keeps the burst whole and shows the re-sent one alone.
func TestResentElectionDoesNotSplitBurst(t *testing.T) {
	eps := burstEpisodes()
	resent := episode("orders", 1, 4, ms(40), ms(10), 1, 2, parser.CauseControlledShutdown)
	resent.Resent = true
	eps = append(eps, resent)

	m := model(100, 30, snap(ms(3000), eps))
	m.ensure()
	var sizes []int
	for _, r := range m.rows {
		switch {
		case r.kind == rowBurst:
			sizes = append(sizes, len(r.burst.eps))
		case !r.child:
			sizes = append(sizes, 1)
		}
	}
	if len(sizes) != 2 || sizes[0]+sizes[1] != 4 || (sizes[0] != 3 && sizes[1] != 3) {
		t.Fatalf("burst sizes %v, want the burst of 3 and the re-sent election alone", sizes)
	}
	v := checkScreen(t, m, "resent")
	if !strings.Contains(v, "burst of 3") || !strings.Contains(rowOf(v, "orders-1"), "orders-1") {
		t.Errorf("screen:\n%s", v)
	}

	// The timeline groups the same elections the same way.
	var tl []*timeline.Episode
	for _, e := range eps {
		if timeline.InBurst(e) {
			tl = append(tl, e)
		}
	}
	b := timeline.StartBurst(1, tl[0])
	for _, e := range tl[1:] {
		if !b.Joins(e, m.opt.BurstGap) {
			t.Fatalf("%v does not join %+v", e.Key, b)
		}
		b.Add(e)
	}
	if b.Episodes != 3 {
		t.Errorf("timeline burst of %d", b.Episodes)
	}
}
