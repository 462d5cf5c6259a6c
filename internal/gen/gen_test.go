package gen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func smallConfig(era Era, seed int64) Config {
	cfg := DefaultConfig()
	cfg.Era = era
	cfg.Seed = seed
	cfg.Size = 8 << 20
	cfg.Noise = 5
	cfg.Partitions = 6
	cfg.Topics = 3
	cfg.OffsetsPartitions = 10
	return cfg
}

func dataset(t *testing.T, era Era) (string, Truth) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), string(era))
	tr, err := Generate(smallConfig(era, 7), dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, tr
}

func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func TestDeterminism(t *testing.T) {
	for _, era := range Eras {
		t.Run(string(era), func(t *testing.T) {
			a, b := t.TempDir(), t.TempDir()
			cfg := smallConfig(era, 42)
			cfg.Size = 4 << 20
			if _, err := Generate(cfg, a); err != nil {
				t.Fatal(err)
			}
			if _, err := Generate(cfg, b); err != nil {
				t.Fatal(err)
			}
			fa, fb := listFiles(t, a), listFiles(t, b)
			if !slices.Equal(fa, fb) {
				t.Fatalf("file lists differ: %v vs %v", fa, fb)
			}
			for _, f := range fa {
				x, _ := os.ReadFile(filepath.Join(a, f))
				y, _ := os.ReadFile(filepath.Join(b, f))
				if !bytes.Equal(x, y) {
					t.Errorf("%s differs between two runs with the same seed", f)
				}
			}
			// a different seed gives different data
			c := t.TempDir()
			cfg.Seed = 43
			if _, err := Generate(cfg, c); err != nil {
				t.Fatal(err)
			}
			x, _ := os.ReadFile(filepath.Join(a, "truth.jsonl"))
			y, _ := os.ReadFile(filepath.Join(c, "truth.jsonl"))
			if bytes.Equal(x, y) {
				t.Error("seeds 42 and 43 produced the same truth")
			}
		})
	}
}

// broker.md §1.1
var (
	recordStart = regexp.MustCompile(`^\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3})\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) `)
	recordFull  = regexp.MustCompile(`^\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3})\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) (.*) \(([^()]*)\)$`)
	recordMulti = regexp.MustCompile(`(?s)^\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3})\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) (.*) \(([^()]*)\)$`)
	throwLine   = regexp.MustCompile(`^(\tat |\t\.\.\. \d+ more$|Caused by: |[a-zA-Z_$][\w$]*(\.[a-zA-Z_$][\w$]*)+(: |$))`)
	// client.md §1.2, Boot 3.x console without application name
	springLine = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}(Z|[+-]\d{2}:\d{2}))\s+(TRACE|DEBUG|INFO|WARN|ERROR) (\d+) --- \[([^\]]{15})\] (\S.{0,39}?)\s*: (.*)$`)
)

type pk struct {
	topic string
	p     int32
}

// checkLog4jFile verifies the layout of every record of a log4j file and
// that timestamps never go backwards.
func checkLog4jFile(t *testing.T, path string) (records int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var cur []string
	var last string
	errs := 0
	flush := func() {
		if len(cur) == 0 {
			return
		}
		records++
		first := cur[0]
		if recordFull.MatchString(first) {
			for _, l := range cur[1:] {
				if !throwLine.MatchString(l) && errs < 5 {
					errs++
					t.Errorf("%s: continuation line is not a throwable line: %q (record %q)", path, l, first)
				}
			}
		} else if !recordMulti.MatchString(strings.Join(cur, "\n")) && errs < 5 {
			errs++
			t.Errorf("%s: record does not match the log4j layout: %q", path, strings.Join(cur, "\\n"))
		}
		ts := first[1:24]
		if ts < last && errs < 5 {
			errs++
			t.Errorf("%s: time goes backwards: %s after %s", path, ts, last)
		}
		last = ts
		cur = cur[:0]
	}
	for sc.Scan() {
		l := sc.Text()
		if recordStart.MatchString(l) {
			flush()
			cur = append(cur, l)
			continue
		}
		if len(cur) == 0 {
			t.Fatalf("%s: file starts with a continuation line %q", path, l)
		}
		if strings.HasPrefix(l, "[") && errs < 5 {
			errs++
			t.Errorf("%s: line looks like a broken record start: %q", path, l)
		}
		cur = append(cur, l)
	}
	flush()
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return records
}

func TestLayout(t *testing.T) {
	for _, era := range Eras {
		t.Run(string(era), func(t *testing.T) {
			dir, tr := dataset(t, era)
			total := 0
			for _, fs := range tr.Files {
				if fs.Bytes == 0 {
					continue
				}
				total += checkLog4jFile(t, filepath.Join(dir, fs.Path))
			}
			if total < 1000 {
				t.Errorf("only %d records", total)
			}
		})
	}
}

func TestSpringLayout(t *testing.T) {
	cfg := smallConfig(Era26Info, 3)
	cfg.ProducerLayout = LayoutSpring
	cfg.Size = 1 << 20
	dir := t.TempDir()
	tr, err := Generate(cfg, dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fs := range tr.Files {
		if !strings.HasPrefix(fs.Path, "producer-") {
			continue
		}
		data, _ := os.ReadFile(filepath.Join(dir, fs.Path))
		for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			switch {
			case springLine.MatchString(l):
				n++
			case l == "", strings.HasPrefix(l, "\t"), throwLine.MatchString(l):
			default:
				t.Fatalf("%s: not a Spring Boot console line: %q", fs.Path, l)
			}
		}
	}
	if n == 0 {
		t.Fatal("no Spring Boot lines")
	}
}

type jsonElection struct {
	Type            string
	Topic           string
	Partition       int32
	LeaderEpoch     int32  `json:"leader_epoch"`
	Leader          int32  `json:"leader"`
	PreviousLeader  *int32 `json:"previous_leader"`
	Controller      *int32 `json:"controller"`
	ControllerEpoch *int32 `json:"controller_epoch"`
	Cause           *string
	Decided         *string
	Start, End      string
	DurationMs      int64  `json:"duration_ms"`
	LeaderReadyMs   *int64 `json:"leader_ready_ms"`
	ISRAppliedMs    *int64 `json:"isr_applied_ms"`
	PropagatedMs    *int64 `json:"propagated_ms"`
	Brokers         []struct {
		Broker  int32
		Role    string
		Phases  map[string]string
		CatchUp bool `json:"catch_up"`
	}
	// producer_error
	Time         string
	ClientID     string `json:"client_id"`
	Error        string
	AttemptsLeft *int64 `json:"attempts_left"`
	Final        bool
	Match        string
	Election     *struct {
		Topic       string
		Partition   int32
		LeaderEpoch int32 `json:"leader_epoch"`
	}
	LagMs *int64 `json:"lag_ms"`
}

func parseTime(t *testing.T, s string) int64 {
	t.Helper()
	x, err := time.Parse("2006-01-02T15:04:05.000Z07:00", s)
	if err != nil {
		t.Fatalf("bad time %q: %v", s, err)
	}
	return x.UnixMilli()
}

// TestTruth checks the truth file against its own invariants and against
// the logs it describes.
func TestTruth(t *testing.T) {
	for _, era := range Eras {
		t.Run(string(era), func(t *testing.T) {
			dir, _ := dataset(t, era)
			checkTruth(t, dir, era)
		})
	}
}

// TestCheckDir validates an existing data set (layout and truth), e.g. one
// generated with other flags:
//
//	LEADERAUDIT_GEN_DIR=/tmp/set LEADERAUDIT_GEN_ERA=kraft go test ./gen -run TestCheckDir
func TestCheckDir(t *testing.T) {
	dir := os.Getenv("LEADERAUDIT_GEN_DIR")
	if dir == "" {
		t.Skip("LEADERAUDIT_GEN_DIR not set")
	}
	era, err := ParseEra(os.Getenv("LEADERAUDIT_GEN_ERA"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range listFiles(t, dir) {
		if strings.HasSuffix(f, ".log") {
			checkLog4jFile(t, filepath.Join(dir, f))
		}
	}
	checkTruth(t, dir, era)
}

func checkTruth(t *testing.T, dir string, era Era) {
	t.Helper()
	{
		{
			data, err := os.ReadFile(filepath.Join(dir, "truth.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			byPart := map[pk][]*jsonElection{}
			var errsJSON []*jsonElection
			var nEl, isrOnly, causes = 0, 0, map[string]int{}
			carried := map[pk]int32{}
			for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				var e jsonElection
				dec := json.NewDecoder(strings.NewReader(line))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&e); err != nil {
					t.Fatalf("line %d: %v: %s", i+1, err, line)
				}
				switch e.Type {
				case "election":
					nEl++
					if e.Cause != nil {
						causes[*e.Cause]++
					}
					start, end := parseTime(t, e.Start), parseTime(t, e.End)
					if end-start != e.DurationMs || end < start {
						t.Errorf("line %d: duration_ms %d != end-start %d", i+1, e.DurationMs, end-start)
					}
					if e.Decided != nil {
						if d := parseTime(t, *e.Decided); d < start || d > end {
							t.Errorf("line %d: decided outside [start,end]", i+1)
						}
					}
					if len(e.Brokers) == 0 {
						t.Errorf("line %d: no brokers", i+1)
					}
					// The measures lie inside the election, in the order a
					// leadership change happens.
					for _, m := range []*int64{e.LeaderReadyMs, e.ISRAppliedMs, e.PropagatedMs} {
						if m != nil && (*m < 0 || *m > e.DurationMs) {
							t.Errorf("line %d: a measure %d outside 0..duration_ms %d", i+1, *m, e.DurationMs)
						}
					}
					if e.Leader >= 0 && e.LeaderReadyMs == nil {
						t.Errorf("line %d: no leader_ready_ms", i+1)
					}
					if e.LeaderReadyMs != nil && e.ISRAppliedMs != nil && *e.ISRAppliedMs < *e.LeaderReadyMs {
						t.Errorf("line %d: ISR applied before the leader was ready", i+1)
					}
					for _, b := range e.Brokers {
						if (b.Role == "leader") != (b.Broker == e.Leader) {
							t.Errorf("line %d: broker %d role %s", i+1, b.Broker, b.Role)
						}
						for ph, ts := range b.Phases {
							if !slices.Contains(PhaseNames[:], ph) {
								t.Errorf("line %d: unknown phase %s", i+1, ph)
							}
							if x := parseTime(t, ts); x < start || x > end {
								t.Errorf("line %d: phase %s of broker %d outside [start,end]", i+1, ph, b.Broker)
							}
						}
					}
					if e.PreviousLeader != nil && *e.PreviousLeader == e.Leader {
						isrOnly++
					}
					if e.Cause != nil && *e.Cause == CauseNewPartition && (e.PreviousLeader != nil || e.LeaderEpoch != 0) {
						t.Errorf("line %d: new partition with previous leader or epoch != 0", i+1)
					}
					if era == EraKRaft && (e.ControllerEpoch != nil || e.Controller == nil || *e.Controller < 3000) {
						t.Errorf("line %d: KRaft election controller fields", i+1)
					}
					k := pk{e.Topic, e.Partition}
					el := e
					byPart[k] = append(byPart[k], &el)
				case "producer_error":
					el := e
					errsJSON = append(errsJSON, &el)
				case "carried_over":
					carried[pk{e.Topic, e.Partition}] = e.LeaderEpoch
				default:
					t.Fatalf("line %d: unknown type %q", i+1, e.Type)
				}
			}
			if nEl < 20 {
				t.Fatalf("only %d elections", nEl)
			}
			if isrOnly*2 > nEl && era == EraKRaft {
				t.Errorf("KRaft has %d ISR-only elections", isrOnly)
			}
			t.Logf("%d elections (%d ISR-only), causes %v, %d producer errors, %d carried over", nEl, isrOnly, causes, len(errsJSON), len(carried))
			if len(carried) == 0 {
				t.Error("no carried-over epochs: the cluster start re-sends every partition's state")
			}
			// a carried-over epoch comes before the partition's elections
			for k, els := range byPart {
				if ep, ok := carried[k]; ok && len(els) > 0 && els[0].LeaderEpoch != ep+1 {
					t.Errorf("%v: carried over epoch %d, first election epoch %d", k, ep, els[0].LeaderEpoch)
				}
			}
			// leader epochs go up by exactly one per partition, in time order
			for k, els := range byPart {
				for i := 1; i < len(els); i++ {
					if els[i].LeaderEpoch != els[i-1].LeaderEpoch+1 {
						t.Errorf("%v: epoch %d follows %d", k, els[i].LeaderEpoch, els[i-1].LeaderEpoch)
					}
					if els[i-1].PreviousLeader != nil && els[i].PreviousLeader != nil && *els[i].PreviousLeader != els[i-1].Leader {
						t.Errorf("%v epoch %d: previous leader %d, but epoch %d elected %d", k, els[i].LeaderEpoch, *els[i].PreviousLeader, els[i-1].LeaderEpoch, els[i-1].Leader)
					}
				}
			}
			// producer errors are classified exactly as Classify says
			matches := map[string]int{}
			for _, pe := range errsJSON {
				matches[pe.Match]++
				tm := parseTime(t, pe.Time)
				var els []*Election
				for _, e := range byPart[pk{pe.Topic, pe.Partition}] {
					els = append(els, &Election{Topic: e.Topic, Partition: e.Partition, LeaderEpoch: e.LeaderEpoch, Start: parseTime(t, e.Start), End: parseTime(t, e.End)})
				}
				m, el, lag := Classify(els, tm)
				if m != pe.Match {
					t.Errorf("producer error at %s on %s-%d: match %s, Classify says %s", pe.Time, pe.Topic, pe.Partition, pe.Match, m)
					continue
				}
				if el == nil {
					if pe.Election != nil || pe.LagMs != nil {
						t.Errorf("producer error at %s: match none with an election", pe.Time)
					}
				} else if pe.Election == nil || pe.Election.LeaderEpoch != el.LeaderEpoch || pe.LagMs == nil || *pe.LagMs != lag {
					t.Errorf("producer error at %s: election/lag mismatch", pe.Time)
				}
				if pe.Final != (pe.AttemptsLeft == nil) {
					t.Errorf("producer error at %s: final=%v attempts_left=%v", pe.Time, pe.Final, pe.AttemptsLeft)
				}
			}
			if matches[MatchDuring] == 0 || matches[MatchAfter] == 0 {
				t.Errorf("producer error matches %v: want some during and after", matches)
			}
			checkTruthAgainstLogs(t, dir, era, byPart)
		}
	}
}

// checkTruthAgainstLogs: the new leader of every election writes a line
// carrying the election's leader epoch.
func checkTruthAgainstLogs(t *testing.T, dir string, era Era, byPart map[pk][]*jsonElection) {
	t.Helper()
	content := map[int32]string{}
	read := func(b int32) string {
		if s, ok := content[b]; ok {
			return s
		}
		x, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("broker-%d/state-change.log", b)))
		y, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("broker-%d/server.log", b)))
		content[b] = string(x) + string(y)
		return content[b]
	}
	for k, els := range byPart {
		name := fmt.Sprintf("%s-%d", k.topic, k.p)
		for _, e := range els {
			var want string
			switch era {
			case Era010:
				want = fmt.Sprintf("leader=%d, leaderEpoch=%d, isr=[", e.Leader, e.LeaderEpoch)
			case Era2xTrace:
				want = fmt.Sprintf("leader=%d, leaderEpoch=%d, isr=", e.Leader, e.LeaderEpoch)
			case Era26Info:
				want = fmt.Sprintf("Leader %s starts at leader epoch %d ", name, e.LeaderEpoch)
			case EraKRaft:
				want = fmt.Sprintf("Leader %s with topic id ", name)
				if !strings.Contains(read(e.Leader), want) || !strings.Contains(read(e.Leader), fmt.Sprintf(") starts at leader epoch %d ", e.LeaderEpoch)) {
					t.Errorf("%s epoch %d: no leader line on broker %d", name, e.LeaderEpoch, e.Leader)
				}
				continue
			}
			if !strings.Contains(read(e.Leader), want) {
				t.Errorf("%s epoch %d: broker %d has no line containing %q", name, e.LeaderEpoch, e.Leader, want)
			}
		}
	}
}
