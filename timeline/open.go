package timeline

// EachOpen calls fn with every episode not yet finished, in no particular
// order: for live views that look at all of them often and need no sort
// (Open sorts).
func (t *Timeline) EachOpen(fn func(*Episode)) {
	for _, e := range t.episodes {
		fn(e)
	}
}

// EachOpenOf calls fn with the episodes of one partition not yet finished.
func (t *Timeline) EachOpenOf(tp TP, fn func(*Episode)) {
	if ps := t.parts[tp]; ps != nil {
		for _, e := range ps.open {
			fn(e)
		}
	}
}
