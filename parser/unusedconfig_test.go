package parser

import (
	"reflect"
	"testing"
)

// unusedConfigCases: AbstractConfig.logUnused() lines. The format strings
// are AbstractConfig.java's at each tag (client.md §10); the full lines are
// quoted from published logs where one was found.
var unusedConfigCases = []struct {
	name  string
	lines []string
	class string
	keys  map[string]string
}{
	{
		// 0.8.2.2 AbstractConfig.java:121 and 0.9.0.1–0.10.0.1 :173/:186
		// ("The configuration {} = {} was supplied but isn't a known
		// config."): key and value, unquoted, so a stray space shows only
		// as a double space before " = ".
		name:  "0.10.0 key = value",
		lines: []string{`[2016-08-02 10:11:12,345] WARN The configuration retries  = 3 was supplied but isn't a known config. (org.apache.kafka.clients.producer.ProducerConfig)`},
		class: "ProducerConfig", keys: map[string]string{"retries ": "3"},
	},
	{
		// 0.8.2 prints the parsed value, null for any unknown key.
		name:  "0.8.2 null value",
		lines: []string{`[2015-03-01 10:11:12,345] WARN The configuration retry.backof.ms = null was supplied but isn't a known config. (org.apache.kafka.clients.producer.ProducerConfig)`},
		class: "ProducerConfig", keys: map[string]string{"retry.backof.ms": ""},
	},
	{
		// cp-helm-charts#481 (Connect's producer, 2.x, log4j layout).
		name:  "0.10.1-3.2 quoted key",
		lines: []string{`[2020-12-10 08:33:10,025] WARN The configuration 'config.storage.replication.factor' was supplied but isn't a known config. (org.apache.kafka.clients.producer.ProducerConfig)`},
		class: "ProducerConfig", keys: map[string]string{"config.storage.replication.factor": ""},
	},
	{
		// lensesio/fast-data-dev#46: a %c:%L layout puts the line number after the logger.
		name:  "admin client with line number",
		lines: []string{`[2017-11-07 06:02:48,670] WARN The configuration 'group.id' was supplied but isn't a known config. (org.apache.kafka.clients.admin.AdminClientConfig:231)`},
		class: "AdminClientConfig", keys: map[string]string{"group.id": ""},
	},
	{
		// The misspelling of issue #19, client.md §10: the trailing space
		// is inside the quotes.
		name:  "trailing space in quotes",
		lines: []string{`[2019-03-04 01:12:40,560] WARN The configuration 'retries ' was supplied but isn't a known config. (org.apache.kafka.clients.producer.ProducerConfig)`},
		class: "ProducerConfig", keys: map[string]string{"retries ": ""},
	},
	{
		// 3.3–3.4 WARN, 3.5+ INFO (3.9.0-rc3 AbstractConfig.java:380): one
		// line, the keys as a Java Set's toString.
		name:  "3.9 set",
		lines: []string{`[2024-11-20 09:14:03,118] INFO These configurations '[retries , spring.json.add.type.headers, acks]' were supplied but are not used yet. (org.apache.kafka.clients.producer.ProducerConfig)`},
		class: "ProducerConfig", keys: map[string]string{"retries ": "", "spring.json.add.type.headers": "", "acks": ""},
	},
	{
		// vdesabou/kafka-docker-playground#7247 (CP 8.1.0-ce = AK 4.1,
		// Connect): from 4.0 the logger is AbstractConfig itself; the
		// DistributedConfig block before it says whose keys they were.
		name: "4.x AbstractConfig logger",
		lines: []string{
			`[2025-10-15 12:30:51,800] INFO DistributedConfig values: `,
			"\tbootstrap.servers = [broker:9092]",
			` (org.apache.kafka.connect.runtime.distributed.DistributedConfig)`,
			`[2025-10-15 12:30:51,925] INFO These configurations '[log4j.loggers, producer.interceptor.classes, plugin.path]' were supplied but are not used yet. (org.apache.kafka.common.config.AbstractConfig:394)`,
		},
		class: "DistributedConfig", keys: map[string]string{"log4j.loggers": "", "producer.interceptor.classes": "", "plugin.path": ""},
	},
	{
		// Spring Boot's console layout, 4.x: the ProducerConfig block came
		// first (its own logger is AbstractConfig too).
		name: "spring boot 4.x",
		lines: []string{
			`2025-03-18T10:00:00.100Z  INFO 1 --- [           main] o.a.k.common.config.AbstractConfig       : ProducerConfig values: `,
			"\tacks = -1",
			"\tretries = 2147483647",
			`2025-03-18T10:00:00.180Z  INFO 1 --- [           main] o.a.k.common.config.AbstractConfig       : These configurations '[Retries]' were supplied but are not used yet.`,
		},
		class: "ProducerConfig", keys: map[string]string{"Retries": ""},
	},
}

func TestUnusedConfigLines(t *testing.T) {
	for _, c := range unusedConfigCases {
		t.Run(c.name, func(t *testing.T) {
			var got []Event
			for _, e := range parseAll(c.lines...) {
				if e.Kind == KindUnknownConfig {
					got = append(got, e)
				}
			}
			if len(got) != 1 {
				t.Fatalf("%d unknown-config events: %+v", len(got), got)
			}
			e := got[0]
			if e.Text != c.class || !reflect.DeepEqual(e.Config, c.keys) || e.Line != int64(len(c.lines)) {
				t.Errorf("class %q keys %q line %d, want %q %q %d", e.Text, e.Config, e.Line, c.class, c.keys, len(c.lines))
			}
		})
	}
}

// Lines that only look like it stay out.
func TestUnusedConfigNotALine(t *testing.T) {
	for _, l := range []string{
		`[2020-12-10 08:33:10,025] INFO The configuration of the broker changed (kafka.server.KafkaServer)`,
		`[2020-12-10 08:33:10,025] INFO These configurations '' were supplied but are not used yet. (org.apache.kafka.clients.producer.ProducerConfig)`,
		`[2020-12-10 08:33:10,025] WARN The configuration '' was supplied but isn't a known config. (org.apache.kafka.clients.producer.ProducerConfig)`,
	} {
		for _, e := range parseAll(l) {
			if e.Kind == KindUnknownConfig {
				t.Errorf("%q: %+v", l, e)
			}
		}
	}
}

// A consumer's config block (AbstractConfig.logAll(), the same shape as the
// producer's, client.md §5.1) is kept for the logUnused() line after it:
// what the consumer ran with and who it is.
func TestUnusedConfigConsumerBlock(t *testing.T) {
	evs := parseAll(
		`[2021-06-14 10:12:01,001] INFO ConsumerConfig values: `,
		"\tallow.auto.create.topics = true",
		"\tauto.commit.interval.ms = 5000",
		"\tclient.id = consumer-billing-1",
		"\tenable.auto.commit = false",
		"\tgroup.id = billing",
		` (org.apache.kafka.clients.consumer.ConsumerConfig)`,
		`[2021-06-14 10:12:01,090] WARN The configuration 'enable.auto.comit' was supplied but isn't a known config. (org.apache.kafka.clients.consumer.ConsumerConfig)`,
		`[2021-06-14 10:12:01,091] INFO Kafka version: 2.8.0 (org.apache.kafka.common.utils.AppInfoParser)`,
	)
	var got []Event
	for _, e := range evs {
		if e.Kind == KindUnknownConfig {
			got = append(got, e)
		}
		if e.Kind == KindProducerConfig {
			t.Errorf("a consumer block read as a producer's: %+v", e)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%+v", evs)
	}
	e := got[0]
	if e.Text != "ConsumerConfig" || e.ClientID != "consumer-billing-1" || e.Values["enable.auto.commit"] != "false" || e.Values["group.id"] != "billing" || e.Line != 8 {
		t.Errorf("%+v", e)
	}
}
