package parser

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Lines the client libraries wrote themselves (internal/conformance:
// sarama v1.61.1, franz-go v1.22.3, librdkafka 2.11.1, kafkajs 2.2.4, producing to kfake while leaders
// moved), trimmed to the first three NOT_LEADER responses with the lines
// around them. Each response is one producer error on its partition, and
// nothing else in the file is one.
var clientCaptures = []struct {
	file  string
	parts []int32 // partitions of the producer errors, in order
	first string  // time of the first, UTC
}{
	// log.New(w, "[sarama]", log.LstdFlags|log.Lmicroseconds): no space.
	{"sarama-std-nospace.log", []int32{1, 1, 0}, "2026-12-03 15:54:34.439"},
	// Producer.Idempotent: each retry line is followed by "Retrying batch
	// for orders-P because of …" for the same error.
	{"sarama-idempotent.log", []int32{3, 1, 4}, "2026-12-03 16:21:43.521"},
	// log.New(w, "", log.LstdFlags|log.Lmicroseconds|log.Lshortfile):
	// "async_producer.go:1462: " before the message.
	{"sarama-std-shortfile.log", []int32{2, 2, 3}, "2026-12-03 16:11:18.828"},
	// logrus TextFormatter, sarama.Logger = logger.WithField("component", "sarama").
	{"sarama-logrus.log", []int32{4, 3, 2}, "2026-12-03 15:54:39.387"},
	// zap JSON (NewProductionEncoderConfig), zap.NewStdLog(logger.Named("sarama")).
	{"sarama-zap-json.log", []int32{3, 4, 3}, "2026-12-03 15:54:44.342"},
	// zap console (NewDevelopmentEncoderConfig), Named("sarama").
	{"sarama-zap-console.log", []int32{1, 1, 0}, "2026-12-03 15:54:49.285"},
	// log.New(zerolog.New(w).With().Timestamp().Str("component", "sarama").Logger(), "", 0).
	{"sarama-zerolog.log", []int32{5, 5, 0}, "2026-12-03 15:54:54.000"},
	// kgo.BasicLogger at Info with an RFC 3339 prefix.
	{"franz-go-info.log", []int32{4, 3, 2}, "2026-12-03 15:54:59.370"},
	// kgo.BasicLogger writing into Go's log (LstdFlags|Lmicroseconds).
	{"franz-go-info-golog.log", []int32{5, 0, 0}, "2026-12-03 16:15:07.033"},
	// The same at Debug: many more lines, the same three errors.
	{"franz-go-debug.log", []int32{5, 5, 0}, "2026-12-03 15:55:04.344"},
	// The same against Kafka 3.6's API versions (Produce v9, before
	// KIP-951): only DEBUG "produced; … to: orders[1{retrying@0,1(ERR)}]"
	// names the partition.
	{"franz-go-debug-3.6.log", []int32{1, 0, 2}, "2026-12-03 16:07:44.888"},
	// confluent-kafka-go v2.11.1 (librdkafka 2.11.1), default stderr logger,
	// debug=topic,msg,broker,protocol: REQERR, MSGSET and BROKERUA for each
	// response, one error.
	{"librdkafka.log", []int32{2, 1, 0}, "2026-12-03 16:00:13.694"},
	// debug=topic: BROKERUA alone.
	{"librdkafka-topic.log", []int32{0, 2, 3}, "2026-12-03 16:00:18.894"},
	// debug=msg: MSGSET alone.
	{"librdkafka-msg.log", []int32{5, 5, 0}, "2026-12-03 16:00:23.972"},
	// kafkajs 2.2.4's default JSON logger at INFO: one ERROR "[Connection]
	// Response Produce" per response, then "[Producer] Failed to send
	// messages"; nothing names the partition.
	{"kafkajs-info.log", []int32{Unknown, Unknown, Unknown}, "2026-12-03 16:03:49.496"},
	// At DEBUG each error response is logged twice (ERROR, then DEBUG
	// with the same broker and correlationId).
	{"kafkajs-debug.log", []int32{Unknown, Unknown, Unknown}, "2026-12-03 16:03:54.432"},
}

func TestClientCaptures(t *testing.T) {
	for _, c := range clientCaptures {
		t.Run(c.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("..", "testdata", "clients", c.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			p := New(time.UTC)
			var got []Event
			emit := func(e *Event) {
				if e.Kind == KindProducerError {
					got = append(got, *e)
				}
			}
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				p.Line(sc.Bytes(), emit)
			}
			p.Flush(emit)
			var parts []int32
			for _, e := range got {
				// One record per response, built from every line of it.
				want := int64(1)
				switch c.file {
				case "librdkafka.log", "kafkajs-debug.log":
					// MSGSET + BROKERUA; the ERROR line + its DEBUG copy.
					want = 2
				}
				if n := int64(max(len(e.Lines), 1)); n != want {
					t.Errorf("line %d: built from lines %v, want %d lines", e.Line, e.Lines, want)
				}
				topic := "orders"
				if e.Partition == Unknown {
					// kafkajs: no line names the topic either.
					topic = ""
				}
				if e.Topic != topic || e.Error != "NOT_LEADER_FOR_PARTITION" || e.Final {
					t.Errorf("line %d: %s-%d %s final=%v", e.Line, e.Topic, e.Partition, e.Error, e.Final)
				}
				parts = append(parts, e.Partition)
			}
			if fmt.Sprint(parts) != fmt.Sprint(c.parts) {
				t.Fatalf("partitions %v, want %v", parts, c.parts)
			}
			if ts := got[0].Time.UTC().Format("2006-01-02 15:04:05.000"); ts != c.first {
				t.Errorf("first at %s, want %s", ts, c.first)
			}
		})
	}
}

// Two broker threads of one librdkafka client write at once: a batch's
// BROKERUA line can come after another batch's MSGSET. Lines of
// testdata/clients/librdkafka.log (librdkafka 2.11.1), the second pair's
// MSGSET moved before the first pair's BROKERUA: still two errors.
func TestLibrdkafkaInterleavedThreads(t *testing.T) {
	lines := []string{
		`%7|1796313613.694|MSGSET|librdkafka-conformance#producer-1| [thrd:127.0.0.1:41347/2]: 127.0.0.1:41347/2: orders [2]: MessageSet with 1 message(s) (MsgId 0, BaseSeq -1) encountered error: Broker: Not leader for partition (actions Refresh,MsgNotPersisted)`,
		`%7|1796313613.834|MSGSET|librdkafka-conformance#producer-1| [thrd:127.0.0.1:41385/1]: 127.0.0.1:41385/1: orders [1]: MessageSet with 1 message(s) (MsgId 0, BaseSeq -1) encountered error: Broker: Not leader for partition (actions Refresh,MsgNotPersisted)`,
		`%7|1796313613.694|BROKERUA|librdkafka-conformance#producer-1| [thrd:127.0.0.1:41347/2]: orders [2]: broker unavailable: produce: Broker: Not leader for partition`,
		`%7|1796313613.834|BROKERUA|librdkafka-conformance#producer-1| [thrd:127.0.0.1:41385/1]: orders [1]: broker unavailable: produce: Broker: Not leader for partition`,
	}
	p := New(time.UTC)
	var parts []int32
	var built [][]int64
	emit := func(e *Event) {
		if e.Kind == KindProducerError {
			parts = append(parts, e.Partition)
			built = append(built, e.Lines)
			if e.ClientID != "librdkafka-conformance#producer-1" {
				t.Errorf("client %q", e.ClientID)
			}
		}
	}
	for _, l := range lines {
		p.Line([]byte(l), emit)
	}
	p.Flush(emit)
	if fmt.Sprint(parts) != "[2 1]" || fmt.Sprint(built) != "[[1 3] [2 4]]" {
		t.Fatalf("partitions %v from lines %v, want [2 1] from [[1 3] [2 4]]", parts, built)
	}
}
