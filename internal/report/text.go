package report

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dustin/go-humanize"

	"github.com/leaderaudit/leaderaudit/internal/quantile"
	"github.com/leaderaudit/leaderaudit/internal/source"
	"github.com/leaderaudit/leaderaudit/internal/textfmt"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

func (c *Collector) tm(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.In(c.Opt.Loc).Format("2006-01-02 15:04:05.000")
}

func (c *Collector) hms(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.In(c.Opt.Loc).Format("15:04:05.000")
}

func ids(v []int32) string {
	if len(v) == 0 {
		return "-"
	}
	return textfmt.JoinIDs(v)
}

func leaderStr(v int32) string {
	if v == parser.Unknown {
		return "?"
	}
	return fmt.Sprint(v)
}

// WriteText renders the postmortem report: the answer first (what
// happened and who is to blame, in at most a dozen lines), then the
// findings with their remedies and evidence, the elections, producer
// errors and brokers, and last the inputs and clocks. Long lists keep
// their top few unless Full is set; lines fit Width.
func (m *Report) WriteText(out io.Writer) error {
	t := &textOut{w: bufio.NewWriter(out), width: m.Width}
	if t.width <= 0 {
		t.width = DefaultWidth
	}
	rel := relPaths(m.Sources)
	m.writeHeadline(t)
	m.writeFindings(t, rel)
	m.writeElections(t)
	m.writeProducerErrors(t, rel)
	m.writeBrokers(t)
	m.Agg.writeContext(t, m.Timeline, &m.Window, m.Full)
	m.writeTimelines(t)
	m.writeSources(t, rel)
	writeSkew(t.w, m)
	return t.w.Flush()
}

// DefaultWidth is the text report's width when the output is not a
// terminal.
const DefaultWidth = 120

// headlineFindings bounds the findings the headline names one by one.
const headlineFindings = 6

// writeHeadline is the report's first screen: the run, what happened, and
// one line per finding of warning or worse, most severe first.
func (m *Report) writeHeadline(t *textOut) {
	c := m.Agg
	first, last := m.logSpan()
	title := "leaderaudit — leader election audit of " + plural(len(m.Sources), "log", "logs")
	if !first.IsZero() {
		title += ", " + c.tm(first) + " → "
		if f, l := first.In(c.Opt.Loc), last.In(c.Opt.Loc); f.YearDay() == l.YearDay() && f.Year() == l.Year() {
			title += c.hms(last)
		} else {
			title += c.tm(last)
		}
	}
	t.line(title)
	t.para("", "", fmt.Sprintf("Times shown in %s (%s). Producer errors are matched within ±%s of an election; up to %s after it counts as stale metadata.",
		textfmt.ZoneName(c.Opt.Loc), textfmt.Clean(c.Opt.ZoneNote), textfmt.Dur(m.SkewTolerance), textfmt.Dur(m.StaleWindow)))
	if m.Summary.Interrupted {
		t.para("", "", "INTERRUPTED: the audit was stopped before all input was read; what follows covers what was read.")
	}
	t.p("\nWhat happened\n")
	if m.Window.Active() {
		t.para("  reported: ", "    ", m.Window.String(c.tm))
	}
	switch {
	case c.Transitions == 0 && m.Window.Active() && !first.IsZero():
		t.line(fmt.Sprintf("  no election %s; the logs span %s to %s", m.Window.Phrase(c.tm), c.tm(first), c.tm(last)))
	case c.Transitions == 0:
		t.line("  no leader election in these logs")
	default:
		s := "  " + plural(c.Transitions, "election", "elections")
		if n := len(c.Bursts); n > 0 {
			s += " in " + plural(n, "burst", "bursts")
		}
		if causes := c.causeList(); causes != "" {
			s += ": " + causes
		}
		s += "; " + c.leaderCounts()
		if c.Unclean > 0 {
			s += fmt.Sprintf("; %d UNCLEAN", c.Unclean)
		}
		t.line(s)
	}
	if c.Errors > 0 {
		t.line(fmt.Sprintf("  %s, %d final: %d during an election · %d after one ended (stale metadata) · %d unexplained%s",
			plural(c.Errors, "producer error", "producer errors"), c.Finals,
			c.ByMatch[timeline.MatchDuring], c.ByMatch[timeline.MatchAfter], c.ByMatch[timeline.MatchNone], c.otherErrors()))
	}
	fs := m.sortedFindings()
	shown, info := 0, 0
	for _, f := range fs {
		if severityRank(f.Severity) < severityRank("warning") {
			info++
			continue
		}
		if shown == headlineFindings {
			continue
		}
		shown++
		t.line(fmt.Sprintf("  %-8s %s · %s", strings.ToUpper(f.Severity), textfmt.Clean(f.Code), textfmt.Clean(f.Message)))
	}
	if more := countAtLeast(fs, "warning") - shown; more > 0 {
		t.line(fmt.Sprintf("  and %d more of warning or worse below", more))
	}
	switch {
	case len(fs) == 0 && c.Transitions+c.Errors > 0:
		t.line("  no finding: nothing here points at the cluster or the clients' configuration")
	case info > 0:
		t.line(fmt.Sprintf("  (%s below)", plural(info, "info finding", "info findings")))
	}
	t.p("\n")
}

// sortedFindings orders the findings by severity, most severe first,
// keeping the analyzer's order within a severity.
func (m *Report) sortedFindings() []Finding {
	fs := append([]Finding(nil), m.Findings...)
	sort.SliceStable(fs, func(i, j int) bool { return severityRank(fs[i].Severity) > severityRank(fs[j].Severity) })
	return fs
}

func severityRank(s string) int {
	switch s {
	case "critical":
		return 3
	case "warning":
		return 2
	case "info":
		return 1
	}
	return 0
}

func countAtLeast(fs []Finding, sev string) int {
	n := 0
	for _, f := range fs {
		if severityRank(f.Severity) >= severityRank(sev) {
			n++
		}
	}
	return n
}

// evidenceShown bounds the lines a finding cites unless Full is set.
const evidenceShown = 4

// writeFindings: every finding with its remedy and the lines it rests on.
func (m *Report) writeFindings(t *textOut, rel func(string) string) {
	fs := m.sortedFindings()
	if len(fs) == 0 {
		return
	}
	t.p("Findings\n")
	for _, f := range fs {
		head := fmt.Sprintf("  %-8s %s", strings.ToUpper(f.Severity), textfmt.Clean(f.Code))
		if f.Subject != "" {
			head += " · " + textfmt.Clean(f.Subject)
		}
		t.line(head)
		t.para("    ", "    ", rel(textfmt.Clean(f.Message)))
		if f.Remedy != "" {
			t.para("    remedy: ", "            ", textfmt.Clean(f.Remedy))
		}
		if len(f.Evidence) > 0 {
			ev := f.Evidence
			more := 0
			if !m.Full && len(ev) > evidenceShown {
				ev, more = ev[:evidenceShown], len(ev)-evidenceShown
			}
			var parts []string
			for _, e := range ev {
				parts = append(parts, textfmt.Clean(rel(e)))
			}
			s := strings.Join(parts, ", ")
			if more > 0 {
				s += fmt.Sprintf(" and %d more", more)
			}
			t.para("    lines: ", "           ", s)
		}
	}
	t.p("\n")
}

// causeList is "broker_failure 8 · preferred_election 2", most first.
func (c *Collector) causeList() string {
	type kv struct {
		c parser.Cause
		n int
	}
	var kvs []kv
	for k, v := range c.ByCause {
		kvs = append(kvs, kv{k, v})
	}
	sort.Slice(kvs, func(i, j int) bool {
		if kvs[i].n != kvs[j].n {
			return kvs[i].n > kvs[j].n
		}
		return kvs[i].c < kvs[j].c
	})
	var parts []string
	for _, x := range kvs {
		name := x.c.String()
		if name == "" {
			name = "cause not logged"
		}
		parts = append(parts, fmt.Sprintf("%s %d", name, x.n))
	}
	return strings.Join(parts, " · ")
}

// leaderCounts is "4 moved the leader, 2 kept it, …", the counts that
// are not zero.
func (c *Collector) leaderCounts() string {
	var parts []string
	for _, x := range []struct {
		n    int
		what string
	}{
		{c.LeaderMoved, "moved the leader"}, {c.LeaderKept, "kept it"}, {c.LeaderNone, "left no leader"},
		{c.Transitions - c.LeaderMoved - c.LeaderKept - c.LeaderNone, "with no earlier epoch in the logs"},
	} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.n, x.what))
		}
	}
	return strings.Join(parts, ", ")
}

// burstsShown bounds the bursts listed unless Full is set (the largest).
const burstsShown = 10

func (m *Report) writeElections(t *textOut) {
	c := m.Agg
	t.p("Elections\n")
	if c.Episodes == 0 {
		t.p("  %s\n\n", m.none())
		return
	}
	s := fmt.Sprintf("%s seen: %s (%s", plural(c.Episodes, "leader epoch", "leader epochs"),
		plural(c.Transitions, "election", "elections"), c.leaderCounts())
	s += ")"
	if c.Resent > 0 {
		s += fmt.Sprintf(", %s re-sent from an earlier controller epoch (broker restart or controller failover)", humanize.Comma(int64(c.Resent)))
	}
	if c.CarriedOver > 0 {
		s += fmt.Sprintf(", %s carried over from before the logs (re-sent or re-applied, not elected here)", humanize.Comma(int64(c.CarriedOver)))
	}
	if c.MetadataOnly > 0 {
		s += fmt.Sprintf(", %s only re-stated by metadata caches", humanize.Comma(int64(c.MetadataOnly)))
	}
	t.para("  ", "    ", s)
	if c.Unclean > 0 {
		t.p("  UNCLEAN elections: %d\n", c.Unclean)
	}
	if c.Durations.Len() > 0 {
		t.line("  took (decision → the new leader ready, what producers waited for): " + pctl(&c.Durations))
		t.line("  first line → last line (returning brokers' catch-up included): " + pctl(&c.Spans))
	}
	if causes := c.causeList(); causes != "" {
		t.line("  causes: " + causes)
	}
	t.p("\n")

	if len(c.Bursts) > 0 {
		t.p("Bursts (elections starting within a second of each other, same cause; times to leader ready): %d\n", len(c.Bursts))
		shown := c.Bursts
		if !m.Full && len(shown) > burstsShown {
			shown = append([]*BurstSummary(nil), c.Bursts...)
			sort.SliceStable(shown, func(i, j int) bool { return shown[i].Episodes > shown[j].Episodes })
			shown = shown[:burstsShown]
			sort.SliceStable(shown, func(i, j int) bool { return shown[i].ID < shown[j].ID })
			t.p("  (the %d largest; --full lists all)\n", burstsShown)
		}
		for _, b := range shown {
			cause := b.Cause.String()
			if cause == "" {
				cause = "cause not logged"
			}
			if len(b.CauseBrokers) > 0 {
				cause += " of broker " + ids(b.CauseBrokers)
			}
			d := textfmt.Dur(b.SlowestDur)
			if b.Episodes > 1 {
				d = fmt.Sprintf("p50 %s · max %s", textfmt.Dur(b.P50), textfmt.Dur(b.SlowestDur))
			}
			t.para("  ", "      ", fmt.Sprintf("#%d %s  %s  %s  %s (slowest %s-%d epoch %d)", b.ID, c.tm(b.Start), cause,
				plural(b.Episodes, "election", "elections"), d, textfmt.Clean(b.Slowest.Topic), b.Slowest.Partition, b.Slowest.LeaderEpoch))
		}
		t.p("\n")
	}

	if len(c.Slowest) > 0 {
		t.p("Slowest elections (decision → the new leader ready)\n")
		for _, e := range c.Slowest {
			t.line(fmt.Sprintf("  %-40s epoch %-5d leader %s → %s  %s  %s", textfmt.Clean(fmt.Sprintf("%s-%d", e.Topic, e.Partition)), e.LeaderEpoch,
				leaderStr(e.PreviousLeader), leaderStr(e.Leader), textfmt.Dur(e.Took()), c.tm(e.Start)))
		}
		t.p("\n")
	}
}

// none says a list is empty: in the logs, or in what the window reports.
func (m *Report) none() string {
	if m.Window.Active() {
		return "none " + m.Window.Phrase(m.Agg.tm)
	}
	return "none in these logs"
}

// pctl is "p50 5.0 s · p99 5.6 s · max 5.6 s", or one figure where they
// are all the same.
func pctl(d *quantile.Durs) string {
	p50, p99, max := d.P(50), d.P(99), d.P(100)
	if p50 == max {
		if d.Len() == 1 {
			return textfmt.Dur(max)
		}
		return "all " + textfmt.Dur(max)
	}
	return fmt.Sprintf("p50 %s · p99 %s · max %s", textfmt.Dur(p50), textfmt.Dur(p99), textfmt.Dur(max))
}

func (m *Report) writeBrokers(t *textOut) {
	c := m.Agg
	var bs []*brokerAgg
	for _, b := range c.brokers {
		if b.Applied.Len() > 0 {
			bs = append(bs, b)
		}
	}
	if len(bs) == 0 {
		return
	}
	t.p("Brokers: time to apply a change (first to last phase each broker logged)\n")
	sort.Slice(bs, func(i, j int) bool {
		if bs[i].Max != bs[j].Max {
			return bs[i].Max > bs[j].Max
		}
		return bs[i].Broker < bs[j].Broker
	})
	for _, b := range bs {
		s := fmt.Sprintf("broker %-4d %s  %s (slowest %s-%d epoch %d", b.Broker, plural(b.Partitions, "partition", "partitions"),
			pctl(&b.Applied), textfmt.Clean(b.MaxKey.Topic), b.MaxKey.Partition, b.MaxKey.LeaderEpoch)
		if b.MaxPhase != parser.PhaseNone && b.MaxPhaseD > 0 {
			s += fmt.Sprintf("; slowest step: %s after %s", b.MaxPhase, textfmt.Dur(b.MaxPhaseD))
		}
		t.para("  ", "      ", s+")")
	}
	t.p("\n")
}

// errorsShown bounds the producer errors listed one by one unless Full is
// set: the unexplained and final ones come first.
const errorsShown = 10

func (m *Report) writeProducerErrors(t *textOut, rel func(string) string) {
	c := m.Agg
	t.p("Producer errors\n")
	if c.Errors == 0 {
		t.p("  %s\n\n", m.none())
		return
	}
	t.line(fmt.Sprintf("  %s, %d final (send failed for good)", plural(c.Errors, "error", "errors"), c.Finals))
	t.line(fmt.Sprintf("  during an election: %d · after one ended (stale client metadata): %d · no election explains: %d%s",
		c.ByMatch[timeline.MatchDuring], c.ByMatch[timeline.MatchAfter], c.ByMatch[timeline.MatchNone], c.otherErrors()))
	if c.Lags.Len() > 0 {
		t.line(fmt.Sprintf("  lag after the election ended: p50 %s · max %s", textfmt.Dur(c.Lags.P(50)), textfmt.Dur(c.Lags.P(100))))
	}
	var names []string
	for k := range c.ByError {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s %d", textfmt.Clean(k), c.ByError[k]))
	}
	t.para("  by error: ", "    ", strings.Join(parts, " · "))
	// In log time order: the timeline finishes errors in an order that
	// depends on how the inputs were read (audit and watch differ).
	list := append([]*timeline.ProducerError(nil), c.ErrorList...)
	sort.SliceStable(list, func(i, j int) bool { return list[i].Time.Before(list[j].Time) })
	if !m.Full && len(list) > errorsShown {
		rank := func(pe *timeline.ProducerError) int {
			r := 0
			if pe.Match == timeline.MatchNone {
				r += 2
			}
			if pe.Final {
				r++
			}
			return r
		}
		sort.SliceStable(list, func(i, j int) bool { return rank(list[i]) > rank(list[j]) })
		list = list[:errorsShown]
		sort.SliceStable(list, func(i, j int) bool { return list[i].Time.Before(list[j].Time) })
		t.p("  %d of them (unexplained and final ones first; --full lists all):\n", errorsShown)
	}
	for _, pe := range list {
		t.para("  ", "      ", c.errorLine(pe)+" · "+m.lineRefs(pe, rel))
	}
	if n := c.Errors - len(c.ErrorList); n > 0 && (m.Full || len(c.ErrorList) <= errorsShown) {
		t.p("  … %d more (use --format json)\n", n)
	}
	t.p("\n")
}

// otherErrors: the errors no leader change causes, counted apart.
func (c *Collector) otherErrors() string {
	if n := c.ByMatch[timeline.MatchOther]; n > 0 {
		return fmt.Sprintf(" · %d not leadership errors (never matched)", n)
	}
	return ""
}

// lineRefs names the lines a producer error was built from, as the JSON
// record's "lines" does, relative to the inputs' common directory.
func (m *Report) lineRefs(pe *timeline.ProducerError, rel func(string) string) string {
	var b strings.Builder
	last := -1
	for i, r := range pe.Lines {
		if i > 0 {
			b.WriteByte(',')
		}
		if r.Source != last {
			name := "source " + strconv.Itoa(r.Source)
			for _, s := range m.Sources {
				if s.Index == r.Source {
					name = rel(textfmt.Clean(s.Path))
					break
				}
			}
			b.WriteString(name)
			b.WriteByte(':')
			last = r.Source
		}
		b.WriteString(strconv.FormatInt(r.Line, 10))
	}
	return b.String()
}

func (c *Collector) errorLine(pe *timeline.ProducerError) string {
	part := leaderStr(pe.Partition)
	what := "retry"
	if pe.Final {
		what = "FINAL"
	}
	if pe.BrokerSide {
		what = "broker-logged"
	}
	s := fmt.Sprintf("%s %s %s %s-%s %s", c.tm(pe.Time), textfmt.Clean(orDash(pe.ClientID)), what, textfmt.Clean(pe.Topic), part, textfmt.Clean(pe.Error))
	if pe.AttemptsLeft >= 0 {
		s += fmt.Sprintf(" (%d attempts left)", pe.AttemptsLeft)
	}
	if pe.Partition == parser.Unknown && len(pe.Candidates) > 0 {
		s += " [partition one of " + textfmt.JoinIDs(pe.Candidates) + "]"
	}
	switch pe.Match {
	case timeline.MatchDuring:
		if pe.Election == nil {
			s += fmt.Sprintf(" → during elections of %s (which one, the lines do not say)", textfmt.Clean(pe.Topic))
			break
		}
		s += fmt.Sprintf(" → during election %s-%d epoch %d", textfmt.Clean(pe.Election.Topic), pe.Election.Partition, pe.Election.LeaderEpoch)
	case timeline.MatchAfter:
		if pe.Election == nil {
			s += fmt.Sprintf(" → %s after elections of %s ended (which one, the lines do not say)", textfmt.Dur(pe.Lag), textfmt.Clean(pe.Topic))
			break
		}
		s += fmt.Sprintf(" → %s after election %s-%d epoch %d ended", textfmt.Dur(pe.Lag), textfmt.Clean(pe.Election.Topic), pe.Election.Partition, pe.Election.LeaderEpoch)
	case timeline.MatchOther:
		s += " → not a leadership error: no election matched"
	default:
		s += " → UNEXPLAINED: no election of this partition in the logs"
	}
	return s
}

// writeTimelines: each kept election's per-broker phases, with --full;
// otherwise a pointer to it.
func (m *Report) writeTimelines(t *textOut) {
	c := m.Agg
	if len(c.Kept) == 0 {
		return
	}
	if !m.Full {
		t.p("Election timelines: each broker's phases per election with --full (or --format json)\n\n")
		return
	}
	t.p("Election timelines (first %d)\n", len(c.Kept))
	for _, e := range c.Kept {
		c.writeEpisode(t, e.Episode)
	}
	t.p("\n")
}

// writeSources lists the inputs, one line each, relative to the directory
// they share.
func (m *Report) writeSources(t *textOut, rel func(string) string) {
	var lines, notUnd int64
	for _, s := range m.Sources {
		lines += s.Lines
		notUnd += s.NotUnderstood
	}
	head := fmt.Sprintf("Sources (%d, %s, %s not understood", len(m.Sources), plural64(lines, "line", "lines"), humanize.Comma(notUnd))
	if dir := commonDir(m.Sources); dir != "" {
		head += "; paths under " + textfmt.Clean(dir)
	}
	t.line(head + ")")
	for _, s := range m.Sources {
		who := []string{}
		if len(s.Brokers) > 0 {
			who = append(who, "broker "+ids(s.Brokers))
		}
		if len(s.Controllers) > 0 {
			who = append(who, "controller "+ids(s.Controllers))
		}
		if len(s.Producers) > 0 {
			who = append(who, "producer "+textfmt.Clean(strings.Join(s.Producers, ",")))
		}
		if len(s.Clients) > 0 {
			who = append(who, "client "+textfmt.Clean(strings.Join(s.Clients, ",")))
		}
		parts := []string{s.Kind}
		if len(who) > 0 {
			parts = append(parts, strings.Join(who, ", "))
		}
		if s.Era != "" && s.Era != "unknown" {
			parts = append(parts, s.Era)
		}
		layout := strings.Join(s.Layouts, "+")
		if len(s.Collectors) > 0 {
			if layout == "" {
				layout = "no known layout"
			}
			layout += " via " + strings.Join(s.Collectors, "+")
		}
		if layout != "" {
			parts = append(parts, layout)
		}
		if len(s.Levels) > 0 {
			parts = append(parts, "levels "+strings.Join(s.Levels, "/"))
		}
		if s.Error != nil && s.Lines == 0 && s.Bytes == 0 {
			// An error before the first byte: not an empty file.
			parts = append(parts, "nothing read")
		} else {
			parts = append(parts, plural64(s.Lines, "line", "lines"))
		}
		if s.NotUnderstood > 0 {
			parts = append(parts, humanize.Comma(s.NotUnderstood)+" not understood")
		}
		if s.Unparsed > 0 {
			parts = append(parts, humanize.Comma(s.Unparsed)+" leadership lines unparsed")
		}
		if s.UndatedErrors > 0 {
			parts = append(parts, humanize.Comma(s.UndatedErrors)+" undated producer errors")
		}
		if s.CutLines > 0 {
			parts = append(parts, humanize.Comma(s.CutLines)+" lines over 1 MiB cut")
		}
		if s.OutOfOrder > 0 {
			o := humanize.Comma(s.OutOfOrder) + " out of order"
			if s.Reordered > 0 {
				o += fmt.Sprintf(" (%s events put back in time order)", humanize.Comma(s.Reordered))
			}
			if s.LateEvents > 0 {
				o += fmt.Sprintf(" (%s events more than %s out of order, left in file order)", humanize.Comma(s.LateEvents), textfmt.Dur(source.ReorderWindow))
			}
			parts = append(parts, o)
		}
		if s.First != nil {
			parts = append(parts, (*s.First)[:23]+" → "+(*s.Last)[11:23])
		}
		if s.Zone != "" && s.First != nil {
			// The zone a source's times were read in; one without a dated
			// line has none to say.
			parts = append(parts, s.Zone)
		}
		t.para("  "+textfmt.Clean(rel(s.Path))+"  ", "      ", strings.Join(parts, " · "))
		if len(s.Writers) > 0 {
			var ws []string
			for _, w := range s.Writers {
				x := fmt.Sprintf("%d: %s records", w.ID, humanize.Comma(w.Records))
				if w.OutOfOrder > 0 {
					x += fmt.Sprintf(" (%s out of order)", humanize.Comma(w.OutOfOrder))
				}
				ws = append(ws, x)
			}
			t.para("      written by several JVMs at once: ", "      ", strings.Join(ws, ", "))
		}
		if s.Error != nil {
			t.para("      ERROR: ", "      ", textfmt.Clean(*s.Error))
		}
	}
	for _, sk := range m.Skipped {
		t.para("  skipped ", "      ", textfmt.Clean(rel(sk)))
	}
	t.p("\n")
}

// logSpan is the first and last line time over all inputs.
func (m *Report) logSpan() (first, last time.Time) {
	for i := range m.Sources {
		f, l := m.Sources[i].Span()
		if f.IsZero() {
			continue
		}
		if first.IsZero() || f.Before(first) {
			first = f
		}
		if l.After(last) {
			last = l
		}
	}
	return first, last
}

func plural(n int, one, many string) string { return plural64(int64(n), one, many) }

func plural64(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return humanize.Comma(n) + " " + many
}

// commonDir is the directory every input's path starts with ("" when
// they share none, or there is one input).
func commonDir(ss []source.Info) string {
	var dir string
	n := 0
	for _, s := range ss {
		if s.Path == "-" || strings.Contains(s.Path, "://") {
			continue
		}
		d := filepath.Dir(s.Path)
		if n == 0 {
			dir = d
		} else {
			for dir != "." && dir != "/" && d != dir && !strings.HasPrefix(d, dir+string(filepath.Separator)) {
				dir = filepath.Dir(dir)
			}
		}
		n++
	}
	if n < 2 || dir == "." || dir == "/" {
		return ""
	}
	return dir + string(filepath.Separator)
}

// relPaths returns a function that shows the paths in a text ("path:line",
// a finding's message) relative to the inputs' common directory.
func relPaths(ss []source.Info) func(string) string {
	dir := commonDir(ss)
	return func(s string) string {
		if dir != "" {
			return strings.ReplaceAll(s, dir, "")
		}
		return s
	}
}

// textOut writes the text report at a width: a line longer than it is cut
// with "…", a paragraph is wrapped at word boundaries.
type textOut struct {
	w     *bufio.Writer
	width int
}

func (t *textOut) p(format string, a ...any) { fmt.Fprintf(t.w, format, a...) }

// line writes s on one line, cut to the width.
func (t *textOut) line(s string) {
	if utf8.RuneCountInString(s) > t.width {
		r := []rune(s)
		s = string(r[:t.width-1]) + "…"
	}
	t.w.WriteString(s)
	t.w.WriteByte('\n')
}

// para writes s wrapped at the width: first before its first line, indent
// before the others. A word longer than a line is cut.
func (t *textOut) para(first, indent, s string) {
	pre := first
	cur := []rune(pre)
	empty := true
	for _, word := range strings.Fields(s) {
		wr := []rune(word)
		switch {
		case empty:
		case len(cur)+1+len(wr) <= t.width:
			cur = append(cur, ' ')
		default:
			t.line(string(cur))
			cur = []rune(indent)
		}
		cur = append(cur, wr...)
		empty = false
	}
	t.line(string(cur))
}
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (c *Collector) writeEpisode(t *textOut, e *timeline.Episode) {
	p := t.p
	cause := e.Cause.String()
	if cause == "" {
		cause = "cause not logged"
	}
	if len(e.CauseBrokers) > 0 {
		cause += " of broker " + ids(e.CauseBrokers)
	}
	p("  %s-%d epoch %d: leader %s → %s · %s · %s · controller %s", e.Topic, e.Partition, e.LeaderEpoch,
		leaderStr(e.PreviousLeader), leaderStr(e.Leader), textfmt.Dur(e.Took()), cause, leaderStr(e.Controller))
	if e.ControllerEpoch != parser.Unknown {
		p(" epoch %d", e.ControllerEpoch)
	}
	if e.ProducerErrors > 0 {
		p(" · %d producer error(s)", e.ProducerErrors)
	}
	p("\n")
	if !e.Decided.IsZero() {
		p("    controller decided %s\n", c.hms(e.Decided))
	}
	if m := e.Measures(); m.HasLeaderReady || m.HasISRApplied || m.HasPropagated || m.HasDetect {
		var parts []string
		for _, x := range []struct {
			what string
			d    time.Duration
			ok   bool
		}{{"leader ready", m.LeaderReady, m.HasLeaderReady}, {"ISR applied", m.ISRApplied, m.HasISRApplied}, {"propagated", m.Propagated, m.HasPropagated}} {
			if x.ok {
				parts = append(parts, x.what+" "+textfmt.Dur(x.d))
			}
		}
		parts = append(parts, "first → last line "+textfmt.Dur(e.Duration()))
		if m.HasDetect {
			parts = append(parts, "the failed broker's last line → decision "+textfmt.Dur(m.Detect))
		}
		t.para("    ", "      ", strings.Join(parts, " · "))
	}
	for _, bt := range e.Brokers {
		var parts []string
		for ph := parser.PhaseReceived; ph < parser.NumPhases; ph++ {
			if t := bt.Phases[ph]; !t.IsZero() {
				parts = append(parts, fmt.Sprintf("%s %s", ph, c.hms(t)))
			}
		}
		ap := ""
		if d, ok := bt.Applied(); ok {
			ap = " · applied in " + textfmt.Dur(d)
		}
		if len(parts) == 0 {
			p("    broker %d %s: sent by the controller; no line from this broker\n", bt.Broker, roleName(bt.Role))
			continue
		}
		if bt.CatchUp {
			ap += " · catch-up (not serving at the decision)"
		}
		t.para(fmt.Sprintf("    broker %d %s: ", bt.Broker, roleName(bt.Role)), "      ", strings.Join(parts, ", ")+ap)
	}
}
