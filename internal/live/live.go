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
// Files present at the start are first read back from Config.Since (found
// with follow.SeekBackByTime and parser.ParseHeader), or from their first
// byte with Config.FromStart, and these read-back regions are merged by
// time across files, exactly as the batch audit merges whole files. The
// follower then takes each file on from the byte where its read-back
// stopped, so no line is read twice or skipped. Files that appear later
// are read from their first byte.
//
// # Time
//
// The timeline is advanced with event time: the newest timestamp read.
// Once the read-back is done and every input has been silent for
// Config.IdleAdvance (default 1 s), event time is taken to move on with
// the wall clock from the newest line's time, so that waiting producer
// errors get matched and quiet elections end even when the logs go quiet.
// A parser whose file has been silent for Config.IdleFlush (default
// 250 ms) is flushed, so a multi-line record is not held back.
//
// Episodes are handed to the sinks (the report collector, Config.Sink,
// Snapshot.Finished) when the timeline finishes them, which is
// StaleWindow after they ended (see timeline.Config); before that they
// are open and each snapshot carries the open ones that changed.
package live

import (
	"container/heap"
	"context"
	"errors"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
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
	// directories (every file directly in them that Match accepts,
	// including files that appear later).
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

type src struct {
	index    int
	path     string
	abs      string
	parser   *parser.Parser
	lastLine time.Time // wall
	flushed  bool
	bytes    int64
	cut      int64
	err      string
	read     bool
	skew     time.Duration
	remote   bool // a stream of Config.Remote, not a file
}

// Pipeline follows files and runs the engine over them.
type Pipeline struct {
	cfg    Config
	loc    *time.Location
	f      *follow.Follower
	tl     *timeline.Timeline
	col    *report.Collector
	out    chan *Snapshot
	starts []*startFile

	srcs   []*src
	byAbs  map[string]*src
	byPath map[string]*src

	lines, events int64
	live          bool
	started       bool // the follower runs
	backTotal     int64
	backDone      int64

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

	binMu  sync.Mutex
	binary map[string]bool // base names of binary files in directory inputs

	item []item
	runs [][]item
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
		out:    make(chan *Snapshot, 1),
		byAbs:  map[string]*src{},
		byPath: map[string]*src{},
		fp:     map[timeline.Key]uint64{},
		binary: map[string]bool{},
	}
	p.col = cfg.Collector
	if p.col == nil {
		p.col = report.NewCollector(report.Options{Loc: cfg.Loc, ZoneNote: cfg.ZoneNote})
	}
	p.tl = timeline.New(cfg.Timeline, sinkTee{p})

	p.starts = expand(cfg.Paths, cfg.Match)
	for _, sf := range p.starts {
		s := p.source(sf.path, sf.abs)
		lt := lineTime(s.parser.Location())
		f, err := os.Open(sf.path)
		if err != nil {
			sf.err = err
			sf.off = sf.size
			continue
		}
		if fi, err := f.Stat(); err == nil {
			sf.fi, sf.size = fi, fi.Size()
		}
		switch {
		case binaryStart(f):
			sf.off = sf.size
			p.binMu.Lock()
			p.binary[filepath.Base(sf.abs)] = true
			p.binMu.Unlock()
		case cfg.FromStart:
			sf.off = 0
		case !cfg.Since.IsZero():
			sf.off = follow.SeekBackByTime(f, sf.size, cfg.Since, lt)
		default:
			sf.off = sf.size
		}
		f.Close()
		p.backTotal += sf.size - sf.off
	}
	if len(cfg.Paths) == 0 {
		return p, nil
	}
	match := cfg.Match
	fl, err := follow.New(cfg.Paths, follow.Options{
		Match: func(name string) bool {
			if !match(name) {
				return false
			}
			p.binMu.Lock()
			defer p.binMu.Unlock()
			return !p.binary[name]
		},
		Poll:         cfg.Poll,
		PollInterval: cfg.PollInterval,
		StartOffset:  p.startOffset,
	})
	if err != nil {
		return nil, err
	}
	p.f = fl
	return p, nil
}

// startOffset (called by the follower) continues each file present at
// the start from where its read-back stopped.
func (p *Pipeline) startOffset(path string, r io.ReaderAt, size int64) int64 {
	var fi os.FileInfo
	if st, ok := r.(interface{ Stat() (os.FileInfo, error) }); ok {
		fi, _ = st.Stat()
	}
	abs, _ := filepath.Abs(path)
	for _, sf := range p.starts {
		if sf.fi == nil {
			continue
		}
		if (fi != nil && os.SameFile(fi, sf.fi)) || (fi == nil && abs == sf.abs) {
			if sf.size > size {
				return 0 // shrank since: truncated, read it all
			}
			return sf.size
		}
	}
	// Not there when the read-back was planned: new, read it all.
	return 0
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

// source returns the source for a path, creating it.
func (p *Pipeline) source(path, abs string) *src {
	if s := p.byPath[path]; s != nil {
		return s
	}
	if abs == "" {
		var err error
		if abs, err = filepath.Abs(path); err != nil {
			abs = path
		}
	}
	s := p.byAbs[abs]
	if s == nil {
		s = &src{index: len(p.srcs), path: path, abs: abs, parser: parser.New(p.locFor(path)), flushed: true}
		s.parser.PathBroker = p.brokerFor(path)
		if p.cfg.SkewFor != nil {
			s.skew = p.cfg.SkewFor(path)
		}
		p.srcs = append(p.srcs, s)
		p.byAbs[abs] = s
	}
	p.byPath[path] = s
	return s
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

// readBack reads the start regions of the files present at the start,
// merged by time.
func (p *Pipeline) readBack(ctx context.Context) {
	var h backlogHeap
	defer func() {
		for _, b := range h {
			b.f.Close()
		}
	}()
	for _, sf := range p.starts {
		if sf.off >= sf.size || sf.err != nil {
			continue
		}
		f, err := os.Open(sf.path)
		if err != nil {
			continue
		}
		if fi, err := f.Stat(); err != nil || !os.SameFile(fi, sf.fi) {
			f.Close() // replaced since New: the follower reads the new one
			continue
		}
		s := p.source(sf.path, sf.abs)
		s.read = true
		// Flushed once idle, like a file that was just written to: a
		// record at the end of the read-back may wait for more lines.
		s.flushed, s.lastLine = false, time.Now()
		b := &backlogReader{src: s, f: f, lr: source.NewLineReader(io.NewSectionReader(f, sf.off, sf.size-sf.off), source.MaxLine)}
		if b.next(p) {
			h = append(h, b)
		} else {
			p.backDone += b.lr.Bytes
			s.bytes += b.lr.Bytes
			s.cut += b.lr.Cut
			f.Close()
		}
	}
	heap.Init(&h)
	wall := time.Now()
	n := 0
	for h.Len() > 0 {
		b := h[0]
		ev := &b.buf[b.pos]
		p.add(b.src.index, ev, wall)
		b.pos++
		if !b.next(p) {
			heap.Pop(&h)
			p.backDone += b.lr.Bytes
			b.src.bytes += b.lr.Bytes
			b.src.cut += b.lr.Cut
			b.f.Close()
		} else {
			heap.Fix(&h, 0)
		}
		n++
		if n&1023 == 0 {
			if ctx.Err() != nil {
				return
			}
			wall = time.Now()
			p.tl.Advance(p.tl.Watermark())
			p.sinceAdvance = 0
			if wall.Sub(p.lastSend) >= p.cfg.Interval {
				p.trySend(wall)
			}
		}
	}
	if !p.tl.Watermark().IsZero() {
		p.tl.Advance(p.tl.Watermark())
	}
}

// add feeds one event to the timeline.
func (p *Pipeline) add(srcIdx int, ev *parser.Event, wall time.Time) {
	if p.cfg.Observe != nil {
		p.cfg.Observe(srcIdx, ev)
	}
	if sk := p.srcs[srcIdx].skew; sk != 0 {
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
	p.events++
	p.tl.Add(srcIdx, ev)
	p.sinceAdvance++
	p.dirty = true
}

// follow is the live loop. It ends when the follower closes its lines
// (it does once ctx is done), or with ctx when there is no follower.
func (p *Pipeline) follow(ctx context.Context, remote <-chan []follow.Line) {
	tick := time.NewTicker(p.cfg.Interval)
	defer tick.Stop()
	var lines <-chan []follow.Line
	var errs <-chan error
	var done <-chan struct{}
	if p.f != nil {
		lines, errs = p.f.Lines(), p.f.Errors()
	} else {
		done = ctx.Done()
	}
	for {
		select {
		case batch, ok := <-lines:
			if !ok {
				return
			}
			p.batch(batch)
			if p.sinceAdvance >= 1024 {
				p.advance(time.Now())
			}
		case batch, ok := <-remote:
			if !ok {
				// The store gave up; files go on being followed.
				remote = nil
				continue
			}
			for _, l := range batch {
				p.source(l.Path, "").remote = true
			}
			p.batch(batch)
			if p.sinceAdvance >= 1024 {
				p.advance(time.Now())
			}
		case <-done:
			return
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			p.noteError(err)
		case now := <-tick.C:
			p.idle(now)
			p.advance(now)
			p.trySend(now)
		}
	}
}

func (p *Pipeline) noteError(err error) {
	var pe *os.PathError
	if errors.As(err, &pe) {
		if s := p.byPath[pe.Path]; s != nil {
			s.err = err.Error()
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
		s := p.source(l.Path, "")
		s.lastLine, s.flushed, s.read = now, false, true
		s.bytes += int64(len(l.Text)) + 1
		if l.Truncated {
			s.cut++
		}
		for len(p.runs) <= s.index {
			p.runs = append(p.runs, nil)
		}
		idx := s.index
		s.parser.Line(l.Text, func(ev *parser.Event) { p.runs[idx] = append(p.runs[idx], item{idx, *ev}) })
		p.lines++
	}
	p.merge(now)
	p.dirty = true
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
		p.add(it.src, &it.ev, wall)
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
	s.parser.Flush(func(ev *parser.Event) { p.add(s.index, ev, wall) })
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
	s := &Snapshot{Seq: p.seq, Wall: now, Now: p.clock(now), Live: p.live}
	open := p.tl.Open()
	for _, e := range open {
		h := fingerprint(e)
		if old, ok := p.fp[e.Key]; ok && old == h {
			continue
		}
		p.fp[e.Key] = h
		s.Changed = append(s.Changed, e.Clone())
	}
	s.Finished, s.Errors, s.Bursts = p.pendFinished, p.pendErrors, p.pendBursts
	p.pendFinished, p.pendErrors, p.pendBursts = nil, nil, nil
	s.Stats = p.stats(now, len(open))
	return s
}

func (p *Pipeline) stats(now time.Time, open int) Stats {
	st := Stats{Lines: p.lines, Events: p.events, Open: open, Late: p.tl.Stats.Late, Orphans: p.tl.Stats.Orphans,
		ProducerErrors: p.tl.Stats.ProducerErrs, ReadingBack: !p.live}
	if p.backTotal > 0 {
		st.BacklogDone = float64(p.backDone) / float64(p.backTotal)
	} else {
		st.BacklogDone = 1
	}
	// Lines a second over the last second or so.
	p.rate = append(p.rate, rateSample{now, p.lines})
	for len(p.rate) > 2 && now.Sub(p.rate[1].t) >= time.Second {
		p.rate = p.rate[1:]
	}
	if r0 := p.rate[0]; now.Sub(r0.t) > 0 {
		st.LinesPerSec = float64(p.lines-r0.lines) / now.Sub(r0.t).Seconds()
	}
	brokers := map[int32]bool{}
	for _, s := range p.srcs {
		st.NotUnderstood += s.parser.Stats.NotUnderstood
		for _, b := range s.parser.Stats.Brokers {
			brokers[b] = true
		}
		for _, b := range s.parser.Stats.Controllers {
			brokers[b] = true
		}
	}
	for b := range brokers {
		st.Brokers = append(st.Brokers, b)
	}
	sort.Slice(st.Brokers, func(i, j int) bool { return st.Brokers[i] < st.Brokers[j] })
	if p.started && p.f != nil {
		for _, fs := range p.f.Files() {
			s := p.source(fs.Path, "")
			fst := FileStatus{Path: fs.Path, Lines: s.parser.Stats.Lines, NotUnderstood: s.parser.Stats.NotUnderstood, Missing: fs.Missing}
			if fs.Err != nil {
				fst.Err = fs.Err.Error()
			}
			st.Files = append(st.Files, fst)
		}
	} else {
		for _, sf := range p.starts {
			s := p.byAbs[sf.abs]
			fst := FileStatus{Path: sf.path, Lines: s.parser.Stats.Lines, NotUnderstood: s.parser.Stats.NotUnderstood}
			if sf.err != nil {
				fst.Err = sf.err.Error()
			}
			st.Files = append(st.Files, fst)
		}
	}
	for _, s := range p.srcs {
		if s.remote {
			st.Files = append(st.Files, FileStatus{Path: s.path, Lines: s.parser.Stats.Lines, NotUnderstood: s.parser.Stats.NotUnderstood})
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

// Inputs are the files and streams read (or that failed), as the batch
// reader's sources, for the report. Call after Run.
func (p *Pipeline) Inputs() []*source.Source {
	var out []*source.Source
	for _, s := range p.srcs {
		if !s.read && s.err == "" {
			continue
		}
		ps := &source.Source{Input: source.Input{Path: s.path}, Index: s.index, Loc: s.parser.Location(), Stats: s.parser.Stats, Read: s.read, Bytes: s.bytes, Skew: s.skew}
		ps.Stats.CutLines = s.cut
		if s.err != "" {
			ps.Err = errors.New(s.err)
		}
		out = append(out, ps)
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
	if !p.cfg.NoSnapshots {
		p.pendFinished = append(p.pendFinished, e.Clone())
	}
	p.dirty = true
}

func (t sinkTee) ProducerError(pe *timeline.ProducerError) {
	p := t.p
	p.col.ProducerError(pe)
	if p.cfg.Sink != nil {
		p.cfg.Sink.ProducerError(pe)
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
func fingerprint(e *timeline.Episode) uint64 {
	h := fnv.New64a()
	var b [8]byte
	put := func(v int64) {
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
		h.Write(b[:])
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
	for i, f := range []bool{e.Transition, e.Unclean, e.Resent} {
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
	return h.Sum64()
}
