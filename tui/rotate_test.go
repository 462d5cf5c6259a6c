package tui

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/leaderaudit/leaderaudit/internal/live"
)

// rotationElection is one ZK-era election of events-0 as broker 1
// (controller and follower) logs it, case3's broker-1 lines of 10:15:20
// with the epoch and times changed.
func rotationElection(epoch int, at time.Time) []string {
	ts := func(d time.Duration) string { return at.Add(d).UTC().Format("2006-01-02 15:04:05,000") }
	return []string{
		fmt.Sprintf("[%s] INFO [Controller id=1 epoch=3] Changed partition events-0 from OnlinePartition to OnlinePartition with state LeaderAndIsr(leader=3, leaderEpoch=%d, isr=List(3, 1), zkVersion=%d) (state.change.logger)", ts(0), epoch, 20+epoch),
		fmt.Sprintf("[%s] INFO [Broker id=1] Follower events-0 starts at leader epoch %d from offset %d with high watermark %d. Previous leader epoch was %d. (state.change.logger)", ts(15*time.Millisecond), epoch, 1000*epoch, 1000*epoch, epoch-1),
	}
}

// A log rotated under the screen 20 times, an election written after each
// rotation: every election is on screen within a second (issue 16: after
// a rename it used to take ~10 s half the time). Rename (log4j's
// RollingFileAppender), copytruncate (logrotate) and delete-recreate.
func TestRotationOnScreen(t *testing.T) {
	rotate := map[string]func(string) error{
		"rename": func(p string) error {
			if err := os.Rename(p, p+".1"); err != nil {
				return err
			}
			return os.WriteFile(p, nil, 0o644)
		},
		"copytruncate": func(p string) error {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(p+".1", b, 0o644); err != nil {
				return err
			}
			return os.Truncate(p, 0)
		},
		"delete-recreate": func(p string) error {
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.WriteFile(p, nil, 0o644)
		},
	}
	for _, kind := range []string{"rename", "copytruncate", "delete-recreate"} {
		t.Run(kind, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, "broker-1", "state-change.log")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			appendLines(t, path, nil)
			p, err := live.New(live.Config{Paths: []string{root}, Loc: time.UTC})
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
			m := New(p.Updates(), Options{Loc: time.UTC, Zone: "UTC (--tz)"})
			tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
			var seen bytes.Buffer
			onScreen := func(epoch int, within time.Duration) {
				t.Helper()
				// Elections of one partition this close together make a
				// burst row; the tab bar counts every election.
				row := regexp.MustCompile(fmt.Sprintf(`Elections %d[ (]`, epoch))
				teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
					seen.Write(b)
					return row.Match(seen.Bytes())
				}, teatest.WithDuration(within), teatest.WithCheckInterval(5*time.Millisecond))
				seen.Reset()
			}
			appendLines(t, path, rotationElection(1, time.Now()))
			onScreen(1, 10*time.Second) // following has begun
			for i := range 20 {
				if err := rotate[kind](path); err != nil {
					t.Fatal(err)
				}
				epoch := i + 2
				appendLines(t, path, rotationElection(epoch, time.Now()))
				onScreen(epoch, time.Second)
			}
			tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
			tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
		})
	}
}
