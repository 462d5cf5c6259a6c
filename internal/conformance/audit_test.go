package conformance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kversion"
)

// leaderaudit is the tool under test, built once from the checkout this
// suite sits in: the suite judges what a user gets, the JSON lines of
// `audit`, not the parser's internals.
var leaderaudit string

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		// Re-executed as a client process (librdkafka logs to stderr).
		os.Exit(helperMain())
	}
	dir, err := os.MkdirTemp("", "conformance")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	leaderaudit = filepath.Join(dir, "leaderaudit")
	build := exec.Command("go", "build", "-o", leaderaudit, "./cmd/leaderaudit")
	build.Dir = filepath.Join("..", "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building leaderaudit: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// record is the part of a producer_error JSON line the suite checks.
type record struct {
	Type      string   `json:"type"`
	ClientID  string   `json:"client_id"`
	Topic     string   `json:"topic"`
	Partition *int32   `json:"partition"`
	Error     string   `json:"error"`
	Final     bool     `json:"final"`
	Lines     []string `json:"lines"`
}

// audit runs `leaderaudit audit --format json` on one client log and
// returns its producer errors.
func audit(t *testing.T, path string) []record {
	t.Helper()
	cmd := exec.Command(leaderaudit, "audit", "--format", "json", "--tz", "UTC", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("leaderaudit audit %s: %v\n%s", path, err, stderr.Bytes())
	}
	var recs []record
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r record
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Type == "producer_error" {
			recs = append(recs, r)
		}
	}
	return recs
}

// workload is one client run: produce (until stop closes) while the
// cluster's leaders move.
type workload struct {
	name string
	// produce runs the client against seeds, logging to log, until stop
	// closes; it returns once the client has flushed and closed.
	produce func(seeds []string, log io.Writer, stop <-chan struct{}) error
	// noPartition: the client's lines name no partition (kafkajs): a
	// record per response, partition null.
	noPartition bool
	// versions: the cluster's API versions (nil: Kafka 3.9's).
	versions *kversion.Versions
}

const (
	topic      = "orders"
	partitions = 6
	moves      = 24
	moveEvery  = 120 * time.Millisecond
)

// run drives one workload and checks its log against the truth.
func run(t *testing.T, w workload) {
	c, err := NewCluster(3, topic, partitions, w.versions)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	logPath := filepath.Join(t.TempDir(), w.name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- w.produce(c.ListenAddrs(), f, stop) }()
	// Let the client connect and send before the first move.
	time.Sleep(500 * time.Millisecond)
	if err := c.Mover(int64(len(w.name)), moves, moveEvery, 7, stop); err != nil {
		t.Fatal(err)
	}
	// Time for the last retries to land.
	time.Sleep(1500 * time.Millisecond)
	close(stop)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("%s: client did not stop", w.name)
	}
	f.Close()
	keep(t, w.name, logPath)

	truth := c.NotLeaders()
	if len(truth) == 0 {
		t.Fatalf("%s: no NOT_LEADER response was sent: the workload moved nothing under the client", w.name)
	}
	recs := audit(t, logPath)
	if w.noPartition {
		checkResponses(t, w.name, truth, recs)
		return
	}
	want := map[string]int{}
	for _, n := range truth {
		want[fmt.Sprintf("%s-%d", n.Topic, n.Partition)]++
	}
	got := map[string]int{}
	for _, r := range recs {
		if r.Final {
			t.Errorf("%s: a final failure at %v, but every send was retried (retries unbounded)", w.name, r.Lines)
		}
		p := "null"
		if r.Partition != nil {
			p = fmt.Sprint(*r.Partition)
		}
		got[r.Topic+"-"+p]++
	}
	t.Logf("%s: %d NOT_LEADER responses, %d producer_error records", w.name, len(truth), len(recs))
	if diff := diffCounts(want, got); diff != "" {
		t.Errorf("%s: records by partition differ from the NOT_LEADER responses (want/got):\n%s\nlog: %s", w.name, diff, logPath)
	}
}

// checkResponses: one record per response (broker, correlation id), with
// no partition where the line names none.
func checkResponses(t *testing.T, name string, truth []NotLeader, recs []record) {
	t.Helper()
	resp := map[string]bool{}
	for _, n := range truth {
		resp[fmt.Sprintf("%d/%d", n.Broker, n.CorrelationID)] = true
	}
	t.Logf("%s: %d NOT_LEADER partitions in %d responses, %d producer_error records", name, len(truth), len(resp), len(recs))
	if len(recs) != len(resp) {
		t.Errorf("%s: %d records for %d NOT_LEADER responses", name, len(recs), len(resp))
	}
	for _, r := range recs {
		if r.Topic != "" && r.Topic != topic {
			t.Errorf("%s: record at %v names topic %q", name, r.Lines, r.Topic)
		}
		if r.Partition != nil {
			t.Errorf("%s: record at %v names partition %d, which no line of the client gives", name, r.Lines, *r.Partition)
		}
	}
}

func diffCounts(want, got map[string]int) string {
	keys := map[string]bool{}
	for k := range want {
		keys[k] = true
	}
	for k := range got {
		keys[k] = true
	}
	var ks []string
	for k := range keys {
		if want[k] != got[k] {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	var b strings.Builder
	for _, k := range ks {
		fmt.Fprintf(&b, "  %s: %d/%d\n", k, want[k], got[k])
	}
	return b.String()
}

// keep copies a run's log to $LEADERAUDIT_CONFORMANCE_KEEP (for captures
// under testdata/).
func keep(t *testing.T, name, path string) {
	dir := os.Getenv("LEADERAUDIT_CONFORMANCE_KEEP")
	if dir == "" {
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".log"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
