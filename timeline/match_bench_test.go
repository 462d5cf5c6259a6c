package timeline

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

// The two shapes issue 17 found quadratic (87% of the CPU in matching):
// 10,000 partitions re-elected by one request followed by 50,000
// topic-only final failures, and one partition with 40,000 epochs inside
// --quiet with an error after each. Lines are Kafka's own (2.6+ state
// change "starts at leader epoch", sample 003/015; ErrorLoggingCallback and
// Sender lines, case 1 and sample 026), parsed and fed as audit does.

var benchBase = time.Date(2024, 3, 11, 9, 0, 0, 0, time.UTC)

func stamp(ms int64) string {
	return benchBase.Add(time.Duration(ms) * time.Millisecond).Format("[2006-01-02 15:04:05,000]")
}

type src struct {
	id    int
	lines []string
}

// manyPartitions: broker 1 leads orders-0…orders-(n-1) at epoch 5, broker
// 2 follows, within one second; then errs topic-only finals over a minute.
func manyPartitions(n, errs int) []src {
	var broker, prod []string
	for p := 0; p < n; p++ {
		t := int64(p / 10)
		broker = append(broker,
			stamp(t)+" INFO [Broker id=1] Leader orders-"+strconv.Itoa(p)+" with topic id Some(SobuI6lNTXyPLx0opTXB_A) starts at leader epoch 5 from offset 0 with partition epoch 5, high watermark 0, ISR [1,2], adding replicas [] and removing replicas [] . Previous leader Some(2) and previous leader epoch was 4. (state.change.logger)",
			stamp(t+1)+" INFO [Broker id=2] Follower orders-"+strconv.Itoa(p)+" starts at leader epoch 5 from offset 0 with partition epoch 5 and high watermark 0. Current leader is 1. Previous leader Some(2) and previous leader epoch was 4. (state.change.logger)")
	}
	for i := 0; i < errs; i++ {
		t := 500 + int64(i)*60_000/int64(errs)
		prod = append(prod,
			stamp(t)+" ERROR Error when sending message to topic orders with key: null, value: 212 bytes with error: (org.apache.kafka.clients.producer.internals.ErrorLoggingCallback)",
			"org.apache.kafka.common.errors.NotLeaderForPartitionException: This server is not the leader for that topic-partition.")
	}
	return []src{{0, broker}, {1, prod}}
}

// manyEpochs: orders-0 re-elected n times 0.25 ms apart (all inside
// --quiet), a producer retry after each.
func manyEpochs(n int) []src {
	var broker, prod []string
	for e := 0; e < n; e++ {
		t := int64(e / 4)
		broker = append(broker, stamp(t)+" INFO [Broker id="+strconv.Itoa(e%3+1)+"] Leader orders-0 with topic id Some(SobuI6lNTXyPLx0opTXB_A) starts at leader epoch "+strconv.Itoa(e)+" from offset 0 with partition epoch "+strconv.Itoa(e)+", high watermark 0, ISR [1,2,3], adding replicas [] and removing replicas [] . Previous leader Some(1) and previous leader epoch was "+strconv.Itoa(e-1)+". (state.change.logger)")
		prod = append(prod, stamp(t)+" WARN [Producer clientId=connector-producer-1] Got error produce response with correlation id "+strconv.Itoa(e+1)+" on topic-partition orders-0, retrying (2147483646 attempts left). Error: NOT_LEADER_OR_FOLLOWER (org.apache.kafka.clients.producer.internals.Sender)")
	}
	return []src{{0, broker}, {1, prod}}
}

type countSink struct{ eps, errs, during, after, named int }

func (c *countSink) Episode(*Episode) { c.eps++ }
func (c *countSink) ProducerError(pe *ProducerError) {
	c.errs++
	switch pe.Match {
	case MatchDuring:
		c.during++
	case MatchAfter:
		c.after++
	}
	if pe.Election != nil {
		c.named++
	}
}
func (c *countSink) Burst(*Burst) {}

type item struct {
	src int
	ev  parser.Event
}

// parseAll parses each source and merges the events by time, as the
// reader does.
func parseSources(srcs []src) ([]item, int64) {
	var per [][]item
	var bytes int64
	for _, s := range srcs {
		p := parser.New(time.UTC)
		var out []item
		emit := func(e *parser.Event) { out = append(out, item{s.id, *e}) }
		for _, l := range s.lines {
			bytes += int64(len(l)) + 1
			p.Line([]byte(l), emit)
		}
		p.Flush(emit)
		per = append(per, out)
	}
	var all []item
	pos := make([]int, len(per))
	for {
		best := -1
		for i, l := range per {
			if pos[i] < len(l) && (best < 0 || l[pos[i]].ev.Time.Before(per[best][pos[best]].ev.Time)) {
				best = i
			}
		}
		if best < 0 {
			return all, bytes
		}
		all = append(all, per[best][pos[best]])
		pos[best]++
	}
}

func runTimeline(items []item) *countSink {
	s := &countSink{}
	tl := New(Config{}, s)
	for i := range items {
		tl.Add(items[i].src, &items[i].ev)
		if i&1023 == 0 {
			tl.Advance(items[i].ev.Time)
		}
	}
	tl.Close()
	return s
}

func benchShape(b *testing.B, srcs []src) {
	items, n := parseSources(srcs)
	b.SetBytes(n)
	b.ReportAllocs()
	b.ResetTimer()
	var s *countSink
	for i := 0; i < b.N; i++ {
		s = runTimeline(items)
	}
	b.ReportMetric(float64(s.errs), "errors")
}

func BenchmarkMatchManyPartitions(b *testing.B) {
	for _, n := range []int{5_000, 10_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchShape(b, manyPartitions(n, 5*n)) })
	}
}

func BenchmarkMatchManyEpochs(b *testing.B) {
	for _, n := range []int{20_000, 40_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchShape(b, manyEpochs(n)) })
	}
}

// The shapes' answers, small: a topic-only failure that several
// partitions' elections explain names none of them; a retry among many
// epochs of its partition names the latest that covers it.
func TestMatchShapes(t *testing.T) {
	items, _ := parseSources(manyPartitions(200, 1000))
	s := runTimeline(items)
	if s.eps != 200 || s.errs != 1000 || s.named != 0 || s.during+s.after != 1000 {
		t.Errorf("many partitions: %+v", *s)
	}
	items, _ = parseSources(manyEpochs(2000))
	s = runTimeline(items)
	if s.eps != 2000 || s.errs != 2000 || s.during != 2000 || s.named != 2000 {
		t.Errorf("many epochs: %+v", *s)
	}
}

// An error logged while its election is still being applied is "during"
// it, even though the election's last line comes after the error's (and
// after the tolerance): with SettleErrors it waits for the election to be
// quiet instead of calling it "after" what was known so far.
func TestErrorWaitsForItsElection(t *testing.T) {
	broker := []string{
		stamp(0) + " INFO [Broker id=1] Leader orders-0 with topic id Some(SobuI6lNTXyPLx0opTXB_A) starts at leader epoch 5 from offset 0 with partition epoch 5, high watermark 0, ISR [1,2], adding replicas [] and removing replicas [] . Previous leader Some(2) and previous leader epoch was 4. (state.change.logger)",
		// Another partition's line: time moves past the error.
		stamp(500) + " INFO [Broker id=1] Leader orders-1 with topic id Some(SobuI6lNTXyPLx0opTXB_A) starts at leader epoch 5 from offset 0 with partition epoch 5, high watermark 0, ISR [1,2], adding replicas [] and removing replicas [] . Previous leader Some(2) and previous leader epoch was 4. (state.change.logger)",
		stamp(900) + " INFO [Broker id=2] Follower orders-0 starts at leader epoch 5 from offset 0 with partition epoch 5 and high watermark 0. Current leader is 1. Previous leader Some(2) and previous leader epoch was 4. (state.change.logger)",
	}
	prod := []string{stamp(300) + " WARN [Producer clientId=connector-producer-1] Got error produce response with correlation id 9 on topic-partition orders-0, retrying (2 attempts left). Error: NOT_LEADER_OR_FOLLOWER (org.apache.kafka.clients.producer.internals.Sender)"}
	items, _ := parseSources([]src{{0, broker}, {1, prod}})
	for _, settle := range []bool{false, true} {
		var got []Match
		s := &recordSink{f: func(pe *ProducerError) { got = append(got, pe.Match) }}
		tl := New(Config{SkewTolerance: -1, SettleErrors: settle}, s)
		for i := range items {
			tl.Add(items[i].src, &items[i].ev)
			tl.Advance(items[i].ev.Time)
		}
		tl.Close()
		want := MatchAfter // what was known at 300 ms + tolerance
		if settle {
			want = MatchDuring
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("settle=%v: %v, want %v", settle, got, want)
		}
	}
}

type recordSink struct{ f func(*ProducerError) }

func (r *recordSink) Episode(*Episode)                {}
func (r *recordSink) ProducerError(pe *ProducerError) { r.f(pe) }
func (r *recordSink) Burst(*Burst)                    {}
