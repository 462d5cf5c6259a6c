package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/vltest"
)

// A VictoriaLogs cluster: two vlstorage nodes behind one vlinsert+vlselect
// node. The bundled incidents are ingested through it and audited back
// through it; tenants are kept apart; a storage node that stops answering
// mid-query gives a partial audit that says so (vlselect with
// -search.allowPartialResponse answers 200 with fewer rows), or, without
// that flag, the server's error.
func TestLogStoreCluster(t *testing.T) {
	c := vltest.StartCluster(t, 2, "-search.allowPartialResponse")
	ctx := context.Background()
	root := filepath.Join("..", "..", "testdata", "incidents")
	sent := map[string]int64{}
	ingest := func(tenant, cs string, as string) {
		extra := map[string]string{"case": as}
		files, err := vltest.Files(filepath.Join(root, cs), extra)
		if err != nil {
			t.Fatal(err)
		}
		var plain []vltest.File
		for _, f := range files {
			if cs == "case4-clock-skew" && strings.Contains(filepath.ToSlash(f.Path), "/broker-2/") {
				n, _, err := vltest.IngestTenant(ctx, c.Front.URL, tenant, []vltest.File{f}, vltest.StreamFields(extra), moscow(t))
				if err != nil {
					t.Fatal(err)
				}
				sent[tenant] += n
				continue
			}
			plain = append(plain, f)
		}
		n, _, err := vltest.IngestTenant(ctx, c.Front.URL, tenant, plain, vltest.StreamFields(extra), time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		sent[tenant] += n
	}
	for _, cs := range incidents {
		ingest("", cs, cs)
	}
	ingest("7:9", "case1-0.10.2-no-retries", "tenant-case1")
	waitRows(t, c, "", sent[""])
	waitRows(t, c, "7:9", sent["7:9"])
	storeRoot := "vlogs://" + c.Front.Addr + "/"
	dir := func(cs string) string { return filepath.Join(root, cs) + string(filepath.Separator) }

	t.Run("equals files", func(t *testing.T) {
		for _, cs := range incidents {
			files, _, _ := audit(t, "json", dir(cs))
			store, serr, code := storeAudit(t, c.Front.URL, `{case="`+cs+`"}`, nil, nil)
			if code != 0 || serr != "" {
				t.Fatalf("%s: exit %d: %s", cs, code, serr)
			}
			sameRecords(t, files, store, dir(cs), storeRoot)
		}
	})

	t.Run("tenants apart", func(t *testing.T) {
		cs := "case1-0.10.2-no-retries"
		files, _, _ := audit(t, "json", dir(cs))
		store, serr, code := storeAudit(t, c.Front.URL, `{case="tenant-case1"}`, nil, func(a *AuditCmd) { a.Store.StoreTenant = "7:9" })
		if code != 0 {
			t.Fatalf("exit %d: %s", code, serr)
		}
		sameRecords(t, files, store, dir(cs), storeRoot)
		for _, q := range []struct{ tenant, query string }{{"", `{case="tenant-case1"}`}, {"7:9", `{case="` + cs + `"}`}, {"7:8", `{case="tenant-case1"}`}} {
			out, serr, code := storeAudit(t, c.Front.URL, q.query, nil, func(a *AuditCmd) { a.Store.StoreTenant = q.tenant })
			if code != 0 || !strings.Contains(serr, "the query matched no lines") {
				t.Errorf("tenant %q, %s: exit %d, stderr %q", q.tenant, q.query, code, serr)
			}
			if s := summaryOf(t, out); s["sources"] != 0.0 {
				t.Errorf("tenant %q, %s: %v sources", q.tenant, q.query, s["sources"])
			}
		}
	})

	// The last: it stops a storage node.
	t.Run("storage node stops mid-query", func(t *testing.T) {
		strict, err := vltest.StartBinary(vltest.Binary(t), t.TempDir(), "-storageNode="+c.Storage[0].Addr+","+c.Storage[1].Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer strict.Stop()
		cs := "case3-acks1-zk-expiry"
		// The store counts the rows with every node up; then, as the rows
		// are asked for, one node goes.
		var once sync.Once
		proxy := stopOnRows(t, c.Front.URL, func() { once.Do(c.Storage[1].Stop) })
		out, serr, code := storeAudit(t, proxy, `{case="`+cs+`"}`, nil, nil)
		if code != 0 || !strings.Contains(serr, "rows it counted") || !strings.Contains(serr, "partial") {
			t.Fatalf("exit %d, stderr %q", code, serr)
		}
		if s := summaryOf(t, out); s["partial"] != true {
			t.Errorf("summary not partial: %v", s)
		}
		_, serr, code = storeAudit(t, strict.URL, `{case="`+cs+`"}`, nil, func(a *AuditCmd) { a.Store.StoreRetries = 0 })
		if code != exitError || !strings.Contains(serr, "HTTP 502") || !strings.Contains(serr, "storage node") {
			t.Errorf("without partial responses: exit %d, stderr %q", code, serr)
		}
	})
}

// waitRows waits until the cluster holds all rows of tenant: vlinsert
// hands rows to the storage nodes in the background.
func waitRows(t *testing.T, c *vltest.Cluster, tenant string, rows int64) {
	t.Helper()
	for range 100 {
		c.Flush(context.Background())
		req, _ := http.NewRequest(http.MethodPost, c.Front.URL+"/select/logsql/query", strings.NewReader(url.Values{"query": {"* | stats count() n"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if acc, proj, ok := strings.Cut(tenant, ":"); ok {
			req.Header.Set("AccountID", acc)
			req.Header.Set("ProjectID", proj)
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			var m struct{ N string }
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if json.Unmarshal(b, &m) == nil && m.N == strconv.FormatInt(rows, 10) {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("tenant %q: the cluster never held the %d rows sent", tenant, rows)
}

// stopOnRows forwards to target and calls stop before the first row
// query (a sorted /select/logsql/query) goes on.
func stopOnRows(t *testing.T, target string, stop func()) string {
	u, _ := url.Parse(target)
	rp := httputil.NewSingleHostReverseProxy(u)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/select/logsql/query") {
			r.ParseForm()
			if strings.Contains(r.PostForm.Get("query"), "sort by") {
				stop()
			}
			r.Body = io.NopCloser(strings.NewReader(r.PostForm.Encode()))
			r.ContentLength = int64(len(r.PostForm.Encode()))
		}
		rp.ServeHTTP(w, r)
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return "http://" + l.Addr().String()
}
