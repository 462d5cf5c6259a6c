package logstore

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Environment variables holding a store's credentials: never flags, so
// they stay out of shell history and ps.
const (
	EnvToken    = "LEADERAUDIT_STORE_TOKEN"    // bearer token
	EnvUser     = "LEADERAUDIT_STORE_USER"     // basic auth user
	EnvPassword = "LEADERAUDIT_STORE_PASSWORD" // basic auth password
)

// VLogsOptions configure a VictoriaLogs client.
type VLogsOptions struct {
	// CAFile: PEM certificates to trust for https, besides the system's.
	CAFile string
	// Timeout for connecting and for the server to start answering a
	// request; a streaming answer may then take as long as it needs.
	Timeout time.Duration
	// Tenant "AccountID:ProjectID" for a multi-tenant cluster (vlselect).
	Tenant string
	// OrderFields break ties between rows of one stream with the same
	// _time (log4j writes milliseconds): a shipper's file offset
	// (Filebeat log.offset, Vector offset_key, Fluent Bit Offset_Key).
	OrderFields []string
	// LevelFields, LoggerFields: where a shipper that parsed the line put
	// its level and logger (used for a _msg with no header of its own).
	LevelFields, LoggerFields []string
	// Gzip: ask for compressed answers (a slow link to the store).
	Gzip bool
	// Getenv reads the credentials (os.Getenv if nil).
	Getenv func(string) string
}

// VLogs reads from VictoriaLogs (single node, or a cluster's vlselect)
// through its HTTP query API.
type VLogs struct {
	base    *url.URL
	name    string
	client  *http.Client
	header  http.Header
	opt     VLogsOptions
	skipped atomic.Int64
}

// NewVLogs parses vlogs://HOST:PORT[/PATH] (http) or
// vlogs+https://HOST[:PORT][/PATH]; PATH is a prefix in front of
// /select/... (a proxy such as vmauth).
func NewVLogs(raw string, opt VLogsOptions) (*VLogs, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("--from %q: %w", raw, err)
	}
	scheme := ""
	switch u.Scheme {
	case "vlogs", "vlogs+http":
		scheme = "http"
	case "vlogs+https":
		scheme = "https"
	default:
		return nil, fmt.Errorf("--from %q: want vlogs://HOST:PORT or vlogs+https://HOST:PORT", raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("--from: credentials do not belong on the command line; set %s, or %s and %s", EnvToken, EnvUser, EnvPassword)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("--from %q: no host", raw)
	}
	if opt.Getenv == nil {
		opt.Getenv = os.Getenv
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 30 * time.Second
	}
	if len(opt.LevelFields) == 0 {
		opt.LevelFields = []string{"level", "log.level", "severity"}
	}
	if len(opt.LoggerFields) == 0 {
		opt.LoggerFields = []string{"logger", "logger_name", "log.logger"}
	}
	tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if opt.CAFile != "" {
		pem, err := os.ReadFile(opt.CAFile)
		if err != nil {
			return nil, fmt.Errorf("--store-ca: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--store-ca %s: no PEM certificate in it", opt.CAFile)
		}
		tlsCfg.RootCAs = pool
	}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: opt.Timeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:       tlsCfg,
		TLSHandshakeTimeout:   opt.Timeout,
		ResponseHeaderTimeout: opt.Timeout,
		// Answers are streamed in bulk: net/http's 4 KiB default made
		// the read syscalls a tenth of the client's time.
		ReadBufferSize:      256 << 10,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
		// The answers are JSON lines that compress about 10×, but
		// compressing them doubled the server's time per query on a
		// 2-core host; worth it only over a slow link.
		DisableCompression: !opt.Gzip,
	}
	v := &VLogs{
		base:   &url.URL{Scheme: scheme, Host: u.Host, Path: strings.TrimSuffix(u.Path, "/")},
		name:   u.Scheme + "://" + u.Host + strings.TrimSuffix(u.Path, "/"),
		header: http.Header{},
		opt:    opt,
	}
	v.client = &http.Client{Transport: tr, CheckRedirect: v.checkRedirect}
	if tok := opt.Getenv(EnvToken); tok != "" {
		v.header.Set("Authorization", "Bearer "+tok)
	} else if user := opt.Getenv(EnvUser); user != "" {
		req := http.Request{Header: http.Header{}}
		req.SetBasicAuth(user, opt.Getenv(EnvPassword))
		v.header.Set("Authorization", req.Header.Get("Authorization"))
	}
	if opt.Tenant != "" {
		acc, proj, _ := strings.Cut(opt.Tenant, ":")
		if _, err := strconv.ParseUint(acc, 10, 32); err != nil {
			return nil, fmt.Errorf("--store-tenant %q: want ACCOUNT:PROJECT numbers", opt.Tenant)
		}
		if proj == "" {
			proj = "0"
		}
		if _, err := strconv.ParseUint(proj, 10, 32); err != nil {
			return nil, fmt.Errorf("--store-tenant %q: want ACCOUNT:PROJECT numbers", opt.Tenant)
		}
		v.header.Set("AccountID", acc)
		v.header.Set("ProjectID", proj)
	}
	return v, nil
}

func (v *VLogs) String() string { return v.name }

// maxRedirects bounds the same-origin redirects followed for one request.
const maxRedirects = 3

// checkRedirect follows a redirect only to the same scheme, host and port
// (a proxy's path normalisation), and only one that keeps the method and
// the query (307, 308). Anything else would send the credentials where
// --from did not say (another host or port, or http after https: in
// cleartext), read rows from a store the report would not name, or turn
// the query into a GET without it (301, 302, 303 — often a login page).
func (v *VLogs) checkRedirect(req *http.Request, via []*http.Request) error {
	prev := via[len(via)-1]
	code := 0
	if req.Response != nil {
		code = req.Response.StatusCode
	}
	to := req.URL.Redacted()
	switch {
	case req.URL.Scheme != v.base.Scheme || !strings.EqualFold(req.URL.Host, v.base.Host):
		return &AnswerError{URL: v.name + strings.TrimPrefix(prev.URL.Path, v.base.Path), What: fmt.Sprintf("HTTP %d redirect to %s, another origin than --from: not followed (the credentials and the query go only to --from; point --from at the store itself)", code, to)}
	case code != http.StatusTemporaryRedirect && code != http.StatusPermanentRedirect:
		return &AnswerError{URL: v.name + strings.TrimPrefix(prev.URL.Path, v.base.Path), What: fmt.Sprintf("HTTP %d redirect to %s: not followed, not a VictoriaLogs answer (a login page? a query is a POST, which this redirect would drop)", code, to)}
	case len(via) > maxRedirects:
		return &AnswerError{URL: v.name + strings.TrimPrefix(prev.URL.Path, v.base.Path), What: fmt.Sprintf("more than %d redirects", maxRedirects)}
	}
	return nil
}

// AnswerError: the server answered, but not as VictoriaLogs does (a
// redirect elsewhere, a login page, a JSON answer of another shape):
// retrying will not help.
type AnswerError struct {
	URL  string
	What string
}

func (e *AnswerError) Error() string { return e.URL + ": " + e.What }

// jsonAnswer checks an answer's Content-Type: VictoriaLogs answers JSON
// (application/json for streams and hits, application/stream+json for a
// query, application/x-ndjson for tail: v1.52.1); an HTML page (an SSO
// login, a proxy's error page) is not an empty result.
func jsonAnswer(resp *http.Response, url string) error {
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	if strings.HasSuffix(mt, "json") {
		return nil
	}
	peek, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	what := "HTTP 200 with no Content-Type"
	if ct != "" {
		what = fmt.Sprintf("HTTP 200 with Content-Type %s", ct)
	}
	what += ", not a VictoriaLogs answer (a login page or a proxy in front of the store?)"
	if t := strings.Join(strings.Fields(string(peek)), " "); t != "" {
		what += fmt.Sprintf(": %q", t)
	}
	return &AnswerError{URL: url, What: what}
}

// Skipped counts lines of the server's answers that were not a JSON
// object (they are skipped).
func (v *VLogs) Skipped() int64 { return v.skipped.Load() }

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func (v *VLogs) form(q Query, text string) url.Values {
	f := url.Values{"query": {text}}
	if !q.Start.IsZero() {
		f.Set("start", stamp(q.Start))
	}
	if !q.End.IsZero() {
		// The API's end is exclusive, as Window's.
		f.Set("end", stamp(q.End))
	}
	return f
}

// post sends a form to /select/logsql/PATH and returns the answer's body
// on 200; any other status is a *StatusError with the server's message.
func (v *VLogs) post(ctx context.Context, path string, form url.Values) (io.ReadCloser, error) {
	u := *v.base
	u.Path += "/select/logsql/" + path
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	for k, vs := range v.header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	ctx, cancel := context.WithCancel(ctx)
	req = req.WithContext(ctx)
	resp, err := v.client.Do(req)
	if err != nil {
		cancel()
		var ae *AnswerError
		if errors.As(err, &ae) {
			return nil, ae
		}
		return nil, fmt.Errorf("%s: %w", v.name, errors.Unwrap(err))
	}
	where := v.name + "/select/logsql/" + path
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		cancel()
		return nil, &StatusError{URL: where, Status: resp.StatusCode, Message: string(msg)}
	}
	if err := jsonAnswer(resp, where); err != nil {
		resp.Body.Close()
		cancel()
		return nil, err
	}
	if path == "tail" {
		// A live tail is quiet while nothing is logged.
		return &cancelBody{resp.Body, cancel}, nil
	}
	return newIdleBody(resp.Body, v.opt.Timeout, cancel), nil
}

// idleBody ends an answer that sends nothing for the timeout while it is
// being read (headers, then silence: a stalled store or proxy). Time the
// reader spends not reading (waiting for the audit to take rows fetched
// ahead) does not count.
type idleBody struct {
	rc      io.ReadCloser
	d       time.Duration
	t       *time.Timer
	cancel  context.CancelFunc
	stalled atomic.Bool
}

func newIdleBody(rc io.ReadCloser, d time.Duration, cancel context.CancelFunc) *idleBody {
	b := &idleBody{rc: rc, d: d, cancel: cancel}
	b.t = time.AfterFunc(time.Hour, func() {
		b.stalled.Store(true)
		cancel()
	})
	b.t.Stop()
	return b
}

type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// ErrStalled: the store sent no byte of an answer for --store-timeout.
var ErrStalled = errors.New("stalled")

type stallError struct{ d time.Duration }

func (e *stallError) Error() string {
	return fmt.Sprintf("the store sent nothing for %s (--store-timeout)", e.d)
}
func (e *stallError) Is(target error) bool { return target == ErrStalled }

func (b *idleBody) Read(p []byte) (int, error) {
	b.t.Reset(b.d)
	n, err := b.rc.Read(p)
	b.t.Stop()
	if err != nil && b.stalled.Load() {
		err = &stallError{b.d}
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.t.Stop()
	err := b.rc.Close()
	b.cancel()
	return err
}

func (v *VLogs) getJSON(ctx context.Context, path string, form url.Values, into any) error {
	body, err := v.post(ctx, path, form)
	if err != nil {
		return err
	}
	defer body.Close()
	if err := json.NewDecoder(io.LimitReader(body, 256<<20)).Decode(into); err != nil {
		if errors.Is(err, ErrStalled) {
			return fmt.Errorf("%s/select/logsql/%s: %w", v.name, path, err)
		}
		return &AnswerError{URL: v.name + "/select/logsql/" + path, What: "unreadable answer: " + err.Error()}
	}
	return nil
}

// Extent asks for the first and last _time with a stats pipe.
func (v *VLogs) Extent(ctx context.Context, q Query) (time.Time, time.Time, bool, error) {
	var first, last time.Time
	var rows int64
	var bad error
	sawRows := false
	text := q.Text + " | stats min(_time) as la_first, max(_time) as la_last, count() as la_rows"
	err := v.lines(ctx, "query", v.form(q, text), func(k, val []byte) {
		if string(k) == "la_rows" {
			sawRows = true
		}
		var err error
		switch {
		case len(val) == 0:
			// No rows: no bounds.
		case string(k) == "la_first":
			first, err = time.Parse(time.RFC3339Nano, string(val))
		case string(k) == "la_last":
			last, err = time.Parse(time.RFC3339Nano, string(val))
		case string(k) == "la_rows":
			rows, err = strconv.ParseInt(string(val), 10, 64)
		}
		// A window built on an unreadable bound would start or end at
		// year 1: fail instead.
		if err != nil && bad == nil {
			bad = fmt.Errorf("%s: the store's extent has a bad %s %q", v.name, k, val)
		}
	}, func(ok bool) error {
		if !ok {
			// Not a stats answer: an empty window read from it would
			// pass for "no lines".
			return &AnswerError{URL: v.name + "/select/logsql/query", What: "the stats answer is not a JSON object of the stats asked for (not a VictoriaLogs answer?)"}
		}
		return nil
	})
	if err == nil {
		err = bad
	}
	if err == nil && !sawRows {
		err = &AnswerError{URL: v.name + "/select/logsql/query", What: "the stats answer has no la_rows count (not a VictoriaLogs answer?)"}
	}
	if err != nil {
		return first, last, false, err
	}
	if rows > 0 && (first.IsZero() || last.IsZero()) {
		return first, last, false, fmt.Errorf("%s: the store's extent of %d rows has no first or last _time", v.name, rows)
	}
	return first, last, rows > 0, nil
}

// Span is a stream's first and last row (by _time): their times and
// messages (whose own stamps a parser reads in the stream's zone).
type Span struct {
	First, Last       time.Time
	FirstMsg, LastMsg string
}

// Spans gives each stream's first and last row with a stats pipe by
// _stream (row_min and row_max of _time): the _time columns are read,
// and a message only where a block holds a new first or last row.
func (v *VLogs) Spans(ctx context.Context, q Query) (map[string]Span, error) {
	out := map[string]Span{}
	var stream string
	var sp Span
	var bad error
	text := q.Text + " | stats by (_stream) row_min(_time, _time, _msg) as la_first, row_max(_time, _time, _msg) as la_last"
	err := v.lines(ctx, "query", v.form(q, text), func(k, val []byte) {
		var row struct {
			Time string `json:"_time"`
			Msg  string `json:"_msg"`
		}
		var t time.Time
		var err error
		switch string(k) {
		case "_stream":
			stream = string(val)
			return
		case "la_first", "la_last":
			if err = json.Unmarshal(val, &row); err == nil {
				t, err = time.Parse(time.RFC3339Nano, row.Time)
			}
		default:
			return
		}
		if err != nil {
			if bad == nil {
				bad = fmt.Errorf("%s: a stream's span has a bad %s %q", v.name, k, val)
			}
			return
		}
		if string(k) == "la_first" {
			sp.First, sp.FirstMsg = t, row.Msg
		} else {
			sp.Last, sp.LastMsg = t, row.Msg
		}
	}, func(ok bool) error {
		if ok && stream != "" && !sp.First.IsZero() && !sp.Last.IsZero() {
			out[stream] = sp
		}
		stream, sp = "", Span{}
		return nil
	})
	if err == nil {
		err = bad
	}
	return out, err
}

// Streams uses /select/logsql/streams.
func (v *VLogs) Streams(ctx context.Context, q Query) ([]Stream, error) {
	var ans struct {
		Values *[]struct {
			Value string `json:"value"`
			Hits  int64  `json:"hits"`
		} `json:"values"`
	}
	if err := v.getJSON(ctx, "streams", v.form(q, q.Text), &ans); err != nil {
		return nil, err
	}
	if ans.Values == nil {
		return nil, &AnswerError{URL: v.name + "/select/logsql/streams", What: `the answer has no "values" (not a VictoriaLogs answer?)`}
	}
	out := make([]Stream, 0, len(*ans.Values))
	for _, s := range *ans.Values {
		f, err := ParseStreamName(s.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.name, err)
		}
		out = append(out, Stream{Name: s.Value, Fields: f, Rows: s.Hits})
	}
	SortStreams(out)
	return out, nil
}

// Any reports whether the query matches a row in its window. "limit 1"
// ends the server's search at the first match: asking one stream this way
// took 20–90 ms on a 1 GB set where /streams, which counts every match,
// took 2.8 CPU-s for the same regexp.
func (v *VLogs) Any(ctx context.Context, q Query) (bool, error) {
	found := false
	err := v.rows(ctx, "query", v.form(q, q.Text+" | limit 1 | fields _time"), func(*Row) error {
		found = true
		return nil
	})
	return found, err
}

// Counts uses /select/logsql/hits.
func (v *VLogs) Counts(ctx context.Context, q Query, step time.Duration) ([]Count, error) {
	f := v.form(q, q.Text)
	f.Set("step", strconv.FormatInt(step.Milliseconds(), 10)+"ms")
	var ans struct {
		Hits *[]struct {
			Timestamps []string `json:"timestamps"`
			Values     []int64  `json:"values"`
		} `json:"hits"`
	}
	if err := v.getJSON(ctx, "hits", f, &ans); err != nil {
		return nil, err
	}
	if ans.Hits == nil {
		return nil, &AnswerError{URL: v.name + "/select/logsql/hits", What: `the answer has no "hits" (not a VictoriaLogs answer?)`}
	}
	var out []Count
	for _, h := range *ans.Hits {
		for i, ts := range h.Timestamps {
			if i >= len(h.Values) {
				break
			}
			t, err := time.Parse(time.RFC3339Nano, ts)
			if err != nil {
				return nil, fmt.Errorf("%s: hits: bad timestamp %q", v.name, ts)
			}
			out = append(out, Count{Start: t, Rows: h.Values[i]})
		}
	}
	// One series per group; without "field" there is one, but merge in
	// case a proxy splits it.
	sortCounts(out)
	return out, nil
}

func sortCounts(cs []Count) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].Start.Before(cs[j-1].Start); j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

// rowQuery keeps only the fields the audit reads, then sorts by time and
// by the shipper's offset: VictoriaLogs returns rows in no particular
// order, and orders rows with equal _time arbitrarily even under "sort by
// (_time)". Keeping the fields first matters: sorting whole rows took
// about 4× longer on a 100 MB set.
func (v *VLogs) rowQuery(text string) string {
	var b strings.Builder
	b.WriteString(text)
	b.WriteString(" | fields _time, _msg, _stream")
	for _, f := range slices.Concat(v.opt.OrderFields, v.opt.LevelFields, v.opt.LoggerFields) {
		b.WriteString(", ")
		b.WriteString(quoteField(f))
	}
	b.WriteString(" | sort by (_time")
	for _, f := range v.opt.OrderFields {
		b.WriteString(", ")
		b.WriteString(quoteField(f))
	}
	b.WriteString(")")
	return b.String()
}

// quoteField quotes a field name unless LogsQL reads it bare.
func quoteField(f string) string {
	for _, c := range f {
		if !(c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return strconv.Quote(f)
		}
	}
	return f
}

// Rows runs the query through /select/logsql/query.
func (v *VLogs) Rows(ctx context.Context, q Query, fn func(*Row) error) error {
	return v.rows(ctx, "query", v.form(q, v.rowQuery(q.Text)), fn)
}

// Tail follows /select/logsql/tail; a window Start in the past is asked
// for as start_offset (the rows since then first, then live ones).
func (v *VLogs) Tail(ctx context.Context, q Query, fn func(*Row) error) error {
	f := url.Values{"query": {v.tailQuery(q.Text)}}
	if !q.Start.IsZero() {
		if d := time.Since(q.Start); d > 0 {
			f.Set("start_offset", strconv.FormatInt(d.Milliseconds(), 10)+"ms")
		}
	}
	return v.rows(ctx, "tail", f, fn)
}

// tailQuery keeps only the fields the audit reads (tail takes no sort).
func (v *VLogs) tailQuery(text string) string {
	var b strings.Builder
	b.WriteString(text)
	b.WriteString(" | fields _time, _msg, _stream")
	for _, f := range slices.Concat(v.opt.LevelFields, v.opt.LoggerFields) {
		b.WriteString(", ")
		b.WriteString(quoteField(f))
	}
	return b.String()
}

func (v *VLogs) rows(ctx context.Context, path string, form url.Values, fn func(*Row) error) error {
	var r Row
	var msg []byte
	streams := map[string]string{}
	level, logger := -1, -1
	return v.lines(ctx, path, form, func(k, val []byte) {
		switch string(k) {
		case "_time":
			// Unreadable: zero, and the row is skipped and counted below
			// (never sorted in at year 1).
			t, err := time.Parse(time.RFC3339Nano, string(val))
			if err != nil {
				t = time.Time{}
			}
			r.Time = t
		case "_msg":
			msg = append(msg[:0], val...)
			r.Msg = msg
		case "_stream":
			s, ok := streams[string(val)]
			if !ok {
				s = string(val)
				if len(streams) < 1<<16 {
					streams[s] = s
				}
			}
			r.Stream = s
		default:
			if len(val) > 0 && !r.Ordered {
				for _, f := range v.opt.OrderFields {
					if string(k) == f {
						r.Ordered = true
					}
				}
			}
			// The first field of the lists wins, as in the JSON layout.
			for i, f := range v.opt.LevelFields {
				if string(k) == f && (level < 0 || i < level) {
					r.Level, level = string(val), i
				}
			}
			for i, f := range v.opt.LoggerFields {
				if string(k) == f && (logger < 0 || i < logger) {
					r.Logger, logger = string(val), i
				}
			}
		}
	}, func(ok bool) error {
		row := r
		r = Row{}
		level, logger = -1, -1
		if !ok {
			return nil
		}
		if row.Time.IsZero() {
			// An object without a readable _time is not a row.
			v.skipped.Add(1)
			return nil
		}
		return fn(&row)
	})
}

// maxAnswerLine bounds one line of an answer: a record of 1 MiB (the
// file reader's limit) JSON-escaped, with its fields.
const maxAnswerLine = 8 << 20

// lines reads a JSON-lines answer, calling field for each field of each
// object and end after each object (with false after a line that was not
// a JSON object: it is counted and skipped, and end only forgets the
// fields seen). An error from end stops the read and is returned.
func (v *VLogs) lines(ctx context.Context, path string, form url.Values, field func(k, v []byte), end func(ok bool) error) error {
	body, err := v.post(ctx, path, form)
	if err != nil {
		return err
	}
	defer body.Close()
	br := bufio.NewReaderSize(body, 256<<10)
	var long []byte
	var scratch []byte
	n := 0
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				if len(long) < maxAnswerLine {
					long = append(long, line...)
				}
			}
			line = long
			if len(long) >= maxAnswerLine {
				line = nil
				v.skipped.Add(1)
			}
		}
		if err != nil && err != io.EOF {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%s: answer broken off after %d lines: %w", v.name, n, err)
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			n++
			ok := scanObject(t, &scratch, field) == nil
			if !ok {
				v.skipped.Add(1)
			}
			if err := end(ok); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}
