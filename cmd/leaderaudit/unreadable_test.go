package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leaderaudit/leaderaudit/internal/report"
	"github.com/leaderaudit/leaderaudit/internal/unpriv"
)

// A file found by walking that cannot be opened, and a directory that
// cannot be listed, are errors of the report (text and the JSON source
// record) and exit 1, in audit, audit --follow and watch; the readable
// file is still audited. They were a stderr note and a "skipped" line
// with exit 0, so `--fail-on` gates passed on a report missing a broker.
func TestUnreadableFoundFileFails(t *testing.T) {
	if unpriv.Elsewhere(t) {
		return
	}
	dir := t.TempDir()
	line := "[2024-01-01 10:00:00,000] INFO [Broker id=1] Leader t-0 starts at leader epoch 1 from offset 0 with high watermark 0 ISR [1] addingReplicas [] removingReplicas []. Previous leader epoch was 0. (state.change.logger)\n"
	for _, b := range []string{"b1", "b2", "b3"} {
		if err := os.MkdirAll(filepath.Join(dir, b), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, b, "state-change.log"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	locked, hidden := filepath.Join(dir, "b2", "state-change.log"), filepath.Join(dir, "b3")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(hidden, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(hidden, 0o755) // for TempDir's removal

	wantErrs := map[string]string{locked: "permission denied", hidden: "cannot list the directory: permission denied"}
	checkJSON := func(name, out string) {
		t.Helper()
		got := map[string]string{}
		events := map[string]float64{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) != nil || m["type"] != "source" {
				continue
			}
			p, _ := m["path"].(string)
			e, _ := m["error"].(string)
			got[p] = e
			events[p], _ = m["events"].(float64)
		}
		for p, w := range wantErrs {
			if got[p] != w {
				t.Errorf("%s: source %s: error %q, want %q", name, p, got[p], w)
			}
		}
		if ok := filepath.Join(dir, "b1", "state-change.log"); got[ok] != "" || events[ok] != 1 {
			t.Errorf("%s: the readable file: error %q, %v events", name, got[ok], events[ok])
		}
	}

	text, errs, code := auditWith(t, nil, "text", dir)
	if code != exitError {
		t.Errorf("audit: exit %d, want %d; stderr %s", code, exitError, errs)
	}
	for _, w := range []string{"ERROR: permission denied", "ERROR: cannot list the directory: permission denied"} {
		if !strings.Contains(text, w) {
			t.Errorf("audit's text report has no %q:\n%s", w, text)
		}
	}
	// A file not opened says so, not "0 lines" read in a zone.
	if !strings.Contains(text, "b2/state-change.log  state-change.log · nothing read\n") || strings.Count(text, "assumed UTC") != 1 {
		t.Errorf("audit's text report names the unread file's lines and zone:\n%s", text)
	}
	if !strings.Contains(errs, "2 file(s) found could not be read") {
		t.Errorf("audit's stderr: %s", errs)
	}
	js, _, code := auditWith(t, nil, "json", dir)
	if code != exitError {
		t.Errorf("audit --format json: exit %d", code)
	}
	checkJSON("audit", js)

	a := parseAudit(t, "--tz", "UTC", "--follow", "--format", "json", "--", dir)
	ctx, cancel := context.WithCancel(context.Background())
	var fout, ferr bytes.Buffer
	if code := exitStatus(a.follow(ctx, &fout, &ferr, cancel), &ferr); code != exitError {
		t.Errorf("audit --follow: exit %d; stderr %s", code, ferr.String())
	}
	checkJSON("audit --follow", fout.String())

	// watch --from-start: its exit report, and what its run returns.
	var wcli CLI
	p, err := newParser(&wcli, stdio{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Parse([]string{"watch", "--tz", "UTC", "--from-start", "--", dir}); err != nil {
		t.Fatal(err)
	}
	rep, srcs := watchExit(t, &wcli.Watch)
	if code := exitStatus(unreadFiles(srcs), &bytes.Buffer{}); code != exitError {
		t.Errorf("watch: exit %d", code)
	}
	var wout bytes.Buffer
	jw := report.NewJSONWriter(&wout, rep.Agg.Opt.Loc)
	jw.Path = rep.SourcePath
	if err := rep.WriteJSON(jw); err != nil {
		t.Fatal(err)
	}
	checkJSON("watch", wout.String())
}
