package tui

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/leaderaudit/leaderaudit/internal/feed"
	"github.com/leaderaudit/leaderaudit/internal/live"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// updating reports -update (the flag is registered by teatest's golden
// package, which this test binary links).
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// ---------------------------------------------------------------------------
// Synthetic elections.

var t0 = time.Date(2024, 3, 11, 14, 3, 5, 120_000_000, time.UTC)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// episode builds an election starting at t0+at lasting d, with leader
// from → to, on brokers 1–3.
func episode(topic string, part, epoch int32, at, d time.Duration, from, to int32, cause parser.Cause) *timeline.Episode {
	start := t0.Add(at)
	e := &timeline.Episode{
		Key:    timeline.Key{Topic: topic, Partition: part, LeaderEpoch: epoch},
		Leader: to, PreviousLeader: from, Controller: 0, ControllerEpoch: 9, Cause: cause,
		CauseBrokers: []int32{from}, Decided: start, Start: start, End: start.Add(d), Transition: true,
		LastActivity: start.Add(d), ISR: []int32{to, 3}, Replicas: []int32{from, to, 3},
	}
	for _, b := range []int32{1, 2, 3} {
		bt := &timeline.BrokerTimeline{Broker: b, Role: parser.RoleFollower}
		if b == to {
			bt.Role = parser.RoleLeader
		}
		bt.Phases[parser.PhaseReceived] = start.Add(d / 10)
		bt.Phases[parser.PhaseHandling] = start.Add(d / 8)
		bt.Phases[parser.PhaseStoppedFetchers] = start.Add(d / 4)
		bt.Phases[parser.PhaseEpochStart] = start.Add(d / 2)
		if b == to {
			// The new leader is ready at the end: what the election took
			// (timeline's Took) is then d.
			bt.Phases[parser.PhaseEpochStart] = start.Add(d)
		}
		bt.Phases[parser.PhaseFinished] = start.Add(d)
		e.Brokers = append(e.Brokers, bt)
	}
	return e
}

// upTo is e as it looked at now: only what was logged by then.
func upTo(e *timeline.Episode, now time.Time) *timeline.Episode {
	c := e.Clone()
	if c.End.After(now) {
		c.End, c.LastActivity = now, now
	}
	for _, bt := range c.Brokers {
		for i, t := range bt.Phases {
			if t.After(now) {
				bt.Phases[i] = time.Time{}
			}
		}
	}
	return c
}

func perr(topic string, part int32, at time.Duration, client string, match timeline.Match, k *timeline.Key) *timeline.ProducerError {
	return &timeline.ProducerError{Time: t0.Add(at), ClientID: client, Topic: topic, Partition: part, Error: "NOT_LEADER_OR_FOLLOWER",
		AttemptsLeft: 2, Match: match, Election: k}
}

func snap(now time.Duration, changed []*timeline.Episode, errs ...*timeline.ProducerError) *feed.Snapshot {
	return &feed.Snapshot{Wall: t0.Add(now), Now: t0.Add(now), Live: true, Changed: changed, Errors: errs,
		Stats: feed.Stats{Lines: 1234, LinesPerSec: 321, Brokers: []int32{0, 1, 2, 3}, Followed: 3,
			Files: []feed.FileStatus{{Path: "state-change.log", Lines: 1000}, {Path: "controller.log", Lines: 200}, {Path: "producer.log", Lines: 34}}}}
}

// model returns a screen with a fixed clock (the last snapshot's wall time).
func model(w, h int, snaps ...*feed.Snapshot) *Model {
	clock := t0
	m := New(nil, Options{Loc: time.UTC, Zone: "UTC (--tz)", Tick: -1, Now: func() time.Time { return clock }})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	for _, s := range snaps {
		m.Apply(s)
		clock = s.Wall
	}
	m.opt.Now = func() time.Time { return clock }
	return m
}

func press(m *Model, keys ...string) {
	for _, k := range keys {
		var msg tea.KeyMsg
		switch k {
		case "enter":
			msg = tea.KeyMsg{Type: tea.KeyEnter}
		case "esc":
			msg = tea.KeyMsg{Type: tea.KeyEsc}
		case "tab":
			msg = tea.KeyMsg{Type: tea.KeyTab}
		case "shift+tab":
			msg = tea.KeyMsg{Type: tea.KeyShiftTab}
		case "space":
			msg = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
		case "down":
			msg = tea.KeyMsg{Type: tea.KeyDown}
		case "backspace":
			msg = tea.KeyMsg{Type: tea.KeyBackspace}
		default:
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		m.Update(msg)
	}
}

func typeText(m *Model, s string) {
	for _, r := range s {
		if r == ' ' {
			press(m, "space")
		} else {
			press(m, string(r))
		}
	}
}

// checkScreen asserts the screen is exactly h lines, none wider than w.
func checkScreen(t *testing.T, m *Model, what string) string {
	t.Helper()
	v := m.View()
	lines := strings.Split(v, "\n")
	if len(lines) != m.height {
		t.Errorf("%s at %dx%d: %d lines", what, m.width, m.height, len(lines))
	}
	for i, l := range lines {
		if w := width(l); w > m.width {
			t.Errorf("%s at %dx%d: line %d is %d cells: %q", what, m.width, m.height, i, w, l)
		}
	}
	return v
}

func rowOf(v, needle string) string {
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, needle) {
			return l
		}
	}
	return ""
}

func selectedRow(v string) string { return rowOf(v, "▸ ") }

// burst is a controlled shutdown of broker 1 moving three partitions.
func burstEpisodes() []*timeline.Episode {
	return []*timeline.Episode{
		episode("orders", 3, 12, 0, ms(220), 1, 2, parser.CauseControlledShutdown),
		episode("orders", 7, 8, ms(30), ms(2400), 1, 3, parser.CauseControlledShutdown),
		episode("payments", 0, 5, ms(60), ms(40), 1, 2, parser.CauseControlledShutdown),
	}
}

// ---------------------------------------------------------------------------
// Update-level tests.

func TestBurstAppearsLive(t *testing.T) {
	m := model(100, 30, snap(0, nil))
	v := checkScreen(t, m, "empty")
	if !strings.Contains(v, "no leader elections yet") || !strings.Contains(v, "● LIVE") {
		t.Fatalf("empty screen:\n%s", v)
	}
	eps := burstEpisodes()
	// 100 ms after it started: all three in progress, as far as logged.
	var early []*timeline.Episode
	for _, e := range eps {
		early = append(early, upTo(e, t0.Add(ms(100))))
	}
	m.Apply(snap(ms(100), early))
	m.opt.Now = func() time.Time { return t0.Add(ms(100)) }
	v = checkScreen(t, m, "burst")
	row := selectedRow(v)
	if !strings.Contains(row, "[+] burst of 3") || !strings.Contains(row, "●") || !strings.Contains(row, "ctrl shutdown b1") {
		t.Errorf("burst row %q\n%s", row, v)
	}
	if !strings.Contains(v, "Elections 3 (3 in progress)") {
		t.Errorf("tab bar:\n%s", v)
	}
	// In progress, a duration is what its lines measure (first to
	// newest), not the wall clock since it began (issue 16): 1.1 s later,
	// with no new line, orders-7 still shows 70 ms.
	m.opt.Now = func() time.Time { return t0.Add(ms(1200)) }
	press(m, "enter") // open the burst
	v = checkScreen(t, m, "open burst")
	if r := rowOf(v, "orders-7"); !strings.Contains(r, "70 ms") || !strings.Contains(r, "●") {
		t.Errorf("orders-7 in progress: %q", r)
	}
	// Quiet for 10 s after its last line: done, with its real duration.
	m.Apply(snap(ms(2430)+11*time.Second, eps))
	m.opt.Now = func() time.Time { return t0.Add(ms(2430) + 11*time.Second) }
	v = checkScreen(t, m, "done")
	if r := rowOf(v, "orders-7"); !strings.Contains(r, "2.4 s") || strings.Contains(r, "●") {
		t.Errorf("orders-7 done: %q", r)
	}
	if !strings.Contains(v, "Elections 3 ") || strings.Contains(v, "in progress)") {
		t.Errorf("tab bar after:\n%s", v)
	}
}

func TestDrillIn(t *testing.T) {
	eps := burstEpisodes()
	k := eps[0].Key
	m := model(100, 30, snap(20*time.Second, eps, perr("orders", 3, ms(50), "checkout", timeline.MatchDuring, &k)))
	press(m, "enter") // open the burst
	press(m, "j")     // payments-0 (newest)
	press(m, "j")     // orders-7
	press(m, "j")     // orders-3
	v := checkScreen(t, m, "list")
	if !strings.Contains(selectedRow(v), "orders-3") {
		t.Fatalf("selected %q", selectedRow(v))
	}
	press(m, "enter")
	v = checkScreen(t, m, "detail")
	for _, want := range []string{
		"orders-3 · epoch 12 · took 220 ms · leader 1 → 2 · controlled shutdown of broker 1",
		"controller 0 (epoch 9)", "broker 2 leader", "broker 1 follower",
		"H handling", "+22 ms", "+110 ms", "+220 ms", // handling, epoch start, finished offsets
		"producer errors it explains: 1", "checkout retry orders-3 NOT_LEADER_OR_FOLLOWER",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("detail lacks %q:\n%s", want, v)
		}
	}
	// The lane is drawn to scale: finished (X) at the right end.
	lane := rowOf(v, "broker 2 leader")
	if !strings.Contains(lane, "X ") || strings.Index(lane, "R") > strings.Index(lane, "X") {
		t.Errorf("lane %q", lane)
	}
	press(m, "esc")
	v = checkScreen(t, m, "back")
	if !strings.Contains(selectedRow(v), "orders-3") || strings.Contains(v, "applied in:") {
		t.Errorf("esc did not go back:\n%s", v)
	}
	// From the producer errors pane, enter jumps to the election.
	press(m, "tab")
	v = checkScreen(t, m, "errors")
	if r := selectedRow(v); !strings.Contains(r, "checkout") || !strings.Contains(r, "during orders-3 e12") {
		t.Errorf("error row %q\n%s", r, v)
	}
	press(m, "enter")
	v = checkScreen(t, m, "jump")
	if !strings.Contains(v, "▸ error:") && !strings.Contains(v, "▸ 14:03:05.170 checkout") {
		t.Errorf("jump did not show the error's election:\n%s", v)
	}
	if !strings.Contains(v, "orders-3 · epoch 12") {
		t.Errorf("jump:\n%s", v)
	}
	press(m, "q") // back, not quit
	if m.view != viewElections || !strings.Contains(selectedRow(m.View()), "orders-3") {
		t.Errorf("after q from detail: view %d\n%s", m.view, m.View())
	}
}

func TestSearch(t *testing.T) {
	eps := burstEpisodes()
	eps = append(eps, episode("orders", 11, 4, 5*time.Second, ms(10), 2, 3, parser.CauseBrokerFailure))
	m := model(100, 30, snap(30*time.Second, eps))
	press(m, "/")
	typeText(m, "orders-7")
	if v := m.View(); !strings.Contains(v, "/orders-7") {
		t.Errorf("search prompt not shown:\n%s", v)
	}
	press(m, "enter")
	v := checkScreen(t, m, "search")
	if !strings.Contains(selectedRow(v), "orders-7") {
		t.Errorf("search landed on %q\n%s", selectedRow(v), v)
	}
	// b:3 finds elections involving broker 3: every one here; n moves on.
	press(m, "/")
	typeText(m, "partition:11")
	press(m, "enter")
	if !strings.Contains(selectedRow(m.View()), "orders-11") {
		t.Errorf("p:11 landed on %q", selectedRow(m.View()))
	}
	press(m, "/")
	typeText(m, "orders")
	press(m, "enter", "n")
	first := selectedRow(m.View())
	press(m, "n")
	second := selectedRow(m.View())
	press(m, "N")
	if first == second || selectedRow(m.View()) != first {
		t.Errorf("n/N: %q %q %q", first, second, selectedRow(m.View()))
	}
	press(m, "/")
	typeText(m, "nothing-like-this")
	press(m, "enter")
	if v := m.View(); !strings.Contains(v, "no match for nothing-like-this") {
		t.Errorf("no-match message missing:\n%s", v)
	}
}

func TestFilter(t *testing.T) {
	eps := burstEpisodes()
	al := episode("audit-log", 0, 2, 5*time.Second, ms(10), 2, 3, parser.CauseBrokerFailure)
	al.Brokers = al.Brokers[1:] // brokers 2 and 3 only
	al.Replicas = []int32{2, 3}
	eps = append(eps, al)
	k := eps[1].Key
	m := model(120, 30, snap(30*time.Second, eps, perr("orders", 7, ms(100), "checkout", timeline.MatchDuring, &k)))
	press(m, "c") // open all bursts
	press(m, "f")
	typeText(m, "orders*")
	press(m, "enter")
	v := checkScreen(t, m, "topic filter")
	if strings.Contains(v, "audit-log") || strings.Contains(v, "payments-0") || !strings.Contains(v, "orders-3") || !strings.Contains(v, "filter: topic orders*") {
		t.Errorf("topic filter:\n%s", v)
	}
	// Only with errors, and a minimum duration.
	press(m, "f", "tab", "tab")
	typeText(m, "1s")
	press(m, "tab", "space", "enter")
	v = checkScreen(t, m, "min duration + errors")
	if !strings.Contains(v, "orders-7") || strings.Contains(v, "orders-3") || !strings.Contains(v, "with errors") {
		t.Errorf("filter:\n%s", v)
	}
	// Broker filter: broker 1 was in every burst election, not in audit-log.
	press(m, "f", "ctrl+u")
	m.form.inputs[0].SetValue("")
	m.form.inputs[2].SetValue("")
	m.form.withErrors = false
	m.form.inputs[1].SetValue("1")
	press(m, "enter")
	v = checkScreen(t, m, "broker filter")
	if strings.Contains(v, "audit-log") || !strings.Contains(v, "payments-0") {
		t.Errorf("broker filter:\n%s", v)
	}
	// A bad value is refused with a reason.
	press(m, "f", "tab")
	typeText(m, "x")
	press(m, "enter")
	if v := m.View(); !strings.Contains(v, "broker: a broker id") {
		t.Errorf("bad broker accepted:\n%s", v)
	}
	press(m, "esc")
	if m.form != nil {
		t.Error("esc did not close the form")
	}
}

func TestPause(t *testing.T) {
	eps := burstEpisodes()
	m := model(100, 30, snap(20*time.Second, eps[:1]))
	press(m, "space")
	m.Apply(snap(21*time.Second, eps[1:]))
	v := checkScreen(t, m, "paused")
	if !strings.Contains(v, "PAUSED (1 updates held)") || strings.Contains(v, "orders-7") {
		t.Errorf("paused:\n%s", v)
	}
	press(m, "space")
	v = checkScreen(t, m, "resumed")
	if strings.Contains(v, "PAUSED") || !strings.Contains(v, "burst of 3") {
		t.Errorf("resumed:\n%s", v)
	}
}

func TestSortAndSlow(t *testing.T) {
	eps := burstEpisodes()
	eps = append(eps, episode("audit-log", 0, 2, 5*time.Second, ms(10), 2, -1, parser.CauseBrokerFailure))
	m := model(100, 30, snap(30*time.Second, eps))
	press(m, "s") // duration
	if r := selectedRow(m.View()); !strings.Contains(r, "orders-7") {
		t.Errorf("longest first: %q", r)
	}
	press(m, "s", "s") // errors, then back to time
	press(m, "g")
	// e: the next slow or failed election below the top row.
	press(m, "e")
	first := selectedRow(m.View())
	press(m, "e")
	second := selectedRow(m.View())
	if !strings.Contains(first+second, "orders-7") {
		t.Errorf("e did not reach the slow election: %q, %q", first, second)
	}
	press(m, "g")
	if r := selectedRow(m.View()); !strings.Contains(r, "audit-log") || !strings.Contains(r, "✗") {
		t.Errorf("failed election row: %q", r)
	}
}

func TestHistogram(t *testing.T) {
	m := model(100, 30, snap(time.Minute, burstEpisodes()))
	press(m, "h")
	v := checkScreen(t, m, "histogram")
	for _, want := range []string{"Election durations", "3 done", "20–50 ms", "200–500 ms", "500 ms–1 s", "2–5 s", "Slowest per broker", "broker 1"} {
		if !strings.Contains(v, want) {
			t.Errorf("histogram lacks %q:\n%s", want, v)
		}
	}
}

func TestHelp(t *testing.T) {
	m := model(100, 30, snap(0, nil))
	press(m, "?")
	v := checkScreen(t, m, "help")
	for _, k := range Keys {
		if !strings.Contains(v, k.Help[:min(len(k.Help), 30)]) {
			t.Errorf("help lacks %q", k.Keys)
		}
	}
	press(m, "x")
	if m.help {
		t.Error("help still shown")
	}
}

// Every screen fits every size: no line wider than the terminal, exactly
// its height, long topics cut with an ellipsis.
func TestResize(t *testing.T) {
	long := strings.Repeat("very-long-topic-name-", 12)
	eps := burstEpisodes()
	eps = append(eps,
		episode(long, 123, 4, 5*time.Second, ms(10), 2, 3, parser.CauseBrokerFailure),
		episode("トピック", 1, 1, 6*time.Second, ms(10), 2, 3, parser.CausePreferred))
	k := eps[3].Key
	errs := []*timeline.ProducerError{
		perr(long, 123, 5*time.Second, "client-"+strings.Repeat("x", 80), timeline.MatchDuring, &k),
		perr("orders", 9, 6*time.Second, "クライアント", timeline.MatchNone, nil),
	}
	m := model(80, 24, snap(8*time.Second, eps, errs...))
	press(m, "c")
	for _, sz := range [][2]int{{80, 24}, {100, 30}, {132, 43}, {200, 60}, {81, 25}, {80, 24}, {40, 12}} {
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		press(m, "g")
		what := fmt.Sprintf("elections %dx%d", sz[0], sz[1])
		v := checkScreen(t, m, what)
		if sz[0] == 80 {
			r := rowOf(v, "-123")
			if !strings.Contains(r, "…-123") {
				t.Errorf("long topic not cut with an ellipsis: %q", r)
			}
		}
		press(m, "j", "enter")
		checkScreen(t, m, "detail "+what)
		press(m, "esc", "tab")
		checkScreen(t, m, "errors "+what)
		press(m, "tab")
		checkScreen(t, m, "histogram "+what)
		press(m, "tab", "?")
		checkScreen(t, m, "help "+what)
		press(m, "x", "f")
		checkScreen(t, m, "filter "+what)
		press(m, "esc", "/")
		typeText(m, strings.Repeat("q", 200))
		checkScreen(t, m, "search "+what)
		press(m, "esc")
	}
}

// Terminal control sequences in log text never reach the screen.
func TestEscapesNeverDrawn(t *testing.T) {
	evil := "evil\x1b]52;c;ZWNobyBwd25lZAo=\x07\x1b[2J\x9b31m\tx"
	e := episode("orders"+evil, 1, 3, 0, ms(20), 1, 2, parser.CauseBrokerFailure)
	k := e.Key
	pe := perr(k.Topic, 1, ms(5), "checkout"+evil, timeline.MatchDuring, &k)
	pe.Error = "NOT_LEADER_OR_FOLLOWER" + evil
	s := snap(time.Second, []*timeline.Episode{e}, pe)
	s.Stats.Files = append(s.Stats.Files, feed.FileStatus{Path: "/var/log/" + evil + ".log", Err: "open x: " + evil})
	for _, r := range []*lipgloss.Renderer{nil, colorRenderer()} {
		m := model(120, 40, s)
		m.st = newStyles(r)
		screens := []string{m.View()}
		press(m, "enter")
		screens = append(screens, m.View())
		press(m, "esc", "tab")
		screens = append(screens, m.View())
		press(m, "enter")
		screens = append(screens, m.View())
		press(m, "esc", "/")
		typeText(m, "x\x1b[2J")
		screens = append(screens, m.View())
		for i, v := range screens {
			for _, bad := range []string{"\x1b]", "\x1b[2J", "\x07", "\x9b", "\t", "ZWNobyBwd25lZAo="} {
				if strings.Contains(v, bad) {
					t.Errorf("screen %d contains %q", i, bad)
				}
			}
			if r == nil && strings.Contains(v, "\x1b") {
				t.Errorf("plain screen %d contains ESC", i)
			}
		}
		if !strings.Contains(screens[0], "ordersevil") {
			t.Errorf("cleaned topic not shown:\n%s", screens[0])
		}
	}
}

func colorRenderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI256)
	return r
}

// Keep drops elections older than --keep (by event time).
func TestKeep(t *testing.T) {
	old := episode("orders", 1, 1, 0, ms(10), 1, 2, parser.CauseBrokerFailure)
	m := New(nil, Options{Loc: time.UTC, Tick: -1, Keep: time.Hour, Now: func() time.Time { return t0 }})
	m.Apply(&feed.Snapshot{Wall: t0, Now: t0.Add(time.Minute), Live: true, Finished: []*timeline.Episode{old}})
	if len(m.eps) != 1 {
		t.Fatal("not kept")
	}
	m.Apply(&feed.Snapshot{Wall: t0, Now: t0.Add(2 * time.Hour), Live: true})
	if len(m.eps) != 0 {
		t.Error("older than --keep still held")
	}
}

// ---------------------------------------------------------------------------
// With the live pipeline.

func samplePath(t *testing.T, prefix string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join("..", "testdata", "samples", prefix+"-*.log"))
	if len(m) != 1 {
		t.Fatalf("sample %s: %v", prefix, m)
	}
	return m[0]
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func appendLines(t *testing.T, path string, lines []string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			t.Error(err)
			return
		}
	}
}

// evilProducer is a producer retry during erstesTopic-1's election in
// sample 039, with a screen clear in its client id and an OSC 52
// clipboard write in its error.
const evilProducer = "[2021-04-28 16:12:30,892] WARN [Producer clientId=checkout\x1b[2J] Got error produce response with correlation id 5 on topic-partition erstesTopic-1, retrying (2 attempts left). Error: NOT_LEADER_OR_FOLLOWER\x1b]52;c;ZWNobyBwd25lZAo=\x07 (org.apache.kafka.clients.producer.internals.Sender)"

// An incident appended to followed files while the program runs shows up
// on the screen; the producer line's control sequences never do.
func TestLiveIncident(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "state-change.log")
	ctrl := filepath.Join(dir, "controller.log")
	prod := filepath.Join(dir, "producer.log")
	for _, p := range []string{sc, ctrl, prod} {
		appendLines(t, p, nil)
	}
	p, err := live.New(live.Config{Paths: []string{dir}, Loc: time.UTC, Since: time.Now().Add(-time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	defer func() {
		cancel()
		for range p.Updates() {
		}
		<-done
	}()
	m := New(p.Updates(), Options{Loc: time.UTC, Zone: "UTC (--tz)", Renderer: colorRenderer()})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 36))
	go func() {
		appendLines(t, ctrl, readLines(t, samplePath(t, "038")))
		lines := readLines(t, samplePath(t, "039"))
		for i := 0; i < len(lines); i += 5 {
			appendLines(t, sc, lines[i:min(i+5, len(lines))])
			if i == 15 {
				appendLines(t, prod, []string{evilProducer})
			}
		}
	}()
	var seen bytes.Buffer
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		seen.Write(b)
		s := seen.String()
		return strings.Contains(s, "burst of 2") && strings.Contains(s, "ctrl shutdown b") && strings.Contains(s, "Producer errors 1")
	}, teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter}) // open the burst
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		seen.Write(b)
		return strings.Contains(seen.String(), "erstesTopic-1")
	}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	tm.Send(tea.KeyMsg{Type: tea.KeyTab})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		seen.Write(b)
		return strings.Contains(seen.String(), "during erstesTopic-1 e10")
	}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	out, _ := io.ReadAll(tm.FinalOutput(t))
	seen.Write(out)
	for _, bad := range []string{"\x1b]52", "ZWNobyBwd25lZAo=", "\x07"} {
		if strings.Contains(seen.String(), bad) {
			t.Errorf("output contains %q", bad)
		}
	}
	if !strings.Contains(seen.String(), "checkout") {
		t.Error("client id not shown")
	}
}

// ---------------------------------------------------------------------------
// Screen capture for the README.

// incident builds an incident for the screenshot: the KRaft sample 035
// up to just after its slowest burst, and a producer that failed during
// and after it.
func incident(t *testing.T) []*feed.Snapshot {
	dir := t.TempDir()
	var lines []string
	var rec parser.Record
	stop := time.Date(2025, 3, 28, 19, 19, 50, 0, time.UTC)
	for _, l := range readLines(t, samplePath(t, "035")) {
		if parser.ParseHeader([]byte(l), time.UTC, &rec) && rec.Time.After(stop) {
			break
		}
		lines = append(lines, l)
	}
	appendLines(t, filepath.Join(dir, "state-change.log"), lines)
	pl := func(ts, client, tp string, left int) string {
		return fmt.Sprintf("[2025-03-28 %s] WARN [Producer clientId=%s] Got error produce response with correlation id 77 on topic-partition %s, retrying (%d attempts left). Error: NOT_LEADER_OR_FOLLOWER (org.apache.kafka.clients.producer.internals.Sender)", ts, client, tp, left)
	}
	appendLines(t, filepath.Join(dir, "producer.log"), []string{
		pl("19:19:35,602", "checkout-api", "kraft-test-0", 4),
		pl("19:19:36,114", "checkout-api", "kraft-test-1", 3),
		pl("19:19:38,950", "payments-svc", "kraft-test-2", 4),
		pl("19:19:41,250", "fraud-scorer", "audit-events-4", 4),
		pl("19:19:44,130", "checkout-api", "kraft-test-0", 2),
	})
	p, err := live.New(live.Config{Paths: []string{dir}, Loc: time.UTC, FromStart: true, IdleAdvance: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	defer func() {
		cancel()
		for range p.Updates() {
		}
		<-done
	}()
	var snaps []*feed.Snapshot
	errs := 0
	deadline := time.After(20 * time.Second)
	for {
		select {
		case s := <-p.Updates():
			snaps = append(snaps, s)
			errs += len(s.Errors)
			if s.Live && s.Stats.Lines == int64(len(lines)+5) && errs == 5 {
				return snaps
			}
		case <-deadline:
			t.Fatalf("incident not read in time: %d snapshots, %d errors", len(snaps), errs)
		}
	}
}

func TestScreenCapture(t *testing.T) {
	snaps := incident(t)
	last := snaps[len(snaps)-1]
	m := model(120, 40, snaps...)
	m.opt.Now = func() time.Time { return last.Wall }
	m.stats.LinesPerSec = 1840
	var b strings.Builder
	capture := func(title string) {
		v := checkScreen(t, m, title)
		fmt.Fprintf(&b, "── %s (%dx%d) ──\n%s\n\n", title, m.width, m.height, v)
	}
	press(m, "/")
	typeText(m, "kraft-test-0")
	press(m, "enter")
	capture("elections, a burst opened by search, detail pane below")
	press(m, "enter")
	capture("enter: the election in detail")
	press(m, "esc", "tab")
	capture("tab: producer errors and what explains them")
	press(m, "tab")
	capture("h / tab: histogram of election durations")
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	press(m, "tab", "g")
	capture("the same at 80x24")
	b.WriteString("Keys\n" + KeysText())
	got := b.String()
	path := filepath.Join("testdata", "tui-screen.txt")
	if updating() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./tui -run ScreenCapture -update writes it)", err)
	}
	if string(want) != got {
		t.Errorf("screen differs from %s; rerun with -update after checking:\n%s", path, got)
	}
}
