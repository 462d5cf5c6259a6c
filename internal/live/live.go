// Package live runs the audit engine (parser → timeline) over log files
// that are still being written, for `leaderaudit watch` and
// `leaderaudit audit --follow`.
//
// A [Pipeline] follows its paths with package follow, gives every followed
// file its own parser, and feeds the events to one timeline on one
// goroutine (the timeline is not safe for concurrent use). What it learns
// is handed out in [Snapshot]s on [Pipeline.Updates], at most one per
// Config.Interval (default 50 ms, so at most 20 a second) and only when
// the receiver has taken the previous one: a slow receiver never slows the
// pipeline down, it just gets bigger snapshots.
//
// # Start
//
// The files are the ones the batch audit reads in the same paths
// (source.Discover: directories at any depth, rotations grouped, its name
// and binary-file rules). Those present at the start are first read back
// from Config.Since (found with follow.SeekBackByTime and
// parser.ParseHeader), or from their first byte with Config.FromStart, by
// a source.Reader: merged, reordered and skew-corrected exactly as audit
// reads whole files. The follower (recursive over directory inputs) then
// takes each file on from the byte where its read-back stopped, so no line
// is read twice or skipped. Files and subdirectories that appear later
// are read from their first byte; another file at a followed path
// (rotation) starts its line numbers again. Compressed rotations and KRaft
// metadata logs are read back only with FromStart: nothing appends to them.
//
// # Time
//
// The timeline is advanced with event time: the newest timestamp read.
// Once the read-back is done and every input has been silent for
// Config.IdleAdvance (default 1 s), the timeline's clock is taken to move
// on with the wall clock from the newest line's time, so that waiting
// producer errors get matched and quiet elections end even when the logs
// go quiet. What a view is told (Snapshot.Now) is only ever the newest
// timestamp read, with Snapshot.LastLine saying when that line came.
// A parser whose file has been silent for Config.IdleFlush (default
// 250 ms) is flushed, so a multi-line record is not held back.
//
// Episodes are handed to the sinks (the report collector, Config.Sink,
// Snapshot.Finished) when the timeline finishes them, which is
// StaleWindow after they ended (see timeline.Config); before that they
// are open and each snapshot carries the open ones that changed, with
// their Progress: complete as soon as every followed live replica has
// logged its last step, so a view need not wait for the quiet period.
package live

import (
	"context"
	"errors"
	"io"
	"os"
	"sort"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/feed"
	"github.com/leaderaudit/leaderaudit/internal/follow"
	"github.com/leaderaudit/leaderaudit/internal/report"
	"github.com/leaderaudit/leaderaudit/internal/source"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// Config configures a Pipeline. Paths is required; zero values take the
// defaults.
type Config struct {
	// Paths are files (followed whether or not they exist yet) and
	// directories (what source.Discover reads in them at the start, and
	// every file Match accepts in them or their subdirectories later).
	Paths []string
	// Match selects the files of directories by base name (default LogName).
	Match func(name string) bool
	// Loc is the zone for timestamps that carry none (default time.Local),
	// and the zone of the report.
	Loc *time.Location
	// LocFor, if set, picks the zone for one file's zone-less timestamps
	// (--tz GLOB=ZONE); nil or a nil result means Loc.
	LocFor func(path string) *time.Location
	// BrokerFor names the broker a file's lines come from when they name
	// none themselves (--broker GLOB=ID); default parser.BrokerFromPath.
	BrokerFor func(path string) int32
	// SkewFor gives how far a file's host clock ran ahead (--skew
	// GLOB=OFFSET); it is subtracted from the file's event times.
	SkewFor func(path string) time.Duration
	// ZoneNote says where Loc came from, for the text report.
	ZoneNote string
	// Timeline configures the engine.
	Timeline timeline.Config
	// Since: files present at the start are read back from their first
	// line at or after Since. Zero (and FromStart unset): start at the end.
	Since time.Time
	// FromStart reads files present at the start from their first byte.
	FromStart bool
	// Poll polls the files instead of using fsnotify.
	Poll bool
	// PollInterval is the polling period (follow's default when zero).
	PollInterval time.Duration
	// Keep, if set, drops events it returns false for (audit filters).
	Keep func(ev *parser.Event) bool
	// Observe, if set, sees every event as read: before SkewFor's
	// correction and Keep (the clock-skew estimate wants the logged
	// times of everything).
	Observe func(src int, ev *parser.Event)
	// Following, if set, is called once on the pipeline goroutine when the
	// read-back is over, before following starts.
	Following func()
	// Collector, if set, is the report's collector the timeline feeds
	// (default a new one on Loc and ZoneNote).
	Collector *report.Collector
	// Sink, if set, also receives what the timeline finishes, on the
	// pipeline goroutine (audit --follow writes JSON lines from here).
	Sink timeline.Sink
	// NoSnapshots turns Updates off (nobody reads them).
	NoSnapshots bool
	// Interval is the least time between two snapshots (default 50ms).
	Interval time.Duration
	// IdleFlush: a file silent this long has its parser flushed (default 250ms).
	IdleFlush time.Duration
	// IdleAdvance: when every input has been silent this long, event
	// time moves on with the wall clock (default 1s; negative: never).
	IdleAdvance time.Duration
	// Remote, if set, is a source of live lines that are not files (a log
	// store's tail), followed beside Paths (which may then be empty).
	Remote Remote
}

// Remote sends batches of lines, each Line.Path naming the stream it
// belongs to (one parser per name, as per file), until ctx is done or it
// fails for good.
type Remote interface {
	Run(ctx context.Context, out chan<- []follow.Line) error
}

// The snapshot types live in package feed, which the screen imports
// without importing the readers behind this pipeline.
type (
	FileStatus = feed.FileStatus
	Stats      = feed.Stats
	Snapshot   = feed.Snapshot
)

// src is one input: a file (a source of the batch reader's, read back and
// then followed, or found while following) or a store's stream.
type src struct {
	*source.Source
	abs      string
	parser   *parser.Parser
	lastLine time.Time // wall
	flushed  bool
	err      error // the follower's error for it, nil once it reads again
	remote   bool  // a stream of Config.Remote, not a file
	// ignored: a binary file, a compressed rotation or a metadata log
	// under a followed directory; its lines are not a text log's.
	ignored bool
	start   *startFile // planned at New; nil for files found later
}

// Pipeline follows files and runs the engine over them.
type Pipeline struct {
	cfg     Config
	loc     *time.Location
	f       *follow.Follower
	rd      *source.Reader
	skipped []source.Skipped
	tl      *timeline.Timeline
	col     *report.Collector
	out     chan *Snapshot

	srcs   []*src
	byAbs  map[string]*src
	byPath map[string]*src

	lines, events int64
	live          bool
	started       bool // the follower runs
	backTotal     int64
	backLast      time.Time // newest modification time of a file read back
	backFirst     time.Time // first event time read back
	backDone      float64

	evTime, evWall time.Time // newest event time and when it was read
	lastInput      time.Time // wall time of the last line from any file
	sinceAdvance   int
	dirty          bool
	seq            int
	lastSend       time.Time
	rate           []rateSample

	fp           map[timeline.Key]uint64
	pendFinished []*timeline.Episode
	pendErrors   []*timeline.ProducerError
	pendBursts   []*timeline.Burst

	runs [][]item
	logs map[int32]brokerLogs // by broker, see note
	// logsVer counts changes to logs; scanned and scannedLogs are events
	// and logsVer at the last look at the open episodes, open what it
	// counted; gap is the least time between two snapshots.
	logsVer, scannedLogs int
	scanned              int64
	open                 int
	gap                  time.Duration
	// touched: partitions events named since the last look; touchAll:
	// an event named none (a request's step, a trigger).
	touched  map[timeline.TP]struct{}
	touchAll bool
	// settling: a snapshot is due when settleTimer fires (see soon).
	settling    bool
	settleTimer *time.Timer
}

func (p *Pipeline) touch(topic string, part int32) {
	if topic == "" {
		p.touchAll = true
		return
	}
	if len(p.touched) >= 1<<15 {
		p.touchAll = true // cheaper to look at everything
		return
	}
	p.touched[timeline.TP{Topic: topic, Partition: part}] = struct{}{}
}

type item struct {
	src int
	ev  parser.Event
}

type rateSample struct {
	t     time.Time
	lines int64
}

// New prepares a pipeline: it finds the files present now and where each
// one's read-back starts. It reads nothing yet.
func New(cfg Config) (*Pipeline, error) {
	if len(cfg.Paths) == 0 && cfg.Remote == nil {
		return nil, errors.New("live: no paths")
	}
	for _, p := range cfg.Paths {
		if p == "-" {
			return nil, errors.New("live: standard input cannot be followed; give file or directory paths")
		}
	}
	if cfg.Match == nil {
		cfg.Match = LogName
	}
	if cfg.Loc == nil {
		cfg.Loc = time.Local
	}
	if cfg.Interval <= 0 {
		cfg.Interval = 50 * time.Millisecond
	}
	if cfg.IdleFlush <= 0 {
		cfg.IdleFlush = 250 * time.Millisecond
	}
	if cfg.IdleAdvance == 0 {
		cfg.IdleAdvance = time.Second
	}
	p := &Pipeline{
		cfg: cfg, loc: cfg.Loc,
		out:     make(chan *Snapshot, 1),
		byAbs:   map[string]*src{},
		byPath:  map[string]*src{},
		fp:      map[timeline.Key]uint64{},
		logs:    map[int32]brokerLogs{},
		gap:     cfg.Interval,
		touched: map[timeline.TP]struct{}{},
	}
	p.col = cfg.Collector
	if p.col == nil {
		p.col = report.NewCollector(report.Options{Loc: cfg.Loc, ZoneNote: cfg.ZoneNote})
	}
	p.tl = timeline.New(cfg.Timeline, sinkTee{p})

	p.plan()
	if len(cfg.Paths) == 0 {
		return p, nil
	}
	fl, err := follow.New(cfg.Paths, follow.Options{
		Match:        cfg.Match,
		Recursive:    true,
		Dir:          followDir,
		Poll:         cfg.Poll,
		PollInterval: cfg.PollInterval,
		StartOffset: func(path string, r io.ReaderAt, size int64) int64 {
			var fi os.FileInfo
			if st, ok := r.(interface{ Stat() (os.FileInfo, error) }); ok {
				fi, _ = st.Stat()
			}
			return p.startOffset(path, fi, size)
		},
	})
	if err != nil {
		return nil, err
	}
	p.f = fl
	return p, nil
}

// Updates delivers snapshots. It is closed when Run returns.
func (p *Pipeline) Updates() <-chan *Snapshot { return p.out }

// Collector is the report collector fed with everything finished. Read it
// only after Run has returned.
func (p *Pipeline) Collector() *report.Collector { return p.col }

// Timeline is the engine. Touch it only after Run has returned.
func (p *Pipeline) Timeline() *timeline.Timeline { return p.tl }

// Location is the zone assumed for zone-less timestamps.
func (p *Pipeline) Location() *time.Location { return p.loc }

func (p *Pipeline) brokerFor(path string) int32 {
	if p.cfg.BrokerFor != nil {
		return p.cfg.BrokerFor(path)
	}
	return parser.BrokerFromPath(path)
}

func (p *Pipeline) locFor(path string) *time.Location {
	if p.cfg.LocFor != nil {
		if l := p.cfg.LocFor(path); l != nil {
			return l
		}
	}
	return p.loc
}

// source returns the source for a path as the follower or the store
// spells it, making one for a path not seen before.
func (p *Pipeline) source(path string, remote bool) *src {
	if s := p.lookup(path); s != nil {
		return s
	}
	return p.found(path, remote)
}

// Run reads back, then follows until ctx is done. Then it finishes every
// episode (timeline Close), sends a last snapshot with Final set, closes
// Updates and returns. Read Collector, Timeline and Sources afterwards.
func (p *Pipeline) Run(ctx context.Context) error {
	defer close(p.out)
	p.readBack(ctx)
	p.live = true
	if p.cfg.Following != nil {
		p.cfg.Following()
	}
	p.dirty = true
	var runErr error
	if ctx.Err() == nil {
		fctx, cancel := context.WithCancel(ctx)
		defer cancel()
		errc := make(chan error, 1)
		if p.f != nil {
			go func() { errc <- p.f.Run(fctx) }()
		} else {
			errc <- nil
		}
		var remote chan []follow.Line
		remoteErr := make(chan error, 1)
		if p.cfg.Remote != nil {
			remote = make(chan []follow.Line, 4)
			go func() { remoteErr <- p.cfg.Remote.Run(fctx, remote); close(remote) }()
		} else {
			remoteErr <- nil
		}
		p.started = true
		p.follow(ctx, remote)
		cancel()
		if remote != nil {
			for range remote {
			}
		}
		runErr = errors.Join(<-errc, <-remoteErr)
	}
	for _, s := range p.srcs {
		s.flushed = false // sets parser Stats.Last even when nothing is held
		p.flush(s)
	}
	p.tl.Close()
	p.finalSnapshot()
	return runErr
}

// readBack reads the start regions of the files present at the start
// with the batch reader: merged by time, skew-corrected and put in order
// as audit reads them.
func (p *Pipeline) readBack(ctx context.Context) {
	if p.rd == nil {
		return
	}
	wall := time.Now()
	n := 0
	p.rd.Run(ctx, func(idx int, ev *parser.Event) {
		if p.backFirst.IsZero() {
			p.backFirst = ev.Time
		}
		p.add(idx, ev, wall, true)
		n++
		if n&1023 == 0 {
			wall = time.Now()
			p.tl.Advance(p.tl.Watermark())
			p.sinceAdvance = 0
			if span := p.backLast.Sub(p.backFirst); span > 0 {
				p.backDone = min(1, max(0, float64(ev.Time.Sub(p.backFirst))/float64(span)))
			}
			if wall.Sub(p.lastSend) >= p.cfg.Interval {
				p.trySend(wall)
			}
		}
	})
	p.backDone = 1
	for _, s := range p.srcs {
		p.lines += s.parser.Stats.Lines
	}
	if n > 0 {
		p.lastInput = time.Now()
	}
	if !p.tl.Watermark().IsZero() {
		p.tl.Advance(p.tl.Watermark())
	}
}

// add feeds one event to the timeline; corrected: the batch reader has
// already moved its time back by the source's skew.
func (p *Pipeline) add(srcIdx int, ev *parser.Event, wall time.Time, corrected bool) {
	sk := p.srcs[srcIdx].Skew
	if p.cfg.Observe != nil {
		if corrected && sk != 0 {
			e := *ev
			e.Time = e.Time.Add(sk)
			p.cfg.Observe(srcIdx, &e)
		} else {
			p.cfg.Observe(srcIdx, ev)
		}
	}
	if !corrected && sk != 0 {
		e := *ev
		e.Time = e.Time.Add(-sk)
		ev = &e
	}
	if p.cfg.Keep != nil && !p.cfg.Keep(ev) {
		return
	}
	if ev.Time.After(p.evTime) {
		p.evTime, p.evWall = ev.Time, wall
	}
	p.note(ev)
	p.events++
	p.touch(ev.Topic, ev.Partition)
	p.tl.Add(srcIdx, ev)
	p.sinceAdvance++
	p.dirty = true
}

// follow is the live loop. It ends when the follower closes its lines
// (it does once ctx is done), or with ctx when there is no follower.
func (p *Pipeline) follow(ctx context.Context, remote <-chan []follow.Line) {
	tick := time.NewTicker(p.cfg.Interval)
	defer tick.Stop()
	p.settleTimer = time.NewTimer(time.Hour)
	p.settleTimer.Stop()
	defer p.settleTimer.Stop()
	var lines <-chan []follow.Line
	var errs <-chan error
	var done <-chan struct{}
	if p.f != nil {
		lines, errs = p.f.Lines(), p.f.Errors()
	} else {
		done = ctx.Done()
	}
	// While the logs are quiet and no parser holds a record, the ticks
	// only move the clock on: once a second is enough, and an idle
	// follower wakes up rarely.
	slow := false
	wake := func() {
		if slow {
			tick.Reset(p.cfg.Interval)
			slow = false
		}
	}
	for {
		select {
		case batch, ok := <-lines:
			if !ok {
				return
			}
			wake()
			p.batch(batch)
			p.soon()
		case batch, ok := <-remote:
			if !ok {
				// The store gave up; files go on being followed.
				remote = nil
				continue
			}
			wake()
			for _, l := range batch {
				p.source(l.Path, true)
			}
			p.batch(batch)
			p.soon()
		case <-done:
			return
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			p.noteError(err)
		case now := <-p.settleTimer.C:
			p.settling = false
			p.advance(now)
			p.trySend(now)
		case now := <-tick.C:
			p.idle(now)
			p.advance(now)
			p.trySend(now)
			if !slow && p.quiet(now) {
				tick.Reset(time.Second)
				slow = true
			}
		}
	}
}

// quiet says whether nothing needs the Interval's ticks: no line for
// IdleAdvance and every parser flushed.
func (p *Pipeline) quiet(now time.Time) bool {
	if now.Sub(p.lastInput) < max(p.cfg.IdleAdvance, p.cfg.IdleFlush) || p.dirty {
		return false
	}
	for _, s := range p.srcs {
		if !s.flushed {
			return false
		}
	}
	return true
}

// settle is how long a snapshot due after a quiet spell waits for more
// lines: a writer's lines of one election come microseconds apart and in
// several reads, and the first alone must not spend the Interval.
const settle = 2 * time.Millisecond

// soon hands a snapshot over settle after a batch when the last one is an
// Interval old, so a line written after a quiet spell is on screen within
// milliseconds, not at the next tick; under load the ticks pace them.
func (p *Pipeline) soon() {
	now := time.Now()
	if p.sinceAdvance >= 1024 {
		p.advance(now)
	}
	if p.dirty && !p.settling && now.Sub(p.lastSend) >= p.gap {
		p.settling = true
		p.settleTimer.Reset(settle)
	}
}

func (p *Pipeline) noteError(err error) {
	if errors.Is(err, follow.ErrDeleted) {
		// Read to its end first: a rotation (delete-recreate, a rotated
		// file compressed and removed), not a fault of the file.
		return
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		s := p.lookup(pe.Path)
		if s == nil && pe.Op != "watch" && pe.Op != "scan" {
			// A file that could never be opened has no source yet; the
			// report must name it all the same. (Watch and scan errors
			// are a directory's.)
			s = p.source(pe.Path, false)
		}
		if s != nil {
			s.err = err
		}
	}
	p.dirty = true
}

// batch parses a batch of lines and feeds their events, merged by time
// across files (file order within each).
func (p *Pipeline) batch(lines []follow.Line) {
	now := time.Now()
	p.lastInput = now
	for i := range p.runs {
		p.runs[i] = p.runs[i][:0]
	}
	for _, l := range lines {
		s := p.source(l.Path, false)
		if s.ignored {
			continue
		}
		s.lastLine, s.flushed, s.Read = now, false, true
		s.err = nil // readable again: nothing of it was lost
		if s.Input.Err != nil && s.Err == s.Input.Err {
			s.Err = nil // unreadable at the start, read from its first byte since
		}
		s.Bytes += int64(len(l.Text)) + 1
		if l.Truncated {
			s.parser.Stats.CutLines++
		}
		for len(p.runs) <= s.Index {
			p.runs = append(p.runs, nil)
		}
		idx := s.Index
		emit := func(ev *parser.Event) { p.runs[idx] = append(p.runs[idx], item{idx, *ev}) }
		if l.Restart {
			// Another file at this path: what the old one held is its own,
			// and the new one's lines count from 1.
			s.parser.Flush(emit)
			s.parser.NewFile()
		}
		s.parser.Line(l.Text, emit)
		p.lines++
	}
	// Only events make a snapshot due (add): a line the parser holds for
	// continuation lines must not spend the Interval a moment before the
	// line that completes an election comes. Counts alone go out on the
	// ticks, once a second.
	p.merge(now)
}

// merge feeds the events in p.runs in time order.
func (p *Pipeline) merge(wall time.Time) {
	pos := make([]int, len(p.runs))
	for {
		best := -1
		for i, r := range p.runs {
			if pos[i] >= len(r) {
				continue
			}
			if best < 0 || r[pos[i]].ev.Time.Before(p.runs[best][pos[best]].ev.Time) {
				best = i
			}
		}
		if best < 0 {
			return
		}
		it := &p.runs[best][pos[best]]
		p.add(it.src, &it.ev, wall, false)
		pos[best]++
	}
}

// flush finishes a parser's held record.
func (p *Pipeline) flush(s *src) {
	if s.flushed {
		return
	}
	s.flushed = true
	wall := time.Now()
	s.parser.Flush(func(ev *parser.Event) { p.add(s.Index, ev, wall, false) })
}

// idle flushes silent files and, when every input is silent, moves event
// time on.
func (p *Pipeline) idle(now time.Time) {
	for _, s := range p.srcs {
		if !s.flushed && now.Sub(s.lastLine) >= p.cfg.IdleFlush {
			p.flush(s)
		}
	}
}

// clock is the event-time clock (see Snapshot.Now).
func (p *Pipeline) clock(now time.Time) time.Time {
	wm := p.tl.Watermark()
	if !p.live || p.cfg.IdleAdvance < 0 || p.evWall.IsZero() || now.Sub(p.lastInput) < p.cfg.IdleAdvance {
		return wm
	}
	if est := p.evTime.Add(now.Sub(p.evWall)); est.After(wm) {
		return est
	}
	return wm
}

func (p *Pipeline) advance(now time.Time) {
	t := p.clock(now)
	if t.IsZero() {
		return
	}
	if p.sinceAdvance > 0 || t.After(p.tl.Watermark()) {
		p.tl.Advance(t)
		p.sinceAdvance = 0
	}
}

// trySend hands a snapshot over if the receiver took the previous one.
func (p *Pipeline) trySend(now time.Time) {
	if p.cfg.NoSnapshots || len(p.out) > 0 {
		return
	}
	if !p.dirty && now.Sub(p.lastSend) < time.Second {
		return
	}
	s := p.snapshot(now)
	p.out <- s // never blocks: we are the only sender and the buffer is empty
	p.lastSend = now
	p.dirty = false
	// A snapshot costs a look at every open episode: with thousands open
	// (a broker restart's burst) keep that under a fifth of the time.
	p.gap = max(p.cfg.Interval, 4*time.Since(now))
}

func (p *Pipeline) finalSnapshot() {
	if p.cfg.NoSnapshots {
		return
	}
	s := p.snapshot(time.Now())
	s.Final = true
	select {
	case prev := <-p.out:
		// Not taken: fold it into the last one.
		s.Changed = mergeChanged(prev.Changed, s.Changed)
		for k, pr := range prev.Progress {
			if _, ok := s.Progress[k]; !ok {
				if s.Progress == nil {
					s.Progress = map[timeline.Key]Progress{}
				}
				s.Progress[k] = pr
			}
		}
		s.Finished = append(prev.Finished, s.Finished...)
		s.Errors = append(prev.Errors, s.Errors...)
		s.Bursts = append(prev.Bursts, s.Bursts...)
	default:
	}
	p.out <- s
}

func mergeChanged(a, b []*timeline.Episode) []*timeline.Episode {
	seen := map[timeline.Key]bool{}
	for _, e := range b {
		seen[e.Key] = true
	}
	out := b
	for _, e := range a {
		if !seen[e.Key] {
			out = append(out, e)
		}
	}
	return out
}

func (p *Pipeline) snapshot(now time.Time) *Snapshot {
	p.seq++
	s := &Snapshot{Seq: p.seq, Wall: now, Now: p.evTime, LastLine: p.lastInput, Live: p.live}
	if s.Now.IsZero() {
		s.Now = p.tl.Watermark()
	}
	if p.events != p.scanned || p.logsVer != p.scannedLogs {
		// Episodes change only with events on their partition (or events
		// naming none, or matched producer errors), and what they wait for
		// with what the logs show of brokers: look at those only.
		added := 0
		look := func(e *timeline.Episode) {
			h := fingerprint(e, p.logsVer)
			old, ok := p.fp[e.Key]
			if ok && old == h {
				return
			}
			if !ok {
				added++
			}
			p.fp[e.Key] = h
			s.Changed = append(s.Changed, e.Clone())
			if s.Progress == nil {
				s.Progress = map[timeline.Key]Progress{}
			}
			s.Progress[e.Key] = p.progress(e)
		}
		if p.touchAll || p.logsVer != p.scannedLogs {
			open := 0
			p.tl.EachOpen(func(e *timeline.Episode) { open++; look(e) })
			p.open = open
		} else {
			for tp := range p.touched {
				p.tl.EachOpenOf(tp, look)
			}
			p.open += added
		}
		clear(p.touched)
		p.touchAll = false
		p.scanned, p.scannedLogs = p.events, p.logsVer
		sort.Slice(s.Changed, func(i, j int) bool { return newer(s.Changed[i], s.Changed[j]) })
	}
	s.Finished, s.Errors, s.Bursts = p.pendFinished, p.pendErrors, p.pendBursts
	p.pendFinished, p.pendErrors, p.pendBursts = nil, nil, nil
	s.Stats = p.stats(now, p.open)
	return s
}

// newer orders episodes newest first (Snapshot.Changed).
func newer(a, b *timeline.Episode) bool {
	if !a.Start.Equal(b.Start) {
		return a.Start.After(b.Start)
	}
	if a.Topic != b.Topic {
		return a.Topic > b.Topic
	}
	if a.Partition != b.Partition {
		return a.Partition > b.Partition
	}
	return a.LeaderEpoch > b.LeaderEpoch
}

func (p *Pipeline) stats(now time.Time, open int) Stats {
	st := Stats{Lines: p.lines, Events: p.events, Open: open, Late: p.tl.Stats.Late, Orphans: p.tl.Stats.Orphans,
		ProducerErrors: p.tl.Stats.ProducerErrs, ReadingBack: !p.live, BacklogDone: 1}
	if !p.live && p.backTotal > 0 {
		st.BacklogDone = p.backDone
	}
	// Lines a second over the last second or so.
	p.rate = append(p.rate, rateSample{now, p.lines})
	for len(p.rate) > 2 && now.Sub(p.rate[1].t) >= time.Second {
		p.rate = p.rate[1:]
	}
	if r0 := p.rate[0]; now.Sub(r0.t) > 0 {
		st.LinesPerSec = float64(p.lines-r0.lines) / now.Sub(r0.t).Seconds()
	}
	for _, in := range p.cfg.Paths {
		st.Looked = append(st.Looked, in)
	}
	if !p.live {
		// The batch reader's goroutines own the parsers until the
		// read-back is over.
		for _, s := range p.srcs {
			if s.start != nil {
				st.Files = append(st.Files, FileStatus{Path: s.Path})
			}
		}
		st.Followed = len(st.Files)
		return st
	}
	st.Brokers = p.brokers()
	if p.started && p.f != nil {
		for _, fs := range p.f.Files() {
			s := p.source(fs.Path, false)
			if s.ignored {
				continue
			}
			fst := FileStatus{Path: fs.Path, Lines: s.parser.Stats.Lines, NotUnderstood: s.parser.Stats.NotUnderstood, Missing: fs.Missing}
			if fs.Err != nil {
				fst.Err = fs.Err.Error()
			}
			st.Files = append(st.Files, fst)
		}
	}
	for _, s := range p.srcs {
		st.NotUnderstood += s.parser.Stats.NotUnderstood
		if s.remote {
			st.Files = append(st.Files, FileStatus{Path: s.Path, Lines: s.parser.Stats.Lines, NotUnderstood: s.parser.Stats.NotUnderstood})
		}
	}
	for _, f := range st.Files {
		switch {
		case f.Err != "":
			st.Unreadable++
		case f.Missing:
			st.Missing++
		default:
			st.Followed++
		}
	}
	return st
}

// brokers are the broker ids the lines read so far named (any role, or
// the path's broker).
func (p *Pipeline) brokers() []int32 {
	seen := map[int32]bool{}
	for _, s := range p.srcs {
		if s.parser.PathBroker != parser.Unknown && s.parser.Stats.Lines > 0 {
			seen[s.parser.PathBroker] = true
		}
		for _, b := range s.parser.Stats.Brokers {
			seen[b] = true
		}
		for _, b := range s.parser.Stats.Controllers {
			seen[b] = true
		}
	}
	out := make([]int32, 0, len(seen))
	for b := range seen {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Inputs are the files and streams read (or that failed): the batch
// reader's sources and those found while following, with what their
// parsers counted, for the report. Call after Run.
func (p *Pipeline) Inputs() []*source.Source {
	if p.started && p.f != nil {
		// Whether a file can be read is the follower's to say now: one
		// that could not be opened for a while may have been read since.
		for _, fs := range p.f.Files() {
			if s := p.lookup(fs.Path); s != nil {
				s.err = fs.Err
				if fs.Err == nil && !fs.Missing && s.Input.Err != nil && s.Err == s.Input.Err {
					s.Err = nil // unreadable at the start, opened since
				}
			}
		}
	}
	var out []*source.Source
	for _, s := range p.srcs {
		if !s.Read && s.err == nil && s.Err == nil && !s.Binary {
			continue
		}
		if s.Read {
			s.Stats = s.parser.Stats
		}
		if s.err != nil && s.Err == nil {
			// The value, not its text: errors.Is(err, fs.ErrPermission)
			// still holds for whoever reads the source. It held at the
			// end, so lines of the file went unread.
			s.Err = source.Unreadable(s.err)
		}
		out = append(out, s.Source)
	}
	return out
}

// Sources describes every file read, for the text report. Call after Run.
func (p *Pipeline) Sources() []source.Info {
	var out []source.Info
	for _, s := range p.Inputs() {
		out = append(out, source.Describe(s, p.loc))
	}
	return out
}

// sinkTee hands what the timeline finishes to the collector, Config.Sink
// and the next snapshot.
type sinkTee struct{ p *Pipeline }

func (t sinkTee) Episode(e *timeline.Episode) {
	p := t.p
	p.col.Episode(e)
	if p.cfg.Sink != nil {
		p.cfg.Sink.Episode(e)
	}
	delete(p.fp, e.Key)
	if p.open > 0 {
		p.open--
	}
	if !p.cfg.NoSnapshots {
		// The episode itself, not a copy: the timeline has let go of it
		// (emit) and the sinks only read it, so a view may keep it. A copy
		// made every finished election cost as much again as the timeline
		// held while tens of thousands were finishing at once (Close).
		p.pendFinished = append(p.pendFinished, e)
	}
	p.dirty = true
}

func (t sinkTee) ProducerError(pe *timeline.ProducerError) {
	p := t.p
	p.col.ProducerError(pe)
	if p.cfg.Sink != nil {
		p.cfg.Sink.ProducerError(pe)
	}
	if pe.Election != nil {
		p.touch(pe.Election.Topic, pe.Election.Partition) // its count of errors
	}
	if !p.cfg.NoSnapshots {
		c := *pe
		if pe.Election != nil {
			k := *pe.Election
			c.Election = &k
		}
		p.pendErrors = append(p.pendErrors, &c)
	}
	p.dirty = true
}

func (t sinkTee) Burst(b *timeline.Burst) {
	p := t.p
	p.col.Burst(b)
	if p.cfg.Sink != nil {
		p.cfg.Sink.Burst(b)
	}
	if !p.cfg.NoSnapshots {
		c := *b
		c.Durations = append([]time.Duration(nil), b.Durations...)
		c.CauseBrokers = append([]int32(nil), b.CauseBrokers...)
		p.pendBursts = append(p.pendBursts, &c)
	}
}

// fingerprint hashes what a live view shows of an episode.
func fingerprint(e *timeline.Episode, logsVer int) uint64 {
	// FNV-1a over whole words: it runs for every open episode at every
	// snapshot.
	h := uint64(14695981039346656037)
	put := func(v int64) {
		h ^= uint64(v)
		h *= 1099511628211
	}
	tm := func(t time.Time) {
		if t.IsZero() {
			put(0)
		} else {
			put(t.UnixNano())
		}
	}
	put(int64(e.Leader))
	put(int64(e.PreviousLeader))
	put(int64(e.Controller))
	put(int64(e.ControllerEpoch))
	put(int64(e.Cause))
	put(int64(len(e.CauseBrokers)))
	put(int64(len(e.ISR)))
	put(int64(len(e.Replicas)))
	tm(e.Decided)
	tm(e.SentLeaderAndIsr)
	tm(e.SentUpdateMetadata)
	tm(e.Start)
	tm(e.End)
	tm(e.LastActivity)
	var flags int64
	for i, f := range []bool{e.Transition, e.Unclean, e.Resent, e.CarriedOver} {
		if f {
			flags |= 1 << i
		}
	}
	put(flags)
	put(int64(e.Late))
	put(int64(e.ProducerErrors))
	put(int64(e.BurstID))
	put(int64(len(e.Truncations)))
	put(int64(len(e.Brokers)))
	for _, bt := range e.Brokers {
		put(int64(bt.Broker))
		put(int64(bt.Role))
		put(int64(bt.Repeats))
		put(int64(bt.Elapsed))
		for _, t := range bt.Phases {
			tm(t)
		}
	}
	put(int64(logsVer)) // what it waits for may have changed
	return h
}
