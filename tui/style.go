package tui

import (
	"io"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

type styles struct {
	title, dim, sel, head, tab, tabOn, live, paused, bad, warn, good, hint, match, inprog lipgloss.Style
	phase                                                                                 [12]lipgloss.Style
}

// PlainRenderer draws without colour or attributes.
func PlainRenderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	return r
}

func newStyles(r *lipgloss.Renderer) styles {
	if r == nil {
		r = PlainRenderer()
	}
	n := r.NewStyle
	s := styles{
		title:  n().Bold(true),
		dim:    n().Faint(true),
		sel:    n().Reverse(true),
		head:   n().Bold(true).Underline(true),
		tab:    n().Faint(true),
		tabOn:  n().Bold(true).Reverse(true),
		live:   n().Bold(true).Foreground(lipgloss.Color("2")),
		paused: n().Bold(true).Foreground(lipgloss.Color("3")),
		bad:    n().Bold(true).Foreground(lipgloss.Color("1")),
		warn:   n().Foreground(lipgloss.Color("3")),
		good:   n().Foreground(lipgloss.Color("2")),
		hint:   n().Faint(true),
		match:  n().Underline(true),
		inprog: n().Bold(true).Foreground(lipgloss.Color("6")),
	}
	colors := []string{"", "4", "6", "5", "3", "2", "2", "8", "12", "10", "1", "13"}
	for i := range s.phase {
		if colors[i] != "" {
			s.phase[i] = n().Foreground(lipgloss.Color(colors[i])).Bold(true)
		} else {
			s.phase[i] = n()
		}
	}
	return s
}
