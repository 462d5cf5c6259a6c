package timeline

func (t *Timeline) addToBurst(e *Episode) {
	b := t.burst
	if b != nil && (e.Start.Sub(b.End) > t.cfg.BurstGap || e.Start.Before(b.Start.Add(-t.cfg.BurstGap)) || e.Cause != b.Cause) {
		t.flushBurst()
		b = nil
	}
	if b == nil {
		t.nextBurstID++
		b = &Burst{ID: t.nextBurstID, Start: e.Start, End: e.Start, Cause: e.Cause, CauseBrokers: e.CauseBrokers}
		t.burst = b
	}
	if e.Start.After(b.End) {
		b.End = e.Start
	}
	b.Episodes++
	d := e.Took()
	b.Durations = append(b.Durations, d)
	if b.Episodes == 1 || d > b.SlowestDur {
		b.Slowest, b.SlowestDur = e.Key, d
	}
	e.BurstID = b.ID
}

func (t *Timeline) flushBurst() {
	if t.burst != nil {
		t.sink.Burst(t.burst)
		t.burst = nil
	}
}
