package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"hash/fnv"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/live"
	"github.com/leaderaudit/leaderaudit/internal/vltest"
	"github.com/leaderaudit/leaderaudit/parser"
)

// storeAudit runs audit --format json over a store (and paths, if any).
func storeAudit(t *testing.T, url, query string, env map[string]string, tweak func(*AuditCmd), paths ...string) (string, string, int) {
	t.Helper()
	// Every row, so that even the sources' line and record counts and the
	// events' line numbers equal the files' (pushdown: TestLogStorePushdown).
	a := parseAudit(t, append([]string{"--tz", "UTC", "--format", "json", "--from", "vlogs://" + strings.TrimPrefix(url, "http://"), "--query", query, "--store-timeout", "10s", "--no-pushdown", "--"}, paths...)...)
	a.Store.getenv = func(k string) string { return env[k] }
	if tweak != nil {
		tweak(a)
	}
	return runAudit(a)
}

// sameRecords compares two audits' JSON lines one by one, after taking
// out the only thing that may differ: where the lines came from (a path
// under testdata/incidents/CASE/ against vlogs://HOST:PORT/), in source
// paths and findings' evidence.
func sameRecords(t *testing.T, files, store, fileRoot, storeRoot string) {
	t.Helper()
	norm := func(s string) []string {
		s = strings.ReplaceAll(strings.ReplaceAll(s, fileRoot, ""), storeRoot, "")
		return strings.Split(strings.TrimSpace(s), "\n")
	}
	a, b := norm(files), norm(store)
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			t.Fatalf("record %d differs (files: %d records, store: %d):\nfiles: %s\nstore: %s", i+1, len(a), len(b), x, y)
		}
	}
	if len(a) < 5 {
		t.Fatalf("only %d records: %s", len(a), files)
	}
}

var incidents = []string{"case1-0.10.2-no-retries", "case2-spring-idempotent-retries", "case3-acks1-zk-expiry", "case4-clock-skew", "worked-0.10.2"}

func ingestIncidents(t *testing.T, srv *vltest.Server) {
	t.Helper()
	ctx := context.Background()
	for _, c := range incidents {
		extra := map[string]string{"case": c}
		files, err := vltest.Files(filepath.Join("..", "..", "testdata", "incidents", c), extra)
		if err != nil {
			t.Fatal(err)
		}
		// Each host's shipper reads its own clock's zone: case 4's broker 2
		// writes Moscow time, so its rows' _time is read in Moscow.
		byZone := map[*time.Location][]vltest.File{}
		for _, f := range files {
			loc := time.UTC
			if c == "case4-clock-skew" && strings.Contains(filepath.ToSlash(f.Path), "/broker-2/") {
				loc = moscow(t)
			}
			byZone[loc] = append(byZone[loc], f)
		}
		for loc, fs := range byZone {
			if _, _, err := vltest.Ingest(ctx, srv.URL, fs, vltest.StreamFields(extra), loc); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := srv.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

func moscow(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Moscow")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func summaryOf(t *testing.T, out string) map[string]any {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &m); err != nil || m["type"] != "summary" {
		t.Fatalf("last line is not the summary: %q", lines[len(lines)-1])
	}
	return m
}

// The tests run against a real VictoriaLogs (internal/vltest): the bundled
// incidents are ingested as a shipper would send them, and the audit read
// back from the store must equal the audit of the files, record for record.
func TestLogStore(t *testing.T) {
	srv := vltest.Start(t)
	ingestIncidents(t, srv)
	root := filepath.Join("..", "..", "testdata", "incidents") + string(filepath.Separator)
	storeRoot := "vlogs://" + srv.Addr + "/"

	t.Run("equals files", func(t *testing.T) {
		for _, c := range incidents {
			t.Run(c, func(t *testing.T) {
				files, ferr, fcode := audit(t, "json", root+c)
				store, serr, scode := storeAudit(t, srv.URL, `{case="`+c+`"}`, nil, nil)
				if fcode != 0 || scode != 0 {
					t.Fatalf("exit %d / %d: %s %s", fcode, scode, ferr, serr)
				}
				if serr != "" {
					t.Errorf("stderr: %s", serr)
				}
				sameRecords(t, files, store, root+c+string(filepath.Separator), storeRoot)
			})
		}
	})

	// --tz and --skew globs match stream names as they match paths: case 4
	// (broker 2 in Moscow time, 120 ms ahead) audits the same from the
	// store as from its files, with the zone and the offset given by hand.
	t.Run("zone and skew by stream name", func(t *testing.T) {
		c := "case4-clock-skew"
		flags := func(a *AuditCmd) {
			a.Read.TZ = []string{"UTC", "broker-2/*=Europe/Moscow"}
			a.Read.Skew = []string{"broker-2/*=+120ms"}
		}
		files, _, _ := auditWith(t, flags, "json", root+c)
		store, serr, code := storeAudit(t, srv.URL, `{case="`+c+`"}`, nil, flags)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, serr)
		}
		if !strings.Contains(store, `"by_hand":"broker-2/*=+120ms"`) || !strings.Contains(store, `"zone":"assumed Europe/Moscow"`) {
			t.Fatalf("the store's broker-2 streams did not take the flags:\n%s", first(store, 3000))
		}
		sameRecords(t, files, store, root+c+string(filepath.Separator), storeRoot)
	})

	t.Run("small chunks fetched concurrently", func(t *testing.T) {
		c := "case3-acks1-zk-expiry"
		files, _, _ := audit(t, "json", root+c)
		store, serr, code := storeAudit(t, srv.URL, `{case="`+c+`"}`, nil, func(a *AuditCmd) {
			a.Store.StoreChunkRows, a.Store.StoreConcurrency = 7, 3
		})
		if code != 0 {
			t.Fatalf("exit %d: %s", code, serr)
		}
		sameRecords(t, files, store, root+c+string(filepath.Separator), storeRoot)
	})

	t.Run("brokers from the store, producer from disk", func(t *testing.T) {
		c := "case1-0.10.2-no-retries"
		files, _, _ := audit(t, "json", root+c)
		store, serr, code := storeAudit(t, srv.URL, `{case="`+c+`",host=~"broker-.*"}`, nil, nil, root+c+"/app/producer.log")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, serr)
		}
		sameRecords(t, files, store, root+c+string(filepath.Separator), storeRoot)
	})

	t.Run("matches nothing", func(t *testing.T) {
		empty := filepath.Join(t.TempDir(), "server.log")
		os.WriteFile(empty, nil, 0o644)
		_, _, emptyCode := audit(t, "json", empty)
		out, serr, code := storeAudit(t, srv.URL, `{case="no-such-case"}`, nil, nil)
		if code != emptyCode {
			t.Errorf("exit %d, an empty file gives %d", code, emptyCode)
		}
		if !strings.Contains(serr, "the query matched no lines") {
			t.Errorf("no note on stderr: %q", serr)
		}
		if s := summaryOf(t, out); s["elections"] != 0.0 || s["sources"] != 0.0 {
			t.Errorf("summary: %v", s)
		}
	})

	t.Run("bad query shows the server's message", func(t *testing.T) {
		_, serr, code := storeAudit(t, srv.URL, `foo(`, nil, nil)
		if code != exitError || !strings.Contains(serr, "HTTP 400") || !strings.Contains(serr, "cannot parse") {
			t.Errorf("exit %d, stderr %q", code, serr)
		}
	})

	t.Run("retries a 5xx", func(t *testing.T) {
		c := "case2-spring-idempotent-retries"
		p := newProxy(t, srv.URL)
		p.fail5xx = 2
		files, _, _ := audit(t, "json", root+c)
		store, serr, code := storeAudit(t, p.url, `{case="`+c+`"}`, nil, nil)
		if code != 0 || !strings.Contains(serr, "retrying (2)") || !strings.Contains(serr, "HTTP 503") {
			t.Fatalf("exit %d, stderr %q", code, serr)
		}
		sameRecords(t, files, store, root+c+string(filepath.Separator), "vlogs://"+strings.TrimPrefix(p.url, "http://")+"/")
	})

	t.Run("malformed line counted and skipped", func(t *testing.T) {
		c := "case2-spring-idempotent-retries"
		p := newProxy(t, srv.URL)
		p.inject = []byte("{\"_msg\":\"cut off\n<html>not json</html>\n")
		files, _, _ := audit(t, "json", root+c)
		store, serr, code := storeAudit(t, p.url, `{case="`+c+`"}`, nil, nil)
		if code != 0 || !strings.Contains(serr, "2 line(s) of the server's answers were not a log row") {
			t.Fatalf("exit %d, stderr %q", code, serr)
		}
		if s := summaryOf(t, store); s["store_skipped_lines"] != 2.0 {
			t.Errorf("summary: %v", s)
		}
		// Apart from the count, the audit is the files' audit.
		store = strings.Replace(store, `,"store_skipped_lines":2`, "", 1)
		sameRecords(t, files, store, root+c+string(filepath.Separator), "vlogs://"+strings.TrimPrefix(p.url, "http://")+"/")
	})

	t.Run("server goes away mid-stream", func(t *testing.T) {
		c := "case3-acks1-zk-expiry"
		p := newProxy(t, srv.URL)
		p.cutRowQuery = 3 // the third chunk breaks off, then nothing answers
		out, serr, code := storeAudit(t, p.url, `{case="`+c+`"}`, nil, func(a *AuditCmd) {
			a.Store.StoreChunkRows, a.Store.StoreConcurrency, a.Store.StoreRetries = 40, 1, 1
		})
		if code != 0 {
			t.Fatalf("exit %d: %s", code, serr)
		}
		if !strings.Contains(serr, "the results are partial") || !strings.Contains(serr, "read stopped after") {
			t.Errorf("stderr %q", serr)
		}
		s := summaryOf(t, out)
		if s["partial"] != true {
			t.Errorf("summary not flagged partial: %v", s)
		}
		if !strings.Contains(out, `"type":"source"`) || !strings.Contains(out, `"error":"log store: read stopped after`) {
			t.Errorf("sources do not carry the error:\n%s", out)
		}
	})

	t.Run("auth required", func(t *testing.T) {
		p := newProxy(t, srv.URL)
		p.bearer = "s3cret-token"
		c := "worked-0.10.2"
		_, serr, code := storeAudit(t, p.url, `{case="`+c+`"}`, nil, nil)
		if code != exitError || !strings.Contains(serr, "HTTP 401") || !strings.Contains(serr, "LEADERAUDIT_STORE_TOKEN") || !strings.Contains(serr, "bearer token required") {
			t.Errorf("missing token: exit %d, stderr %q", code, serr)
		}
		out, serr, code := storeAudit(t, p.url, `{case="`+c+`"}`, map[string]string{"LEADERAUDIT_STORE_TOKEN": "s3cret-token"}, nil)
		if code != 0 || summaryOf(t, out)["elections"] != 1.0 {
			t.Errorf("with token: exit %d, stderr %q", code, serr)
		}
	})

	t.Run("basic auth of VictoriaLogs itself", func(t *testing.T) {
		authed := vltest.Start(t, "-httpAuth.username=auditor", "-httpAuth.password=pa55")
		_, serr, code := storeAudit(t, authed.URL, `*`, nil, nil)
		if code != exitError || !strings.Contains(serr, "HTTP 401") {
			t.Errorf("without credentials: exit %d, stderr %q", code, serr)
		}
		_, serr, code = storeAudit(t, authed.URL, `*`, map[string]string{"LEADERAUDIT_STORE_USER": "auditor", "LEADERAUDIT_STORE_PASSWORD": "pa55"}, nil)
		if code != 0 || !strings.Contains(serr, "the query matched no lines") {
			t.Errorf("with credentials: exit %d, stderr %q", code, serr)
		}
	})

	t.Run("watch follows the tail", func(t *testing.T) {
		// The worked example's election, happening now: its lines are
		// sent after the pipeline started following.
		tl := (&storeFlags{From: "vlogs://" + srv.Addr, Query: `{case="live"}`, StoreTimeout: 10 * time.Second,
			getenv: func(string) string { return "" }})
		tail, err := tl.tail(time.Time{}, func(string) *time.Location { return time.UTC })
		if err != nil {
			t.Fatal(err)
		}
		cfg := live.Config{Remote: tail, Loc: time.UTC, Timeline: parseAudit(t).Timeline.liveConfig()}
		cfg.LocFor, cfg.BrokerFor = tail.relative(func(string) *time.Location { return time.UTC }, parser.BrokerFromPath)
		p, err := live.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- p.Run(ctx) }()
		time.Sleep(1500 * time.Millisecond) // the tail is open

		data, err := os.ReadFile(filepath.Join(root, "worked-0.10.2", "broker-2", "state-change.log"))
		if err != nil {
			t.Fatal(err)
		}
		first := time.Date(2019, 2, 25, 15, 1, 3, 23e6, time.UTC)
		shift := time.Now().UTC().Truncate(time.Millisecond).Add(-time.Second).Sub(first)
		var body bytes.Buffer
		for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			ts, err := time.Parse("2006-01-02 15:04:05,000", line[1:24])
			if err != nil {
				t.Fatal(err)
			}
			ts = ts.Add(shift)
			msg := "[" + ts.Format("2006-01-02 15:04:05,000") + "]" + line[25:]
			row, _ := json.Marshal(map[string]string{"_time": ts.Format(time.RFC3339Nano), "_msg": msg, "host": "broker-2", "file": "state-change.log", "case": "live", "log.offset": fmt.Sprint(i)})
			body.Write(append(row, '\n'))
		}
		resp, err := http.Post(srv.URL+"/insert/jsonline?_stream_fields=case,host,file", "application/stream+json", &body)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		srv.Flush(context.Background())
		deadline := time.After(20 * time.Second)
	wait:
		for {
			select {
			case snap := <-p.Updates():
				if snap.Stats.Lines >= 7 {
					break wait
				}
			case <-deadline:
				break wait
			}
		}
		cancel()
		for range p.Updates() {
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if n := p.Collector().Episodes; n != 1 {
			t.Fatalf("%d elections from the tail, want the worked example's 1", n)
		}
		srcs := p.Sources()
		if len(srcs) != 1 || srcs[0].Path != "vlogs://"+srv.Addr+"/broker-2/state-change.log" || srcs[0].Lines != 7 {
			t.Errorf("sources: %+v", srcs)
		}
	})

	t.Run("shipper kept only the message", func(t *testing.T) {
		// A shipper that parsed the log4j line sends its message with
		// level and logger as fields: the row gets a header from them.
		path := filepath.Join(root, "worked-0.10.2", "broker-2", "state-change.log")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			ts, err := time.Parse("2006-01-02 15:04:05,000", line[1:24])
			if err != nil {
				t.Fatal(err)
			}
			level, rest, _ := strings.Cut(line[26:], " ")
			msg, logger, ok := strings.Cut(rest, " (state.change.logger)")
			if !ok || logger != "" {
				t.Fatalf("line %d: %q", i+1, line)
			}
			row, _ := json.Marshal(map[string]string{"_time": ts.Format(time.RFC3339Nano), "_msg": msg, "level": level,
				"logger": "state.change.logger", "host": "broker-2", "case": "parsed", "log.offset": fmt.Sprint(i)})
			body.Write(append(row, '\n'))
		}
		resp, err := http.Post(srv.URL+"/insert/jsonline?_stream_fields=case,host", "application/stream+json", &body)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		srv.Flush(context.Background())
		files, _, _ := audit(t, "json", path)
		store, serr, code := storeAudit(t, srv.URL, `{case="parsed"}`, nil, nil)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, serr)
		}
		election := func(out string) string {
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, `{"type":"election"`) {
					return l
				}
			}
			return ""
		}
		if e := election(files); e == "" || e != election(store) {
			t.Errorf("election from files:\n%s\nfrom parsed rows:\n%s", e, election(store))
		}
		if !strings.Contains(store, `"layouts":["json"]`) {
			t.Errorf("rows not read as the JSON layout:\n%s", store)
		}
	})

	t.Run("terminal safety", func(t *testing.T) {
		evil := "broker-9\x1b]52;c;ZXZpbA==\x07\x1b[2J"
		row, _ := json.Marshal(map[string]string{"_time": "2019-02-25T15:01:03.023Z", "_msg": "[2019-02-25 15:01:03,023] INFO \x1b[31mred\x1b[0m (kafka.server.KafkaServer)", "host": evil, "case": "evil"})
		resp, err := http.Post(srv.URL+"/insert/jsonline?_stream_fields=case,host", "application/stream+json", bytes.NewReader(row))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		srv.Flush(context.Background())
		out, serr, code := storeAudit(t, srv.URL, `{case="evil"}`, nil, func(a *AuditCmd) { a.Format = "text" })
		if code != 0 {
			t.Fatalf("exit %d: %s", code, serr)
		}
		if strings.ContainsAny(out+serr, "\x1b\x07") || !strings.Contains(out, "broker-9") {
			t.Errorf("control sequences reached the terminal:\n%q", out)
		}
	})

	t.Run("TLS with a CA file", func(t *testing.T) {
		ts := httptest.NewUnstartedServer(&proxy{target: srv.URL})
		ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is the point
		ts.StartTLS()
		defer ts.Close()
		ca := filepath.Join(t.TempDir(), "ca.pem")
		if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o644); err != nil {
			t.Fatal(err)
		}
		https := func(caFile string) func(*AuditCmd) {
			return func(a *AuditCmd) {
				a.Store.From, a.Store.StoreCA, a.Store.StoreRetries = "vlogs+https://"+strings.TrimPrefix(ts.URL, "https://"), caFile, 0
			}
		}
		_, serr, code := storeAudit(t, srv.URL, `{case="worked-0.10.2"}`, nil, https(""))
		if code != exitError || !strings.Contains(serr, "certificate") {
			t.Errorf("without the CA: exit %d, stderr %q", code, serr)
		}
		out, serr, code := storeAudit(t, srv.URL, `{case="worked-0.10.2"}`, nil, https(ca))
		if code != 0 || summaryOf(t, out)["elections"] != 1.0 {
			t.Errorf("with the CA: exit %d, stderr %q", code, serr)
		}
	})

	t.Run("credentials never on the command line", func(t *testing.T) {
		_, serr, code := storeAudit(t, "http://user:pw@"+srv.Addr, `*`, nil, nil)
		if code != exitError || !strings.Contains(serr, "do not belong on the command line") {
			t.Errorf("exit %d, stderr %q", code, serr)
		}
	})
}

// proxy stands between the audit and the real server to make it fail in
// the ways a network and a store do.
type proxy struct {
	url, target string
	mu          sync.Mutex
	rowQueries  int
	fail5xx     int    // answer this many requests with 503 first
	inject      []byte // put these lines in front of each row query's answer
	cutRowQuery int    // break off the n-th row query's answer, then refuse all
	dead        bool
	bearer      string // require this bearer token
	// shuffleTies, if set, strips log.offset from the row queries'
	// answers and puts rows with the same _time in an order drawn from
	// the seed (a store without an order field returns them so).
	shuffleTies *uint64
}

func newProxy(t *testing.T, target string) *proxy {
	p := &proxy{target: target}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: p}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	p.url = "http://" + l.Addr().String()
	return p
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	if p.dead {
		p.mu.Unlock()
		panic(http.ErrAbortHandler)
	}
	if p.bearer != "" && r.Header.Get("Authorization") != "Bearer "+p.bearer {
		p.mu.Unlock()
		http.Error(w, "bearer token required", http.StatusUnauthorized)
		return
	}
	if p.fail5xx > 0 {
		p.fail5xx--
		p.mu.Unlock()
		http.Error(w, "vlselect: storage node unavailable", http.StatusServiceUnavailable)
		return
	}
	rowQuery := strings.HasSuffix(r.URL.Path, "/select/logsql/query") && bytes.Contains(body, []byte("sort+by"))
	n := 0
	if rowQuery {
		p.rowQueries++
		n = p.rowQueries
	}
	p.mu.Unlock()
	req, _ := http.NewRequestWithContext(r.Context(), r.Method, p.target+r.URL.RequestURI(), bytes.NewReader(body))
	req.Header = r.Header.Clone()
	req.Header.Del("Accept-Encoding") // plain text, so lines can be injected and cut
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.Header().Del("Content-Length")
	w.WriteHeader(resp.StatusCode)
	if rowQuery && p.inject != nil {
		w.Write(p.inject)
	}
	if rowQuery && p.shuffleTies != nil {
		data, _ := io.ReadAll(resp.Body)
		w.Write(shuffleTies(data, *p.shuffleTies))
		return
	}
	if rowQuery && n == p.cutRowQuery {
		data, _ := io.ReadAll(resp.Body)
		w.Write(data[:len(data)/2])
		w.(http.Flusher).Flush()
		p.mu.Lock()
		p.dead = true
		p.mu.Unlock()
		panic(http.ErrAbortHandler)
	}
	io.Copy(w, resp.Body)
}

// An expired SSO session in front of the store (a 200 text/html login
// page, or a 302 to one) ends the audit with exit 1 naming what came back,
// not "the query matched no lines" and exit 0 (a --fail-on gate passing).
func TestStoreLoginPageIsAnError(t *testing.T) {
	login := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/sso/login") {
			http.Redirect(w, r, "/sso/login", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>Sign in to continue</body></html>"))
	}))
	defer login.Close()
	for _, path := range []string{"", "/sso/login"} {
		_, errs, code := storeAudit(t, login.URL+path, "*", nil, func(a *AuditCmd) { a.FailOn = "critical" })
		if code != exitError || !strings.Contains(errs, "not a VictoriaLogs answer") || strings.Contains(errs, "matched no lines") {
			t.Errorf("%q: exit %d, stderr %s", path, code, errs)
		}
		if path == "" && !strings.Contains(errs, "HTTP 302 redirect") {
			t.Errorf("302: stderr does not name the redirect: %s", errs)
		}
	}
}

// A store that sends a query's headers and a few rows, then nothing: the
// audit ends after --store-timeout with no byte (it used to wait forever),
// covers the rows that arrived, and says the result is partial.
func TestStalledStoreAnswer(t *testing.T) {
	rows := []string{
		`{"_time":"2021-04-28T16:12:30.890Z","_stream":"{host=\"broker-0\",file=\"state-change.log\"}","_msg":"[2021-04-28 16:12:30,890] INFO [Broker id=0] Leader erstesTopic-1 starts at leader epoch 10 from offset 0 with high watermark 0 ISR [0] addingReplicas [] removingReplicas []. Previous leader epoch was 9. (state.change.logger)"}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		q := r.Form.Get("query")
		switch {
		case strings.HasSuffix(r.URL.Path, "/streams"):
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"values":[{"value":"{host=\"broker-0\",file=\"state-change.log\"}","hits":2}]}`))
		case strings.HasSuffix(r.URL.Path, "/hits"):
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"hits":[{"timestamps":["2021-04-28T16:12:30Z"],"values":[2]}]}`))
		case strings.Contains(q, "| stats"):
			w.Header().Set("Content-Type", "application/stream+json")
			w.Write([]byte(`{"la_first":"2021-04-28T16:12:30.890Z","la_last":"2021-04-28T16:12:31.890Z","la_rows":"2"}` + "\n"))
		default:
			w.Header().Set("Content-Type", "application/stream+json")
			w.Write([]byte(rows[0] + "\n"))
			w.(http.Flusher).Flush()
			<-r.Context().Done() // the second row never comes
		}
	}))
	defer srv.Close()
	type res struct {
		out, errs string
		code      int
	}
	done := make(chan res, 1)
	go func() {
		out, errs, code := storeAudit(t, srv.URL, "*", nil, func(a *AuditCmd) {
			a.Store.StoreTimeout = 300 * time.Millisecond
			a.Store.StoreRetries = 1
		})
		done <- res{out, errs, code}
	}()
	var r res
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the audit waits on a stalled store")
	}
	if !strings.Contains(r.errs, "sent nothing for 300ms (--store-timeout)") || !strings.Contains(r.errs, "partial") {
		t.Errorf("exit %d, stderr %s", r.code, r.errs)
	}
	if !strings.Contains(r.out, `"type":"election","topic":"erstesTopic","partition":1,"leader_epoch":10`) || !strings.Contains(r.out, `"partial":true`) {
		t.Errorf("the row received before the stall is not audited:\n%s", r.out)
	}
}

// shuffleTies takes log.offset out of a row query's answer and shuffles
// each run of rows with the same _time. The run is first put in the
// order of (stream, offset), so the result depends on the seed and the
// rows only, not on the server's order or the chunk the rows came in.
func shuffleTies(answer []byte, seed uint64) []byte {
	type row struct {
		m      map[string]string
		off    int
		stream string
	}
	var rows []row
	for _, l := range bytes.Split(answer, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var m map[string]string
		if err := json.Unmarshal(l, &m); err != nil {
			panic(fmt.Sprintf("shuffleTies: %q: %v", l, err))
		}
		off, _ := strconv.Atoi(m["log.offset"])
		delete(m, "log.offset")
		rows = append(rows, row{m, off, m["_stream"]})
	}
	var out bytes.Buffer
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && rows[j].m["_time"] == rows[i].m["_time"] {
			j++
		}
		run := rows[i:j]
		sort.Slice(run, func(a, b int) bool {
			if run[a].stream != run[b].stream {
				return run[a].stream < run[b].stream
			}
			return run[a].off < run[b].off
		})
		h := fnv.New64a()
		h.Write([]byte(run[0].m["_time"]))
		rand.New(rand.NewPCG(seed, h.Sum64())).Shuffle(len(run), func(a, b int) { run[a], run[b] = run[b], run[a] })
		for _, r := range run {
			b, _ := json.Marshal(r.m)
			out.Write(append(b, '\n'))
		}
		i = j
	}
	return out.Bytes()
}
