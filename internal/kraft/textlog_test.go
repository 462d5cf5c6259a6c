package kraft

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// stateChangeRe matches the broker's state-change.log line for applying a
// leadership change, e.g.
//
//	[2025-08-06 17:31:13,456] INFO [Broker id=1] Leader belajarkafka-0 with topic id Some(u4xCnM-dRfid3gtXjfwyxQ) starts at leader epoch 2 from offset 14 with partition epoch 2, ...
//	[2025-08-07 11:08:21,640] INFO [Broker id=1] Follower belajarkafka-0 starts at leader epoch 5 from offset 34 with partition epoch 5 and high watermark 34. Current leader is -1. ...
var stateChangeRe = regexp.MustCompile(`^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\] INFO \[Broker id=(\d+)\] (Leader|Follower) (\S+)-(\d+) (?:with topic id Some\((\S+)\) )?starts at leader epoch (\d+) from offset \d+ with partition epoch (\d+)(?:.*Current leader is (-?\d+))?`)

// wib is the nodes' local time zone (UTC+7).
var wib = time.FixedZone("WIB", 7*3600)

type stateChange struct {
	file      string
	time      time.Time // UTC
	topic     string
	topicID   string // "" on Follower lines
	partition int32
	leader    int32
	epoch     int32
	partEpoch int32
}

func readStateChanges(t *testing.T, set string) []stateChange {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(sharedDir, set, "logs", "state-change.log*"))
	if len(files) == 0 {
		t.Fatalf("no state-change logs in %s", set)
	}
	var out []stateChange
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			m := stateChangeRe.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			ts, err := time.ParseInLocation("2006-01-02 15:04:05,000", m[1], wib)
			if err != nil {
				t.Fatal(err)
			}
			atoi := func(s string) int32 { n, _ := strconv.Atoi(s); return int32(n) }
			x := stateChange{file: filepath.Base(f), time: ts.UTC(), topic: m[4], topicID: m[6],
				partition: atoi(m[5]), epoch: atoi(m[7]), partEpoch: atoi(m[8]), leader: atoi(m[2])}
			if m[3] == "Follower" {
				x.leader = atoi(m[9])
			}
			out = append(out, x)
		}
		fh.Close()
	}
	return out
}

func replaySet(t *testing.T, set string) (*Replayer, []Decision, ReplayReport) {
	t.Helper()
	d, err := OpenDir(filepath.Join(sharedDir, set))
	if err != nil {
		t.Fatal(err)
	}
	p := NewReplayer()
	rep, err := d.Replay(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, p.Decisions(), rep
}

func (x stateChange) matches(d Decision) bool {
	return d.Topic == x.topic && d.Partition == x.partition && d.Leader == x.leader &&
		d.LeaderEpoch == x.epoch && d.PartitionEpoch == x.partEpoch && (x.topicID == "" || x.topicID == d.TopicID.String())
}

// The README's example: the PC at 2025-08-06 10:31:12.746 UTC, offset
// 10377, sets belajarkafka-0's leader to 1; state-change.log then shows
// leader epoch 2 at 17:31:13,456 WIB.
func TestTextLogReadmeExample(t *testing.T) {
	needShared(t)
	_, ds, _ := replaySet(t, "renoagil-textlogs")
	i := slices.IndexFunc(ds, func(d Decision) bool { return d.Offset == 10377 })
	if i < 0 {
		t.Fatal("no decision at offset 10377")
	}
	d := ds[i]
	want := time.Date(2025, 8, 6, 10, 31, 12, 746e6, time.UTC)
	if !d.Time.Equal(want) || d.Topic != "belajarkafka" || d.Partition != 0 || d.Leader != 1 || d.PrevLeader != -1 ||
		d.LeaderEpoch != 2 || d.PartitionEpoch != 2 || d.QuorumEpoch != 2 || d.Cause != CauseBrokerUnfenced ||
		d.TopicID.String() != "u4xCnM-dRfid3gtXjfwyxQ" || d.Unclean || d.Stale {
		t.Errorf("decision %+v", d)
	}
	line := time.Date(2025, 8, 6, 17, 31, 13, 456e6, wib)
	if lag := line.Sub(d.Time); lag != 710*time.Millisecond {
		t.Errorf("state-change lag %v", lag)
	}
	for _, x := range readStateChanges(t, "renoagil-textlogs") {
		if x.time.Equal(line) && x.topic == "belajarkafka" && !x.matches(d) {
			t.Errorf("line %+v does not match", x)
		}
	}
}

// Every leadership line in state-change.log is a replayed decision with the
// same leader, leader epoch and partition epoch, committed before the line;
// and every PartitionChange decision while the logs ran is followed by its
// line. This is the check of the epoch-folding rule against the broker.
func TestTextLogsMatchDecisions(t *testing.T) {
	needShared(t)
	for _, tc := range []struct {
		set        string
		lines, pcs int
	}{
		{"renoagil-textlogs", 612, 357},
		{"ichwansh-textlogs", 103, 51},
	} {
		t.Run(tc.set, func(t *testing.T) {
			p, ds, _ := replaySet(t, tc.set)
			var lines []stateChange
			for _, x := range readStateChanges(t, tc.set) {
				// README: the .2025-08-06-15 files are from an earlier,
				// failed incarnation with other topic ids.
				if strings.HasSuffix(x.file, ".2025-08-06-15") {
					if x.topicID != "" && p.TopicName(mustUUID(t, x.topicID)) != "" {
						t.Errorf("old incarnation's topic id %s is in the replay", x.topicID)
					}
					continue
				}
				lines = append(lines, x)
			}
			if len(lines) != tc.lines {
				t.Errorf("%d state-change lines, want %d", len(lines), tc.lines)
			}
			first, last := lines[0].time, lines[0].time
			for _, x := range lines {
				first, last = minTime(first, x.time), maxTime(last, x.time)
				ok := slices.ContainsFunc(ds, func(d Decision) bool { return x.matches(d) && !d.Time.After(x.time) })
				if !ok {
					t.Errorf("no decision for %+v", x)
				}
			}
			var lags []time.Duration
			for _, d := range ds {
				if d.Cause == CauseNewPartition || d.Time.Before(first) || d.Time.After(last) {
					continue
				}
				i := slices.IndexFunc(lines, func(x stateChange) bool {
					lag := x.time.Sub(d.Time)
					return x.matches(d) && lag >= 0 && lag < 5*time.Second
				})
				if i < 0 {
					t.Errorf("no state-change line for %+v", d)
					continue
				}
				lags = append(lags, lines[i].time.Sub(d.Time))
			}
			if len(lags) != tc.pcs {
				t.Errorf("%d PartitionChange decisions with a line, want %d", len(lags), tc.pcs)
			}
			slices.Sort(lags)
			if len(lags) > 0 {
				t.Logf("%s: %d lines, %d PC decisions matched; lag min %v median %v max %v", tc.set, len(lines), len(lags),
					lags[0], lags[len(lags)/2], lags[len(lags)-1])
				if lags[len(lags)/2] > time.Second {
					t.Errorf("median lag %v", lags[len(lags)/2])
				}
			}
		})
	}
}

// ichwansh: the 21:39 WIB controlled shutdown is 51 PCs with 51 lines.
func TestTextLogControlledShutdown(t *testing.T) {
	needShared(t)
	_, ds, _ := replaySet(t, "ichwansh-textlogs")
	from := time.Date(2025, 2, 26, 21, 39, 0, 0, wib)
	n := 0
	for _, d := range ds {
		if !d.Time.Before(from) && d.Time.Before(from.Add(time.Minute)) {
			n++
			if d.Cause != CauseControlledShutdown || d.Leader != -1 || d.PrevLeader != 1 {
				t.Errorf("decision %+v", d)
			}
		}
	}
	if n != 51 {
		t.Errorf("%d decisions at the 21:39 shutdown, want 51", n)
	}
}

func mustUUID(t *testing.T, s string) UUID {
	t.Helper()
	u, err := ParseUUID(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
