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
var rdkafkaDebug = map[string]string{
	"librdkafka":       "topic,msg,broker,protocol",
	"librdkafka-topic": "topic",
	"librdkafka-msg":   "msg",
}

func init() {
	for name, debug := range rdkafkaDebug {
		helpers[name] = func(seeds []string, stop <-chan struct{}) error { return rdkafkaProduce(debug, seeds, stop) }
	}
}

// rdkafkaProduce: confluent-kafka-go with librdkafka's bundled static
// library, its default logger (stderr), and the debug contexts a user
// turns on to see leader changes.
func rdkafkaProduce(debug string, seeds []string, stop <-chan struct{}) error {
	p, err := kafka.NewProducer(&kafka.ConfigMap{
		"bootstrap.servers":  strings.Join(seeds, ","),
		"client.id":          "librdkafka-conformance",
		"acks":               "all",
		"linger.ms":          2,
		"retry.backoff.ms":   50,
		"partitioner":        "random",
		"debug":              debug,
		"enable.idempotence": false,
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
	for _, name := range []string{"librdkafka", "librdkafka-topic", "librdkafka-msg"} {
		t.Run(name, func(t *testing.T) {
			run(t, workload{name: name, produce: childProduce(name)})
		})
	}
}
