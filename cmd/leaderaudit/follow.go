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
// then, at the end, the report's closing lines as audit writes them
// (context, sources, clock skew, zone hints, findings, summary). With
// --format text the report is written at the end.
func (a *AuditCmd) runFollow(ctx context.Context, stdout, stderr io.Writer) int {
	return a.follow(ctx, stdout, stderr, nil)
}

// follow is runFollow; following, if set, is called once the read-back
// is over (tests stop there).
func (a *AuditCmd) follow(ctx context.Context, stdout, stderr io.Writer, following func()) int {
	zs, bs, f, err := a.options()
	if err != nil {
		fmt.Fprintln(stderr, "leaderaudit:", err)
		return exitError
	}
	loc, zoneNote := zs.def, zs.note
	sf, err := loadSkew(a.Skew)
	if err != nil {
		fmt.Fprintln(stderr, "leaderaudit:", err)
		return exitError
	}
	skewFor, err := sf.forLive("audit --follow")
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
	rp := newReporter(loc, zoneNote, a.verdictConfig(loc), sf, bs.forPath)
	cfg := live.Config{
		Paths: a.Paths, Loc: loc, LocFor: zs.forPath, BrokerFor: bs.forPath, SkewFor: skewFor, ZoneNote: zoneNote, NoSnapshots: true, Keep: f.keep,
		Timeline: a.liveTimelineConfig(), Following: following,
	}
	rp.feed(&cfg, nil)
	if f.since.IsZero() {
		cfg.FromStart = true
	} else {
		cfg.Since = f.since
	}
	var jw *report.JSONWriter
	if a.Format == "json" {
		jw = report.NewJSONWriter(stdout, loc)
		rp.feed(&cfg, &streamSink{jw: jw, stop: cancel})
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
	srcs := p.Inputs()
	for _, s := range srcs {
		if s.Err != nil {
			fmt.Fprintf(stderr, "leaderaudit: %s: %s\n", report.Clean(s.Path), report.Clean(s.Err.Error()))
		}
	}
	rep := rp.build(p.Timeline(), srcs, nil, nil, false)
	if jw != nil {
		if jw.Err != nil {
			return writeFailed(jw.Err, stderr)
		}
		if err := rep.WriteJSON(jw); err != nil {
			return writeFailed(err, stderr)
		}
		return exitOK
	}
	if err := rep.WriteText(stdout); err != nil {
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
