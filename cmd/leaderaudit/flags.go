package main

import (
	"fmt"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/verdict"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// The flag groups audit and watch share, declared once and embedded in
// both (kong's embed) so their names, defaults and help cannot drift.
// --since stays per command: audit filters events by it, watch reads each
// file back from it (default 15m).

// readFlags say how to read the logs' lines: their zone, the broker a
// file belongs to, its host's clock offset.
type readFlags struct {
	TZ     []string `name:"tz" help:"Zone for timestamps that carry none (Kafka's log4j layout), e.g. UTC or Europe/Berlin; repeat as GLOB=ZONE to set it per path ('app/*=Europe/Moscow'). Default: this machine's local zone."`
	Broker []string `name:"broker" help:"Broker id for a server.log whose lines name no broker (session expiry, truncation, coordinator lines) when its path does not say either (kafka-2/, broker2.log are read by themselves): GLOB=ID, repeatable ('node-a/*=1')."`
	Skew   []string `name:"skew" help:"Clock offsets between hosts: GLOB=OFFSET sets one by hand ('broker-2/*=+120ms': that host's clock ran 120 ms ahead; subtracted from its files' times), repeatable; audit also takes auto (estimate each host's offset from causality across the logs, e.g. a broker cannot apply a leader epoch before the controller decided it, and correct it; reads the logs twice). Without it the estimate is reported, not applied."`
}

// options resolves the group: zones, broker ids by path, clock offsets.
func (f *readFlags) options() (*zones, *brokerIDs, *skewFlags, error) {
	zs, err := loadZones(f.TZ)
	if err != nil {
		return nil, nil, nil, usage(err)
	}
	bs, err := loadBrokers(f.Broker)
	if err != nil {
		return nil, nil, nil, usage(err)
	}
	sf, err := loadSkew(f.Skew)
	if err != nil {
		return nil, nil, nil, usage(err)
	}
	return zs, bs, sf, nil
}

// timelineFlags are the engine's windows.
type timelineFlags struct {
	SkewTolerance time.Duration `default:"200ms" help:"Clock-skew tolerance when matching producer errors to elections."`
	StaleWindow   time.Duration `default:"5m" help:"How long after an election a producer error still counts as stale metadata ('after')."`
	Quiet         time.Duration `default:"10s" help:"An election with no new line for this long is over (watch shows it in progress until then, unless every live replica whose logs it follows has logged its last step); later lines for it are counted as late."`
}

// Validate: kong calls it after parsing (exit 2). A negative window would
// be read as none or as the default; 0 quiet would be the default too.
func (f *timelineFlags) Validate() error {
	switch {
	case f.SkewTolerance < 0:
		return fmt.Errorf("--skew-tolerance %s: not negative", f.SkewTolerance)
	case f.StaleWindow < 0:
		return fmt.Errorf("--stale-window %s: not negative", f.StaleWindow)
	case f.Quiet <= 0:
		return fmt.Errorf("--quiet %s: more than 0", f.Quiet)
	}
	return nil
}

// config maps the flags; 0 tolerance means none (the timeline reads 0 as
// "default").
func (f *timelineFlags) config() timeline.Config {
	tol := f.SkewTolerance
	if tol == 0 {
		tol = -1
	}
	return timeline.Config{SkewTolerance: tol, StaleWindow: f.StaleWindow, Quiet: f.Quiet, SettleErrors: true}
}

// liveConfig: elections are handed over once quiet, not after the
// stale-metadata window, so a stream shows each as soon as it is over.
func (f *timelineFlags) liveConfig() timeline.Config {
	cfg := f.config()
	cfg.EmitAfter = f.Quiet
	return cfg
}

// verdictFlags are the findings' thresholds (audit's report and watch's
// exit report).
type verdictFlags struct {
	FlapChanges  int           `default:"4" help:"leader-flapping: this many leader changes of one partition ..."`
	FlapWindow   time.Duration `default:"15m" help:"... within this window."`
	SlowElection time.Duration `default:"1s" aliases:"slow" help:"slow-election: an election or one of its steps taking longer than this (watch's e/E jump to them)."`
	OffsetsParts int           `name:"offsets-partitions" default:"50" help:"Partition count of __consumer_offsets (for group → coordinator partition)."`
}

// Validate: kong calls it after parsing (exit 2).
func (f *verdictFlags) Validate() error {
	switch {
	case f.FlapChanges < 1:
		return fmt.Errorf("--flap-changes %d: at least 1", f.FlapChanges)
	case f.FlapWindow <= 0:
		return fmt.Errorf("--flap-window %s: more than 0", f.FlapWindow)
	case f.SlowElection < 0:
		return fmt.Errorf("--slow-election %s: not negative", f.SlowElection)
	case f.OffsetsParts < 1:
		return fmt.Errorf("--offsets-partitions %d: at least 1", f.OffsetsParts)
	}
	return nil
}

func (f *verdictFlags) config(loc *time.Location) verdict.Config {
	return verdict.Config{Loc: loc, FlapChanges: f.FlapChanges, FlapWindow: f.FlapWindow, SlowElection: f.SlowElection, OffsetsPartitions: f.OffsetsParts}
}

// usageError is a command called wrongly (a flag value that cannot be
// read, flags that do not go together): exit 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usage marks err as a usage error.
func usage(err error) error { return &usageError{err} }

// usagef is usage(fmt.Errorf(...)).
func usagef(format string, args ...any) error { return usage(fmt.Errorf(format, args...)) }
