package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/leaderaudit/leaderaudit/internal/report"
)

// watch DIR follows what audit DIR reads (issue 16: a log tree used to
// give 0 files): on each bundled incident's top directory, watch
// --from-start's exit report has audit's elections, producer errors and
// sources, record for record.
func TestWatchTopDirectoryIsAudit(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/incidents/*")
	for _, d := range dirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			continue
		}
		name := filepath.Base(d)
		t.Run(name, func(t *testing.T) {
			tz := []string{"UTC"}
			if set := incidentFlags[name]; set != nil {
				a := &AuditCmd{}
				set(a)
				tz = a.Read.TZ
			}
			batch, errs, code := auditWith(t, func(a *AuditCmd) { a.Read.TZ = tz }, "json", d)
			if code != exitOK {
				t.Fatalf("audit: exit %d: %s", code, errs)
			}
			var cli CLI
			p, err := newParser(&cli, stdio{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Parse([]string{"watch", "--from-start", "--", d}); err != nil {
				t.Fatal(err)
			}
			w := &cli.Watch
			w.Read.TZ = tz
			rep := watchReport(t, w)
			var wout bytes.Buffer
			jw := report.NewJSONWriter(&wout, rep.Agg.Opt.Loc)
			for _, e := range rep.Agg.Kept {
				jw.Episode(e.Episode)
			}
			for _, pe := range rep.Agg.ErrorList {
				jw.ProducerError(pe)
			}
			if err := rep.WriteJSON(jw); err != nil {
				t.Fatal(err)
			}
			for _, typ := range []string{"election", "producer_error", "source"} {
				want, got := only(batch, typ), only(wout.String(), typ)
				if typ == "election" && len(want) == 0 {
					t.Fatalf("audit %s found no election", d)
				}
				if !slices.Equal(got, want) {
					t.Errorf("watch %s: %s records differ from audit's:\n%s", d, typ, diffLines(want, got))
				}
			}
		})
	}
}

// only is the sorted JSON lines of one record type.
func only(out, typ string) []string {
	var recs []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.Contains(l, `"type":"`+typ+`"`) {
			recs = append(recs, l)
		}
	}
	slices.Sort(recs)
	return recs
}
