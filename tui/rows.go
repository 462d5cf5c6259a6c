package tui

import (
	"cmp"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/feed"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

type epRec struct {
	e kept
	// took is e.Took(), worked out once per change: every frame sorts and
	// sums it over bursts of thousands.
	took time.Duration
	seq  int // arrival order, for the cap
	// finished by the timeline; complete: see feed.Progress, as of the
	// snapshot that last changed it.
	finished, complete bool
	more               *epMore // nil for most
}

// epMore is what few elections have.
type epMore struct {
	waiting []int32                   // feed.Progress.Waiting
	errs    []*timeline.ProducerError // matched to it, as they came
}

func (r *epRec) waiting() []int32 {
	if r.more == nil {
		return nil
	}
	return r.more.waiting
}

func (r *epRec) errs() []*timeline.ProducerError {
	if r.more == nil {
		return nil
	}
	return r.more.errs
}

func (r *epRec) setWaiting(w []int32) {
	switch {
	case len(w) > 0 && r.more == nil:
		r.more = &epMore{waiting: w}
	case r.more != nil:
		r.more.waiting = w
		if len(w) == 0 && r.more.errs == nil {
			r.more = nil
		}
	}
}

func (r *epRec) addErr(pe *timeline.ProducerError) {
	if r.more == nil {
		r.more = &epMore{}
	}
	r.more.errs = append(r.more.errs, pe)
}

type burst struct {
	id    timeline.Key // first episode's key: stable as the burst grows
	eps   []*epRec     // newest first
	start time.Time
	cause parser.Cause
}

type rowKind uint8

type row struct {
	kind  rowKind
	ep    *epRec
	burst *burst
	child bool
}

type rowID struct {
	kind rowKind
	key  timeline.Key
}

func (r row) id() rowID {
	if r.kind == rowBurst {
		return rowID{rowBurst, r.burst.id}
	}
	return rowID{rowEpisode, r.ep.e.Key}
}

type filterState struct {
	topic      string
	broker     int32
	withErrors bool
	minDur     time.Duration
}

func (f filterState) active() bool {
	return f.topic != "" || f.broker != parser.Unknown || f.withErrors || f.minDur > 0
}

// list is a scrollable selection over n rows.
type list struct {
	sel, top int
}

func (l *list) clamp(n, height int) {
	if l.sel >= n {
		l.sel = n - 1
	}
	if l.sel < 0 {
		l.sel = 0
	}
	if height < 1 {
		height = 1
	}
	if l.sel < l.top {
		l.top = l.sel
	}
	if l.sel >= l.top+height {
		l.top = l.sel - height + 1
	}
	if l.top > max(0, n-height) {
		l.top = max(0, n-height)
	}
	if l.top < 0 {
		l.top = 0
	}
}

func (m *Model) upsert(e *timeline.Episode, finished bool, prog feed.Progress) {
	r := m.eps[e.Key]
	if r == nil {
		m.seq++
		r = &epRec{seq: m.seq}
		m.eps[e.Key] = r
	}
	r.e.keep(e)
	r.finished = r.finished || finished
	r.complete = prog.Complete
	r.setWaiting(prog.Waiting)
	r.took = e.Took()
}

// prune drops what is older than Keep, and the oldest past the caps.
func (m *Model) prune() {
	now := m.now()
	if now.IsZero() {
		return
	}
	cut := now.Add(-m.opt.Keep)
	for k, r := range m.eps {
		if m.done(r, now) && r.e.End().Before(cut) {
			delete(m.eps, k)
		}
	}
	if over := len(m.eps) - m.opt.MaxEpisodes; over > 0 {
		all := make([]*epRec, 0, len(m.eps))
		for _, r := range m.eps {
			all = append(all, r)
		}
		sort.Slice(all, func(i, j int) bool { return all[i].seq < all[j].seq })
		for _, r := range all[:over] {
			delete(m.eps, r.e.Key)
		}
	}
	n := 0
	for _, pe := range m.errs {
		if !pe.Time.Before(cut) {
			m.errs[n] = pe
			n++
		}
	}
	clear(m.errs[n:])
	m.errs = m.errs[:n]
	if over := len(m.errs) - m.opt.MaxErrors; over > 0 {
		m.errs = append(m.errs[:0:0], m.errs[over:]...)
	}
}

func (m *Model) keepEpisode(r *epRec, now time.Time) bool {
	e := &r.e
	if !e.Transition {
		return false // only re-stated by metadata caches: not an election
	}
	f := m.filter
	if f.topic != "" {
		if ok, _ := path.Match(f.topic, e.Topic); !ok {
			return false
		}
	}
	if f.broker != parser.Unknown && !involves(e, f.broker) {
		return false
	}
	if f.withErrors && e.ProducerErrors == 0 && len(r.errs()) == 0 {
		return false
	}
	if f.minDur > 0 && m.dur(r, now) < f.minDur {
		return false
	}
	return true
}

func involves(e *kept, b int32) bool {
	if e.Leader == b || e.PreviousLeader == b || e.Controller == b {
		return true
	}
	for i := range e.brokers {
		if e.brokers[i].Broker == b {
			return true
		}
	}
	return e.causeNames(b)
}

func errCount(r *epRec) int { return max(int(r.e.ProducerErrors), len(r.errs())) }

// rebuild recomputes the rows from the data, keeping the selection.
func (m *Model) rebuild() {
	m.dirty = false
	m.gen++
	now := m.now()
	// It runs for every snapshot that changed an election: with tens of
	// thousands kept, one slice and a sort without reflection.
	eps := make([]*epRec, 0, len(m.eps))
	for _, r := range m.eps {
		if m.keepEpisode(r, now) {
			eps = append(eps, r)
		}
	}
	// Newest first; a total order (keys are unique), so any sort gives
	// the same rows.
	newer := func(a, b *epRec) int {
		if c := b.e.Start.Compare(a.e.Start); c != 0 {
			return c
		}
		if c := strings.Compare(a.e.Topic, b.e.Topic); c != 0 {
			return c
		}
		if c := cmp.Compare(a.e.Partition, b.e.Partition); c != 0 {
			return c
		}
		return cmp.Compare(b.e.LeaderEpoch, a.e.LeaderEpoch)
	}
	var rows []row
	switch m.sort {
	case sortDuration:
		slices.SortFunc(eps, func(a, b *epRec) int {
			if c := cmp.Compare(m.dur(b, now), m.dur(a, now)); c != 0 {
				return c
			}
			return newer(a, b)
		})
	case sortErrors:
		slices.SortFunc(eps, func(a, b *epRec) int {
			if c := cmp.Compare(errCount(b), errCount(a)); c != 0 {
				return c
			}
			return newer(a, b)
		})
	default:
		slices.SortFunc(eps, newer)
	}
	if m.sort == sortTime {
		for _, b := range m.bursts(eps) {
			if len(b.eps) == 1 {
				rows = append(rows, row{kind: rowEpisode, ep: b.eps[0]})
				continue
			}
			rows = append(rows, row{kind: rowBurst, burst: b})
			if m.expanded[b.id] != m.allOpen {
				for _, r := range b.eps {
					rows = append(rows, row{kind: rowEpisode, ep: r, child: true})
				}
			}
		}
	} else {
		for _, r := range eps {
			rows = append(rows, row{kind: rowEpisode, ep: r})
		}
	}
	m.rows = rows
	// Keep the selection on the same row, or on the newest when following.
	if m.follow && !m.paused {
		m.elist.sel = 0
	} else {
		found := false
		for i, r := range rows {
			if r.id() == m.selID {
				m.elist.sel = i
				found = true
				break
			}
		}
		if !found && m.selID.kind == rowEpisode {
			// Inside a collapsed burst now: select the burst.
			for i, r := range rows {
				if r.kind == rowBurst {
					for _, c := range r.burst.eps {
						if c.e.Key == m.selID.key {
							m.elist.sel = i
						}
					}
				}
			}
		}
	}
	m.elist.clamp(len(rows), m.listHeight())
	if len(rows) > 0 {
		m.selID = rows[m.elist.sel].id()
	}
	m.follow = m.elist.sel == 0

	// Producer errors, newest first.
	var errs []*timeline.ProducerError
	for _, pe := range m.errs {
		if m.filter.topic != "" {
			if ok, _ := path.Match(m.filter.topic, pe.Topic); !ok {
				continue
			}
		}
		if m.filter.broker != parser.Unknown {
			if pe.Election == nil {
				continue
			}
			if r := m.eps[*pe.Election]; r == nil || !involves(&r.e, m.filter.broker) {
				continue
			}
		}
		errs = append(errs, pe)
	}
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Time.After(errs[j].Time) })
	m.errRows = errs
	m.errList.clamp(len(errs), m.listHeight())
}

// bursts groups episodes (newest first) into bursts by the timeline's
// rule (timeline.InBurst, Burst.Joins), so the screen shows the bursts the
// report counts; an election outside bursts (a re-sent one) stands alone
// without splitting the burst around it.
func (m *Model) bursts(eps []*epRec) []*burst {
	asc := make([]*epRec, len(eps))
	for i, r := range eps {
		asc[len(eps)-1-i] = r
	}
	var out []*burst
	var cur *burst
	var span *timeline.Burst
	var p timeline.Episode
	for _, r := range asc {
		e := r.e.probe(&p)
		if !timeline.InBurst(e) {
			out = append(out, &burst{id: e.Key, start: e.Start, cause: e.Cause, eps: []*epRec{r}})
			continue
		}
		if span != nil && span.Joins(e, m.opt.BurstGap) {
			span.Add(e)
		} else {
			span = timeline.StartBurst(0, e)
			cur = &burst{id: e.Key, start: e.Start, cause: e.Cause}
			out = append(out, cur)
		}
		cur.eps = append(cur.eps, r)
	}
	// Newest first, inside and out.
	for _, b := range out {
		for i, j := 0, len(b.eps)-1; i < j; i, j = i+1, j-1 {
			b.eps[i], b.eps[j] = b.eps[j], b.eps[i]
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func (m *Model) ensure() {
	if m.dirty {
		m.rebuild()
	}
}

// selected returns the election the current view is about.
func (m *Model) selected() *epRec {
	switch m.view {
	case viewDetail:
		if m.detailKey != nil {
			return m.eps[*m.detailKey]
		}
		return nil
	case viewErrors:
		if pe := m.selectedErr(); pe != nil && pe.Election != nil {
			return m.eps[*pe.Election]
		}
		return nil
	}
	if m.elist.sel < len(m.rows) {
		r := m.rows[m.elist.sel]
		if r.kind == rowBurst {
			// The burst's slowest election.
			var best *epRec
			now := m.now()
			for _, c := range r.burst.eps {
				if best == nil || m.dur(c, now) > m.dur(best, now) {
					best = c
				}
			}
			return best
		}
		return r.ep
	}
	return nil
}

func (m *Model) selectedErr() *timeline.ProducerError {
	if m.view == viewDetail {
		return m.detailErr
	}
	if m.errList.sel < len(m.errRows) {
		return m.errRows[m.errList.sel]
	}
	return nil
}
