// Package tui is the terminal screen of `leaderaudit watch`: a bubbletea
// model fed with feed.Snapshots (made by package live). It shows the open
// and recent elections, a per-broker timeline of the selected one drawn to
// scale, the producer errors with what explains them, and a histogram of
// election durations.
//
// Every string that comes from a log (topics, client ids, error names,
// file names) goes through textfmt.Clean before it is drawn, and every
// line of the screen is cut to the terminal's width.
package tui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/leaderaudit/leaderaudit/internal/feed"
	"github.com/leaderaudit/leaderaudit/internal/textfmt"
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
	// Quiet: an election that waits for no followed broker (see
	// feed.Progress) and has had no new line for this long of log time is
	// over. Use the timeline's Quiet.
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
	// Tick is how often the wall clock is looked at, for the header's
	// "last line N s ago" (default 1s; negative: never, for tests).
	// Nothing else on screen moves with the wall clock.
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

const (
	rowEpisode rowKind = iota
	rowBurst
)

// Messages.
type snapMsg struct{ s *feed.Snapshot }
type closedMsg struct{}
type tickMsg time.Time

// Model is the watch screen.
type Model struct {
	opt     Options
	updates <-chan *feed.Snapshot
	st      styles

	width, height int

	// Data.
	eps     map[timeline.Key]*epRec
	errs    []*timeline.ProducerError // arrival order
	stats   feed.Stats
	snapNow time.Time // Snapshot.Now of the newest snapshot applied
	snapAt  time.Time // its Wall
	// lastLine: when (wall clock) the newest line was read.
	lastLine time.Time
	built    bool // a snapshot has been applied to the rows
	live     bool
	ended    bool
	seq      int

	paused   bool
	pausedAt time.Time
	held     []*feed.Snapshot

	// View state.
	view, back view
	sort       sortBy
	filter     filterState
	expanded   map[timeline.Key]bool
	allOpen    bool
	rows       []row
	gen        int // rebuilds of rows
	tabCount   tabCount
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
func New(updates <-chan *feed.Snapshot, opt Options) *Model {
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
		opt.Tick = time.Second
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

// Forget lets go of the elections and errors the screen holds, once its
// program has ended: bubbletea's goroutines (the terminal reader blocked
// in a read, a pending tick, the wait for the next snapshot) keep the
// program and so the model reachable until the process exits, and the
// text report written on quitting should not pay for the screen as well.
func (m *Model) Forget() {
	m.eps, m.expanded = map[timeline.Key]*epRec{}, map[timeline.Key]bool{}
	m.errs, m.held, m.rows, m.errRows = nil, nil, nil, nil
	m.detailKey, m.detailErr = nil, nil
	m.gen++
	m.dirty = true
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

// now is the newest log time seen (as of the pause, when paused). It does
// not move on while the logs are silent: nothing on screen counts the
// wall clock as log time.
func (m *Model) now() time.Time {
	if m.paused {
		return m.pausedAt
	}
	return m.snapNow
}

// silent says how long ago (wall clock) the newest line was read, once
// that is a second or more while following: log time stands still then,
// and this is what moves.
func (m *Model) silent() string {
	if !m.live || m.ended || m.lastLine.IsZero() {
		return ""
	}
	ago := m.opt.Now().Sub(m.lastLine)
	if ago < time.Second {
		return ""
	}
	return "last line " + agoText(ago) + " ago"
}

// agoText is a wall-clock span to the second.
func agoText(d time.Duration) string {
	sec := int64(d / time.Second)
	switch {
	case sec < 60:
		return fmt.Sprintf("%d s", sec)
	case sec < 3600:
		return fmt.Sprintf("%d min %d s", sec/60, sec%60)
	}
	return fmt.Sprintf("%d h %d min", sec/3600, sec%3600/60)
}

// waiting says what an election in progress waits for.
func waiting(r *epRec) string {
	w := r.waiting()
	if len(w) == 0 {
		return ""
	}
	s := "broker "
	if len(w) > 1 {
		s = "brokers "
	}
	return "waiting for " + s + textfmt.JoinIDs(w)
}

// done says whether an election is over: finished by the timeline, or
// every followed live replica has logged its last step for it (see
// feed.Progress), or, when it waits for no followed broker, no line has
// come for it for Quiet of log time.
func (m *Model) done(r *epRec, now time.Time) bool {
	if r.finished || m.ended || r.complete {
		return true
	}
	return len(r.waiting()) == 0 && now.Sub(r.e.LastActivity()) >= m.opt.Quiet
}

// dur is what an election took (timeline's Took: to the new leader ready,
// as the report says), else its first line to its newest, in progress or
// not (never the wall clock since it started).
func (m *Model) dur(r *epRec, now time.Time) time.Duration {
	return r.took
}

func failed(e *kept) bool { return e.Leader == -1 || e.Unclean }

func (m *Model) slowOrFailed(r *epRec, now time.Time) bool {
	return failed(&r.e) || m.dur(r, now) >= m.opt.Slow
}

// Apply feeds a snapshot as if it had arrived (tests, and the Update loop).
func (m *Model) Apply(s *feed.Snapshot) {
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

func (m *Model) apply(s *feed.Snapshot) {
	m.stats = s.Stats
	moved := !s.Now.Equal(m.snapNow)
	if !s.Now.IsZero() {
		m.snapNow, m.snapAt = s.Now, s.Wall
	}
	m.lastLine = s.LastLine
	m.live = s.Live
	if s.Final {
		m.ended = true
	}
	for _, e := range s.Changed {
		m.upsert(e, false, s.Progress[e.Key])
	}
	for _, e := range s.Finished {
		m.upsert(e, true, feed.Progress{Complete: true})
	}
	for _, pe := range s.Errors {
		m.errs = append(m.errs, pe)
		if pe.Election != nil {
			if r := m.eps[*pe.Election]; r != nil {
				r.addErr(pe)
			}
		}
	}
	if len(s.Changed)+len(s.Finished)+len(s.Errors) > 0 || moved || s.Final || !m.built {
		// Rows are rebuilt (every election sorted) only when one changed
		// or log time moved (--keep): a quiet log's snapshots bring new
		// counts for the header alone.
		m.prune()
		m.dirty = true
		m.built = true
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
		// Only the header moves with the wall clock, and View draws it
		// after every message: the rows (dirty) stay as they are.
		return m, m.tick()
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// ---------------------------------------------------------------------------
// Derived rows.

// ---------------------------------------------------------------------------
// Keys.

func (m *Model) key(k tea.KeyMsg) tea.Cmd {
	s := k.String()
	b := keyBindings[s]
	if b != nil && b.always {
		return b.do(m)
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
	if b != nil {
		return b.do(m)
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

// clean makes log text safe to draw: control sequences removed, tabs
// turned into spaces.
func clean(s string) string {
	return strings.ReplaceAll(textfmt.Clean(s), "\t", " ")
}
