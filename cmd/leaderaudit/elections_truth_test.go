package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/leaderaudit/leaderaudit/internal/gen"
)

// electionMeasures is what an election record and the generator's truth
// share: the key and the three durations (issue #14).
type electionMeasures struct {
	Type        string `json:"type"`
	Topic       string `json:"topic"`
	Partition   int32  `json:"partition"`
	LeaderEpoch int32  `json:"leader_epoch"`
	Ready       *int64 `json:"leader_ready_ms"`
	ISR         *int64 `json:"isr_applied_ms"`
	Propagated  *int64 `json:"propagated_ms"`
	Resent      bool   `json:"resent"`
	CarriedOver bool   `json:"carried_over"`
}

func (e electionMeasures) key() string {
	return fmt.Sprintf("%s-%d epoch %d", e.Topic, e.Partition, e.LeaderEpoch)
}

func readMeasures(t *testing.T, lines func(func(string))) (elections, carried map[string]electionMeasures) {
	t.Helper()
	elections, carried = map[string]electionMeasures{}, map[string]electionMeasures{}
	lines(func(l string) {
		var e electionMeasures
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		switch {
		case e.Type == "carried_over", e.Type == "election" && (e.CarriedOver || e.Resent):
			carried[e.key()] = e
		case e.Type == "election":
			elections[e.key()] = e
		}
	})
	return
}

// Every era, three seeds: the audit finds the truth's elections one for
// one, the epochs carried over from before the logs apart, and each of
// leader_ready_ms, isr_applied_ms and propagated_ms within 1 ms.
func TestElectionsMatchGeneratorTruth(t *testing.T) {
	for _, era := range gen.Eras {
		for _, seed := range []int64{7, 11, 23} {
			t.Run(fmt.Sprintf("%s/seed%d", era, seed), func(t *testing.T) {
				dir := t.TempDir()
				cfg := gen.DefaultConfig()
				cfg.Era, cfg.Size, cfg.Seed = era, 8<<20, seed
				if era == gen.Era010 || era == gen.Era2xTrace {
					cfg.Size = 24 << 20 // TRACE: more lines per election
				}
				if _, err := gen.Generate(cfg, dir); err != nil {
					t.Fatal(err)
				}
				paths, _ := filepath.Glob(filepath.Join(dir, "*-*"))
				out, errs, code := audit(t, "json", paths...)
				if code != exitOK {
					t.Fatalf("exit %d: %s", code, errs)
				}
				want, wantCarried := readMeasures(t, func(f func(string)) {
					fh, err := os.Open(filepath.Join(dir, "truth.jsonl"))
					if err != nil {
						t.Fatal(err)
					}
					defer fh.Close()
					sc := bufio.NewScanner(fh)
					sc.Buffer(nil, 1<<24)
					for sc.Scan() {
						f(sc.Text())
					}
				})
				got, gotCarried := readMeasures(t, func(f func(string)) {
					for _, r := range records(t, out) {
						if r["type"] == "election" {
							b, _ := json.Marshal(r)
							f(string(b))
						}
					}
				})
				for k := range want {
					if _, ok := got[k]; !ok {
						t.Errorf("%s: in the truth, not an election in the audit (carried over: %v)", k, gotCarried[k].Type != "")
					}
				}
				for k := range got {
					if _, ok := want[k]; !ok {
						t.Errorf("%s: an election in the audit, not in the truth (carried over there: %v)", k, wantCarried[k].Type != "")
					}
				}
				for k := range wantCarried {
					if _, ok := gotCarried[k]; !ok {
						t.Errorf("%s: carried over in the truth, not in the audit", k)
					}
				}
				for k := range gotCarried {
					if _, ok := wantCarried[k]; !ok {
						t.Errorf("%s: carried over in the audit, not in the truth", k)
					}
				}
				bad := 0
				for k, w := range want {
					g, ok := got[k]
					if !ok {
						continue
					}
					for _, m := range []struct {
						name string
						w, g *int64
					}{{"leader_ready_ms", w.Ready, g.Ready}, {"isr_applied_ms", w.ISR, g.ISR}, {"propagated_ms", w.Propagated, g.Propagated}} {
						if (m.w == nil) != (m.g == nil) || m.w != nil && (*m.g-*m.w > 1 || *m.w-*m.g > 1) {
							if bad++; bad <= 10 {
								t.Errorf("%s: %s %s, truth %s", k, m.name, msOrNull(m.g), msOrNull(m.w))
							}
						}
					}
				}
				if len(want) < 20 || len(wantCarried) == 0 {
					t.Fatalf("a small data set: %d elections, %d carried over", len(want), len(wantCarried))
				}
				t.Logf("%d elections, %d carried over, %d measures off", len(want), len(wantCarried), bad)
			})
		}
	}
}

func msOrNull(v *int64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%d ms", *v)
}
