package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// lineEdit is a one-line text field (the search prompt, the filter form).
type lineEdit struct {
	prompt      string
	placeholder string
	value       []rune
	pos         int
	focused     bool
	limit       int
}

func (l *lineEdit) Value() string { return string(l.value) }

func (l *lineEdit) SetValue(s string) {
	l.value = []rune(s)
	l.pos = len(l.value)
}

func (l *lineEdit) Focus() { l.focused = true }
func (l *lineEdit) Blur()  { l.focused = false }

// key edits the field; it reports whether the key was used.
func (l *lineEdit) key(k tea.KeyMsg) bool {
	switch k.Type {
	case tea.KeyRunes, tea.KeySpace:
		r := k.Runes
		if k.Type == tea.KeySpace {
			r = []rune{' '}
		}
		var ins []rune
		for _, c := range r {
			if c >= 0x20 && c != 0x7f && !(c >= 0x80 && c <= 0x9f) {
				ins = append(ins, c)
			}
		}
		if l.limit > 0 && len(l.value)+len(ins) > l.limit {
			ins = ins[:max(0, l.limit-len(l.value))]
		}
		l.value = append(l.value[:l.pos], append(ins, l.value[l.pos:]...)...)
		l.pos += len(ins)
	case tea.KeyBackspace:
		if l.pos > 0 {
			l.value = append(l.value[:l.pos-1], l.value[l.pos:]...)
			l.pos--
		}
	case tea.KeyDelete:
		if l.pos < len(l.value) {
			l.value = append(l.value[:l.pos], l.value[l.pos+1:]...)
		}
	case tea.KeyLeft:
		l.pos = max(0, l.pos-1)
	case tea.KeyRight:
		l.pos = min(len(l.value), l.pos+1)
	case tea.KeyHome, tea.KeyCtrlA:
		l.pos = 0
	case tea.KeyEnd, tea.KeyCtrlE:
		l.pos = len(l.value)
	case tea.KeyCtrlU:
		l.value = append([]rune(nil), l.value[l.pos:]...)
		l.pos = 0
	case tea.KeyCtrlW:
		i := l.pos
		for i > 0 && l.value[i-1] == ' ' {
			i--
		}
		for i > 0 && l.value[i-1] != ' ' {
			i--
		}
		l.value = append(l.value[:i], l.value[l.pos:]...)
		l.pos = i
	default:
		return false
	}
	return true
}

// View draws the field with a block cursor when focused.
func (l *lineEdit) View() string {
	if len(l.value) == 0 && !l.focused && l.placeholder != "" {
		return l.prompt + l.placeholder
	}
	var b strings.Builder
	b.WriteString(l.prompt)
	b.WriteString(clean(string(l.value[:l.pos])))
	if l.focused {
		b.WriteString("▏")
	}
	b.WriteString(clean(string(l.value[l.pos:])))
	if len(l.value) == 0 && l.placeholder != "" {
		b.WriteString("  " + l.placeholder)
	}
	return b.String()
}
