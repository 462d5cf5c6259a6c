package kraft

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func dumpLines(t *testing.T, paths []string, f Filter) []map[string]any {
	t.Helper()
	var buf bytes.Buffer
	if err := Dump(&buf, paths, f); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("bad JSON line %s: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

func TestDumpRecords(t *testing.T) {
	needShared(t)
	seg := filepath.Join(sharedDir, "renoagil-textlogs", "00000000000000000000.log")
	lines := dumpLines(t, []string{seg}, Filter{Partition: AllPartitions})
	if len(lines) != 18566+1 {
		t.Fatalf("%d lines", len(lines))
	}
	last := lines[len(lines)-1]
	if last["type"] != "metadata_census" || last["file"] != seg || last["batches"] != 18149.0 {
		t.Errorf("census line %v", last)
	}
	var pc map[string]any
	for _, l := range lines {
		if l["offset"] == 10377.0 {
			pc = l
		}
	}
	want := map[string]any{"type": "metadata_record", "file": seg, "batch_time": "2025-08-06T10:31:12.746Z", "quorum_epoch": 2.0,
		"record": "PartitionChangeRecord", "version": 0.0, "partition_id": 0.0, "topic_id": "u4xCnM-dRfid3gtXjfwyxQ",
		"topic_name": "belajarkafka", "leader": 1.0, "leader_recovery_state": "unchanged", "batch_offset": 10376.0}
	for k, v := range want {
		if pc[k] != v {
			t.Errorf("%s = %v, want %v", k, pc[k], v)
		}
	}
	if _, ok := pc["isr"]; ok {
		t.Error("absent ISR written")
	}
}

func TestDumpFieldOrderAndUnchanged(t *testing.T) {
	needShared(t)
	var buf bytes.Buffer
	err := Dump(&buf, []string{filepath.Join(sharedDir, "greenlemon-3node")}, Filter{Partition: 13, Types: []string{"partitionchange"},
		Topic: "__consumer_*", Since: time.Date(2025, 1, 22, 7, 20, 2, 0, time.UTC), Until: time.Date(2025, 1, 22, 7, 20, 2, 500e6, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	// greenlemon offset 6616: an ISR-only change of __consumer_offsets-13.
	i := strings.Index(out, `"offset":6616,`)
	if i < 0 {
		t.Fatalf("offset 6616 missing:\n%s", out)
	}
	line := out[i:]
	line = line[:strings.IndexByte(line, '\n')]
	if !strings.Contains(line, `"topic_id":"crCKTd0wTl6bQClKBtax4Q","topic_name":"__consumer_offsets","isr":[2,1],"leader":"unchanged"`) {
		t.Errorf("line %s", line)
	}
	if n := strings.Count(out, `"type":"metadata_record"`); n != 1 {
		t.Errorf("%d records:\n%s", n, out)
	}
	if n := strings.Count(out, `"type":"metadata_census"`); n != 1 {
		t.Errorf("%d census lines", n)
	}
}

func TestDumpDecisionsAndNames(t *testing.T) {
	needShared(t)
	// springkafka's segment alone: topic ids are named from the snapshots
	// beside it.
	seg := filepath.Join(sharedDir, "springkafka-rolled", "00000000000000232914.log")
	lines := dumpLines(t, []string{seg}, Filter{Partition: AllPartitions, SkipNoOp: true, Types: []string{"PartitionChange"}})
	named := 0
	for _, l := range lines {
		if l["type"] == "metadata_record" {
			if l["topic_name"] == nil {
				t.Errorf("unnamed %v", l)
			} else {
				named++
			}
		}
	}
	if named != 124 {
		t.Errorf("%d named PCs", named)
	}
	lines = dumpLines(t, []string{filepath.Join(sharedDir, "renoagil-textlogs")}, Filter{Partition: 0, Topic: "belajarkafka", Decisions: true})
	var decisions []map[string]any
	for _, l := range lines {
		if l["type"] == "leader_decision" {
			decisions = append(decisions, l)
		}
	}
	if len(decisions) != 8 || decisions[2]["offset"] != 10377.0 || decisions[2]["leader_epoch"] != 2.0 ||
		decisions[2]["cause"] != CauseBrokerUnfenced || decisions[2]["time"] != "2025-08-06T10:31:12.746Z" {
		t.Errorf("decisions %v", decisions)
	}
	// Files one by one share the replay: backendlabs' second segment
	// continues the first.
	dir := filepath.Join(sharedDir, "backendlabs-2seg")
	lines = dumpLines(t, []string{filepath.Join(dir, "00000000000000000000.log"), filepath.Join(dir, "00000000000000005151.log")},
		Filter{Partition: AllPartitions, Decisions: true})
	n, censuses := 0, 0
	for _, l := range lines {
		switch l["type"] {
		case "leader_decision":
			n++
			if l["leader_epoch"] == nil || l["stale"] == true {
				t.Fatalf("decision %v", l)
			}
		case "metadata_census":
			censuses++
		}
	}
	if n != 860 || censuses != 2 {
		t.Errorf("%d decisions, %d census lines", n, censuses)
	}
}

func TestDumpErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := Dump(&buf, []string{filepath.Join(t.TempDir(), "missing.log")}, Filter{}); err == nil {
		t.Error("missing file: no error")
	}
	p := filepath.Join(t.TempDir(), "x.log")
	writeFile(t, p, []byte("hello, world\n"))
	buf.Reset()
	// Not a log: an error saying so (metadata on random bytes exited 0
	// with nothing on stderr), after the census line that shows it.
	if err := Dump(&buf, []string{p}, Filter{Partition: AllPartitions}); err == nil || !strings.Contains(err.Error(), "x.log: not a KRaft metadata log (13 bytes") {
		t.Errorf("not a log: %v", err)
	}
	if !strings.Contains(buf.String(), `"not_a_log":true`) {
		t.Errorf("census %s", buf.String())
	}
}

func TestParseTime(t *testing.T) {
	now := time.Date(2025, 8, 6, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"":                              {},
		"2h":                            now.Add(-2 * time.Hour),
		"90m":                           now.Add(-90 * time.Minute),
		"3d":                            now.Add(-72 * time.Hour),
		"2025-08-06T10:31:12.746Z":      time.Date(2025, 8, 6, 10, 31, 12, 746e6, time.UTC),
		"2025-08-06T17:31:13.456+07:00": time.Date(2025, 8, 6, 10, 31, 13, 456e6, time.UTC),
		"2025-08-06T10:31:12":           time.Date(2025, 8, 6, 10, 31, 12, 0, time.UTC),
		"2025-08-06":                    time.Date(2025, 8, 6, 0, 0, 0, 0, time.UTC),
	} {
		got, err := ParseTime(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"yesterday", "-2h", "2025-13-01"} {
		if _, err := ParseTime(bad, now); err == nil {
			t.Errorf("ParseTime(%q): no error", bad)
		}
	}
}

// A snapshot beside the segment that cannot be read leaves its topics
// unnamed; the dump still writes every record, then says which file it
// could not read (it used to be dropped silently).
func TestDumpUnreadableSnapshotNamed(t *testing.T) {
	needShared(t)
	if os.Geteuid() == 0 {
		t.Skip("root reads any file")
	}
	src := filepath.Join(sharedDir, "springkafka-rolled")
	dir := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	var seg, cp string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, e.Name()), b)
		switch {
		case e.Name() == "00000000000000232914.log":
			seg = filepath.Join(dir, e.Name())
		case strings.HasSuffix(e.Name(), ".checkpoint"):
			cp = filepath.Join(dir, e.Name())
		}
	}
	if seg == "" || cp == "" {
		t.Fatalf("springkafka-rolled: segment %q, snapshot %q", seg, cp)
	}
	if err := os.Chmod(cp, 0); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	err = Dump(&buf, []string{seg}, Filter{Partition: AllPartitions})
	if err == nil || !strings.Contains(err.Error(), filepath.Base(cp)) || !errors.Is(err, fs.ErrPermission) {
		t.Errorf("unreadable snapshot: %v", err)
	}
	if !strings.Contains(buf.String(), `"type":"metadata_census"`) {
		t.Error("the segment was not dumped to the end")
	}
}
