package tui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/leaderaudit/leaderaudit/internal/live"
	"github.com/leaderaudit/leaderaudit/internal/livetest"
)

// A log rotated under the screen 20 times, an election written after each
// rotation: every election is on screen within a second (issue 16: after
// a rename it used to take ~10 s half the time), for each of
// livetest.Kinds.
func TestRotationOnScreen(t *testing.T) {
	for _, kind := range livetest.Kinds {
		t.Run(kind, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, "broker-1", "state-change.log")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			appendLines(t, path, nil)
			p := startLive(t, live.Config{Paths: []string{root}, Loc: time.UTC})
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
			appendLines(t, path, livetest.Election(1, time.Now()))
			onScreen(1, 10*time.Second) // following has begun
			for i := range 20 {
				if err := livetest.Rotate(kind, path); err != nil {
					t.Fatal(err)
				}
				epoch := i + 2
				appendLines(t, path, livetest.Election(epoch, time.Now()))
				onScreen(epoch, time.Second)
			}
			tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
			tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
		})
	}
}
