package main

import (
	"context"
	"fmt"
	"io"

	"github.com/leaderaudit/leaderaudit/internal/live"
	"github.com/leaderaudit/leaderaudit/internal/report"
	"github.com/leaderaudit/leaderaudit/internal/textfmt"
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
func (a *AuditCmd) runFollow(ctx context.Context, stdout, stderr io.Writer) error {
	return a.follow(ctx, stdout, stderr, nil)
}

// follow is runFollow; following, if set, is called once the read-back
// is over (tests stop there).
func (a *AuditCmd) follow(ctx context.Context, stdout, stderr io.Writer, following func()) error {
	zs, bs, sf, f, err := a.options()
	if err != nil {
		return err
	}
	loc, zoneNote := zs.def, zs.note
	skewFor, err := sf.forLive("audit --follow")
	if err != nil {
		return usage(err)
	}
	if a.Store.From != "" {
		return usagef("--follow reads files; to follow a log store use: leaderaudit watch --from URL --query LOGSQL")
	}
	if len(a.Paths) == 0 {
		return usagef("--follow needs file or directory paths")
	}
	for _, p := range a.Paths {
		if p == "-" {
			return usagef("--follow needs file or directory paths; standard input cannot be followed")
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rp := newReporter(loc, zoneNote, a.Verdict.config(loc), sf, bs.forPath)
	cfg := live.Config{
		Paths: a.Paths, Loc: loc, LocFor: zs.forPath, BrokerFor: bs.forPath, SkewFor: skewFor, ZoneNote: zoneNote, NoSnapshots: true, Keep: f.keep,
		Timeline: a.Timeline.liveConfig(), Following: following,
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
		return err
	}
	if jw != nil {
		// Called from the pipeline's goroutine (its sink), as Inputs must be.
		jw.Path = sourcePaths(p.Inputs)
	}
	if err := p.Run(ctx); err != nil {
		return err
	}
	srcs := p.Inputs()
	for _, s := range srcs {
		if s.Err != nil {
			fmt.Fprintf(stderr, "leaderaudit: %s: %s\n", textfmt.Clean(s.Path), textfmt.Clean(s.Err.Error()))
		}
	}
	rep := rp.build(p.Timeline(), srcs, nil, p.Skipped(), false)
	if jw != nil {
		err = jw.Err
		if err == nil {
			err = rep.WriteJSON(jw)
		}
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
	return unreadFiles(srcs)
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
