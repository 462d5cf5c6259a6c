package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/report"
	"github.com/leaderaudit/leaderaudit/internal/skew"
	"github.com/leaderaudit/leaderaudit/internal/source"
	"github.com/leaderaudit/leaderaudit/internal/textfmt"
	"github.com/leaderaudit/leaderaudit/internal/verdict"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// AuditCmd is "leaderaudit audit".
type AuditCmd struct {
	Paths      []string      `arg:"" optional:"" name:"path" help:"Log files or directories (walked for state-change.log, controller.log, server.log, their rotations and .gz, and other *.log/*.txt/*.out), or - for stdin (the default when there is no --from)."`
	Format     string        `enum:"text,json" default:"text" help:"Output: text report or JSON lines (one object a line, each with \"type\")."`
	Read       readFlags     `embed:""`
	Since      string        `help:"Report elections, producer errors and broker events at or after this time: RFC 3339 (2019-02-25T15:00:00Z), 'YYYY-MM-DD HH:MM:SS' in --tz, or relative to now (2h, 30m). The logs are still read whole, so what came before (earlier epochs, client configs) still counts."`
	Until      string        `help:"Report only what happened before this time (same forms as --since)."`
	Topic      string        `help:"Report only partitions of topics matching this glob (e.g. 'orders*')."`
	Partition  int32         `default:"-1" help:"Report only this partition number."`
	Full       bool          `help:"Text report: list every election's per-broker timeline, every producer error, burst, broker event and evidence line (by default each list keeps its top few)."`
	Timeline   timelineFlags `embed:""`
	FailOn     string        `name:"fail-on" help:"Exit 3 when a finding is at or above this severity (info, warning, critical) or has one of these codes (comma-separated), e.g. --fail-on critical or --fail-on retry-budget-exceeded,unclean-election."`
	Verdict    verdictFlags  `embed:""`
	Follow     bool          `help:"After reading the files (from --since, else from their start), keep following them and stream elections and producer errors as they finish (--format json: NDJSON). Stop with Ctrl-C."`
	Store      storeFlags    `embed:""`
	CPUProfile string        `name:"cpuprofile" hidden:"" help:"Write a CPU profile here (for development)."`
	MemProfile string        `name:"memprofile" hidden:"" help:"Write a heap profile here at the end (for development)."`
}

// Run executes the audit. SIGINT and SIGTERM stop the reading; the report
// covers what was read (following ends with Ctrl-C by design: a clean
// exit there).
func (a *AuditCmd) Run(io stdio) (err error) {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	sigs := make(chan os.Signal, 1)
	caught := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		if s, ok := <-sigs; ok {
			caught <- s
			stop()
		}
	}()
	if a.CPUProfile != "" {
		f, err := os.Create(a.CPUProfile)
		if err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer func() {
			pprof.StopCPUProfile()
			if cerr := f.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("--cpuprofile: %w", cerr)
			}
		}()
	}
	if a.Follow {
		err = a.runFollow(ctx, io.out, io.err)
	} else {
		err = a.run(ctx, io.in, io.out, io.err)
	}
	signal.Stop(sigs)
	close(sigs)
	select {
	case got := <-caught:
		var in interrupted
		if !a.Follow && (err == nil || errors.As(err, &in)) {
			err = interrupted{got}
		}
	default:
	}
	return err
}

// parseWhen reads --since/--until.
func parseWhen(s string, loc *time.Location, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("%q: a time back from now is positive (2h: two hours ago)", s)
		}
		return now.Add(-d), nil
	}
	if strings.HasSuffix(s, "d") {
		if n, err := strconv.Atoi(strings.TrimSuffix(s, "d")); err == nil || errors.Is(err, strconv.ErrRange) {
			// time.Duration holds 292 years: more days overflowed into a
			// time after now.
			const maxDays = int(math.MaxInt64 / int64(24*time.Hour))
			switch {
			case n < 0:
				return time.Time{}, fmt.Errorf("%q: a time back from now is positive (7d: a week ago)", s)
			case err != nil || n > maxDays:
				return time.Time{}, fmt.Errorf("%q: more than %d days back (use a date)", s, maxDays)
			}
			return now.Add(-time.Duration(n) * 24 * time.Hour), nil
		}
	}
	for _, f := range []string{time.RFC3339Nano, time.RFC3339} {
		if t, err := time.Parse(f, s); err == nil {
			return t, nil
		}
	}
	for _, f := range []string{"2006-01-02 15:04:05.000", "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(f, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot read time %q: use RFC 3339, 'YYYY-MM-DD HH:MM:SS', or a duration like 2h", s)
}

// zones is --tz: a default zone and per-path overrides.
type zones struct {
	def       *time.Location
	overrides []zoneRule
	note      string
}

type zoneRule struct {
	glob string
	loc  *time.Location
}

// loadZones resolves --tz values: "ZONE" sets the default, "GLOB=ZONE" a
// zone for paths matching GLOB (matched against the path and each of its
// trailing parts, so 'app/*' matches logs/app/app.log).
func loadZones(vals []string) (*zones, error) {
	z := &zones{def: time.Local}
	defName := ""
	var notes []string
	for _, v := range vals {
		glob, name, per := strings.Cut(v, "=")
		if !per {
			name, glob = v, ""
		}
		loc, err := time.LoadLocation(name)
		if err != nil {
			return nil, fmt.Errorf("--tz %q: %w", v, err)
		}
		if !per {
			z.def, defName = loc, name
			continue
		}
		if _, err := path.Match(glob, ""); err != nil {
			return nil, fmt.Errorf("--tz %q: bad glob", v)
		}
		z.overrides = append(z.overrides, zoneRule{glob, loc})
		notes = append(notes, glob+" as "+name)
	}
	if defName == "" {
		z.note = "log timestamps without a zone read in this machine's local zone; set --tz to change"
	} else {
		z.note = "log timestamps without a zone read as --tz " + defName
	}
	if len(notes) > 0 {
		z.note += "; " + strings.Join(notes, ", ")
	}
	return z, nil
}

func (z *zones) forPath(p string) *time.Location {
	for _, r := range z.overrides {
		if matchPath(r.glob, p) {
			return r.loc
		}
	}
	return z.def
}

// filter decides which events the audit keeps.
type filter struct {
	since, until time.Time
	topic        string
	partition    int32
}

func (f *filter) keep(ev *parser.Event) bool {
	if !f.since.IsZero() && ev.Time.Before(f.since) {
		return false
	}
	if !f.until.IsZero() && !ev.Time.Before(f.until) {
		return false
	}
	if ev.Topic == "" {
		return true
	}
	if f.topic != "" {
		if ok, _ := path.Match(f.topic, ev.Topic); !ok {
			return false
		}
	}
	if f.partition >= 0 && ev.Partition != f.partition {
		return false
	}
	return true
}

// window is the report's window: what the audit reports of all it reads.
func (f *filter) window() report.Window {
	w := report.Window{Since: f.since, Until: f.until, Topic: f.topic}
	if f.partition >= 0 {
		p := f.partition
		w.Partition = &p
	}
	return w
}

// options reads the flags audit and audit --follow share: zones, broker
// ids by path, clock offsets, the time window and the partition filter.
func (a *AuditCmd) options() (*zones, *brokerIDs, *skewFlags, filter, error) {
	zs, bs, sf, err := a.Read.options()
	if err != nil {
		return nil, nil, nil, filter{}, err
	}
	now := time.Now()
	f := filter{topic: a.Topic, partition: a.Partition}
	if f.since, err = parseWhen(a.Since, zs.def, now); err != nil {
		return nil, nil, nil, filter{}, usagef("--since: %w", err)
	}
	if f.until, err = parseWhen(a.Until, zs.def, now); err != nil {
		return nil, nil, nil, filter{}, usagef("--until: %w", err)
	}
	if !f.since.IsZero() && !f.until.IsZero() && !f.since.Before(f.until) {
		return nil, nil, nil, filter{}, usagef("--since %s is not before --until %s", a.Since, a.Until)
	}
	if a.Topic != "" {
		if _, err := path.Match(a.Topic, ""); err != nil {
			return nil, nil, nil, filter{}, usagef("--topic %q: bad glob", a.Topic)
		}
	}
	if a.FailOn != "" {
		if err := verdict.CheckGate(a.FailOn); err != nil {
			return nil, nil, nil, filter{}, usagef("--fail-on: %w", err)
		}
	}
	return zs, bs, sf, f, nil
}

func (a *AuditCmd) run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	zs, bs, sf, f, err := a.options()
	if err != nil {
		return err
	}
	loc, zoneNote := zs.def, zs.note
	paths := a.Paths
	if len(paths) == 0 && a.Store.From == "" {
		// Reading stdin is for pipes: on a terminal it would sit waiting
		// for lines nobody is going to type.
		if isTerminal(stdin) {
			return usagef("give the log files or directories to audit, or - to read standard input")
		}
		paths = []string{"-"}
	}
	if sf.auto {
		if a.Store.From != "" {
			return usagef("--skew auto reads the logs twice and does not re-run a store's query: audit once, then pass the offsets it reports as --skew GLOB=OFFSET (globs match stream names such as vlogs://host:9428/broker-2/server.log)")
		}
		for _, p := range paths {
			if p == "-" {
				return usagef("--skew auto reads the logs twice, and stdin (-) can be read only once: save it to a file")
			}
		}
	}

	ins, skipped := source.Discover(paths, 0)
	var skippedLines []string
	for _, s := range skipped {
		fmt.Fprintf(stderr, "leaderaudit: skipping %s: %s\n", textfmt.Clean(s.Path), s.Reason)
		skippedLines = append(skippedLines, s.Path+": "+s.Reason)
	}
	for _, in := range ins {
		if in.Binary {
			fmt.Fprintf(stderr, "leaderaudit: skipping %s: binary file (not a text log)\n", textfmt.Clean(in.Path))
			skippedLines = append(skippedLines, in.Path+": binary file (not a text log)")
		}
		if in.NULs > 0 {
			msg := fmt.Sprintf("starts with %d NUL bytes (the hole copytruncate leaves under a > redirect), skipped; read from after them", in.NULs)
			fmt.Fprintf(stderr, "leaderaudit: %s: %s\n", textfmt.Clean(in.Path), msg)
			skippedLines = append(skippedLines, in.Path+": "+msg)
		}
	}
	var est skew.Estimate
	if sf.auto {
		est = estimateSkew(ctx, ins, zs, bs)
	}
	rd := source.NewReader(ins, zs.forPath)
	rd.BrokerFor = bs.forPath
	rd.Stdin = stdin
	var st *source.StoreStatus
	if a.Store.From != "" {
		if st, err = a.Store.add(ctx, rd, f, stderr); err != nil {
			return err
		}
		if st.Streams == 0 {
			fmt.Fprintf(stderr, "leaderaudit: %s: the query matched no lines%s\n", st.Name, window(st.Query.Window, loc))
		}
	}
	applySkew(rd.Sources, sf, &est)

	rp := newReporter(loc, zoneNote, a.Verdict.config(loc), sf, bs.forPath)
	rp.est.Applied = func(src int) time.Duration { return rd.Sources[src].Skew }
	var jw *report.JSONWriter
	if a.Format == "json" {
		jw = report.NewJSONWriter(stdout, loc)
		jw.Path = sourcePaths(func() []*source.Source { return rd.Sources })
		rp.col.JSON = jw
	}
	rp.window = f.window()
	// The report's share of the serial work runs beside the merge.
	async := report.NewAsyncSink(rp.sink())
	tl := timeline.New(a.Timeline.config(), async)
	var n int64
	// Every event reaches the timeline: the window chooses what is
	// reported (rp.sink), not what is read, so an epoch's previous leader
	// or a client's config from before --since still counts.
	// The timeline sweeps (Advance) once every 1024 events, but only
	// between two milliseconds: a sweep inside one sees part of its
	// events, and what it decides then (a held fetcher line given to the
	// partition's newest open election) depends on the order of lines
	// that carry the same millisecond — an order a log store without the
	// shipper's offset cannot give back (source's tie order).
	// (The cadence changes how much the timeline holds, not what it
	// reports: TestSweepCadenceDoesNotChangeTheAudit.)
	var last time.Time
	due := false
	rd.Run(ctx, func(src int, ev *parser.Event) {
		if due && ev.Time.After(last) {
			tl.Advance(last)
			due = false
		}
		if !sf.auto {
			rp.est.Add(src, ev)
		}
		tl.Add(src, ev)
		n++
		if n%sweepEvery == 0 {
			due = true
		}
		last = ev.Time
	})
	stopped := ctx.Err() != nil
	tl.Close()
	async.Close()
	if st != nil {
		skippedLines = append(skippedLines, storeNotes(st, stderr)...)
	}

	// A store that answered counts as read, even with no lines: as an
	// empty file does.
	readAny := st != nil
	for _, s := range rd.Sources {
		if s.Binary {
			continue
		}
		if s.Err != nil && !s.Remote {
			fmt.Fprintf(stderr, "leaderaudit: %s: %s\n", textfmt.Clean(s.Path), textfmt.Clean(s.Err.Error()))
		}
		if s.Read {
			readAny = true
		}
	}
	unread := unreadFiles(rd.Sources)
	var auto *skew.Estimate
	if sf.auto {
		auto = &est
	}
	rep := rp.build(tl, rd.Sources, auto, skippedLines, stopped)
	rep.Full, rep.Width = a.Full, textWidth(stdout)
	if st != nil {
		rep.Summary.Partial, rep.Summary.StoreSkipped = st.Err != nil, st.Skipped
	}
	if jw != nil {
		err = rep.WriteJSON(jw)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	if a.MemProfile != "" {
		if err := writeHeapProfile(a.MemProfile); err != nil {
			return err
		}
	}
	if !readAny {
		return errors.New("nothing could be read")
	}
	if stopped {
		return interrupted{}
	}
	if err := unread; err != nil {
		return err
	}
	if a.FailOn != "" && verdict.Fails(rp.findings, a.FailOn) {
		return errFailOn
	}
	return nil
}

// unreadFiles fails a command whose report lacks lines of files it found:
// a file that could not be opened (permission denied, a directory that
// cannot be listed) or not read to its end. Such a file is named in the
// report as a source with its error; the rest is still audited. An
// interrupt's stop is not one (its exit code says it), nor a binary file.
func unreadFiles(srcs []*source.Source) error {
	n := 0
	for _, s := range srcs {
		if s.Err == nil || s.Remote || s.Binary || errors.Is(s.Err, source.ErrInterrupted) {
			continue
		}
		if !s.Read || errors.Is(s.Err, source.ErrUnreadable) {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%d file(s) found could not be read; the report covers the others", n)
}

// writeHeapProfile is --memprofile.
func writeHeapProfile(name string) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--memprofile: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	return nil
}

// sweepEvery: events between two of the timeline's sweeps (a variable for
// the test that varies it).
var sweepEvery int64 = 1024
