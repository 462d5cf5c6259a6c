package report

import (
	"fmt"
	"path"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/textfmt"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// Window is what a report covers: a time range and a partition filter.
// The zero Window covers everything.
type Window struct {
	Since, Until time.Time // Until is exclusive; zero: open
	Topic        string    // a glob; "" any
	Partition    *int32    // nil: any
}

// Active says whether the window leaves anything out.
func (w *Window) Active() bool {
	return w != nil && (!w.Since.IsZero() || !w.Until.IsZero() || w.Topic != "" || w.Partition != nil)
}

// In says whether an instant is inside the time range.
func (w *Window) In(t time.Time) bool {
	if w == nil {
		return true
	}
	if !w.Since.IsZero() && t.Before(w.Since) {
		return false
	}
	return w.Until.IsZero() || t.Before(w.Until)
}

// Overlaps says whether [from, to] meets the time range.
func (w *Window) Overlaps(from, to time.Time) bool {
	if w == nil {
		return true
	}
	if !w.Since.IsZero() && to.Before(w.Since) {
		return false
	}
	return w.Until.IsZero() || from.Before(w.Until)
}

// Topics says whether a topic passes the topic glob.
func (w *Window) Topics(topic string) bool {
	if w == nil || w.Topic == "" {
		return true
	}
	ok, _ := path.Match(w.Topic, topic)
	return ok
}

// Covers says whether a partition passes the filter. A partition number
// the lines did not name (a topic-only producer error) passes a
// partition filter: it may be that partition.
func (w *Window) Covers(topic string, partition int32) bool {
	if !w.Topics(topic) {
		return false
	}
	return w == nil || w.Partition == nil || partition == *w.Partition || partition == parser.Unknown
}

// Phrase is "between 10:30 and 11:00 of orders*-3", for "no election …".
func (w *Window) Phrase(tm func(time.Time) string) string {
	s := ""
	switch {
	case !w.Since.IsZero() && !w.Until.IsZero():
		s = "between " + tm(w.Since) + " and " + tm(w.Until)
	case !w.Since.IsZero():
		s = "since " + tm(w.Since)
	case !w.Until.IsZero():
		s = "before " + tm(w.Until)
	}
	if what := w.partitions(); what != "" {
		if s != "" {
			s += " "
		}
		s += "of " + what
	}
	return s
}

func (w *Window) partitions() string {
	switch {
	case w.Topic != "" && w.Partition != nil:
		return fmt.Sprintf("partition %d of topics %s", *w.Partition, textfmt.Clean(w.Topic))
	case w.Topic != "":
		return "topics " + textfmt.Clean(w.Topic)
	case w.Partition != nil:
		return fmt.Sprintf("partition %d", *w.Partition)
	}
	return ""
}

// String is the window for the report's headline.
func (w *Window) String(tm func(time.Time) string) string {
	return w.Phrase(tm) + " (the logs were read whole: earlier epochs, configs and broker events still count)"
}

// WindowSink passes on to next what the window covers: elections that
// overlap its time range on a covered partition, producer errors inside
// it, bursts that overlap it. The timeline before it sees every event, so
// what it reports keeps the context from before the window (an epoch's
// previous leader, a client's config).
func WindowSink(w *Window, next timeline.Sink) *WindowedSink {
	return &WindowedSink{w: w, next: next, brokers: map[int32]bool{}}
}

// WindowedSink is the sink WindowSink returns. It remembers the brokers
// the reported elections involve, for scoping findings about brokers.
type WindowedSink struct {
	w       *Window
	next    timeline.Sink
	brokers map[int32]bool
	// low: the ids below 1024 among them (most clusters' all), a bit
	// each: every election names its brokers, and a map write each cost
	// more than the rest of the sink.
	low [1024 / 64]uint64
	// Elections and Errors count what was passed on.
	Elections, Errors int
}

// Episode implements timeline.Sink.
func (s *WindowedSink) Episode(e *timeline.Episode) {
	if !s.w.Overlaps(e.Start, e.End) || !s.w.Covers(e.Topic, e.Partition) {
		return
	}
	s.Elections++
	s.involve(e.Leader)
	s.involve(e.PreviousLeader)
	for _, b := range e.CauseBrokers {
		s.involve(b)
	}
	for _, bt := range e.Brokers {
		s.involve(bt.Broker)
	}
	s.next.Episode(e)
}

// ProducerError implements timeline.Sink.
func (s *WindowedSink) ProducerError(pe *timeline.ProducerError) {
	if !s.w.In(pe.Time) || !s.w.Covers(pe.Topic, pe.Partition) {
		return
	}
	s.Errors++
	s.next.ProducerError(pe)
}

// Burst implements timeline.Sink. With a partition filter a burst is
// reported when its slowest election is on a covered partition.
func (s *WindowedSink) Burst(b *timeline.Burst) {
	if !s.w.Overlaps(b.Start, b.End) || !s.w.Covers(b.Slowest.Topic, b.Slowest.Partition) {
		return
	}
	s.next.Burst(b)
}

// Involves says whether a reported election involved broker id (as
// leader, previous leader, replica or the broker whose failure caused it).
func (s *WindowedSink) Involves(id int32) bool {
	if uint32(id) < uint32(len(s.low)*64) {
		return s.low[id>>6]&(1<<(id&63)) != 0
	}
	return s.brokers[id]
}

func (s *WindowedSink) involve(id int32) {
	if uint32(id) < uint32(len(s.low)*64) {
		s.low[id>>6] |= 1 << (id & 63)
		return
	}
	s.brokers[id] = true
}
