package tui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/quantile"
	"github.com/leaderaudit/leaderaudit/internal/textfmt"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// Phase marks on a broker's lane.
var phaseMark = [parser.NumPhases]rune{' ', 'R', 'H', 'S', 'T', 'F', 'C', 'M', 'E', 'X'}

// Controller marks.
const (
	markDecided = 'D'
	markLAI     = 'L'
	markUM      = 'U'
)

const legend = "R received · H handling · S stopped fetchers · T truncated · F started fetcher · C completed · M cached · E epoch start · X finished · D controller decided · L LeaderAndIsr sent · U UpdateMetadata sent"

func offset(t, start time.Time) string {
	d := t.Sub(start)
	if d < time.Second {
		return fmt.Sprintf("+%d ms", d.Milliseconds())
	}
	return "+" + textfmt.Dur(d)
}

// detail draws an election: what it is, then one lane per broker on a
// common time scale, then (full) the phases with their offsets and the
// producer errors it explains.
func (m *Model) detail(r *epRec, w int, full bool) []string {
	if r == nil {
		if full && m.detailErr != nil {
			return []string{m.errorLine(m.detailErr, "error: "), m.noElection(m.detailErr)}
		}
		return []string{"  no election selected (it may have been dropped: older than --keep)"}
	}
	e := r.e.episode()
	now := m.now()
	done := m.done(r, now)
	var out []string
	state := "took " + textfmt.Dur(e.Took())
	if !done {
		// Its first line to its newest, as start → end below says.
		st := "IN PROGRESS " + textfmt.Dur(e.Duration()) + " so far"
		if w := waiting(r); w != "" {
			st += ", " + w
		}
		state = m.st.inprog.Render(st)
	}
	title := fmt.Sprintf("%s · epoch %d · %s · leader %s → %s · %s", cutTP(e.Topic, e.Partition, max(12, w/3)), e.LeaderEpoch,
		state, brokerStr(e.PreviousLeader), brokerStr(e.Leader), causeLong(e.Cause, e.CauseBrokers))
	out = append(out, "  "+m.st.title.Render(title))
	info := []string{"controller " + brokerStr(e.Controller)}
	if e.ControllerEpoch != parser.Unknown {
		info[0] += fmt.Sprintf(" (epoch %d)", e.ControllerEpoch)
	}
	info = append(info, "start "+m.full(e.Start), "end "+m.hms(e.End))
	if len(e.ISR) > 0 {
		info = append(info, "ISR "+textfmt.JoinIDs(e.ISR))
	}
	if len(e.Replicas) > 0 {
		info = append(info, "replicas "+textfmt.JoinIDs(e.Replicas))
	}
	var flags []string
	if e.Unclean {
		flags = append(flags, m.st.bad.Render("UNCLEAN"))
	}
	if e.Leader == -1 {
		flags = append(flags, m.st.bad.Render("NO LEADER"))
	}
	if e.Resent {
		flags = append(flags, "re-sent from an earlier controller epoch")
	}
	if e.CarriedOver {
		flags = append(flags, "carried over from before the logs")
	}
	if e.Late > 0 {
		flags = append(flags, fmt.Sprintf("%d late lines", e.Late))
	}
	info = append(info, flags...)
	out = append(out, "  "+strings.Join(info, " · "))
	// The same measures as the report's (timeline's Measures).
	var took []string
	mm := e.Measures()
	for _, x := range []struct {
		what string
		d    time.Duration
		ok   bool
	}{{"leader ready", mm.LeaderReady, mm.HasLeaderReady}, {"ISR applied", mm.ISRApplied, mm.HasISRApplied}, {"propagated", mm.Propagated, mm.HasPropagated}, {"detected after", mm.Detect, mm.HasDetect}} {
		if x.ok {
			took = append(took, x.what+" "+textfmt.Dur(x.d))
		}
	}
	if len(took) > 0 {
		out = append(out, "  "+strings.Join(took, " · "))
	}

	// Lanes, to scale.
	end := e.End
	if !done && now.After(end) {
		end = now
	}
	span := end.Sub(e.Start)
	const labelW = 20
	const rightW = 16
	barW := max(w-labelW-rightW-2, 10)
	pos := func(t time.Time) int {
		if span <= 0 {
			return 0
		}
		p := int(float64(t.Sub(e.Start))/float64(span)*float64(barW-1) + 0.5)
		return min(max(p, 0), barW-1)
	}
	axis := padRight("", labelW) + "0" + spaces(barW-1-width(textfmt.Dur(span))) + textfmt.Dur(span)
	if span <= 0 {
		axis = padRight("", labelW) + "0 (all in the same millisecond)"
	}
	out = append(out, "  "+m.st.dim.Render(axis))
	type mark struct {
		at time.Time
		r  rune
		st int
	}
	lane := func(label string, marks []mark, right string) string {
		cells := []rune(strings.Repeat("·", barW))
		styl := make([]int, barW)
		lo, hi := barW, -1
		for _, mk := range marks {
			p := pos(mk.at)
			lo, hi = min(lo, p), max(hi, p)
		}
		for i := lo; i <= hi && i >= 0; i++ {
			cells[i] = '─'
		}
		// Later phases win a shared cell; the first phase stays visible
		// when it has a cell of its own.
		for _, mk := range marks {
			p := pos(mk.at)
			cells[p] = mk.r
			styl[p] = mk.st
		}
		var b strings.Builder
		for i, c := range cells {
			if styl[i] > 0 {
				b.WriteString(m.st.phase[styl[i]].Render(string(c)))
			} else {
				b.WriteRune(c)
			}
		}
		return "  " + padRight(label, labelW-1) + " " + b.String() + " " + padRight(right, rightW)
	}
	var ctrl []mark
	if !e.Decided.IsZero() {
		ctrl = append(ctrl, mark{e.Decided, markDecided, 10})
	}
	if !e.SentLeaderAndIsr.IsZero() {
		ctrl = append(ctrl, mark{e.SentLeaderAndIsr, markLAI, 11})
	}
	if !e.SentUpdateMetadata.IsZero() {
		ctrl = append(ctrl, mark{e.SentUpdateMetadata, markUM, 11})
	}
	if len(ctrl) > 0 {
		sort.SliceStable(ctrl, func(i, j int) bool { return ctrl[i].at.Before(ctrl[j].at) })
		out = append(out, lane("controller "+brokerStr(e.Controller), ctrl, "decided "+offset(e.Decided, e.Start)))
	}
	for _, bt := range e.Brokers {
		var mk []mark
		for ph := parser.PhaseReceived; ph < parser.NumPhases; ph++ {
			if t := bt.Phases[ph]; !t.IsZero() {
				mk = append(mk, mark{t, phaseMark[ph], int(ph)})
			}
		}
		sort.SliceStable(mk, func(i, j int) bool { return mk[i].at.Before(mk[j].at) })
		role := bt.Role.String()
		if role == "" {
			role = "observer"
		}
		right := ""
		if d, ok := bt.Applied(); ok {
			right = "applied " + textfmt.Dur(d)
		}
		if bt.CatchUp {
			// Not serving at the decision: left out of the measures.
			right = "catch-up"
			if d, ok := bt.Applied(); ok {
				right += " " + textfmt.Dur(d)
			}
		}
		out = append(out, lane(fmt.Sprintf("broker %d %s", bt.Broker, role), mk, right))
	}
	if len(e.Brokers) == 0 {
		out = append(out, "  (no broker has logged applying it yet)")
	}
	errs := r.errs()
	nErr := errCount(r)
	if !full {
		if nErr > 0 {
			out = append(out, fmt.Sprintf("  %d producer error(s) explained · enter for the phase table and the errors", nErr))
		}
		out = append(out, "  "+m.st.dim.Render(legend))
		return out
	}
	out = append(out, "  "+m.st.dim.Render(legend), "")

	// Phase table: offsets from the election's first line.
	colW := 12
	head := "  " + padRight("phase", 20)
	if len(ctrl) > 0 {
		head += padLeft("controller", colW)
	}
	for _, bt := range e.Brokers {
		head += padLeft(fmt.Sprintf("broker %d", bt.Broker), colW)
	}
	out = append(out, m.st.head.Render(head))
	if len(ctrl) > 0 {
		for _, c := range []struct {
			name string
			t    time.Time
		}{{"controller decided", e.Decided}, {"LeaderAndIsr sent", e.SentLeaderAndIsr}, {"UpdateMetadata sent", e.SentUpdateMetadata}} {
			if c.t.IsZero() {
				continue
			}
			line := "  " + padRight(c.name, 20) + padLeft(offset(c.t, e.Start), colW)
			out = append(out, line)
		}
	}
	for ph := parser.PhaseReceived; ph < parser.NumPhases; ph++ {
		any := false
		for _, bt := range e.Brokers {
			if !bt.Phases[ph].IsZero() {
				any = true
			}
		}
		if !any {
			continue
		}
		line := "  " + padRight(string(phaseMark[ph])+" "+strings.ReplaceAll(ph.String(), "_", " "), 20)
		if len(ctrl) > 0 {
			line += spaces(colW)
		}
		for _, bt := range e.Brokers {
			v := "-"
			if t := bt.Phases[ph]; !t.IsZero() {
				v = offset(t, e.Start)
			}
			line += padLeft(v, colW)
		}
		out = append(out, line)
	}
	var appl []string
	for _, bt := range e.Brokers {
		if d, ok := bt.Applied(); ok {
			s := fmt.Sprintf("broker %d %s", bt.Broker, textfmt.Dur(d))
			if bt.Elapsed > 0 {
				s += fmt.Sprintf(" (it logged %s)", textfmt.Dur(bt.Elapsed))
			}
			appl = append(appl, s)
		}
	}
	if len(appl) > 0 {
		out = append(out, "  applied in: "+strings.Join(appl, " · "))
	}
	out = append(out, "")
	if nErr == 0 {
		out = append(out, "  no producer error explained by it (yet)")
		return out
	}
	out = append(out, m.st.title.Render(fmt.Sprintf("  producer errors it explains: %d", nErr)))
	if m.detailErr != nil {
		out = append(out, m.errorLine(m.detailErr, "▸ "))
	}
	sorted := append([]*timeline.ProducerError(nil), errs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Time.Before(sorted[j].Time) })
	for _, pe := range sorted {
		if pe == m.detailErr {
			continue
		}
		out = append(out, m.errorLine(pe, ""))
	}
	if len(errs) < nErr {
		out = append(out, fmt.Sprintf("  … %d more matched before they were in memory", nErr-len(errs)))
	}
	return out
}

// ---------------------------------------------------------------------------
// Histogram.

var bucketBounds = []time.Duration{
	time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond,
	50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 20 * time.Second, 50 * time.Second, 100 * time.Second,
}

// bucketDur names a bucket bound: "2 ms", "500 ms", "1 s", "100 s".
func bucketDur(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%g s", d.Seconds())
}

func bucketLabel(i int) string {
	switch {
	case i == 0:
		return "< " + bucketDur(bucketBounds[0])
	case i == len(bucketBounds):
		return "≥ " + bucketDur(bucketBounds[i-1])
	}
	lo, hi := bucketDur(bucketBounds[i-1]), bucketDur(bucketBounds[i])
	// "1–2 ms", "1–2 s", "500 ms–1 s"
	for _, unit := range []string{" ms", " s"} {
		if strings.HasSuffix(lo, unit) && strings.HasSuffix(hi, unit) {
			return strings.TrimSuffix(lo, unit) + "–" + hi
		}
	}
	return lo + "–" + hi
}

func bucketOf(d time.Duration) int {
	for i, b := range bucketBounds {
		if d < b {
			return i
		}
	}
	return len(bucketBounds)
}

type brokerSlow struct {
	broker  int32
	applied []time.Duration
	max     time.Duration
	key     timeline.Key
}

func (m *Model) histogram() []string {
	now := m.now()
	counts := make([]int, len(bucketBounds)+1)
	var ds []time.Duration
	brokers := map[int32]*brokerSlow{}
	inprog := 0
	for _, r := range m.eps {
		if !m.keepEpisode(r, now) {
			continue
		}
		if !m.done(r, now) {
			inprog++
			continue
		}
		d := r.took
		ds = append(ds, d)
		counts[bucketOf(d)]++
		r.e.applied(func(id int32, ap time.Duration) {
			b := brokers[id]
			if b == nil {
				b = &brokerSlow{broker: id}
				brokers[id] = b
			}
			b.applied = append(b.applied, ap)
			if ap >= b.max {
				b.max, b.key = ap, r.e.Key
			}
		})
	}
	title := fmt.Sprintf("  Election durations (first to last line), %d done", len(ds))
	if inprog > 0 {
		title += fmt.Sprintf(", %d in progress not counted", inprog)
	}
	if m.filter.active() {
		title += " · filtered"
	}
	out := []string{m.st.title.Render(title)}
	if len(ds) == 0 {
		return append(out, "", "  no finished election yet")
	}
	out = append(out, fmt.Sprintf("  p50 %s · p90 %s · p99 %s · max %s", textfmt.Dur(quantile.Percentile(ds, 50)),
		textfmt.Dur(quantile.Percentile(ds, 90)), textfmt.Dur(quantile.Percentile(ds, 99)), textfmt.Dur(quantile.Percentile(ds, 100))), "")
	lo, hi := len(counts), -1
	maxN := 0
	for i, n := range counts {
		if n > 0 {
			lo, hi = min(lo, i), max(hi, i)
			maxN = max(maxN, n)
		}
	}
	barW := max(m.width-2-12-3-8, 5)
	for i := lo; i <= hi; i++ {
		n := counts[i]
		bar := 0
		if n > 0 {
			bar = max(1, n*barW/maxN)
		}
		out = append(out, "  "+padLeft(bucketLabel(i), 12)+" │ "+m.st.good.Render(strings.Repeat("█", bar))+" "+humanizeInt(n))
	}
	out = append(out, "", m.st.title.Render("  Slowest per broker (time to apply: first to last phase it logged)"))
	var bs []*brokerSlow
	for _, b := range brokers {
		bs = append(bs, b)
	}
	sort.Slice(bs, func(i, j int) bool {
		if bs[i].max != bs[j].max {
			return bs[i].max > bs[j].max
		}
		return bs[i].broker < bs[j].broker
	})
	if len(bs) == 0 {
		out = append(out, "  no broker timelines yet")
	}
	for _, b := range bs {
		out = append(out, fmt.Sprintf("  broker %-5d %6s partitions  p50 %-7s p99 %-7s max %-7s %s epoch %d", b.broker, humanizeInt(len(b.applied)),
			shortDur(quantile.Percentile(b.applied, 50)), shortDur(quantile.Percentile(b.applied, 99)), shortDur(b.max),
			cutTP(b.key.Topic, b.key.Partition, 40), b.key.LeaderEpoch))
	}
	return out
}

func humanizeInt(n int) string {
	s := fmt.Sprint(n)
	if n < 10000 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
