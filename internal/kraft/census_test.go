package kraft

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// segmentWant is one row of the census table in
// shared/metadata-logs/README.md ("—" columns are zero). Times are the
// README's, to the second: the first batch's baseTimestamp and the last
// batch's maxTimestamp. Zero times or offsets of -1 are not checked (the
// README gives them for the set, not for each of backendlabs' segments).
type segmentWant struct {
	set, file                      string
	batches, control               int
	topic, partition, pc, pcLeader int
	registerBroker, fence, unfence int
	brokerRegChange                int
	first, last                    string
	brokers                        []int32
	mv                             int16
	firstOffset, lastOffset        int64
	maxQuorumEpoch                 int32
	extra                          map[string]int // other record counts the README states
}

var segmentWants = []segmentWant{
	{set: "ldi-poc", file: "00000000000000000000.log", batches: 4814, control: 1, topic: 5, partition: 54, pc: 54, pcLeader: 54,
		registerBroker: 2, brokerRegChange: 3, first: "2026-01-30 16:43:54", last: "2026-01-30 17:23:55", brokers: []int32{1}, mv: 19,
		firstOffset: -1, lastOffset: -1},
	{set: "kafkademo", file: "00000000000000000000.log", batches: 3068, control: 5, registerBroker: 4, brokerRegChange: 5,
		first: "2023-11-14 06:46:32", last: "2023-11-14 07:31:50", brokers: []int32{1}, mv: 14, firstOffset: -1, lastOffset: -1},
	{set: "azercell-3node", file: "00000000000000000000.log", batches: 27, control: 3, topic: 3, partition: 54, pc: 145, pcLeader: 141,
		registerBroker: 9, fence: 4, unfence: 9, first: "2025-08-31 13:10:37", last: "2025-08-31 13:39:39", brokers: []int32{1, 2, 3},
		firstOffset: -1, lastOffset: -1, maxQuorumEpoch: 14, extra: map[string]int{"NoOpRecord": 0, "FeatureLevelRecord": 0}},
	{set: "hiage-3node", file: "00000000000000000000.log", batches: 2918, control: 1, topic: 3, partition: 60, registerBroker: 3,
		brokerRegChange: 3, first: "2023-04-05 06:31:13", last: "2023-04-05 06:55:27", brokers: []int32{1, 2, 3}, mv: 7,
		firstOffset: -1, lastOffset: -1, maxQuorumEpoch: 1},
	{set: "greenlemon-3node", file: "00000000000000000000.log", batches: 26880, control: 59, topic: 6, partition: 55, pc: 3664, pcLeader: 2764,
		registerBroker: 39, brokerRegChange: 111, first: "2025-01-22 06:14:31", last: "2025-01-22 15:36:31", brokers: []int32{1, 2, 3}, mv: 11,
		firstOffset: -1, lastOffset: -1, maxQuorumEpoch: 190},
	{set: "ogs59-3node", file: "00000000000000000000.log", batches: 31510, control: 18, topic: 3, partition: 56, pc: 298, pcLeader: 253,
		registerBroker: 39, brokerRegChange: 79, first: "2025-09-22 09:07:35", last: "2025-09-22 14:31:25", brokers: []int32{1, 2, 3}, mv: 19,
		firstOffset: -1, lastOffset: -1, maxQuorumEpoch: 36, extra: map[string]int{"RegisterControllerRecord": 39}},
	{set: "ftmhxp-3node", file: "00000000000000000000.log", batches: 12841, control: 2, topic: 2, partition: 51, pc: 153, pcLeader: 93,
		registerBroker: 3, brokerRegChange: 9, first: "2025-11-19 17:40:05", last: "2025-11-19 19:34:39", brokers: []int32{1, 2, 3}, mv: 20,
		firstOffset: -1, lastOffset: -1},
	{set: "renoagil-textlogs", file: "00000000000000000000.log", batches: 18149, control: 5, topic: 2, partition: 51, pc: 357, pcLeader: 357,
		registerBroker: 5, brokerRegChange: 13, first: "2025-08-06 09:01:48", last: "2025-08-07 04:15:18", brokers: []int32{1}, mv: 14,
		firstOffset: -1, lastOffset: -1},
	{set: "ichwansh-textlogs", file: "00000000000000000000.log", batches: 8568, control: 13, topic: 3, partition: 52, pc: 1173, pcLeader: 1173,
		registerBroker: 13, brokerRegChange: 38, first: "2025-02-26 13:33:25", last: "2025-02-27 00:14:20", brokers: []int32{1}, mv: 21,
		firstOffset: -1, lastOffset: -1},
	{set: "springkafka-rolled", file: "00000000000000232914.log", batches: 12493, control: 1, pc: 124, pcLeader: 124,
		registerBroker: 1, brokerRegChange: 3, first: "2025-02-28 09:33:54", last: "2025-02-28 11:18:43", brokers: []int32{1},
		firstOffset: 232914, lastOffset: 245532},
	{set: "backendlabs-2seg", file: "00000000000000000000.log", batches: 4690, control: 5, topic: 3, partition: 60, pc: 380, pcLeader: 380,
		registerBroker: 5, brokerRegChange: 17, first: "2025-12-10 19:14:34", brokers: []int32{1}, mv: 25,
		firstOffset: 0, lastOffset: 5150},
	{set: "backendlabs-2seg", file: "00000000000000005151.log", batches: 1746, control: 3, pc: 420, pcLeader: 420,
		registerBroker: 3, brokerRegChange: 12, last: "2025-12-27 02:33:03", brokers: []int32{1},
		firstOffset: 5151, lastOffset: 7319},
	{set: "confluentlocal-k41", file: "00000000000000000000.log", batches: 15137, control: 4, topic: 6, partition: 55, pc: 216, pcLeader: 216,
		registerBroker: 4, brokerRegChange: 9, first: "2026-02-17 21:15:56", last: "2026-02-18 18:40:12", brokers: []int32{1}, mv: 27,
		firstOffset: -1, lastOffset: -1, extra: map[string]int{"FeatureLevelRecord": 4, "RemoveTopicRecord": 1}},
}

// snapshotWant: the README says every snapshot is 3 batches, 2 of them
// control, no CRC failure, full-state records only and no PartitionChange;
// greenlemon's holds 6 topics, 55 partitions and 3 brokers; springkafka's
// 219228 names 4 topics and 243115 also admin-topic. The other counts were
// read off the files by this package (regression values).
type snapshotWant struct {
	set, file                        string
	topic, partition, registerBroker int
	topicNames                       []string
	mv                               int16
}

var snapshotWants = []snapshotWant{
	{"confluentlocal-k41", "00000000000000010830-0000000003.checkpoint", 5, 54, 1, nil, 27},
	{"ftmhxp-3node", "00000000000000007268-0000000001.checkpoint", 2, 51, 3, nil, 20},
	{"greenlemon-3node", "00000000000000028869-0000000189.checkpoint", 6, 55, 3, nil, 11},
	{"ogs59-3node", "00000000000000020475-0000000026.checkpoint", 3, 56, 3, nil, 19},
	{"renoagil-textlogs", "00000000000000007111-0000000001.checkpoint", 2, 51, 1, []string{"__consumer_offsets", "belajarkafka"}, 14},
	{"springkafka-rolled", "00000000000000219228-0000000025.checkpoint", 4, 59, 1, nil, 21},
	{"springkafka-rolled", "00000000000000243115-0000000030.checkpoint", 5, 62, 1, []string{"admin-topic"}, 21},
}

func readmeTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.Parse("2006-01-02 15:04:05", s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

func TestCensusSegments(t *testing.T) {
	needShared(t)
	var tot Census
	tot.Records = map[string]int{}
	for _, w := range segmentWants {
		t.Run(w.set+"/"+w.file, func(t *testing.T) {
			c, err := ReadFile(filepath.Join(sharedDir, w.set, w.file), nil)
			if err != nil {
				t.Fatal(err)
			}
			tot.Batches += c.Batches
			tot.ControlBatches += c.ControlBatches
			for k, v := range c.Records {
				tot.Records[k] += v
			}
			check := func(what string, got, want int) {
				t.Helper()
				if got != want {
					t.Errorf("%s = %d, want %d", what, got, want)
				}
			}
			check("batches", c.Batches, w.batches)
			check("control batches", c.ControlBatches, w.control)
			check("CRC failures", len(c.CRCFailures), 0)
			check("corrupt", len(c.Corrupt), 0)
			check("TopicRecord", c.Count("TopicRecord"), w.topic)
			check("PartitionRecord", c.Count("PartitionRecord"), w.partition)
			check("PartitionChangeRecord", c.Count("PartitionChangeRecord"), w.pc)
			check("PartitionChangeRecord with Leader", c.PartitionChangeLeader, w.pcLeader)
			check("RegisterBrokerRecord", c.Count("RegisterBrokerRecord"), w.registerBroker)
			check("FenceBrokerRecord", c.Count("FenceBrokerRecord"), w.fence)
			check("UnfenceBrokerRecord", c.Count("UnfenceBrokerRecord"), w.unfence)
			check("BrokerRegistrationChangeRecord", c.Count("BrokerRegistrationChangeRecord"), w.brokerRegChange)
			check("LeaderChangeMessage", c.Count("LeaderChangeMessage"), w.control) // one per control batch
			for k, v := range w.extra {
				check(k, c.Count(k), v)
			}
			if len(c.UndecodedRecords) != 0 {
				t.Errorf("undecoded records: %v", c.UndecodedRecords)
			}
			if c.Truncated || c.NotALog || c.Snapshot {
				t.Errorf("truncated %v, not a log %v, snapshot %v", c.Truncated, c.NotALog, c.Snapshot)
			}
			if w.first != "" && !c.FirstBatch.Truncate(time.Second).Equal(readmeTime(t, w.first)) {
				t.Errorf("first batch %v, want %s", c.FirstBatch, w.first)
			}
			if w.last != "" && !c.LastBatch.Truncate(time.Second).Equal(readmeTime(t, w.last)) {
				t.Errorf("last batch %v, want %s", c.LastBatch, w.last)
			}
			if !slices.Equal(c.BrokerIDs, w.brokers) {
				t.Errorf("broker ids %v, want %v", c.BrokerIDs, w.brokers)
			}
			if c.MetadataVersion != w.mv {
				t.Errorf("metadata.version %d, want %d", c.MetadataVersion, w.mv)
			}
			if w.firstOffset >= 0 && (c.FirstOffset != w.firstOffset || c.LastOffset != w.lastOffset) {
				t.Errorf("offsets %d-%d, want %d-%d", c.FirstOffset, c.LastOffset, w.firstOffset, w.lastOffset)
			}
			if w.maxQuorumEpoch != 0 && c.MaxQuorumEpoch != w.maxQuorumEpoch {
				t.Errorf("max quorum epoch %d, want %d", c.MaxQuorumEpoch, w.maxQuorumEpoch)
			}
		})
	}
	// README: "Totals over the 13 segment files in the 12 sets".
	if t.Failed() {
		return
	}
	for _, x := range []struct {
		what      string
		got, want int
	}{
		{"batches", tot.Batches, 142841},
		{"control batches", tot.ControlBatches, 120},
		{"TopicRecord", tot.Records["TopicRecord"], 36},
		{"PartitionRecord", tot.Records["PartitionRecord"], 548},
		{"PartitionChangeRecord", tot.Records["PartitionChangeRecord"], 6984},
		{"RegisterBrokerRecord", tot.Records["RegisterBrokerRecord"], 130},
		{"FenceBrokerRecord", tot.Records["FenceBrokerRecord"], 4},
		{"UnfenceBrokerRecord", tot.Records["UnfenceBrokerRecord"], 9},
		{"BrokerRegistrationChangeRecord", tot.Records["BrokerRegistrationChangeRecord"], 302},
	} {
		if x.got != x.want {
			t.Errorf("total %s = %d, want %d", x.what, x.got, x.want)
		}
	}
}

// TestCensusEveryFile makes sure the tables above cover every segment and
// snapshot in the shared directory.
func TestCensusEveryFile(t *testing.T) {
	needShared(t)
	files, _ := filepath.Glob(filepath.Join(sharedDir, "*", "[0-9]*.log"))
	cps, _ := filepath.Glob(filepath.Join(sharedDir, "*", "[0-9]*.checkpoint"))
	covered := map[string]bool{}
	for _, w := range segmentWants {
		covered[filepath.Join(sharedDir, w.set, w.file)] = true
	}
	for _, w := range snapshotWants {
		covered[filepath.Join(sharedDir, w.set, w.file)] = true
	}
	for _, f := range append(files, cps...) {
		if !covered[f] {
			t.Errorf("%s has no expected census", f)
		}
	}
	if len(files) != 13 || len(cps) != 7 {
		t.Errorf("%d segments and %d snapshots, want 13 and 7", len(files), len(cps))
	}
}

func TestCensusSnapshots(t *testing.T) {
	needShared(t)
	fullState := map[string]bool{"TopicRecord": true, "PartitionRecord": true, "ConfigRecord": true,
		"RegisterBrokerRecord": true, "RegisterControllerRecord": true, "FeatureLevelRecord": true,
		"ProducerIdsRecord": true, "SnapshotHeaderRecord": true, "SnapshotFooterRecord": true,
		// Not in the README's list, but in every snapshot from 3.5 on.
		"ZkMigrationStateRecord": true}
	for _, w := range snapshotWants {
		t.Run(w.set+"/"+w.file, func(t *testing.T) {
			var names []string
			var snapFlags int
			c, err := ReadFile(filepath.Join(sharedDir, w.set, w.file), func(r Record) error {
				if r.Snapshot {
					snapFlags++
				}
				if tr, ok := r.Value.(*TopicRecord); ok {
					names = append(names, tr.Name)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if c.Batches != 3 || c.ControlBatches != 2 || len(c.CRCFailures) != 0 || c.Truncated || c.NotALog {
				t.Errorf("census %+v", c)
			}
			total := 0
			for _, n := range c.Records {
				total += n
			}
			if !c.Snapshot || snapFlags != total {
				t.Errorf("snapshot flag %v, %d records flagged", c.Snapshot, snapFlags)
			}
			if c.Count("SnapshotHeaderRecord") != 1 || c.Count("SnapshotFooterRecord") != 1 {
				t.Errorf("header/footer %v", c.Records)
			}
			for typ := range c.Records {
				if !fullState[typ] {
					t.Errorf("unexpected %s in a snapshot", typ)
				}
			}
			if c.Count("TopicRecord") != w.topic || c.Count("PartitionRecord") != w.partition || c.Count("RegisterBrokerRecord") != w.registerBroker {
				t.Errorf("topics %d partitions %d brokers %d, want %d %d %d", c.Count("TopicRecord"), c.Count("PartitionRecord"),
					c.Count("RegisterBrokerRecord"), w.topic, w.partition, w.registerBroker)
			}
			for _, n := range w.topicNames {
				if !slices.Contains(names, n) {
					t.Errorf("topic %q not in %v", n, names)
				}
			}
			if c.MetadataVersion != w.mv {
				t.Errorf("metadata.version %d, want %d", c.MetadataVersion, w.mv)
			}
		})
	}
}

// The text and state files next to the segments are not logs.
func TestNotALogRealFiles(t *testing.T) {
	needShared(t)
	for _, f := range []string{"kafkademo/broker.log", "renoagil-textlogs/quorum-state",
		"renoagil-textlogs/leader-epoch-checkpoint", "renoagil-textlogs/meta.properties",
		"renoagil-textlogs/logs/state-change.log", "README.md"} {
		c, err := ReadFile(filepath.Join(sharedDir, f), func(Record) error {
			t.Errorf("%s: got a record", f)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !c.NotALog || c.NotALogReason == "" || c.Batches != 0 {
			t.Errorf("%s: census %+v", f, c)
		}
	}
	if _, err := os.Stat(filepath.Join(sharedDir, "kafkademo")); err == nil {
		if _, err := ReadFile(filepath.Join(sharedDir, "kafkademo"), nil); err == nil {
			t.Error("reading a directory: no error")
		}
	}
}

// Read on a file (in place) and on a plain reader (buffered) agree with
// ReadFile.
func TestReadVariants(t *testing.T) {
	path := filepath.Join(sharedDir, "ftmhxp-3node", "00000000000000000000.log")
	needShared(t)
	want, err := ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := Read(f, nil)
	if err != nil || got.Batches != want.Batches || got.LastOffset != want.LastOffset || got.Count("PartitionChangeRecord") != 153 {
		t.Errorf("Read(file): %+v %v", got, err)
	}
	data, _ := os.ReadFile(path)
	got, err = Read(struct{ io.Reader }{bytes.NewReader(data)}, nil)
	if err != nil || got.Batches != want.Batches || got.NoOp.Records != want.NoOp.Records || got.NoOp.MedianGap != want.NoOp.MedianGap {
		t.Errorf("Read(reader): %+v %v", got, err)
	}
	if want.NoOp.Records != 12825 || want.NoOp.MedianGap <= 0 || want.NoOp.MaxGap < want.NoOp.MedianGap {
		t.Errorf("NoOp stats %+v", want.NoOp)
	}
}
