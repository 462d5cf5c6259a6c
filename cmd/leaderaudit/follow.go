package main

import (
	"context"
	"fmt"
	"io"

	"github.com/leaderaudit/leaderaudit/internal/live"
	"github.com/leaderaudit/leaderaudit/internal/report"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// runFollow is "audit --follow": the files are read (from --since, else
// from their first line) and then followed until ctx is done (SIGINT,
// SIGTERM). With --format json every election and producer error is
// written as a JSON line as soon as the timeline finishes it (an
// election StaleWindow after its last line, producer errors once matched),
// then, at the end, the context lines, one "source" line per file and the
// "summary" line, as audit writes them. With
// --format text the report is written at the end.
func (a *AuditCmd) runFollow(ctx context.Context, stdout, stderr io.Writer) int {
	zs, bs, f, err := a.options()
	if err != nil {
		fmt.Fprintln(stderr, "leaderaudit:", err)
		return exitError
	}
	loc, zoneNote := zs.def, zs.note
	skewFor, err := liveSkew(a.Skew, "audit --follow")
	if err != nil {
		fmt.Fprintln(stderr, "leaderaudit:", err)
		return exitError
	}
	if a.Store.From != "" {
		fmt.Fprintln(stderr, "leaderaudit: --follow reads files; to follow a log store use: leaderaudit watch --from URL --query LOGSQL")
		return exitError
	}
	if len(a.Paths) == 0 {
		fmt.Fprintln(stderr, "leaderaudit: --follow needs file or directory paths")
		return exitError
	}
	for _, p := range a.Paths {
		if p == "-" {
			fmt.Fprintln(stderr, "leaderaudit: --follow needs file or directory paths; standard input cannot be followed")
			return exitError
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cfg := live.Config{
		Paths: a.Paths, Loc: loc, LocFor: zs.forPath, BrokerFor: bs.forPath, SkewFor: skewFor, ZoneNote: zoneNote, NoSnapshots: true, Keep: f.keep,
		Timeline: a.liveTimelineConfig(),
	}
	if f.since.IsZero() {
		cfg.FromStart = true
	} else {
		cfg.Since = f.since
	}
	var jw *report.JSONWriter
	if a.Format == "json" {
		jw = report.NewJSONWriter(stdout, loc)
		cfg.Sink = &streamSink{jw: jw, stop: cancel}
	}
	p, err := live.New(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "leaderaudit:", err)
		return exitError
	}
	if err := p.Run(ctx); err != nil {
		fmt.Fprintln(stderr, "leaderaudit:", err)
		return exitError
	}
	infos := p.Sources()
	for _, s := range infos {
		if s.Error != nil {
			fmt.Fprintf(stderr, "leaderaudit: %s: %s\n", report.Clean(s.Path), report.Clean(*s.Error))
		}
	}
	tl := p.Timeline()
	if jw != nil {
		if jw.Err != nil {
			return writeFailed(jw.Err, stderr)
		}
		jw.Context(&tl.Stats)
		for _, si := range infos {
			jw.Any(si)
		}
		jw.Any(summary(p.Collector(), tl, tl.Config(), loc, zoneNote, false, len(infos)))
		if err := jw.Flush(); err != nil {
			return writeFailed(err, stderr)
		}
		return exitOK
	}
	if err := p.WriteSummary(stdout, false); err != nil {
		return writeFailed(err, stderr)
	}
	return exitOK
}

// streamSink writes each finished record as a JSON line at once, and stops
// following when the output is gone.
type streamSink struct {
	jw   *report.JSONWriter
	stop context.CancelFunc
}

func (s *streamSink) flush() {
	if s.jw.Flush() != nil {
		s.stop()
	}
}

func (s *streamSink) Episode(e *timeline.Episode) { s.jw.Episode(e); s.flush() }
func (s *streamSink) ProducerError(pe *timeline.ProducerError) {
	s.jw.ProducerError(pe)
	s.flush()
}
func (s *streamSink) Burst(b *timeline.Burst) { s.jw.Burst(b); s.flush() }

// liveTimelineConfig: elections are handed over once quiet, not after the
// stale-metadata window, so a stream shows each as soon as it is over.
func (a *AuditCmd) liveTimelineConfig() timeline.Config {
	cfg := a.timelineConfig()
	cfg.EmitAfter = a.Quiet
	return cfg
}
