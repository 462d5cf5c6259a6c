package tui

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/dustin/go-humanize"

	"github.com/leaderaudit/leaderaudit/internal/textfmt"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// Width helpers. Everything drawn is measured in terminal cells.

func width(s string) int { return ansi.StringWidth(s) }

// cut shortens s to at most w cells, ending in "…" when it was cut.
func cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if width(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

func padRight(s string, w int) string {
	s = cut(s, w)
	return s + spaces(w-width(s))
}

func padLeft(s string, w int) string {
	s = cut(s, w)
	return spaces(w-width(s)) + s
}

// cutTP renders topic-partition in w cells, cutting the topic (not the
// partition) with an ellipsis.
func cutTP(topic string, part int32, w int) string {
	p := "-" + partStr(part)
	t := clean(topic)
	if width(t)+width(p) <= w {
		return t + p
	}
	if w-width(p) < 2 {
		return cut(t+p, w)
	}
	return ansi.Truncate(t, w-width(p), "…") + p
}

func partStr(p int32) string {
	if p == parser.Unknown {
		return "?"
	}
	return strconv.Itoa(int(p))
}

func brokerStr(b int32) string {
	switch b {
	case parser.Unknown:
		return "?"
	case -1:
		return "none"
	}
	return strconv.Itoa(int(b))
}

// shortDur fits a duration in 7 cells: "999 ms", "59.9 s", "59m59s", "99h59m".
func shortDur(d time.Duration) string {
	switch {
	case d < 0:
		return "0 ms"
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

var causeShort = map[parser.Cause]string{
	parser.CauseUnknown:            "-",
	parser.CauseBrokerFailure:      "broker failure",
	parser.CauseControlledShutdown: "ctrl shutdown",
	parser.CausePreferred:          "preferred",
	parser.CauseReassignment:       "reassignment",
	parser.CauseUnclean:            "UNCLEAN",
	parser.CauseOfflinePartition:   "offline",
	parser.CauseNewPartition:       "new partition",
	parser.CauseBrokerFenced:       "fenced",
	parser.CauseBrokerUnfenced:     "unfenced",
	parser.CauseBrokerStartup:      "broker startup",
	parser.CauseControllerFailover: "ctrl failover",
	parser.CauseTopicDeletion:      "topic deleted",
}

func causeText(e *kept) string {
	s := causeShort[e.Cause]
	if s == "" {
		s = e.Cause.String()
	}
	if cb := e.CauseBrokers(); len(cb) > 0 {
		s += " b" + textfmt.JoinIDs(cb)
	}
	if e.Resent {
		s = "re-sent"
	} else if e.CarriedOver {
		s = "carried over"
	}
	return s
}

func causeLong(c parser.Cause, brokers []int32) string {
	s := strings.ReplaceAll(c.String(), "_", " ")
	if s == "" {
		s = "cause not logged"
	}
	if len(brokers) > 0 {
		s += " of broker " + textfmt.JoinIDs(brokers)
	}
	return s
}

func (m *Model) hms(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.In(m.opt.Loc).Format("15:04:05.000")
}

func (m *Model) full(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.In(m.opt.Loc).Format("2006-01-02 15:04:05.000")
}

// ---------------------------------------------------------------------------
// Layout.

const headerLines = 3 // two header lines and the tab bar

func (m *Model) bodyHeight() int { return max(1, m.height-headerLines-1) }

// layout splits the body of a list view: list rows, and the preview pane
// (its separator line included; 0 when there is no room).
func (m *Model) layout() (listH, previewH int) {
	body := m.bodyHeight()
	if body >= 14 {
		previewH = body * 45 / 100
		return body - 1 - previewH, previewH
	}
	return max(1, body-1), 0
}

func (m *Model) listHeight() int {
	l, _ := m.layout()
	return l
}

// View draws the screen: exactly height lines, none wider than width.
func (m *Model) View() string {
	m.ensure()
	w, h := m.width, m.height
	if w < 20 || h < 6 {
		return cut("leaderaudit: terminal too small", max(w, 1))
	}
	lines := m.header()
	lines = append(lines, m.tabs())
	body := m.bodyHeight()
	var b []string
	switch {
	case m.help:
		b = m.helpLines()
	case m.form != nil:
		b = m.form.lines(m.st)
	case m.view == viewElections:
		b = m.electionsBody()
	case m.view == viewErrors:
		b = m.errorsBody()
	case m.view == viewHistogram:
		b = m.scrolled(m.histogram())
	case m.view == viewDetail:
		b = m.scrolled(m.detail(m.selected(), m.width, true))
	}
	for len(b) < body {
		b = append(b, "")
	}
	lines = append(lines, b[:body]...)
	lines = append(lines, m.hintBar())
	for i, l := range lines {
		if width(l) > w {
			lines[i] = ansi.Truncate(l, w, "")
		}
	}
	return strings.Join(lines, "\n")
}

func (m *Model) scrolled(lines []string) []string {
	body := m.bodyHeight()
	if m.scroll > max(0, len(lines)-body) {
		m.scroll = max(0, len(lines)-body)
	}
	return lines[m.scroll:]
}

// header: state and stats, then the files.
func (m *Model) header() []string {
	st := m.stats
	var state string
	switch {
	case m.ended:
		state = m.st.paused.Render("■ STOPPED")
	case m.paused:
		state = m.st.paused.Render("❚❚ PAUSED")
		if n := len(m.held); n > 0 {
			state += fmt.Sprintf(" (%d updates held)", n)
		}
	case st.ReadingBack:
		state = m.st.warn.Render(fmt.Sprintf("◌ READING BACK %d%%", int(st.BacklogDone*100)))
	default:
		state = m.st.live.Render("● LIVE")
	}
	brokers := "none yet"
	if len(st.Brokers) > 0 {
		brokers = textfmt.JoinIDs(st.Brokers)
	}
	zone := m.opt.Zone
	if zone == "" {
		zone = m.opt.Loc.String()
	}
	// Parts in order of importance: the least important go first when
	// the line is too narrow.
	type part struct {
		s    string
		prio int
	}
	nu := humanize.Comma(st.NotUnderstood) + " not understood"
	if st.NotUnderstood > 0 {
		nu = m.st.warn.Render(nu)
	}
	parts := []part{
		{m.st.title.Render(m.opt.Title), 6}, {state, 0},
		{"brokers " + brokers, 3},
		{"tz " + clean(zone), 4},
		{humanize.Comma(int64(st.LinesPerSec+0.5)) + " lines/s", 1},
		{nu, 2},
	}
	if now := m.now(); !now.IsZero() {
		parts = append(parts, part{"log time " + m.hms(now), 5})
	}
	if ago := m.silent(); ago != "" {
		parts = append(parts, part{ago, 5})
	}
	join := func() string {
		var ss []string
		for _, p := range parts {
			ss = append(ss, p.s)
		}
		return strings.Join(ss, " │ ")
	}
	for len(parts) > 1 && width(join()) > m.width {
		worst := 0
		for i, p := range parts {
			if p.prio > parts[worst].prio {
				worst = i
			}
		}
		parts = append(parts[:worst], parts[worst+1:]...)
	}
	l1 := join()

	var probs, ok []string
	for _, f := range st.Files {
		name := clean(f.Path)
		switch {
		case f.Err != "":
			probs = append(probs, m.st.bad.Render("UNREADABLE "+name+": "+clean(errReason(f.Err))))
		case f.Missing:
			probs = append(probs, m.st.warn.Render("missing "+name))
		default:
			ok = append(ok, m.shortPath(name))
		}
	}
	l2 := fmt.Sprintf("files: %d followed", st.Followed)
	if st.Missing > 0 {
		l2 += fmt.Sprintf(", %d missing", st.Missing)
	}
	if st.Unreadable > 0 {
		l2 += fmt.Sprintf(", %d unreadable", st.Unreadable)
	}
	if len(probs) > 0 {
		l2 += " · " + strings.Join(probs, " · ")
	}
	if len(ok) > 0 {
		l2 += " · " + strings.Join(ok, ", ")
	}
	return []string{l1, m.st.dim.Render(l2)}
}

// errReason shortens "open /x/y: permission denied" to its reason.
func errReason(s string) string {
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// tabCount is what the tab says of the rows, as of the rows' build
// (gen), log time and whether the pipeline ended, which are all that
// decide it: counting walks every election, and View runs on every tick.
type tabCount struct {
	gen               int
	now               time.Time
	ended             bool
	elections, inProg int
}

// countRows counts the elections in the rows and those in progress.
func (m *Model) countRows(now time.Time) (nEl, inProg int) {
	for _, r := range m.rows {
		if r.kind == rowBurst {
			nEl += len(r.burst.eps)
			for _, c := range r.burst.eps {
				if !m.done(c, now) {
					inProg++
				}
			}
			continue
		}
		if !r.child {
			nEl++
			if !m.done(r.ep, now) {
				inProg++
			}
		}
	}
	return nEl, inProg
}

func (m *Model) tabs() string {
	now := m.now()
	if c := &m.tabCount; c.gen != m.gen || !c.now.Equal(now) || c.ended != m.ended {
		c.gen, c.now, c.ended = m.gen, now, m.ended
		c.elections, c.inProg = m.countRows(now)
	}
	nEl, inProg := m.tabCount.elections, m.tabCount.inProg
	el := fmt.Sprintf(" Elections %d ", nEl)
	if inProg > 0 {
		el = fmt.Sprintf(" Elections %d (%d in progress) ", nEl, inProg)
	}
	names := []string{el, fmt.Sprintf(" Producer errors %d ", len(m.errRows)), " Histogram "}
	cur := m.view
	if cur == viewDetail {
		cur = m.back
	}
	var parts []string
	for i, n := range names {
		if view(i) == cur {
			parts = append(parts, m.st.tabOn.Render(n))
		} else {
			parts = append(parts, m.st.tab.Render(n))
		}
	}
	left := strings.Join(parts, "│")
	right := "sort " + sortNames[m.sort]
	if f := m.filter; f.active() {
		var fs []string
		if f.topic != "" {
			fs = append(fs, "topic "+clean(f.topic))
		}
		if f.broker != parser.Unknown {
			fs = append(fs, "broker "+brokerStr(f.broker))
		}
		if f.withErrors {
			fs = append(fs, "with errors")
		}
		if f.minDur > 0 {
			fs = append(fs, "≥ "+shortDur(f.minDur))
		}
		right += " · filter: " + strings.Join(fs, ", ")
	}
	if m.query != "" {
		right += " · /" + clean(m.query)
	}
	gap := m.width - width(left) - width(right) - 1
	if gap < 1 {
		right = cut(right, max(0, m.width-width(left)-2))
		gap = 1
	}
	return left + spaces(gap) + m.st.dim.Render(right)
}

// ---------------------------------------------------------------------------
// Elections.

type cols struct{ tp, cause int }

const fixedCols = 2 + 12 + 1 + 1 + 9 + 1 + 6 + 1 + 1 + 1 + 1 + 7 + 1 + 4

func (m *Model) cols() cols {
	avail := max(m.width-fixedCols, 12)
	c := cols{cause: min(max(avail*2/5, 8), 30)}
	c.tp = avail - c.cause
	if c.tp > 64 {
		c.cause += c.tp - 64
		c.tp = 64
	}
	return c
}

func (m *Model) electionsBody() []string {
	listH, previewH := m.layout()
	c := m.cols()
	head := "  " + padRight("TIME", 12) + " " + padRight("TOPIC-PARTITION", c.tp) + " " + padRight("LEADER", 9) + " " +
		padRight("EPOCH", 6) + " " + padRight("CAUSE", c.cause) + "   " + padLeft("TOOK", 7) + " " + padLeft("ERR", 4)
	out := []string{m.st.head.Render(head)}
	m.elist.clamp(len(m.rows), listH)
	now := m.now()
	q := parseQuery(m.query)
	for i := m.elist.top; i < len(m.rows) && i < m.elist.top+listH; i++ {
		out = append(out, m.electionRow(m.rows[i], i == m.elist.sel, c, now, q))
	}
	if len(m.rows) == 0 {
		out = append(out, m.emptyText())
	}
	for len(out) < listH+1 {
		out = append(out, "")
	}
	if previewH > 0 {
		out = append(out, m.preview(previewH)...)
	}
	return out
}

func (m *Model) emptyText() string {
	switch {
	case m.filter.active() && len(m.eps) > 0:
		return "  no election matches the filter (f to change it)"
	case m.stats.ReadingBack:
		return "  reading back…"
	case len(m.stats.Files) == 0 && len(m.stats.Looked) > 0:
		var in []string
		for _, p := range m.stats.Looked {
			in = append(in, clean(p))
		}
		return "  no log files found in " + strings.Join(in, ", ") + ": watch follows what audit reads there (Kafka's logs and other *.log, *.txt, *.out files, in subdirectories too), and files that appear later"
	}
	return "  no leader elections yet; waiting for lines"
}

// shortPath is a followed file's path below the directory given that
// holds it (broker-1/state-change.log), so a tree's files are told apart.
func (m *Model) shortPath(name string) string {
	for _, p := range m.stats.Looked {
		dir := strings.TrimSuffix(clean(p), string(filepath.Separator)) + string(filepath.Separator)
		if rest, ok := strings.CutPrefix(name, dir); ok && rest != "" {
			return rest
		}
	}
	return filepath.Base(name)
}

func (m *Model) electionRow(r row, selected bool, c cols, now time.Time, q query) string {
	mark := "  "
	if selected {
		mark = "▸ "
	}
	var tp, leader, epoch, cause, status, took, errs string
	var start time.Time
	matched := false
	switch r.kind {
	case rowBurst:
		b := r.burst
		start = b.eps[len(b.eps)-1].e.Start
		glyph := "[+]"
		if m.burstOpen(b) {
			glyph = "[-]"
		}
		tp = padRight(fmt.Sprintf("%s burst of %d", glyph, len(b.eps)), c.tp)
		first := &b.eps[len(b.eps)-1].e
		cause = causeText(first)
		var maxD time.Duration
		n := 0
		inprog := false
		for _, ch := range b.eps {
			maxD = max(maxD, m.dur(ch, now))
			n += errCount(ch)
			inprog = inprog || !m.done(ch, now)
			matched = matched || (m.query != "" && q.episode(&ch.e))
		}
		took = "≤" + shortDur(maxD)
		if inprog {
			status = "●"
		}
		if n > 0 {
			errs = strconv.Itoa(n)
		}
	default:
		e := &r.ep.e
		start = e.Start
		name := e.Topic
		w := c.tp
		if r.child {
			w -= 2
		}
		tp = cutTP(name, e.Partition, w)
		if r.child {
			tp = "  " + tp
		}
		leader = brokerStr(e.PreviousLeader) + " → " + brokerStr(e.Leader)
		epoch = strconv.Itoa(int(e.LeaderEpoch))
		cause = causeText(e)
		d := m.dur(r.ep, now)
		took = shortDur(d)
		switch {
		case !m.done(r.ep, now):
			status = "●"
		case e.Leader == -1:
			status = "✗"
		case e.Unclean:
			status = "!"
		}
		if n := errCount(r.ep); n > 0 {
			errs = strconv.Itoa(n)
		}
		matched = m.query != "" && q.episode(e)
	}
	tpCell := padRight(tp, c.tp)
	if matched {
		tpCell = m.st.match.Render(tpCell)
	}
	causeCell := padRight(cause, c.cause)
	if strings.HasPrefix(cause, "UNCLEAN") {
		causeCell = m.st.bad.Render(causeCell)
	}
	statusCell := padRight(status, 1)
	switch status {
	case "●":
		statusCell = m.st.inprog.Render(statusCell)
	case "✗", "!":
		statusCell = m.st.bad.Render(statusCell)
	}
	tookCell := padLeft(took, 7)
	if r.kind == rowEpisode {
		switch d := m.dur(r.ep, now); {
		case status == "●":
			tookCell = m.st.inprog.Render(tookCell)
		case d >= m.opt.Slow:
			tookCell = m.st.bad.Render(tookCell)
		case d >= m.opt.Slow/4:
			tookCell = m.st.warn.Render(tookCell)
		}
	}
	errCell := padLeft(errs, 4)
	if errs != "" {
		errCell = m.st.warn.Render(errCell)
	}
	line := mark + padRight(m.hms(start), 12) + " " + tpCell + " " + padRight(leader, 9) + " " + padRight(epoch, 6) + " " +
		causeCell + " " + statusCell + " " + tookCell + " " + errCell
	if selected {
		return m.st.sel.Render(line)
	}
	return line
}

// preview is the detail pane under a list.
func (m *Model) preview(h int) []string {
	e := m.selected()
	title := " detail "
	if e != nil {
		title = fmt.Sprintf(" %s epoch %d ", cutTP(e.e.Topic, e.e.Partition, max(10, m.width/2)), e.e.LeaderEpoch)
	}
	sep := "──" + title + strings.Repeat("─", max(0, m.width-width(title)-2))
	out := []string{m.st.dim.Render(sep)}
	var d []string
	if m.view == viewErrors {
		if pe := m.selectedErr(); pe != nil {
			d = append(d, m.errorLine(pe, "error: "))
			if e == nil {
				d = append(d, m.noElection(pe))
			}
		}
	}
	if e != nil {
		d = append(d, m.detail(e, m.width, false)...)
	} else if m.view == viewElections {
		d = append(d, "  select an election with j/k; enter shows all of it")
	}
	if len(d) > h-1 {
		d = d[:h-1]
	}
	return append(out, d...)
}

func (m *Model) noElection(pe *timeline.ProducerError) string {
	return fmt.Sprintf("  no election of %s within ±skew of it or up to the stale window before it", cutTP(pe.Topic, pe.Partition, 60))
}

// ---------------------------------------------------------------------------
// Producer errors.

func (m *Model) errCols() (client, tp, errW, match int) {
	avail := max(m.width-(2+12+1+1+1+1+1+1), 20)
	client = max(avail*18/100, 8)
	tp = max(avail*25/100, 10)
	errW = max(avail*27/100, 10)
	match = avail - client - tp - errW
	return
}

func (m *Model) errorsBody() []string {
	listH, previewH := m.layout()
	cw, tw, ew, mw := m.errCols()
	head := "  " + padRight("TIME", 12) + " " + padRight("CLIENT", cw) + " " + padRight("TOPIC-PARTITION", tw) + "   " +
		padRight("ERROR", ew) + " " + padRight("EXPLAINED BY", mw)
	out := []string{m.st.head.Render(head)}
	m.errList.clamp(len(m.errRows), listH)
	q := parseQuery(m.query)
	for i := m.errList.top; i < len(m.errRows) && i < m.errList.top+listH; i++ {
		pe := m.errRows[i]
		mark := "  "
		if i == m.errList.sel {
			mark = "▸ "
		}
		kind := " "
		if pe.Final {
			kind = "F"
		}
		client := clean(pe.ClientID)
		if client == "" {
			client = "-"
		}
		tp := padRight(cutTP(pe.Topic, pe.Partition, tw), tw)
		if m.query != "" && q.err(pe) {
			tp = m.st.match.Render(tp)
		}
		line := mark + padRight(m.hms(pe.Time), 12) + " " + padRight(client, cw) + " " + tp + " " + kind + " " +
			padRight(clean(pe.Error), ew) + " " + m.matchCell(pe, mw)
		if i == m.errList.sel {
			line = m.st.sel.Render(line)
		}
		out = append(out, line)
	}
	if len(m.errRows) == 0 {
		out = append(out, "  no producer errors yet (add the producers' logs to the paths)")
	}
	for len(out) < listH+1 {
		out = append(out, "")
	}
	if previewH > 0 {
		out = append(out, m.preview(previewH)...)
	}
	return out
}

func (m *Model) matchText(pe *timeline.ProducerError, w int) string {
	if pe.Election == nil && (pe.Match == timeline.MatchDuring || pe.Match == timeline.MatchAfter) {
		// Matched by topic: several of its elections explain it.
		return pe.Match.String() + " " + clean(pe.Topic)
	}
	switch pe.Match {
	case timeline.MatchDuring:
		return "during " + cutTP(pe.Election.Topic, pe.Election.Partition, max(4, w-7-6)) + fmt.Sprintf(" e%d", pe.Election.LeaderEpoch)
	case timeline.MatchAfter:
		lag := "after " + shortDur(pe.Lag) + " "
		return lag + cutTP(pe.Election.Topic, pe.Election.Partition, max(4, w-width(lag)-6)) + fmt.Sprintf(" e%d", pe.Election.LeaderEpoch)
	}
	return "none"
}

func (m *Model) matchCell(pe *timeline.ProducerError, w int) string {
	s := padRight(m.matchText(pe, w), w)
	switch pe.Match {
	case timeline.MatchNone:
		return m.st.bad.Render(s)
	case timeline.MatchAfter:
		return m.st.warn.Render(s)
	}
	return m.st.good.Render(s)
}

func (m *Model) errorLine(pe *timeline.ProducerError, prefix string) string {
	what := "retry"
	switch {
	case pe.BrokerSide:
		what = "broker-logged"
	case pe.Final:
		what = "FINAL"
	}
	s := fmt.Sprintf("  %s%s %s %s %s %s", prefix, m.hms(pe.Time), orDash(clean(pe.ClientID)), what, cutTP(pe.Topic, pe.Partition, 60), clean(pe.Error))
	if pe.AttemptsLeft >= 0 {
		s += fmt.Sprintf(" (%d attempts left)", pe.AttemptsLeft)
	}
	if len(pe.Candidates) > 0 && pe.Partition == timeline.Unknown {
		s += fmt.Sprintf(" [partition one of %v]", pe.Candidates)
	}
	return s + " → " + m.matchText(pe, 60)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ---------------------------------------------------------------------------
// Help and hints.

func (m *Model) helpLines() []string {
	out := []string{m.st.title.Render("Keys") + "  (any key closes this)", ""}
	kw := 0
	for _, k := range Keys {
		kw = max(kw, width(k.Keys))
	}
	for _, k := range Keys {
		out = append(out, "  "+padRight(k.Keys, kw+2)+k.Help)
	}
	out = append(out, "",
		"  ● in progress (a line in the last quiet period) · ✗ no leader · ! unclean · ERR producer errors it explains",
		"  Times are log times in "+clean(m.opt.Loc.String())+"; durations run from an election's first line to its last.")
	return out
}

func (m *Model) hintBar() string {
	if m.searching {
		return m.search.View()
	}
	pause := "space:pause"
	if m.paused {
		pause = "space:resume"
	}
	var items []string
	switch {
	case m.help:
		items = []string{"any key: close help"}
	case m.form != nil:
		items = []string{"enter:apply", "esc:cancel", "tab:next field"}
	case m.view == viewDetail:
		items = []string{"esc/q:back", "j/k:scroll", pause, "tab:pane", "?:help"}
	case m.view == viewHistogram:
		items = []string{"?:help", "h/esc:back", "q:quit", "j/k:scroll", "f:filter", pause, "tab:pane"}
	default:
		items = []string{"?:help", "q:quit", "/:search", "f:filter", pause, "enter:detail", "s:sort", "e/E:slow", "tab:pane", "h:histogram"}
	}
	msg := ""
	if m.message != "" {
		msg = m.message + "  │ "
	}
	for len(items) > 1 && width(msg+strings.Join(items, "  ")) > m.width {
		items = items[:len(items)-1]
	}
	hint := strings.Join(items, "  ")
	if msg != "" {
		return m.st.warn.Render(m.message) + m.st.hint.Render("  │ "+hint)
	}
	return m.st.hint.Render(hint)
}
