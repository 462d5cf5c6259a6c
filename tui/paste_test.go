package tui

import (
	"os"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

type quitOnQ struct{ keys []string }

func (m *quitOnQ) Init() tea.Cmd { return nil }
func (m *quitOnQ) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		m.keys = append(m.keys, k.String())
		if k.String() == "q" || k.Type == tea.KeyCtrlC {
			return m, tea.Quit
		}
	}
	return m, nil
}
func (m *quitOnQ) View() string { return "" }

// A stray bracketed-paste start (ESC[200~ with no end) and then q: the
// program quits. Unguarded, bubbletea buffered everything after the start
// waiting for ESC[201~, and q and Ctrl-C were never seen.
func TestStrayPasteStartDoesNotSwallowKeys(t *testing.T) {
	for _, in := range []string{"\x1b[200~", "\x1b[200~x", "\x1b[200~ab\x1b[201~"} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		m := &quitOnQ{}
		p := tea.NewProgram(m, tea.WithInput(GuardPaste(r)), tea.WithOutput(discard{}), tea.WithoutRenderer(), tea.WithoutSignals())
		done := make(chan error, 1)
		go func() { _, err := p.Run(); done <- err }()
		w.WriteString(in)
		time.Sleep(100 * time.Millisecond)
		w.WriteString("q")
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			p.Kill()
			t.Fatalf("%q: the keys after a stray paste start were never seen", in)
		}
		w.Close()
		r.Close()
		if in == "\x1b[200~ab\x1b[201~" && (len(m.keys) != 2 || m.keys[0] != "ab") {
			t.Errorf("a whole paste: keys %q", m.keys)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// A marker split across two full reads is still dropped.
func TestPasteMarkerSplitAcrossReads(t *testing.T) {
	if k := markerPrefix([]byte("abc\x1b[20")); k != 4 {
		t.Errorf("prefix %d", k)
	}
	if got := string(stripMarkers([]byte("a\x1b[200~b\x1b[201~c\x1b[A"))); got != "abc\x1b[A" {
		t.Errorf("stripped %q", got)
	}
}
