package live

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/report"
	"github.com/leaderaudit/leaderaudit/internal/source"
	"github.com/leaderaudit/leaderaudit/internal/unpriv"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

func sample(t *testing.T, prefix string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join("..", "..", "testdata", "samples", prefix+"-*.log"))
	if err != nil || len(m) != 1 {
		t.Fatalf("sample %s: %v %v", prefix, m, err)
	}
	return m[0]
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// recorder is a timeline.Sink that keeps JSON lines.
type recorder struct {
	mu    sync.Mutex
	jw    *report.JSONWriter
	buf   bytes.Buffer
	lines []string
}

func newRecorder() *recorder {
	r := &recorder{}
	r.jw = report.NewJSONWriter(&r.buf, time.UTC)
	return r
}

func (r *recorder) take() {
	r.jw.Flush()
	for _, l := range strings.Split(strings.TrimSpace(r.buf.String()), "\n") {
		if l != "" {
			r.lines = append(r.lines, l)
		}
	}
	r.buf.Reset()
}
func (r *recorder) Episode(e *timeline.Episode) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.jw.Episode(e)
	r.take()
}
func (r *recorder) ProducerError(pe *timeline.ProducerError) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.jw.ProducerError(pe)
	r.take()
}
func (r *recorder) Burst(b *timeline.Burst) {}
func (r *recorder) sorted() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := append([]string(nil), r.lines...)
	sort.Strings(s)
	return s
}

// batch runs the batch engine the way `audit` does.
func batch(paths []string) []string {
	var ins []source.Input
	for _, p := range paths {
		ins = append(ins, source.Input{Path: p, Chain: p})
	}
	rd := source.NewReader(ins, func(string) *time.Location { return time.UTC })
	rec := newRecorder()
	tl := timeline.New(timeline.Config{}, rec)
	var n int64
	rd.Run(context.Background(), func(src int, ev *parser.Event) {
		tl.Add(src, ev)
		n++
		if n&1023 == 0 {
			tl.Advance(ev.Time)
		}
	})
	tl.Close()
	return rec.sorted()
}

// drain consumes updates until cond holds for everything seen so far.
func drain(t *testing.T, p *Pipeline, deadline time.Duration, cond func(seen *seen) bool) *seen {
	t.Helper()
	s := &seen{eps: map[timeline.Key]*timeline.Episode{}}
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	for {
		select {
		case snap, ok := <-p.Updates():
			if !ok {
				t.Fatalf("updates closed before the condition held; seen %d episodes, %d errors", len(s.eps), len(s.errs))
			}
			s.apply(snap)
			if cond(s) {
				return s
			}
		case <-timer.C:
			t.Fatalf("condition not met within %v; seen %d episodes, %d errors, last stats %+v", deadline, len(s.eps), len(s.errs), s.last.Stats)
		}
	}
}

type seen struct {
	eps  map[timeline.Key]*timeline.Episode
	errs []*timeline.ProducerError
	last *Snapshot
}

func (s *seen) apply(snap *Snapshot) {
	for _, e := range snap.Changed {
		s.eps[e.Key] = e
	}
	for _, e := range snap.Finished {
		s.eps[e.Key] = e
	}
	s.errs = append(s.errs, snap.Errors...)
	s.last = snap
}

func (s *seen) has(topic string, part, epoch int32) bool {
	_, ok := s.eps[timeline.Key{Topic: topic, Partition: part, LeaderEpoch: epoch}]
	return ok
}

func run(t *testing.T, cfg Config) (*Pipeline, context.CancelFunc, chan error) {
	t.Helper()
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		for range p.Updates() {
		}
		<-done
	})
	return p, cancel, done
}

// stop cancels the pipeline and waits for it, draining updates.
func stop(t *testing.T, p *Pipeline, cancel context.CancelFunc, done chan error) {
	t.Helper()
	cancel()
	for range p.Updates() {
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	done <- nil // for Cleanup
}

// Reading whole files from the start gives the batch audit's elections and
// producer errors, record for record.
func TestFromStartMatchesBatch(t *testing.T) {
	for _, set := range [][]string{{"039", "038"}, {"017"}, {"035"}, {"041"}, {"008"}, {"052"}} {
		t.Run(strings.Join(set, "+"), func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			for i, pre := range set {
				to := filepath.Join(dir, fmt.Sprintf("%d-%s.log", i, pre))
				copyFile(t, sample(t, pre), to)
				paths = append(paths, to)
			}
			want := batch(paths)
			rec := newRecorder()
			p, cancel, done := run(t, Config{Paths: paths, Loc: time.UTC, FromStart: true, IdleAdvance: -1, Sink: rec})
			drain(t, p, 20*time.Second, func(s *seen) bool { return s.last.Live })
			stop(t, p, cancel, done)
			got := rec.sorted()
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("live records differ from batch: got %d, want %d", len(got), len(want))
				for i := 0; i < len(got) || i < len(want); i++ {
					var g, w string
					if i < len(got) {
						g = got[i]
					}
					if i < len(want) {
						w = want[i]
					}
					if g != w {
						t.Logf("first difference at %d:\n got  %s\n want %s", i, g, w)
						break
					}
				}
			}
		})
	}
}

// appendLines writes lines to path one write at a time.
func appendLines(t *testing.T, path string, lines []string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			t.Error(err)
			return
		}
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// An incident appended line by line to files that are being followed
// shows up as it is written: elections, and the producer error it caused.
func TestAppendIncidentWhileFollowing(t *testing.T) {
	for _, poll := range []bool{false, true} {
		t.Run(fmt.Sprintf("poll=%v", poll), func(t *testing.T) {
			dir := t.TempDir()
			sc := filepath.Join(dir, "state-change.log")
			prod := filepath.Join(dir, "producer.log")
			// The old content is before --since: not shown.
			appendLines(t, sc, readLines(t, sample(t, "002")))
			p, cancel, done := run(t, Config{Paths: []string{dir}, Loc: time.UTC, Since: time.Now().Add(-time.Minute), Poll: poll, PollInterval: 20 * time.Millisecond})
			drain(t, p, 10*time.Second, func(s *seen) bool { return s.last.Live })
			go func() {
				appendLines(t, filepath.Join(dir, "controller.log"), readLines(t, sample(t, "038")))
				lines := readLines(t, sample(t, "039"))
				for i := 0; i < len(lines); i += 7 {
					appendLines(t, sc, lines[i:min(i+7, len(lines))])
					if i == 14 {
						appendLines(t, prod, []string{
							EvilProducerLine,
						})
					}
				}
			}()
			s := drain(t, p, 20*time.Second, func(s *seen) bool {
				return s.has("erstesTopic", 0, 11) && s.has("erstesTopic", 1, 10) && len(s.errs) > 0
			})
			e := s.eps[timeline.Key{Topic: "erstesTopic", Partition: 1, LeaderEpoch: 10}]
			if e.Leader != 0 || e.Cause != parser.CauseControlledShutdown {
				t.Errorf("erstesTopic-1 epoch 10: leader %d cause %s", e.Leader, e.Cause)
			}
			pe := s.errs[0]
			if pe.Match != timeline.MatchDuring || pe.Election == nil || pe.Election.Partition != 1 {
				t.Errorf("producer error: match %s election %v", pe.Match, pe.Election)
			}
			for k := range s.eps {
				if k.Topic != "erstesTopic" {
					t.Errorf("episode %v from before --since shown", k)
				}
			}
			st := s.last.Stats
			if st.Followed != 3 || st.Lines == 0 {
				t.Errorf("stats: %+v", st)
			}
			stop(t, p, cancel, done)
			var out bytes.Buffer
			if err := report.New(p.Collector(), p.Timeline(), p.Sources(), false).WriteText(&out); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "erstesTopic-1") || strings.Contains(out.String(), "\x1b") {
				t.Errorf("summary:\n%s", out.String())
			}
		})
	}
}

// --since reads back only the lines at or after it.
func TestSinceReadBack(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state-change.log")
	copyFile(t, sample(t, "035"), path)
	all := batch([]string{path})
	if len(all) < 10 {
		t.Fatalf("sample too small: %d", len(all))
	}
	// Start from the middle of the file's time range.
	lines := readLines(t, path)
	var rec parser.Record
	var since time.Time
	for _, l := range lines[len(lines)/2:] {
		if parser.ParseHeader([]byte(l), time.UTC, &rec) {
			since = rec.Time
			break
		}
	}
	p, cancel, done := run(t, Config{Paths: []string{path}, Loc: time.UTC, Since: since, IdleAdvance: -1})
	s := drain(t, p, 10*time.Second, func(s *seen) bool { return s.last.Live })
	stop(t, p, cancel, done)
	if len(s.eps) == 0 {
		t.Fatal("nothing read back")
	}
	for k, e := range s.eps {
		if e.Start.Before(since) {
			t.Errorf("%v starts %v, before since %v", k, e.Start, since)
		}
	}
	if st := s.last.Stats; st.Lines == 0 || st.Lines >= int64(len(lines)) {
		t.Errorf("read back %d of %d lines", st.Lines, len(lines))
	}
}

// A record held for continuation lines is flushed once its file is idle.
func TestIdleFlush(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "producer.log")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p, _, _ := run(t, Config{Paths: []string{path}, Loc: time.UTC, IdleAdvance: 10 * time.Millisecond})
	drain(t, p, 10*time.Second, func(s *seen) bool { return s.last.Live })
	// A final failure's callback line waits for its exception lines.
	appendLines(t, path, readLines(t, sample(t, "026")))
	s := drain(t, p, 10*time.Second, func(s *seen) bool { return len(s.errs) > 0 })
	if s.errs[0].Topic != "__mongodb_heartbeats" {
		t.Errorf("error %+v", s.errs[0])
	}
}

// Missing and unreadable files are reported, not fatal.
func TestMissingFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "controller.log")
	p, _, _ := run(t, Config{Paths: []string{missing}, Loc: time.UTC})
	s := drain(t, p, 10*time.Second, func(s *seen) bool { return s.last.Live && s.last.Stats.Missing == 1 })
	if s.last.Stats.Followed != 0 {
		t.Errorf("stats %+v", s.last.Stats)
	}
	appendLines(t, missing, readLines(t, sample(t, "038")))
	drain(t, p, 10*time.Second, func(s *seen) bool { return s.last.Stats.Followed == 1 && s.last.Stats.Lines > 0 })
}

func TestLogName(t *testing.T) {
	for name, want := range map[string]bool{
		"state-change.log": true, "state-change.log.2019-02-25-15": true, "server.log.1": true,
		"controller.log": true, "kafkaServer.out": true, "app.log": true, "app.log.2024-03-11": true,
		"server.log.2019-02-25-15.gz": false, "core": false, "x.tmp": false,
		// What audit's walk reads, so watch follows it too.
		".hidden.log": true,
	} {
		if LogName(name) != want {
			t.Errorf("LogName(%q) = %v", name, !want)
		}
	}
}

// EvilProducerLine is a producer retry during erstesTopic-1's election
// (sample 039) whose client id and error carry terminal control sequences:
// a screen clear and an OSC 52 clipboard write.
const EvilProducerLine = "[2021-04-28 16:12:30,892] WARN [Producer clientId=checkout\x1b[2J] Got error produce response with correlation id 5 on topic-partition erstesTopic-1, retrying (2 attempts left). Error: NOT_LEADER_OR_FOLLOWER\x1b]52;c;ZWNobyBwd25lZAo=\x07 (org.apache.kafka.clients.producer.internals.Sender)"

// A record at the very end of the read-back (waiting for continuation
// lines that never come) is flushed once the file is idle.
func TestReadBackTailFlushed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "producer.log")
	appendLines(t, path, readLines(t, sample(t, "026")))
	p, cancel, done := run(t, Config{Paths: []string{path}, Loc: time.UTC, FromStart: true, IdleAdvance: 10 * time.Millisecond})
	drain(t, p, 10*time.Second, func(s *seen) bool { return len(s.errs) > 0 })
	stop(t, p, cancel, done)
	if si := p.Sources(); len(si) != 1 || si[0].Last == nil || si[0].First == nil || *si[0].Last < *si[0].First {
		t.Errorf("source info %+v", si)
	}
}

// Following never writes, renames, locks or truncates what it reads: after
// a watch session the tree is byte-identical and its mtimes unchanged.
func TestWatchLeavesInputsUntouched(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	old := time.Now().Add(-2 * time.Hour).Truncate(time.Second)
	before := map[string][]byte{}
	for i, pre := range []string{"039", "038"} {
		to := filepath.Join(dir, fmt.Sprintf("%d-%s.log", i, pre))
		copyFile(t, sample(t, pre), to)
		os.Chtimes(to, old, old)
		b, _ := os.ReadFile(to)
		before[to] = b
		paths = append(paths, to)
	}
	p, cancel, done := run(t, Config{Paths: []string{dir}, Loc: time.UTC, FromStart: true, IdleAdvance: -1})
	drain(t, p, 20*time.Second, func(s *seen) bool { return s.last.Live })
	stop(t, p, cancel, done)
	for _, path := range paths {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		after, _ := os.ReadFile(path)
		if !bytes.Equal(after, before[path]) || !fi.ModTime().Equal(old) {
			t.Errorf("%s changed (mtime %v, want %v)", path, fi.ModTime(), old)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != len(paths) {
		t.Errorf("the directory gained or lost files: %d entries", len(ents))
	}
}

// A file's parser learns the broker its path names (kafka-2/), or the one
// --broker gives, as in the batch audit: a server.log's "Session expired."
// names no broker itself.
func TestBrokerFromPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kafka-2")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "server.log")
	line := "[2021-06-14 10:15:24,902] INFO [ZooKeeperClient Kafka server] Session expired. (kafka.zookeeper.ZooKeeperClient)\n"
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		brokerFor func(string) int32
		want      int32
	}{{nil, 2}, {func(string) int32 { return 7 }, 7}} {
		p, cancel, done := run(t, Config{Paths: []string{path}, Loc: time.UTC, FromStart: true, IdleAdvance: -1, BrokerFor: c.brokerFor})
		drain(t, p, 20*time.Second, func(s *seen) bool { return s.last.Live })
		stop(t, p, cancel, done)
		if len(p.srcs) != 1 || p.srcs[0].parser.PathBroker != c.want {
			t.Errorf("broker from path: %d sources, want one with broker %d", len(p.srcs), c.want)
		} else if got := p.srcs[0].parser.Stats.Brokers; len(got) != 0 {
			t.Errorf("lines named brokers %v: the path is not what decided", got)
		}
	}
}

// --skew GLOB=OFFSET while following: the file's events come out moved back
// by the offset, as the batch reader moves them (source.Source.Skew).
func TestSkewForMatchesBatch(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "0-039.log")
	copyFile(t, sample(t, "039"), path)
	const off = 120 * time.Millisecond
	// Batch, with the offset on the source.
	rd := source.NewReader([]source.Input{{Path: path, Chain: path}}, func(string) *time.Location { return time.UTC })
	rd.Sources[0].Skew = off
	rec := newRecorder()
	tl := timeline.New(timeline.Config{}, rec)
	rd.Run(context.Background(), func(src int, ev *parser.Event) { tl.Add(src, ev) })
	tl.Close()
	want := rec.sorted()
	plain := batch([]string{path})

	live := newRecorder()
	p, cancel, done := run(t, Config{Paths: []string{path}, Loc: time.UTC, FromStart: true, IdleAdvance: -1, Sink: live,
		SkewFor: func(string) time.Duration { return off }})
	drain(t, p, 20*time.Second, func(s *seen) bool { return s.last.Live })
	stop(t, p, cancel, done)
	got := live.sorted()
	if len(want) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("live with skew differs from batch with skew: %d vs %d records", len(got), len(want))
	}
	if strings.Join(got, "\n") == strings.Join(plain, "\n") {
		t.Fatal("the offset changed nothing")
	}
}

// A file that cannot be opened is a source whose Err is the error itself,
// not its text rebuilt: errors.Is finds the permission error through it
// (it did not when the pipeline kept only the message).
func TestUnreadableFileErrorIsKept(t *testing.T) {
	if unpriv.Elsewhere(t) {
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "server.log")
	copyFile(t, sample(t, "038"), path)
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	p, cancel, done := run(t, Config{Paths: []string{dir}, Loc: time.UTC, FromStart: true})
	drain(t, p, 10*time.Second, func(s *seen) bool { return s.last.Live && s.last.Stats.Unreadable == 1 })
	stop(t, p, cancel, done)
	var got error
	for _, s := range p.Inputs() {
		if s.Path == path {
			got = s.Err
		}
	}
	if !errors.Is(got, fs.ErrPermission) {
		t.Fatalf("source error %v (%T): errors.Is(err, fs.ErrPermission) is false", got, got)
	}
}

// A file that could not be opened at the start and was made readable
// while followed ends with no error: its lines were all read, so the
// command does not fail for it.
func TestUnreadableFileReadSinceHasNoError(t *testing.T) {
	if unpriv.Elsewhere(t) {
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "server.log")
	copyFile(t, sample(t, "038"), path)
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	p, cancel, done := run(t, Config{Paths: []string{dir}, Loc: time.UTC, FromStart: true})
	drain(t, p, 10*time.Second, func(s *seen) bool { return s.last.Live && s.last.Stats.Unreadable == 1 })
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	drain(t, p, 10*time.Second, func(s *seen) bool { return s.last.Stats.Unreadable == 0 && s.last.Stats.Lines > 0 })
	stop(t, p, cancel, done)
	for _, s := range p.Inputs() {
		if s.Path == path && (s.Err != nil || !s.Read) {
			t.Errorf("read %v, error %v", s.Read, s.Err)
		}
	}
}

// pointers is a timeline.Sink that keeps the episodes it is handed.
type pointers struct {
	mu  sync.Mutex
	got map[*timeline.Episode]bool
}

func (s *pointers) Episode(e *timeline.Episode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got[e] = true
}
func (*pointers) ProducerError(*timeline.ProducerError) {}
func (*pointers) Burst(*timeline.Burst)                 {}

// A finished episode reaches the screen as the timeline finished it, the
// one the sinks read, not a copy: the timeline has let go of it, and a copy
// doubled the memory of every election finishing at once (50,000 at
// Close: 40 MB).
func TestFinishedEpisodesAreNotCopied(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "0-017.log")
	copyFile(t, sample(t, "017"), path)
	sink := &pointers{got: map[*timeline.Episode]bool{}}
	p, cancel, done := run(t, Config{Paths: []string{path}, Loc: time.UTC, FromStart: true, IdleAdvance: -1, Sink: sink})
	drain(t, p, 20*time.Second, func(s *seen) bool { return s.last.Live })
	cancel()
	var finished []*timeline.Episode
	for s := range p.Updates() {
		finished = append(finished, s.Finished...)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	done <- nil // for Cleanup
	if len(finished) == 0 {
		t.Fatal("no episode finished")
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	for _, e := range finished {
		if !sink.got[e] {
			t.Fatalf("%v: the snapshot's episode is not the one the sink was handed", e.Key)
		}
	}
}
