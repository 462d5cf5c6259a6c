package verdict

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

func TestClassifyKeys(t *testing.T) {
	for _, c := range []struct {
		key   string
		ct    uint8
		ver   string
		class keyClass
		real  string
	}{
		{"retries ", cliProducer, "1.1.1", keyNearMiss, "retries"}, // client.md §10
		{" acks", cliProducer, "2.8.0", keyNearMiss, "acks"},
		{"Retries", cliProducer, "3.6.1", keyNearMiss, "retries"},
		{"retires", cliProducer, "3.6.1", keyNearMiss, "retries"}, // two letters swapped
		{"retris", cliProducer, "3.6.1", keyNearMiss, "retries"},  // one deleted
		{"ackss", cliProducer, "3.6.1", keyNearMiss, "acks"},      // one inserted
		{"enable.idempotance", cliProducer, "3.6.1", keyNearMiss, "enable.idempotence"},
		{"max_in_flight_requests_per_connection", cliProducer, "2.0.1", keyNearMiss, "max.in.flight.requests.per.connection"},
		{"delivery.timeout.ms ", cliProducer, "2.1.1", keyNearMiss, "delivery.timeout.ms"},
		{"enable.auto.comit", cliConsumer, "2.8.0", keyNearMiss, "enable.auto.commit"},
		{"acks", cliProducer, "3.6.1", keyUnused, "acks"},                                       // 3.3+ lists known keys it did not read
		{"ssl.truststore.location", cliProducer, "2.0.1", keyUnused, "ssl.truststore.location"}, // KAFKA-10090
		{"group.id", cliAdmin, "1.0.0", keyOtherType, ""},                                       // lensesio/fast-data-dev#46
		{"group.id", cliProducer, "2.4.1", keyOtherType, ""},
		{"schema.registry.url", cliProducer, "2.4.1", keyUnknown, ""},
		{"config.storage.replication.factor", cliProducer, "2.4.1", keyUnknown, ""}, // cp-helm-charts#481
		{"spring.json.trusted.packages", cliConsumer, "3.6.1", keyUnknown, ""},
		{"rest.port", cliProducer, "2.4.1", keyUnknown, ""},
		{"delivery.timeout.ms", cliProducer, "0.10.2.1", keyTooNew, "delivery.timeout.ms"},
		{"enable.idempotence", cliProducer, "0.10.2.1", keyTooNew, "enable.idempotence"},
		{"block.on.buffer.full", cliProducer, "2.0.1", keyRemoved, "block.on.buffer.full"},
		{"block.on.buffer.full", cliProducer, "0.10.2.1", keyUnused, "block.on.buffer.full"},
	} {
		class, real := classify(c.key, c.ct, parseVersion(c.ver))
		got := ""
		if len(real) > 0 {
			got = real[0].key
		}
		if class != c.class || got != c.real {
			t.Errorf("classify(%q, %d, %s) = %d %q, want %d %q", c.key, c.ct, c.ver, class, got, c.class, c.real)
		}
	}
}

func TestOneEdit(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"retries", "retries", false}, {"retires", "retries", true}, {"retrie", "retries", true}, {"retriess", "retries", true},
		{"retriex", "retries", true}, {"rteries", "retries", true}, {"rtreies", "retries", false}, {"acks", "ack", true},
		{"acks", "a", false}, {"", "a", true}, {"linger.ms", "linger.ns", true}, {"ab", "ba", true}, {"abc", "cba", false},
	} {
		if got := oneEdit(c.a, c.b); got != c.want {
			t.Errorf("oneEdit(%q, %q) = %v", c.a, c.b, got)
		}
		if got := oneEdit(c.b, c.a); got != c.want {
			t.Errorf("oneEdit(%q, %q) = %v", c.b, c.a, got)
		}
	}
}

func TestDescribeKey(t *testing.T) {
	for key, want := range map[string]string{
		"retries ":          "a trailing space",
		" retries":          "a leading space",
		"Retries":           "capitals",
		"retires":           "one letter off",
		"retry_backoff_ms":  "'_' or '-' for '.'",
		"retry. backoff.ms": "a space inside",
	} {
		real := "retries"
		if strings.Contains(key, "backoff") {
			real = "retry.backoff.ms"
		}
		if got := describeKey(key, real); got != want {
			t.Errorf("describeKey(%q) = %q, want %q", key, got, want)
		}
	}
}

// The table against real config blocks: every key a ProducerConfig dump of
// a known version printed is a row defined at that version, and the other
// way round (logAll prints every defined key).
func TestSettingKeysMatchRealDumps(t *testing.T) {
	for _, c := range []struct{ file, version string }{
		{"../../testdata/incidents/case1-0.10.2-no-retries/app/producer.log", "0.10.2.1"}, // the real 0.10.2.1 key set
		{"../../testdata/incidents/case3-acks1-zk-expiry/app/ingest.log", "2.8.0"},
		{"../../testdata/incidents/case2-spring-idempotent-retries/app/producer.log", "3.6.1"},
	} {
		files, _ := filepath.Glob(filepath.Join(filepath.Dir(c.file), "*.log"))
		var dump map[string]bool
		for _, name := range files {
			if d := dumpKeys(t, name); len(d) > 0 {
				dump = d
				break
			}
		}
		if dump == nil {
			t.Errorf("%s: no ProducerConfig block", c.file)
			continue
		}
		v := parseVersion(c.version)
		table := map[string]bool{}
		for _, s := range settingKeys {
			if s.client == cliProducer && s.definedAt(v) {
				table[s.key] = true
			}
		}
		var missing, extra []string
		for k := range dump {
			if !table[k] {
				missing = append(missing, k)
			}
		}
		for k := range table {
			if !dump[k] {
				extra = append(extra, k)
			}
		}
		sort.Strings(missing)
		sort.Strings(extra)
		if len(missing)+len(extra) > 0 {
			t.Errorf("%s (%s): in the dump, not the table: %v; in the table, not the dump: %v", c.file, c.version, missing, extra)
		}
	}
}

// dumpKeys reads the keys of the first "ProducerConfig values:" block of a
// log (log4j tab-indented lines, or Spring Boot's console layout).
func dumpKeys(t *testing.T, name string) map[string]bool {
	fh, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	in := false
	keys := map[string]bool{}
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.Contains(l, "ProducerConfig values:"):
			in = true
		case in && strings.HasPrefix(l, "\t"):
			k, _, _ := strings.Cut(strings.TrimSpace(l), " =")
			keys[k] = true
		case in:
			return keys
		}
	}
	return keys
}

func TestMisspelledConfigConsumerWithoutBlock(t *testing.T) {
	x := newFx(t, Config{})
	x.tl.Stats.UnknownConfigs = append(x.tl.Stats.UnknownConfigs,
		timeline.UnknownConfig{Class: "ConsumerConfig", Keys: map[string]string{"enable.auto.comit": "", "spring.json.trusted.packages": ""}, Ref: x.ref(4)},
		timeline.UnknownConfig{Class: "ConsumerConfig", Keys: map[string]string{"enable.auto.comit": ""}, Ref: x.ref(4)},
		timeline.UnknownConfig{Class: "DistributedConfig", Keys: map[string]string{"plugin.path": ""}, Ref: x.ref(4)},
	)
	fs := x.finish()
	f := one(t, fs, CodeMisspelledConfig)
	has(t, f, "consumer in file4.log", "'enable.auto.comit'", "one letter off", "the setting is enable.auto.commit",
		"enable.auto.commit=true (the default)", "records can be processed twice", "logged 2 times")
	u := one(t, fs, CodeUnknownConfig)
	has(t, u, "'spring.json.trusted.packages'")
	if u.Severity != Info || strings.Contains(u.Message, "plugin.path") {
		t.Errorf("%s %s", u.Severity, u.Message)
	}
}

func TestMisspelledConfigValueMeant(t *testing.T) {
	// 0.10.0 prints the value given ("The configuration retries  = 3 ...").
	x := newFx(t, Config{})
	x.client("", "0.10.0.1", 9, cfg("retries", "0", "retry.backoff.ms", "100"))
	x.tl.Stats.UnknownConfigs = append(x.tl.Stats.UnknownConfigs,
		timeline.UnknownConfig{Class: "ProducerConfig", Producer: true, Keys: map[string]string{"retries ": "3"}, Ref: x.ref(9)})
	f := one(t, x.finish(), CodeMisspelledConfig)
	has(t, f, "'retries '", "(3 was meant)", "ran with retries=0")
	if f.Data["meant"] != "3" || f.Data["value"] != "0" {
		t.Errorf("data %v", f.Data)
	}
}

func TestTooNewProducerSetting(t *testing.T) {
	x := newFx(t, Config{})
	x.client("app", "0.10.2.1", 9, cfg("retries", "5", "retry.backoff.ms", "100"))
	x.tl.Stats.UnknownConfigs = append(x.tl.Stats.UnknownConfigs,
		timeline.UnknownConfig{Class: "ProducerConfig", ClientID: "app", Producer: true, Keys: map[string]string{"delivery.timeout.ms": ""}, Ref: x.ref(9)})
	f := one(t, x.finish(), CodeMisspelledConfig)
	has(t, f, "producer app", "delivery.timeout.ms, which exists only from Kafka 2.1", "retries × retry.backoff.ms", "retries=5")
	none(t, x.finish(), CodeUnknownConfig)
}

// Through the parser and the timeline: a consumer's block says what it ran
// with (Spring turns auto-commit off, so the default would be wrong).
func TestMisspelledConfigConsumerBlock(t *testing.T) {
	p := parser.New(time.UTC)
	tl := timeline.New(timeline.Config{}, nil)
	emit := func(e *parser.Event) { tl.Add(4, e) }
	for _, l := range []string{
		`[2021-06-14 10:12:01,001] INFO ConsumerConfig values: `,
		"\tclient.id = consumer-billing-1",
		"\tenable.auto.commit = false",
		"\tgroup.id = billing",
		` (org.apache.kafka.clients.consumer.ConsumerConfig)`,
		`[2021-06-14 10:12:01,090] WARN The configuration 'enable.auto.comit' was supplied but isn't a known config. (org.apache.kafka.clients.consumer.ConsumerConfig)`,
	} {
		p.Line([]byte(l), emit)
	}
	p.Flush(emit)
	tl.Close()
	fs := New(Config{}).Finish(tl, func(int) string { return "billing.log" }, nil)
	f := one(t, fs, CodeMisspelledConfig)
	has(t, f, "consumer consumer-billing-1 (group billing)", "the setting is enable.auto.commit", "ran with enable.auto.commit=false (its config block)")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 6 {
		t.Errorf("evidence %v", f.Evidence)
	}
}

// Connect hands its worker settings to its producer (cp-helm-charts#481,
// quoted) and schema-registry its own to the admin client
// (Dabz/kafka-security-playbook#81): many unknown keys, none a near miss:
// one info finding per client, no warning.
func TestFrameworkKeysAreNoWarning(t *testing.T) {
	p := parser.New(time.UTC)
	tl := timeline.New(timeline.Config{}, nil)
	emit := func(e *parser.Event) { tl.Add(2, e) }
	for _, l := range []string{
		`[2020-12-10 08:33:10,025] WARN The configuration 'config.storage.replication.factor' was supplied but isn't a known config. (org.apache.kafka.clients.producer.ProducerConfig)`,
		`[2020-12-10 08:33:10,025] WARN The configuration 'rest.port' was supplied but isn't a known config. (org.apache.kafka.clients.producer.ProducerConfig)`,
		`[2020-12-10 08:33:10,025] WARN The configuration 'internal.key.converter' was supplied but isn't a known config. (org.apache.kafka.clients.producer.ProducerConfig)`,
		`[2020-12-10 08:33:10,025] WARN The configuration 'key.converter.schemas.enable' was supplied but isn't a known config. (org.apache.kafka.clients.producer.ProducerConfig)`,
		`[2020-12-10 08:33:10,025] WARN The configuration 'value.converter.schema.registry.url' was supplied but isn't a known config. (org.apache.kafka.clients.producer.ProducerConfig)`,
		`[2024-07-25 16:05:27,150] WARN The configuration 'replication.factor' was supplied but isn't a known config. (org.apache.kafka.clients.admin.AdminClientConfig)`,
		`[2024-07-25 16:05:27,150] WARN The configuration 'listeners' was supplied but isn't a known config. (org.apache.kafka.clients.admin.AdminClientConfig)`,
		`[2024-07-25 16:05:27,151] WARN The configuration 'authentication.realm' was supplied but isn't a known config. (org.apache.kafka.clients.admin.AdminClientConfig)`,
	} {
		p.Line([]byte(l), emit)
	}
	p.Flush(emit)
	tl.Close()
	fs := New(Config{}).Finish(tl, func(int) string { return "connect.log" }, nil)
	none(t, fs, CodeMisspelledConfig)
	got := find(fs, CodeUnknownConfig)
	if len(got) != 2 {
		t.Fatalf("%d unknown-config findings:\n%s", len(got), strings.Join(Lines(fs), "\n"))
	}
	for _, f := range got {
		if f.Severity != Info {
			t.Errorf("%s: %s", f.Severity, f.Message)
		}
	}
	has(t, got[0], "admin client in connect.log", "3 keys", "'authentication.realm'")
	has(t, got[1], "producer in connect.log", "5 keys", "'rest.port'")
}
