// Package tui is the terminal screen of `leaderaudit watch`: a bubbletea
// model fed with live.Snapshots. It shows the open and recent elections,
// a per-broker timeline of the selected one drawn to scale, the producer
// errors with what explains them, and a histogram of election durations.
//
// Every string that comes from a log (topics, client ids, error names,
// file names) goes through report.Clean before it is drawn, and every
// line of the screen is cut to the terminal's width.
package tui

import (
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/leaderaudit/leaderaudit/internal/live"
	"github.com/leaderaudit/leaderaudit/internal/report"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// Options configure the screen. Zero values take the defaults.
type Options struct {
	// Loc is the zone times are shown in (default time.Local).
	Loc *time.Location
	// Zone names the zone assumed for zone-less log timestamps, for the
	// header ("UTC (--tz)").
	Zone string
	// Quiet: an election with no new line for this long is over (live
	// views show it in progress until then). Use the timeline's Quiet.
	Quiet time.Duration
	// Keep: elections and errors older than this (by event time) are
	// dropped from memory. Default 24h.
	Keep time.Duration
	// Slow: elections at least this long are "slow" for e/E. Default 1s.
	Slow time.Duration
	// BurstGap groups elections of one cause starting within it of each
	// other into a burst, as the timeline does. Default 1s.
	BurstGap time.Duration
	// MaxEpisodes and MaxErrors bound memory besides Keep (default
	// 200,000 each; the oldest go first).
	MaxEpisodes, MaxErrors int
	// Renderer styles the screen; nil draws without colour or attributes.
	Renderer *lipgloss.Renderer
	// Title is shown first in the header (default "leaderaudit watch").
	Title string
	// Tick is how often live durations are redrawn (default 200ms;
	// negative: never, for tests).
	Tick time.Duration
	// Now is the wall clock (default time.Now).
	Now func() time.Time
}

type view uint8

const (
	viewElections view = iota
	viewErrors
	viewHistogram
	viewDetail
)

type sortBy uint8

const (
	sortTime sortBy = iota
	sortDuration
	sortErrors
)

var sortNames = [...]string{"time", "duration", "errors"}

type epRec struct {
	e        *timeline.Episode
	finished bool
	errs     []*timeline.ProducerError
	seq      int // arrival order, for the cap
}

type burst struct {
	id    timeline.Key // first episode's key: stable as the burst grows
	eps   []*epRec     // newest first
	start time.Time
	cause parser.Cause
}

type rowKind uint8

const (
	rowEpisode rowKind = iota
	rowBurst
)

type row struct {
	kind  rowKind
	ep    *epRec
	burst *burst
	child bool
}

type rowID struct {
	kind rowKind
	key  timeline.Key
}

func (r row) id() rowID {
	if r.kind == rowBurst {
		return rowID{rowBurst, r.burst.id}
	}
	return rowID{rowEpisode, r.ep.e.Key}
}

type filterState struct {
	topic      string
	broker     int32
	withErrors bool
	minDur     time.Duration
}

func (f filterState) active() bool {
	return f.topic != "" || f.broker != parser.Unknown || f.withErrors || f.minDur > 0
}

// list is a scrollable selection over n rows.
type list struct {
	sel, top int
}

func (l *list) clamp(n, height int) {
	if l.sel >= n {
		l.sel = n - 1
	}
	if l.sel < 0 {
		l.sel = 0
	}
	if height < 1 {
		height = 1
	}
	if l.sel < l.top {
		l.top = l.sel
	}
	if l.sel >= l.top+height {
		l.top = l.sel - height + 1
	}
	if l.top > max(0, n-height) {
		l.top = max(0, n-height)
	}
	if l.top < 0 {
		l.top = 0
	}
}

// Messages.
type snapMsg struct{ s *live.Snapshot }
type closedMsg struct{}
type tickMsg time.Time

// Model is the watch screen.
type Model struct {
	opt     Options
	updates <-chan *live.Snapshot
	st      styles

	width, height int

	// Data.
	eps     map[timeline.Key]*epRec
	errs    []*timeline.ProducerError // arrival order
	stats   live.Stats
	snapNow time.Time // Snapshot.Now of the newest snapshot applied
	snapAt  time.Time // its Wall
	live    bool
	ended   bool
	seq     int

	paused   bool
	pausedAt time.Time
	held     []*live.Snapshot

	// View state.
	view, back view
	sort       sortBy
	filter     filterState
	expanded   map[timeline.Key]bool
	allOpen    bool
	rows       []row
	errRows    []*timeline.ProducerError
	elist      list
	errList    list
	follow     bool // the selection sticks to the newest row
	selID      rowID
	detailKey  *timeline.Key
	detailErr  *timeline.ProducerError
	scroll     int
	dirty      bool

	help      bool
	searching bool
	search    lineEdit
	query     string
	message   string

	form *filterForm
}

// New returns the screen for the snapshots on updates.
func New(updates <-chan *live.Snapshot, opt Options) *Model {
	if opt.Loc == nil {
		opt.Loc = time.Local
	}
	if opt.Quiet <= 0 {
		opt.Quiet = 10 * time.Second
	}
	if opt.Keep <= 0 {
		opt.Keep = 24 * time.Hour
	}
	if opt.Slow <= 0 {
		opt.Slow = time.Second
	}
	if opt.BurstGap <= 0 {
		opt.BurstGap = time.Second
	}
	if opt.MaxEpisodes <= 0 {
		opt.MaxEpisodes = 200_000
	}
	if opt.MaxErrors <= 0 {
		opt.MaxErrors = 200_000
	}
	if opt.Title == "" {
		opt.Title = "leaderaudit watch"
	}
	if opt.Tick == 0 {
		opt.Tick = 200 * time.Millisecond
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	ti := lineEdit{prompt: "/", limit: 200, placeholder: "topic or topic-partition, b:N broker, p:N partition"}
	m := &Model{
		opt: opt, updates: updates, st: newStyles(opt.Renderer),
		width: 80, height: 24,
		eps:      map[timeline.Key]*epRec{},
		expanded: map[timeline.Key]bool{},
		filter:   filterState{broker: parser.Unknown},
		follow:   true,
		search:   ti,
		dirty:    true,
	}
	return m
}

// Init starts listening for snapshots.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.listen(), m.tick())
}

func (m *Model) listen() tea.Cmd {
	ch := m.updates
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		s, ok := <-ch
		if !ok {
			return closedMsg{}
		}
		return snapMsg{s}
	}
}

func (m *Model) tick() tea.Cmd {
	if m.opt.Tick < 0 {
		return nil
	}
	return tea.Tick(m.opt.Tick, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// Paused reports whether the view is paused.
func (m *Model) Paused() bool { return m.paused }

// now is the event-time clock the screen uses for live durations.
func (m *Model) now() time.Time {
	if m.paused {
		return m.pausedAt
	}
	if m.live && !m.ended && !m.snapAt.IsZero() {
		if d := m.opt.Now().Sub(m.snapAt); d > 0 {
			return m.snapNow.Add(d)
		}
	}
	return m.snapNow
}

// done says whether an election is over: finished by the timeline, or
// quiet for Quiet.
func (m *Model) done(r *epRec, now time.Time) bool {
	return r.finished || m.ended || now.Sub(r.e.LastActivity) >= m.opt.Quiet
}

// dur is an election's duration, ticking while it is in progress.
func (m *Model) dur(r *epRec, now time.Time) time.Duration {
	if !m.done(r, now) && now.After(r.e.End) {
		return now.Sub(r.e.Start)
	}
	return r.e.Duration()
}

func failed(e *timeline.Episode) bool { return e.Leader == -1 || e.Unclean }

func (m *Model) slowOrFailed(r *epRec, now time.Time) bool {
	return failed(r.e) || m.dur(r, now) >= m.opt.Slow
}

// Apply feeds a snapshot as if it had arrived (tests, and the Update loop).
func (m *Model) Apply(s *live.Snapshot) {
	if m.paused {
		m.stats = s.Stats
		m.held = append(m.held, s)
		if s.Final {
			m.ended = true
		}
		return
	}
	m.apply(s)
}

func (m *Model) apply(s *live.Snapshot) {
	m.stats = s.Stats
	if !s.Now.IsZero() {
		m.snapNow, m.snapAt = s.Now, s.Wall
	}
	m.live = s.Live
	if s.Final {
		m.ended = true
	}
	for _, e := range s.Changed {
		m.upsert(e, false)
	}
	for _, e := range s.Finished {
		m.upsert(e, true)
	}
	for _, pe := range s.Errors {
		m.errs = append(m.errs, pe)
		if pe.Election != nil {
			if r := m.eps[*pe.Election]; r != nil {
				r.errs = append(r.errs, pe)
			}
		}
	}
	m.prune()
	m.dirty = true
}

func (m *Model) upsert(e *timeline.Episode, finished bool) {
	r := m.eps[e.Key]
	if r == nil {
		m.seq++
		r = &epRec{seq: m.seq}
		m.eps[e.Key] = r
	}
	r.e = e
	r.finished = r.finished || finished
}

// prune drops what is older than Keep, and the oldest past the caps.
func (m *Model) prune() {
	now := m.now()
	if now.IsZero() {
		return
	}
	cut := now.Add(-m.opt.Keep)
	for k, r := range m.eps {
		if m.done(r, now) && r.e.End.Before(cut) {
			delete(m.eps, k)
		}
	}
	if over := len(m.eps) - m.opt.MaxEpisodes; over > 0 {
		all := make([]*epRec, 0, len(m.eps))
		for _, r := range m.eps {
			all = append(all, r)
		}
		sort.Slice(all, func(i, j int) bool { return all[i].seq < all[j].seq })
		for _, r := range all[:over] {
			delete(m.eps, r.e.Key)
		}
	}
	n := 0
	for _, pe := range m.errs {
		if !pe.Time.Before(cut) {
			m.errs[n] = pe
			n++
		}
	}
	clear(m.errs[n:])
	m.errs = m.errs[:n]
	if over := len(m.errs) - m.opt.MaxErrors; over > 0 {
		m.errs = append(m.errs[:0:0], m.errs[over:]...)
	}
}

// Update handles a message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.dirty = true
		return m, nil
	case snapMsg:
		m.Apply(msg.s)
		return m, m.listen()
	case closedMsg:
		m.ended = true
		m.dirty = true
		return m, nil
	case tickMsg:
		if m.sort == sortDuration && !m.paused {
			m.dirty = true // in-progress durations move rows
		}
		return m, m.tick()
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// ---------------------------------------------------------------------------
// Derived rows.

func (m *Model) keepEpisode(r *epRec, now time.Time) bool {
	e := r.e
	if !e.Transition {
		return false // only re-stated by metadata caches: not an election
	}
	f := m.filter
	if f.topic != "" {
		if ok, _ := path.Match(f.topic, e.Topic); !ok {
			return false
		}
	}
	if f.broker != parser.Unknown && !involves(e, f.broker) {
		return false
	}
	if f.withErrors && e.ProducerErrors == 0 && len(r.errs) == 0 {
		return false
	}
	if f.minDur > 0 && m.dur(r, now) < f.minDur {
		return false
	}
	return true
}

func involves(e *timeline.Episode, b int32) bool {
	if e.Leader == b || e.PreviousLeader == b || e.Controller == b {
		return true
	}
	for _, bt := range e.Brokers {
		if bt.Broker == b {
			return true
		}
	}
	for _, c := range e.CauseBrokers {
		if c == b {
			return true
		}
	}
	return false
}

func errCount(r *epRec) int { return max(r.e.ProducerErrors, len(r.errs)) }

// rebuild recomputes the rows from the data, keeping the selection.
func (m *Model) rebuild() {
	m.dirty = false
	now := m.now()
	var eps []*epRec
	for _, r := range m.eps {
		if m.keepEpisode(r, now) {
			eps = append(eps, r)
		}
	}
	newer := func(a, b *epRec) bool {
		if !a.e.Start.Equal(b.e.Start) {
			return a.e.Start.After(b.e.Start)
		}
		if a.e.Topic != b.e.Topic {
			return a.e.Topic < b.e.Topic
		}
		if a.e.Partition != b.e.Partition {
			return a.e.Partition < b.e.Partition
		}
		return a.e.LeaderEpoch > b.e.LeaderEpoch
	}
	var rows []row
	switch m.sort {
	case sortDuration:
		sort.Slice(eps, func(i, j int) bool {
			di, dj := m.dur(eps[i], now), m.dur(eps[j], now)
			if di != dj {
				return di > dj
			}
			return newer(eps[i], eps[j])
		})
	case sortErrors:
		sort.Slice(eps, func(i, j int) bool {
			ci, cj := errCount(eps[i]), errCount(eps[j])
			if ci != cj {
				return ci > cj
			}
			return newer(eps[i], eps[j])
		})
	default:
		sort.Slice(eps, func(i, j int) bool { return newer(eps[i], eps[j]) })
	}
	if m.sort == sortTime {
		for _, b := range m.bursts(eps) {
			if len(b.eps) == 1 {
				rows = append(rows, row{kind: rowEpisode, ep: b.eps[0]})
				continue
			}
			rows = append(rows, row{kind: rowBurst, burst: b})
			if m.expanded[b.id] != m.allOpen {
				for _, r := range b.eps {
					rows = append(rows, row{kind: rowEpisode, ep: r, child: true})
				}
			}
		}
	} else {
		for _, r := range eps {
			rows = append(rows, row{kind: rowEpisode, ep: r})
		}
	}
	m.rows = rows
	// Keep the selection on the same row, or on the newest when following.
	if m.follow && !m.paused {
		m.elist.sel = 0
	} else {
		found := false
		for i, r := range rows {
			if r.id() == m.selID {
				m.elist.sel = i
				found = true
				break
			}
		}
		if !found && m.selID.kind == rowEpisode {
			// Inside a collapsed burst now: select the burst.
			for i, r := range rows {
				if r.kind == rowBurst {
					for _, c := range r.burst.eps {
						if c.e.Key == m.selID.key {
							m.elist.sel = i
						}
					}
				}
			}
		}
	}
	m.elist.clamp(len(rows), m.listHeight())
	if len(rows) > 0 {
		m.selID = rows[m.elist.sel].id()
	}
	m.follow = m.elist.sel == 0

	// Producer errors, newest first.
	var errs []*timeline.ProducerError
	for _, pe := range m.errs {
		if m.filter.topic != "" {
			if ok, _ := path.Match(m.filter.topic, pe.Topic); !ok {
				continue
			}
		}
		if m.filter.broker != parser.Unknown {
			if pe.Election == nil {
				continue
			}
			if r := m.eps[*pe.Election]; r == nil || !involves(r.e, m.filter.broker) {
				continue
			}
		}
		errs = append(errs, pe)
	}
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Time.After(errs[j].Time) })
	m.errRows = errs
	m.errList.clamp(len(errs), m.listHeight())
}

// bursts groups episodes (newest first) the way the timeline groups its
// bursts: same cause, each starting within BurstGap of the previous one.
func (m *Model) bursts(eps []*epRec) []*burst {
	asc := make([]*epRec, len(eps))
	for i, r := range eps {
		asc[len(eps)-1-i] = r
	}
	var out []*burst
	var cur *burst
	var end time.Time
	for _, r := range asc {
		e := r.e
		if cur != nil && (e.Start.Sub(end) > m.opt.BurstGap || e.Cause != cur.cause || e.Resent) {
			cur = nil
		}
		if cur == nil {
			cur = &burst{id: e.Key, start: e.Start, cause: e.Cause}
			out = append(out, cur)
			end = e.Start
		}
		if e.Start.After(end) {
			end = e.Start
		}
		cur.eps = append(cur.eps, r)
		if e.Resent {
			cur = nil
		}
	}
	// Newest first, inside and out.
	for _, b := range out {
		for i, j := 0, len(b.eps)-1; i < j; i, j = i+1, j-1 {
			b.eps[i], b.eps[j] = b.eps[j], b.eps[i]
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func (m *Model) ensure() {
	if m.dirty {
		m.rebuild()
	}
}

// selected returns the election the current view is about.
func (m *Model) selected() *epRec {
	switch m.view {
	case viewDetail:
		if m.detailKey != nil {
			return m.eps[*m.detailKey]
		}
		return nil
	case viewErrors:
		if pe := m.selectedErr(); pe != nil && pe.Election != nil {
			return m.eps[*pe.Election]
		}
		return nil
	}
	if m.elist.sel < len(m.rows) {
		r := m.rows[m.elist.sel]
		if r.kind == rowBurst {
			// The burst's slowest election.
			var best *epRec
			now := m.now()
			for _, c := range r.burst.eps {
				if best == nil || m.dur(c, now) > m.dur(best, now) {
					best = c
				}
			}
			return best
		}
		return r.ep
	}
	return nil
}

func (m *Model) selectedErr() *timeline.ProducerError {
	if m.view == viewDetail {
		return m.detailErr
	}
	if m.errList.sel < len(m.errRows) {
		return m.errRows[m.errList.sel]
	}
	return nil
}

// ---------------------------------------------------------------------------
// Keys.

func (m *Model) key(k tea.KeyMsg) tea.Cmd {
	s := k.String()
	if s == "ctrl+c" {
		return tea.Quit
	}
	m.message = ""
	if m.help {
		m.help = false
		return nil
	}
	if m.searching {
		switch s {
		case "enter":
			m.searching = false
			m.search.Blur()
			m.query = strings.TrimSpace(m.search.Value())
			if m.query != "" && !m.jump(1, true) {
				m.message = "no match for " + clean(m.query)
			}
		case "esc":
			m.searching = false
			m.search.Blur()
		default:
			m.search.key(k)
		}
		return nil
	}
	if m.form != nil {
		return m.formKey(k)
	}
	m.ensure()
	switch s {
	case "?":
		m.help = true
	case "q":
		if m.view == viewDetail {
			m.view = m.back
			return nil
		}
		return tea.Quit
	case "esc":
		switch {
		case m.view == viewDetail:
			m.view = m.back
		case m.query != "":
			m.query = ""
		case m.view == viewHistogram:
			m.view = viewElections
		}
	case "tab":
		m.switchView(1)
	case "shift+tab":
		m.switchView(-1)
	case "j", "down":
		m.move(1)
	case "k", "up":
		m.move(-1)
	case "pgdown", "ctrl+d", "ctrl+f":
		m.move(max(1, m.listHeight()-1))
	case "pgup", "ctrl+u", "ctrl+b":
		m.move(-max(1, m.listHeight()-1))
	case "g", "home":
		m.move(-1 << 30)
	case "G", "end":
		m.move(1 << 30)
	case "enter":
		m.enter()
	case "right", "l":
		m.toggleBurst(true)
	case "left":
		m.toggleBurst(false)
	case "c":
		m.allOpen = !m.allOpen
		clear(m.expanded)
		m.dirty = true
	case "/":
		m.searching = true
		m.search.SetValue("")
		m.search.Focus()
	case "n":
		if m.query != "" && !m.jump(1, false) {
			m.message = "no more matches for " + clean(m.query)
		}
	case "N":
		if m.query != "" && !m.jump(-1, false) {
			m.message = "no earlier match for " + clean(m.query)
		}
	case "f":
		m.form = newFilterForm(m.filter)
	case "s":
		m.sort = (m.sort + 1) % sortBy(len(sortNames))
		m.follow = true
		m.dirty = true
		m.message = "sorted by " + sortNames[m.sort]
	case " ", "space":
		m.togglePause()
	case "e":
		if !m.jumpSlow(1) {
			m.message = "no slow or failed election below"
		}
	case "E":
		if !m.jumpSlow(-1) {
			m.message = "no slow or failed election above"
		}
	case "h":
		if m.view == viewHistogram {
			m.view = viewElections
		} else {
			m.view = viewHistogram
		}
	}
	return nil
}

func (m *Model) togglePause() {
	if m.paused {
		m.paused = false
		held := m.held
		m.held = nil
		for _, s := range held {
			m.apply(s)
		}
		m.dirty = true
		m.message = "resumed"
		return
	}
	m.pausedAt = m.now()
	m.paused = true
	m.message = "paused: the files are still followed; space resumes"
}

func (m *Model) switchView(d int) {
	order := []view{viewElections, viewErrors, viewHistogram}
	cur := m.view
	if cur == viewDetail {
		cur = m.back
	}
	i := 0
	for j, v := range order {
		if v == cur {
			i = j
		}
	}
	m.view = order[(i+d+len(order))%len(order)]
	m.scroll = 0
}

func (m *Model) move(d int) {
	switch m.view {
	case viewElections:
		m.elist.sel += d
		m.elist.clamp(len(m.rows), m.listHeight())
		if len(m.rows) > 0 {
			m.selID = m.rows[m.elist.sel].id()
		}
		m.follow = m.elist.sel == 0
	case viewErrors:
		m.errList.sel += d
		m.errList.clamp(len(m.errRows), m.listHeight())
	case viewDetail, viewHistogram:
		m.scroll = max(0, m.scroll+d)
	}
}

func (m *Model) enter() {
	switch m.view {
	case viewElections:
		if m.elist.sel >= len(m.rows) {
			return
		}
		r := m.rows[m.elist.sel]
		if r.kind == rowBurst {
			m.toggleBurst(m.expanded[r.burst.id] == m.allOpen)
			return
		}
		k := r.ep.e.Key
		m.detailKey, m.detailErr = &k, nil
		m.back, m.view, m.scroll = viewElections, viewDetail, 0
	case viewErrors:
		pe := m.selectedErr()
		if pe == nil {
			return
		}
		if pe.Election == nil {
			m.message = "no election explains this error"
			return
		}
		k := *pe.Election
		if m.eps[k] == nil {
			m.message = "its election is no longer in memory"
			return
		}
		m.selectKey(k)
		m.detailKey, m.detailErr = &k, pe
		m.back, m.view, m.scroll = viewElections, viewDetail, 0
	}
}

// selectKey moves the elections selection to an episode, opening its burst.
func (m *Model) selectKey(k timeline.Key) {
	m.ensure()
	for _, r := range m.rows {
		if r.kind == rowBurst {
			for _, c := range r.burst.eps {
				if c.e.Key == k && m.expanded[r.burst.id] == m.allOpen {
					m.expanded[r.burst.id] = !m.allOpen
					m.dirty = true
				}
			}
		}
	}
	m.selID = rowID{rowEpisode, k}
	m.follow = false
	m.rebuild()
}

func (m *Model) toggleBurst(open bool) {
	if m.view != viewElections || m.elist.sel >= len(m.rows) {
		return
	}
	r := m.rows[m.elist.sel]
	var b *burst
	switch {
	case r.kind == rowBurst:
		b = r.burst
	case r.child && !open:
		// Close the burst this row belongs to and select it.
		for i := m.elist.sel; i >= 0; i-- {
			if m.rows[i].kind == rowBurst {
				b = m.rows[i].burst
				m.elist.sel = i
				m.selID = m.rows[i].id()
				break
			}
		}
	}
	if b == nil {
		return
	}
	m.expanded[b.id] = open != m.allOpen
	m.follow = false
	m.selID = rowID{rowBurst, b.id}
	m.dirty = true
	m.rebuild()
}

// ---------------------------------------------------------------------------
// Search.

type query struct {
	text      string
	broker    int32
	partition int32
}

func parseQuery(q string) query {
	q = strings.ToLower(strings.TrimSpace(q))
	out := query{broker: parser.Unknown, partition: parser.Unknown}
	for _, pre := range []string{"broker:", "broker ", "b:"} {
		if rest, ok := strings.CutPrefix(q, pre); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
				out.broker = int32(n)
				return out
			}
		}
	}
	for _, pre := range []string{"partition:", "partition ", "p:"} {
		if rest, ok := strings.CutPrefix(q, pre); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
				out.partition = int32(n)
				return out
			}
		}
	}
	out.text = q
	return out
}

func (q query) episode(e *timeline.Episode) bool {
	switch {
	case q.broker != parser.Unknown:
		return involves(e, q.broker)
	case q.partition != parser.Unknown:
		return e.Partition == q.partition
	}
	return strings.Contains(strings.ToLower(e.Topic+"-"+strconv.Itoa(int(e.Partition))), q.text)
}

func (q query) err(pe *timeline.ProducerError) bool {
	switch {
	case q.broker != parser.Unknown:
		return false
	case q.partition != parser.Unknown:
		return pe.Partition == q.partition
	}
	s := strings.ToLower(pe.Topic + "-" + strconv.Itoa(int(pe.Partition)) + " " + pe.ClientID + " " + pe.Error)
	return strings.Contains(s, q.text)
}

func (m *Model) rowMatches(q query, r row) bool {
	if r.kind == rowBurst {
		for _, c := range r.burst.eps {
			if q.episode(c.e) {
				return true
			}
		}
		return false
	}
	return q.episode(r.ep.e)
}

// jump moves to the next (d=1) or previous (d=-1) match, from the current
// row itself when fresh, wrapping around the ends (less, vim).
func (m *Model) jump(d int, fresh bool) bool {
	m.ensure()
	q := parseQuery(m.query)
	if m.view == viewDetail || m.view == viewHistogram {
		m.view = viewElections
	}
	start := 1
	if fresh {
		start = 0
	}
	switch m.view {
	case viewErrors:
		n := len(m.errRows)
		for step := start; step < n+start; step++ {
			i := ((m.errList.sel+d*step)%n + n) % n
			if q.err(m.errRows[i]) {
				m.wrapped(i, m.errList.sel, d)
				m.errList.sel = i
				m.errList.clamp(n, m.listHeight())
				return true
			}
		}
	default:
		n := len(m.rows)
		for step := start; step < n+start; step++ {
			i := ((m.elist.sel+d*step)%n + n) % n
			r := m.rows[i]
			if !m.rowMatches(q, r) {
				continue
			}
			m.wrapped(i, m.elist.sel, d)
			if r.kind == rowBurst && !m.burstOpen(r.burst) {
				// Open it and land on the first matching election inside.
				for _, c := range r.burst.eps {
					if q.episode(c.e) {
						m.selectKey(c.e.Key)
						return true
					}
				}
			}
			m.elist.sel = i
			m.elist.clamp(n, m.listHeight())
			m.selID = r.id()
			m.follow = i == 0
			return true
		}
	}
	return false
}

func (m *Model) wrapped(to, from, d int) {
	if (d > 0 && to < from) || (d < 0 && to > from) {
		m.message = "search wrapped"
	}
}

func (m *Model) burstOpen(b *burst) bool { return m.expanded[b.id] != m.allOpen }

func (m *Model) jumpSlow(d int) bool {
	m.ensure()
	if m.view != viewElections {
		m.view = viewElections
	}
	now := m.now()
	for i := m.elist.sel + d; i >= 0 && i < len(m.rows); i += d {
		r := m.rows[i]
		hit := false
		if r.kind == rowBurst {
			for _, c := range r.burst.eps {
				if m.slowOrFailed(c, now) {
					hit = true
				}
			}
			if hit && !m.burstOpen(r.burst) {
				for _, c := range r.burst.eps {
					if m.slowOrFailed(c, now) {
						m.selectKey(c.e.Key)
						return true
					}
				}
			}
		} else {
			hit = m.slowOrFailed(r.ep, now)
		}
		if hit {
			m.elist.sel = i
			m.elist.clamp(len(m.rows), m.listHeight())
			m.selID = r.id()
			m.follow = i == 0
			return true
		}
	}
	return false
}

// clean makes log text safe to draw: control sequences removed, tabs
// turned into spaces.
func clean(s string) string {
	return strings.ReplaceAll(report.Clean(s), "\t", " ")
}
