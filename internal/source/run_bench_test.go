package source

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/gen"
	"github.com/leaderaudit/leaderaudit/parser"
)

// benchSet is a generated set of era (size bytes, seed 1), made once per
// process; LEADERAUDIT_BENCH_DIR names a directory of sets (bench/run's
// cache, ~/.cache/leaderaudit-bench) to read ERA-1 from instead.
func benchSet(b *testing.B, era gen.Era, size int64) []string {
	b.Helper()
	dir := ""
	if root := os.Getenv("LEADERAUDIT_BENCH_DIR"); root != "" {
		dir = filepath.Join(root, string(era)+"-1")
		if _, err := os.Stat(dir); err != nil {
			b.Skipf("LEADERAUDIT_BENCH_DIR: %v", err)
		}
	} else {
		key := string(era)
		if d, ok := benchSets[key]; ok {
			dir = d
		} else {
			d, err := os.MkdirTemp("", "leaderaudit-bench-")
			if err != nil {
				b.Fatal(err)
			}
			cfg := gen.DefaultConfig()
			cfg.Era, cfg.Size, cfg.Seed = era, size, 1
			if _, err := gen.Generate(cfg, d); err != nil {
				b.Fatal(err)
			}
			benchSets[key], dir = d, d
		}
	}
	var paths []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".log") {
			paths = append(paths, p)
		}
		return nil
	})
	return paths
}

var benchSets = map[string]string{}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range benchSets {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

// BenchmarkRun is the file audit's reading: every file of a generated set
// read, parsed and merged in time order, the events counted (no
// timeline). Bytes are the set's.
func BenchmarkRun(b *testing.B) {
	for _, era := range gen.Eras {
		b.Run(string(era), func(b *testing.B) {
			paths := benchSet(b, era, 48<<20)
			var size int64
			for _, p := range paths {
				if fi, err := os.Stat(p); err == nil {
					size += fi.Size()
				}
			}
			b.SetBytes(size)
			b.ReportAllocs()
			var events int64
			for b.Loop() {
				ins, _ := Discover(paths, 0)
				rd := NewReader(ins, func(string) *time.Location { return time.UTC })
				var last time.Time
				rd.Run(context.Background(), func(src int, ev *parser.Event) {
					if ev.Time.Before(last) {
						b.Fatalf("out of order: %v after %v", ev.Time, last)
					}
					last = ev.Time
					events++
				})
			}
			b.ReportMetric(float64(events)/float64(b.N), "events/op")
		})
	}
}
