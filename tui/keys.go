package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// binding is keys that do one thing on the lists and the detail.
type binding struct {
	keys []string // as bubbletea names them (tea.KeyMsg.String())
	do   func(m *Model) tea.Cmd
	// always: also while help, search or a form is up.
	always bool
}

// keyLine is one line of the help: bindings that go together, such as
// down and up, and what they do.
type keyLine struct {
	bindings []binding
	help     string
}

// act adapts an action that starts no command.
func act(f func(m *Model)) func(m *Model) tea.Cmd {
	return func(m *Model) tea.Cmd { f(m); return nil }
}

// keyTable is the one list of key bindings (lnav, k9s and less
// conventions): the screen dispatches keys with it and the help, Keys and
// the README's list are written from it, so they cannot disagree.
var keyTable = []keyLine{
	{[]binding{{keys: []string{"?"}, do: act(func(m *Model) { m.help = true })}}, "help (this list); any key closes it"},
	{[]binding{{keys: []string{"q"}, do: func(m *Model) tea.Cmd {
		if m.view == viewDetail {
			m.view = m.back
			return nil
		}
		return tea.Quit
	}}}, "back (detail, help, form); quit from a list"},
	{[]binding{{keys: []string{"ctrl+c"}, do: func(*Model) tea.Cmd { return tea.Quit }, always: true}}, "quit"},
	{[]binding{
		{keys: []string{"tab"}, do: act(func(m *Model) { m.switchView(1) })},
		{keys: []string{"shift+tab"}, do: act(func(m *Model) { m.switchView(-1) })},
	}, "next / previous pane: elections, producer errors, histogram"},
	{[]binding{
		{keys: []string{"j", "down"}, do: act(func(m *Model) { m.move(1) })},
		{keys: []string{"k", "up"}, do: act(func(m *Model) { m.move(-1) })},
	}, "move down / up"},
	{[]binding{
		{keys: []string{"pgdown", "ctrl+d"}, do: act(pageDown)},
		{keys: []string{"pgup", "ctrl+u"}, do: act(pageUp)},
	}, "page down / up"},
	{[]binding{
		{keys: []string{"ctrl+f"}, do: act(pageDown)},
		{keys: []string{"ctrl+b"}, do: act(pageUp)},
	}, "page down / up, as in less"},
	{[]binding{
		{keys: []string{"g", "home"}, do: act(func(m *Model) { m.move(-1 << 30) })},
		{keys: []string{"G", "end"}, do: act(func(m *Model) { m.move(1 << 30) })},
	}, "top / bottom"},
	{[]binding{{keys: []string{"enter"}, do: act(func(m *Model) { m.enter() })}},
		"drill in: election detail; open a burst; on a producer error, jump to its election"},
	{[]binding{
		{keys: []string{"right", "l"}, do: act(func(m *Model) { m.toggleBurst(true) })},
		{keys: []string{"left"}, do: act(func(m *Model) { m.toggleBurst(false) })},
	}, "open / close a burst"},
	{[]binding{{keys: []string{"c"}, do: act(func(m *Model) {
		m.allOpen = !m.allOpen
		clear(m.expanded)
		m.dirty = true
	})}}, "open / close all bursts"},
	{[]binding{{keys: []string{"esc"}, do: act(func(m *Model) {
		switch {
		case m.view == viewDetail:
			m.view = m.back
		case m.query != "":
			m.query = ""
		case m.view == viewHistogram:
			m.view = viewElections
		}
	})}}, "back; clear search"},
	{[]binding{{keys: []string{"/"}, do: act(func(m *Model) {
		m.searching = true
		m.search.SetValue("")
		m.search.Focus()
	})}}, "search: topic or topic-partition text, b:N broker, p:N partition"},
	{[]binding{
		{keys: []string{"n"}, do: act(func(m *Model) {
			if m.query != "" && !m.jump(1, false) {
				m.message = "no more matches for " + clean(m.query)
			}
		})},
		{keys: []string{"N"}, do: act(func(m *Model) {
			if m.query != "" && !m.jump(-1, false) {
				m.message = "no earlier match for " + clean(m.query)
			}
		})},
	}, "next / previous match"},
	{[]binding{{keys: []string{"f"}, do: act(func(m *Model) { m.form = newFilterForm(m.filter) })}},
		"filter: topic glob, broker, only with producer errors, min duration"},
	{[]binding{{keys: []string{"s"}, do: act(func(m *Model) {
		m.sort = (m.sort + 1) % sortBy(len(sortNames))
		m.follow = true
		m.dirty = true
		m.message = "sorted by " + sortNames[m.sort]
	})}}, "sort: time (newest first), duration, producer errors"},
	{[]binding{{keys: []string{" ", "space"}, do: act(func(m *Model) { m.togglePause() })}},
		"pause / resume the live view (following goes on)"},
	{[]binding{
		{keys: []string{"e"}, do: act(func(m *Model) {
			if !m.jumpSlow(1) {
				m.message = "no slow or failed election below"
			}
		})},
		{keys: []string{"E"}, do: act(func(m *Model) {
			if !m.jumpSlow(-1) {
				m.message = "no slow or failed election above"
			}
		})},
	}, "next / previous slow or failed election"},
	{[]binding{{keys: []string{"h"}, do: act(func(m *Model) {
		if m.view == viewHistogram {
			m.view = viewElections
		} else {
			m.view = viewHistogram
		}
	})}}, "histogram of election durations and slowest brokers"},
}

func pageDown(m *Model) { m.move(max(1, m.listHeight()-1)) }
func pageUp(m *Model)   { m.move(-max(1, m.listHeight()-1)) }

// keyBindings finds a key's binding.
var keyBindings = func() map[string]*binding {
	out := map[string]*binding{}
	for i := range keyTable {
		for j := range keyTable[i].bindings {
			b := &keyTable[i].bindings[j]
			for _, k := range b.keys {
				if out[k] != nil {
					panic("tui: key " + k + " bound twice")
				}
				out[k] = b
			}
		}
	}
	return out
}()

// Key is one line of the key help, for the help overlay and the README.
type Key struct {
	Keys string
	Help string
}

// keyNames are the help's names for keys bubbletea spells otherwise.
var keyNames = map[string]string{"down": "↓", "up": "↑", "right": "→", "left": "←", "pgdown": "pgdn", " ": "space"}

// Keys lists the key bindings of the watch screen, written from keyTable:
// a line's bindings side by side, then their other keys ("j k  ↓ ↑").
var Keys = func() []Key {
	var out []Key
	for _, l := range keyTable {
		var cols [][]string
		for _, b := range l.bindings {
			var names []string
			for _, k := range b.keys {
				n := k
				if kn, ok := keyNames[k]; ok {
					n = kn
				}
				if len(names) == 0 || names[len(names)-1] != n {
					names = append(names, n)
				}
			}
			for i, n := range names {
				if i == len(cols) {
					cols = append(cols, nil)
				}
				cols[i] = append(cols[i], n)
			}
		}
		var parts []string
		for _, c := range cols {
			parts = append(parts, strings.Join(c, " "))
		}
		out = append(out, Key{Keys: strings.Join(parts, "  "), Help: l.help})
	}
	return out
}()

// KeysText renders Keys as a plain two-column list.
func KeysText() string {
	w := 0
	for _, k := range Keys {
		w = max(w, len([]rune(k.Keys)))
	}
	s := ""
	for _, k := range Keys {
		s += "  " + k.Keys + spaces(w-len([]rune(k.Keys))+2) + k.Help + "\n"
	}
	return s
}

func spaces(n int) string {
	if n <= 0 {
		return ""
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = ' '
	}
	return string(b)
}
