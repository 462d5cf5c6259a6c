package gen

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

type level uint8

const (
	lvTRACE level = iota
	lvDEBUG
	lvINFO
	lvWARN
	lvERROR
)

var levelNames = [...]string{"TRACE", "DEBUG", "INFO", "WARN", "ERROR"}
var levelPadded = [...]string{"TRACE", "DEBUG", " INFO", " WARN", "ERROR"}

// rec is one pending log record. Its text lives in the owning sink's arena:
// arena[a:b] is the message, arena[b:c] an optional throwable (complete
// lines, each ending in '\n') printed after the record line.
type rec struct {
	ts     int64
	seq    uint32
	lvl    level
	a, b   uint32
	c      uint32
	logger string
	thread string
}

// sink is one output file. Records produced by the simulation are collected
// as pending records, sorted by time when a window is flushed, and merged
// with freshly generated noise records; everything is written through one
// large buffer.
type sink struct {
	name   string // path relative to the output directory, e.g. broker-1/server.log
	f      *os.File
	out    []byte
	ts     *tsCache
	spring bool   // Spring Boot console layout instead of log4j
	pid    string // Spring layout only

	arena   []byte
	pending []rec
	seq     uint32
	cur     rec
	msgEnd  bool

	lastTs       int64
	written      int64 // bytes written to the file (complete after close)
	queued       int64 // bytes handed to the async writer
	lines        int64 // physical lines written
	counted      int64 // pending records added (leadership lines for the noise ratio)
	noiseRecords int64
	noiseEvents  int64

	noise       *noiseSource // nil: this file gets no unrelated lines
	noiseWeight int

	wr *asyncWriter // nil: write synchronously
}

// asyncWriter performs the file writes of all sinks on one goroutine so that
// formatting (the generator's goroutine) and write system calls overlap.
// Jobs are handled in order, so every file receives its buffers in order.
type asyncWriter struct {
	jobs chan writeJob
	free chan []byte
	done chan struct{}
	err  error
}

type writeJob struct {
	s   *sink
	buf []byte
}

func newAsyncWriter() *asyncWriter {
	w := &asyncWriter{jobs: make(chan writeJob, 8), free: make(chan []byte, 16), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for j := range w.jobs {
			n, err := j.s.f.Write(j.buf)
			j.s.written += int64(n) // read by the generator only after close
			if err != nil && w.err == nil {
				w.err = err
			}
			select {
			case w.free <- j.buf[:0]:
			default:
			}
		}
	}()
	return w
}

func (w *asyncWriter) close() error {
	close(w.jobs)
	<-w.done
	return w.err
}

const sinkFlushBytes = 4 << 20

func newSink(dir, name string, ts *tsCache) (*sink, error) {
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(p)
	if err != nil {
		return nil, err
	}
	return &sink{name: name, f: f, ts: ts, out: make([]byte, 0, 64<<10)}, nil
}

// begin starts a pending record and returns the arena to append the message to.
func (s *sink) begin(ts int64, lv level, logger string) []byte {
	s.cur = rec{ts: ts, lvl: lv, logger: logger, a: uint32(len(s.arena))}
	s.msgEnd = false
	return s.arena
}

// beginT is begin with a thread name (used by the Spring layout).
func (s *sink) beginT(ts int64, lv level, logger, thread string) []byte {
	b := s.begin(ts, lv, logger)
	s.cur.thread = thread
	return b
}

// endMsg marks the end of the message; what is appended after it until end
// is the throwable text.
func (s *sink) endMsg(b []byte) []byte {
	s.cur.b = uint32(len(b))
	s.msgEnd = true
	return b
}

// end finishes the pending record started by begin.
func (s *sink) end(b []byte) {
	if !s.msgEnd {
		s.cur.b = uint32(len(b))
	}
	s.cur.c = uint32(len(b))
	s.arena = b
	s.cur.seq = s.seq
	s.seq++
	s.pending = append(s.pending, s.cur)
	s.counted++
}

// line is a convenience for a one-piece message.
func (s *sink) line(ts int64, lv level, logger, msg string) {
	b := s.begin(ts, lv, logger)
	b = append(b, msg...)
	s.end(b)
}

// maxPending returns the largest pending timestamp (or -1).
func (s *sink) maxPending() int64 {
	m := int64(-1)
	for i := range s.pending {
		if s.pending[i].ts > m {
			m = s.pending[i].ts
		}
	}
	return m
}

// writeRec renders one record into the output buffer.
func (s *sink) writeRec(r *rec, arena []byte) {
	ts := r.ts
	if ts < s.lastTs {
		ts = s.lastTs // never go back in time within one file
	}
	s.lastTs = ts
	msg := arena[r.a:r.b]
	thr := arena[r.b:r.c]
	o := s.out
	if s.spring {
		o = s.ts.appendISO(o, ts)
		o = append(o, ' ')
		o = append(o, levelPadded[r.lvl]...)
		o = append(o, ' ')
		o = append(o, s.pid...)
		o = append(o, " --- ["...)
		o = appendThread15(o, r.thread)
		o = append(o, "] "...)
		o = append(o, springLogger(r.logger)...)
		o = append(o, " : "...)
		o = append(o, msg...)
		o = append(o, '\n')
		s.lines++
		if len(thr) > 0 {
			// Logback's %wEx: an empty line, then the throwable.
			o = append(o, '\n')
			o = append(o, thr...)
			s.lines++
		}
	} else {
		o = append(o, '[')
		o = s.ts.appendLog4j(o, ts)
		o = append(o, "] "...)
		o = append(o, levelNames[r.lvl]...)
		o = append(o, ' ')
		o = append(o, msg...)
		o = append(o, " ("...)
		o = append(o, r.logger...)
		o = append(o, ")\n"...)
		o = append(o, thr...)
		s.lines++
	}
	for _, c := range msg {
		if c == '\n' {
			s.lines++
		}
	}
	for _, c := range thr {
		if c == '\n' {
			s.lines++
		}
	}
	s.out = o
	if len(s.out) >= sinkFlushBytes {
		s.flushOut()
	}
}

func (s *sink) flushOut() error {
	if len(s.out) == 0 {
		return nil
	}
	if s.wr != nil {
		s.queued += int64(len(s.out))
		s.wr.jobs <- writeJob{s: s, buf: s.out}
		select {
		case b := <-s.wr.free:
			s.out = b
		default:
			s.out = make([]byte, 0, sinkFlushBytes+64<<10)
		}
		return nil
	}
	n, err := s.f.Write(s.out)
	s.written += int64(n)
	s.out = s.out[:0]
	return err
}

// flushWindow writes every pending record with ts < until, merged with
// nNoise unrelated records spread uniformly over [from, until).
func (s *sink) flushWindow(from, until int64, nNoise int, g *rng) {
	slices.SortStableFunc(s.pending, func(x, y rec) int {
		switch {
		case x.ts < y.ts:
			return -1
		case x.ts > y.ts:
			return 1
		}
		return 0
	})
	cut := len(s.pending)
	for i := range s.pending {
		if s.pending[i].ts >= until {
			cut = i
			break
		}
	}
	var times []int64
	if nNoise > 0 && s.noise != nil && until > from {
		times = spreadTimes(g, from, until, nNoise)
	}
	ni := 0
	for i := 0; i < cut; i++ {
		for ni < len(times) && times[ni] <= s.pending[i].ts {
			s.writeNoise(times[ni])
			ni++
		}
		s.writeRec(&s.pending[i], s.arena)
	}
	for ; ni < len(times); ni++ {
		s.writeNoise(times[ni])
	}
	// keep records that belong to a later window
	rest := s.pending[cut:]
	if len(rest) == 0 {
		s.pending = s.pending[:0]
		s.arena = s.arena[:0]
		return
	}
	var arena []byte
	kept := make([]rec, 0, len(rest))
	for _, r := range rest {
		a := uint32(len(arena))
		arena = append(arena, s.arena[r.a:r.c]...)
		r.b = a + (r.b - r.a)
		r.c = a + (r.c - r.a)
		r.a = a
		kept = append(kept, r)
	}
	s.arena = arena
	s.pending = kept
}

// writeNoise generates one unrelated record (possibly several physical
// lines) at ts and writes it immediately.
func (s *sink) writeNoise(ts int64) {
	s.noiseEvents++
	mark := len(s.arena)
	base := len(s.pending)
	s.noise.emit(s, ts)
	// emit appended complete records to pending; write and drop them now
	start := len(s.pending)
	for start > base && s.pending[start-1].a >= uint32(mark) {
		start--
	}
	for i := start; i < len(s.pending); i++ {
		s.writeRec(&s.pending[i], s.arena)
		s.counted--
		s.noiseRecords++
	}
	s.pending = s.pending[:start]
	s.arena = s.arena[:mark]
}

// spreadTimes returns n sorted times in [from, until) with uniform density.
func spreadTimes(g *rng, from, until int64, n int) []int64 {
	out := make([]int64, n)
	span := float64(until - from)
	// exponential spacings normalised to the span give sorted uniforms in O(n)
	sum := 0.0
	acc := make([]float64, n+1)
	for i := 0; i <= n; i++ {
		sum += g.r.ExpFloat64()
		acc[i] = sum
	}
	for i := 0; i < n; i++ {
		t := from + int64(span*acc[i]/sum)
		if t >= until {
			t = until - 1
		}
		out[i] = t
	}
	return out
}

// close flushes the buffer; with an async writer the file is closed by
// generator.closeAll once the writer has drained.
func (s *sink) close() error {
	err := s.flushOut()
	if s.wr != nil {
		return err
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func appendThread15(b []byte, t string) []byte {
	if len(t) > 15 {
		return append(b, t[len(t)-15:]...)
	}
	for i := len(t); i < 15; i++ {
		b = append(b, ' ')
	}
	return append(b, t...)
}

var springLoggerCache = map[string]string{}

// springLogger renders Logback's %-40.40logger{39}.
func springLogger(l string) string {
	if v, ok := springLoggerCache[l]; ok {
		return v
	}
	v := abbreviateLogger(l, 39)
	if len(v) > 40 {
		v = v[len(v)-40:]
	}
	for len(v) < 40 {
		v += " "
	}
	springLoggerCache[l] = v
	return v
}

// abbreviateLogger follows Logback's TargetLengthBasedClassNameAbbreviator:
// leading package segments are cut to their first letter, left to right,
// until the name fits; the class name itself is never shortened.
func abbreviateLogger(fqcn string, target int) string {
	if len(fqcn) <= target {
		return fqcn
	}
	var segs []string
	start := 0
	for i := 0; i < len(fqcn); i++ {
		if fqcn[i] == '.' {
			segs = append(segs, fqcn[start:i])
			start = i + 1
		}
	}
	segs = append(segs, fqcn[start:])
	toTrim := len(fqcn) - target
	out := make([]byte, 0, len(fqcn))
	for i, sg := range segs {
		if i < len(segs)-1 && toTrim > 0 && len(sg) > 1 {
			toTrim -= len(sg) - 1
			out = append(out, sg[0])
		} else {
			out = append(out, sg...)
		}
		if i < len(segs)-1 {
			out = append(out, '.')
		}
	}
	return string(out)
}

// small append helpers used by all emitters

func ai(b []byte, n int64) []byte   { return strconv.AppendInt(b, n, 10) }
func ai32(b []byte, n int32) []byte { return strconv.AppendInt(b, int64(n), 10) }
