package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/gen"
)

// The audit of the project's own generator output equals its truth, record
// by record: every producer error the generator wrote is found once, with
// its client, topic, final flag, partition (or, where the client's lines
// cannot tell, null with the true partition among the candidates), match
// class and election. Every era, both producer layouts, three seeds.
//
// The truth classifies by the elections' true windows (gen.Classify: no
// skew tolerance, "after" within gen.AfterWindowMs), so the audit runs
// with --skew-tolerance 0 --stale-window 2s. Where an election's window as
// audited differs from the truth's (an election measure, not matching),
// the error must match exactly what Classify gives on the audited windows;
// those are counted and logged.
func TestAuditEqualsGeneratorTruth(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and audits 24 data sets")
	}
	window := 0
	for _, era := range gen.Eras {
		for _, layout := range []string{gen.LayoutLog4j, gen.LayoutSpring} {
			for seed := int64(1); seed <= 3; seed++ {
				name := fmt.Sprintf("%s/%s/%d", era, layout, seed)
				t.Run(name, func(t *testing.T) {
					window += auditAgainstTruth(t, era, layout, seed)
				})
			}
		}
	}
	t.Logf("%d errors matched as Classify says on the audited election windows, which differ from the truth's", window)
}

type auditedError struct {
	Type         string          `json:"type"`
	Time         string          `json:"time"`
	ClientID     *string         `json:"client_id"`
	Topic        string          `json:"topic"`
	Partition    *int32          `json:"partition"`
	Candidates   []int32         `json:"candidates"`
	Error        string          `json:"error"`
	AttemptsLeft *int64          `json:"attempts_left"`
	Final        bool            `json:"final"`
	Lines        json.RawMessage `json:"lines"`
	Match        string          `json:"match"`
	Election     *struct {
		Topic       string `json:"topic"`
		Partition   int32  `json:"partition"`
		LeaderEpoch int32  `json:"leader_epoch"`
	} `json:"election"`
	// election records
	LeaderEpoch int32  `json:"leader_epoch"`
	Start       string `json:"start"`
	End         string `json:"end"`
}

func ms(t *testing.T, s string) int64 {
	t.Helper()
	x, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return x.UnixMilli()
}

type tpKey struct {
	topic string
	part  int32
}

func auditAgainstTruth(t *testing.T, era gen.Era, layout string, seed int64) (window int) {
	cfg := gen.DefaultConfig()
	cfg.Era, cfg.ProducerLayout, cfg.Seed = era, layout, seed
	// Few unrelated lines: many incidents, and so many producer errors,
	// in a small data set.
	cfg.Size, cfg.Noise = 3<<20, 2
	dir := t.TempDir()
	truth, err := gen.Generate(cfg, dir)
	if err != nil {
		t.Fatal(err)
	}
	a := parseAudit(t, "--tz", "UTC", "--format", "json", "--skew-tolerance", "0", "--stale-window", "2s", "--", dir)
	out, stderr, code := runAudit(a)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var errs []auditedError
	audited := map[tpKey][]*gen.Election{}
	windows := map[[3]any][2]int64{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r auditedError
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		switch r.Type {
		case "producer_error":
			errs = append(errs, r)
		case "election":
			var p struct {
				Partition int32 `json:"partition"`
			}
			json.Unmarshal([]byte(l), &p)
			e := &gen.Election{Topic: r.Topic, Partition: p.Partition, LeaderEpoch: r.LeaderEpoch, Start: ms(t, r.Start), End: ms(t, r.End)}
			k := tpKey{r.Topic, p.Partition}
			audited[k] = append(audited[k], e)
			windows[[3]any{r.Topic, p.Partition, r.LeaderEpoch}] = [2]int64{e.Start, e.End}
		}
	}
	for _, els := range audited {
		sort.SliceStable(els, func(i, j int) bool { return els[i].LeaderEpoch < els[j].LeaderEpoch })
	}
	sort.SliceStable(errs, func(i, j int) bool {
		if errs[i].Time != errs[j].Time {
			return errs[i].Time < errs[j].Time
		}
		return deref(errs[i].ClientID) < deref(errs[j].ClientID)
	})
	want := truth.ProducerErrors
	if len(errs) != len(want) {
		t.Fatalf("%d producer errors audited, truth has %d", len(errs), len(want))
	}
	for i, w := range want {
		g := errs[i]
		at := fmt.Sprintf("error %d (%s %s %s-%d)", i, g.Time, w.ClientID, w.Topic, w.Partition)
		if ms(t, g.Time) != w.Time || deref(g.ClientID) != w.ClientID || g.Topic != w.Topic || g.Error != w.Error || g.Final != w.Final {
			t.Errorf("%s: audited %s %s %s %s final=%v, truth final=%v", at, g.Time, deref(g.ClientID), g.Topic, g.Error, g.Final, w.Final)
			continue
		}
		if (g.AttemptsLeft == nil) != (w.AttemptsLeft < 0) || g.AttemptsLeft != nil && *g.AttemptsLeft != w.AttemptsLeft {
			t.Errorf("%s: attempts_left %v, truth %d", at, g.AttemptsLeft, w.AttemptsLeft)
		}
		var lines []string
		if json.Unmarshal(g.Lines, &lines) != nil || len(lines) == 0 {
			t.Errorf("%s: no lines", at)
		}
		parts := []int32{w.Partition}
		if g.Partition == nil {
			// Ambiguous by the lines: the truth must be a candidate.
			if !slices.Contains(g.Candidates, w.Partition) || len(g.Candidates) < 2 {
				t.Errorf("%s: partition null, candidates %v", at, g.Candidates)
				continue
			}
			parts = g.Candidates
		} else if *g.Partition != w.Partition {
			t.Errorf("%s: partition %d", at, *g.Partition)
			continue
		}
		gotEl := ""
		if g.Election != nil {
			gotEl = fmt.Sprintf("%s-%d@%d", g.Election.Topic, g.Election.Partition, g.Election.LeaderEpoch)
		}
		wantMatch, wantEl := w.Match, ""
		if w.Election != nil {
			wantEl = fmt.Sprintf("%s-%d@%d", w.Election.Topic, w.Election.Partition, w.Election.LeaderEpoch)
		}
		if len(parts) > 1 {
			// Several candidates: the class their elections give, no
			// election named unless one alone explains it.
			wantMatch, wantEl = classifyAll(w.Topic, parts, audited, w.Time)
		} else if g.Match != wantMatch || gotEl != wantEl {
			if w.Election != nil {
				if win, ok := windows[[3]any{w.Election.Topic, w.Election.Partition, w.Election.LeaderEpoch}]; !ok || win != [2]int64{w.Election.Start, w.Election.End} {
					wantMatch, wantEl = classifyAll(w.Topic, parts, audited, w.Time)
					window++
				}
			} else if m, e := classifyAll(w.Topic, parts, audited, w.Time); m != wantMatch {
				wantMatch, wantEl = m, e
				window++
			}
		}
		if g.Match != wantMatch || gotEl != wantEl {
			t.Errorf("%s: match %s %s, want %s %s", at, g.Match, gotEl, wantMatch, wantEl)
		}
	}
	return window
}

// classifyAll applies the truth's rule to the audited elections of the
// given partitions: during if any covers t, else after; an election is
// named only if exactly one partition gives the class.
func classifyAll(topic string, parts []int32, audited map[tpKey][]*gen.Election, t int64) (string, string) {
	var during, after []string
	for _, p := range parts {
		m, el, _ := gen.Classify(audited[tpKey{topic, p}], t)
		if el == nil {
			continue
		}
		name := fmt.Sprintf("%s-%d@%d", el.Topic, el.Partition, el.LeaderEpoch)
		switch m {
		case gen.MatchDuring:
			during = append(during, name)
		case gen.MatchAfter:
			after = append(after, name)
		}
	}
	switch {
	case len(during) == 1:
		return gen.MatchDuring, during[0]
	case len(during) > 1:
		return gen.MatchDuring, ""
	case len(after) == 1:
		return gen.MatchAfter, after[0]
	case len(after) > 1:
		return gen.MatchAfter, ""
	}
	return gen.MatchNone, ""
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// A producer log of exception lines only (client.md §6's final-failure
// exceptions, with no timestamped record above them) is reported as a
// producer log with that many undated errors, not as "no producer logs".
func TestUndatedProducerErrorsAreReported(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app", "producer.log")
	if err := os.MkdirAll(filepath.Dir(app), 0o755); err != nil {
		t.Fatal(err)
	}
	lines := "org.apache.kafka.common.errors.NotLeaderForPartitionException: This server is not the leader for that topic-partition.\n" +
		"org.apache.kafka.common.errors.TimeoutException: Expiring 1 record(s) for orders-3:120002 ms has passed since batch creation\n"
	if err := os.WriteFile(app, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := audit(t, "text", app, sample(t, "039"))
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	flat := strings.Join(strings.Fields(out), " ")
	if !strings.Contains(flat, "is a producer log with 2 undated errors") || strings.Contains(flat, "no producer logs given") ||
		!strings.Contains(flat, "client application log · Java producer · 2 lines · 2 undated producer errors") {
		t.Errorf("report:\n%s", out)
	}
}
