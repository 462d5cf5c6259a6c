package gen

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// Phase is one step of a broker's handling of a leadership change. Which
// log line sets which phase in each era is listed in the package doc.
type Phase int

// Phases in the order they are written to truth.jsonl.
const (
	PhReceived Phase = iota
	PhHandling
	PhStoppedFetchers
	PhTruncated
	PhStartedFetcher
	PhCompleted
	PhCached
	PhEpochStart
	PhFinished
	NumPhases
)

// PhaseNames are the JSON keys of the phases.
var PhaseNames = [NumPhases]string{"received", "handling", "stopped_fetchers", "truncated", "started_fetcher", "completed", "cached", "epoch_start", "finished"}

// Causes written to truth.jsonl.
const (
	CauseBrokerFailure      = "broker_failure"
	CauseControlledShutdown = "controlled_shutdown"
	CausePreferredElection  = "preferred_election"
	CauseNewPartition       = "new_partition"
)

// BrokerPhases holds the phase times (ms since epoch; 0 = not written) of
// one broker for one election.
type BrokerPhases struct {
	Broker int32
	Role   string // "leader" or "follower"
	At     [NumPhases]int64
}

// Election is one leader-epoch change of one partition. Nullable integer
// fields use -1 (and Decided 0) for JSON null.
type Election struct {
	Topic           string
	Partition       int32
	LeaderEpoch     int32
	Leader          int32
	PreviousLeader  int32
	Controller      int32
	ControllerEpoch int32
	Cause           string
	Decided         int64
	Start, End      int64
	Brokers         []BrokerPhases

	ctlMin, ctlMax int64 // partition-specific controller lines
	// isr: the ISR the decision set; notServing: brokers down or shutting
	// down when it was made (their phases are catch-up, measures.go).
	isr, notServing []int32
	deposedAt       int64 // when the previous leader stopped being leader (0: died / none)
	alive           bool  // previous leader still alive after the election
}

// ctlLine records a partition-specific controller line of this election.
func (e *Election) ctlLine(ts int64) {
	if e == nil {
		return
	}
	if e.ctlMin == 0 || ts < e.ctlMin {
		e.ctlMin = ts
	}
	if ts > e.ctlMax {
		e.ctlMax = ts
	}
}

// DurationMs is End-Start.
func (e *Election) DurationMs() int64 { return e.End - e.Start }

// phase records the first time a phase line is written for broker b.
func (e *Election) phase(b int32, role string, ph Phase, ts int64) {
	if e == nil {
		return
	}
	for i := range e.Brokers {
		if e.Brokers[i].Broker == b {
			if e.Brokers[i].At[ph] == 0 {
				e.Brokers[i].At[ph] = ts
			}
			return
		}
	}
	bp := BrokerPhases{Broker: b, Role: role}
	bp.At[ph] = ts
	e.Brokers = append(e.Brokers, bp)
}

// phaseTime returns the time of a phase for broker b, or 0.
func (e *Election) phaseTime(b int32, ph Phase) int64 {
	for i := range e.Brokers {
		if e.Brokers[i].Broker == b {
			return e.Brokers[i].At[ph]
		}
	}
	return 0
}

// finalize computes Start/End from the decision and all phases.
func (e *Election) finalize() {
	e.Start, e.End = 0, 0
	upd := func(t int64) {
		if t == 0 {
			return
		}
		if e.Start == 0 || t < e.Start {
			e.Start = t
		}
		if t > e.End {
			e.End = t
		}
	}
	upd(e.Decided)
	upd(e.ctlMin)
	upd(e.ctlMax)
	for i := range e.Brokers {
		for _, t := range e.Brokers[i].At {
			upd(t)
		}
	}
	slices.SortFunc(e.Brokers, func(a, b BrokerPhases) int { return int(a.Broker - b.Broker) })
}

// Match kinds of a producer error.
const (
	MatchDuring = "during"
	MatchAfter  = "after"
	MatchNone   = "none"
)

// AfterWindowMs is how long after an election's end a NOT_LEADER error is
// still attributed to it ("after": stale metadata).
const AfterWindowMs = 2000

// ProducerError is one failed produce response seen in a producer log.
type ProducerError struct {
	Time         int64
	ClientID     string
	Topic        string
	Partition    int32
	Error        string
	AttemptsLeft int64 // -1 = null (final failure)
	Final        bool
	Match        string
	Election     *Election
	LagMs        int64 // -1 = null
}

// FileStat describes one written file.
type FileStat struct {
	Path  string
	Bytes int64
	Lines int64
}

// Truth is everything Generate knows about what it wrote.
type Truth struct {
	Elections []*Election
	// CarriedOver: the epoch each partition had when the logs begin,
	// re-sent and re-applied at the cluster start, not elected in them.
	CarriedOver    []CarriedOver
	ProducerErrors []*ProducerError
	Files          []FileStat
	Bytes          int64 // total bytes of all log files (truth.jsonl excluded)
	Lines          int64 // total physical lines of all log files
	Location       *time.Location

	LeadershipRecords int64 // log records written by the simulated incidents
	NoiseRecords      int64 // unrelated records (--noise)
}

// Classify attributes a producer error at time t on partition (topic, p) to
// an election using only the truth: "during" if start <= t <= end of an
// election of that partition (the latest such), else "after" if
// end < t <= end+AfterWindowMs (the latest end), else "none". lag_ms is
// t-start for "during" and t-end for "after".
func Classify(els []*Election, t int64) (match string, el *Election, lag int64) {
	for i := len(els) - 1; i >= 0; i-- {
		e := els[i]
		if e.Start <= t && t <= e.End {
			return MatchDuring, e, t - e.Start
		}
	}
	var best *Election
	for _, e := range els {
		if e.End < t && t <= e.End+AfterWindowMs {
			if best == nil || e.End > best.End {
				best = e
			}
		}
	}
	if best != nil {
		return MatchAfter, best, t - best.End
	}
	return MatchNone, nil, -1
}

// WriteJSONL writes truth.jsonl: elections sorted by (start, topic,
// partition, epoch), then producer errors sorted by (time, client).
func (tr *Truth) WriteJSONL(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	tc := newTSCache(tr.Location)
	var b []byte
	for _, e := range tr.Elections {
		b = e.appendJSON(b[:0], tc)
		b = append(b, '\n')
		if _, err := w.Write(b); err != nil {
			f.Close()
			return err
		}
	}
	for _, c := range tr.CarriedOver {
		b = c.appendJSON(b[:0])
		b = append(b, '\n')
		if _, err := w.Write(b); err != nil {
			f.Close()
			return err
		}
	}
	for _, pe := range tr.ProducerErrors {
		b = pe.appendJSON(b[:0], tc)
		b = append(b, '\n')
		if _, err := w.Write(b); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (tr *Truth) sortAll() {
	slices.SortStableFunc(tr.Elections, func(a, b *Election) int {
		switch {
		case a.Start != b.Start:
			return cmpI64(a.Start, b.Start)
		case a.Topic != b.Topic:
			if a.Topic < b.Topic {
				return -1
			}
			return 1
		case a.Partition != b.Partition:
			return int(a.Partition - b.Partition)
		}
		return int(a.LeaderEpoch - b.LeaderEpoch)
	})
	slices.SortStableFunc(tr.ProducerErrors, func(a, b *ProducerError) int {
		if a.Time != b.Time {
			return cmpI64(a.Time, b.Time)
		}
		if a.ClientID < b.ClientID {
			return -1
		}
		if a.ClientID > b.ClientID {
			return 1
		}
		return 0
	})
}

func cmpI64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func appendJSONString(b []byte, s string) []byte {
	return strconv.AppendQuote(b, s) // names are plain ASCII; Go quoting equals JSON here
}

func appendNullableInt(b []byte, v int64, null bool) []byte {
	if null {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, v, 10)
}

func appendTime(b []byte, tc *tsCache, ms int64) []byte {
	b = append(b, '"')
	b = tc.appendISO(b, ms)
	return append(b, '"')
}

func (e *Election) appendJSON(b []byte, tc *tsCache) []byte {
	b = append(b, `{"type":"election","topic":`...)
	b = appendJSONString(b, e.Topic)
	b = append(b, `,"partition":`...)
	b = ai32(b, e.Partition)
	b = append(b, `,"leader_epoch":`...)
	b = ai32(b, e.LeaderEpoch)
	b = append(b, `,"leader":`...)
	b = ai32(b, e.Leader)
	b = append(b, `,"previous_leader":`...)
	b = appendNullableInt(b, int64(e.PreviousLeader), e.PreviousLeader < 0)
	b = append(b, `,"controller":`...)
	b = appendNullableInt(b, int64(e.Controller), e.Controller < 0)
	b = append(b, `,"controller_epoch":`...)
	b = appendNullableInt(b, int64(e.ControllerEpoch), e.ControllerEpoch < 0)
	b = append(b, `,"cause":`...)
	if e.Cause == "" {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, e.Cause)
	}
	b = append(b, `,"decided":`...)
	if e.Decided == 0 {
		b = append(b, "null"...)
	} else {
		b = appendTime(b, tc, e.Decided)
	}
	b = append(b, `,"start":`...)
	b = appendTime(b, tc, e.Start)
	b = append(b, `,"end":`...)
	b = appendTime(b, tc, e.End)
	b = append(b, `,"duration_ms":`...)
	b = ai(b, e.End-e.Start)
	b = e.appendMeasures(b)
	b = append(b, `,"brokers":[`...)
	for i, bp := range e.Brokers {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"broker":`...)
		b = ai32(b, bp.Broker)
		b = append(b, `,"role":`...)
		b = appendJSONString(b, bp.Role)
		b = append(b, `,"phases":{`...)
		first := true
		for ph, t := range bp.At {
			if t == 0 {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, '"')
			b = append(b, PhaseNames[ph]...)
			b = append(b, `":`...)
			b = appendTime(b, tc, t)
		}
		b = append(b, '}')
		if e.catchUp(bp.Broker) {
			b = append(b, `,"catch_up":true`...)
		}
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func (pe *ProducerError) appendJSON(b []byte, tc *tsCache) []byte {
	b = append(b, `{"type":"producer_error","time":`...)
	b = appendTime(b, tc, pe.Time)
	b = append(b, `,"client_id":`...)
	b = appendJSONString(b, pe.ClientID)
	b = append(b, `,"topic":`...)
	b = appendJSONString(b, pe.Topic)
	b = append(b, `,"partition":`...)
	b = ai32(b, pe.Partition)
	b = append(b, `,"error":`...)
	b = appendJSONString(b, pe.Error)
	b = append(b, `,"attempts_left":`...)
	b = appendNullableInt(b, pe.AttemptsLeft, pe.AttemptsLeft < 0)
	b = append(b, `,"final":`...)
	b = strconv.AppendBool(b, pe.Final)
	b = append(b, `,"match":`...)
	b = appendJSONString(b, pe.Match)
	b = append(b, `,"election":`...)
	if pe.Election == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"topic":`...)
		b = appendJSONString(b, pe.Election.Topic)
		b = append(b, `,"partition":`...)
		b = ai32(b, pe.Election.Partition)
		b = append(b, `,"leader_epoch":`...)
		b = ai32(b, pe.Election.LeaderEpoch)
		b = append(b, '}')
	}
	b = append(b, `,"lag_ms":`...)
	b = appendNullableInt(b, pe.LagMs, pe.LagMs < 0)
	return append(b, '}')
}
