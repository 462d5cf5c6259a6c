package kraft

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Replaying each segment to a snapshot's offset gives exactly the
// snapshot's partitions: leader, leader epoch, partition epoch, ISR and
// replicas. This checks the epoch-folding rule on every partition of the
// five sets whose snapshot lies inside a segment.
func TestReplayMatchesSnapshots(t *testing.T) {
	needShared(t)
	for _, tc := range []struct {
		set        string
		offset     int64
		partitions int
	}{
		{"confluentlocal-k41", 10830, 54},
		{"ftmhxp-3node", 7268, 51},
		{"greenlemon-3node", 28869, 55},
		{"ogs59-3node", 20475, 56},
		{"renoagil-textlogs", 7111, 51},
	} {
		t.Run(tc.set, func(t *testing.T) {
			_, _, rep := replaySet(t, tc.set)
			if len(rep.Checks) != 1 {
				t.Fatalf("checks %+v", rep.Checks)
			}
			c := rep.Checks[0]
			if c.Offset != tc.offset || c.Partitions != tc.partitions || len(c.Diffs) != 0 {
				t.Errorf("check at %d: %d partitions, diffs %+v", c.Offset, c.Partitions, c.Diffs)
			}
			if rep.GapTo != rep.GapFrom {
				t.Errorf("gap %d-%d", rep.GapFrom, rep.GapTo)
			}
		})
	}
}

// Decision counts: one per new partition and one per PartitionChange that
// carries the Leader field (every set here has no leader-recovery-only
// change).
func TestReplayDecisionCounts(t *testing.T) {
	needShared(t)
	for _, w := range []struct {
		set                string
		decisions, unclean int
		causes             map[string]int
	}{
		{"ldi-poc", 108, 0, map[string]int{CauseNewPartition: 54, CauseControlledShutdown: 54}},
		{"hiage-3node", 60, 0, map[string]int{CauseNewPartition: 60}},
		{"kafkademo", 0, 0, map[string]int{}},
		{"azercell-3node", 195, 0, nil},
		{"greenlemon-3node", 2819, 0, nil},
		{"ogs59-3node", 309, 0, nil},
		{"ftmhxp-3node", 144, 0, nil},
		{"renoagil-textlogs", 408, 0, map[string]int{CauseNewPartition: 51, CauseControlledShutdown: 204, CauseBrokerUnfenced: 153}},
		{"ichwansh-textlogs", 1225, 0, nil},
		{"springkafka-rolled", 124, 0, nil},
		{"backendlabs-2seg", 860, 0, nil},
		{"confluentlocal-k41", 271, 0, nil},
	} {
		t.Run(w.set, func(t *testing.T) {
			_, ds, _ := replaySet(t, w.set)
			causes := map[string]int{}
			unclean := 0
			for i, d := range ds {
				causes[d.Cause]++
				if d.Unclean {
					unclean++
				}
				if d.Cause == CauseUnknown {
					t.Errorf("unknown cause: %+v", d)
				}
				if i > 0 && d.Offset <= ds[i-1].Offset {
					t.Errorf("decisions out of order at %d", d.Offset)
				}
			}
			if len(ds) != w.decisions || unclean != w.unclean {
				t.Errorf("%d decisions (%d unclean), want %d (%d)", len(ds), unclean, w.decisions, w.unclean)
			}
			if w.causes != nil && !mapsEqual(causes, w.causes) {
				t.Errorf("causes %v, want %v", causes, w.causes)
			}
			t.Logf("%s: causes %v", w.set, causes)
		})
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// springkafka: the segment starts at 232914, the older snapshot ends at
// 219228 and the newer at 243115. The replay starts from 219228 with its
// state marked stale, and at 243115 corrects the held decisions' epochs.
func TestReplayRolledSegment(t *testing.T) {
	needShared(t)
	d, err := OpenDir(filepath.Join(sharedDir, "springkafka-rolled"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Base == nil || d.Base.Offset != 219228 || d.Base.Epoch != 25 || len(d.Segments) != 1 ||
		len(d.Checkpoints) != 1 || d.Checkpoints[0].Offset != 243115 || d.GapFrom != 219228 || d.GapTo != 232914 {
		t.Fatalf("dir %+v base %+v checkpoints %+v", d, d.Base, d.Checkpoints)
	}
	p := NewReplayer()
	rep, err := d.Replay(p)
	if err != nil {
		t.Fatal(err)
	}
	ds := p.Decisions()
	if len(rep.Checks) != 1 || rep.Checks[0].Partitions != 62 {
		t.Fatalf("checks %+v", rep.Checks)
	}
	for _, df := range rep.Checks[0].Diffs {
		if !df.Got.Stale {
			t.Errorf("diff of a partition that was not stale: %+v", df)
		}
	}
	// The README: the 124 PCs refer to 5 topic ids, all named (admin-topic
	// from the newer snapshot).
	topics := map[string]bool{}
	snap, _ := readSnapshotState(t, d.Checkpoints[0].Path)
	lastBefore := map[string]Decision{}
	for _, x := range ds {
		topics[x.Topic] = true
		if x.LeaderEpoch == Unknown || x.PartitionEpoch == Unknown || x.Topic == "" {
			t.Errorf("decision %+v", x)
		}
		if x.Offset >= 243115 && x.Stale {
			t.Errorf("stale after the snapshot: %+v", x)
		}
		key := x.Topic + "-" + string(rune('0'+x.Partition))
		if prev, ok := lastBefore[key]; ok && x.LeaderEpoch != prev.LeaderEpoch+1 {
			t.Errorf("%s: epoch %d after %d", key, x.LeaderEpoch, prev.LeaderEpoch)
		}
		if x.Offset < 243115 {
			lastBefore[key] = x
		}
	}
	if len(topics) != 5 || !topics["admin-topic"] {
		t.Errorf("topics %v", topics)
	}
	// Each partition's last decision before 243115 has the snapshot's
	// epoch (every PC here sets the leader, so nothing bumps after it).
	for _, x := range lastBefore {
		st, ok := snap.Partition(x.TopicID, x.Partition)
		if !ok || st.LeaderEpoch != x.LeaderEpoch || st.Leader != x.Leader {
			t.Errorf("%s-%d: decision epoch %d leader %d, snapshot %+v", x.Topic, x.Partition, x.LeaderEpoch, x.Leader, st)
		}
	}
}

func readSnapshotState(t *testing.T, path string) (*Replayer, Census) {
	t.Helper()
	p := NewReplayer()
	c, err := ReadFile(path, func(r Record) error { p.Apply(r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	p.Flush()
	if len(p.Decisions()) != 0 {
		t.Errorf("%s: a snapshot yielded decisions", path)
	}
	return p, c
}

func TestOpenDir(t *testing.T) {
	needShared(t)
	d, err := OpenDir(filepath.Join(sharedDir, "backendlabs-2seg"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Base != nil || len(d.Segments) != 2 || d.Segments[0].Offset != 0 || d.Segments[1].Offset != 5151 || len(d.Checkpoints) != 0 {
		t.Errorf("backendlabs: %+v", d)
	}
	d, err = OpenDir(filepath.Join(sharedDir, "greenlemon-3node"))
	if err != nil {
		t.Fatal(err)
	}
	// Segment 0 is there: no snapshot is needed; the snapshot is a check.
	if d.Base != nil || len(d.Checkpoints) != 1 || d.Checkpoints[0].Epoch != 189 || d.GapFrom != d.GapTo {
		t.Errorf("greenlemon: %+v", d)
	}
	if _, err := OpenDir(filepath.Join(sharedDir, "kafkademo", "broker.log")); err == nil {
		t.Error("OpenDir of a file: no error")
	}
	if _, err := OpenDir(t.TempDir()); err == nil {
		t.Error("OpenDir of an empty dir: no error")
	}
	// Only a snapshot: it is the base.
	dir := t.TempDir()
	for _, n := range []string{"00000000000000000100-0000000002.checkpoint", "00000000000000000050-0000000001.checkpoint",
		"00000000000000000050-0000000001.checkpoint.deleted", "bootstrap.checkpoint", "quorum-state", "00000000000000000000.index"} {
		writeFile(t, filepath.Join(dir, n), nil)
	}
	d, err = OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d.Base == nil || d.Base.Offset != 100 || len(d.Segments) != 0 || len(d.Checkpoints) != 0 {
		t.Errorf("snapshot only: %+v", d)
	}
	// Segments from 75 with snapshots ending at 50 and 100: base 50, gap
	// 50-75, 100 is a checkpoint.
	writeFile(t, filepath.Join(dir, "00000000000000000075.log"), nil)
	writeFile(t, filepath.Join(dir, "00000000000000000200.log"), nil)
	d, err = OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d.Base == nil || d.Base.Offset != 50 || len(d.Segments) != 2 || d.Segments[1].Offset != 200 ||
		len(d.Checkpoints) != 1 || d.Checkpoints[0].Offset != 100 || d.GapFrom != 50 || d.GapTo != 75 {
		t.Errorf("mixed: %+v base %+v", d, d.Base)
	}
	files := d.Files()
	if len(files) != 3 || !files[0].Snapshot || files[1].Offset != 75 {
		t.Errorf("files %+v", files)
	}
}

// ---- cause and folding rules on synthetic records.

type synth struct {
	p      *Replayer
	off    int64
	batch  int64
	t      time.Time
	qepoch int32
}

func newSynth() *synth {
	return &synth{p: NewReplayer(), t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), qepoch: 1}
}

// next starts a new batch.
func (s *synth) next() {
	s.batch = s.off
	s.t = s.t.Add(time.Second)
}

func (s *synth) add(v any) {
	typ := ""
	switch v.(type) {
	case *PartitionRecord:
		typ = "PartitionRecord"
	case *PartitionChangeRecord:
		typ = "PartitionChangeRecord"
	}
	s.p.Apply(Record{Offset: s.off, BatchOffset: s.batch, BatchTime: s.t, QuorumEpoch: s.qepoch, Type: typ, Value: v})
	s.off++
}

var tid = UUID{1, 2, 3}

func pc(part, leader int32, isr []int32) *PartitionChangeRecord {
	return &PartitionChangeRecord{PartitionID: part, TopicID: tid, Leader: leader, HasLeader: leader != LeaderUnchanged,
		ISR: isr, LeaderRecoveryState: LeaderRecoveryUnchanged}
}

// setup: topic t with partitions 0..3, replicas [1 2 3] rotated, ISR all,
// brokers 1-3 registered and unfenced.
func (s *synth) setup() {
	s.next()
	for id := int32(1); id <= 3; id++ {
		s.add(&RegisterBrokerRecord{BrokerID: id, BrokerEpoch: int64(id), IncarnationID: UUID{byte(id)}, Fenced: true})
		s.add(&BrokerRegistrationChangeRecord{BrokerID: id, Fenced: -1})
	}
	s.add(&TopicRecord{Name: "t", TopicID: tid})
	for p := int32(0); p < 4; p++ {
		r := []int32{1 + p%3, 1 + (p+1)%3, 1 + (p+2)%3}
		s.add(&PartitionRecord{PartitionID: p, TopicID: tid, Replicas: r, ISR: slices.Clone(r), Leader: r[0],
			LeaderEpoch: 0, PartitionEpoch: 0})
	}
	s.next()
}

func (s *synth) decisions() []Decision {
	ds := s.p.Decisions()
	var out []Decision
	for _, d := range ds {
		if d.Cause != CauseNewPartition {
			out = append(out, d)
		}
	}
	return out
}

func TestCauses(t *testing.T) {
	for _, tc := range []struct {
		name    string
		run     func(s *synth)
		cause   string
		leader  int32
		epoch   int32
		unclean bool
	}{
		{"fenced after its PCs (3.4+)", func(s *synth) {
			s.add(pc(0, 2, []int32{2, 3}))
			s.add(&BrokerRegistrationChangeRecord{BrokerID: 1, Fenced: 1})
		}, CauseBrokerFenced, 2, 1, false},
		{"fenced (3.2 FenceBrokerRecord)", func(s *synth) {
			s.add(&FenceBrokerRecord{ID: 1})
			s.add(pc(0, 2, []int32{2, 3}))
		}, CauseBrokerFenced, 2, 1, false},
		{"fenced in an earlier batch", func(s *synth) {
			s.add(&BrokerRegistrationChangeRecord{BrokerID: 1, Fenced: 1})
			s.next()
			s.add(pc(0, 3, nil))
		}, CauseBrokerFenced, 3, 1, false},
		{"controlled shutdown", func(s *synth) {
			s.add(&BrokerRegistrationChangeRecord{BrokerID: 1, InControlledShutdown: 1})
			s.add(pc(0, 2, []int32{2, 3}))
		}, CauseControlledShutdown, 2, 1, false},
		{"unregistered", func(s *synth) {
			s.add(pc(0, 2, []int32{2, 3}))
			s.add(&UnregisterBrokerRecord{BrokerID: 1})
		}, CauseBrokerUnregistered, 2, 1, false},
		{"restarted", func(s *synth) {
			s.add(&RegisterBrokerRecord{BrokerID: 1, BrokerEpoch: 9, IncarnationID: UUID{9}, Fenced: true})
			s.add(pc(0, 2, []int32{2, 3}))
		}, CauseBrokerRestarted, 2, 1, false},
		{"reassignment", func(s *synth) {
			c := pc(0, 2, []int32{2, 3, 4})
			c.Replicas = []int32{2, 3, 4}
			c.RemovingReplicas = []int32{}
			s.add(c)
		}, CauseReassignment, 2, 1, false},
		{"preferred election", func(s *synth) {
			s.add(pc(0, 2, nil))
			s.next()
			s.add(pc(0, 1, nil))
		}, CausePreferredElection, 1, 2, false},
		{"unfenced, from no leader", func(s *synth) {
			s.add(pc(0, NoLeader, []int32{1}))
			s.add(&BrokerRegistrationChangeRecord{BrokerID: 1, Fenced: 1})
			s.next()
			s.add(&BrokerRegistrationChangeRecord{BrokerID: 1, Fenced: -1})
			s.add(pc(0, 1, nil))
		}, CauseBrokerUnfenced, 1, 2, false},
		{"unclean: leader outside the ISR", func(s *synth) {
			s.add(pc(0, NoLeader, []int32{1}))
			s.add(&BrokerRegistrationChangeRecord{BrokerID: 1, Fenced: 1})
			s.next()
			s.add(pc(0, 3, []int32{3}))
		}, CauseUncleanElection, 3, 2, true},
		{"unclean: recovering", func(s *synth) {
			c := pc(0, 1, nil)
			c.LeaderRecoveryState = LeaderRecoveryRecovering
			s.add(c)
		}, CauseUncleanElection, 1, 1, true},
		{"ELR member is clean", func(s *synth) {
			c := pc(0, NoLeader, []int32{})
			c.ELR = []int32{2}
			s.add(c)
			s.next()
			s.add(pc(0, 2, []int32{2}))
		}, CauseUnknown, 2, 2, false},
		{"ISR shrink bump (MV < 3.6)", func(s *synth) {
			s.add(pc(0, 1, []int32{1, 2}))
		}, CauseISRShrink, 1, 1, false},
		{"ISR shrink of a fenced broker", func(s *synth) {
			s.add(pc(0, 1, []int32{1, 2}))
			s.add(&BrokerRegistrationChangeRecord{BrokerID: 3, Fenced: 1})
		}, CauseBrokerFenced, 1, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSynth()
			s.setup()
			tc.run(s)
			ds := s.decisions()
			if len(ds) == 0 {
				t.Fatal("no decision")
			}
			d := ds[len(ds)-1]
			if d.Cause != tc.cause || d.Leader != tc.leader || d.LeaderEpoch != tc.epoch || d.Unclean != tc.unclean || d.Topic != "t" {
				t.Errorf("decision %+v, want cause %s leader %d epoch %d unclean %v", d, tc.cause, tc.leader, tc.epoch, tc.unclean)
			}
		})
	}
}

func TestEpochFolding(t *testing.T) {
	s := newSynth()
	s.setup()
	s.add(pc(1, LeaderUnchanged, []int32{2, 3})) // ISR only: partition epoch
	s.next()
	c := pc(1, LeaderUnchanged, nil)
	c.LeaderRecoveryState = LeaderRecoveryRecovered // LRS only: partition epoch, a decision
	s.add(c)
	s.next()
	s.add(pc(1, 3, nil)) // leader: both
	s.next()
	s.add(pc(1, 3, nil)) // same leader set again: both (ISR-shrink style)
	s.p.Flush()
	st, ok := s.p.Partition(tid, 1)
	if !ok || st.Leader != 3 || st.LeaderEpoch != 2 || st.PartitionEpoch != 4 || !slices.Equal(st.ISR, []int32{2, 3}) {
		t.Errorf("state %+v", st)
	}
	ds := s.decisions()
	if len(ds) != 3 || ds[0].LeaderEpoch != 0 || ds[0].PartitionEpoch != 2 || ds[0].Cause != CauseLeaderRecovered ||
		ds[1].LeaderEpoch != 1 || ds[2].LeaderEpoch != 2 {
		t.Errorf("decisions %+v", ds)
	}
	// With ISRChanges the ISR-only record is a decision too.
	s = newSynth()
	s.p.ISRChanges = true
	s.setup()
	s.add(pc(1, LeaderUnchanged, []int32{2, 3, 1}))
	ds = s.decisions()
	if len(ds) != 1 || ds[0].Cause != CauseISRChange || ds[0].LeaderEpoch != 0 || ds[0].PartitionEpoch != 1 {
		t.Errorf("ISR change %+v", ds)
	}
}

func TestSnapshotRecordsReplaceState(t *testing.T) {
	s := newSynth()
	s.setup()
	s.add(pc(0, 2, nil))
	s.next()
	p := s.p
	p.Apply(Record{Control: true, Snapshot: true, Type: "SnapshotHeaderRecord", Value: &SnapshotHeaderRecord{}, BatchOffset: 1000})
	p.Apply(Record{Snapshot: true, Type: "TopicRecord", Value: &TopicRecord{Name: "u", TopicID: UUID{7}}, BatchOffset: 1001})
	p.Apply(Record{Snapshot: true, Type: "PartitionRecord", BatchOffset: 1001,
		Value: &PartitionRecord{TopicID: UUID{7}, Replicas: []int32{1}, ISR: []int32{1}, Leader: 1, LeaderEpoch: 5, PartitionEpoch: 6}})
	n := len(p.Decisions())
	if n != 4+1 {
		t.Errorf("%d decisions: the snapshot's PartitionRecord must not be one", n)
	}
	if _, ok := p.Partition(tid, 0); ok {
		t.Error("state before the snapshot survived it")
	}
	if st, ok := p.Partition(UUID{7}, 0); !ok || st.Topic != "u" || st.LeaderEpoch != 5 {
		t.Errorf("snapshot state %+v", st)
	}
	// A change to a partition the replay never saw: epochs unknown.
	s.off = 2000
	s.next()
	s.add(&PartitionChangeRecord{TopicID: UUID{8}, Leader: 1, HasLeader: true, LeaderRecoveryState: LeaderRecoveryUnchanged})
	ds := p.Decisions()
	d := ds[len(ds)-1]
	if d.LeaderEpoch != Unknown || d.PrevLeader != Unknown || !d.Stale || d.Unclean {
		t.Errorf("unknown partition: %+v", d)
	}
}

func TestOnDecisionCallback(t *testing.T) {
	s := newSynth()
	var got []Decision
	s.p.OnDecision = func(d Decision) { got = append(got, d) }
	s.setup()
	if len(got) != 0 {
		t.Error("decisions emitted before their batch ended")
	}
	s.p.Flush()
	if len(got) != 4 || len(s.p.Decisions()) != 0 {
		t.Errorf("callback got %d", len(got))
	}
	if bs := s.p.Brokers(); len(bs) != 3 || bs[0].Fenced {
		t.Errorf("brokers %+v", bs)
	}
	if ps := s.p.Partitions(); len(ps) != 4 || ps[3].Partition != 3 {
		t.Errorf("partitions %+v", ps)
	}
	if s.p.Topics()[tid] != "t" {
		t.Error("topic name")
	}
}
