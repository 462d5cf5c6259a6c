package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/term"
	"github.com/muesli/termenv"

	"github.com/leaderaudit/leaderaudit/internal/live"
	"github.com/leaderaudit/leaderaudit/internal/textfmt"
	"github.com/leaderaudit/leaderaudit/tui"
)

// WatchCmd is "leaderaudit watch": the live screen over followed logs.
type WatchCmd struct {
	Paths     []string      `arg:"" optional:"" name:"path" help:"Log files or directories to follow (or none, with --from). A directory means what audit reads in it: the Kafka logs and other *.log/*.txt/*.out files at any depth and their rotations, including files and subdirectories that appear later; a file that does not exist yet is waited for."`
	Read      readFlags     `embed:""`
	Since     string        `default:"15m" help:"Read back each file from this time before following, so the screen starts with the latest elections: relative to now (15m, 2h) or a time (RFC 3339, 'YYYY-MM-DD HH:MM:SS' in --tz)."`
	FromStart bool          `help:"Read every file from its first line instead of --since."`
	Poll      bool          `help:"Poll the files instead of using inotify (NFS, some FUSE and container mounts)."`
	Keep      time.Duration `default:"24h" help:"Forget elections and producer errors older than this (by log time)."`
	Timeline  timelineFlags `embed:""`
	Verdict   verdictFlags  `embed:""`
	Store     storeFlags    `embed:""`
}

// Run draws the screen on standard error until q or ctrl+c, then writes
// the text report over everything seen to standard output.
func (w *WatchCmd) Run(io stdio) error {
	return w.run(context.Background(), io.in, io.out, io.err)
}

// fd is what the terminal checks need of a stream.
type fd interface{ Fd() uintptr }

func isTerminal(v any) bool {
	f, ok := v.(fd)
	return ok && term.IsTerminal(f.Fd())
}

func (w *WatchCmd) run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	p, rp, zs, err := w.pipeline(func() error {
		if !isTerminal(stderr) {
			return usagef("watch draws its screen on standard error, which is not a terminal; to stream elections as JSON lines use: leaderaudit audit --follow --format json PATH...")
		}
		return nil
	})
	if err != nil {
		return err
	}
	loc := zs.def
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()

	r := lipgloss.NewRenderer(stderr)
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		r.SetColorProfile(termenv.Ascii)
	}
	zone := loc.String()
	if len(w.Read.TZ) > 0 {
		zone += " (--tz)"
		if len(zs.overrides) > 0 {
			zone += " + per-path zones"
		}
	} else {
		name, _ := time.Now().In(loc).Zone()
		zone = "local " + name + " (--tz to change)"
	}
	m := tui.New(p.Updates(), tui.Options{
		Loc: loc, Zone: zone, Quiet: w.Timeline.Quiet, Keep: w.Keep, Slow: w.Verdict.SlowElection, Renderer: r,
	})
	// 20 frames a second at most (bubbletea's default is 60): snapshots
	// come at most 20 times a second, and an idle screen wakes up less
	// (idle CPU 1.7% → 1.0% measured on case2).
	opts := []tea.ProgramOption{tea.WithOutput(stderr), tea.WithAltScreen(), tea.WithContext(ctx), tea.WithFPS(20)}
	// Guarded: a stray bracketed-paste start made bubbletea wait for its
	// end and ignore q and Ctrl-C for good.
	if f, ok := stdin.(*os.File); ok && isTerminal(stdin) {
		opts = append(opts, tea.WithInput(tui.GuardPaste(f)))
	} else if tty, err := tui.OpenTTY(); err == nil {
		defer tty.Close()
		opts = append(opts, tea.WithInput(tty))
	} else {
		opts = append(opts, tea.WithInputTTY())
	}
	_, runErr := tea.NewProgram(m, opts...).Run()
	m.Forget()
	// The screen's elections are garbage now. One collection, so that the
	// memory limit (memgoal sets it from the live heap after each) is set
	// by what closing the timeline and the text report need, not by the
	// screen as well: 50,000 elections finished before q peaked 7 MB
	// higher on quitting than while shown.
	runtime.GC()

	cancel()
	for range p.Updates() {
	}
	if err := <-done; err != nil {
		fmt.Fprintln(stderr, "leaderaudit:", err)
	}
	if runErr != nil && !errors.Is(runErr, tea.ErrInterrupted) && !errors.Is(runErr, tea.ErrProgramKilled) && !errors.Is(runErr, context.Canceled) {
		fmt.Fprintln(stderr, "leaderaudit: screen:", runErr)
	}
	srcs := p.Inputs()
	if err := rp.build(p.Timeline(), srcs, nil, p.Skipped(), false).WriteText(stdout); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	for _, s := range srcs {
		if s.Err != nil {
			fmt.Fprintf(stderr, "leaderaudit: %s: %s\n", textfmt.Clean(s.Path), textfmt.Clean(s.Err.Error()))
		}
	}
	return unreadFiles(srcs)
}

// pipeline reads the flags and prepares the live pipeline and the
// reporter it feeds; ready is checked once the flags are read (the
// screen needs a terminal).
func (w *WatchCmd) pipeline(ready func() error) (*live.Pipeline, *reporter, *zones, error) {
	zs, bs, sf, err := w.Read.options()
	if err != nil {
		return nil, nil, nil, err
	}
	skewFor, err := sf.forLive("watch")
	if err != nil {
		return nil, nil, nil, usage(err)
	}
	if err := ready(); err != nil {
		return nil, nil, nil, err
	}
	loc, zoneNote := zs.def, zs.note
	cfg := live.Config{
		Paths: w.Paths, Loc: loc, LocFor: zs.forPath, BrokerFor: bs.forPath, SkewFor: skewFor, ZoneNote: zoneNote, FromStart: w.FromStart, Poll: w.Poll,
		Timeline: w.Timeline.liveConfig(),
	}
	rp := newReporter(loc, zoneNote, w.Verdict.config(loc), sf, bs.forPath)
	rp.feed(&cfg, nil)
	if !w.FromStart {
		if cfg.Since, err = parseWhen(w.Since, loc, time.Now()); err != nil {
			return nil, nil, nil, usagef("--since: %w", err)
		}
	}
	if len(w.Paths) == 0 && w.Store.From == "" {
		return nil, nil, nil, usagef("watch needs log files or directories, or --from a log store")
	}
	if w.Store.From != "" {
		t, err := w.Store.tail(cfg.Since, zs.forPath)
		if err != nil {
			return nil, nil, nil, err
		}
		cfg.Remote = t
		cfg.LocFor, cfg.BrokerFor = t.relative(zs.forPath, bs.forPath)
	}
	p, err := live.New(cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	return p, rp, zs, nil
}
