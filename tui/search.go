package tui

import (
	"strconv"
	"strings"

	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

type query struct {
	text      string
	broker    int32
	partition int32
}

func parseQuery(q string) query {
	q = strings.ToLower(strings.TrimSpace(q))
	out := query{broker: parser.Unknown, partition: parser.Unknown}
	for _, pre := range []string{"broker:", "broker ", "b:"} {
		if rest, ok := strings.CutPrefix(q, pre); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
				out.broker = int32(n)
				return out
			}
		}
	}
	for _, pre := range []string{"partition:", "partition ", "p:"} {
		if rest, ok := strings.CutPrefix(q, pre); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
				out.partition = int32(n)
				return out
			}
		}
	}
	out.text = q
	return out
}

func (q query) episode(e *kept) bool {
	switch {
	case q.broker != parser.Unknown:
		return involves(e, q.broker)
	case q.partition != parser.Unknown:
		return e.Partition == q.partition
	}
	return strings.Contains(strings.ToLower(e.Topic+"-"+strconv.Itoa(int(e.Partition))), q.text)
}

func (q query) err(pe *timeline.ProducerError) bool {
	switch {
	case q.broker != parser.Unknown:
		return false
	case q.partition != parser.Unknown:
		return pe.Partition == q.partition
	}
	s := strings.ToLower(pe.Topic + "-" + strconv.Itoa(int(pe.Partition)) + " " + pe.ClientID + " " + pe.Error)
	return strings.Contains(s, q.text)
}

func (m *Model) rowMatches(q query, r row) bool {
	if r.kind == rowBurst {
		for _, c := range r.burst.eps {
			if q.episode(&c.e) {
				return true
			}
		}
		return false
	}
	return q.episode(&r.ep.e)
}

// jump moves to the next (d=1) or previous (d=-1) match, from the current
// row itself when fresh, wrapping around the ends (less, vim).
func (m *Model) jump(d int, fresh bool) bool {
	m.ensure()
	q := parseQuery(m.query)
	if m.view == viewDetail || m.view == viewHistogram {
		m.view = viewElections
	}
	start := 1
	if fresh {
		start = 0
	}
	switch m.view {
	case viewErrors:
		n := len(m.errRows)
		for step := start; step < n+start; step++ {
			i := ((m.errList.sel+d*step)%n + n) % n
			if q.err(m.errRows[i]) {
				m.wrapped(i, m.errList.sel, d)
				m.errList.sel = i
				m.errList.clamp(n, m.listHeight())
				return true
			}
		}
	default:
		n := len(m.rows)
		for step := start; step < n+start; step++ {
			i := ((m.elist.sel+d*step)%n + n) % n
			r := m.rows[i]
			if !m.rowMatches(q, r) {
				continue
			}
			m.wrapped(i, m.elist.sel, d)
			if r.kind == rowBurst && !m.burstOpen(r.burst) {
				// Open it and land on the first matching election inside.
				for _, c := range r.burst.eps {
					if q.episode(&c.e) {
						m.selectKey(c.e.Key)
						return true
					}
				}
			}
			m.elist.sel = i
			m.elist.clamp(n, m.listHeight())
			m.selID = r.id()
			m.follow = i == 0
			return true
		}
	}
	return false
}

func (m *Model) wrapped(to, from, d int) {
	if (d > 0 && to < from) || (d < 0 && to > from) {
		m.message = "search wrapped"
	}
}

func (m *Model) burstOpen(b *burst) bool { return m.expanded[b.id] != m.allOpen }

func (m *Model) jumpSlow(d int) bool {
	m.ensure()
	if m.view != viewElections {
		m.view = viewElections
	}
	now := m.now()
	for i := m.elist.sel + d; i >= 0 && i < len(m.rows); i += d {
		r := m.rows[i]
		hit := false
		if r.kind == rowBurst {
			for _, c := range r.burst.eps {
				if m.slowOrFailed(c, now) {
					hit = true
				}
			}
			if hit && !m.burstOpen(r.burst) {
				for _, c := range r.burst.eps {
					if m.slowOrFailed(c, now) {
						m.selectKey(c.e.Key)
						return true
					}
				}
			}
		} else {
			hit = m.slowOrFailed(r.ep, now)
		}
		if hit {
			m.elist.sel = i
			m.elist.clamp(len(m.rows), m.listHeight())
			m.selID = r.id()
			m.follow = i == 0
			return true
		}
	}
	return false
}
