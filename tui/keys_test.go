package tui

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// The README's key list is the one the screen dispatches with.
func TestREADMEKeysAreTheKeyTable(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := "```\nKeys\n" + KeysText() + "```\n"
	if !strings.Contains(string(b), want) {
		t.Errorf("README's key list is not KeysText(); it should read:\n%s", want)
	}
}

// Every key of the table dispatches to its own binding; ctrl+f, which
// paged but was missing from the help, pages like pgdn.
func TestKeysDispatchThroughTable(t *testing.T) {
	for i := range keyTable {
		for j := range keyTable[i].bindings {
			b := &keyTable[i].bindings[j]
			for _, k := range b.keys {
				if keyBindings[k] != b {
					t.Errorf("%q dispatches to another binding", k)
				}
			}
		}
	}
	var eps []*timeline.Episode
	for i := range 40 {
		eps = append(eps, episode(fmt.Sprintf("t%d", i), 0, 1, time.Duration(i)*5*time.Second, ms(20), 1, 2, parser.CauseControlledShutdown))
	}
	pages := func(k tea.KeyType) int {
		m := model(100, 14, snap(4*time.Minute, eps))
		m.ensure()
		m.key(tea.KeyMsg{Type: k})
		return m.elist.sel
	}
	if a, b := pages(tea.KeyCtrlF), pages(tea.KeyPgDown); a == 0 || a != b {
		t.Errorf("ctrl+f moved to row %d, pgdn to %d", a, b)
	}
	m := model(100, 30, snap(0, nil))
	press(m, "/") // ctrl+c quits even while searching
	if cmd := m.key(tea.KeyMsg{Type: tea.KeyCtrlC}); cmd == nil {
		t.Error("ctrl+c does not quit")
	}
}

// The hint bar names only keys the table binds.
func TestHintBarKeysAreBound(t *testing.T) {
	m := model(400, 30, snap(0, nil))
	for _, v := range []view{viewElections, viewDetail, viewHistogram} {
		m.view = v
		for _, item := range strings.Split(ansi.Strip(m.hintBar()), "  ") {
			keys, _, ok := strings.Cut(item, ":")
			if !ok {
				t.Fatalf("view %d: hint %q", v, item)
			}
			names := strings.Split(keys, "/")
			if keys == "/" {
				names = []string{"/"}
			}
			for _, k := range names {
				if keyBindings[k] == nil {
					t.Errorf("view %d: hint %q names %q, which no binding has", v, item, k)
				}
			}
		}
	}
}
