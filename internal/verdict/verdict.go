// Package verdict turns what the timeline finished with into findings that
// tell the cluster's fault from the client's: each finding has a code, a
// severity, a one-sentence message with the numbers, the log lines it rests
// on, and a remedy.
//
// An Analyzer is a timeline.Sink: hand it every Episode, ProducerError and
// Burst (beside report.Collector, see Tee), then call Finish once the
// timeline is closed (Finish does not change the analyzer, so live views
// may call it again). It keeps aggregates per partition, broker and client
// plus bounded lists, never the episodes themselves, so memory does not
// grow with the size of the logs beyond per-partition state.
//
// Where the logs show them, findings carry the lost offsets: a follower
// refusing to truncate ("log truncation is not allowed": an unclean
// leader, [leader's end, its end) lost) or cutting its log after a leader
// change (timeline.Episode.Truncations).
//
// Findings and their default thresholds (Config):
//
// Client side (needs producer logs: the "ProducerConfig values:" block and
// "Kafka version" line; absent keys take the client version's defaults):
//
//   - retry-budget-exceeded (critical): a send failed for good with a
//     NOT_LEADER-type error while its election lasted longer than the
//     producer's retry budget (retries × retry.backoff.ms, exponential up to
//     retry.backoff.max.ms on 3.7+, capped by delivery.timeout.ms on 2.1+).
//     The budget is a lower bound: each retry also waits for a response.
//   - no-retries (warning): retries=0 on a producer that saw a leader change.
//   - reordering-risk (warning): retries > 0, max.in.flight > 1, no idempotence.
//   - loss-risk-acks (warning; critical when the change followed a broker
//     failure, fence or ZooKeeper session loss, or was unclean): acks 0 or 1
//     on a producer whose partition's leader changed while it was writing.
//   - stale-metadata (warning): at least StaleErrors (1) errors came after
//     their election had ended; the lag distribution is given.
//   - not-a-replica (warning): errors no election explains, or from a broker
//     outside the partition's replica set.
//   - misspelled-config (warning): a key the client logged as unknown
//     (AbstractConfig.logUnused()) that is a real setting of its client type
//     and release but for case, whitespace, separators or one edit (or a
//     setting that matters to elections given to a release before it): the
//     setting, the value the client ran with (its config block, else the
//     default) and what that costs.
//   - retry-margin (info; warning from 80%): retries rode out an election
//     but used at least half of the retry count, or (2.1+) of
//     delivery.timeout.ms; with the budget that would cover twice the
//     longest election the producer's errors met.
//   - unknown-config (info): other keys the client did not know (a
//     framework's own, another client type's, another release's).
//
// Cluster side:
//
//   - unclean-election (critical): Episode.Unclean.
//   - leader-flapping (warning): a partition's leader changed at least
//     FlapChanges (4) times within FlapWindow (15 min).
//   - unstable-broker (warning; critical when the hard failures alone reach
//     the threshold): a broker failed, was fenced, lost its ZooKeeper session
//     or shut down at least UnstableEvents (2) times (events less than
//     IncidentGap, 60 s, apart count once), with the leaderships moved each time.
//   - slow-election (warning): an election (decision → the new leader
//     ready) or one step of it on a broker that was serving (a phase, the
//     controller's send) took longer than SlowElection (1 s); a returning
//     broker's catch-up is in its unstable-broker finding instead.
//   - offline-window (critical): a partition had no leader (leader -1), and for how long.
//   - coordinator-moved (info; warning when its consumers were disrupted
//     within CoordinatorWindow, 2 min): a __consumer_offsets partition
//     changed leader; groups mapped to it by abs(String.hashCode) %
//     OffsetsPartitions (50).
//   - controller-churn (warning): at least ControllerChanges (2) controller
//     elections or KRaft quorum leader changes, with the elections that
//     started within CostWindow (1 min) after each.
//   - capability (info): what the given logs cannot show, and why.
package verdict

import (
	"fmt"
	"strings"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/source"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// Severities, lowest first.
const (
	Info     = "info"
	Warning  = "warning"
	Critical = "critical"
)

// Finding codes.
const (
	CodeRetryBudget      = "retry-budget-exceeded"
	CodeNoRetries        = "no-retries"
	CodeReordering       = "reordering-risk"
	CodeLossRiskAcks     = "loss-risk-acks"
	CodeStaleMetadata    = "stale-metadata"
	CodeNotAReplica      = "not-a-replica"
	CodeUnclean          = "unclean-election"
	CodeFlapping         = "leader-flapping"
	CodeUnstableBroker   = "unstable-broker"
	CodeSlowElection     = "slow-election"
	CodeOfflineWindow    = "offline-window"
	CodeCoordinatorMoved = "coordinator-moved"
	CodeControllerChurn  = "controller-churn"
	CodeCapability       = "capability"
	CodeClockSkew        = "clock-skew"
	CodeMisspelledConfig = "misspelled-config"
	CodeUnknownConfig    = "unknown-config"
	CodeRetryMargin      = "retry-margin"
)

// Codes lists every finding code in report order (within one severity).
var Codes = []string{
	CodeUnclean, CodeOfflineWindow, CodeRetryBudget, CodeLossRiskAcks, CodeUnstableBroker,
	CodeFlapping, CodeControllerChurn, CodeSlowElection, CodeNoRetries, CodeMisspelledConfig, CodeRetryMargin, CodeReordering,
	CodeStaleMetadata, CodeNotAReplica, CodeClockSkew, CodeCoordinatorMoved, CodeUnknownConfig, CodeCapability,
}

// Evidence is one log line a finding rests on.
type Evidence struct {
	File string `json:"file"`
	Line int64  `json:"line"`
}

func (e Evidence) String() string { return fmt.Sprintf("%s:%d", e.File, e.Line) }

// Finding is one verdict.
type Finding struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	// Subject names what the finding is about: "producer producer-1",
	// "broker 3", "orders-2", "group billing", "cluster", "logs".
	Subject string `json:"subject"`
	// Message is one sentence with the numbers.
	Message string `json:"message"`
	Remedy  string `json:"remedy,omitempty"`
	// Evidence: the lines the finding rests on (bounded by Config.MaxEvidence).
	Evidence []Evidence `json:"evidence"`
	// Data: the numbers, for JSON (durations in ms, times RFC 3339).
	Data map[string]any `json:"data,omitempty"`
}

// Record is a finding as one JSON line: {"type":"finding","code":...}.
type Record struct {
	Type string `json:"type"`
	Finding
}

// Record returns the finding as a JSON-lines record.
func (f Finding) Record() Record { return Record{Type: "finding", Finding: f} }

// Config tunes the analyzer. Zero values take the defaults.
type Config struct {
	// FlapChanges and FlapWindow: a partition whose leader changed at least
	// FlapChanges times within FlapWindow is flapping. Defaults 4 and 15 min.
	FlapChanges int
	FlapWindow  time.Duration
	// UnstableEvents: a broker that failed, was fenced, lost its ZooKeeper
	// session or shut down at least this many times is unstable. Default 2.
	UnstableEvents int
	// IncidentGap: a broker's events less than this apart are one incident
	// (the broker's "Session expired.", the controller's "deleted brokers",
	// "Broker failure callback"). Default 60 s.
	IncidentGap time.Duration
	// SlowElection: an election, or one step of it, taking longer is slow.
	// Default 1 s.
	SlowElection time.Duration
	// OffsetsPartitions: the partition count of __consumer_offsets
	// (offsets.topic.num.partitions of the cluster when the topic was
	// created). Default 50.
	OffsetsPartitions int
	// CoordinatorWindow: consumer events from 10 s before to this long after
	// a __consumer_offsets leader change are matched to it. Default 2 min.
	CoordinatorWindow time.Duration
	// ControllerChanges: this many controller elections or KRaft quorum
	// leader changes in the logs is churn. Default 2.
	ControllerChanges int
	// CostWindow: elections starting this long after a controller change
	// are counted as its cost. Default 1 min.
	CostWindow time.Duration
	// StaleErrors: producer errors that came after their election ended
	// needed for stale-metadata. Default 1.
	StaleErrors int
	// MaxEvidence bounds the lines cited per finding. Default 12.
	MaxEvidence int
	// MaxItems bounds the partitions, brokers or changes named in one
	// message. Default 6.
	MaxItems int
	// Loc is the zone times in messages are shown in. Default UTC.
	Loc *time.Location
}

func (c *Config) defaults() {
	if c.FlapChanges <= 1 {
		c.FlapChanges = 4
	}
	if c.FlapChanges > 64 {
		c.FlapChanges = 64
	}
	if c.FlapWindow <= 0 {
		c.FlapWindow = 15 * time.Minute
	}
	if c.UnstableEvents <= 0 {
		c.UnstableEvents = 2
	}
	if c.IncidentGap <= 0 {
		c.IncidentGap = time.Minute
	}
	if c.SlowElection <= 0 {
		c.SlowElection = time.Second
	}
	if c.OffsetsPartitions <= 0 {
		c.OffsetsPartitions = 50
	}
	if c.CoordinatorWindow <= 0 {
		c.CoordinatorWindow = 2 * time.Minute
	}
	if c.ControllerChanges <= 0 {
		c.ControllerChanges = 2
	}
	if c.CostWindow <= 0 {
		c.CostWindow = time.Minute
	}
	if c.StaleErrors <= 0 {
		c.StaleErrors = 1
	}
	if c.MaxEvidence <= 0 {
		c.MaxEvidence = 12
	}
	if c.MaxItems <= 0 {
		c.MaxItems = 6
	}
	if c.Loc == nil {
		c.Loc = time.UTC
	}
}

// SourceFacts is what the analyzer needs to know about one input file.
type SourceFacts struct {
	// Index is the source index the timeline's Refs carry (source.Source.Index).
	Index int
	Path  string
	// Kind is source.Kind(s): "state-change.log", "controller.log",
	// "server.log", "client application log", ...
	Kind string
	// Era is source.EraName(&s.Stats), for messages.
	Era string
	// Eras are the line shapes seen (parser.Stats.Eras).
	Eras parser.Era
	// Levels seen: "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL".
	Levels      []string
	First, Last time.Time
	Brokers     []int32
	Controllers []int32
	Producers   []string
	Records     int64
	// UndatedErrors: producer exception lines no record dates.
	UndatedErrors int64
}

// Facts builds the facts of a source that has been read. kind and era are
// source.Kind(s) and source.EraName(&s.Stats) (passed in so that this
// package does not import report).
func Facts(s *source.Source, kind, era string) SourceFacts {
	st := &s.Stats
	f := SourceFacts{
		Index: s.Index, Path: s.Path, Kind: kind, Era: era, Eras: st.Eras,
		First: st.First, Last: st.Last, Records: st.Records, UndatedErrors: st.UndatedErrors,
		Brokers:     append([]int32(nil), st.Brokers...),
		Controllers: append([]int32(nil), st.Controllers...),
		Producers:   append([]string(nil), st.Producers...),
	}
	for l := parser.LevelTrace; l <= parser.LevelFatal; l++ {
		if st.Levels&(1<<l) != 0 {
			f.Levels = append(f.Levels, l.String())
		}
	}
	return f
}

func rank(sev string) int {
	switch sev {
	case Critical:
		return 3
	case Warning:
		return 2
	case Info:
		return 1
	}
	return 0
}

func codeIndex(code string) int {
	for i, c := range Codes {
		if c == code {
			return i
		}
	}
	return len(Codes)
}

// CheckGate validates a --fail-on value: a comma-separated list of
// severities (info, warning, critical) and finding codes.
func CheckGate(gate string) error {
	n := 0
	for _, w := range strings.Split(gate, ",") {
		w = strings.ToLower(strings.TrimSpace(w))
		if w == "" {
			continue
		}
		n++
		if rank(w) > 0 || codeIndex(w) < len(Codes) {
			continue
		}
		return fmt.Errorf("unknown severity or finding code %q (severities: info, warning, critical; codes: %s)", w, strings.Join(Codes, ", "))
	}
	if n == 0 {
		return fmt.Errorf("empty gate: give a severity (info, warning, critical) or finding codes")
	}
	return nil
}

// AtLeast reports whether f trips gate, the value of --fail-on: a
// comma-separated list whose items are severities ("warning" = warning or
// worse, "critical", "info" = any finding) or finding codes
// ("retry-budget-exceeded,unclean-election" = exactly those codes).
// Capability findings trip only a gate that names them or "info".
func AtLeast(f Finding, gate string) bool {
	for _, w := range strings.Split(gate, ",") {
		w = strings.ToLower(strings.TrimSpace(w))
		if w == "" {
			continue
		}
		if r := rank(w); r > 0 {
			if rank(f.Severity) >= r {
				return true
			}
			continue
		}
		if w == f.Code {
			return true
		}
	}
	return false
}

// Fails reports whether any finding trips gate (see AtLeast).
func Fails(fs []Finding, gate string) bool {
	for _, f := range fs {
		if AtLeast(f, gate) {
			return true
		}
	}
	return false
}

// Lines renders findings for the text report (report.Meta.Findings): one
// line per finding, then its remedy and evidence, indented.
func Lines(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("  %-8s %s · %s", strings.ToUpper(f.Severity), f.Code, clean(f.Message)))
		if f.Remedy != "" {
			out = append(out, "           remedy: "+clean(f.Remedy))
		}
		if len(f.Evidence) > 0 {
			var ev []string
			for _, e := range f.Evidence {
				ev = append(ev, clean(e.String()))
			}
			out = append(out, "           lines: "+strings.Join(ev, ", "))
		}
	}
	return out
}

// clean drops control characters (log text can carry them) from text meant
// for a terminal.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, s)
}

// Tee hands the timeline's output to every sink in order, e.g.
// timeline.New(cfg, verdict.Tee(collector, analyzer)).
func Tee(sinks ...timeline.Sink) timeline.Sink { return tee(sinks) }

type tee []timeline.Sink

func (t tee) Episode(e *timeline.Episode) {
	for _, s := range t {
		s.Episode(e)
	}
}

func (t tee) ProducerError(p *timeline.ProducerError) {
	for _, s := range t {
		s.ProducerError(p)
	}
}

func (t tee) Burst(b *timeline.Burst) {
	for _, s := range t {
		s.Burst(b)
	}
}
