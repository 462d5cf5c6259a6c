package logstore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/leaderaudit/leaderaudit/internal/vltest"
	"github.com/leaderaudit/leaderaudit/parser"
)

// The filter is every need OR-ed, phrases quoted as LogsQL reads them.
func TestPushdownText(t *testing.T) {
	f := Pushdown([]parser.Need{{{Text: "state.change.logger"}}, {{Text: "Truncat", Prefix: true}}, {{Text: "heartbeat", Prefix: true}, {Text: "broker", Prefix: true}}, {{Text: "\tbroker.id = \"x\""}}})
	want := `("state.change.logger" OR "Truncat"* OR ("heartbeat"* "broker"*) OR "\tbroker.id = \"x\"")`
	if f != want {
		t.Errorf("filter\n%s\nwant\n%s", f, want)
	}
	if Pushdown(nil) != "" {
		t.Error("no needs: a filter")
	}
	if got := And(`{app="x"}`, f); !strings.HasPrefix(got, `({app="x"}) (`) {
		t.Errorf("And: %s", got)
	}
}

// HintFilter's regexp (as the server reads it: Go's RE2) finds the
// logger at a line's end only, the message prefix before it.
func TestHintFilter(t *testing.T) {
	f := HintFilter("kafka.log.Log", "[Log partition=")
	if !strings.HasPrefix(f, `"(kafka.log.Log)" ~`) {
		t.Fatalf("filter %s: the phrase first", f)
	}
	s, err := strconv.Unquote(f[strings.Index(f, "~")+1:])
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(s)
	for row, want := range map[string]bool{
		"[2024-03-11 11:51:34,753] INFO [Log partition=t-1, dir=/d] Rolled (kafka.log.Log)":        true,
		"[2024-03-11 11:51:34,753] INFO [Log partition=t-1, dir=/d] Rolled (kafka.log.Log)\r\n\tx": true,
		"[2024-03-11 11:51:34,753] INFO Rolled (kafka.log.Log)\n[Log partition=":                   false,
		"[2024-03-11 11:51:34,753] INFO [Log partition=t-1] x (kafka.log.LogSegment)":              false,
	} {
		if re.MatchString(row) != want {
			t.Errorf("%q: %v", row, !want)
		}
	}
}

// What the server's phrase filters keep is what parser.Keeps keeps: rows
// at the edges of word boundaries, punctuation, prefixes and multi-line
// rows, and a line of each need, asked of a real VictoriaLogs one term at
// a time and with the whole filter.
func TestPushdownMatchesServer(t *testing.T) {
	srv := vltest.Start(t)
	needs := parser.Candidates()
	rows := []string{
		"[2024-03-11 10:00:00,000] INFO x (kafka.cluster.Partition)",
		"[2024-03-11 10:00:00,000] INFO x (kafka.cluster.PartitionX)",
		"[2024-03-11 10:00:00,000] INFO [ReplicaFetcherPartition] x (a.B)",
		`{"@timestamp":"2024-03-11T10:00:00Z","logger_name":"kafka.cluster.Partition","message":"x"}`,
		"[2024-03-11 10:00:00,000] INFO [ReplicaFetcher replicaId=1] Truncating partition t-1 (kafka.server.ReplicaFetcherThread)",
		"[2024-03-11 10:00:00,000] INFO [ReplicaFetcher replicaId=1] reTruncating partition t-1 (kafka.server.ReplicaFetcherThread)",
		"2024/03/11 10:00:00 [sarama] producer/broker/1 state change to [retrying-3] on orders/4 because kafka server: Not leader",
		"2024/03/11 10:00:00 kafka-producer/1 x",
		"2024/03/11 10:00:00 myproducer/1 x",
		"%7|1709|MSGSET|rdkafka#producer-1| [thrd:x]: orders [1]: MessageSet with 1 message(s) encountered error: Broker: Not leader for partition",
		"%7|1709|MSGSETS|rdkafka#producer-1| x",
		"[2024-03-11 10:00:00,000] INFO Broker 1 x",
		"[2024-03-11 10:00:00,000] INFO BrokerToController x (a.B)",
		"[2024-03-11 10:00:00,000] INFO ProducerConfig values: \n\tacks = 1\n\tretries = 0\n (org.apache.kafka.clients.producer.ProducerConfig)",
		"[2024-03-11 10:00:00,000] INFO KafkaConfig values: \n\tbroker.id = 3\n\tinter.broker.protocol.version = 2.8-IV1\n (kafka.server.KafkaConfig)",
		"[2024-03-11 10:00:00,000] ERROR Error when sending message to topic orders with key: null, value: 5 bytes with error: (org.apache.kafka.clients.producer.internals.ErrorLoggingCallback)\norg.apache.kafka.common.errors.NotLeaderForPartitionException: This server is not the leader for that topic-partition.",
		"[2024-03-11 10:00:00,000] ERROR Failed (com.acme.App)\nNOT_ENOUGH_REPLICAS_AFTER_APPENDX",
		"[2024-03-11 10:00:00,000] INFO [broker-101-to-controller-heartbeat-channel-manager]: Recorded new controller (kafka.server.BrokerToControllerRequestThread)",
		"[2024-03-11 10:00:00,000] INFO [GroupCoordinator 1]: heartbeat expired (kafka.coordinator.group.GroupCoordinator)",
		"[2024-03-11 10:00:00,000] TRACE x (a.B)",
		"[2024-03-11 10:00:00,000] INFO Élu x Partition (a.B)",
		"[2024-03-11 10:00:00,000] INFO xPartition (a.B)",
	}
	// A line of each need, in the form Term.In reads it.
	for _, n := range needs {
		var parts []string
		for _, tm := range n {
			parts = append(parts, tm.Text)
		}
		rows = append(rows, "[2024-03-11 10:00:00,000] INFO ["+strings.Join(parts, "] [")+"] (a.B)")
	}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	for i, r := range rows {
		enc.Encode(map[string]string{"_time": "2024-03-11T10:00:00Z", "_msg": r, "id": strconv.Itoa(i), "set": "phrases"})
	}
	resp, err := http.Post(srv.URL+"/insert/jsonline?_stream_fields=set", "application/stream+json", &body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := srv.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	ids := func(filter string) []int {
		t.Helper()
		form := url.Values{"query": {`{set="phrases"} ` + filter + ` | fields id`}, "start": {"2024-03-11T00:00:00Z"}, "end": {"2024-03-12T00:00:00Z"}}
		resp, err := http.PostForm(srv.URL+"/select/logsql/query", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			var b bytes.Buffer
			b.ReadFrom(resp.Body)
			t.Fatalf("%s: %s: %s", filter, resp.Status, b.String())
		}
		var out []int
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			var r struct{ ID string }
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatal(err)
			}
			n, _ := strconv.Atoi(r.ID)
			out = append(out, n)
		}
		slices.Sort(out)
		return out
	}
	want := func(keep func([]byte) bool) []int {
		var out []int
		for i, r := range rows {
			if keep([]byte(r)) {
				out = append(out, i)
			}
		}
		return out
	}
	w := want(func(r []byte) bool { return parser.Keeps(needs, r) })
	if len(w) == 0 || len(w) == len(rows) {
		t.Fatalf("Keeps keeps %d of %d rows: no edge is tried", len(w), len(rows))
	}
	if got := ids(Pushdown(needs)); !slices.Equal(got, w) {
		t.Errorf("the server kept rows %v, Keeps %v", got, w)
	}
	seen := map[parser.Term]bool{}
	for _, n := range needs {
		for _, tm := range n {
			if seen[tm] {
				continue
			}
			seen[tm] = true
			if got, w := ids(Phrase(tm)), want(tm.In); !slices.Equal(got, w) {
				t.Errorf("%s: the server matched rows %v, Term.In %v", Phrase(tm), got, w)
			}
		}
	}
}
