package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/leaderaudit/leaderaudit/internal/report"
)

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

// watchRecords runs watch --from-start over paths (zones tz) until the
// read-back is over and renders its exit report as JSON lines: watch
// streams nothing, so its elections and producer errors are the ones the
// collector kept.
func watchRecords(t *testing.T, tz []string, paths ...string) (string, *report.Report) {
	t.Helper()
	var cli CLI
	p, err := newParser(&cli, stdio{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Parse(append([]string{"watch", "--from-start", "--"}, paths...)); err != nil {
		t.Fatal(err)
	}
	w := &cli.Watch
	w.Read.TZ = tz
	rep := watchReport(t, w)
	return renderWatch(t, rep), rep
}

// renderWatch renders watch's exit report as JSON lines, the elections and
// producer errors its collector kept first.
func renderWatch(t *testing.T, rep *report.Report) string {
	t.Helper()
	var out bytes.Buffer
	jw := report.NewJSONWriter(&out, rep.Agg.Opt.Loc)
	jw.Path = rep.SourcePath
	for _, e := range rep.Agg.Kept {
		jw.Episode(e.Episode)
	}
	for _, pe := range rep.Agg.ErrorList {
		jw.ProducerError(pe)
	}
	if err := rep.WriteJSON(jw); err != nil {
		t.Fatal(err)
	}
	return out.String()
}
