package source

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/logstore"
	"github.com/leaderaudit/leaderaudit/parser"
)

// DefaultIdentityFields are the stream fields that say which broker or
// client a stream's lines come from, in the order they are joined into
// its name (Kubernetes, Docker, systemd and most shippers set one).
var DefaultIdentityFields = []string{"host", "pod", "container", "service"}

// fileFields name the file a stream was read from (Filebeat, Promtail,
// Vector, Fluent Bit): a stream of state-change.log is recognised by it
// as a file of that name is.
var fileFields = []string{"log.file.path", "filename", "file", "path"}

// StoreInput is a query against a log store, audited as one input per
// stream the query matches.
type StoreInput struct {
	Store logstore.Store
	Query logstore.Query
	Read  logstore.ReadOptions
	// IdentityFields: see DefaultIdentityFields (used when empty).
	IdentityFields []string
	// RowFilter narrows the rows read (not the streams listed, nor the
	// window): a filter AND-ed with Query.Text (logstore.Pushdown).
	RowFilter string
	// Hints: eras that rows RowFilter leaves out would have marked; the
	// streams that hold such rows are asked for and given them.
	Hints []parser.EraHint
	// Hold is how far behind the newest row an event may be and still be
	// put in its place among the other streams' events: the most a
	// line's own timestamp may precede the store's _time (a shipper that
	// stamps rows when it reads them). Default 2 s.
	Hold time.Duration
}

// StoreStatus is what came of reading a store.
type StoreStatus struct {
	Name  string
	Query logstore.Query
	// Streams the query matched, and Rows read from them.
	Streams int
	Rows    int64
	// Skipped: lines of the server's answers that were not a row.
	Skipped int64
	// Forced: events handed on before their turn because too many were
	// waiting for a quiet stream (ordering is approximate past it).
	Forced int64
	// Err: the read failed; Partial says rows before the failure were
	// audited (the report covers them and is incomplete).
	Err     error
	Partial bool
}

type store struct {
	in      StoreInput
	status  *StoreStatus
	streams map[string]*storeStream
	pending map[*storeStream]bool
	wait    merger[*storeStream]
	queued  int
	ident   []string
	// tieTime is the _time of the rows held in the streams' ties; tied
	// the streams holding some.
	tieTime time.Time
	tied    []*storeStream
	// spans: each stream's first and last row, when RowFilter leaves
	// rows out (the source's time span is its rows', which the verdicts
	// read: the end of the logs, what a broker's log covers).
	spans map[string]logstore.Span
}

// spanner is a store that can give each stream's first and last row
// time without reading them (logstore.VLogs).
type spanner interface {
	Spans(ctx context.Context, q logstore.Query) (map[string]logstore.Span, error)
}

type storeStream struct {
	src  *Source
	p    *parser.Parser
	rel  string
	raw  bool // a row carried its own header: rows without one continue it
	q    []Item
	head int
	in   bool // in store.wait
	tie  tie
}

// maxQueued bounds the events held back for ordering; past it the
// earliest is handed on even if a stream still holds an earlier record.
const maxQueued = 1 << 16

// AddStore asks the store which streams q matches (and, without a window,
// when its rows start and end) and adds an input for each. It reads no
// rows yet; Run does.
func (r *Reader) AddStore(ctx context.Context, in StoreInput) (*StoreStatus, error) {
	st := &StoreStatus{Name: in.Store.String(), Query: in.Query}
	q := &in.Query
	if q.Start.IsZero() || q.End.IsZero() {
		first, last, ok, err := in.Store.Extent(ctx, *q)
		if err != nil {
			return st, err
		}
		if !ok {
			st.Query = *q
			return st, nil
		}
		if q.Start.IsZero() {
			q.Start = first
		}
		if q.End.IsZero() {
			q.End = last.Add(time.Nanosecond)
		}
	}
	st.Query = *q
	ss, err := in.Store.Streams(ctx, *q)
	if err != nil {
		return st, err
	}
	if len(in.IdentityFields) == 0 {
		in.IdentityFields = DefaultIdentityFields
	}
	if in.Hold <= 0 {
		in.Hold = 2 * time.Second
	}
	s := &store{in: in, status: st, streams: map[string]*storeStream{}, pending: map[*storeStream]bool{}, ident: in.IdentityFields}
	s.wait.head = func(x *storeStream) *Item { return &x.q[x.head] }
	// Source indices follow the names, as files' follow their paths, so
	// events with equal times come in the same order as from files.
	sort.SliceStable(ss, func(i, j int) bool {
		return StreamName(s.ident, ss[i].Fields, ss[i].Name) < StreamName(s.ident, ss[j].Fields, ss[j].Name)
	})
	for _, x := range ss {
		if x.Rows == 0 {
			continue
		}
		r.addStream(s, x.Name, x.Fields)
	}
	st.Streams = len(s.streams)
	if sp, ok := in.Store.(spanner); ok && in.RowFilter != "" && len(s.streams) > 0 {
		if s.spans, err = sp.Spans(ctx, *q); err != nil {
			return st, err
		}
	}
	for _, h := range in.Hints {
		if len(s.streams) == 0 {
			break
		}
		hq := *q
		hq.Text = logstore.And(q.Text, logstore.HintFilter(h.Logger, h.MsgPrefix))
		if a, ok := in.Store.(anyRow); ok {
			// One stream at a time, each search ending at its first
			// match, instead of counting every match of every stream.
			for _, x := range ss {
				y := s.streams[x.Name]
				if y == nil || y.p.Stats.Eras&h.Era != 0 {
					continue
				}
				sq := hq
				sq.Text = logstore.And(hq.Text, "_stream:"+x.Name)
				found, err := a.Any(ctx, sq)
				if err != nil {
					return st, err
				}
				if found {
					y.p.Stats.Eras |= h.Era
				}
			}
			continue
		}
		hs, err := in.Store.Streams(ctx, hq)
		if err != nil {
			return st, err
		}
		for _, x := range hs {
			if y := s.streams[x.Name]; y != nil && x.Rows > 0 {
				y.p.Stats.Eras |= h.Era
			}
		}
	}
	if len(s.streams) > 0 {
		r.stores = append(r.stores, s)
	}
	return st, nil
}

// rowTime is the time the header of msg's first line gives, read in
// loc; t (the store's _time) when it has none.
func rowTime(msg string, t time.Time, loc *time.Location) time.Time {
	line, _, _ := strings.Cut(msg, "\n")
	var rec parser.Record
	if parser.ParseHeader([]byte(line), loc, &rec) {
		return rec.When()
	}
	return t.In(loc)
}

// anyRow is a store that can say whether a query matches any row without
// counting them all (logstore.VLogs).
type anyRow interface {
	Any(ctx context.Context, q logstore.Query) (bool, error)
}

// StreamName names a stream as an input: a path-like name built from the
// identity fields and the file field (broker-1/state-change.log), so file
// kinds, --broker and --tz globs and broker ids from paths work as for
// files; the store's own spelling when no such field is there.
func StreamName(ident []string, fields map[string]string, stream string) string {
	var parts []string
	for _, f := range ident {
		if v := fields[f]; v != "" {
			parts = append(parts, v)
		}
	}
	for _, f := range fileFields {
		if v := fields[f]; v != "" {
			parts = append(parts, strings.TrimPrefix(path.Clean("/"+v), "/"))
			break
		}
	}
	if len(parts) == 0 {
		return stream
	}
	return strings.Join(parts, "/")
}

func (r *Reader) addStream(s *store, name string, fields map[string]string) *storeStream {
	rel := StreamName(s.ident, fields, name)
	full := s.status.Name + "/" + rel
	for _, x := range s.streams {
		if x.rel == rel {
			// Two streams differ only in fields that are not part of the
			// name: keep them apart.
			rel += " " + name
			full = s.status.Name + "/" + rel
			break
		}
	}
	src := &Source{Input: Input{Path: full, Chain: full, Remote: true}, Index: len(r.Sources)}
	if r.LocFor != nil {
		src.Loc = r.LocFor(rel)
	}
	if src.Loc == nil {
		src.Loc = time.Local
	}
	src.Read = true
	r.Sources = append(r.Sources, src)
	p := parser.New(src.Loc)
	p.PathBroker = r.brokerFor(rel)
	x := &storeStream{src: src, p: p, rel: rel}
	s.streams[name] = x
	return x
}

// readStore reads the rows of a store in time order, feeds each stream's
// rows to that stream's parser, and hands the events on in the order the
// merge of files would: per stream in the stream's order, across streams
// by time then source index. A stream's event is handed on only once no
// stream can still produce an earlier one: the rows come sorted by time,
// so that is once the rows have moved Hold past it and no stream holds
// back an earlier record (Parser.Pending).
func (r *Reader) readStore(ctx context.Context, s *store, out chan<- []Item) {
	defer close(out)
	bt := newBatcher(out, r.budget)
	send := bt.send
	var rows int64
	q := s.in.Query
	q.Text = logstore.And(q.Text, s.in.RowFilter)
	n, err := logstore.Read(ctx, s.in.Store, q, s.in.Read, func(row *logstore.Row) error {
		x := s.streams[row.Stream]
		if x == nil {
			// A stream that started after the listing.
			f, err := logstore.ParseStreamName(row.Stream)
			if err != nil {
				f = nil
			}
			x = r.addStream(s, row.Stream, f)
			s.status.Streams++
		}
		s.tieRow(x, row)
		rows++
		if rows&63 == 0 || s.queued > maxQueued {
			s.release(s.watermark(row.Time), send)
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	s.endTies()
	for name, x := range s.streams {
		x.p.Flush(func(ev *parser.Event) { s.enqueue(x, ev) })
		x.src.Stats = x.p.Stats
		if sp, ok := s.spans[name]; ok {
			// The rows' own stamps, in the stream's zone, as the
			// parser reads them; _time where a row has none.
			st := &x.src.Stats
			first, last := rowTime(sp.FirstMsg, sp.First, x.src.Loc), rowTime(sp.LastMsg, sp.Last, x.src.Loc)
			if st.First.IsZero() || first.Before(st.First) {
				st.First = first
			}
			if last.After(st.Last) {
				st.Last = last
			}
		}
	}
	s.release(time.Time{}, send)
	bt.flush()
	s.status.Rows = n
	if sk, ok := s.in.Store.(interface{ Skipped() int64 }); ok {
		s.status.Skipped = sk.Skipped()
	}
	if ctx.Err() != nil {
		s.status.Partial = n > 0
		for _, x := range s.streams {
			x.src.Err = &interruptedError{fmt.Sprintf("interrupted after %d rows of the store's answer (%d of this stream's lines read); what was read is audited", n, x.src.Stats.Lines)}
		}
		return
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		s.status.Err = err
		var pe *logstore.PartialError
		var me *logstore.MissingError
		s.status.Partial = errors.As(err, &pe) || errors.As(err, &me) || n > 0
		for _, x := range s.streams {
			x.src.Err = fmt.Errorf("log store: %w", err)
		}
	}
}

// feed parses one row.
func (s *store) feed(x *storeStream, row *logstore.Row) {
	emit := func(ev *parser.Event) { s.enqueue(x, ev) }
	RowLines(row, &x.raw, x.src.Loc, func(line []byte) {
		x.src.Bytes += int64(len(line)) + 1
		x.p.Line(line, emit)
	})
	if _, ok := x.p.Pending(); ok {
		s.pending[x] = true
	} else {
		delete(s.pending, x)
	}
}

// RowLines calls fn with the lines of a row as its log file held them. A
// _msg may hold several lines (a shipper joined a stack trace or a config
// block). One with no header of its own (the shipper parsed the line and
// kept only the message) gets a JSON header from _time and the level and
// logger fields, unless the stream's rows carry headers (*raw, set by the
// first that does): then it continues the record before it, as a line of
// a stack trace shipped on its own would.
func RowLines(row *logstore.Row, raw *bool, loc *time.Location, fn func(line []byte)) {
	msg := row.Msg
	first := true
	for {
		line, rest, more := bytes.Cut(msg, []byte{'\n'})
		if first {
			first = false
			if !*raw {
				var rec parser.Record
				if parser.ParseHeader(line, loc, &rec) {
					*raw = true
				} else {
					line = wrapJSON(row, line)
				}
			}
		}
		fn(line)
		if !more {
			return
		}
		msg = rest
	}
}

// wrapJSON gives a header-less message the parser's JSON layout.
func wrapJSON(row *logstore.Row, msg []byte) []byte {
	m := map[string]string{"@timestamp": row.Time.UTC().Format(time.RFC3339Nano), "message": string(msg)}
	if row.Level != "" {
		m["level"] = row.Level
	}
	if row.Logger != "" {
		m["logger_name"] = row.Logger
	}
	b, _ := json.Marshal(m)
	return b
}

func (s *store) enqueue(x *storeStream, ev *parser.Event) {
	x.q = append(x.q, Item{Src: x.src.Index, Ev: *ev})
	if x.src.Skew != 0 {
		x.q[len(x.q)-1].Ev.Time = ev.Time.Add(-x.src.Skew)
	}
	s.queued++
	if !x.in {
		x.in = true
		s.wait.add(x)
	}
}

// watermark: no event still to come is earlier than this.
func (s *store) watermark(rowTime time.Time) time.Time {
	w := rowTime.Add(-s.in.Hold)
	for x := range s.pending {
		if t, ok := x.p.Pending(); ok && t.Before(w) {
			w = t
		}
	}
	return w
}

// release hands on queued events earlier than w (all of them if w is
// zero), and the earliest ones anyway while too many are queued.
func (s *store) release(w time.Time, send func(*Item)) {
	for s.wait.Len() > 0 {
		x := s.wait.first()
		it := &x.q[x.head]
		if !w.IsZero() && !it.Ev.Time.Before(w) {
			if s.queued <= maxQueued {
				return
			}
			s.status.Forced++
		}
		send(it)
		x.q[x.head] = Item{}
		x.head++
		s.queued--
		if x.head == len(x.q) {
			x.q, x.head = x.q[:0], 0
			x.in = false
			s.wait.drop()
			continue
		}
		if x.head > 1024 && x.head > len(x.q)/2 {
			// A stream that is never drained: drop what was handed on.
			n := copy(x.q, x.q[x.head:])
			clear(x.q[n:])
			x.q, x.head = x.q[:n], 0
		}
		s.wait.moved()
	}
}
