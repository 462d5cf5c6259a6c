package logstore

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// vlogsFor points a client at srv, with basic-auth credentials.
func vlogsFor(t *testing.T, srv *httptest.Server, timeout time.Duration) *VLogs {
	t.Helper()
	scheme := "vlogs://"
	if strings.HasPrefix(srv.URL, "https://") {
		scheme = "vlogs+https://"
	}
	env := map[string]string{EnvUser: "auditor", EnvPassword: "s3cret"}
	v, err := NewVLogs(scheme+strings.TrimPrefix(strings.TrimPrefix(srv.URL, "http://"), "https://"), VLogsOptions{Timeout: timeout, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(srv.URL, "https://") {
		v.client.Transport.(*http.Transport).TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig
	}
	return v
}

// A redirect to another origin is refused before anything is sent there:
// a 307 from https to http (the credentials in cleartext), to another
// port (the token to another service), to another host (rows from a store
// the report would not name); a 302 (a login page) is refused too. A 307
// on the same origin (a proxy's path) is followed, credentials and all.
func TestRedirectsKeepTheCredentials(t *testing.T) {
	var mu sync.Mutex
	var leaked []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"values":[{"value":"{host=\"evil\"}","hits":1}]}`))
	}))
	defer other.Close()
	target := ""
	code := 0
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/moved/") {
			if u, _, ok := r.BasicAuth(); !ok || u != "auditor" {
				http.Error(w, "no credentials", http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"values":[{"value":"{host=\"broker-1\"}","hits":3}]}`))
			return
		}
		http.Redirect(w, r, target+r.URL.Path, code)
	})
	tlsSrv := httptest.NewTLSServer(handler)
	defer tlsSrv.Close()
	plain := httptest.NewServer(handler)
	defer plain.Close()
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		srv    *httptest.Server
		target string
		code   int
		want   string
	}{
		{"https to http", tlsSrv, other.URL, http.StatusTemporaryRedirect, "another origin"},
		{"another port", plain, other.URL, http.StatusTemporaryRedirect, "another origin"},
		{"another host", plain, strings.Replace(other.URL, "127.0.0.1", "localhost", 1), http.StatusTemporaryRedirect, "another origin"},
		{"302 to a login page", plain, plain.URL + "/login", http.StatusFound, "HTTP 302 redirect"},
	} {
		target, code = c.target, c.code
		v := vlogsFor(t, c.srv, 5*time.Second)
		_, err := v.Streams(ctx, Query{Text: "*"})
		var ae *AnswerError
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "not followed") {
			t.Errorf("%s: %v", c.name, err)
		}
		if Retryable(err) {
			t.Errorf("%s: a refused redirect is retried", c.name)
		}
	}
	mu.Lock()
	if len(leaked) > 0 {
		t.Errorf("requests reached the other origin, Authorization %q", leaked)
	}
	mu.Unlock()
	target, code = plain.URL+"/moved", http.StatusTemporaryRedirect
	ss, err := vlogsFor(t, plain, 5*time.Second).Streams(ctx, Query{Text: "*"})
	if err != nil || len(ss) != 1 || ss[0].Fields["host"] != "broker-1" {
		t.Errorf("same-origin 307: %v %v", ss, err)
	}
}

// Answers that are not VictoriaLogs' are errors naming what came back,
// never "the query matched no lines": an SSO login page (200 text/html),
// stats that are not JSON, JSON of another shape.
func TestNotAVictoriaLogsAnswer(t *testing.T) {
	ct, body := "", ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		w.Write([]byte(body))
	}))
	defer srv.Close()
	v := vlogsFor(t, srv, 5*time.Second)
	ctx := context.Background()
	q := Query{Text: "*"}
	extent := func() error { _, _, _, err := v.Extent(ctx, q); return err }
	streams := func() error { _, err := v.Streams(ctx, q); return err }
	hits := func() error { _, err := v.Counts(ctx, q, time.Second); return err }
	for _, c := range []struct {
		name, ct, body string
		call           func() error
		want           string
	}{
		{"login page", "text/html; charset=utf-8", "<html><title>Sign in</title></html>", extent, `Content-Type text/html; charset=utf-8, not a VictoriaLogs answer (a login page or a proxy in front of the store?): "<html><title>Sign in</title></html>"`},
		{"login page, streams", "text/html", "<html>", streams, "text/html"},
		{"no content type", "", "", extent, "no Content-Type"},
		{"malformed stats", "application/stream+json", "{la_first: 2024}\n", extent, "the stats answer is not a JSON object"},
		{"stats of another shape", "application/stream+json", `{"status":"ok"}` + "\n", extent, "no la_rows"},
		{"empty stats", "application/stream+json", "", extent, "no la_rows"},
		{"streams of another shape", "application/json", `{"status":"ok"}`, streams, `no "values"`},
		{"hits of another shape", "application/json", `{"data":[]}`, hits, `no "hits"`},
		{"streams not JSON", "application/json", `<html>`, streams, "unreadable answer"},
	} {
		ct, body = c.ct, c.body
		err := c.call()
		var ae *AnswerError
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	ct, body = "application/stream+json", `{"la_first":"","la_last":"","la_rows":"0"}`+"\n"
	if _, _, ok, err := v.Extent(ctx, q); ok || err != nil {
		t.Errorf("a real empty extent: %v %v", ok, err)
	}
}

// An answer that sends its headers and then nothing ends after
// --store-timeout with no bytes, not never; the rows before the stall are
// handed on and the error says what happened.
func TestStalledAnswerTimesOut(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/stream+json")
		w.Write([]byte(`{"_time":"2024-09-30T11:59:58.102Z","_msg":"a","_stream":"{host=\"b1\"}"}` + "\n"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	v := vlogsFor(t, srv, 300*time.Millisecond)
	var rows []string
	done := make(chan error, 1)
	go func() {
		done <- v.Rows(context.Background(), Query{Text: "*"}, func(r *Row) error {
			rows = append(rows, string(r.Msg))
			return nil
		})
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("a stalled answer is waited on forever")
	}
	if !errors.Is(err, ErrStalled) || !strings.Contains(err.Error(), "sent nothing for 300ms (--store-timeout)") || len(rows) != 1 {
		t.Errorf("rows %q, err %v", rows, err)
	}
}
