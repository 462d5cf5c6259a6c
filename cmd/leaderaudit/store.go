package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/follow"
	"github.com/leaderaudit/leaderaudit/internal/logstore"
	"github.com/leaderaudit/leaderaudit/internal/source"
	"github.com/leaderaudit/leaderaudit/internal/textfmt"
	"github.com/leaderaudit/leaderaudit/parser"
)

// storeFlags read lines from a log store instead of (or beside) files.
type storeFlags struct {
	From             string        `name:"from" group:"log store" help:"Read from a log store: vlogs://HOST:9428 (VictoriaLogs, or a cluster's vlselect; vlogs+https:// for TLS). Credentials come from the environment: LEADERAUDIT_STORE_TOKEN (bearer), or LEADERAUDIT_STORE_USER and LEADERAUDIT_STORE_PASSWORD (basic auth)."`
	Query            string        `name:"query" group:"log store" default:"*" help:"LogsQL filter selecting the Kafka and client logs, e.g. '{service=\"kafka\"} or {app=\"orders-producer\"}'. The window is --since/--until."`
	SourceField      []string      `name:"source-field" group:"log store" help:"Stream fields naming the broker or client a stream comes from (default host, pod, container, service); repeatable."`
	OrderField       []string      `name:"order-field" group:"log store" default:"log.offset" help:"Fields that order rows of one stream with the same _time (the shipper's file offset: Filebeat log.offset, Vector offset_key, Fluent Bit Offset_Key); repeatable."`
	StoreCA          string        `name:"store-ca" group:"log store" type:"existingfile" help:"PEM file of CA certificates to trust for vlogs+https://."`
	StoreTenant      string        `name:"store-tenant" group:"log store" help:"Tenant ACCOUNT:PROJECT of a multi-tenant VictoriaLogs cluster."`
	StoreTimeout     time.Duration `name:"store-timeout" group:"log store" default:"30s" help:"Time to connect, for the store to start answering a request, and the longest a query's answer may send nothing (a stalled store ends the read; rows already received are audited)."`
	StoreConcurrency int           `name:"store-concurrency" group:"log store" default:"4" help:"Time chunks fetched at once."`
	StoreChunkRows   int64         `name:"store-chunk-rows" group:"log store" default:"200000" help:"Rows per time chunk (the window is split by the store's hit counts)."`
	StoreGzip        bool          `name:"store-gzip" group:"log store" help:"Ask the store for gzip-compressed answers: about 10× fewer bytes over a slow link, for more CPU on both ends."`
	NoPushdown       bool          `name:"no-pushdown" group:"log store" help:"Read every row the query matches; by default the store returns only the rows holding a word some rule reads (leadership loggers, producer errors, config dumps: a few percent of a broker's log), which changes only the sources' line, record and level counts."`
	StoreRetries     int           `name:"store-retries" group:"log store" default:"4" help:"Retries of a request that failed with a connection error or a 5xx, with backoff from 500 ms; 4xx answers are not retried."`

	getenv func(string) string // tests; os.Getenv otherwise
	// openStore, in tests, replaces the VictoriaLogs client.
	openStore func() (logstore.Store, error)
}

// open makes the store client.
func (sf *storeFlags) open() (logstore.Store, error) {
	if sf.openStore != nil {
		return sf.openStore()
	}
	getenv := sf.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	return logstore.NewVLogs(sf.From, logstore.VLogsOptions{
		CAFile: sf.StoreCA, Timeout: sf.StoreTimeout, Tenant: sf.StoreTenant, OrderFields: sf.OrderField, Gzip: sf.StoreGzip, Getenv: getenv,
	})
}

// add lists the streams the query matches in the audit's window and adds
// them to rd. A store that cannot be asked (unreachable after retries, a
// 4xx: bad query, auth) is an error: nothing of it could be read.
func (sf *storeFlags) add(ctx context.Context, rd *source.Reader, f filter, stderr io.Writer) (*source.StoreStatus, error) {
	s, err := sf.open()
	if err != nil {
		return nil, err
	}
	in := source.StoreInput{
		Store: s, Query: logstore.Query{Text: sf.Query, Window: logstore.Window{Start: f.since, End: f.until}},
		IdentityFields: sf.SourceField,
		RowFilter:      sf.rowFilter(),
		Hints:          sf.hints(),
		Read: logstore.ReadOptions{
			ChunkRows: sf.StoreChunkRows, Concurrency: sf.StoreConcurrency, Retries: retries(sf.StoreRetries),
			Retried: func(w logstore.Window, attempt int, err error) {
				fmt.Fprintf(stderr, "leaderaudit: %s: retrying (%d) after: %s\n", s, attempt, textfmt.Clean(err.Error()))
			},
		},
	}
	if !f.since.IsZero() && f.until.IsZero() {
		// "--since 6h": up to now.
		in.Query.End = time.Now()
	}
	var st *source.StoreStatus
	err = logstore.Retry(ctx, sf.StoreRetries, logstore.Backoff{}, func() error {
		st, err = rd.AddStore(ctx, in)
		return err
	}, func(attempt int, err error) {
		fmt.Fprintf(stderr, "leaderaudit: %s: retrying (%d) after: %s\n", s, attempt, textfmt.Clean(err.Error()))
	})
	return st, err
}

// rowFilter is the pushdown filter unless --no-pushdown: the rows some
// rule may read (parser.Candidates).
func (sf *storeFlags) rowFilter() string {
	if sf.NoPushdown {
		return ""
	}
	return logstore.Pushdown(parser.Candidates())
}

// hints are the eras of the records pushdown leaves out.
func (sf *storeFlags) hints() []parser.EraHint {
	if sf.NoPushdown {
		return nil
	}
	return parser.CandidateEras()
}

// retries maps --store-retries to ReadOptions.Retries (where 0 means the
// default).
func retries(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// window describes a query window for a note.
func window(w logstore.Window, loc *time.Location) string {
	const layout = "2006-01-02 15:04:05.000 MST"
	switch {
	case w.Start.IsZero() && w.End.IsZero():
		return ""
	case w.End.IsZero():
		return " from " + w.Start.In(loc).Format(layout)
	case w.Start.IsZero():
		return " before " + w.End.In(loc).Format(layout)
	}
	return " between " + w.Start.In(loc).Format(layout) + " and " + w.End.In(loc).Format(layout)
}

// storeNotes tells what went wrong reading a store, on stderr and for the
// report.
func storeNotes(st *source.StoreStatus, stderr io.Writer) []string {
	var notes []string
	note := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		fmt.Fprintf(stderr, "leaderaudit: %s: %s\n", st.Name, textfmt.Clean(msg))
		notes = append(notes, st.Name+": "+msg)
	}
	if st.Err != nil {
		if st.Partial {
			note("%v; the results are partial: they cover the %d lines read before", st.Err, st.Rows)
		} else {
			note("%v", st.Err)
		}
	}
	if st.Skipped > 0 {
		note("%d line(s) of the server's answers were not a log row; skipped", st.Skipped)
	}
	if st.Forced > 0 {
		note("%d event(s) passed on out of their time order (too many waiting behind a stream with a held-back record)", st.Forced)
	}
	return notes
}

// tail makes the live source of watch --from: the rows since since (none
// if zero), then new ones as they arrive.
func (sf *storeFlags) tail(since time.Time, locFor func(string) *time.Location) (*storeTail, error) {
	s, err := sf.open()
	if err != nil {
		return nil, err
	}
	ident := sf.SourceField
	if len(ident) == 0 {
		ident = source.DefaultIdentityFields
	}
	return &storeTail{s: s, query: sf.Query, since: since, ident: ident, locFor: locFor}, nil
}

// storeTail follows a store's tail for the live pipeline: each row's
// lines, named by their stream as audit --from names them.
type storeTail struct {
	s      logstore.Store
	query  string
	since  time.Time
	ident  []string
	locFor func(string) *time.Location
}

type tailStream struct {
	name string
	loc  *time.Location
	raw  bool
	tie  source.TieOrder
	held bool
}

// tieWait: how long the tail's last millisecond is held for more rows of
// it when none with a later _time comes.
const tieWait = 200 * time.Millisecond

// Run tails until ctx is done. A broken connection or a 5xx is retried
// with backoff (up to 30 s apart), resuming after the last row's time;
// rows at that very time that had not arrived are lost. A 4xx ends it.
//
// The tail answers in _time order only: rows of one stream with the same
// _time are held until a later row (or tieWait) and put back in the order
// their lines say, as audit --from does for a store without the shipper's
// offset.
func (t *storeTail) Run(ctx context.Context, out chan<- []follow.Line) error {
	streams := map[string]*tailStream{}
	var (
		mu   sync.Mutex // the tail's callback and the quiet timer
		at   time.Time  // the _time of the rows held
		held []*tailStream
		done bool
	)
	// release sends the rows held, every stream's in its lines' order,
	// as one batch; mu is held.
	release := func() error {
		if len(held) == 0 || done {
			return nil
		}
		var batch []follow.Line
		for _, st := range held {
			st.tie.Release(st.raw, st.loc, func(row *logstore.Row) {
				source.RowLines(row, &st.raw, st.loc, func(line []byte) {
					batch = append(batch, follow.Line{Path: st.name, Text: append([]byte(nil), line...)})
				})
			})
			st.held = false
		}
		clear(held)
		held = held[:0]
		select {
		case out <- batch:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	quiet := time.AfterFunc(time.Hour, func() {
		mu.Lock()
		defer mu.Unlock()
		release()
	})
	quiet.Stop()
	defer func() {
		quiet.Stop()
		mu.Lock()
		done = true // out is closed once Run returns
		mu.Unlock()
	}()
	var last time.Time
	backoff := logstore.Backoff{Max: 30 * time.Second}
	for {
		q := logstore.Query{Text: t.query, Window: logstore.Window{Start: t.since}}
		resume := last
		if !resume.IsZero() {
			q.Start = resume
		}
		got := false
		err := t.s.Tail(ctx, q, func(row *logstore.Row) error {
			if !resume.IsZero() && !row.Time.After(resume) {
				return nil // seen before the reconnect
			}
			got = true
			mu.Lock()
			defer mu.Unlock()
			if row.Time.After(last) {
				last = row.Time
			}
			st := streams[row.Stream]
			if st == nil {
				f, _ := logstore.ParseStreamName(row.Stream)
				name := t.s.String() + "/" + source.StreamName(t.ident, f, row.Stream)
				st = &tailStream{name: name, loc: t.locFor(strings.TrimPrefix(name, t.s.String()+"/"))}
				streams[row.Stream] = st
			}
			if !row.Time.Equal(at) {
				if err := release(); err != nil {
					return err
				}
				at = row.Time
			}
			st.tie.Hold(row)
			if !st.held {
				st.held = true
				held = append(held, st)
			}
			quiet.Reset(tieWait)
			return nil
		})
		mu.Lock()
		release()
		mu.Unlock()
		if ctx.Err() != nil {
			return nil
		}
		if err != nil && !logstore.Retryable(err) {
			return err
		}
		if got {
			backoff.Reset()
		}
		if backoff.Wait(ctx) != nil {
			return nil
		}
	}
}

// relative applies --tz and --broker to a stream's name without the
// store's address, as audit --from does (a store host named kafka-1 must
// not make every stream broker 1).
func (t *storeTail) relative(locFor func(string) *time.Location, brokerFor func(string) int32) (func(string) *time.Location, func(string) int32) {
	strip := func(p string) string { return strings.TrimPrefix(p, t.s.String()+"/") }
	return func(p string) *time.Location { return locFor(strip(p)) }, func(p string) int32 { return brokerFor(strip(p)) }
}
