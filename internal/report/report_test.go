package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"plain topic-1":                         "plain topic-1",
		"a\x1b]52;c;ZXZpbA==\x07b":              "ab",
		"a\x1b]52;c;ZXZpbA==\x1b\\b":            "ab",
		"x\x1b[2Jy\x1b[31mz":                    "xyz",
		"bell\x07 nul\x00":                      "bell? nul?",
		"c1 \u009b2J csi, \u009d0;t\u009c osc.": "c1  csi,  osc.",
		"c1 other \u0085":                       "c1 other ?",
		"bad \xff utf8":                         "bad \ufffd utf8",
		"tab\tok ünïcode":                       "tab\tok ünïcode",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPercentileAndDur(t *testing.T) {
	ds := []time.Duration{5, 1, 4, 2, 3}
	for p, want := range map[float64]time.Duration{50: 3, 99: 5, 100: 5, 0: 1, 20: 1, 21: 2} {
		if got := Percentile(ds, p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	for d, want := range map[time.Duration]string{21 * time.Millisecond: "21 ms", 2400 * time.Millisecond: "2.4 s", 5 * time.Minute: "5 min", 192 * time.Second: "3 min 12 s", 2*time.Hour + 5*time.Minute: "2 h 5 min"} {
		if got := Dur(d); got != want {
			t.Errorf("Dur(%v) = %q, want %q", d, got, want)
		}
	}
}

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

func TestDursExactThenBounded(t *testing.T) {
	var d Durs
	for i := 1; i <= 1000; i++ {
		d.Add(time.Duration(i) * time.Millisecond)
	}
	if d.P(50) != 500*time.Millisecond || d.P(99) != 990*time.Millisecond || d.P(100) != time.Second {
		t.Errorf("exact: %v %v %v", d.P(50), d.P(99), d.P(100))
	}
	var h Durs
	for i := 0; i < 3*exactCap; i++ {
		h.Add(time.Duration(i%2000) * time.Millisecond) // 0..1999 ms, uniform
	}
	h.Add(42 * time.Minute)
	if h.hist == nil || h.exact != nil {
		t.Fatal("did not switch to the histogram")
	}
	if p := h.P(50); p < 990*time.Millisecond || p > 1010*time.Millisecond {
		t.Errorf("p50 %v, want about 1 s", p)
	}
	if h.P(100) != 42*time.Minute || h.Len() != 3*exactCap+1 {
		t.Errorf("max %v len %d", h.P(100), h.Len())
	}
}
