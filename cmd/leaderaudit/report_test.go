package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/leaderaudit/leaderaudit/internal/report"
	"github.com/leaderaudit/leaderaudit/internal/source"
)

// audit, audit --follow and watch's exit report render one report: on
// every bundled incident the three give the same set of JSON records
// (elections, producer errors, bursts, context, sources, clock skew, zone
// hints, findings, summary), and watch's exit text is audit's.
//
// The three read the same file list; and watch on the incident's top
// directory has the elections, producer errors and sources of audit on
// it (issue 16: watch DIR followed only the files directly in DIR, none
// in a broker-N/ tree). --skew auto is left out: it reads the logs twice,
// which following cannot.
func TestOneReportFromEveryCommand(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/incidents/*")
	for _, d := range dirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			continue
		}
		name := filepath.Base(d)
		t.Run(name, func(t *testing.T) {
			ins, _ := source.Discover([]string{d}, 0)
			var files []string
			for _, in := range ins {
				files = append(files, in.Path)
			}
			tz := []string{"UTC"}
			if set := incidentFlags[name]; set != nil {
				a := &AuditCmd{}
				set(a)
				tz = a.Read.TZ
			}
			withTZ := func(a *AuditCmd) { a.Read.TZ = tz }

			batch, errs, code := auditWith(t, withTZ, "json", files...)
			if code != exitOK {
				t.Fatalf("audit: exit %d: %s", code, errs)
			}
			batchText, _, _ := auditWith(t, withTZ, "text", files...)

			a := parseAudit(t, append([]string{"--follow", "--format", "json", "--"}, files...)...)
			a.Read.TZ = tz
			ctx, cancel := context.WithCancel(context.Background())
			var fout, ferr bytes.Buffer
			if err := a.follow(ctx, &fout, &ferr, cancel); err != nil {
				t.Fatalf("audit --follow: %v: %s", err, ferr.String())
			}

			wout, rep := watchRecords(t, tz, files...)

			want := sortedLines(batch, "")
			for _, typ := range []string{"election", "finding", "summary", "source"} {
				if !strings.Contains(batch, `"type":"`+typ+`"`) {
					t.Errorf("audit wrote no %s record", typ)
				}
			}
			if got := sortedLines(fout.String(), ""); !slices.Equal(got, want) {
				t.Errorf("audit --follow differs from audit:\n%s", diffLines(want, got))
			}
			// Bursts are not kept by the collector one by one with their
			// durations; compare the rest.
			if got, want := sortedLines(wout, "burst"), sortedLines(batch, "burst"); !slices.Equal(got, want) {
				t.Errorf("watch's report differs from audit:\n%s", diffLines(want, got))
			}
			wdir, _ := watchRecords(t, tz, d)
			for _, typ := range []string{"election", "producer_error", "source"} {
				if got, want := only(wdir, typ), only(batch, typ); !slices.Equal(got, want) || typ == "election" && len(want) == 0 {
					t.Errorf("watch %s: %s records differ from audit's:\n%s", d, typ, diffLines(want, got))
				}
			}
			var wtext bytes.Buffer
			if err := rep.WriteText(&wtext); err != nil {
				t.Fatal(err)
			}
			if wtext.String() != batchText {
				t.Errorf("watch's exit text differs from audit's:\n%s", diffLines(strings.Split(batchText, "\n"), strings.Split(wtext.String(), "\n")))
			}
		})
	}
}

// watchReport runs watch's pipeline over its files until the read-back
// is over, and builds the exit report as watch does when the screen is
// closed.
func watchReport(t *testing.T, w *WatchCmd) *report.Report {
	t.Helper()
	rep, _ := watchExit(t, w)
	return rep
}

// watchExit is watchReport, and the sources whose errors decide watch's
// exit status.
func watchExit(t *testing.T, w *WatchCmd) (*report.Report, []*source.Source) {
	t.Helper()
	p, rp, _, err := w.pipeline(func() error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	for s := range p.Updates() {
		if s.Live {
			cancel()
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	srcs := p.Inputs()
	return rp.build(p.Timeline(), srcs, nil, p.Skipped(), false), srcs
}

// sortedLines sorts JSON lines (the stream's order depends on when the
// timeline finishes each), leaving out those of type skip.
func sortedLines(out, skip string) []string {
	var recs []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if skip != "" && strings.Contains(l, `"type":"`+skip+`"`) {
			continue
		}
		recs = append(recs, l)
	}
	slices.Sort(recs)
	return recs
}

func diffLines(want, got []string) string {
	var b strings.Builder
	for _, l := range want {
		if !slices.Contains(got, l) {
			b.WriteString("- " + first(l, 400) + "\n")
		}
	}
	for _, l := range got {
		if !slices.Contains(want, l) {
			b.WriteString("+ " + first(l, 400) + "\n")
		}
	}
	return b.String()
}
