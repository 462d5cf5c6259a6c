package kraft

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func recordsOf(t *testing.T, rel string) []Record {
	t.Helper()
	needShared(t)
	var recs []Record
	if _, err := ReadFile(filepath.Join(sharedDir, rel), func(r Record) error {
		recs = append(recs, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return recs
}

func at(t *testing.T, recs []Record, off int64) Record {
	t.Helper()
	i := slices.IndexFunc(recs, func(r Record) bool { return r.Offset == off })
	if i < 0 {
		t.Fatalf("no record at offset %d", off)
	}
	return recs[i]
}

// Spot values of renoagil's segment, read off its text logs: the topic id
// in state-change.log ("Creating new partition belajarkafka-0 with topic id
// u4xCnM-dRfid3gtXjfwyxQ"), the controlled shutdown at 17:29:03 WIB (the
// broker's "starts at leader epoch 1 ... Current leader is -1" lines).
func TestDecodeRenoagil(t *testing.T) {
	recs := recordsOf(t, "renoagil-textlogs/00000000000000000000.log")
	r := at(t, recs, 47)
	tr, ok := r.Value.(*TopicRecord)
	if !ok || tr.Name != "belajarkafka" || tr.TopicID.String() != "u4xCnM-dRfid3gtXjfwyxQ" {
		t.Errorf("offset 47: %+v", r)
	}
	r = at(t, recs, 48)
	pr, ok := r.Value.(*PartitionRecord)
	if !ok || pr.PartitionID != 0 || pr.Leader != 1 || pr.LeaderEpoch != 0 || pr.PartitionEpoch != 0 ||
		!slices.Equal(pr.Replicas, []int32{1}) || !slices.Equal(pr.ISR, []int32{1}) || pr.TopicID != tr.TopicID {
		t.Errorf("offset 48: %+v", pr)
	}
	// 10308: BrokerRegistrationChange in controlled shutdown, then 51 PCs
	// to leader -1, all in one batch written at 10:29:03.343 UTC.
	r = at(t, recs, 10308)
	brc, ok := r.Value.(*BrokerRegistrationChangeRecord)
	if !ok || brc.BrokerID != 1 || brc.InControlledShutdown != 1 || brc.Fenced != 0 || r.QuorumEpoch != 1 {
		t.Errorf("offset 10308: %+v %+v", r, brc)
	}
	r = at(t, recs, 10309)
	pcr, ok := r.Value.(*PartitionChangeRecord)
	if !ok || pcr.Leader != NoLeader || !pcr.HasLeader || pcr.ISR != nil || pcr.TopicID != tr.TopicID || r.BatchOffset != 10308 ||
		!r.BatchTime.Equal(time.Date(2025, 8, 6, 10, 29, 3, 343e6, time.UTC)) {
		t.Errorf("offset 10309: %+v %+v", r, pcr)
	}
	// 10365: Raft epoch 2 begins (leader-epoch-checkpoint "2 10365").
	r = at(t, recs, 10365)
	lc, ok := r.Value.(*LeaderChangeMessage)
	if !ok || !r.Control || r.QuorumEpoch != 2 || lc.LeaderID != 1 || !slices.Equal(lc.Voters, []int32{1}) {
		t.Errorf("offset 10365: %+v", r)
	}
	r = at(t, recs, 10367)
	rb, ok := r.Value.(*RegisterBrokerRecord)
	if !ok || rb.BrokerID != 1 || rb.BrokerEpoch != 10367 || !rb.Fenced || len(rb.EndPoints) != 1 ||
		rb.EndPoints[0] != (Endpoint{Name: "PLAINTEXT", Host: "localhost", Port: 9092}) || r.Version != 2 {
		t.Errorf("offset 10367: %+v", rb)
	}
	r = at(t, recs, 10377)
	pcr, ok = r.Value.(*PartitionChangeRecord)
	if !ok || pcr.Leader != 1 || pcr.TopicID != tr.TopicID || pcr.PartitionID != 0 {
		t.Errorf("offset 10377: %+v", pcr)
	}
	r = at(t, recs, 2)
	fl, ok := r.Value.(*FeatureLevelRecord)
	if !ok || fl.Name != "metadata.version" || fl.FeatureLevel != 14 || MetadataVersionName(fl.FeatureLevel) != "3.6-IV2" {
		t.Errorf("offset 2: %+v", r)
	}
}

// kafkademo: "leader epoch 5 starts at offset 711" (README) and the
// bootstrap transaction of 3.6.
func TestDecodeKafkademo(t *testing.T) {
	recs := recordsOf(t, "kafkademo/00000000000000000000.log")
	r := at(t, recs, 711)
	if _, ok := r.Value.(*LeaderChangeMessage); !ok || r.QuorumEpoch != 5 {
		t.Errorf("offset 711: %+v", r)
	}
	if r := at(t, recs, 1); r.Type != "BeginTransactionRecord" || *r.Value.(*BeginTransactionRecord).Name != "Bootstrap records" {
		t.Errorf("offset 1: %+v", r)
	}
}

// azercell (3.2): FenceBroker/UnfenceBroker records and v0 everything.
func TestDecodeAzercell(t *testing.T) {
	recs := recordsOf(t, "azercell-3node/00000000000000000000.log")
	if r := at(t, recs, 4); r.Type != "UnfenceBrokerRecord" || *r.Value.(*UnfenceBrokerRecord) != (UnfenceBrokerRecord{ID: 2, Epoch: 0}) {
		t.Errorf("offset 4: %+v", r)
	}
	if r := at(t, recs, 84); r.Type != "FenceBrokerRecord" || *r.Value.(*FenceBrokerRecord) != (FenceBrokerRecord{ID: 2, Epoch: 0}) {
		t.Errorf("offset 84: %+v", r)
	}
	r := at(t, recs, 148)
	pcr := r.Value.(*PartitionChangeRecord)
	if !slices.Equal(pcr.ISR, []int32{1, 3}) || pcr.Leader != 1 || r.QuorumEpoch != 14 {
		t.Errorf("offset 148: %+v", pcr)
	}
}

// confluentlocal (4.1): four FeatureLevel records, a RemoveTopic, v2
// Partition records with ELR fields.
func TestDecodeConfluentLocal(t *testing.T) {
	recs := recordsOf(t, "confluentlocal-k41/00000000000000000000.log")
	var features []string
	for _, r := range recs {
		if fl, ok := r.Value.(*FeatureLevelRecord); ok {
			features = append(features, fl.Name+"="+strconv.Itoa(int(fl.FeatureLevel)))
		}
	}
	want := []string{"metadata.version=27", "eligible.leader.replicas.version=1", "group.version=1", "transaction.version=2"}
	if !slices.Equal(features, want) {
		t.Errorf("features %v", features)
	}
	if r := at(t, recs, 5676); r.Value.(*RemoveTopicRecord).TopicID.String() != "1DWgupWVSRykljwZzLYBVQ" {
		t.Errorf("offset 5676: %+v", r)
	}
	for _, r := range recs {
		if pr, ok := r.Value.(*PartitionRecord); ok {
			if r.Version != 2 || len(pr.Directories) != len(pr.Replicas) || pr.Directories[0].IsZero() {
				t.Fatalf("partition record %+v", pr)
			}
		}
	}
}

// leader-epoch-checkpoint lists "epoch startOffset": each is the first
// batch of that Raft epoch in the segments.
func TestLeaderEpochCheckpoints(t *testing.T) {
	needShared(t)
	sets, _ := filepath.Glob(filepath.Join(sharedDir, "*", "leader-epoch-checkpoint"))
	if len(sets) != 12 {
		t.Fatalf("%d leader-epoch-checkpoint files", len(sets))
	}
	for _, lec := range sets {
		dir := filepath.Dir(lec)
		d, err := OpenDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		first := map[int32]int64{}
		if _, err := d.Read(func(_ string, r Record) error {
			if _, ok := first[r.QuorumEpoch]; !ok && !r.Snapshot {
				first[r.QuorumEpoch] = r.BatchOffset
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(lec)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		checked := 0
		for _, l := range lines[2:] {
			var e, off int64
			f := strings.Fields(l)
			e, _ = strconv.ParseInt(f[0], 10, 32)
			off, _ = strconv.ParseInt(f[1], 10, 64)
			if len(d.Segments) > 0 && off < d.Segments[0].Offset {
				continue
			}
			checked++
			if got, ok := first[int32(e)]; !ok || got != off {
				t.Errorf("%s: epoch %d starts at %d, checkpoint says %d", filepath.Base(dir), e, got, off)
			}
		}
		if checked == 0 {
			t.Errorf("%s: nothing checked", filepath.Base(dir))
		}
	}
}

func TestUUID(t *testing.T) {
	u, err := ParseUUID("u4xCnM-dRfid3gtXjfwyxQ")
	if err != nil || u.String() != "u4xCnM-dRfid3gtXjfwyxQ" || u.IsZero() {
		t.Errorf("%v %v", u, err)
	}
	b, _ := json.Marshal(map[string]UUID{"id": u})
	if string(b) != `{"id":"u4xCnM-dRfid3gtXjfwyxQ"}` {
		t.Errorf("json %s", b)
	}
	if _, err := ParseUUID("short"); err == nil {
		t.Error("short uuid parsed")
	}
	if (UUID{}).String() != "AAAAAAAAAAAAAAAAAAAAAA" {
		t.Error("zero uuid")
	}
}

func TestNames(t *testing.T) {
	for lvl, want := range map[int16]string{7: "3.3-IV3", 11: "3.5-IV2", 14: "3.6-IV2", 19: "3.7-IV4", 20: "3.8-IV0",
		21: "3.9-IV0", 25: "4.0-IV3", 27: "4.1-IV1", 29: "4.2-IV1", 0: "", 99: ""} {
		if got := MetadataVersionName(lvl); got != want {
			t.Errorf("MV %d = %q, want %q", lvl, got, want)
		}
	}
	for k, want := range map[int16]string{0: "RegisterBrokerRecord", 5: "PartitionChangeRecord", 17: "BrokerRegistrationChangeRecord",
		20: "NoOpRecord", 27: "RegisterControllerRecord", 29: "UnknownRecord(29)", 200: "UnknownRecord(200)", -1: "UnknownRecord(-1)"} {
		if got := TypeName(k); got != want {
			t.Errorf("TypeName(%d) = %q", k, got)
		}
	}
	if ControlTypeName(2) != "LeaderChangeMessage" || ControlTypeName(9) != "UnknownControl(9)" {
		t.Error("control names")
	}
}

func TestFields(t *testing.T) {
	r := Record{Value: &PartitionChangeRecord{PartitionID: 3, TopicID: UUID{1}, Leader: 2, HasLeader: true,
		ISR: []int32{2}, LeaderRecoveryState: LeaderRecoveryUnchanged}}
	f := r.Fields()
	if f["partition_id"] != int32(3) || f["leader"] != int32(2) || !slices.Equal(f["isr"].([]int32), []int32{2}) {
		t.Errorf("fields %v", f)
	}
	if _, ok := f["replicas"]; ok {
		t.Error("absent tagged field present")
	}
	if _, ok := f["HasLeader"]; ok {
		t.Error("HasLeader exported to JSON")
	}
	if len((Record{}).Fields()) != 0 || len((Record{Value: theNoOp}).Fields()) != 0 {
		t.Error("empty fields")
	}
}
