package parser

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// clientWant is what a client line must yield.
type clientWant struct {
	kind      Kind
	consumer  ConsumerEvent
	topic     string
	partition int32
	err       string
	attempt   int64
	leader    int32
	prev      int32
	final     bool
	time      string
}

func clientGot(e Event) clientWant {
	return clientWant{e.Kind, e.Consumer, e.Topic, e.Partition, e.Error, e.Attempt, e.Leader, e.PrevLeader, e.Final, e.Time.UTC().Format("2006-01-02 15:04:05.000")}
}

// The Go clients' leader-move lines. client.md §7 gives format strings and
// one rendered sarama line; the others are those format strings rendered
// with the file's own example values (topic orders, partition 3, brokers
// 1 and 2) and error texts, behind the collector prefix a Go service's
// stdout usually gets (kubectl --timestamps), since franz-go and kafka-go
// print no time of their own.
var goClientCases = []struct {
	name  string
	lines []string
	want  []clientWant
}{
	{"sarama retry, as rendered in client.md §7.2",
		[]string{`[Sarama] 2024/03/11 20:35:28 producer/broker/1 state change to [retrying] on orders/3 because kafka server: Tried to send a message to a replica that is not the leader for some partition. Your metadata is out of date`},
		[]clientWant{{KindProducerError, ConsNone, "orders", 3, "NOT_LEADER_FOR_PARTITION", 0, Unknown, Unknown, false, "2024-03-11 20:35:28.000"}}},
	{"sarama retry sequence: attempt, old and new leader (client.md §7.2 format strings :1441, :915, :925, :940)",
		[]string{
			`[Sarama] 2024/03/11 20:35:28 producer/broker/1 state change to [retrying] on orders/3 because kafka server: Tried to send a message to a replica that is not the leader for some partition. Your metadata is out of date.`,
			`[Sarama] 2024/03/11 20:35:28 producer/leader/orders/3 state change to [retrying-1]`,
			`[Sarama] 2024/03/11 20:35:28 producer/leader/orders/3 abandoning broker 1`,
			`[Sarama] 2024/03/11 20:35:28 producer/leader/orders/3 selected broker 2`,
			`[Sarama] 2024/03/11 20:35:28 producer/leader/orders/3 state change to [flushing-1]`,
			`[Sarama] 2024/03/11 20:35:28 producer/leader/orders/3 state change to [normal]`,
		},
		[]clientWant{{KindProducerError, ConsNone, "orders", 3, "NOT_LEADER_FOR_PARTITION", 1, 2, 1, false, "2024-03-11 20:35:28.000"}}},
	{"sarama under kubectl --timestamps: the collector's milliseconds beat Go's whole seconds",
		[]string{
			`2024-03-11T20:35:28.207123456Z [Sarama] 2024/03/11 20:35:28 producer/broker/1 state change to [retrying] on orders/3 because kafka server: Tried to send a message to a replica that is not the leader for some partition. Your metadata is out of date`,
			`2024-03-11T20:35:28.310000000Z [Sarama] 2024/03/11 20:35:28 producer/leader/orders/3 selected broker 2`,
		},
		[]clientWant{{KindProducerError, ConsNone, "orders", 3, "NOT_LEADER_FOR_PARTITION", 0, 2, Unknown, false, "2024-03-11 20:35:28.207"}}},
	{"sarama logger without its prefix (log.New(w, \"\", log.LstdFlags)), idempotent retry (client.md §7.2 :1469)",
		[]string{`2024/03/11 20:35:28 Retrying batch for orders-3 because of kafka server: Tried to send a message to a replica that is not the leader for some partition. Your metadata is out of date`},
		[]clientWant{{KindProducerError, ConsNone, "orders", 3, "NOT_LEADER_FOR_PARTITION", 0, Unknown, Unknown, false, "2024-03-11 20:35:28.000"}}},
	{"sarama retry for a timeout is no leader move",
		[]string{`[Sarama] 2024/03/11 20:35:28 producer/broker/1 state change to [retrying] on orders/3 because kafka server: Request exceeded the user-specified time limit in the request.`},
		nil},
	{"sarama consumer (client.md §7.2 consumer.go:1258)",
		[]string{`[Sarama] 2024/03/11 20:35:28 consumer/broker/1 abandoned subscription to orders/3 because kafka server: Tried to send a message to a replica that is not the leader for some partition. Your metadata is out of date`},
		[]clientWant{{KindConsumer, ConsFetchError, "orders", 3, "NOT_LEADER_FOR_PARTITION", 0, Unknown, Unknown, false, "2024-03-11 20:35:28.000"}}},
	{"franz-go batch failed for good (client.md §7.3 sink.go:1235, kerr.go:82)",
		[]string{`2024-03-11T20:35:28.207Z [INFO] batch in a produce request failed; broker: 1, topic: orders, partition: 3, err: NOT_LEADER_FOR_PARTITION: This server is not the leader for that topic-partition., err_is_retryable: true, max_retries_reached: true`},
		[]clientWant{{KindProducerError, ConsNone, "orders", 3, "NOT_LEADER_FOR_PARTITION", 0, Unknown, Unknown, true, "2024-03-11 20:35:28.207"}}},
	{"franz-go consumer metadata update, why quoted from client.md §7.3 (source.go:1147)",
		[]string{`2024-03-11T20:35:28.207Z [INFO] immediate metadata update triggered; why: fetch had inner topic errors from broker 1: NOT_LEADER_FOR_PARTITION{orders[3]}`},
		[]clientWant{{KindConsumer, ConsFetchError, "orders", 3, "NOT_LEADER_FOR_PARTITION", 0, Unknown, Unknown, false, "2024-03-11 20:35:28.207"}}},
	{"franz-go produce retry names no partition",
		[]string{`2024-03-11T20:35:28.207Z [INFO] metadata update triggered; why: produce request had retry batches`},
		nil},
	{"franz-go without any timestamp cannot be placed",
		[]string{`[INFO] batch in a produce request failed; broker: 1, topic: orders, partition: 3, err: NOT_LEADER_FOR_PARTITION: This server is not the leader for that topic-partition., err_is_retryable: true, max_retries_reached: true`},
		nil},
	{"kafka-go writer v0.4.43+ (client.md §7.4 writer.go:1159, error.go)",
		[]string{`2024-03-11T20:35:28.207Z error writing messages to orders (partition 3, attempt 2): [6] Not Leader For Partition: the client attempted to send messages to a replica that is not the leader for some partition, the client's metadata are likely out of date`},
		[]clientWant{{KindProducerError, ConsNone, "orders", 3, "NOT_LEADER_FOR_PARTITION", 2, Unknown, Unknown, false, "2024-03-11 20:35:28.207"}}},
	{"kafka-go writer ≤v0.4.42 through log.Printf",
		[]string{`2024/03/11 20:35:28 error writing messages to orders (partition 3): [6] Not Leader For Partition: the client attempted to send messages to a replica that is not the leader for some partition, the client's metadata are likely out of date`},
		[]clientWant{{KindProducerError, ConsNone, "orders", 3, "NOT_LEADER_FOR_PARTITION", 0, Unknown, Unknown, false, "2024-03-11 20:35:28.000"}}},
	{"kafka-go reader, older wording (reader.go of an early release, read with the code index; not in client.md)",
		[]string{`2024-03-11T20:35:28.207Z failed to read from current broker for partition 3 of orders at offset 4711, not the leader`},
		[]clientWant{{KindConsumer, ConsFetchError, "orders", 3, "NOT_LEADER_FOR_PARTITION", 0, Unknown, Unknown, false, "2024-03-11 20:35:28.207"}}},
	{"kafka-go reader (client.md §7.4 reader.go:1363)",
		[]string{`2024-03-11T20:35:28.207Z failed to read from current broker for partition 3 of orders at offset 4711: [6] Not Leader For Partition: the client attempted to send messages to a replica that is not the leader for some partition, the client's metadata are likely out of date`},
		[]clientWant{{KindConsumer, ConsFetchError, "orders", 3, "NOT_LEADER_FOR_PARTITION", 0, Unknown, Unknown, false, "2024-03-11 20:35:28.207"}}},
}

func TestGoClientLines(t *testing.T) {
	for _, c := range goClientCases {
		t.Run(c.name, func(t *testing.T) {
			var got []clientWant
			for _, e := range parseAll(c.lines...) {
				got = append(got, clientGot(e))
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// A sarama retry is held for its leader lines, but a line of another kind
// after it still sees it emitted first: events stay in line order.
func TestSaramaHeldKeepsOrder(t *testing.T) {
	evs := parseAll(
		`[Sarama] 2024/03/11 20:35:28 producer/broker/1 state change to [retrying] on orders/3 because kafka server: Tried to send a message to a replica that is not the leader for some partition. Your metadata is out of date`,
		`[2022-02-24 11:07:09,456] WARN [Producer clientId=connector-producer-MONGODB_DEV01_APPROVAL_CHAIN_INSTANCE-0] Got error produce response with correlation id 4928 on topic-partition __mongodb_heartbeats-0, retrying (2147483646 attempts left). Error: NOT_LEADER_OR_FOLLOWER (org.apache.kafka.clients.producer.internals.Sender)`,
	)
	if len(evs) != 2 || evs[0].Topic != "orders" || evs[1].Topic != "__mongodb_heartbeats" {
		t.Fatalf("%+v", evs)
	}
}

type collectorWant struct {
	layout     Layout
	collectors []string
	prefix     string
	time       string
	zone       bool
}

// Collector prefixes, each wrapped around a real Kafka line (sample named)
// in the collector's documented form: kubectl logs --timestamps (RFC 3339
// with nanoseconds), kubectl logs --prefix ("[pod/name/container] "), stern's
// default template ("pod container "), docker-compose ("service  | "),
// journalctl -o short-iso, classic syslog (RFC 3164) and RFC 5424.
var collectorCases = []struct {
	name string
	line string
	w    collectorWant
}{
	{"kubectl --timestamps around 039: the line's own time wins",
		`2021-04-28T16:12:31.000000001Z [2021-04-28 16:12:30,890] INFO [Broker id=0] Leader erstesTopic-1 starts at leader epoch 10 from offset 0 with high watermark 0 ISR [0] addingReplicas [] removingReplicas []. Previous leader epoch was 9. (state.change.logger)`,
		collectorWant{LayoutLog4j, []string{"kubectl --timestamps"}, "2021-04-28T16:12:31.000000001Z", "2021-04-28 16:12:30.890", false}},
	{"kubectl --prefix around 039",
		`[pod/kafka-0/kafka] [2021-04-28 16:12:30,890] INFO [Broker id=0] Leader erstesTopic-1 starts at leader epoch 10 from offset 0 with high watermark 0 ISR [0] addingReplicas [] removingReplicas []. Previous leader epoch was 9. (state.change.logger)`,
		collectorWant{LayoutLog4j, []string{"kubectl --prefix"}, "pod/kafka-0/kafka", "2021-04-28 16:12:30.890", false}},
	{"kubectl --prefix --timestamps around a Strimzi line (011)",
		`[pod/my-cluster-kafka-0/kafka] 2020-10-15T09:48:49.131000000Z 2020-10-15 09:48:49,131 TRACE [Controller id=0 epoch=3] Sending become-leader LeaderAndIsr request LeaderAndIsrPartitionState(topicName='sales', partitionIndex=9, controllerEpoch=2, leader=0, leaderEpoch=0, isr=[0], zkVersion=0, replicas=[0], addingReplicas=[], removingReplicas=[], isNew=false) to broker 0 for partition sales-9 (state.change.logger) [controller-event-thread]`,
		collectorWant{LayoutStrimzi, []string{"kubectl --timestamps", "kubectl --prefix"}, "pod/my-cluster-kafka-0/kafka", "2020-10-15 09:48:49.131", false}},
	{"stern around 039",
		`kafka-0 kafka [2021-04-28 16:12:30,890] INFO [Broker id=0] Leader erstesTopic-1 starts at leader epoch 10 from offset 0 with high watermark 0 ISR [0] addingReplicas [] removingReplicas []. Previous leader epoch was 9. (state.change.logger)`,
		collectorWant{LayoutLog4j, []string{"stern"}, "kafka-0 kafka", "2021-04-28 16:12:30.890", false}},
	{"docker-compose (029 as found)",
		`kafka         | [2020-11-16 14:59:32,870] TRACE [Broker id=1] Handling LeaderAndIsr request correlationId 1 from controller 1 epoch 1 starting the become-leader transition for partition eventbus-1 (state.change.logger)`,
		collectorWant{LayoutLog4j, []string{"docker-compose"}, "kafka", "2020-11-16 14:59:32.870", false}},
	{"journalctl -o short-iso around 039",
		`2021-04-28T16:12:30+0000 broker0 kafka-server-start.sh[1234]: [2021-04-28 16:12:30,890] INFO [Broker id=0] Leader erstesTopic-1 starts at leader epoch 10 from offset 0 with high watermark 0 ISR [0] addingReplicas [] removingReplicas []. Previous leader epoch was 9. (state.change.logger)`,
		collectorWant{LayoutLog4j, []string{"journald"}, "2021-04-28T16:12:30+0000 broker0 kafka-server-start.sh[1234]", "2021-04-28 16:12:30.890", false}},
	{"classic syslog around 039",
		`Apr 28 16:12:30 broker0 kafka[1234]: [2021-04-28 16:12:30,890] INFO [Broker id=0] Leader erstesTopic-1 starts at leader epoch 10 from offset 0 with high watermark 0 ISR [0] addingReplicas [] removingReplicas []. Previous leader epoch was 9. (state.change.logger)`,
		collectorWant{LayoutLog4j, []string{"syslog"}, "Apr 28 16:12:30 broker0 kafka[1234]", "2021-04-28 16:12:30.890", false}},
	{"RFC 5424 syslog around 039",
		`<14>1 2021-04-28T16:12:30.891Z broker0 kafka 1234 - - [2021-04-28 16:12:30,890] INFO [Broker id=0] Leader erstesTopic-1 starts at leader epoch 10 from offset 0 with high watermark 0 ISR [0] addingReplicas [] removingReplicas []. Previous leader epoch was 9. (state.change.logger)`,
		collectorWant{LayoutLog4j, []string{"syslog RFC 5424"}, "<14>1 2021-04-28T16:12:30.891Z broker0 kafka 1234 - -", "2021-04-28 16:12:30.890", false}},
	{"RFC 5424 with structured data around a franz-go line: the collector's time",
		`<14>1 2024-03-11T20:35:28.207Z app-1 orders-svc 77 - [meta x="a\]b"] [INFO] batch in a produce request failed; broker: 1, topic: orders, partition: 3, err: NOT_LEADER_FOR_PARTITION: This server is not the leader for that topic-partition., err_is_retryable: true, max_retries_reached: true`,
		collectorWant{LayoutFranzGo, []string{"syslog RFC 5424"}, `<14>1 2024-03-11T20:35:28.207Z app-1 orders-svc 77 - [meta x="a\]b"]`, "2024-03-11 20:35:28.207", true}},
	{"journald around kafka-go: the collector's time and offset",
		`2024-03-11T23:35:28+0300 app-1 orders-svc[77]: error writing messages to orders (partition 3, attempt 2): [6] Not Leader For Partition: the client attempted to send messages to a replica that is not the leader for some partition, the client's metadata are likely out of date`,
		collectorWant{LayoutKafkaGo, []string{"journald"}, "2024-03-11T23:35:28+0300 app-1 orders-svc[77]", "2024-03-11 20:35:28.000", true}},
}

func TestCollectorPrefixes(t *testing.T) {
	for _, c := range collectorCases {
		t.Run(c.name, func(t *testing.T) {
			var r Record
			if !ParseHeader([]byte(c.line), time.UTC, &r) {
				t.Fatalf("not recognised: %s", c.line)
			}
			got := collectorWant{r.Layout, CollectorNames(r.Collectors), string(r.Prefix), r.Time.UTC().Format("2006-01-02 15:04:05.000"), r.HasZone}
			if !reflect.DeepEqual(got, c.w) {
				t.Errorf("got  %+v\nwant %+v", got, c.w)
			}
			// The inner line still means what it meant unwrapped.
			if evs := parseAll(c.line); len(evs) == 0 {
				t.Errorf("no event from %s", c.line)
			}
		})
	}
}

// Classic syslog prints no year: the inner line's wins; a Go client line
// with none takes this year, or last year when that would be in the future.
func TestSyslogYear(t *testing.T) {
	now := func() time.Time { return time.Date(2025, 1, 2, 10, 0, 0, 0, time.UTC) }
	line := `Dec 31 23:59:59 app-1 orders-svc[77]: error writing messages to orders (partition 3, attempt 2): [6] Not Leader For Partition: the client attempted to send messages to a replica that is not the leader for some partition, the client's metadata are likely out of date`
	var r Record
	if !parseHeaderAt([]byte(line), time.UTC, now, &r) || r.Time.Year() != 2024 {
		t.Errorf("December line read in January: %v", r.Time)
	}
	if !parseHeaderAt([]byte(strings.Replace(line, "Dec 31", "Jan  2", 1)), time.UTC, now, &r) || r.Time.Format("2006-01-02") != "2025-01-02" {
		t.Errorf("space-padded day: %v", r.Time)
	}
	// A parser dates them by its own clock, no package state involved.
	p := New(time.UTC)
	p.Now = now
	var evs []Event
	p.Line([]byte(line), func(e *Event) { evs = append(evs, *e) })
	p.Flush(func(e *Event) { evs = append(evs, *e) })
	if len(evs) != 1 || evs[0].Time.Year() != 2024 {
		t.Errorf("parser with its clock: %+v", evs)
	}
}

// Kafka Connect's connect-log4j.properties pattern "[%d] %p
// %X{connector.context}%m (%c:%L)%n" (KIP-449), applied to 026's line: the
// connector context and the line number must not hide the Sender line.
func TestConnectWorkerLayout(t *testing.T) {
	line := `[2022-02-24 11:07:09,456] WARN [MONGODB_DEV01_APPROVAL_CHAIN_INSTANCE|task-0] [Producer clientId=connector-producer-MONGODB_DEV01_APPROVAL_CHAIN_INSTANCE-0] Got error produce response with correlation id 4928 on topic-partition __mongodb_heartbeats-0, retrying (2147483646 attempts left). Error: NOT_LEADER_OR_FOLLOWER (org.apache.kafka.clients.producer.internals.Sender:595)`
	var r Record
	if !ParseHeader([]byte(line), time.UTC, &r) || string(r.Context) != "MONGODB_DEV01_APPROVAL_CHAIN_INSTANCE|task-0" ||
		string(r.Logger) != "org.apache.kafka.clients.producer.internals.Sender" {
		t.Fatalf("context %q logger %q", r.Context, r.Logger)
	}
	evs := parseAll(line)
	if len(evs) != 1 || evs[0].ClientID != "connector-producer-MONGODB_DEV01_APPROVAL_CHAIN_INSTANCE-0" ||
		evs[0].Text != "MONGODB_DEV01_APPROVAL_CHAIN_INSTANCE|task-0" || evs[0].Error != "NOT_LEADER_OR_FOLLOWER" {
		t.Fatalf("%+v", evs)
	}
	// A broker's "[Broker id=0]" prefix is no connector context.
	if c, _ := connectContext([]byte("[Broker id=0] Leader erstesTopic-1 starts"), nil); c != nil {
		t.Errorf("broker prefix taken for a connector context: %q", c)
	}
}

// A file can change layout after a restart (a broker moved from the Kafka
// image to Strimzi's): detection is per line and Stats.Layouts keeps both.
func TestLayoutChangesMidFile(t *testing.T) {
	p := New(time.UTC)
	for _, l := range []string{
		`[2021-04-28 16:12:30,890] INFO [Broker id=0] Leader erstesTopic-1 starts at leader epoch 10 from offset 0 with high watermark 0 ISR [0] addingReplicas [] removingReplicas []. Previous leader epoch was 9. (state.change.logger)`,
		`2020-10-15 09:48:49,131 TRACE [Controller id=0 epoch=3] Sending become-leader LeaderAndIsr request LeaderAndIsrPartitionState(topicName='sales', partitionIndex=9, controllerEpoch=2, leader=0, leaderEpoch=0, isr=[0], zkVersion=0, replicas=[0], addingReplicas=[], removingReplicas=[], isNew=false) to broker 0 for partition sales-9 (state.change.logger) [controller-event-thread]`,
		`kafka         | [2020-11-16 14:59:32,870] TRACE [Broker id=1] Handling LeaderAndIsr request correlationId 1 from controller 1 epoch 1 starting the become-leader transition for partition eventbus-1 (state.change.logger)`,
	} {
		p.Line([]byte(l), func(*Event) {})
	}
	if want := uint16(1<<LayoutLog4j | 1<<LayoutStrimzi); p.Stats.Layouts != want {
		t.Errorf("layouts %b, want %b", p.Stats.Layouts, want)
	}
	if got := CollectorNames(p.Stats.Collectors); !reflect.DeepEqual(got, []string{"docker-compose"}) {
		t.Errorf("collectors %v", got)
	}
}

var eraBitNames = [...]string{"BrokerN", "BracketTP", "TPInTransition", "BrokerID", "PartitionState", "Generated", "RequestInfo",
	"Finished", "KRaft", "TopicID", "PreviousLeader", "QuorumController", "ZKController", "LeaderEpochServerLog", "Producer",
	"ClientPrefix", "Trace", "NotLeaderOrFollower", "NotLeaderForPartition", "LeaderNotLocal", "LogPrefix", "UnifiedLog",
	"Storage4", "Raft", "KafkaJS"}

func eraNames(e Era) []string {
	var out []string
	for i, n := range eraBitNames {
		if e&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// JSON layouts whose time is an epoch number. Neither formats file shows
// one, so these are real lines found with the code index: a log4j2
// JSONLayout line from a Corda node's README ("You can end up getting log
// feeds in json that look something like this"), and a Logback 1.3+
// JsonEncoder line of Kafka's NetworkClient from an observability
// workshop's README.
func TestJSONEpochLayouts(t *testing.T) {
	for _, c := range []struct {
		line, time, logger, thread, msg string
	}{
		{`{"instant":{"epochSecond":1612369055,"nanoOfSecond":12000000},"thread":"main","level":"INFO","loggerName":"net.corda.node.internal.Node","message":"Vendor: Corda Open Source","endOfBatch":true,"loggerFqcn":"org.apache.logging.slf4j.Log4jLogger","threadId":1,"threadPriority":5}`,
			"2021-02-03 16:17:35.012", "net.corda.node.internal.Node", "main", "Vendor: Corda Open Source"},
		{`{"sequenceNumber":0,"timestamp":1719910676210,"nanoseconds":210150314,"level":"INFO","threadName":"kafka-binder-health-1","loggerName":"org.apache.kafka.clients.NetworkClient","context":{"name":"default","birthdate":1719907122576,"properties":{"applicationName":"easypay-service","instance":"easypay-service:9a2ac3f0-c41e-4fcd-8688-123993f1d5db"}},"mdc": {"trace_id":"8b277041692baa8167de5c67977d6571","trace_flags":"01","span_id":"13ff9e44be450b8e"},"message":"[Consumer clientId=consumer-null-1, groupId=null] Node -1 disconnected.","throwable":null}`,
			"2024-07-02 08:57:56.210", "org.apache.kafka.clients.NetworkClient", "kafka-binder-health-1", "[Consumer clientId=consumer-null-1, groupId=null] Node -1 disconnected."},
	} {
		var r Record
		if !ParseHeader([]byte(c.line), time.UTC, &r) {
			t.Errorf("not recognised: %s", c.line)
			continue
		}
		got := []string{r.Time.UTC().Format("2006-01-02 15:04:05.000"), string(r.Logger), string(r.Thread), string(r.Msg)}
		if want := []string{c.time, c.logger, c.thread, c.msg}; !reflect.DeepEqual(got, want) || r.Layout != LayoutJSON || !r.HasZone {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
