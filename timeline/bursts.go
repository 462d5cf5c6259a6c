package timeline

import "time"

// InBurst reports whether e is grouped into bursts at all: an election
// (IsElection). A controller re-sending what it had decided before (after
// a failover) or state carried over from before the logs is no new
// election: it neither joins a burst nor splits the one it falls in.
func InBurst(e *Episode) bool { return e.IsElection() }

// Joins reports whether e, taken after the elections already in b, is
// part of it: the same cause, starting within gap of b's latest start and
// not more than gap before its first (elections finish out of start
// order). The timeline's bursts and the live screen's grouping of the
// elections it holds both ask this.
func (b *Burst) Joins(e *Episode, gap time.Duration) bool {
	return e.Cause == b.Cause && e.Start.Sub(b.End) <= gap && !e.Start.Before(b.Start.Add(-gap))
}

// StartBurst is a burst of e alone.
func StartBurst(id int, e *Episode) *Burst {
	b := &Burst{ID: id, Start: e.Start, End: e.Start, Cause: e.Cause, CauseBrokers: e.CauseBrokers}
	b.Add(e)
	return b
}

// Add counts e into b.
func (b *Burst) Add(e *Episode) {
	if e.Start.After(b.End) {
		b.End = e.Start
	}
	b.Episodes++
	d := e.Took()
	b.Durations = append(b.Durations, d)
	if b.Episodes == 1 || d > b.SlowestDur {
		b.Slowest, b.SlowestDur = e.Key, d
	}
}

func (t *Timeline) addToBurst(e *Episode) {
	if b := t.burst; b != nil && b.Joins(e, t.cfg.BurstGap) {
		b.Add(e)
	} else {
		t.flushBurst()
		t.nextBurstID++
		t.burst = StartBurst(t.nextBurstID, e)
	}
	e.BurstID = t.burst.ID
}

func (t *Timeline) flushBurst() {
	if t.burst != nil {
		t.sink.Burst(t.burst)
		t.burst = nil
	}
}
