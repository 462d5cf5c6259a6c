package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leaderaudit/leaderaudit/internal/gen"
)

// TestSweepCadenceDoesNotChangeTheAudit audits the same logs with the
// timeline swept after every event, after every 1,024 (the default) and
// after every 65,536, and wants the same report. The sweep only forgets
// what no later line can use; before, it decided things: an epoch-less
// fetcher line 18 s after its LeaderAndIsr joined that election (a
// follower's apply time of 18,289 ms instead of 2 ms) only if no sweep had
// come in between, a stale held "Removed fetcher" line took a newer one's
// place, a catch-up line after an election's hand-over counted or not, and
// elections and producer errors came out in the order sweeps reached them.
//
// The JSON lines of each type must be identical, in order; how the two
// types interleave follows the sweeps (each record is written once it is
// settled). The text report, which sorts, must be byte-identical.
func TestSweepCadenceDoesNotChangeTheAudit(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and audits several data sets three times")
	}
	defer func(n int64) { sweepEvery = n }(sweepEvery)
	type set struct{ name, dir string }
	var sets []set
	incidents, err := filepath.Glob(filepath.Join("..", "..", "testdata", "incidents", "*"))
	if err != nil || len(incidents) == 0 {
		t.Fatalf("no bundled incidents: %v", err)
	}
	for _, d := range incidents {
		sets = append(sets, set{"incidents/" + filepath.Base(d), d})
	}
	eras := gen.Eras
	if raceEnabled {
		eras = eras[:1]
	}
	for _, era := range eras {
		cfg := gen.DefaultConfig()
		// Enough unrelated lines that sweeps fall between an election's
		// lines, and several broker restarts (catch-ups, held fetcher
		// lines hours apart).
		cfg.Era, cfg.Seed, cfg.Size, cfg.Noise = era, 5, 12<<20, 4
		dir := t.TempDir()
		if _, err := gen.Generate(cfg, dir); err != nil {
			t.Fatal(err)
		}
		sets = append(sets, set{string(era), dir})
	}
	for _, s := range sets {
		t.Run(s.name, func(t *testing.T) {
			var paths []string
			entries, err := os.ReadDir(s.dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if e.IsDir() {
					paths = append(paths, filepath.Join(s.dir, e.Name()))
				}
			}
			if len(paths) == 0 {
				paths = []string{s.dir}
			}
			var wantJSON map[string][]string
			var wantText string
			for i, every := range []int64{1024, 1, 1 << 16} {
				sweepEvery = every
				out, stderr, code := audit(t, "json", paths...)
				if code != exitOK {
					t.Fatalf("every %d: exit %d: %s", every, code, stderr)
				}
				byType := map[string][]string{}
				for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
					var r struct {
						Type string `json:"type"`
					}
					if err := json.Unmarshal([]byte(l), &r); err != nil {
						t.Fatalf("every %d: %v: %s", every, err, l)
					}
					byType[r.Type] = append(byType[r.Type], l)
				}
				text, _, _ := audit(t, "text", paths...)
				if i == 0 {
					wantJSON, wantText = byType, text
					if len(byType["election"]) == 0 {
						t.Fatal("no elections audited")
					}
					continue
				}
				for typ, want := range wantJSON {
					if d := firstDiff(want, byType[typ]); d != "" {
						t.Errorf("sweep every %d events: %s records differ from every 1024: %s", every, typ, d)
					}
				}
				if text != wantText {
					t.Errorf("sweep every %d events: text report differs from every 1024: %s", every,
						firstDiff(strings.Split(wantText, "\n"), strings.Split(text, "\n")))
				}
			}
		})
	}
}

// firstDiff describes where two line lists first differ, "" if equal.
func firstDiff(a, b []string) string {
	n := 0
	for i := 0; i < len(a) || i < len(b); i++ {
		if i < len(a) && i < len(b) && a[i] == b[i] {
			continue
		}
		n++
	}
	if n == 0 {
		return ""
	}
	for i := 0; ; i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("%d of %d/%d lines; first at %d:\n  want %.300s\n  got  %.300s", n, len(a), len(b), i, x, y)
		}
	}
}
