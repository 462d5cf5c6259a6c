package verdict

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/source"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// runFiles reads the files as audit does (source.Reader: one parser per
// file, merged in time order, zone-less times as UTC) into a timeline whose
// sink is the analyzer.
func runFiles(t *testing.T, cfg Config, paths ...string) ([]Finding, *timeline.Timeline) {
	t.Helper()
	ins := make([]source.Input, len(paths))
	for i, p := range paths {
		ins[i] = source.Input{Path: p, Chain: p}
	}
	rd := source.NewReader(ins, func(string) *time.Location { return time.UTC })
	a := New(cfg)
	tl := timeline.New(timeline.Config{}, a)
	rd.Run(context.Background(), func(src int, ev *parser.Event) {
		tl.Add(src, ev)
		tl.Advance(ev.Time)
	})
	tl.Close()
	var facts []SourceFacts
	for i, s := range rd.Sources {
		if s.Err != nil {
			t.Fatalf("%s: %v", s.Path, s.Err)
		}
		st := &s.Stats
		kind := "server.log"
		if st.Eras&parser.EraProducer != 0 {
			kind = "client application log"
		}
		facts = append(facts, SourceFacts{Index: i, Path: s.Path, Kind: kind, Eras: st.Eras, First: st.First, Last: st.Last,
			Brokers: st.Brokers, Controllers: st.Controllers, Producers: st.Producers, Records: st.Records, Levels: []string{"INFO"}})
	}
	return a.Finish(tl, func(src int) string { return filepath.Base(paths[src]) }, facts), tl
}

// snippet writes lines to a temporary file named name.
func snippet(t *testing.T, name string, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A KRaft controller's "UNCLEAN partition change" line (broker.md §10).
func TestSnippetKRaftUnclean(t *testing.T) {
	p := snippet(t, "controller.log",
		"[2024-09-30 12:00:01,101] INFO [Controller 0] UNCLEAN partition change for orders-3 with topic ID kR2Xv9fHTwC1dYq4J0xB7g: replicas: [1] -> [0], isr: [1] -> [0], leader: 1 -> 0, leaderEpoch: 85 -> 86, partitionEpoch: 85 -> 86 (org.apache.kafka.controller.ReplicationControlManager)")
	fs, _ := runFiles(t, Config{}, p)
	f := one(t, fs, CodeUnclean)
	has(t, f, "1 unclean election took a leader from outside the ISR", "orders-3 epoch 86 leader 1→0 at 12:00:01.101")
	if f.Evidence[0] != (Evidence{"controller.log", 1}) {
		t.Errorf("evidence %v", f.Evidence)
	}
}

// Real sample 050: a follower refuses to truncate below its own end after
// an unclean leader was elected; the election itself is not in the file.
func TestSnippetRefusedTruncationSample050(t *testing.T) {
	fs, _ := runFiles(t, Config{}, "../../testdata/samples/050-k8s-1.0-follower-exits-log-truncation-not-allowed-after-unclean-leader.log")
	f := one(t, fs, CodeUnclean)
	has(t, f, "test-produce-consume-0 (the election itself is not in these logs): broker 2 refused to truncate to offset 2051 (its log ends at 2391: offsets 2051–2390 are lost)")
	lost := f.Data["elections"].([]map[string]any)[0]["lost"].([]map[string]any)[0]
	if lost["records"] != int64(340) {
		t.Errorf("lost %v", lost)
	}
}

// A clean ZK 2.8 failover with no ZooKeeper trouble: no unclean verdict.
func TestSnippetCleanNoUnclean(t *testing.T) {
	p := snippet(t, "state-change.log",
		"[2021-05-04 17:22:09,991] INFO [Controller id=1 epoch=27] Changed partition orders-3 from OfflinePartition to OnlinePartition with state LeaderAndIsr(leader=2, leaderEpoch=14, isr=List(2, 3), zkVersion=41) (state.change.logger)",
		"[2021-05-04 17:22:10,024] INFO [Broker id=2] Leader orders-3 starts at leader epoch 14 from offset 55012 with high watermark 55010 ISR [2,3] addingReplicas [] removingReplicas []. Previous leader epoch was 13. (state.change.logger)")
	fs, _ := runFiles(t, Config{}, p)
	none(t, fs, CodeUnclean)
	none(t, fs, CodeUnstableBroker)
}

// The broker's own "Session expired." names no broker: the file's broker
// (from its other lines) is the one that lost the session.
func TestSnippetSessionExpiryAttribution(t *testing.T) {
	srv := snippet(t, "server.log",
		"[2021-05-04 17:21:58,003] INFO [ZooKeeperClient Kafka server] Session expired. (kafka.zookeeper.ZooKeeperClient)",
		"[2021-05-04 17:21:58,350] INFO Registered broker 3 at path /brokers/ids/3 with addresses: PLAINTEXT://broker3.example:9092, czxid (broker epoch): 4294967433 (kafka.zk.KafkaZkClient)",
		"[2021-05-04 17:40:12,101] INFO [ZooKeeperClient Kafka server] Session expired. (kafka.zookeeper.ZooKeeperClient)",
		"[2021-05-04 17:40:12,420] INFO Registered broker 3 at path /brokers/ids/3 with addresses: PLAINTEXT://broker3.example:9092, czxid (broker epoch): 4294967501 (kafka.zk.KafkaZkClient)")
	ctl := snippet(t, "controller.log",
		"[2021-05-04 17:21:57,870] INFO [Controller id=1] Newly added brokers: , deleted brokers: 3, bounced brokers: , all live brokers: 1,2 (kafka.controller.KafkaController)",
		"[2021-05-04 17:21:57,871] INFO [Controller id=1] Broker failure callback for 3 (kafka.controller.KafkaController)",
		"[2021-05-04 17:40:11,500] INFO [Controller id=1] Newly added brokers: , deleted brokers: 3, bounced brokers: , all live brokers: 1,2 (kafka.controller.KafkaController)")
	fs, _ := runFiles(t, Config{}, srv, ctl)
	f := one(t, fs, CodeUnstableBroker)
	if f.Subject != "broker 3" || f.Severity != Critical {
		t.Errorf("%s %s: %s", f.Subject, f.Severity, f.Message)
	}
	has(t, f, "broker 3 failed 2 times (2 hard failures)", "17:21:57.870 was removed by the controller (broker failure), lost its ZooKeeper session, back after 480 ms")
	found := false
	for _, e := range f.Evidence {
		if e == (Evidence{"server.log", 1}) {
			found = true
		}
	}
	if !found {
		t.Errorf("no server.log:1 in %v", f.Evidence)
	}
}

// Every real sample runs through parser, timeline and analyzer without a
// panic, and every finding is complete and JSON-able.
func TestSamplesFindings(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/samples/*.log")
	if len(paths) == 0 {
		t.Skip("no samples")
	}
	for _, p := range paths {
		fs, _ := runFiles(t, Config{}, p)
		for _, f := range fs {
			if f.Code == "" || rank(f.Severity) == 0 || f.Message == "" || f.Subject == "" || len(f.Evidence) > 12 {
				t.Errorf("%s: bad finding %+v", filepath.Base(p), f)
			}
			if _, err := json.Marshal(f.Record()); err != nil {
				t.Errorf("%s: %v", filepath.Base(p), err)
			}
			if testing.Verbose() {
				t.Logf("%s: %s %s: %.300s", filepath.Base(p)[:3], f.Severity, f.Code, f.Message)
			}
		}
	}
}
