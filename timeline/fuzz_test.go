package timeline

import (
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

// fuzzRun decodes a random event sequence from data (6 bytes an event) and
// runs it through a timeline.
func fuzzRun(data []byte) (*collect, int) {
	c := &collect{}
	tl := New(Config{Quiet: 2 * time.Second, StaleWindow: 10 * time.Second}, c)
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	errsIn := 0
	for i := 0; i+6 <= len(data); i += 6 {
		b := data[i : i+6]
		// Time moves forward mostly, sometimes back a little.
		now = now.Add(time.Duration(int8(b[0])) * 7 * time.Millisecond)
		ev := parser.Event{
			Time: now, Line: int64(i), Broker: int32(b[1] % 4), Topic: []string{"a", "b-c"}[b[2]%2],
			Partition: int32(b[2] % 3), LeaderEpoch: int32(b[3]%5) - 1, Leader: int32(b[4]%4) - 1,
			PrevLeader: Unknown, Controller: int32(b[5] % 2), ControllerEpoch: int32(b[5] % 3), StateControllerEpoch: Unknown,
			CorrelationID: int64(b[5] % 4), AttemptsLeft: int64(b[4] % 3),
		}
		if ev.LeaderEpoch < 0 {
			ev.LeaderEpoch = Unknown
		}
		switch b[5] % 9 {
		case 0, 1, 2:
			ev.Kind = parser.KindPhase
			ev.Phase = parser.Phase(1 + b[1]%byte(parser.NumPhases-1))
			ev.Role = parser.Role(b[3] % 3)
		case 3:
			ev.Kind = parser.KindDecision
			ev.Metadata = b[1]%2 == 0
		case 4:
			ev.Kind = parser.KindRequestStart
			ev.Role = parser.Role(b[3] % 3)
		case 5:
			ev.Kind = parser.KindRequestPhase
			ev.Phase = parser.Phase(1 + b[1]%byte(parser.NumPhases-1))
			ev.Role = parser.Role(b[3] % 3)
		case 6:
			ev.Kind = parser.KindRequestFinished
		case 7:
			ev.Kind = parser.KindProducerError
			ev.Final = b[1]%2 == 0
			ev.TopicOnly = b[3]%3 == 0
			errsIn++
		case 8:
			ev.Kind = parser.KindTrigger
			ev.Cause = parser.Cause(b[1] % 12)
			ev.Subjects = []int32{int32(b[2] % 4)}
		}
		tl.Add(0, &ev)
		if b[0]%5 == 0 {
			tl.Advance(now)
		}
	}
	tl.Close()
	return c, errsIn
}

// FuzzTimeline checks the timeline's invariants on random event sequences:
// no panic, start ≤ every phase ≤ end (but a late catch-up's), durations ≥ 0, one episode per key,
// every producer error matched exactly once.
func FuzzTimeline(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte("\x01\x00\x03\x02\x05\x01\x09\x00\x02\x07\x03\x01\x06\x00\x04\x03\x08\x02\x01\x09"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, errsIn := fuzzRun(data)
		seen := map[Key]bool{}
		for _, e := range c.eps {
			if seen[e.Key] {
				t.Fatalf("two episodes for %+v", e.Key)
			}
			seen[e.Key] = true
			if e.End.Before(e.Start) || e.Duration() < 0 {
				t.Fatalf("end before start: %+v", e)
			}
			if !e.Decided.IsZero() && (e.Decided.Before(e.Start) || e.Decided.After(e.End)) {
				t.Fatalf("decided %v outside [%v, %v]", e.Decided, e.Start, e.End)
			}
			for _, bt := range e.Brokers {
				if bt.late {
					// A broker's catch-up after the episode went quiet keeps
					// its own times and moves neither end (latePhase).
					if !bt.CatchUp {
						t.Fatalf("late phases of broker %d not marked catch-up: %+v", bt.Broker, e.Key)
					}
					continue
				}
				for ph := parser.PhaseReceived; ph < parser.NumPhases; ph++ {
					at := bt.Phases[ph]
					if !at.IsZero() && (at.Before(e.Start) || at.After(e.End)) {
						t.Fatalf("phase %v at %v outside [%v, %v]", ph, at, e.Start, e.End)
					}
				}
			}
		}
		if len(c.errs) != errsIn {
			t.Fatalf("%d errors in, %d matched", errsIn, len(c.errs))
		}
	})
}
