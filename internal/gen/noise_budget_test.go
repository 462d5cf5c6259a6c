package gen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With --noise 2 the 2.6-info data set for seed 11 never finished: a
// controller.log's noise yield went stale and the events asked of it grew
// without end (3.6 GB resident, no truth.jsonl).
func TestLowNoiseStaysInBudget(t *testing.T) {
	for _, era := range Eras {
		t.Run(string(era), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Era = era
			cfg.Seed = 11
			cfg.Noise = 2
			cfg.Size = 8 << 20
			dir := t.TempDir()
			tr, err := Generate(cfg, dir)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(dir, "truth.jsonl")); err != nil {
				t.Fatal(err)
			}
			var onDisk int64
			err = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
				if err == nil && !fi.IsDir() && strings.HasSuffix(p, ".log") {
					onDisk += fi.Size()
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if onDisk != tr.Bytes {
				t.Errorf("log files hold %d bytes, truth says %d", onDisk, tr.Bytes)
			}
			if onDisk < cfg.Size/2 || onDisk > cfg.Size*3/2 {
				t.Errorf("wrote %d bytes of logs for a target of %d", onDisk, cfg.Size)
			}
			if r := float64(tr.NoiseRecords) / float64(tr.LeadershipRecords); r < 1 || r > 3 {
				t.Errorf("%.2f unrelated records per incident record, want about %d", r, cfg.Noise)
			}
		})
	}
}

// A sink whose noise has almost never written anything (a controller.log
// of a broker that is not the controller) must not be asked for more
// events in one window than the cluster owes records in it: the window's
// event times are held in memory.
func TestStaleNoiseYieldBounded(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Size = 1 << 20
	cfg.Noise = 0 // the baseline's records owe nothing: exactly 1000 are owed
	g := &generator{
		cfg: cfg, dir: t.TempDir(), era: cfg.Era, loc: cfg.Location,
		r:   newRNG(cfg.Seed, "sim"),
		rnT: newRNG(cfg.Seed, "timing"),
		rnN: newRNG(cfg.Seed, "noise-alloc"),
		tr:  &Truth{Location: cfg.Location},
	}
	defer g.closeAll()
	if err := g.setup(); err != nil {
		t.Fatal(err)
	}
	start := cfg.Start.UnixMilli()
	g.wStart = start
	g.zkBaseline(start)
	var stale *sink
	for _, b := range g.brokers {
		if b.id != g.ctl {
			stale = b.ctl
			break
		}
	}
	const pastEvents = 1 << 18
	stale.noiseEvents, stale.noiseRecords = pastEvents, 1
	g.noiseOwed = 1000
	g.advance(start + 60_000)
	if n := stale.noiseEvents - pastEvents; n > 1000 {
		t.Errorf("%s ran %d noise events in a window owing 1000 records", stale.name, n)
	}
}
