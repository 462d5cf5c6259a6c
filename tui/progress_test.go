package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/leaderaudit/leaderaudit/internal/feed"
	"github.com/leaderaudit/leaderaudit/internal/live"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// An election in progress shows what its lines measure and what it waits
// for, however long the wall clock runs on; the header says how long the
// logs have been silent instead of moving log time on (issue 16).
func TestInProgressIsMeasured(t *testing.T) {
	e := episode("orders", 7, 8, 0, ms(22), 1, 3, parser.CauseControlledShutdown)
	s := snap(ms(22), []*timeline.Episode{e})
	s.LastLine = s.Wall
	s.Progress = map[timeline.Key]feed.Progress{e.Key: {Waiting: []int32{3}}}
	m := model(120, 30, s)
	// 40 s later by the wall clock, no line since.
	m.opt.Now = func() time.Time { return t0.Add(40 * time.Second) }
	v := checkScreen(t, m, "waiting")
	if r := rowOf(v, "orders-7"); !strings.Contains(r, "●") || !strings.Contains(r, "22 ms") {
		t.Errorf("row %q: want in progress, 22 ms", r)
	}
	if !strings.Contains(v, "log time "+m.hms(t0.Add(ms(22)))) || !strings.Contains(v, "last line 39 s ago") {
		t.Errorf("header:\n%s", strings.SplitN(v, "\n", 2)[0])
	}
	press(m, "enter")
	v = checkScreen(t, m, "detail")
	if !strings.Contains(v, "IN PROGRESS 22 ms so far, waiting for broker 3") {
		t.Errorf("detail does not say what it waits for:\n%s", v)
	}

	// Every followed live replica has logged its last step: over at once.
	s2 := snap(ms(22), []*timeline.Episode{e})
	s2.Progress = map[timeline.Key]feed.Progress{e.Key: {Complete: true}}
	m.Apply(s2)
	press(m, "esc")
	v = checkScreen(t, m, "complete")
	if r := rowOf(v, "orders-7"); strings.Contains(r, "●") || !strings.Contains(r, "22 ms") {
		t.Errorf("row %q: want done, 22 ms", r)
	}
}

// A directory with no log file in it says so, naming where it looked.
func TestNothingFound(t *testing.T) {
	s := &feed.Snapshot{Wall: t0, Live: true, Stats: feed.Stats{Looked: []string{"/var/log/kafka"}}}
	v := checkScreen(t, model(200, 20, s), "empty")
	if !strings.Contains(v, "no log files found in /var/log/kafka") {
		t.Errorf("screen:\n%s", v)
	}
}

// Replaying history to its end leaves nothing in progress: case3's last
// elections were logged in full by every followed broker.
func TestReplayLeavesNothingInProgress(t *testing.T) {
	p := startLive(t, live.Config{Paths: []string{"../testdata/incidents/case3-acks1-zk-expiry"}, Loc: time.UTC, FromStart: true})
	m := New(nil, Options{Loc: time.UTC, Tick: -1})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 60})
	deadline := time.After(20 * time.Second)
	for !m.live {
		select {
		case s := <-p.Updates():
			m.Apply(s)
		case <-deadline:
			t.Fatal("case3 not read back in 20 s")
		}
	}
	if len(m.eps) == 0 {
		t.Fatal("no election read")
	}
	now := m.now()
	for k, r := range m.eps {
		if !m.done(r, now) {
			t.Errorf("%v in progress after the replay (waiting %v)", k, r.waiting())
		}
	}
	if v := m.View(); strings.Contains(v, "in progress") || strings.Contains(v, "●  ") {
		t.Errorf("screen shows elections in progress:\n%s", v)
	}
}

// startLive runs a pipeline until the test ends.
func startLive(t *testing.T, cfg live.Config) *live.Pipeline {
	t.Helper()
	p, err := live.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		for range p.Updates() {
		}
		<-done
	})
	return p
}
