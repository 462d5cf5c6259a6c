package source

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/leaderaudit/leaderaudit/parser"
)

func at(ms int) *Item {
	return &Item{Ev: parser.Event{Time: time.Date(2026, 1, 1, 12, 14, 27, 0, time.UTC).Add(time.Duration(ms) * time.Millisecond), Line: int64(ms)}}
}

func TestReorderPutsBackAndCounts(t *testing.T) {
	var b reorder
	var got []int64
	out := func(it *Item) { got = append(got, it.Ev.Line) }
	moved := 0
	for _, ms := range []int{525, 524, 526, 526, 100, 3000, 2990, 9000} {
		// 100 is 426 ms behind: within the 500 ms window, put back.
		if m, _ := b.push(0, &at(ms).Ev, 0, out); m {
			moved++
		}
	}
	// 9000 pushed everything up to 7000 out; a record at 200 now is late.
	if _, late := b.push(0, &at(200).Ev, 0, out); !late {
		t.Error("a record older than what was released is not late")
	}
	b.flush(out)
	want := []int64{100, 524, 525, 526, 526, 2990, 3000, 200, 9000}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if moved != 3 {
		t.Errorf("moved %d, want 3 (524, 100, 2990)", moved)
	}
}

// Memory stays bounded: in-order input is held for the window only.
func TestReorderBounded(t *testing.T) {
	var b reorder
	n := 0
	for i := 0; i < 200000; i++ {
		b.push(0, &at(i).Ev, 0, func(*Item) { n++ })
		if b.n > reorderMax {
			t.Fatalf("holding %d events at %d", b.n, i)
		}
	}
	if len(b.q) > reorderMax+1 {
		t.Errorf("ring grew to %d", len(b.q))
	}
	b.flush(func(*Item) { n++ })
	if n != 200000 {
		t.Fatalf("released %d", n)
	}
}

// The ring releases what a plain sorted list would: the same events in
// the same order, the same moved and late, at every bound (the ring wraps,
// grows and shifts across its end).
func TestReorderRingEqualsSortedList(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, limit := range []int{1, 2, 5, 16, 256} {
		b := reorder{max: limit}
		var held []Item
		var released, newest time.Time
		anyOut := false
		var got, want []int64
		ms := 0
		for i := range 20000 {
			// Mostly in order, bursts of one time, now and then a record
			// up to 700 ms back, and jumps past the window.
			switch r := rng.IntN(100); {
			case r < 60:
				ms += rng.IntN(3)
			case r < 90:
			case r < 98:
				ms -= rng.IntN(700)
			default:
				ms += 600 + rng.IntN(2000)
			}
			ev := at(ms).Ev
			ev.Line = int64(i)
			moved, late := b.push(0, &ev, 0, func(it *Item) { got = append(got, it.Ev.Line) })
			// The list: insert after every held event at or before t.
			wmoved, wlate := false, false
			if anyOut && ev.Time.Before(released) {
				want = append(want, ev.Line)
				wlate = true
			} else {
				pos := len(held)
				for pos > 0 && ev.Time.Before(held[pos-1].Ev.Time) {
					pos--
				}
				wmoved = pos < len(held)
				held = append(held, Item{})
				copy(held[pos+1:], held[pos:])
				held[pos] = Item{Ev: ev}
				if ev.Time.After(newest) {
					newest = ev.Time
				}
				cut := newest.Add(-ReorderWindow)
				for len(held) > 0 && (!held[0].Ev.Time.After(cut) || len(held) > limit) {
					released, anyOut = held[0].Ev.Time, true
					want = append(want, held[0].Ev.Line)
					held = held[1:]
				}
			}
			if moved != wmoved || late != wlate {
				t.Fatalf("limit %d, push %d: moved %v late %v, want %v %v", limit, i, moved, late, wmoved, wlate)
			}
		}
		b.flush(func(it *Item) { got = append(got, it.Ev.Line) })
		for _, h := range held {
			want = append(want, h.Ev.Line)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("limit %d: the ring released another order (%d events, %d)", limit, len(got), len(want))
		}
	}
}

// Sample 017: three brokers' JVMs on one host append to one
// state-change.log; line 2644 (broker 2, 12:14:27,524) follows a line of
// 12:14:27,525. The reader hands its events over in time order.
func TestSharedFileEventsInTimeOrder(t *testing.T) {
	src := "../../testdata/samples/017-zk-3.9-cold-restart-3-brokers-shared-state-change-full.log"
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "state-change.log")
	os.WriteFile(p, data, 0o644)
	ins, _ := Discover([]string{p}, 0)
	rd := NewReader(ins, func(string) *time.Location { return time.UTC })
	var last time.Time
	var n int
	rd.Run(context.Background(), func(_ int, ev *parser.Event) {
		if ev.Time.Before(last) {
			t.Fatalf("line %d at %v after %v", ev.Line, ev.Time, last)
		}
		last = ev.Time
		n++
	})
	s := rd.Sources[0]
	if s.Stats.OutOfOrder != 1 || s.Reordered != 1 || s.LateEvents != 0 || n == 0 {
		t.Fatalf("out of order %d, reordered %d, late %d, events %d", s.Stats.OutOfOrder, s.Reordered, s.LateEvents, n)
	}
}

// BenchmarkReorder: events through a log's reorder window into the batch
// bound for the merge, as a reader hands them on (in order, 1 ms apart, a
// few written 3 ms late); bytes are the Items copied.
func BenchmarkReorder(b *testing.B) {
	base := time.Date(2024, 3, 11, 10, 0, 0, 0, time.UTC)
	evs := make([]parser.Event, 4096)
	for i := range evs {
		evs[i] = parser.Event{Kind: parser.KindPhase, Topic: "orders", Partition: int32(i % 12), ISR: []int32{1, 2, 3}}
		evs[i].Time = base.Add(time.Duration(i) * time.Millisecond)
		if i%64 == 63 {
			evs[i].Time = evs[i].Time.Add(-3 * time.Millisecond)
		}
	}
	batch := make([]Item, 0, batchSize)
	out := func(it *Item) {
		if len(batch) == cap(batch) {
			batch = batch[:0]
		}
		batch = append(batch, *it)
	}
	b.SetBytes(int64(len(evs)) * int64(unsafe.Sizeof(Item{})))
	b.ReportAllocs()
	for b.Loop() {
		var r reorder
		for i := range evs {
			r.push(3, &evs[i], 0, out)
		}
		r.flush(out)
	}
}
