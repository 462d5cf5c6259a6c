package source

import (
	"bytes"
	"slices"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/logstore"
	"github.com/leaderaudit/leaderaudit/parser"
)

// A log store returns the rows of a window sorted by _time; rows of one
// stream with the same _time come back in the order of the shipper's
// offset when it sent one (logstore.Row.Ordered) and in no particular
// order when it did not. Such a run of rows (a tie) is held until a row
// with a later _time arrives, then put back in the order its lines say
// (parser.TieKey) before the stream's parser reads it.

// maxTie bounds the rows of one stream held for one _time: past it (a
// shipper that stamps rows with its own coarse clock) the rows held are
// read in the restored order and a new tie starts.
const maxTie = 1 << 14

type tieRow struct {
	row  logstore.Row // Msg is set from slab by order
	off  int          // Msg's place in slab
	n    int
	key  parser.TieKey
	cont bool // no header of its own: continues the record before it
	text []byte
}

type writerCorr struct {
	writer int32
	corr   int64
}

type tie struct {
	rows      []tieRow
	corr      []writerCorr
	slab      []byte
	unordered bool
	held      bool // in store.tied
}

// hold keeps a copy of row for the stream's current tie.
func (t *tie) hold(row *logstore.Row) {
	off := len(t.slab)
	t.slab = append(t.slab, row.Msg...)
	r := tieRow{row: *row, off: off, n: len(row.Msg)}
	r.row.Msg = nil
	t.rows = append(t.rows, r)
	if !row.Ordered {
		t.unordered = true
	}
}

// order sorts the tie's rows into the order their lines say. raw is the
// stream's state (its rows carry their own headers): a row without a
// header then continues a record, and goes after the tie's records; before
// the stream's first header, such rows are lines before it (a file that
// starts inside a stack trace) and come first.
func (t *tie) order(raw bool, loc *time.Location) {
	for i := range t.rows {
		r := &t.rows[i]
		r.row.Msg = t.slab[r.off : r.off+r.n : r.off+r.n]
	}
	if !t.unordered || len(t.rows) < 2 {
		return
	}
	t.keys(raw, loc)
	slices.SortStableFunc(t.rows, func(a, b tieRow) int {
		if a.cont != b.cont {
			if a.cont == raw {
				return 1
			}
			return -1
		}
		if a.key.Less(b.key) {
			return -1
		}
		if b.key.Less(a.key) {
			return 1
		}
		return bytes.Compare(a.row.Msg, b.row.Msg)
	})
}

// keys reads each row's key (Msg set).
func (t *tie) keys(raw bool, loc *time.Location) {
	var rec parser.Record
	headers := raw
	for i := range t.rows {
		r := &t.rows[i]
		if r.row.Msg == nil {
			r.row.Msg = t.slab[r.off : r.off+r.n : r.off+r.n]
		}
		r.text, _, _ = bytes.Cut(r.row.Msg, []byte{'\n'})
		if parser.ParseHeader(r.text, loc, &rec) {
			headers = true
			r.key = parser.TieKeyOf(rec.Msg)
		} else {
			r.cont = true
		}
	}
	writer, writers := parser.Unknown, 0
	for i := range t.rows {
		r := &t.rows[i]
		if r.cont && !headers {
			// A shipper that kept only the message: it is the record.
			r.cont = false
			r.key = parser.TieKeyOf(r.text)
		}
		if !r.cont && r.key.Side == 1 && r.key.Writer != parser.Unknown && r.key.Writer != writer {
			writer = r.key.Writer
			writers++
		}
	}
	// A line whose prefix names no broker ([Log partition=…]) was written
	// by the broker the others name, when they name one only; in a file
	// of several brokers' lines it stays apart.
	if writers == 1 {
		for i := range t.rows {
			if k := &t.rows[i].key; k.Side == 1 && k.Writer == parser.Unknown {
				k.Writer = writer
			}
		}
	}
	// The earliest LeaderAndIsr request each writer's lines name (few
	// writers: a slice, not a map, so a tie costs no allocation).
	corr := t.corr[:0]
	for i := range t.rows {
		r := &t.rows[i]
		if r.cont || !r.key.Request || r.key.Side != 1 {
			continue
		}
		j := 0
		for j < len(corr) && corr[j].writer != r.key.Writer {
			j++
		}
		if j == len(corr) {
			corr = append(corr, writerCorr{r.key.Writer, r.key.Corr})
		} else if r.key.Corr < corr[j].corr {
			corr[j].corr = r.key.Corr
		}
	}
	t.corr = corr
	// A broker line that names no request (a Partition line, a KRaft
	// delta's) belongs to the LeaderAndIsr request the millisecond's
	// other lines of its broker name, the earliest if they name several.
	follows := false
	for i := range t.rows {
		r := &t.rows[i]
		follows = follows || r.key.Follows
		if r.cont || r.key.Side != 1 || r.key.Corr >= 0 || r.key.Partition != nil || !r.key.Placed() {
			continue
		}
		for _, c := range corr {
			if c.writer == r.key.Writer {
				r.key.Corr = c.corr
			}
		}
	}
	if follows {
		t.pair()
	}
}

// pair gives each producer line that follows a retry line (TieKey.Follows)
// the correlation id of its retry: the i-th of a client's such lines for
// a partition (in the order of their text) the i-th retry for it (in correlation id
// order, the order the responses came in on the connection).
func (t *tie) pair() {
	retries := map[string][]int64{}
	name := func(k *parser.TieKey) string { return string(k.Client) + "\x00" + string(k.Partition) }
	for i := range t.rows {
		if k := &t.rows[i].key; k.Partition != nil && !k.Follows {
			retries[name(k)] = append(retries[name(k)], k.Corr)
		}
	}
	for _, cs := range retries {
		slices.Sort(cs)
	}
	var follow []int
	for i := range t.rows {
		if t.rows[i].key.Follows {
			follow = append(follow, i)
		}
	}
	slices.SortStableFunc(follow, func(a, b int) int { return bytes.Compare(t.rows[a].row.Msg, t.rows[b].row.Msg) })
	for _, i := range follow {
		k := &t.rows[i].key
		n := name(k)
		if cs := retries[n]; len(cs) > 0 {
			k.Corr = cs[0]
			retries[n] = cs[1:]
		}
	}
}

func (t *tie) reset() {
	clear(t.rows)
	t.rows = t.rows[:0]
	t.slab = t.slab[:0]
	t.unordered = false
}

// tieRow takes one row of the store's answer: rows with a later _time
// than those held end every stream's tie first.
func (s *store) tieRow(x *storeStream, row *logstore.Row) {
	if !row.Time.Equal(s.tieTime) {
		s.endTies()
		s.tieTime = row.Time
	}
	t := &x.tie
	if row.Ordered && len(t.rows) == 0 {
		s.feed(x, row)
		return
	}
	if len(t.rows) >= maxTie {
		s.endTie(x)
	}
	t.hold(row)
	if !t.held {
		t.held = true
		s.tied = append(s.tied, x)
	}
}

// endTies reads every stream's held tie.
func (s *store) endTies() {
	for _, x := range s.tied {
		s.endTie(x)
		x.tie.held = false
	}
	clear(s.tied)
	s.tied = s.tied[:0]
}

func (s *store) endTie(x *storeStream) {
	t := &x.tie
	if len(t.rows) == 0 {
		return
	}
	t.order(x.raw, x.src.Loc)
	for i := range t.rows {
		s.feed(x, &t.rows[i].row)
	}
	t.reset()
}

// TieOrder holds one stream's rows that share a _time and gives them back
// in the order their lines say, for a follower of a store's tail: the tail
// answers in _time order only, so its rows' order within a millisecond is
// never the shipper's, whatever offset it sent.
type TieOrder struct{ t tie }

// Hold keeps a copy of row.
func (o *TieOrder) Hold(row *logstore.Row) {
	o.t.hold(row)
	o.t.unordered = true
}

// Len is the number of rows held.
func (o *TieOrder) Len() int { return len(o.t.rows) }

// Release hands the rows held to fn in their lines' order (raw and loc as
// for RowLines: the stream's state and zone) and forgets them; fn must not
// keep a row's Msg.
func (o *TieOrder) Release(raw bool, loc *time.Location, fn func(*logstore.Row)) {
	o.t.order(raw, loc)
	for i := range o.t.rows {
		fn(&o.t.rows[i].row)
	}
	o.t.reset()
}
