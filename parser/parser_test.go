package parser

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// parseAll runs lines through a fresh parser and returns the events.
func parseAll(lines ...string) []Event {
	p := New(time.UTC)
	var out []Event
	emit := func(e *Event) { out = append(out, *e) }
	for _, l := range lines {
		p.Line([]byte(l), emit)
	}
	p.Flush(emit)
	return out
}

type want struct {
	kind      Kind
	phase     Phase
	role      Role
	broker    int32
	topic     string
	partition int32
	epoch     int32
	leader    int32
	corr      int64
	ctrl      int32
	ctrlEpoch int32
	time      string
}

// Each line is quoted from a real log (shared/samples, file named) or from
// the format catalogue (shared/formats/broker.md, section named).
var lineCases = []struct {
	name string
	line string
	w    want
}{
	{"0.10.2 received [t,p] (008)",
		`[2020-10-28 15:54:33,441] TRACE Broker 0 received LeaderAndIsr request PartitionState(controllerEpoch=1, leader=0, leaderEpoch=0, isr=[0], zkVersion=0, replicas=[0]) correlation id 1 from controller 0 epoch 2 for partition [netflow_kafka_topic,0] (state.change.logger)`,
		want{KindPhase, PhaseReceived, RoleLeader, 0, "netflow_kafka_topic", 0, 0, 0, 1, 0, 2, "2020-10-28 15:54:33.441"}},
	{"0.10.2 handling become-leader t-p (008)",
		`[2020-10-28 15:54:33,449] TRACE Broker 0 handling LeaderAndIsr request correlationId 1 from controller 0 epoch 2 starting the become-leader transition for partition netflow_kafka_topic-0 (state.change.logger)`,
		want{KindPhase, PhaseHandling, RoleLeader, 0, "netflow_kafka_topic", 0, Unknown, 0, 1, 0, 2, "2020-10-28 15:54:33.449"}},
	{"0.10.2 cached leader info PartitionStateInfo (008)",
		`[2020-10-28 15:54:33,409] TRACE Broker 0 cached leader info (LeaderAndIsrInfo:(Leader:0,ISR:0,LeaderEpoch:0,ControllerEpoch:1),ReplicationFactor:1),AllReplicas:0) for partition netflow_kafka_topic-0 in response to UpdateMetadata request sent by controller 0 epoch 2 with correlation id 0 (state.change.logger)`,
		want{KindPhase, PhaseCached, RoleUnknown, 0, "netflow_kafka_topic", 0, 0, 0, 0, 0, 2, "2020-10-28 15:54:33.409"}},
	{"0.8 truncated [t,p] (broker.md §3.1)",
		`[2016-03-01 10:00:00,151] TRACE Broker 3 truncated logs and checkpointed recovery boundaries for partition [orders,3] as part of become-follower request with correlation id 118 from controller 1 epoch 27 (state.change.logger)`,
		want{KindPhase, PhaseTruncated, RoleFollower, 3, "orders", 3, Unknown, Unknown, 118, 1, 27, "2016-03-01 10:00:00.151"}},
	{"1.1 received PartitionState isr=0,2 (042)",
		`[2018-07-18 16:02:27,031] TRACE [Broker id=0] Received LeaderAndIsr request PartitionState(controllerEpoch=3, leader=0, leaderEpoch=1, isr=0,2, zkVersion=1, replicas=0,2,1, isNew=false) correlation id 7 from controller 0 epoch 3 for partition my-replicated-topic-0 (state.change.logger)`,
		want{KindPhase, PhaseReceived, RoleLeader, 0, "my-replicated-topic", 0, 1, 0, 7, 0, 3, "2018-07-18 16:02:27.031"}},
	{"2.4 received, partition only in the struct (broker.md §3.5)",
		`[2020-02-10 14:03:55,008] TRACE [Broker id=2] Received LeaderAndIsr request LeaderAndIsrPartitionState(topicName='orders', partitionIndex=3, controllerEpoch=27, leader=2, leaderEpoch=14, isr=[2, 3], zkVersion=41, replicas=[2, 3, 1], addingReplicas=[], removingReplicas=[], isNew=false) correlation id 118 from controller 1 epoch 27 (state.change.logger)`,
		want{KindPhase, PhaseReceived, RoleLeader, 2, "orders", 3, 14, 2, 118, 1, 27, "2020-02-10 14:03:55.008"}},
	{"2.4 started fetcher with BrokerEndPoint leader (broker.md §3.5)",
		`[2020-02-10 14:03:55,031] TRACE [Broker id=3] Started fetcher to new leader as part of become-follower request from controller 1 epoch 27 with correlation id 118 for partition orders-3 with leader BrokerEndPoint(id=2, host=broker2.example:9092) (state.change.logger)`,
		want{KindPhase, PhaseStartedFetcher, RoleFollower, 3, "orders", 3, Unknown, 2, 118, 1, 27, "2020-02-10 14:03:55.031"}},
	{"2.8 Leader starts at leader epoch (039)",
		`[2021-04-28 16:12:30,890] INFO [Broker id=0] Leader erstesTopic-1 starts at leader epoch 10 from offset 0 with high watermark 0 ISR [0] addingReplicas [] removingReplicas []. Previous leader epoch was 9. (state.change.logger)`,
		want{KindPhase, PhaseEpochStart, RoleLeader, 0, "erstesTopic", 1, 10, 0, -1, Unknown, Unknown, "2021-04-28 16:12:30.890"}},
	{"2.8 Follower starts, no leader named (039)",
		`[2021-04-28 16:12:30,890] INFO [Broker id=1] Follower erstesTopic-0 starts at leader epoch 11 from offset 0 with high watermark 0. Previous leader epoch was 10. (state.change.logger)`,
		want{KindPhase, PhaseEpochStart, RoleFollower, 1, "erstesTopic", 0, 11, Unknown, -1, Unknown, Unknown, "2021-04-28 16:12:30.890"}},
	{"KRaft 4.0 Follower, current leader -1 (005)",
		`[2025-05-17 15:13:31,429] INFO [Broker id=1] Follower ssl-test-topic-2 starts at leader epoch 1 from offset 0 with partition epoch 1 and high watermark 0. Current leader is -1. Previous leader Some(-1) and previous leader epoch was 1. (state.change.logger)`,
		want{KindPhase, PhaseEpochStart, RoleFollower, 1, "ssl-test-topic", 2, 1, -1, -1, Unknown, Unknown, "2025-05-17 15:13:31.429"}},
	{"1.0 server.log starts at Leader Epoch (052)",
		`[2018-12-09 02:21:50,966] INFO [Partition __consumer_offsets-0 broker=2] __consumer_offsets-0 starts at Leader Epoch 2 from offset 24. Previous Leader Epoch was: -1 (kafka.cluster.Partition)`,
		want{KindPhase, PhaseEpochStart, RoleLeader, 2, "__consumer_offsets", 0, 2, 2, -1, Unknown, Unknown, "2018-12-09 02:21:50.966"}},
	{"2.7+ Finished LeaderAndIsr request (039)",
		`[2021-04-28 16:12:30,908] INFO [Broker id=0] Finished LeaderAndIsr request in 21ms correlationId 13 from controller 0 for 2 partitions (state.change.logger)`,
		want{KindRequestFinished, PhaseNone, RoleUnknown, 0, "", Unknown, Unknown, Unknown, 13, 0, Unknown, "2021-04-28 16:12:30.908"}},
	{"2.6+ Handling ... for N partitions (039)",
		`[2021-04-28 16:12:30,887] INFO [Broker id=1] Handling LeaderAndIsr request correlationId 7 from controller 0 for 2 partitions (state.change.logger)`,
		want{KindRequestStart, PhaseNone, RoleUnknown, 1, "", Unknown, Unknown, Unknown, 7, 0, Unknown, "2021-04-28 16:12:30.887"}},
	{"KRaft Transitioning to local leaders (005)",
		`[2025-05-17 15:13:52,243] INFO [Broker id=1] Transitioning 3 partition(s) to local leaders. (state.change.logger)`,
		want{KindRequestStart, PhaseNone, RoleLeader, 1, "", Unknown, Unknown, Unknown, -1, Unknown, Unknown, "2025-05-17 15:13:52.243"}},
	{"2.8 controller Changed partition with state LeaderAndIsr (039)",
		`[2021-04-28 16:12:30,885] INFO [Controller id=0 epoch=9] Changed partition erstesTopic-1 from OnlinePartition to OnlinePartition with state LeaderAndIsr(leader=0, leaderEpoch=10, isr=List(0), zkVersion=15) (state.change.logger)`,
		want{KindDecision, PhaseNone, RoleUnknown, Unknown, "erstesTopic", 1, 10, 0, -1, 0, 9, "2021-04-28 16:12:30.885"}},
	{"3.9 controller isrWithBrokerEpoch (015)",
		`[2026-01-01 12:18:57,514] INFO [Controller id=0 epoch=2] Changed partition __consumer_offsets-30 from OnlinePartition to OnlinePartition with state LeaderAndIsr(leader=0, leaderEpoch=4, isrWithBrokerEpoch=List(BrokerState(brokerId=2, brokerEpoch=-1), BrokerState(brokerId=0, brokerEpoch=-1)), leaderRecoveryState=RECOVERED, partitionEpoch=7) (state.change.logger)`,
		want{KindDecision, PhaseNone, RoleUnknown, Unknown, "__consumer_offsets", 30, 4, 0, -1, 0, 2, "2026-01-01 12:18:57.514"}},
	{"0.8 controller sending become-leader with correlationId (006)",
		`[2014-02-02 02:07:27,737] TRACE Controller 0 epoch 3 sending become-leader LeaderAndIsr request (Leader:0,ISR:0,LeaderEpoch:1,ControllerEpoch:3) with correlationId 6 to broker 0 for partition [test,0] (state.change.logger)`,
		want{KindDecision, PhaseNone, RoleLeader, 0, "test", 0, 1, 0, 6, 0, 3, "2014-02-02 02:07:27.737"}},
	{"Strimzi layout, controller send with generated state (011)",
		`2020-10-15 09:48:49,131 TRACE [Controller id=0 epoch=3] Sending become-leader LeaderAndIsr request LeaderAndIsrPartitionState(topicName='sales', partitionIndex=9, controllerEpoch=2, leader=0, leaderEpoch=0, isr=[0], zkVersion=0, replicas=[0], addingReplicas=[], removingReplicas=[], isNew=false) to broker 0 for partition sales-9 (state.change.logger) [controller-event-thread]`,
		want{KindDecision, PhaseNone, RoleLeader, 0, "sales", 9, 0, 0, -1, 0, 3, "2020-10-15 09:48:49.131"}},
	{"docker-compose prefix, 2.6 TRACE handling (029)",
		`kafka         | [2020-11-16 14:59:32,870] TRACE [Broker id=1] Handling LeaderAndIsr request correlationId 1 from controller 1 epoch 1 starting the become-leader transition for partition eventbus-1 (state.change.logger)`,
		want{KindPhase, PhaseHandling, RoleLeader, 1, "eventbus", 1, Unknown, 1, 1, 1, 1, "2020-11-16 14:59:32.870"}},
	{"1.0 controller.log Selected new leader JSON (broker.md §4.4)",
		`[2018-12-09 02:21:50,138] INFO [Controller id=3] New leader and ISR for partition pollution-0 is {"leader":-1,"leader_epoch":1,"isr":[1]} (kafka.controller.KafkaController)`,
		want{KindDecision, PhaseNone, RoleUnknown, Unknown, "pollution", 0, 1, -1, -1, 3, Unknown, "2018-12-09 02:21:50.138"}},
	{"KRaft UNCLEAN partition change (broker.md §10)",
		`[2024-01-01 10:00:00,000] INFO [Controller 0] UNCLEAN partition change for t-0 with topic ID abc: replicas: [1] -> [0], isr: [1] -> [0], leader: 1 -> 0, leaderEpoch: 85 -> 86, partitionEpoch: 85 -> 86 (org.apache.kafka.controller.ReplicationControlManager)`,
		want{KindDecision, PhaseNone, RoleUnknown, Unknown, "t", 0, 86, 0, -1, 0, Unknown, "2024-01-01 10:00:00.000"}},
	{"producer retry, Kafka layout (026)",
		`[2022-02-24 11:07:09,456] WARN [Producer clientId=connector-producer-MONGODB_DEV01_APPROVAL_CHAIN_INSTANCE-0] Got error produce response with correlation id 4928 on topic-partition __mongodb_heartbeats-0, retrying (2147483646 attempts left). Error: NOT_LEADER_OR_FOLLOWER (org.apache.kafka.clients.producer.internals.Sender)`,
		want{KindProducerError, PhaseNone, RoleUnknown, Unknown, "__mongodb_heartbeats", 0, Unknown, Unknown, 4928, Unknown, Unknown, "2022-02-24 11:07:09.456"}},
	{"producer retry, Spring Boot 3 console layout with offset (client.md §3.2)",
		`2024-03-11T20:35:28.207+03:00  WARN 16076 --- [ad | producer-2] o.a.k.clients.producer.internals.Sender  : [Producer clientId=producer-2] Got error produce response with correlation id 4711 on topic-partition orders-3, retrying (2147483646 attempts left). Error: NOT_LEADER_OR_FOLLOWER`,
		want{KindProducerError, PhaseNone, RoleUnknown, Unknown, "orders", 3, Unknown, Unknown, 4711, Unknown, Unknown, "2024-03-11 17:35:28.207"}},
	{"producer retry, Spring Boot 2 layout (client.md §3.2)",
		`2021-03-11 20:35:28.207  WARN 16076 --- [ad | producer-2] o.a.k.clients.producer.internals.Sender  : [Producer clientId=producer-2] Got error produce response with correlation id 4711 on topic-partition orders-3, retrying (2147483646 attempts left). Error: NOT_LEADER_OR_FOLLOWER`,
		want{KindProducerError, PhaseNone, RoleUnknown, Unknown, "orders", 3, Unknown, Unknown, 4711, Unknown, Unknown, "2021-03-11 20:35:28.207"}},
	{"producer metadata-refresh line alone, topic with dots (023, logstash JSON)",
		`{"@timestamp":"2020-03-13T16:37:57.704+0000","@version":"1","message":"[Producer clientId=producer-3] Received invalid metadata error in produce request on partition topic-2.name-48 due to org.apache.kafka.common.errors.NotLeaderForPartitionException: This server is not the leader for that topic-partition.. Going to request metadata update now","logger_name":"org.apache.kafka.clients.producer.internals.Sender","thread_name":"kafka-producer-network-thread | producer-3","level":"WARN","level_value":30000}`,
		want{KindProducerError, PhaseNone, RoleUnknown, Unknown, "topic-2.name", 48, Unknown, Unknown, -1, Unknown, Unknown, "2020-03-13 16:37:57.704"}},
	{"0.9 broker-side Leader not local (022)",
		`[2016-09-02 16:54:00,933] WARN [KafkaApi-1] Produce request with correlation id 598054 from client rdkafka-hive-prod-euw-readmin-re1-o4pavq on partition [logs2,48] failed due to Leader not local for partition [logs2,48] on broker 1 (kafka.server.KafkaApis)`,
		want{KindProducerError, PhaseNone, RoleUnknown, 1, "logs2", 48, Unknown, Unknown, 598054, Unknown, Unknown, "2016-09-02 16:54:00.933"}},
	{"ZK controller broker failure callback (043)",
		`[2018-07-18 16:02:27,029] INFO [Controller id=0] Broker failure callback for 1 (kafka.controller.KafkaController)`,
		want{KindTrigger, PhaseNone, RoleUnknown, Unknown, "", Unknown, Unknown, Unknown, -1, 0, Unknown, "2018-07-18 16:02:27.029"}},
}

func TestLineShapes(t *testing.T) {
	for _, c := range lineCases {
		t.Run(c.name, func(t *testing.T) {
			evs := parseAll(c.line)
			if len(evs) == 0 {
				t.Fatalf("no event from %s", c.line)
			}
			e := evs[0]
			got := want{e.Kind, e.Phase, e.Role, e.Broker, e.Topic, e.Partition, e.LeaderEpoch, e.Leader, e.CorrelationID, e.Controller, e.ControllerEpoch, e.Time.UTC().Format("2006-01-02 15:04:05.000")}
			if !reflect.DeepEqual(got, c.w) {
				t.Errorf("got  %+v\nwant %+v", got, c.w)
			}
		})
	}
}

func TestProducerErrorFields(t *testing.T) {
	evs := parseAll(
		`> >1[2022-08-08 07:18:15,987] WARN [Producer clientId=console-producer] Got error produce response with correlation id 5 on topic-partition test_4-0, retrying (2 attempts left). Error: NOT_LEADER_FOR_PARTITION (org.apache.kafka.clients.producer.internals.Sender)`,
		`> [2022-08-08 07:18:15,987] WARN [Producer clientId=console-producer] Received invalid metadata error in produce request on partition test_4-0 due to org.apache.kafka.common.errors.NotLeaderForPartitionException: This server is not the leader for that topic-partition.. Going to request metadata update now (org.apache.kafka.clients.producer.internals.Sender)`,
	)
	// 021: the metadata-refresh line belongs to the retry before it (client.md §3.6).
	if len(evs) != 1 {
		t.Fatalf("%d events, want 1 (P2 paired with P1): %+v", len(evs), evs)
	}
	e := evs[0]
	if e.ClientID != "console-producer" || e.Error != "NOT_LEADER_FOR_PARTITION" || e.AttemptsLeft != 2 || e.Final {
		t.Errorf("%+v", e)
	}
}

func TestFinalFailureMultiLine(t *testing.T) {
	// 013: ErrorLoggingCallback names the topic; the exception follows.
	evs := parseAll(
		`[2025-10-16 16:07:21,247] WARN [Producer clientId=console-producer] Got error produce response with correlation id 7 on topic-partition performance-test-0, retrying (0 attempts left). Error: NOT_ENOUGH_REPLICAS (org.apache.kafka.clients.producer.internals.Sender)`,
		`[2025-10-16 16:07:21,659] ERROR Error when sending message to topic performance-test with key: null, value: 4 bytes with error: (org.apache.kafka.clients.producer.internals.ErrorLoggingCallback)`,
		`org.apache.kafka.common.errors.NotEnoughReplicasException: Messages are rejected since there are fewer in-sync replicas than required.`,
	)
	if len(evs) != 2 {
		t.Fatalf("%d events: %+v", len(evs), evs)
	}
	f := evs[1]
	if !f.Final || !f.TopicOnly || f.Topic != "performance-test" || f.Error != "NOT_ENOUGH_REPLICAS" || f.Line != 2 {
		t.Errorf("final failure %+v", f)
	}
	// 023: Spring LoggingProducerListener in JSON, exception in stack_trace.
	evs = parseAll(`{"@timestamp":"2020-03-13T16:37:57.702+0000","@version":"1","message":"Exception thrown when sending a message with key='***' and payload='{***' to topic topic-2.name:","logger_name":"org.springframework.kafka.support.LoggingProducerListener","thread_name":"kafka-producer-network-thread | producer-3","level":"ERROR","level_value":40000,"stack_trace":"<#7872a9f0> org.apache.kafka.common.errors.NotLeaderForPartitionException: This server is not the leader for that topic-partition.\n"}`)
	if len(evs) != 1 || !evs[0].Final || evs[0].Topic != "topic-2.name" || evs[0].ClientID != "producer-3" || evs[0].Error != "NOT_LEADER_FOR_PARTITION" {
		t.Errorf("spring json final: %+v", evs)
	}
}

func TestProducerConfigBlock(t *testing.T) {
	evs := parseAll(
		`[2019-02-25 14:00:00,101] INFO ProducerConfig values: `,
		"\tacks = 1",
		"\tclient.id = binlog-producer",
		"\tmax.in.flight.requests.per.connection = 5",
		"\tretries = 0",
		"\tretry.backoff.ms = 100",
		` (org.apache.kafka.clients.producer.ProducerConfig)`,
		`[2019-02-25 14:00:00,140] INFO Kafka version : 0.10.2.1 (org.apache.kafka.common.utils.AppInfoParser)`,
	)
	if len(evs) != 2 || evs[0].Kind != KindProducerConfig || evs[1].Kind != KindClientVersion {
		t.Fatalf("%+v", evs)
	}
	if evs[0].Config["retries"] != "0" || evs[0].ClientID != "binlog-producer" || evs[1].Text != "0.10.2.1" {
		t.Errorf("config %v version %q", evs[0].Config, evs[1].Text)
	}
}

// The leader's line names the ISR the change set: a KRaft line's list has
// commas and is followed by ", adding replicas" (035).
func TestLeaderLineISR(t *testing.T) {
	for _, c := range []struct {
		line string
		isr  []int32
	}{
		{`[2025-03-28 19:14:32,520] INFO [Broker id=1] Leader kraft-test-0 with topic id Some(WLjTDIMVTMiyaNabGbe6cQ) starts at leader epoch 135 from offset 3297 with partition epoch 261, high watermark 3297, ISR [3,2,1], adding replicas [] and removing replicas [] . Previous leader Some(3) and previous leader epoch was 134. (state.change.logger)`, []int32{3, 2, 1}},
		{`[2021-04-28 16:12:30,890] INFO [Broker id=0] Leader erstesTopic-1 starts at leader epoch 10 from offset 0 with high watermark 0 ISR [0] addingReplicas [] removingReplicas []. Previous leader epoch was 9. (state.change.logger)`, []int32{0}},
		{`[2020-03-26 11:38:33,078] INFO [Broker id=0] Leader test-1 starts at leader epoch 1 from offset 0 with high watermark 0 ISR 0 addingReplicas  removingReplicas .Previous leader epoch was 0. (state.change.logger)`, []int32{0}},
	} {
		evs := parseAll(c.line)
		if len(evs) != 1 || !slices.Equal(evs[0].ISR, c.isr) {
			t.Errorf("%.60s…: %+v, want ISR %v", c.line, evs, c.isr)
		}
	}
}

func TestHardWrappedPaste(t *testing.T) {
	// 027: the logger name and a word are split across physical lines.
	evs := parseAll(
		`[2020-03-26 11:38:33,078] INFO [Broker id=0] Stopped fetchers as part of LeaderAndIsr request correlationId 4 from controller 0 epoch 1 as part of the become-leader tr`,
		`ansition for 1 partitions (state.change.logger)`,
		`[2020-03-26 11:38:33,078] INFO [Broker id=0] Leader test-1 starts at leader epoch 1 from offset 0 with high watermark 0 ISR 0 addingReplicas  removingReplicas .Previous leader epoch was 0. (state.change.logger)`,
	)
	if len(evs) != 2 || evs[0].Kind != KindRequestPhase || evs[0].Role != RoleLeader || evs[1].LeaderEpoch != 1 {
		t.Fatalf("%+v", evs)
	}
}

func TestTopicPartition(t *testing.T) {
	for in, w := range map[string]struct {
		t  string
		p  int32
		ok bool
	}{
		"orders-3": {"orders", 3, true}, "my-replicated-topic-0": {"my-replicated-topic", 0, true},
		"[orders,3]": {"orders", 3, true}, "topic-2.name-48": {"topic-2.name", 48, true},
		"AMNt6PcpRZOktSh6v-u00A:performance-test-0": {"performance-test", 0, true},
		"orders": {"", 0, false}, "orders-": {"", 0, false}, "-3": {"", 0, false}, "orders-99999999999": {"", 0, false},
		"bad topic-1": {"", 0, false},
	} {
		tp, p, ok := TopicPartition([]byte(in))
		if ok != w.ok || (ok && (tp != w.t || p != w.p)) {
			t.Errorf("%q: got %q %d %v", in, tp, p, ok)
		}
	}
}

func TestParseState(t *testing.T) {
	cases := map[string]PartitionState{
		`(LeaderAndIsrInfo:(Leader:2,ISR:2,3,LeaderEpoch:14,ControllerEpoch:27),ReplicationFactor:3),AllReplicas:2,3,1)`: {Leader: 2, LeaderEpoch: 14, ControllerEpoch: 27, ISR: []int32{2, 3}, Replicas: []int32{2, 3, 1}, Partition: Unknown},
		`PartitionState(controllerEpoch=3, leader=0, leaderEpoch=1, isr=0,2, zkVersion=1, replicas=0,2,1, isNew=false)`:  {Leader: 0, LeaderEpoch: 1, ControllerEpoch: 3, ISR: []int32{0, 2}, Replicas: []int32{0, 2, 1}, Partition: Unknown},
		`{"leader":-1,"leader_epoch":1,"isr":[1]}`: {Leader: -1, LeaderEpoch: 1, ControllerEpoch: Unknown, ISR: []int32{1}, Partition: Unknown},
		`LeaderAndIsr(leader=2, leaderEpoch=14, isrWithBrokerEpoch=List(BrokerState(brokerId=2, brokerEpoch=-1), BrokerState(brokerId=3, brokerEpoch=-1)), leaderRecoveryState=RECOVERED, partitionEpoch=41)`:               {Leader: 2, LeaderEpoch: 14, ControllerEpoch: Unknown, ISR: []int32{2, 3}, Partition: Unknown},
		`LeaderAndIsrPartitionState(topicName='orders', partitionIndex=3, controllerEpoch=27, leader=2, leaderEpoch=14, isr=[2, 3], zkVersion=41, replicas=[2, 3, 1], addingReplicas=[], removingReplicas=[], isNew=false)`: {Topic: "orders", Partition: 3, Leader: 2, LeaderEpoch: 14, ControllerEpoch: 27, ISR: []int32{2, 3}, Replicas: []int32{2, 3, 1}},
	}
	for in, w := range cases {
		if got := ParseState([]byte(in)); !reflect.DeepEqual(got, w) {
			t.Errorf("%s\n got %+v\nwant %+v", in, got, w)
		}
	}
}

func TestConsumerLines(t *testing.T) {
	evs := parseAll(
		`2024-03-11T20:35:28.209+03:00  INFO 16076 --- [ntainer#0-0-C-1] o.a.k.c.c.internals.AbstractCoordinator  : [Consumer clientId=consumer-orders-1, groupId=orders] Discovered group coordinator kafka-2:9092 (id: 2147483645 rack: null)`,
		`[2022-01-10 10:00:00,001] INFO [Consumer clientId=consumer-orders-1, groupId=orders] Group coordinator kafka-1:9092 (id: 2147483646 rack: null) is unavailable or invalid due to cause: null.isDisconnected: true. Rediscovery will be attempted. (org.apache.kafka.clients.consumer.internals.AbstractCoordinator)`,
	)
	if len(evs) != 2 || evs[0].Consumer != ConsCoordinatorDiscovered || evs[0].Broker != 2 || evs[0].GroupID != "orders" ||
		evs[1].Consumer != ConsCoordinatorDead || evs[1].Broker != 1 {
		t.Fatalf("%+v", evs)
	}
}

// sampleWant is how each real sample must be recognised: its layouts, the
// era markers its lines carry (eraBitNames), collector prefixes, and the
// identity of the source (brokers, controllers, clients) as its own lines
// state it, without help from the file name. See testdata/samples/INDEX.md
// for where each file came from.
type sampleWant struct {
	layouts, eras, collectors []string
	brokers, controllers      []int32
	clients                   []string // producer client ids, then other clients'
}

var sampleIdentity = map[string]sampleWant{
	"002": {[]string{"log4j"}, []string{"BrokerID", "PartitionState", "ZKController", "Trace"}, nil, []int32{0}, []int32{0}, nil},
	"003": {[]string{"log4j"}, []string{"BrokerID", "KRaft", "TopicID", "PreviousLeader"}, nil, []int32{0}, nil, nil},
	"004": {[]string{"log4j"}, []string{"QuorumController"}, nil, nil, []int32{1}, nil},
	"005": {[]string{"log4j"}, []string{"BrokerID", "KRaft", "TopicID", "PreviousLeader"}, nil, []int32{1}, nil, nil},
	"006": {[]string{"log4j"}, []string{"BrokerN", "BracketTP", "ZKController", "Trace"}, nil, []int32{0}, []int32{0}, nil},
	"008": {[]string{"log4j"}, []string{"BrokerN", "BracketTP", "TPInTransition", "PartitionState", "ZKController", "Trace"}, nil, []int32{0}, []int32{0}, nil},
	"009": {[]string{"strimzi"}, []string{"ZKController"}, nil, nil, []int32{0}, nil},
	"011": {[]string{"strimzi"}, []string{"ZKController"}, nil, nil, []int32{0}, nil},
	"012": {[]string{"log4j"}, []string{"Storage4"}, nil, []int32{1}, nil, nil},
	"013": {[]string{"log4j"}, []string{"Producer"}, nil, nil, nil, []string{"console-producer"}},
	"014": {[]string{"log4j"}, nil, nil, []int32{1}, nil, nil},
	"015": {[]string{"log4j"}, []string{"BrokerID", "RequestInfo", "Finished", "TopicID", "PreviousLeader", "ZKController"}, nil, []int32{0, 1, 2}, []int32{0}, nil},
	"016": {[]string{"log4j"}, []string{"ZKController"}, nil, nil, []int32{0, 1, 2}, nil},
	"017": {[]string{"log4j"}, []string{"BrokerID", "RequestInfo", "Finished", "TopicID", "PreviousLeader", "ZKController"}, nil, []int32{0, 1, 2}, []int32{0}, nil},
	"018": {[]string{"log4j"}, []string{"UnifiedLog"}, nil, []int32{1, 0}, nil, nil},
	"019": {[]string{"log4j"}, []string{"ZKController"}, nil, nil, []int32{0}, nil},
	"021": {[]string{"log4j"}, []string{"Producer", "NotLeaderForPartition"}, []string{"prefix"}, nil, nil, []string{"console-producer"}},
	"022": {[]string{"log4j"}, []string{"LeaderNotLocal"}, nil, []int32{1}, nil, nil},
	"023": {[]string{"json"}, []string{"Producer", "NotLeaderForPartition"}, nil, nil, nil, []string{"producer-3"}},
	"025": {[]string{"librdkafka"}, nil, nil, nil, nil, []string{"mqtt_reader.1#producer-1"}},
	"026": {[]string{"log4j"}, []string{"Producer", "NotLeaderOrFollower"}, nil, nil, nil, []string{"connector-producer-MONGODB_DEV01_APPROVAL_CHAIN_INSTANCE-0"}},
	"027": {[]string{"log4j"}, []string{"BrokerID", "RequestInfo", "ZKController"}, nil, []int32{0}, []int32{0}, nil},
	"029": {[]string{"log4j"}, []string{"BrokerID", "Trace", "LogPrefix"}, []string{"docker-compose"}, []int32{1}, nil, nil},
	"031": {[]string{"log4j"}, []string{"ZKController"}, nil, nil, []int32{100}, nil},
	"032": {[]string{"log4j"}, []string{"ZKController"}, nil, nil, []int32{0}, nil},
	"035": {[]string{"log4j"}, []string{"BrokerID", "KRaft", "TopicID", "PreviousLeader"}, nil, []int32{3, 1, 2}, nil, nil},
	"036": {[]string{"log4j"}, []string{"QuorumController"}, nil, nil, []int32{2}, nil},
	"037": {[]string{"log4j"}, []string{"QuorumController"}, nil, nil, []int32{3}, nil},
	"038": {[]string{"log4j"}, []string{"ZKController"}, nil, nil, []int32{0, 1}, nil},
	"039": {[]string{"log4j"}, []string{"BrokerID", "RequestInfo", "Finished", "ZKController"}, nil, []int32{0, 1}, []int32{0}, nil},
	"040": {[]string{"log4j"}, nil, nil, []int32{2}, nil, nil},
	"041": {[]string{"log4j"}, []string{"ZKController"}, nil, nil, []int32{2, 1, 3}, nil},
	"042": {[]string{"log4j"}, []string{"BrokerID", "PartitionState", "ZKController", "Trace"}, nil, []int32{0}, []int32{0}, nil},
	"043": {[]string{"log4j"}, []string{"ZKController"}, nil, nil, []int32{0}, nil},
	"044": {[]string{"log4j"}, []string{"BracketTP"}, nil, []int32{1}, nil, nil},
	"045": {[]string{"log4j"}, []string{"Raft"}, nil, nil, []int32{0}, nil},
	"046": {[]string{"log4j"}, []string{"KRaft"}, nil, []int32{101}, nil, nil},
	"048": {[]string{"linkedin"}, nil, nil, []int32{78001}, nil, nil},
	"049": {[]string{"json"}, []string{"KafkaJS"}, nil, nil, nil, []string{"test-2"}},
	"050": {[]string{"log4j"}, []string{"LeaderEpochServerLog"}, nil, []int32{2}, nil, nil},
	"051": {[]string{"log4j"}, []string{"QuorumController", "Raft"}, nil, nil, []int32{0}, nil},
	"052": {[]string{"log4j"}, []string{"LeaderEpochServerLog"}, nil, []int32{2}, nil, nil},
}

// Every real sample is recognised as sampleIdentity says, without a
// leadership line left unparsed, and every line is either a record, a
// continuation, or counted as not understood. A new sample fails here until
// it is described.
func TestSamplesLeaveNothingUnparsed(t *testing.T) {
	files, _ := filepath.Glob("../testdata/samples/*.log")
	if len(files) < 40 {
		t.Fatalf("only %d samples", len(files))
	}
	seen := map[string]bool{}
	for _, f := range files {
		id := filepath.Base(f)[:3]
		seen[id] = true
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		p := New(time.UTC)
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.Line(sc.Bytes(), func(*Event) {})
		}
		p.Flush(func(*Event) {})
		fh.Close()
		st := p.Stats
		if st.Unparsed != 0 {
			t.Errorf("%s: %d leadership lines unparsed, e.g. %s", filepath.Base(f), st.Unparsed, strings.Join(st.UnparsedSamples, "\n"))
		}
		if st.Records+st.Continuations+st.NotUnderstood > st.Lines {
			t.Errorf("%s: counts exceed lines: %+v", filepath.Base(f), st)
		}
		w, ok := sampleIdentity[id]
		if !ok {
			t.Errorf("%s: not in sampleIdentity", filepath.Base(f))
			continue
		}
		var layouts []string
		for l := LayoutLog4j; l < NumLayouts; l++ {
			if st.Layouts&(1<<l) != 0 {
				layouts = append(layouts, l.String())
			}
		}
		got := sampleWant{layouts, eraNames(st.Eras), CollectorNames(st.Collectors), st.Brokers, st.Controllers, append(st.Producers, st.Clients...)}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s:\n got  %+v\n want %+v", filepath.Base(f), got, w)
		}
		if len(w.brokers)+len(w.controllers)+len(w.clients) == 0 {
			t.Errorf("%s: no source identity", filepath.Base(f))
		}
	}
	for id := range sampleIdentity {
		if !seen[id] {
			t.Errorf("sampleIdentity has %s, testdata/samples does not", id)
		}
	}
}

// testdata/samples is the repository's copy of the team's shared sample
// directory; where that directory exists, the copy must be current, so a
// sample added there fails above until it is copied and described.
func TestSamplesMatchSharedDirectory(t *testing.T) {
	const shared = "../../shared/samples"
	theirs, _ := filepath.Glob(shared + "/*.log")
	if len(theirs) == 0 {
		t.Skip(shared + " not on this machine")
	}
	ours, _ := filepath.Glob("../testdata/samples/*.log")
	if len(ours) != len(theirs) {
		t.Errorf("%d samples in %s, %d in testdata/samples", len(theirs), shared, len(ours))
	}
	for _, f := range theirs {
		a, _ := os.ReadFile(f)
		b, err := os.ReadFile(filepath.Join("../testdata/samples", filepath.Base(f)))
		if err != nil || string(a) != string(b) {
			t.Errorf("%s: testdata/samples copy missing or different", filepath.Base(f))
		}
	}
}

func TestParseStampZones(t *testing.T) {
	loc, _ := time.LoadLocation("Asia/Jakarta")
	var r Record
	if !ParseHeader([]byte(`[2025-08-06 17:31:13,456] INFO [Broker id=1] x (state.change.logger)`), loc, &r) {
		t.Fatal("no header")
	}
	if got := r.Time.UTC().Format(time.RFC3339Nano); got != "2025-08-06T10:31:13.456Z" {
		t.Errorf("WIB local time read as %s", got)
	}
	if r.HasZone {
		t.Error("log4j layout has no zone")
	}
}

// Out-of-order counting compares wall clocks without building times: the
// key must order like time does, across years and at millisecond steps.
func TestStampKeyOrders(t *testing.T) {
	times := []string{"1999-12-31 23:59:59,999", "2000-01-01 00:00:00,000", "2018-05-16 15:19:48,516",
		"2018-05-16 15:19:48,517", "2018-05-17 00:00:00,000", "2026-12-31 23:59:60,000", "2999-01-01 00:00:00,001"}
	var last int64 = -1 << 63
	for _, s := range times {
		st, _, ok := parseStampLazy([]byte(s))
		if !ok {
			t.Fatalf("%s not parsed", s)
		}
		if k := st.key(); k <= last {
			t.Errorf("%s: key %d not after %d", s, k, last)
		} else {
			last = k
		}
	}
	evs := parseAll(
		`[2018-05-16 15:19:48,517] INFO [Broker id=1] Transitioning 1 partition(s) to local leaders. (state.change.logger)`,
		`[2018-05-16 15:19:48,516] INFO [Broker id=1] Transitioning 1 partition(s) to local leaders. (state.change.logger)`,
	)
	if len(evs) != 2 {
		t.Fatal(evs)
	}
	p := New(time.UTC)
	p.Line([]byte(`[2018-05-16 15:19:48,517] INFO x (y)`), func(*Event) {})
	p.Line([]byte(`[2018-05-16 15:19:48,516] INFO x (y)`), func(*Event) {})
	p.Line([]byte(`[2018-05-16 15:19:48,518] INFO x (y)`), func(*Event) {})
	p.Flush(func(*Event) {})
	if p.Stats.OutOfOrder != 1 || p.Stats.Last.Format("05.000") != "48.518" || p.Stats.First.Format("05.000") != "48.517" {
		t.Errorf("out of order %d, first %v last %v", p.Stats.OutOfOrder, p.Stats.First, p.Stats.Last)
	}
}

func TestBrokerFromPath(t *testing.T) {
	for p, want := range map[string]int32{
		"logs/broker-2/server.log": 2, "/var/log/kafka-3/state-change.log": 3, "kafka2.log": 2, "broker_11/server.log.gz": 11,
		"k8s/kafka-0.kafka-headless/server.log": 0, "app/producer.log": Unknown, "kafkademo/broker.log": Unknown, "logs/server.log": Unknown,
	} {
		if got := BrokerFromPath(p); got != want {
			t.Errorf("%s: %d, want %d", p, got, want)
		}
	}
}

// One file holding several brokers' output (docker compose logs, kubectl
// logs --prefix, stern): a line that names no broker (broker.md §6.5
// "Session expired.", as broker 2 wrote it in case 3) takes the broker from
// the collector's prefix.
func TestBrokerFromCollectorPrefix(t *testing.T) {
	const line = "[2021-06-14 10:15:24,902] INFO [ZooKeeperClient Kafka server] Session expired. (kafka.zookeeper.ZooKeeperClient)"
	evs := parseAll("kafka-1  | "+line, "kafka-2  | "+line, "kafka-1  | "+line, "kafka  | "+line)
	var got []int32
	for _, ev := range evs {
		got = append(got, ev.Broker)
	}
	if len(got) != 4 || got[0] != 1 || got[1] != 2 || got[2] != 1 || got[3] != Unknown {
		t.Fatalf("brokers %v, want [1 2 1 unknown]", got)
	}
	for prefix, want := range map[string]int32{
		"kafka-2  |": 2, "[pod/kafka-0/kafka]": 0, "kafka-0 kafka": 0, "kafka_broker_3": 3,
		"2024-03-11T20:35:28+0000 kafka-2 kafka-server-start.sh[1234]:": 2, "zookeeper-1": Unknown, "broker-12 |": 12,
	} {
		if got := brokerFromPrefix([]byte(prefix)); got != want {
			t.Errorf("%q: %d, want %d", prefix, got, want)
		}
	}
}

// A broker's stdout (040) has no leadership line that dates it, but its
// KafkaConfig dump names the protocol it speaks, and its id.
func TestKafkaConfigDumpProtocolAndID(t *testing.T) {
	p := New(time.UTC)
	for _, l := range []string{
		"[2018-12-09 02:21:48,157] INFO KafkaConfig values: ",
		"\tadvertised.host.name = null",
		"\tbroker.id = 2",
		"\tinter.broker.protocol.version = 1.0-IV0",
		"\tsecurity.inter.broker.protocol = PLAINTEXT",
	} {
		p.Line([]byte(l), func(*Event) {})
	}
	if p.Stats.ProtocolVersion != "1.0-IV0" || len(p.Stats.Brokers) != 1 || p.Stats.Brokers[0] != 2 {
		t.Fatalf("protocol %q, brokers %v", p.Stats.ProtocolVersion, p.Stats.Brokers)
	}
}

// Sample 017: three brokers' JVMs on one host append to one
// state-change.log. Split by the id each record's prefix names, each JVM
// wrote in order; the one record out of order in the file is the
// interleaving of two of them.
func TestSharedLogSplitByWriter(t *testing.T) {
	f, err := os.Open("../testdata/samples/017-zk-3.9-cold-restart-3-brokers-shared-state-change-full.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := New(time.UTC)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		p.Line(sc.Bytes(), func(*Event) {})
	}
	p.Flush(func(*Event) {})
	got := map[int32]int64{}
	var total int64
	for _, w := range p.Stats.Writers {
		got[w.ID] = w.Records
		total += w.Records
		if w.OutOfOrder != 0 {
			t.Errorf("writer %d: %d out of order", w.ID, w.OutOfOrder)
		}
	}
	if len(got) != 3 || got[0] != 442 || got[1] != 118 || got[2] != 114 || total != p.Stats.Records || p.Stats.OutOfOrder != 1 {
		t.Fatalf("writers %v (of %d records), file out of order %d", got, p.Stats.Records, p.Stats.OutOfOrder)
	}
}

// A date that does not exist is not a timestamp: time.Date read Feb 30 as
// Mar 1, placing the line a day off. Feb 29 of a leap year is one.
func TestParseStampRejectsDaysPastTheMonth(t *testing.T) {
	for line, ok := range map[string]bool{
		"[2019-02-30 10:00:00,000] INFO x (state.change.logger)": false,
		"[2019-02-29 10:00:00,000] INFO x (state.change.logger)": false,
		"[2020-02-29 10:00:00,000] INFO x (state.change.logger)": true,
		"[1900-02-29 10:00:00,000] INFO x (state.change.logger)": false,
		"[2000-02-29 10:00:00,000] INFO x (state.change.logger)": true,
		"[2019-04-31 10:00:00,000] INFO x (state.change.logger)": false,
		"[2019-12-31 10:00:00,000] INFO x (state.change.logger)": true,
	} {
		var r Record
		got := ParseHeader([]byte(line), time.UTC, &r)
		if got != ok {
			t.Errorf("%s: header %v (time %v), want %v", line, got, r.Time, ok)
		}
		if got && r.Time.Format("2006-01-02") != line[1:11] {
			t.Errorf("%s: read as %v", line, r.Time)
		}
	}
}

// A JSON epoch past year 9999 (1e300) is no time: it used to print one
// that is not RFC 3339.
func TestJSONEpochOutOfRange(t *testing.T) {
	for _, line := range []string{
		`{"timestamp":1e300,"level":"INFO","loggerName":"x","message":"m"}`,
		`{"timeMillis":253402300800000,"level":"INFO","loggerName":"x","message":"m"}`,
		`{"instant":{"epochSecond":1e300},"level":"INFO","loggerName":"x","message":"m"}`,
	} {
		var r Record
		if ParseHeader([]byte(line), time.UTC, &r) && r.Time.Year() > 9999 {
			t.Errorf("%s: read as %v", line, r.Time)
		}
	}
}

// correlation's one search gives what a search for each marker in turn
// gives.
func TestCorrelationEqualsTwoSearches(t *testing.T) {
	two := func(s []byte) int64 {
		if v, ok := intAfter(s, "correlation id "); ok {
			return v
		}
		if v, ok := intAfter(s, "correlationId "); ok {
			return v
		}
		return -1
	}
	for _, s := range []string{
		"", "correlation", "correlation id ", "correlation id 7", "correlationId 8 x", "correlation id x correlationId 9",
		"correlationId 3 then correlation id 4", "correlationId x correlationId 5", "correlation id x correlation id 6",
		"correlationId correlation id 2", "with correlation id 11 from controller 1", "correlationcorrelation id 12",
		"correlationId 1 correlation id x", "correlation idcorrelationId 13",
	} {
		if got, want := correlation([]byte(s)), two([]byte(s)); got != want {
			t.Errorf("%q: %d, want %d", s, got, want)
		}
	}
}

// partitionAfter cuts the "t-p" token where IndexAny(" ,;") would and
// trims what TrimRight(".:)") would, which its byte loops replace.
func TestPartitionAfterToken(t *testing.T) {
	p := New(time.UTC)
	for _, rest := range []string{
		"orders-3", "orders-3 (state.change.logger)", "orders-3,", "orders-3;x", "orders-3.", "orders-3:)",
		"orders-3).", "__consumer_offsets-49 with leader 2", "orders-3.:) more", "", " orders-3", "orders-",
		"my.topic_v2-11, epoch 4", "orders-3)))",
	} {
		s := []byte("for partition " + rest)
		old := []byte(rest)
		if e := bytes.IndexAny(old, " ,;"); e >= 0 {
			old = old[:e]
		}
		old = bytes.TrimRight(old, ".:)")
		wt, wp, wok := p.topicPartition(old)
		gt, gp, gok := p.partitionAfter(s, "for partition ")
		if gt != wt || gp != wp || gok != wok {
			t.Errorf("%q: got %q %d %v, want %q %d %v", rest, gt, gp, gok, wt, wp, wok)
		}
	}
}

func TestTrimBlankRight(t *testing.T) {
	for _, s := range []string{"", " ", "\t\r ", "a", "a b", "msg (logger)  \t\r", "x\r\r", " \tx", "\r\nx\r"} {
		if got, want := string(trimBlankRight([]byte(s))), string(bytes.TrimRight([]byte(s), " \t\r")); got != want {
			t.Errorf("trimBlankRight(%q) = %q, want %q", s, got, want)
		}
	}
}
