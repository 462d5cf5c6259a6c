package live

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/leaderaudit/leaderaudit/internal/gen"
	"github.com/leaderaudit/leaderaudit/internal/memgoal"
	"github.com/leaderaudit/leaderaudit/tui"
)

// BenchmarkThroughput appends lines to a followed broker log as fast as
// one writer can and prints what issue 17 asks of following:
// lines/s from the first write to the last line read (target ≥ 100k),
// the process's peak memory meanwhile (peak-MiB, the Go runtime's total
// less what it returned to the system,
// target ≤ 128), and the CPU the pipeline uses once the logs go quiet
// (idle-cpu-%, over 2 s, target near zero), and lines/cpu-s, the rate
// one core would follow at (on a machine shared with other work, wall
// time says little). b.N is the number of lines;
// run it with e.g.
//
//	go test -run '^$' -bench Throughput -benchtime 100000x ./internal/live/
//
// Two bursts: broker, a busy broker's state-change.log at TRACE (the
// generator's 2.x-trace broker-1: LeaderAndIsr requests, fetcher and
// UpdateMetadata lines, 100,000 lines making about 7,200 elections), and
// open-elections, 5,000 partitions each elected again every 5,000 line
// pairs within one second of log time: at 100,000 lines 50,000 elections
// are open at once, ten per partition, which no broker logs (a restart
// elects each partition once or twice) but which bounds the open
// elections' memory. The -screen runs give every snapshot to watch's
// screen (package tui, drawn after each as bubbletea does) instead of
// dropping it: what the real watch keeps and spends besides the pipeline.
func BenchmarkThroughput(b *testing.B) {
	b.Run("broker", func(b *testing.B) { throughput(b, brokerBurst, false) })
	b.Run("open-elections", func(b *testing.B) { throughput(b, openElections, false) })
	b.Run("broker-screen", func(b *testing.B) { throughput(b, brokerBurst, true) })
	b.Run("open-elections-screen", func(b *testing.B) { throughput(b, openElections, true) })
}

// openElections writes n lines: 5,000 partitions, each elected anew every
// 5,000 line pairs, 10 µs apart.
func openElections(b *testing.B, w io.Writer, n int) {
	at := time.Now().UTC()
	const parts = 5000
	for i := 0; i < n; i += 2 {
		part, epoch := i/2%parts, i/2/parts+1
		ts := at.Add(time.Duration(i) * 10 * time.Microsecond).Format("2006-01-02 15:04:05,000")
		fmt.Fprintf(w, "[%s] INFO [Controller id=1 epoch=3] Changed partition events-%d from OnlinePartition to OnlinePartition with state LeaderAndIsr(leader=3, leaderEpoch=%d, isr=List(3, 1), zkVersion=%d) (state.change.logger)\n", ts, part, epoch, epoch)
		fmt.Fprintf(w, "[%s] INFO [Broker id=1] Follower events-%d starts at leader epoch %d from offset %d with high watermark %d. Previous leader epoch was %d. (state.change.logger)\n", ts, part, epoch, i, i, epoch-1)
	}
}

// brokerBurst writes the first n lines of a generated broker's TRACE
// state-change.log.
func brokerBurst(b *testing.B, w io.Writer, n int) {
	cfg := gen.DefaultConfig()
	cfg.Era, cfg.Noise, cfg.Seed = gen.Era2xTrace, 0, 3
	// About 900 bytes of all logs per line of broker-1's.
	cfg.Size = int64(n)*1000 + 1<<20
	dir := b.TempDir()
	if _, err := gen.Generate(cfg, dir); err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "broker-1", "state-change.log"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	lines := 0
	for ; lines < n && sc.Scan(); lines++ {
		w.Write(sc.Bytes())
		w.Write([]byte{'\n'})
	}
	if lines < n {
		b.Fatalf("the generated log has %d lines, not %d", lines, n)
	}
}

func throughput(b *testing.B, burstOf func(*testing.B, io.Writer, int), screen bool) {
	memgoal.Start() // as watch's main does
	dir := filepath.Join(b.TempDir(), "broker-1")
	if err := os.Mkdir(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "state-change.log")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	p, err := New(Config{Paths: []string{filepath.Dir(dir)}, Loc: time.UTC})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	read, following := make(chan struct{}), make(chan struct{})
	go func() {
		// A screen takes every snapshot, as watch's does.
		var m *tui.Model
		if screen {
			m = tui.New(nil, tui.Options{Loc: time.UTC, Tick: -1})
			m.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
		}
		live, closed := false, false
		for s := range p.Updates() {
			if m != nil {
				m.Apply(s)
				m.View()
			}
			if !live && s.Live {
				close(following)
				live = true
			}
			if !closed && s.Stats.Lines >= int64(b.N) {
				close(read)
				closed = true
			}
		}
	}()
	<-following

	// The lines are made first, into a file outside the followed tree
	// (held in memory, their buffer counted as the pipeline's): what is timed
	// is following them.
	burst, err := os.Create(filepath.Join(b.TempDir(), "burst"))
	if err != nil {
		b.Fatal(err)
	}
	text := bufio.NewWriter(burst)
	burstOf(b, text, b.N)
	if err := text.Flush(); err != nil {
		b.Fatal(err)
	}
	if _, err := burst.Seek(0, io.SeekStart); err != nil {
		b.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		b.Fatal(err)
	}
	block := make([]byte, 8<<10)
	// What making the burst left (the generator's) is returned first.
	debug.FreeOSMemory()
	peak := make(chan uint64)
	stopPeak := make(chan struct{})
	go func() {
		sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
		var max uint64
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64() - sample[1].Value.Uint64(); v > max {
				max = v
			}
			select {
			case <-stopPeak:
				peak <- max
				return
			case <-t.C:
			}
		}
	}()
	b.ResetTimer()
	start, cpuStart := time.Now(), cpuTime()
	// A broker's appender writes a block at a time.
	for {
		n, err := burst.Read(block)
		if n > 0 {
			if _, err := f.Write(block[:n]); err != nil {
				b.Fatal(err)
			}
		}
		if err == io.EOF {
			break
		} else if err != nil {
			b.Fatal(err)
		}
	}
	f.Close()
	burst.Close()
	select {
	case <-read:
	case <-time.After(5 * time.Minute):
		b.Fatal("lines not read in 5 min")
	}
	elapsed, cpu := time.Since(start), cpuTime()-cpuStart
	b.StopTimer()
	close(stopPeak)
	peakBytes := <-peak

	// Quiet logs: what does following cost?
	time.Sleep(500 * time.Millisecond) // the last flush and snapshots
	cpu0 := cpuTime()
	t0 := time.Now()
	time.Sleep(2 * time.Second)
	idle := float64(cpuTime()-cpu0) / float64(time.Since(t0)) * 100

	cancel()
	<-done
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "lines/s")
	// On a loaded machine wall time says little: lines per second of CPU
	// the process used is what one core would follow.
	b.ReportMetric(float64(b.N)/cpu.Seconds(), "lines/cpu-s")
	b.ReportMetric(float64(peakBytes)/(1<<20), "peak-MiB")
	b.ReportMetric(idle, "idle-cpu-%")
}

// cpuTime is the CPU time this process has used (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
