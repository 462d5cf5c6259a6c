package follow

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkLatency measures how long a line takes from the write(2) that
// appends it to its arrival on Lines, while lines are appended at 100k/s,
// one write per line (log4j with immediateFlush). b.N is the number of
// lines; ns/op is meaningless here (it is the pacing), read p50-ms, p99-ms
// and max-ms. Run it with e.g.
//
//	go test -run '^$' -bench Latency -benchtime 300000x ./follow/
func BenchmarkLatency(b *testing.B) {
	b.Run("fsnotify", func(b *testing.B) { benchLatency(b, Options{}, 100_000) })
	b.Run("poll", func(b *testing.B) { benchLatency(b, Options{Poll: true}, 100_000) })
}

func benchLatency(b *testing.B, opts Options, rate int) {
	p := filepath.Join(b.TempDir(), "server.log")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	f, err := New([]string{p}, opts)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.Run(ctx)

	lat := make([]time.Duration, 0, b.N)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for batch := range f.Lines() {
			now := time.Now()
			for _, l := range batch {
				stamp, err := strconv.ParseInt(string(l.Text[:bytes.IndexByte(l.Text, ' ')]), 10, 64)
				if err != nil {
					panic(err)
				}
				lat = append(lat, now.Sub(time.Unix(0, stamp)))
			}
			if len(lat) >= b.N {
				return
			}
		}
	}()

	fh, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer fh.Close()
	pad := " INFO [Controller id=1] Partition test-0 completed preferred replica leader election. New leader is 1 (kafka.controller.KafkaController)" + strings.Repeat(".", 20) + "\n"
	buf := make([]byte, 0, 256)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		due := start.Add(time.Duration(i) * time.Second / time.Duration(rate))
		if d := time.Until(due); d > time.Millisecond {
			time.Sleep(d)
		}
		buf = strconv.AppendInt(buf[:0], time.Now().UnixNano(), 10)
		buf = append(buf, pad...)
		if _, err := fh.Write(buf); err != nil {
			b.Fatal(err)
		}
	}
	written := time.Since(start)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		b.Fatalf("only %d of %d lines arrived", len(lat), b.N)
	}
	b.StopTimer()
	slices.Sort(lat)
	q := func(x float64) float64 {
		return float64(lat[min(len(lat)-1, int(x*float64(len(lat))))]) / float64(time.Millisecond)
	}
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(q(1), "max-ms")
	b.ReportMetric(float64(b.N)/written.Seconds(), "lines/s")
}

// BenchmarkThroughput measures reading an existing file from the start
// (FromStart), lines per second through Lines.
func BenchmarkThroughput(b *testing.B) {
	p := filepath.Join(b.TempDir(), "server.log")
	var sb strings.Builder
	for i := 0; i < b.N; i++ {
		sb.WriteString("[2019-02-25 15:00:00,000] INFO [Controller id=1] Partition test-")
		sb.WriteString(strconv.Itoa(i))
		sb.WriteString(" completed preferred replica leader election. New leader is 1 (kafka.controller.KafkaController)\n")
	}
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(sb.Len() / max(b.N, 1)))
	b.ResetTimer()
	f, err := New([]string{p}, Options{FromStart: true})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.Run(ctx)
	n := 0
	for batch := range f.Lines() {
		n += len(batch)
		if n >= b.N {
			break
		}
	}
	b.StopTimer()
	cancel()
	for range f.Lines() {
	}
}
