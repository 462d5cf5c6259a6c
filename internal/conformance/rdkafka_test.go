//go:build cgo

package conformance

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// The debug contexts a user turns on to see leader changes: all that
// name a partition (client.md §11's set), and each alone.
var rdkafkaRuns = map[string]struct {
	debug      string
	idempotent bool
}{
	"librdkafka":       {"topic,msg,broker,protocol", false},
	"librdkafka-topic": {"topic", false},
	"librdkafka-msg":   {"msg", false},
	// The idempotent producer's error handling has lines of its own.
	"librdkafka-idempotent": {"topic,msg,eos", true},
}

func init() {
	for name, r := range rdkafkaRuns {
		helpers[name] = func(seeds []string, stop <-chan struct{}) error {
			return rdkafkaProduce(r.debug, r.idempotent, seeds, stop)
		}
	}
}

// rdkafkaProduce: confluent-kafka-go with librdkafka's bundled static
// library, its default logger (stderr), and the debug contexts a user
// turns on to see leader changes.
func rdkafkaProduce(debug string, idempotent bool, seeds []string, stop <-chan struct{}) error {
	p, err := kafka.NewProducer(&kafka.ConfigMap{
		"bootstrap.servers":  strings.Join(seeds, ","),
		"client.id":          "librdkafka-conformance",
		"acks":               "all",
		"linger.ms":          2,
		"retry.backoff.ms":   50,
		"partitioner":        "random",
		"debug":              debug,
		"enable.idempotence": idempotent,
	})
	if err != nil {
		return err
	}
	defer p.Close()
	var failed error
	go func() {
		for e := range p.Events() {
			if m, ok := e.(*kafka.Message); ok && m.TopicPartition.Error != nil {
				failed = m.TopicPartition.Error
			}
		}
	}()
	tp := topic
	tick := time.NewTicker(sendEvery)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-stop:
			if n := p.Flush(30000); n > 0 {
				return fmt.Errorf("%d messages not delivered", n)
			}
			return failed
		case <-tick.C:
			// Round robin by hand: librdkafka has no round-robin
			// partitioner.
			part := int32(i % partitions)
			if err := p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &tp, Partition: part}, Value: []byte(fmt.Sprint(i))}, nil); err != nil {
				return err
			}
		}
	}
}

func TestLibrdkafka(t *testing.T) {
	for _, name := range []string{"librdkafka", "librdkafka-topic", "librdkafka-msg", "librdkafka-idempotent"} {
		t.Run(name, func(t *testing.T) {
			run(t, workload{name: name, produce: childProduce(name)})
		})
	}
}
