package parser

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// sampleLines reads a sample of ../testdata/samples by its number.
func sampleLines(t *testing.T, id string) []string {
	t.Helper()
	m, _ := filepath.Glob("../testdata/samples/" + id + "-*.log")
	if len(m) != 1 {
		t.Fatalf("sample %s: %v", id, m)
	}
	f, err := os.Open(m[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// errs returns the producer errors among events, one string each:
// "final|retry T-P ERROR left=N lines=a,b".
func errs(evs []Event) []string {
	var out []string
	for _, e := range evs {
		if e.Kind != KindProducerError {
			continue
		}
		what := "retry"
		if e.Final {
			what = "final"
		}
		part := fmt.Sprint(e.Partition)
		if e.Partition == Unknown {
			part = "?"
			if len(e.Candidates) > 0 {
				part = fmt.Sprint(e.Candidates)
			}
		}
		lines := e.Lines
		if lines == nil {
			lines = []int64{e.Line}
		}
		ls := make([]string, len(lines))
		for i, l := range lines {
			ls[i] = fmt.Sprint(l)
		}
		out = append(out, fmt.Sprintf("%s %s %s-%s %s left=%d lines=%s", what, e.ClientID, e.Topic, part, e.Error, e.AttemptsLeft, strings.Join(ls, ",")))
	}
	return out
}

func checkErrs(t *testing.T, got []Event, want ...string) {
	t.Helper()
	if g := errs(got); !slices.Equal(g, want) {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(g, "\n  "), strings.Join(want, "\n  "))
	}
}

// Sample 023 (Spring Cloud Stream issue 1928): LoggingProducerListener's
// ERROR naming only the topic, then the Sender's "Received invalid
// metadata error … on partition topic-2.name-48" for the same response,
// twice: two failed sends, not four errors.
func TestSpringListenerAndInvalidMetadataAreOneFailure(t *testing.T) {
	checkErrs(t, parseAll(sampleLines(t, "023")...),
		"final producer-3 topic-2.name-48 NOT_LEADER_FOR_PARTITION left=-1 lines=1,2",
		"final producer-3 topic-2.name-48 NOT_LEADER_FOR_PARTITION left=-1 lines=3,4")
}

// Sender.completeBatch fails the batch, then logs the invalid-metadata
// line: alone (no "Got error … retrying" before it), it is the failure.
func TestInvalidMetadataAloneIsFinal(t *testing.T) {
	checkErrs(t, parseAll(sampleLines(t, "023")[1]),
		"final producer-3 topic-2.name-48 NOT_LEADER_FOR_PARTITION left=-1 lines=1")
}

// Sample 021 (streamnative/kop 1437, a 2.0 console producer): "Got error
// … retrying (2 attempts left)" and its "Received invalid metadata error"
// are one retry; the next "Got error" is the next one.
func TestRetryAndItsDetailAreOneRetry(t *testing.T) {
	checkErrs(t, parseAll(sampleLines(t, "021")...),
		"retry console-producer test_4-0 NOT_LEADER_FOR_PARTITION left=2 lines=1,2",
		"retry console-producer test_4-0 NOT_LEADER_FOR_PARTITION left=1 lines=3")
}

// The two lines of one response paired by order, not by time: 15 ms apart
// (as real logs show them) is still one retry; a retry for another
// partition logged in between does not take the detail.
func TestPairingByOrderNotTime(t *testing.T) {
	l := sampleLines(t, "026")
	got := errs(parseAll(l[5], strings.Replace(strings.Replace(l[5], "__mongodb_heartbeats-0", "__mongodb_heartbeats-1", 1), "4928", "4929", 1),
		strings.Replace(l[6], "11:07:09,456", "11:07:09,471", 1)))
	want := []string{
		"retry connector-producer-MONGODB_DEV01_APPROVAL_CHAIN_INSTANCE-0 __mongodb_heartbeats-0 NOT_LEADER_OR_FOLLOWER left=2147483646 lines=1,3",
		"retry connector-producer-MONGODB_DEV01_APPROVAL_CHAIN_INSTANCE-0 __mongodb_heartbeats-1 NOT_LEADER_OR_FOLLOWER left=2147483646 lines=2",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// Sample 013 (a 4.1 console producer): three retries of
// performance-test-0 down to 0 attempts left, then ErrorLoggingCallback's
// ERROR naming only the topic with the exception on the next line: the
// batch whose retries ran out is the one that failed.
func TestTopicOnlyFinalTakesTheExhaustedBatch(t *testing.T) {
	checkErrs(t, parseAll(sampleLines(t, "013")...),
		"retry console-producer performance-test-0 NOT_ENOUGH_REPLICAS left=2 lines=1",
		"retry console-producer performance-test-0 NOT_ENOUGH_REPLICAS left=1 lines=2",
		"retry console-producer performance-test-0 NOT_ENOUGH_REPLICAS left=0 lines=3",
		"final console-producer performance-test-0 NOT_ENOUGH_REPLICAS left=-1 lines=4,5")
}

// Two batches of one topic ran out of retries (013's line shapes, on
// partitions 0 and 1), then two topic-only failures: the lines cannot say
// which is which, so both are partition null with both candidates.
func TestAmbiguousFinalsGiveCandidates(t *testing.T) {
	l := sampleLines(t, "013")
	p1 := strings.Replace(strings.Replace(l[2], "performance-test-0", "performance-test-1", 1), "21,247", "21,250", 1)
	final2 := strings.Replace(l[3], "21,659", "21,662", 1)
	checkErrs(t, parseAll(l[2], p1, l[3], l[4], final2, l[4]),
		"retry console-producer performance-test-0 NOT_ENOUGH_REPLICAS left=0 lines=1",
		"retry console-producer performance-test-1 NOT_ENOUGH_REPLICAS left=0 lines=2",
		"final  performance-test-[0 1] NOT_ENOUGH_REPLICAS left=-1 lines=3,4",
		"final  performance-test-[0 1] NOT_ENOUGH_REPLICAS left=-1 lines=5,6")
}

// Events held behind an open piece come out in the source's order.
func TestAssemblyKeepsEventOrder(t *testing.T) {
	l := sampleLines(t, "021")
	ver := "[2022-08-08 07:18:15,988] INFO Kafka version : 2.0.0 (org.apache.kafka.common.utils.AppInfoParser)"
	evs := parseAll(l[0], ver, l[1])
	var kinds []Kind
	for _, e := range evs {
		kinds = append(kinds, e.Kind)
	}
	if !slices.Equal(kinds, []Kind{KindProducerError, KindClientVersion}) {
		t.Errorf("kinds %v", kinds)
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].Time.Before(evs[i-1].Time) {
			t.Errorf("event %d out of order", i)
		}
	}
}

// A whole record indented (pasted into a ticket, quoted in a document) is
// a record: sample 013's lines with four spaces before each give the same
// events as the lines themselves; its exception line, indented, stays the
// record's continuation, and a stack frame is never read as a record.
func TestIndentedRecordIsARecord(t *testing.T) {
	plain := sampleLines(t, "013")
	var indented []string
	for _, l := range plain {
		indented = append(indented, "    "+l)
	}
	indented = append(indented, "\tat org.apache.kafka.clients.producer.internals.Sender.run(Sender.java:240)")
	want, got := errs(parseAll(plain...)), errs(parseAll(indented...))
	if len(want) != 4 || !slices.Equal(got, want) {
		t.Errorf("indented\n  %s\nplain\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if indentedRecord([]byte("\tat org.apache.kafka.clients.producer.internals.Sender.run(Sender.java:240)")) != nil ||
		indentedRecord([]byte("\tbootstrap.servers = [kafka-1:9092, kafka-2:9092]")) != nil {
		t.Error("a stack frame or config line read as a record")
	}
}

// Exception lines with no timestamped record above them (client.md §6's
// final-failure exceptions, alone in a file) are a producer's errors that
// cannot be dated: counted as such, not as lines nobody understood.
func TestUndatedExceptionLines(t *testing.T) {
	p := New(time.UTC)
	var evs []Event
	emit := func(e *Event) { evs = append(evs, *e) }
	for _, l := range []string{
		"org.apache.kafka.common.errors.NotLeaderForPartitionException: This server is not the leader for that topic-partition.",
		"org.apache.kafka.common.errors.TimeoutException: Expiring 1 record(s) for orders-3:120002 ms has passed since batch creation",
		"\tat org.apache.kafka.clients.producer.internals.Sender.run(Sender.java:240)",
	} {
		p.Line([]byte(l), emit)
	}
	p.Flush(emit)
	if p.Stats.UndatedErrors != 2 || p.Stats.Eras&EraProducer == 0 || p.Stats.NotUnderstood != 1 || len(evs) != 0 {
		t.Errorf("undated %d, eras %b, not understood %d, events %d", p.Stats.UndatedErrors, p.Stats.Eras, p.Stats.NotUnderstood, len(evs))
	}
}

// A batch's final failure comes at least retry.backoff.ms (3.7+: less
// 20% jitter) after its last retried attempt: the resend waits that long.
// With the client's setting known (case 5's ledger.log config block,
// retry.backoff.ms = 100), a batch that ran out of retries 60 ms before a
// topic-only failure cannot be it; without the block, both stay candidates.
func TestBackoffRulesOutABatch(t *testing.T) {
	l := sampleLines(t, "013")
	p1 := strings.Replace(strings.Replace(l[2], "performance-test-0", "performance-test-1", 1), "21,247", "21,600", 1)
	seq := []string{l[2], p1, l[3], l[4]} // exhausted 0 at .247, 1 at .600, final at .659
	cfg := []string{"[2025-10-16 16:07:20,000] INFO ProducerConfig values: ", "\tclient.id = console-producer", "\tretry.backoff.ms = 100"}
	checkErrs(t, parseAll(append(cfg, seq...)...),
		"retry console-producer performance-test-0 NOT_ENOUGH_REPLICAS left=0 lines=4",
		"retry console-producer performance-test-1 NOT_ENOUGH_REPLICAS left=0 lines=5",
		"final console-producer performance-test-0 NOT_ENOUGH_REPLICAS left=-1 lines=6,7")
	checkErrs(t, parseAll(seq...),
		"retry console-producer performance-test-0 NOT_ENOUGH_REPLICAS left=0 lines=1",
		"retry console-producer performance-test-1 NOT_ENOUGH_REPLICAS left=0 lines=2",
		"final  performance-test-[0 1] NOT_ENOUGH_REPLICAS left=-1 lines=3,4")
}
