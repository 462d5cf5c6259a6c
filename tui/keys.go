package tui

// Key is one key binding, for the help overlay and the README.
type Key struct {
	Keys string
	Help string
}

// Keys lists the key bindings of the watch screen (lnav, k9s and less
// conventions).
var Keys = []Key{
	{"?", "help (this list); any key closes it"},
	{"q", "back (detail, help, form); quit from a list"},
	{"ctrl+c", "quit"},
	{"tab / shift+tab", "next / previous pane: elections, producer errors, histogram"},
	{"j k  ↓ ↑", "move down / up"},
	{"pgdn pgup  ctrl+d ctrl+u", "page down / up"},
	{"g G  home end", "top / bottom"},
	{"enter", "drill in: election detail; open a burst; on a producer error, jump to its election"},
	{"→ ←  l", "open / close a burst"},
	{"c", "open / close all bursts"},
	{"esc", "back; clear search"},
	{"/", "search: topic or topic-partition text, b:N broker, p:N partition"},
	{"n N", "next / previous match"},
	{"f", "filter: topic glob, broker, only with producer errors, min duration"},
	{"s", "sort: time (newest first), duration, producer errors"},
	{"space", "pause / resume the live view (following goes on)"},
	{"e E", "next / previous slow or failed election"},
	{"h", "histogram of election durations and slowest brokers"},
}

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
