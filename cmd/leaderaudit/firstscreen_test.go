package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// firstScreen is what an operator sees before scrolling.
const firstScreen = 25

// The answer is on the first screen: every bundled incident, a clean
// cluster (sample 015, a preferred election on three brokers) and an
// empty log have a golden of their first 25 lines, and the first finding
// of warning or worse stands within them.
func TestFirstScreen(t *testing.T) {
	cases := map[string]string{
		"empty":         "../../testdata/empty",
		"clean-cluster": "../../testdata/samples/015-zk-3.9-preferred-election-3-brokers-shared-state-change.log",
	}
	dirs, _ := filepath.Glob("../../testdata/incidents/*")
	for _, d := range dirs {
		cases[filepath.Base(d)] = d
	}
	for name, path := range cases {
		t.Run(name, func(t *testing.T) {
			out, stderr, code := auditWith(t, incidentFlags[name], "text", path)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			lines := strings.Split(out, "\n")
			head := lines
			if len(head) > firstScreen {
				head = head[:firstScreen]
			}
			golden(t, filepath.Join("first-screen", name+".txt"), stable(strings.Join(head, "\n"))+"\n")
			for i, l := range lines {
				if strings.HasPrefix(l, "  WARNING ") || strings.HasPrefix(l, "  CRITICAL ") {
					if i >= firstScreen {
						t.Errorf("first finding of warning or worse on line %d: %s", i+1, l)
					}
					break
				}
			}
			for i, l := range lines {
				if n := len([]rune(l)); n > 120 {
					t.Errorf("line %d is %d columns wide: %s", i+1, n, l)
				}
			}
		})
	}
}

// The window chooses what is reported, not what is read (issue #15).
func TestWindowFiltersTheReport(t *testing.T) {
	case3 := "../../testdata/incidents/case3-acks1-zk-expiry"
	t.Run("since keeps the context", func(t *testing.T) {
		// The producer's config block and epoch 9 (leader 2) come before
		// 10:30: both CRITICAL findings stay, and epoch 10 is 2 → 3.
		out, _, code := cli("audit", "--tz", "UTC", "--since", "2021-06-14 10:30:00", case3)
		if code != exitOK {
			t.Fatalf("exit %d", code)
		}
		for _, want := range []string{"CRITICAL loss-risk-acks", "CRITICAL unstable-broker", "4 elections in 1 burst",
			"events-0                                 epoch 10    leader 2 → 3"} {
			if !strings.Contains(out, want) {
				t.Errorf("missing %q in:\n%s", want, out)
			}
		}
		if strings.Contains(out, "epoch 8     leader ? → 3") || strings.Contains(out, "10:15:25.335 ingest-1") {
			t.Errorf("reports elections or errors from before --since:\n%s", out)
		}
	})
	t.Run("json since", func(t *testing.T) {
		out, _, code := cli("audit", "--tz", "UTC", "--format", "json", "--since", "2021-06-14 10:30:00", case3)
		if code != exitOK {
			t.Fatalf("exit %d", code)
		}
		if n := strings.Count(out, `"type":"election"`); n != 4 {
			t.Errorf("%d election records, want 4", n)
		}
		if !strings.Contains(out, `"previous_leader":2`) {
			t.Errorf("epoch 10's previous leader lost:\n%s", out)
		}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var r struct{ Type, Time, Start, End string }
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			when := r.Time
			if r.Type == "election" || r.Type == "burst" {
				when = r.End
			}
			if when != "" && when < "2021-06-14T10:30" {
				t.Errorf("a %s record from before --since: %s", r.Type, l)
			}
		}
	})
	t.Run("topic matching nothing", func(t *testing.T) {
		out, _, code := cli("audit", "--tz", "UTC", "--topic", "orders*", "--fail-on", "critical", case3)
		if code != exitOK {
			t.Fatalf("exit %d, want 0: a window that reports nothing has nothing to fail on", code)
		}
		if !strings.Contains(out, "no election of topics orders*; the logs span 2021-06-14 10:01:52.318 to 2021-06-14 10:41:12.701") {
			t.Errorf("no note that the filter left nothing:\n%s", out)
		}
		if strings.Contains(out, "CRITICAL") {
			t.Errorf("findings outside the filter:\n%s", out)
		}
	})
	t.Run("window after the logs", func(t *testing.T) {
		out, _, code := cli("audit", "--tz", "UTC", "--since", "2h", case3)
		if code != exitOK || !strings.Contains(out, "no election since ") || !strings.Contains(out, "the logs span 2021-06-14") {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
	t.Run("partition", func(t *testing.T) {
		out, _, _ := cli("audit", "--tz", "UTC", "--format", "json", "--partition", "1", case3)
		if n := strings.Count(out, `"type":"election"`); n != 2 {
			t.Errorf("%d election records of partition 1, want 2", n)
		}
		if strings.Contains(out, `"partition":0,`) {
			t.Errorf("records of partition 0:\n%s", out)
		}
	})
	t.Run("reversed", func(t *testing.T) {
		_, stderr, code := cli("audit", "--tz", "UTC", "--since", "2021-06-14 11:00:00", "--until", "2021-06-14 10:00:00", case3)
		if code != exitUsage || !strings.Contains(stderr, "is not before --until") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
}
