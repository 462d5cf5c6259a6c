package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/feed"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

type episodes struct{ got []*timeline.Episode }

func (s *episodes) Episode(e *timeline.Episode)         { s.got = append(s.got, e) }
func (*episodes) ProducerError(*timeline.ProducerError) {}
func (*episodes) Burst(*timeline.Burst)                 {}

// openElections is the timeline holding 5,000 partitions elected ten times
// each within a second, as BenchmarkThroughput's open-elections burst
// (internal/live) logs them: a controller's decision and the follower's
// "starts at leader epoch" per election, 50,000 elections open at once.
func openElections(t *testing.T) *timeline.Timeline {
	t.Helper()
	tl := timeline.New(timeline.Config{}, &episodes{})
	p := parser.New(time.UTC)
	at := time.Date(2026, 12, 4, 1, 36, 4, 640_000_000, time.UTC)
	const parts, n = 5000, 100_000
	var line []byte
	for i := 0; i < n; i += 2 {
		part, epoch := i/2%parts, i/2/parts+1
		ts := at.Add(time.Duration(i) * 10 * time.Microsecond).Format("2006-01-02 15:04:05,000")
		for _, l := range []string{
			fmt.Sprintf("[%s] INFO [Controller id=1 epoch=3] Changed partition events-%d from OnlinePartition to OnlinePartition with state LeaderAndIsr(leader=3, leaderEpoch=%d, isr=List(3, 1), zkVersion=%d) (state.change.logger)", ts, part, epoch, epoch),
			fmt.Sprintf("[%s] INFO [Broker id=1] Follower events-%d starts at leader epoch %d from offset %d with high watermark %d. Previous leader epoch was %d. (state.change.logger)", ts, part, epoch, i, i, epoch-1),
		} {
			line = append(line[:0], l...)
			p.Line(line, func(ev *parser.Event) { tl.Add(0, ev) })
		}
	}
	p.Flush(func(ev *parser.Event) { tl.Add(0, ev) })
	return tl
}

// heap is the live heap, after a collection.
func heap() uint64 {
	runtime.GC()
	runtime.GC() // finalizers queued by the first have run
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// The screen keeps every election it is shown: with 50,000 open at once
// (issue 17's open-elections burst) what it holds for each must stay well
// under what the timeline itself holds, or watch's memory is the screen's.
// It kept a copy of the timeline's Episode for each: 942 bytes an
// election here, 47 MB in all; now 334. The bound is 450.
func TestScreenKeepsElectionsSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("50,000 elections")
	}
	tl := openElections(t)
	m := New(nil, Options{Loc: time.UTC, Tick: -1})
	base := heap()
	const batch = 5000
	var open int
	var now time.Time
	var changed []*timeline.Episode
	send := func() {
		m.Apply(&feed.Snapshot{Now: now, Live: true, Changed: changed})
		changed = nil // the pipeline's copies are the screen's to drop
	}
	tl.EachOpen(func(e *timeline.Episode) {
		open++
		changed = append(changed, e.Clone())
		if e.End.After(now) {
			now = e.End
		}
		if len(changed) == batch {
			send()
		}
	})
	send()
	if open != 50_000 || len(m.eps) != open {
		t.Fatalf("%d open elections, %d on screen; want 50,000", open, len(m.eps))
	}
	m.View() // and its rows
	per := float64(heap()-base) / float64(open)
	t.Logf("%.0f bytes an election on screen", per)
	if per > 450 {
		t.Errorf("the screen holds %.0f bytes an election (50,000 open), want at most 450", per)
	}

	// Once its program has ended the screen lets go of them, though
	// bubbletea's goroutines still hold the model (watch's text report is
	// written then).
	m.Forget()
	if left := int64(heap()) - int64(base); left > 1<<20 {
		t.Errorf("after Forget the screen still holds %d bytes", left)
	}
	runtime.KeepAlive(m)
	runtime.KeepAlive(tl)
}

// What the screen keeps of an election gives back every field it draws,
// for each election of the sample logs: finished and still open.
func TestKeptElectionIsTheEpisode(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "samples", "*.log"))
	if err != nil || len(files) == 0 {
		t.Fatalf("samples: %v %v", files, err)
	}
	n := 0
	var reused kept
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sink := &episodes{}
		tl := timeline.New(timeline.Config{}, sink)
		p := parser.New(time.UTC)
		add := func(ev *parser.Event) { tl.Add(0, ev) }
		lines := strings.Split(string(text), "\n")
		for i, l := range lines {
			p.Line([]byte(l), add)
			if i == len(lines)/2 {
				// Halfway: the open ones, as snapshots carry them.
				tl.EachOpen(func(e *timeline.Episode) { sink.got = append(sink.got, e.Clone()) })
			}
		}
		p.Flush(add)
		tl.Close()
		for _, e := range sink.got {
			k := keep(e)
			if k.whole != nil {
				t.Errorf("%s: %v kept whole", filepath.Base(f), e.Key)
			}
			sameEpisode(t, filepath.Base(f)+" "+fmt.Sprint(e.Key), reflect.ValueOf(*k.episode()), reflect.ValueOf(*e))
			// Kept again in the buffers of the one before (an open
			// election's record is updated in place).
			reused.keep(e)
			sameEpisode(t, filepath.Base(f)+" "+fmt.Sprint(e.Key)+" reused", reflect.ValueOf(*reused.episode()), reflect.ValueOf(*e))
			if !k.End().Equal(e.End) || !k.LastActivity().Equal(e.LastActivity) || !slices.Equal(k.CauseBrokers(), e.CauseBrokers) {
				t.Errorf("%v: kept end %v, last activity %v, cause brokers %v; want %v, %v, %v", e.Key, k.End(), k.LastActivity(), k.CauseBrokers(), e.End, e.LastActivity, e.CauseBrokers)
			}
			type applied struct {
				broker int32
				d      time.Duration
			}
			var got, want []applied
			k.applied(func(b int32, d time.Duration) { got = append(got, applied{b, d}) })
			for _, bt := range e.Brokers {
				if d, ok := bt.Applied(); ok {
					want = append(want, applied{bt.Broker, d})
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%v: brokers applied %v, want %v", e.Key, got, want)
			}
			n++
		}
	}
	t.Logf("%d elections", n)
	if n < 50 {
		t.Fatalf("only %d elections in the samples", n)
	}
}

// sameEpisode compares the exported fields of two episodes (times by the
// instant), but for what the screen does not keep: Evidence, Truncations
// and the brokers' First lines.
func sameEpisode(t *testing.T, what string, got, want reflect.Value) {
	t.Helper()
	switch want.Kind() {
	case reflect.Pointer:
		if got.IsNil() != want.IsNil() {
			t.Errorf("%s: got %v, want %v", what, got, want)
			return
		}
		if !want.IsNil() {
			sameEpisode(t, what, got.Elem(), want.Elem())
		}
		return
	case reflect.Slice, reflect.Array:
		if got.Len() != want.Len() {
			t.Errorf("%s: %d entries, want %d", what, got.Len(), want.Len())
			return
		}
		for i := 0; i < want.Len(); i++ {
			sameEpisode(t, fmt.Sprintf("%s[%d]", what, i), got.Index(i), want.Index(i))
		}
		return
	case reflect.Struct:
		if tw, ok := want.Interface().(time.Time); ok {
			if tg := got.Interface().(time.Time); !tg.Equal(tw) {
				t.Errorf("%s: %v, want %v", what, tg, tw)
			}
			return
		}
		for i := 0; i < want.NumField(); i++ {
			f := want.Type().Field(i)
			switch {
			case !f.IsExported():
			case f.Name == "Evidence" || f.Name == "Truncations" || f.Name == "First":
			default:
				sameEpisode(t, what+"."+f.Name, got.Field(i), want.Field(i))
			}
		}
		return
	}
	if !reflect.DeepEqual(got.Interface(), want.Interface()) {
		t.Errorf("%s: %v, want %v", what, got, want)
	}
}

// An election whose times do not pack (a hostile log: its last line 300
// years after its first) is kept whole, and drawn as it is.
func TestKeptElectionTooLongIsWhole(t *testing.T) {
	e := episode("orders", 1, 4, 0, ms(10), 1, 2, parser.CauseControlledShutdown)
	e.End = e.Start.AddDate(300, 0, 0)
	k := keep(e)
	if k.whole != e || k.episode() != e || !k.End().Equal(e.End) || !k.causeNames(1) || k.causeNames(2) {
		t.Fatalf("kept %+v", k)
	}
	m := model(120, 30, snap(ms(10), []*timeline.Episode{e}))
	press(m, "enter")
	if v := m.View(); !strings.Contains(v, "orders-1 · epoch 4") {
		t.Errorf("detail:\n%s", v)
	}
}
