package main

import (
	"context"
	"encoding/json"
	"os"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/gen"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/leaderaudit/leaderaudit/internal/vltest"
)

// withoutLines takes out what pushdown changes by design: the sources'
// line and record counts, and line numbers (a stream's rows are counted
// as read, and the store leaves some out).
func withoutLines(s, root string) string {
	s = strings.ReplaceAll(s, root, "")
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if strings.HasPrefix(l, `{"type":"source"`) {
			// What was not read: how much, and when the first and last
			// record of it were.
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err == nil {
				for _, k := range []string{"lines", "records", "not_understood", "unparsed", "bytes", "first", "last", "levels", "out_of_order", "cut_lines", "writers"} {
					delete(m, k)
				}
				b, _ := json.Marshal(m)
				l = string(b)
			}
		}
		l = lineRef.ReplaceAllString(l, "${1}N")
		if strings.HasPrefix(l, `{"type":"clock_skew"`) {
			// Which pairs are the evidence changes from run to run,
			// auditing the same files too (internal/skew).
			l = skewEvidence.ReplaceAllString(l, `"evidence":…`)
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

var skewEvidence = regexp.MustCompile(`"evidence":\[.*\]`)

var lineRef = regexp.MustCompile(`("line":|\.log:|\.log" line |:)[0-9]+\b`)

// With the filter pushed into the store (the default), the audit read
// back is the files' audit: the same events and findings, in the same
// order; only line numbers and the sources' counts differ, as fewer rows
// come back.
func TestLogStorePushdown(t *testing.T) {
	srv := vltest.Start(t)
	ingestIncidents(t, srv)
	root := filepath.Join("..", "..", "testdata", "incidents") + string(filepath.Separator)
	storeRoot := "vlogs://" + srv.Addr + "/"
	var fileRecords, storeRecords int64
	for _, c := range incidents {
		t.Run(c, func(t *testing.T) {
			files, _, fcode := audit(t, "json", root+c)
			store, serr, scode := storeAudit(t, srv.URL, `{case="`+c+`"}`, nil, func(a *AuditCmd) { a.Store.NoPushdown = false })
			if fcode != 0 || scode != 0 || serr != "" {
				t.Fatalf("exit %d / %d: %s", fcode, scode, serr)
			}
			sameRecords(t, withoutLines(files, root+c+string(filepath.Separator)), withoutLines(store, storeRoot), "", "")
			fileRecords += sourceRecords(t, files)
			storeRecords += sourceRecords(t, store)
		})
	}
	// The incidents hold a few log cleaner and group coordinator records:
	// the store left them out.
	if storeRecords >= fileRecords {
		t.Errorf("the store returned %d records, the files hold %d: nothing was left out", storeRecords, fileRecords)
	}
	// Generated sets are noise-dominated (the cleaner, segments, the
	// coordinator, kafka.log.Log): most rows are left out.
	for _, era := range gen.Eras {
		t.Run(string(era), func(t *testing.T) {
			dir := t.TempDir()
			cfg := gen.DefaultConfig()
			cfg.Era, cfg.Size, cfg.Seed = era, 2<<20, 5
			if _, err := gen.Generate(cfg, dir); err != nil {
				t.Fatal(err)
			}
			os.Remove(filepath.Join(dir, "truth.jsonl")) // the generator's answers, not a log
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if fi, e := os.Stat(p); err == nil && e == nil && !d.IsDir() && fi.Size() == 0 {
					os.Remove(p) // an empty file is a source; a store has no stream for it
				}
				return nil
			})
			extra := map[string]string{"set": "pushdown-" + string(era)}
			files, err := vltest.Files(dir, extra)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := vltest.Ingest(context.Background(), srv.URL, files, vltest.StreamFields(extra), time.UTC); err != nil {
				t.Fatal(err)
			}
			if err := srv.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
			want, _, _ := audit(t, "json", dir)
			got, serr, code := storeAudit(t, srv.URL, `{set="pushdown-`+string(era)+`"}`, nil, func(a *AuditCmd) { a.Store.NoPushdown = false })
			if code != 0 {
				t.Fatalf("exit %d: %s", code, serr)
			}
			sameRecords(t, withoutLines(want, dir+string(filepath.Separator)), withoutLines(got, storeRoot), "", "")
			if f, s := sourceRecords(t, want), sourceRecords(t, got); s*10 > f*7 {
				t.Errorf("the store returned %d of %d records", s, f)
			} else {
				t.Logf("the store returned %d of %d records", s, f)
			}
		})
	}
	t.Run("the user's query stays the scope", func(t *testing.T) {
		c := "case1-0.10.2-no-retries"
		files, _, _ := audit(t, "json", root+c+"/broker-1", root+c+"/broker-2", root+c+"/broker-3")
		store, serr, code := storeAudit(t, srv.URL, `{case="`+c+`",host=~"broker-.*"}`, nil, func(a *AuditCmd) { a.Store.NoPushdown = false })
		if code != 0 {
			t.Fatalf("exit %d: %s", code, serr)
		}
		sameRecords(t, withoutLines(files, root+c+string(filepath.Separator)), withoutLines(store, storeRoot), "", "")
	})
}

// sourceRecords sums the sources' record counts of an audit.
func sourceRecords(t *testing.T, out string) int64 {
	t.Helper()
	var n int64
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, `{"type":"source"`) {
			continue
		}
		var s struct{ Records int64 }
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatal(err)
		}
		n += s.Records
	}
	return n
}
