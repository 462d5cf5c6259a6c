package report

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/leaderaudit/leaderaudit/internal/source"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// Dur renders a duration the way operators read them: "21 ms", "2.4 s", "3 min 12 s".
func Dur(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + Dur(-d)
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d < time.Hour:
		if s := int(d.Seconds()) % 60; s != 0 {
			return fmt.Sprintf("%d min %d s", int(d.Minutes()), s)
		}
		return fmt.Sprintf("%d min", int(d.Minutes()))
	}
	return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
}

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
	return JoinIDs(v)
}

// JoinIDs writes broker or controller ids as Kafka lists them: "1,2,3".
func JoinIDs(v []int32) string {
	var b strings.Builder
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(x)))
	}
	return b.String()
}

func leaderStr(v int32) string {
	if v == parser.Unknown {
		return "?"
	}
	return fmt.Sprint(v)
}

// WriteText renders the postmortem report.
func (m *Report) WriteText(out io.Writer) error {
	c, sources := m.Agg, m.Sources
	w := bufio.NewWriter(out)
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("leaderaudit — leader election audit\n")
	p("Times shown in %s (%s). Producer errors are matched within ±%s of an election; up to %s after it counts as stale metadata.\n",
		zoneName(c.Opt.Loc), Clean(c.Opt.ZoneNote), Dur(m.SkewTolerance), Dur(m.StaleWindow))
	if m.Summary.Interrupted {
		p("INTERRUPTED: the audit was stopped before all input was read; what follows covers what was read.\n")
	}
	p("\n")

	// Sources.
	var lines, notUnd, cut int64
	p("Sources (%d)\n", len(sources))
	for _, s := range sources {
		lines += s.Lines
		notUnd += s.NotUnderstood
		cut += s.CutLines
		who := ""
		if len(s.Brokers) > 0 {
			who = "broker " + ids(s.Brokers)
		}
		if len(s.Controllers) > 0 {
			if who != "" {
				who += ", "
			}
			who += "controller " + ids(s.Controllers)
		}
		if len(s.Producers) > 0 {
			if who != "" {
				who += ", "
			}
			who += "producer " + Clean(strings.Join(s.Producers, ","))
		}
		if len(s.Clients) > 0 {
			if who != "" {
				who += ", "
			}
			who += "client " + Clean(strings.Join(s.Clients, ","))
		}
		if who == "" {
			who = "-"
		}
		p("  %s\n", Clean(s.Path))
		layout := strings.Join(s.Layouts, "+")
		if layout == "" {
			layout = "no known layout"
		}
		if len(s.Collectors) > 0 {
			layout += " via " + strings.Join(s.Collectors, "+")
		}
		p("    %s · %s · %s · %s · levels %s · %s lines", s.Kind, who, s.Era, layout, strings.Join(s.Levels, "/"), humanize.Comma(s.Lines))
		if s.NotUnderstood > 0 {
			p(" · %s not understood", humanize.Comma(s.NotUnderstood))
		}
		if s.Unparsed > 0 {
			p(" · %s leadership lines unparsed", humanize.Comma(s.Unparsed))
		}
		if s.CutLines > 0 {
			p(" · %s lines over 1 MiB cut", humanize.Comma(s.CutLines))
		}
		if s.OutOfOrder > 0 {
			p(" · %s out of order", humanize.Comma(s.OutOfOrder))
			if s.Reordered > 0 {
				p(" (%s events put back in time order)", humanize.Comma(s.Reordered))
			}
			if s.LateEvents > 0 {
				p(" (%s events more than %s out of order, left in file order)", humanize.Comma(s.LateEvents), Dur(source.ReorderWindow))
			}
		}
		if s.First != nil {
			p(" · %s → %s", (*s.First)[:23], (*s.Last)[11:23])
		}
		p(" · %s\n", s.Zone)
		if len(s.Writers) > 0 {
			p("    written by several JVMs at once:")
			for i, w := range s.Writers {
				if i > 0 {
					p(",")
				}
				p(" %d: %s records", w.ID, humanize.Comma(w.Records))
				if w.OutOfOrder > 0 {
					p(" (%s out of order)", humanize.Comma(w.OutOfOrder))
				}
			}
			p("\n")
		}
		if s.Error != nil {
			p("    ERROR: %s\n", Clean(*s.Error))
		}
	}
	for _, sk := range m.Skipped {
		p("  skipped %s\n", Clean(sk))
	}
	p("  total %s lines, %s not understood\n\n", humanize.Comma(lines), humanize.Comma(notUnd))
	writeSkew(w, m)

	// Elections.
	p("Elections\n")
	if c.Episodes == 0 {
		p("  none found in these logs\n\n")
	} else {
		p("  %s leader epoch(s) seen: %s election(s) (%s moved the leader, %s kept it, %s left no leader",
			humanize.Comma(int64(c.Episodes)), humanize.Comma(int64(c.Transitions)), humanize.Comma(int64(c.LeaderMoved)),
			humanize.Comma(int64(c.LeaderKept)), humanize.Comma(int64(c.LeaderNone)))
		if unk := c.Transitions - c.LeaderMoved - c.LeaderKept - c.LeaderNone; unk > 0 {
			p(", %s with no earlier epoch in the logs", humanize.Comma(int64(unk)))
		}
		p(")")
		if c.Resent > 0 {
			p(", %s re-sent from an earlier controller epoch (broker restart or controller failover)", humanize.Comma(int64(c.Resent)))
		}
		if c.MetadataOnly > 0 {
			p(", %s only re-stated by metadata caches", humanize.Comma(int64(c.MetadataOnly)))
		}
		p("\n")
		if c.Unclean > 0 {
			p("  UNCLEAN elections: %d\n", c.Unclean)
		}
		if c.Durations.Len() > 0 {
			p("  duration (first line → last line of each election): p50 %s · p99 %s · max %s\n",
				Dur(c.Durations.P(50)), Dur(c.Durations.P(99)), Dur(c.Durations.P(100)))
		}
		if len(c.ByCause) > 0 {
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
			p("  causes: %s\n", strings.Join(parts, " · "))
		}
		p("\n")
	}

	if len(c.Bursts) > 0 {
		p("Bursts (elections starting within a second of each other, same cause): %d\n", len(c.Bursts))
		bs := c.Bursts
		shown := bs
		if len(shown) > 30 {
			shown = append([]*BurstSummary(nil), bs...)
			sort.SliceStable(shown, func(i, j int) bool { return shown[i].Episodes > shown[j].Episodes })
			shown = shown[:30]
			sort.SliceStable(shown, func(i, j int) bool { return shown[i].ID < shown[j].ID })
			p("  (the 30 largest)\n")
		}
		for _, b := range shown {
			cause := b.Cause.String()
			if cause == "" {
				cause = "cause not logged"
			}
			if len(b.CauseBrokers) > 0 {
				cause += " of broker " + ids(b.CauseBrokers)
			}
			p("  #%d %s  %s  %d election(s)  p50 %s · p99 %s · max %s (%s-%d epoch %d)\n", b.ID, c.tm(b.Start), cause, b.Episodes,
				Dur(b.P50), Dur(b.P99), Dur(b.SlowestDur),
				b.Slowest.Topic, b.Slowest.Partition, b.Slowest.LeaderEpoch)
		}
		p("\n")
	}

	if len(c.Slowest) > 0 {
		p("Slowest elections\n")
		for _, e := range c.Slowest {
			p("  %-40s epoch %-5d leader %s → %s  %s  %s\n", fmt.Sprintf("%s-%d", e.Topic, e.Partition), e.LeaderEpoch,
				leaderStr(e.PreviousLeader), leaderStr(e.Leader), Dur(e.Duration()), c.tm(e.Start))
		}
		p("\n")
	}

	if len(c.brokers) > 0 {
		p("Brokers: time to apply a change (first to last phase each broker logged)\n")
		var bs []*brokerAgg
		for _, b := range c.brokers {
			if b.Applied.Len() > 0 {
				bs = append(bs, b)
			}
		}
		sort.Slice(bs, func(i, j int) bool {
			if bs[i].Max != bs[j].Max {
				return bs[i].Max > bs[j].Max
			}
			return bs[i].Broker < bs[j].Broker
		})
		for _, b := range bs {
			p("  broker %-4d %s partitions  p50 %s · p99 %s · max %s (%s-%d epoch %d", b.Broker, humanize.Comma(int64(b.Partitions)),
				Dur(b.Applied.P(50)), Dur(b.Applied.P(99)), Dur(b.Max), b.MaxKey.Topic, b.MaxKey.Partition, b.MaxKey.LeaderEpoch)
			if b.MaxPhase != parser.PhaseNone && b.MaxPhaseD > 0 {
				p("; slowest step: %s after %s", b.MaxPhase, Dur(b.MaxPhaseD))
			}
			p(")\n")
		}
		p("\n")
	}

	// Producer errors.
	p("Producer errors\n")
	if c.Errors == 0 {
		p("  none in these logs\n")
	} else {
		p("  %s error(s), %s final (send failed for good)\n", humanize.Comma(int64(c.Errors)), humanize.Comma(int64(c.Finals)))
		p("  during an election: %d · after one ended (stale client metadata): %d · no election explains: %d\n",
			c.ByMatch[timeline.MatchDuring], c.ByMatch[timeline.MatchAfter], c.ByMatch[timeline.MatchNone])
		if c.Lags.Len() > 0 {
			p("  lag after the election ended: p50 %s · max %s\n", Dur(c.Lags.P(50)), Dur(c.Lags.P(100)))
		}
		var names []string
		for k := range c.ByError {
			names = append(names, k)
		}
		sort.Strings(names)
		var parts []string
		for _, k := range names {
			parts = append(parts, fmt.Sprintf("%s %d", Clean(k), c.ByError[k]))
		}
		p("  by error: %s\n", strings.Join(parts, " · "))
		for _, pe := range c.ErrorList {
			part := leaderStr(pe.Partition)
			what := "retry"
			if pe.Final {
				what = "FINAL"
			}
			if pe.BrokerSide {
				what = "broker-logged"
			}
			p("  %s %-14s %-6s %s-%s %s", c.tm(pe.Time), Clean(orDash(pe.ClientID)), what, Clean(pe.Topic), part, Clean(pe.Error))
			if pe.AttemptsLeft >= 0 {
				p(" (%d attempts left)", pe.AttemptsLeft)
			}
			if pe.Inferred {
				p(" [partition inferred]")
			}
			switch pe.Match {
			case timeline.MatchDuring:
				p(" → during election %s-%d epoch %d\n", pe.Election.Topic, pe.Election.Partition, pe.Election.LeaderEpoch)
			case timeline.MatchAfter:
				p(" → %s after election %s-%d epoch %d ended\n", Dur(pe.Lag), pe.Election.Topic, pe.Election.Partition, pe.Election.LeaderEpoch)
			default:
				p(" → UNEXPLAINED: no election of this partition in the logs\n")
			}
		}
		if c.Errors > len(c.ErrorList) {
			p("  … %d more (use --format json)\n", c.Errors-len(c.ErrorList))
		}
	}
	p("\n")

	w.Flush()
	c.writeContext(w, m.Timeline)

	if len(m.Findings) > 0 {
		p("Findings\n")
		for _, f := range m.Findings {
			for _, l := range f.Text {
				p("%s\n", l)
			}
		}
		p("\n")
	}

	// Detail: per-broker phase timelines of the kept elections.
	if len(c.Kept) > 0 {
		p("Election timelines (first %d)\n", len(c.Kept))
		for _, e := range c.Kept {
			c.writeEpisode(p, e.Episode)
		}
	}
	return w.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (c *Collector) writeEpisode(p func(string, ...any), e *timeline.Episode) {
	cause := e.Cause.String()
	if cause == "" {
		cause = "cause not logged"
	}
	if len(e.CauseBrokers) > 0 {
		cause += " of broker " + ids(e.CauseBrokers)
	}
	p("  %s-%d epoch %d: leader %s → %s · %s · %s · controller %s", e.Topic, e.Partition, e.LeaderEpoch,
		leaderStr(e.PreviousLeader), leaderStr(e.Leader), Dur(e.Duration()), cause, leaderStr(e.Controller))
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
	for _, bt := range e.Brokers {
		var parts []string
		for ph := parser.PhaseReceived; ph < parser.NumPhases; ph++ {
			if t := bt.Phases[ph]; !t.IsZero() {
				parts = append(parts, fmt.Sprintf("%s %s", ph, c.hms(t)))
			}
		}
		ap := ""
		if d, ok := bt.Applied(); ok {
			ap = " · applied in " + Dur(d)
		}
		if len(parts) == 0 {
			p("    broker %d %s: sent by the controller; no line from this broker\n", bt.Broker, roleName(bt.Role))
			continue
		}
		p("    broker %d %s: %s%s\n", bt.Broker, roleName(bt.Role), strings.Join(parts, ", "), ap)
	}
}
