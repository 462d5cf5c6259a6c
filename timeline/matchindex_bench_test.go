package timeline

import (
	"fmt"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// startOrder: n partitions of topic t, one election each, a millisecond
// apart (the 100,000-partition hostile test's line, a 2.x state change
// "Leader t-P starts at leader epoch 1"), and after every tenth a
// topic-only final failure of the producer (ErrorLoggingCallback, case 1)
// that the topic's open elections explain. With wrap, both logs' times go
// back to the first line's after 60% of the lines, as the hostile test's
// log does (100 seconds of lines on a clock that wraps each minute): each
// of the last 40% starts before every election already indexed.
func startOrder(n int, wrap bool) []src {
	var broker, prod []string
	for i := 0; i < n; i++ {
		ms := int64(i)
		if wrap {
			ms %= int64(n) * 6 / 10
		}
		broker = append(broker, stamp(ms)+" INFO [Broker id=0] Leader t-"+strconv.Itoa(i)+" starts at leader epoch 1 from offset 0 with high watermark 0 ISR [0] addingReplicas [] removingReplicas []. Previous leader epoch was 0. (state.change.logger)")
		if i%10 == 9 {
			prod = append(prod,
				stamp(ms)+" ERROR Error when sending message to topic t with key: null, value: 212 bytes with error: (org.apache.kafka.clients.producer.internals.ErrorLoggingCallback)",
				"org.apache.kafka.common.errors.NotLeaderForPartitionException: This server is not the leader for that topic-partition.")
		}
	}
	return []src{{0, broker}, {1, prod}}
}

// The match index's cost per election and per error does not grow with
// the number of open elections, in Start order or not: ns/election at
// 10,000 and 100,000 partitions, for monotonic starts and for starts that
// go back (which the array this index replaced made quadratic: each of
// them moved every later slot).
func BenchmarkMatchStartOrder(b *testing.B) {
	for _, shape := range []string{"monotonic", "wrapping"} {
		for _, n := range []int{10_000, 100_000} {
			b.Run(fmt.Sprintf("%s/%d", shape, n), func(b *testing.B) {
				items, bytes := parseSources(startOrder(n, shape == "wrapping"))
				b.SetBytes(bytes)
				b.ReportAllocs()
				b.ResetTimer()
				cpu := cpuTime()
				var s *countSink
				for i := 0; i < b.N; i++ {
					s = runTimeline(items)
				}
				b.StopTimer()
				cpu = cpuTime() - cpu
				if s.eps != n || s.errs != n/10 {
					b.Fatalf("%d elections, %d errors for %d partitions", s.eps, s.errs, n)
				}
				per := float64(b.Elapsed()) / float64(b.N)
				b.ReportMetric(per/float64(n), "ns/election")
				// On a loaded machine wall time says little; the CPU the
				// process used does (the collector's included).
				b.ReportMetric(float64(cpu)/float64(b.N*n), "cpu-ns/election")
			})
		}
	}
}

// cpuTime is the CPU time this process has used (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
