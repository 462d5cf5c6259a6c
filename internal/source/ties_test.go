package source

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/logstore"
	"github.com/leaderaudit/leaderaudit/parser"
)

// records splits a log file into records as a shipper that joins
// multi-line records does (vltest.Ingest): a header line and the lines
// after it that have none.
func records(data []byte) (recs [][]byte, times []time.Time) {
	var rec parser.Record
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if parser.ParseHeader(line, time.UTC, &rec) {
			recs = append(recs, line)
			times = append(times, rec.Time)
		} else if len(recs) > 0 {
			recs[len(recs)-1] = append(append(recs[len(recs)-1], '\n'), line...)
		}
	}
	return recs, times
}

func tieFiles(t testing.TB) []string {
	var files []string
	for _, root := range []string{filepath.Join("..", "..", "..", "shared", "samples"), filepath.Join("..", "..", "testdata", "incidents")} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, ".json") {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) < 40 {
		t.Fatalf("only %d files under the samples and incidents", len(files))
	}
	return files
}

// The order the tie rule restores is the order Kafka wrote, where one
// thread's lines depend on each other: in every file of the samples and
// the bundled incidents, for each run of records with the same
// millisecond, any two records of one chain come in the file in the
// rule's order. Two records are of one chain when they are of the same
// side (the controller's, or a broker's or client's) and name the same
// partition, or one of them names none (a request's first and last
// lines). Threads that write to one file at once (the controller's event
// thread and the broker's request handlers) interleave in ways no rule
// can restore, and need not be: the timeline reads each partition's lines
// on its own. A rule that put "Finished LeaderAndIsr request" before the
// request's partition lines, or a retry's metadata line before the retry,
// fails here on a real line.
func TestTieOrderIsTheFilesOrder(t *testing.T) {
	runs, checked, bad := 0, 0, 0
	for _, path := range tieFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		recs, times := records(data)
		for i := 0; i < len(recs); {
			j := i + 1
			for j < len(recs) && times[j].Equal(times[i]) {
				j++
			}
			if j-i > 1 {
				runs++
				checked += j - i
				var ft tie
				for _, r := range recs[i:j] {
					ft.hold(&logstore.Row{Time: times[i], Msg: r})
				}
				ft.keys(true, time.UTC)
				rs := ft.rows
			pairs:
				for a := range rs {
					for b := a + 1; b < len(rs); b++ {
						if rs[b].key.Less(rs[a].key) && oneChain(&rs[a], &rs[b]) {
							bad++
							t.Errorf("%s: at %s the rule puts\n  %s\nbefore\n  %s", path, times[i].Format("15:04:05.000"), rs[b].text, rs[a].text)
							break pairs
						}
					}
				}
			}
			i = j
		}
	}
	t.Logf("%d runs of records with the same millisecond, %d records", runs, checked)
	if runs < 100 {
		t.Errorf("only %d runs: the test reads too little", runs)
	}
}

// oneChain: see TestTieOrderIsTheFilesOrder.
func oneChain(a, b *tieRow) bool {
	if a.key.Side != b.key.Side || a.key.Writer != b.key.Writer || !a.key.Placed() || !b.key.Placed() {
		return false
	}
	if bytes.Contains(a.text, []byte("[QuorumController ")) {
		// A KRaft controller handles one event at a time, and two in one
		// millisecond about different brokers do not depend on each
		// other (a controlled shutdown's records replayed, the next
		// broker's request granted).
		sa, sb := subjectBroker.FindSubmatch(a.text), subjectBroker.FindSubmatch(b.text)
		if sa != nil && sb != nil && !bytes.Equal(sa[1], sb[1]) {
			return false
		}
	}
	pa, pb := partitionOf(a.text), partitionOf(b.text)
	return pa == "" || pb == "" || pa == pb
}

var subjectBroker = regexp.MustCompile(`(?:[Bb]roker |brokerId=|Shutdown\[)([0-9]+)`)

var (
	partitionWord = regexp.MustCompile(`(?:[Pp]artition[ =]|Leader |Follower |topic-partition )(\[[^\],]+,[0-9]+\]|[A-Za-z0-9._-]+-[0-9]+)`)
	partitionIdx  = regexp.MustCompile(`topicName='([^']+)', partitionIndex=([0-9]+)`)
)

func partitionOf(line []byte) string {
	if m := partitionIdx.FindSubmatch(line); m != nil {
		return string(m[1]) + "-" + string(m[2])
	}
	if m := partitionWord.FindSubmatch(line); m != nil {
		w := string(m[1])
		if strings.HasPrefix(w, "[") {
			t, p, _ := strings.Cut(strings.Trim(w, "[]"), ",")
			return t + "-" + p
		}
		return w
	}
	return ""
}

func texts(rs []tieRow) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString("  ")
		b.Write(r.text)
		b.WriteByte('\n')
	}
	return b.String()
}

// Whatever order the store returns a tie in, the rule gives one order.
func TestTieOrderDoesNotDependOnTheStore(t *testing.T) {
	for _, path := range tieFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		recs, times := records(data)
		for i := 0; i < len(recs); {
			j := i + 1
			for j < len(recs) && times[j].Equal(times[i]) {
				j++
			}
			if j-i > 1 {
				var first string
				for seed := range uint64(4) {
					run := append([][]byte(nil), recs[i:j]...)
					rand.New(rand.NewPCG(seed, 7)).Shuffle(len(run), func(a, b int) { run[a], run[b] = run[b], run[a] })
					var tt tie
					for _, r := range run {
						tt.hold(&logstore.Row{Time: times[i], Msg: r})
					}
					tt.order(true, time.UTC)
					var b strings.Builder
					for _, r := range tt.rows {
						b.Write(r.row.Msg)
						b.WriteByte('\n')
					}
					if seed == 0 {
						first = b.String()
					} else if b.String() != first {
						t.Fatalf("%s %s: seed %d gives\n%s\nseed 0\n%s", path, times[i].Format("15:04:05.000"), seed, b.String(), first)
					}
				}
			}
			i = j
		}
	}
}

// The cost of restoring the order, per byte of the tied records: every
// same-millisecond run of the samples and incidents, shuffled.
func BenchmarkTieOrder(b *testing.B) {
	type run struct {
		t    time.Time
		recs [][]byte
	}
	var runs []run
	var size int64
	for _, path := range tieFiles(b) {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		recs, times := records(data)
		for i := 0; i < len(recs); {
			j := i + 1
			for j < len(recs) && times[j].Equal(times[i]) {
				j++
			}
			if j-i > 1 {
				r := run{times[i], append([][]byte(nil), recs[i:j]...)}
				rand.New(rand.NewPCG(1, 2)).Shuffle(len(r.recs), func(a, c int) { r.recs[a], r.recs[c] = r.recs[c], r.recs[a] })
				for _, m := range r.recs {
					size += int64(len(m)) + 1
				}
				runs = append(runs, r)
			}
			i = j
		}
	}
	b.SetBytes(size)
	b.ReportAllocs()
	var tt tie
	for b.Loop() {
		for _, r := range runs {
			for _, m := range r.recs {
				tt.hold(&logstore.Row{Time: r.t, Msg: m})
			}
			tt.order(true, time.UTC)
			tt.reset()
		}
	}
}
