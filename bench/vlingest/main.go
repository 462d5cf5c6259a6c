// Command vlingest sends log files to a VictoriaLogs as a shipper would
// (see internal/vltest.Ingest), for bench/run --vlogs and the README's
// worked example.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/vltest"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:9428", "VictoriaLogs base URL")
	tz := flag.String("tz", "UTC", "zone of the logs' timestamps that carry none")
	noOffset := flag.Bool("no-offset", false, "send no log.offset (as Vector, Fluent Bit and Promtail by default): rows with the same _time then come back in no particular order")
	var fields multi
	flag.Var(&fields, "field", "extra stream field NAME=VALUE for every file (repeatable)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: vlingest [-url URL] [-tz ZONE] [-no-offset] [-field NAME=VALUE]... DIR...")
		flag.PrintDefaults()
	}
	flag.Parse()
	loc, err := time.LoadLocation(*tz)
	if err != nil {
		fail(err)
	}
	extra := map[string]string{}
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			fail(fmt.Errorf("-field %q: want NAME=VALUE", f))
		}
		extra[k] = v
	}
	var files []vltest.File
	for _, dir := range flag.Args() {
		fs, err := vltest.Files(dir, extra)
		if err != nil {
			fail(err)
		}
		files = append(files, fs...)
	}
	if len(files) == 0 {
		flag.Usage()
		os.Exit(2)
	}
	start := time.Now()
	rows, size, err := vltest.IngestWith(context.Background(), strings.TrimSuffix(*url, "/"), vltest.Shipper{Offset: !*noOffset}, files, vltest.StreamFields(extra), loc)
	if err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "vlingest: %d files, %d rows, %.1f MB in %.1f s\n", len(files), rows, float64(size)/1e6, time.Since(start).Seconds())
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "vlingest:", err)
	os.Exit(1)
}
