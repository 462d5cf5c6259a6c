package report

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/leaderaudit/leaderaudit/internal/textfmt"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

func sampleEpisode() *timeline.Episode {
	t0 := time.Date(2019, 2, 25, 15, 1, 3, 23e6, time.UTC)
	bt := &timeline.BrokerTimeline{Broker: 2, Role: parser.RoleFollower}
	bt.Phases[parser.PhaseReceived] = t0
	bt.Phases[parser.PhaseCompleted] = t0.Add(21 * time.Millisecond)
	bt.Phases[parser.PhaseCached] = t0.Add(22 * time.Millisecond)
	return &timeline.Episode{
		Key: timeline.Key{Topic: "__consumer_offsets", Partition: 36, LeaderEpoch: 10}, Leader: 3, PreviousLeader: parser.Unknown,
		Controller: 1, ControllerEpoch: 8, Start: t0, End: t0.Add(22 * time.Millisecond), Brokers: []*timeline.BrokerTimeline{bt}, Transition: true,
	}
}

func TestJSONElectionFields(t *testing.T) {
	var buf bytes.Buffer
	j := NewJSONWriter(&buf, time.UTC)
	j.Episode(sampleEpisode())
	j.Flush()
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if m["type"] != "election" || m["leader"] != 3.0 || m["previous_leader"] != nil || m["duration_ms"] != 22.0 || m["start"] != "2019-02-25T15:01:03.023Z" {
		t.Errorf("%s", buf.String())
	}
	b := m["brokers"].([]any)[0].(map[string]any)
	if b["role"] != "follower" || b["apply_ms"] != 21.0 || b["phases"].(map[string]any)["cached"] != "2019-02-25T15:01:03.045Z" {
		t.Errorf("broker %v", b)
	}
}

// FuzzJSONWriter: whatever text a log puts in the strings, every JSON line
// parses back and carries the same strings.
func FuzzJSONWriter(f *testing.F) {
	f.Add("orders", "producer-1", "NOT_LEADER_OR_FOLLOWER")
	f.Add("t\x1b]52;c;x\x07", "\x1b[2J\xff\u2028", "E\"\\\n")
	f.Add("\xc3\xc3", "", "")
	f.Fuzz(func(t *testing.T, topic, client, errName string) {
		var buf bytes.Buffer
		j := NewJSONWriter(&buf, time.UTC)
		e := sampleEpisode()
		e.Topic = topic
		j.Episode(e)
		j.ProducerError(&timeline.ProducerError{Time: e.Start, ClientID: client, Topic: topic, Partition: 1, Error: errName, AttemptsLeft: -1})
		j.Flush()
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		if len(lines) != 2 {
			t.Fatalf("%d lines", len(lines))
		}
		var el, pe map[string]any
		if err := json.Unmarshal([]byte(lines[0]), &el); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(lines[1]), &pe); err != nil {
			t.Fatal(err)
		}
		if perByteValid(topic) != el["topic"] {
			t.Fatalf("topic %q came back as %q", topic, el["topic"])
		}
		if bytes.IndexByte(buf.Bytes(), 0x1b) >= 0 {
			t.Fatal("raw ESC in JSON output")
		}
		for _, r := range buf.String() {
			if r >= 0x80 && r <= 0x9f {
				t.Fatalf("raw C1 control %U in JSON output", r)
			}
		}
	})
}

// perByteValid replaces each invalid UTF-8 byte with U+FFFD, as
// encoding/json does.
func perByteValid(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			b.WriteRune(utf8.RuneError)
			i++
			continue
		}
		b.WriteString(s[i : i+n])
		i += n
	}
	return b.String()
}

// The hand-built election line is byte for byte what encoding/json writes
// for JSONElection.
func TestFastElectionMatchesEncoding(t *testing.T) {
	loc, _ := time.LoadLocation("Asia/Jakarta")
	variants := []func(*timeline.Episode){
		func(e *timeline.Episode) {},
		func(e *timeline.Episode) {
			e.PreviousLeader, e.Cause, e.CauseBrokers, e.Unclean = 2, parser.CauseBrokerFailure, []int32{2}, true
			e.Decided, e.ISR, e.Replicas = e.Start, []int32{3, 2}, []int32{3, 2, 1}
			e.BurstID, e.Late, e.ProducerErrors, e.Resent = 4, 2, 7, true
			e.SentLeaderAndIsr, e.SentUpdateMetadata = e.Start.Add(time.Millisecond), e.Start.Add(2*time.Millisecond)
			e.Brokers[0].Elapsed, e.Brokers[0].Repeats = 32*time.Millisecond, 3
			e.Brokers = append(e.Brokers, &timeline.BrokerTimeline{Broker: 7})
		},
		func(e *timeline.Episode) {
			e.Topic, e.Leader, e.ControllerEpoch = "t\"q\x1b\u2028\xff", -1, parser.Unknown
		},
	}
	for i, v := range variants {
		e := sampleEpisode()
		v(e)
		var want bytes.Buffer
		j := NewJSONWriter(&want, loc)
		j.put(j.ElectionRecord(e))
		j.Flush()
		var got bytes.Buffer
		j2 := NewJSONWriter(&got, loc)
		j2.Episode(e)
		j2.Flush()
		if got.String() != want.String() {
			t.Errorf("variant %d:\n got %s\nwant %s", i, got.String(), want.String())
		}
	}
}

// appendStamp writes what AppendFormat(textfmt.TimeFormat) writes.
func TestAppendStampEqualsAppendFormat(t *testing.T) {
	zones := []*time.Location{time.UTC, time.FixedZone("", 5*3600+45*60), time.FixedZone("", -(3*3600 + 30*60)),
		time.FixedZone("", -90), time.FixedZone("", 30), time.FixedZone("", 101*3600)}
	if ny, err := time.LoadLocation("America/New_York"); err == nil {
		zones = append(zones, ny)
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		tm := time.Unix(rng.Int63n(1<<36)-1<<35, rng.Int63n(1e9))
		if i%7 == 0 {
			tm = time.Date(9999+rng.Intn(3), 12, 31, 23, 59, 59, 999999999, time.UTC)
		}
		for _, z := range zones {
			tz := tm.In(z)
			if got, want := string(appendStamp(nil, tz)), tz.Format(textfmt.TimeFormat); got != want {
				t.Fatalf("%v: %s, want %s", tz, got, want)
			}
		}
	}
}

// appendTime reuses the last stamp's second: what it writes is still
// what AppendFormat writes, for times in the same second, across a second
// and across a change of offset (New York's spring-forward, fall-back).
func TestAppendTimeReuseEqualsAppendFormat(t *testing.T) {
	zones := []*time.Location{time.UTC, time.FixedZone("", -90), time.FixedZone("", 101*3600)}
	if ny, err := time.LoadLocation("America/New_York"); err == nil {
		zones = append(zones, ny)
	}
	bases := []time.Time{time.Date(2024, 3, 10, 6, 59, 58, 0, time.UTC), time.Date(2024, 11, 3, 5, 59, 58, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 58, 0, time.UTC), time.Date(1969, 12, 31, 23, 59, 58, 0, time.UTC)}
	rng := rand.New(rand.NewSource(2))
	for _, z := range zones {
		j := NewJSONWriter(io.Discard, z)
		for _, base := range bases {
			tm := base
			for i := 0; i < 2000; i++ {
				tm = tm.Add(time.Duration(rng.Int63n(int64(3 * time.Millisecond))))
				got := string(j.appendTime(nil, tm))
				if want := `"` + tm.In(z).Format(textfmt.TimeFormat) + `"`; got != want {
					t.Fatalf("%v in %v: %s, want %s", tm, z, got, want)
				}
			}
		}
	}
}

// The hand-built isr_change and truncation lines are byte for byte what
// encoding/json wrote for their records.
func TestContextRecordsMatchEncoding(t *testing.T) {
	loc, _ := time.LoadLocation("Asia/Jakarta")
	at := time.Date(2024, 3, 11, 9, 0, 1, 234_000_000, time.UTC)
	topics := []string{"orders", "t\"q\x1b\u2028\xff", "a<b>&c", ""}
	var isr []timeline.ISRChange
	var trs []timeline.Truncation
	for i, tp := range topics {
		isr = append(isr,
			timeline.ISRChange{Time: at, Broker: 3, Topic: tp, Partition: int32(i), Kind: "shrink", From: []int32{3, 2, 1}, To: []int32{3}, Ref: timeline.Ref{Source: 2, Line: 77}},
			timeline.ISRChange{Broker: parser.Unknown, Topic: tp, Partition: -1, Kind: "exp\u0085and", To: []int32{}, Rejected: true, Ref: timeline.Ref{Source: 0, Line: 1 << 40}})
		trs = append(trs,
			timeline.Truncation{Time: at, Broker: 2, Topic: tp, Partition: int32(i), Offset: 1234, EndOffset: 99, Ref: timeline.Ref{Source: 1, Line: 5}},
			timeline.Truncation{Time: at.Add(time.Hour), Broker: parser.Unknown, Topic: tp, Offset: -1, Refused: true, EndOffset: 1 << 50, Ref: timeline.Ref{Source: 9, Line: 0}})
	}
	st := &timeline.Stats{ISRChanges: isr, Truncations: trs}
	var got, want bytes.Buffer
	j := NewJSONWriter(&got, loc)
	j.Context(st, nil)
	j.Flush()
	w := NewJSONWriter(&want, loc)
	for _, c := range isr {
		w.put(ISRChangeRecord{"isr_change", w.tm(c.Time), optInt(c.Broker), c.Topic, c.Partition, c.Kind, c.From, c.To, c.Rejected, c.Ref.Source, c.Ref.Line})
	}
	for _, tr := range trs {
		w.put(TruncationRecord{"truncation", w.tm(tr.Time), optInt(tr.Broker), tr.Topic, tr.Partition, tr.Offset, tr.Refused, optInt64(tr.EndOffset, tr.Refused), tr.Ref.Source, tr.Ref.Line})
	}
	w.Flush()
	if got.String() != want.String() {
		gl, wl := strings.Split(got.String(), "\n"), strings.Split(want.String(), "\n")
		for i := range wl {
			if i >= len(gl) || gl[i] != wl[i] {
				t.Fatalf("line %d:\n got %s\nwant %s", i, gl[min(i, len(gl)-1)], wl[i])
			}
		}
		t.Fatalf("got %d lines, want %d", len(gl), len(wl))
	}
}
