package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/leaderaudit/leaderaudit/internal/report"
)

// brief renders an election the way sampleElections states it.
func brief(e report.JSONElection) string {
	s := fmt.Sprintf("%s-%d@%d leader %s prev %s cause %s dur %d resent %v | ", e.Topic, e.Partition, e.LeaderEpoch,
		optStr(e.Leader), optStr(e.PreviousLeader), strOr(e.Cause), e.DurationMs, e.Resent)
	var bs []string
	for _, b := range e.Brokers {
		var ph []string
		for k, v := range b.Phases {
			ph = append(ph, k+"="+v[17:23])
		}
		sort.Strings(ph)
		bs = append(bs, strings.TrimSpace(fmt.Sprintf("b%d %s %s", b.Broker, b.Role, strings.Join(ph, " "))))
	}
	return s + strings.Join(bs, " | ")
}

func optStr(v *int32) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(*v)
}

func strOr(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

func elections(t *testing.T, paths ...string) []report.JSONElection {
	t.Helper()
	out, _, code := audit(t, "json", paths...)
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var es []report.JSONElection
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.Contains(line, `"type":"election"`) {
			continue
		}
		var e report.JSONElection
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
	return es
}

func sample(t *testing.T, id string) string {
	t.Helper()
	m, _ := filepath.Glob("../../testdata/samples/" + id + "-*.log")
	if len(m) != 1 {
		t.Fatalf("sample %s: %v", id, m)
	}
	return m[0]
}

func TestSampleElectionsAsAnEngineerListsThem(t *testing.T) {
	for id, want := range sampleElections {
		t.Run(id, func(t *testing.T) {
			var got []string
			for _, e := range elections(t, sample(t, id)) {
				got = append(got, brief(e))
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// The large samples: counts and hand-checked elections.
func TestLargeSamples(t *testing.T) {
	type check struct {
		ids               []string
		elections, resent int // transitions that are not re-sends; re-sends
		has               []string
	}
	for name, c := range map[string]check{
		"008 0.10.2 restart": {[]string{"008"}, 12, 6, []string{
			"netflow_kafka_topic-0@1 leader 0 prev 0 cause offline_partition dur 96 resent false | b0 leader cached=33.490 completed=33.488 handling=33.485 received=33.484",
			"dns_kafka_topic-0@0 leader 0 prev null cause null dur 274 resent true | b0 leader cached=33.409 completed=33.477 handling=33.450 received=33.442 stopped_fetchers=33.476",
		}},
		"015+016 3.9 preferred election": {[]string{"015", "016"}, 28, 0, []string{
			"__consumer_offsets-0@4 leader 0 prev 2 cause preferred_election dur 194 resent false | b0 leader cached=57.678 epoch_start=57.669 finished=57.677 handling=57.516 stopped_fetchers=57.523 | b1 observer cached=57.536 | b2 follower cached=57.557 epoch_start=57.518 finished=57.554 handling=57.516 stopped_fetchers=57.519",
		}},
		"017 3.9 cold restart": {[]string{"017"}, 159, 0, []string{
			"test-topic-2@4 leader 1 prev 2 cause null dur 127 resent false | b0 observer cached=57.679 | b1 leader cached=57.638 epoch_start=57.584 finished=57.637 handling=57.554 stopped_fetchers=57.557 | b2 follower cached=57.585 epoch_start=57.565 finished=57.580 handling=57.559 stopped_fetchers=57.566",
		}},
		"035 KRaft 3.9 restarts": {[]string{"035"}, 230, 0, []string{
			"kraft-test-1@145 leader 2 prev 3 cause null dur 656 resent false | b1 follower epoch_start=25.816 handling=25.799 started_fetcher=25.866 stopped_fetchers=25.832 | b2 leader epoch_start=26.216 handling=26.179 | b3 follower epoch_start=26.200 handling=26.181 started_fetcher=26.455 stopped_fetchers=26.208",
		}},
		"038+039 2.8 controlled shutdown": {[]string{"038", "039"}, 2, 0, []string{
			"erstesTopic-1@10 leader 0 prev null cause controlled_shutdown dur 25 resent false | b0 leader cached=30.910 epoch_start=30.890 finished=30.908 handling=30.887 stopped_fetchers=30.890 | b1 follower cached=30.898 epoch_start=30.890 finished=30.896 handling=30.887 stopped_fetchers=30.891",
		}},
		"041 1.0 controller": {[]string{"041"}, 103, 0, []string{
			"pollution-0@1 leader -1 prev null cause controller_failover dur 0 resent false | ",
			"__consumer_offsets-6@4 leader 3 prev 2 cause preferred_election dur 16 resent false | ",
		}},
		"042+043 1.1 follower killed": {[]string{"042", "043"}, 1, 0, []string{
			"my-replicated-topic-0@1 leader 0 prev null cause broker_failure dur 4 resent false | b0 leader cached=27.034 completed=27.032 handling=27.031 received=27.031 | b2 follower",
		}},
		"052 1.0 broker 2 startup": {[]string{"052"}, 101, 0, []string{
			"__consumer_offsets-0@2 leader 2 prev null cause null dur 31 resent false | b2 leader epoch_start=50.966 stopped_fetchers=50.935",
			"__consumer_offsets-0@3 leader 2 prev 2 cause null dur 0 resent false | b2 leader epoch_start=52.580 stopped_fetchers=52.580",
		}},
	} {
		t.Run(name, func(t *testing.T) {
			var paths []string
			for _, id := range c.ids {
				paths = append(paths, sample(t, id))
			}
			got := map[string]bool{}
			n, resent := 0, 0
			for _, e := range elections(t, paths...) {
				got[brief(e)] = true
				if e.Transition && !e.Resent {
					n++
				}
				if e.Resent {
					resent++
				}
			}
			if n != c.elections || resent != c.resent {
				t.Errorf("%d elections, %d re-sent; want %d, %d", n, resent, c.elections, c.resent)
			}
			for _, h := range c.has {
				if !got[h] {
					t.Errorf("missing %s", h)
				}
			}
		})
	}
}

// The KRaft metadata log joined with the same node's text logs
// (shared/metadata-logs/renoagil-textlogs, WIB): every election gets the
// controller's decision time and every broker applied it after.
func TestMetadataLogJoinsTextLogs(t *testing.T) {
	dir := "../../../shared/metadata-logs/renoagil-textlogs"
	if _, err := os.Stat(dir); err != nil {
		t.Skip("shared/metadata-logs not beside the checkout")
	}
	a := parseAudit(t, "--tz", "Asia/Jakarta", "--format", "json", dir)
	out, errb, code := runAudit(a)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var n, decided, withBroker int
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.Contains(line, `"type":"election"`) {
			continue
		}
		var e report.JSONElection
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		n++
		if e.Decided != nil {
			decided++
		}
		for _, b := range e.Brokers {
			if b.SinceDecidedMs == nil {
				continue
			}
			withBroker++
			if *b.SinceDecidedMs < 0 || *b.SinceDecidedMs > 5000 {
				t.Errorf("%s-%d@%d: broker %d applied %d ms after the decision", e.Topic, e.Partition, e.LeaderEpoch, b.Broker, *b.SinceDecidedMs)
			}
		}
		// The README's example: offset 10377 at 10:31:12.746 UTC sets
		// belajarkafka-0's leader to 1; the broker line follows at
		// 17:31:13,456 WIB, leader epoch 2.
		if e.Topic == "belajarkafka" && e.Partition == 0 && e.LeaderEpoch == 2 {
			if e.Decided == nil || *e.Decided != "2025-08-06T17:31:12.746+07:00" || *e.Leader != 1 || e.Cause == nil || *e.Cause != "broker_unfenced" {
				t.Errorf("belajarkafka-0@2: %+v", e)
			}
		}
	}
	if n < 350 || decided != n || withBroker < n {
		t.Errorf("%d elections, %d with a decision, %d broker timelines with a decision latency", n, decided, withBroker)
	}
}

// Go clients' NOT_LEADER lines behind a collector prefix are matched to the
// broker-side election like the Java producer's: a sarama service's stdout
// (kubectl logs --timestamps; client.md §7.2 line shapes) against 039's
// controlled-shutdown election of erstesTopic-1 at leader epoch 10
// (16:12:30.885-.908). sarama prints whole seconds; the collector's
// milliseconds place the error inside the election.
func TestGoClientErrorsMatchElections(t *testing.T) {
	app := filepath.Join(t.TempDir(), "orders-svc.log")
	lines := []string{
		`2021-04-28T16:12:30.889Z [Sarama] 2021/04/28 16:12:30 producer/broker/1 state change to [retrying] on erstesTopic/1 because kafka server: Tried to send a message to a replica that is not the leader for some partition. Your metadata is out of date`,
		`2021-04-28T16:12:30.889Z [Sarama] 2021/04/28 16:12:30 producer/leader/erstesTopic/1 state change to [retrying-1]`,
		`2021-04-28T16:12:30.990Z [Sarama] 2021/04/28 16:12:30 producer/leader/erstesTopic/1 selected broker 0`,
		`2021-04-28T16:12:30.991Z error writing messages to erstesTopic (partition 1, attempt 1): [6] Not Leader For Partition: the client attempted to send messages to a replica that is not the leader for some partition, the client's metadata are likely out of date`,
	}
	if err := os.WriteFile(app, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := audit(t, "json", app, sample(t, "039"))
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.Contains(l, `"type":"producer_error"`) {
			continue
		}
		var e struct {
			Time     string `json:"time"`
			Topic    string `json:"topic"`
			Error    string `json:"error"`
			Match    string `json:"match"`
			Election *struct {
				LeaderEpoch int32 `json:"leader_epoch"`
			} `json:"election"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		// during or after is the timeline's call; matched is ours.
		s := e.Time + " " + e.Topic + " " + e.Error
		if e.Match == "none" || e.Match == "" {
			s += " unmatched"
		}
		if e.Election != nil {
			s += fmt.Sprintf(" @%d", e.Election.LeaderEpoch)
		}
		got = append(got, s)
	}
	want := []string{
		"2021-04-28T16:12:30.889Z erstesTopic NOT_LEADER_FOR_PARTITION @10",
		"2021-04-28T16:12:30.991Z erstesTopic NOT_LEADER_FOR_PARTITION @10",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
