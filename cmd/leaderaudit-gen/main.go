// Command leaderaudit-gen writes a deterministic, synthetic but
// format-exact set of Kafka broker, controller and producer logs together
// with the ground truth (truth.jsonl) of every leader election in them.
//
//	leaderaudit-gen --era 2.6-info --brokers 3 --partitions 12 --topics 4 \
//	    --seed 1 --size 1GB --noise 20 --start 2024-03-11T10:00:00 --tz UTC --out DIR
//
// See the documentation of package gen for the file layout and formats.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/gen"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("leaderaudit-gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	def := gen.DefaultConfig()
	era := fs.String("era", string(def.Era), "log dialect: 0.10, 2.x-trace, 2.6-info or kraft")
	brokers := fs.Int("brokers", def.Brokers, "number of brokers (ids 1..N)")
	partitions := fs.Int("partitions", def.Partitions, "partitions per application topic")
	topics := fs.Int("topics", def.Topics, "number of application topics")
	offsets := fs.Int("offsets-partitions", def.OffsetsPartitions, "partitions of __consumer_offsets (0: no such topic)")
	controllers := fs.Int("controllers", def.Controllers, "KRaft only: controller quorum size (ids 3000..)")
	producers := fs.Int("producers", def.Producers, "number of producer applications")
	layout := fs.String("producer-layout", def.ProducerLayout, "producer log layout: log4j or spring")
	seed := fs.Int64("seed", def.Seed, "random seed; same seed and flags give byte-identical output")
	size := fs.String("size", "64MB", "approximate total size of the log files (e.g. 1GB, 500MB, 64MiB)")
	noise := fs.Int("noise", def.Noise, "unrelated lines per leadership line")
	start := fs.String("start", "2024-03-11T10:00:00", "wall-clock time of the first line, in --tz")
	tz := fs.String("tz", "UTC", "time zone of all timestamps (IANA name, e.g. Europe/Berlin)")
	out := fs.String("out", "", "output directory (required)")
	quiet := fs.Bool("quiet", false, "do not print the summary")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: leaderaudit-gen --out DIR [flags]\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "leaderaudit-gen: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *out == "" {
		fmt.Fprintln(stderr, "leaderaudit-gen: --out is required")
		fs.Usage()
		return 2
	}
	cfg := def
	var err error
	if cfg.Era, err = gen.ParseEra(*era); err != nil {
		return fail(stderr, err)
	}
	if cfg.Location, err = time.LoadLocation(*tz); err != nil {
		return fail(stderr, fmt.Errorf("--tz: %w", err))
	}
	if cfg.Start, err = gen.ParseStart(*start, cfg.Location); err != nil {
		return fail(stderr, err)
	}
	if cfg.Size, err = gen.ParseSize(*size); err != nil {
		return fail(stderr, fmt.Errorf("--size: %w", err))
	}
	cfg.Brokers, cfg.Partitions, cfg.Topics = *brokers, *partitions, *topics
	cfg.OffsetsPartitions, cfg.Controllers, cfg.Producers = *offsets, *controllers, *producers
	cfg.ProducerLayout, cfg.Seed, cfg.Noise = *layout, *seed, *noise
	if err := cfg.Validate(); err != nil {
		return fail(stderr, err)
	}
	began := time.Now()
	tr, err := gen.Generate(cfg, *out)
	if err != nil {
		return fail(stderr, err)
	}
	if !*quiet {
		el := time.Since(began)
		var during, after, none int
		for _, pe := range tr.ProducerErrors {
			switch pe.Match {
			case gen.MatchDuring:
				during++
			case gen.MatchAfter:
				after++
			default:
				none++
			}
		}
		fmt.Fprintf(stdout, "wrote %d files, %d bytes, %d lines to %s in %.1fs (%.0f MB/s)\n",
			len(tr.Files), tr.Bytes, tr.Lines, *out, el.Seconds(), float64(tr.Bytes)/1e6/el.Seconds())
		isrOnly := 0
		for _, e := range tr.Elections {
			if e.PreviousLeader == e.Leader {
				isrOnly++
			}
		}
		fmt.Fprintf(stdout, "truth: %d elections (%d with the same leader), %d producer errors (%d during, %d after, %d none)\n",
			len(tr.Elections), isrOnly, len(tr.ProducerErrors), during, after, none)
		if tr.LeadershipRecords > 0 {
			fmt.Fprintf(stdout, "records: %d from incidents, %d unrelated (%.1f per incident record)\n",
				tr.LeadershipRecords, tr.NoiseRecords, float64(tr.NoiseRecords)/float64(tr.LeadershipRecords))
		}
	}
	return 0
}

func fail(w io.Writer, err error) int {
	fmt.Fprintf(w, "leaderaudit-gen: %v\n", err)
	return 1
}
