package tui

import (
	"path"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/leaderaudit/leaderaudit/parser"
)

// filterForm edits the filter: topic glob, broker, only with producer
// errors, min duration.
type filterForm struct {
	inputs     [3]lineEdit
	withErrors bool
	focus      int // 0 topic, 1 broker, 2 min duration, 3 only-with-errors
	err        string
}

var formLabels = [...]string{"topic glob", "broker", "min duration", "only with producer errors"}

func newFilterForm(f filterState) *filterForm {
	ff := &filterForm{withErrors: f.withErrors}
	for i := range ff.inputs {
		ff.inputs[i] = lineEdit{limit: 200}
	}
	ff.inputs[0].placeholder = "orders*  (empty: all)"
	ff.inputs[1].placeholder = "3  (empty: all)"
	ff.inputs[2].placeholder = "500ms, 2s  (empty: none)"
	ff.inputs[0].SetValue(f.topic)
	if f.broker != parser.Unknown {
		ff.inputs[1].SetValue(strconv.Itoa(int(f.broker)))
	}
	if f.minDur > 0 {
		ff.inputs[2].SetValue(f.minDur.String())
	}
	ff.inputs[0].Focus()
	return ff
}

func (ff *filterForm) setFocus(i int) {
	ff.focus = (i + 4) % 4
	for j := range ff.inputs {
		if j == ff.focus {
			ff.inputs[j].Focus()
		} else {
			ff.inputs[j].Blur()
		}
	}
}

// parse reads the form into a filter.
func (ff *filterForm) parse() (filterState, string) {
	f := filterState{broker: parser.Unknown, withErrors: ff.withErrors}
	f.topic = strings.TrimSpace(ff.inputs[0].Value())
	if f.topic != "" {
		if _, err := path.Match(f.topic, ""); err != nil {
			return f, "topic glob: " + err.Error()
		}
	}
	if b := strings.TrimSpace(ff.inputs[1].Value()); b != "" {
		n, err := strconv.Atoi(b)
		if err != nil || n < 0 {
			return f, "broker: a broker id, like 3"
		}
		f.broker = int32(n)
	}
	if d := strings.TrimSpace(ff.inputs[2].Value()); d != "" {
		v, err := time.ParseDuration(d)
		if err != nil {
			if n, err2 := strconv.Atoi(d); err2 == nil {
				v, err = time.Duration(n)*time.Millisecond, nil
			}
		}
		if err != nil || v < 0 {
			return f, "min duration: like 500ms or 2s"
		}
		f.minDur = v
	}
	return f, ""
}

func (m *Model) formKey(k tea.KeyMsg) tea.Cmd {
	ff := m.form
	switch k.String() {
	case "esc":
		m.form = nil
		return nil
	case "enter":
		f, msg := ff.parse()
		if msg != "" {
			ff.err = msg
			return nil
		}
		m.filter = f
		m.form = nil
		m.follow = true
		m.dirty = true
		if f.active() {
			m.message = "filter on; f to change, empty fields to clear"
		} else {
			m.message = "filter off"
		}
		return nil
	case "tab", "down":
		ff.setFocus(ff.focus + 1)
		return nil
	case "shift+tab", "up":
		ff.setFocus(ff.focus - 1)
		return nil
	case " ", "space", "x":
		if ff.focus == 3 {
			ff.withErrors = !ff.withErrors
			return nil
		}
	}
	if ff.focus < 3 && ff.inputs[ff.focus].key(k) {
		ff.err = ""
	}
	return nil
}

// lines draws the form.
func (ff *filterForm) lines(st styles) []string {
	out := []string{st.title.Render("Filter elections") + "  (tab/↑↓ move · space toggles · enter apply · esc cancel)", ""}
	for i, l := range formLabels {
		mark := "  "
		if ff.focus == i {
			mark = "▸ "
		}
		var val string
		if i < 3 {
			val = ff.inputs[i].View()
		} else {
			val = "[ ]"
			if ff.withErrors {
				val = "[x]"
			}
		}
		out = append(out, mark+padRight(l, 26)+val)
	}
	if ff.err != "" {
		out = append(out, "", st.bad.Render(ff.err))
	}
	return out
}
