package verdict

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// finisher holds what Finish needs while it builds findings.
type finisher struct {
	a       *Analyzer
	cfg     Config
	tl      *timeline.Timeline
	stats   *timeline.Stats
	clients map[string]*timeline.Client
	path    func(int) string
	sources []SourceFacts
	src     map[int]*SourceFacts
	// multiDay: the logs span more than one calendar day.
	multiDay  bool
	endOfLogs time.Time
	incidents map[int32][]*incident
	out       []Finding
	// producersCache: producerList's result (computed once per Finish).
	producersCache []*producer
}

// Finish builds the findings, after the timeline has been closed (or, for
// a live view, at any time: it does not change the analyzer). path names a source index for evidence (nil: "source N");
// sources describes the inputs (their Index matches timeline Ref.Source).
// tl may be nil; then client settings and cluster context are unknown.
func (a *Analyzer) Finish(tl *timeline.Timeline, path func(src int) string, sources []SourceFacts) []Finding {
	f := &finisher{a: a, cfg: a.cfg, tl: tl, path: path, sources: sources, src: map[int]*SourceFacts{}}
	for i := range sources {
		f.src[sources[i].Index] = &sources[i]
	}
	if tl != nil {
		f.stats = &tl.Stats
		f.clients = tl.Clients
	} else {
		f.stats = &timeline.Stats{}
	}
	var first time.Time
	for i := range sources {
		s := &sources[i]
		if s.First.IsZero() {
			continue
		}
		if first.IsZero() || s.First.Before(first) {
			first = s.First
		}
		if s.Last.After(f.endOfLogs) {
			f.endOfLogs = s.Last
		}
	}
	if a.last.After(f.endOfLogs) {
		f.endOfLogs = a.last
	}
	if tl != nil && tl.Watermark().After(f.endOfLogs) {
		f.endOfLogs = tl.Watermark()
	}
	if first.IsZero() {
		first = a.first
	}
	if !first.IsZero() && !f.endOfLogs.IsZero() {
		y1, m1, d1 := first.In(f.cfg.Loc).Date()
		y2, m2, d2 := f.endOfLogs.In(f.cfg.Loc).Date()
		f.multiDay = y1 != y2 || m1 != m2 || d1 != d2
	}
	f.incidents = f.brokerIncidents()

	f.producers()
	f.configKeys()
	f.notAReplica()
	f.uncleanElections()
	f.flapping()
	f.unstable()
	f.slowElections()
	f.offlineWindows()
	f.coordinators()
	f.controllerChurn()
	f.clockSkew()
	f.capabilities()

	sort.SliceStable(f.out, func(i, j int) bool {
		x, y := f.out[i], f.out[j]
		if rank(x.Severity) != rank(y.Severity) {
			return rank(x.Severity) > rank(y.Severity)
		}
		if codeIndex(x.Code) != codeIndex(y.Code) {
			return codeIndex(x.Code) < codeIndex(y.Code)
		}
		if x.Subject != y.Subject {
			return x.Subject < y.Subject
		}
		return x.Message < y.Message
	})
	return f.out
}

func (f *finisher) add(fd Finding) {
	if fd.Evidence == nil {
		fd.Evidence = []Evidence{}
	}
	f.out = append(f.out, fd)
}

// ev turns refs into evidence: no line-less refs, no duplicates, bounded.
func (f *finisher) ev(refs ...timeline.Ref) []Evidence {
	out := []Evidence{}
	seen := map[timeline.Ref]bool{}
	for _, r := range refs {
		if r.Line <= 0 || seen[r] {
			continue
		}
		seen[r] = true
		out = append(out, Evidence{File: f.name(r.Source), Line: r.Line})
		if len(out) >= f.cfg.MaxEvidence {
			break
		}
	}
	return out
}

func (f *finisher) name(src int) string {
	if f.path != nil {
		if p := f.path(src); p != "" {
			return p
		}
	}
	if s := f.src[src]; s != nil && s.Path != "" {
		return s.Path
	}
	return "source " + strconv.Itoa(src)
}

// tm renders a time of day for messages (with the date when the logs span days).
func (f *finisher) tm(t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	if f.multiDay {
		return t.In(f.cfg.Loc).Format("2006-01-02 15:04:05.000")
	}
	return t.In(f.cfg.Loc).Format("15:04:05.000")
}

// rfc renders a time for Data.
func (f *finisher) rfc(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(f.cfg.Loc).Format("2006-01-02T15:04:05.000Z07:00")
}

func itoa(v int32) string {
	if v == timeline.Unknown {
		return "?"
	}
	return strconv.Itoa(int(v))
}

func ids(v []int32) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = itoa(x)
	}
	return strings.Join(s, ",")
}

func tpName(tp timeline.TP) string {
	if tp.Partition == timeline.Unknown {
		return "topic " + tp.Topic + " (partition not named)"
	}
	return fmt.Sprintf("%s-%d", tp.Topic, tp.Partition)
}

func keyName(k timeline.Key) string {
	return fmt.Sprintf("%s-%d epoch %d", k.Topic, k.Partition, k.LeaderEpoch)
}

func causeName(c parser.Cause) string {
	s := c.String()
	if s == "" {
		return "cause not logged"
	}
	return strings.ReplaceAll(s, "_", " ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// more appends "and N more" to a list cut at MaxItems.
func (f *finisher) list(items []string, total int) string {
	if len(items) > f.cfg.MaxItems {
		items = items[:f.cfg.MaxItems]
	}
	s := strings.Join(items, ", ")
	if total > len(items) {
		s += fmt.Sprintf(" and %d more", total-len(items))
	}
	return s
}

func contains(v []int32, x int32) bool {
	for _, y := range v {
		if y == x {
			return true
		}
	}
	return false
}

// srcBroker is the one broker a source is about, if there is exactly one.
func (f *finisher) srcBroker(src int) int32 {
	s := f.src[src]
	if s == nil {
		return timeline.Unknown
	}
	ids := map[int32]bool{}
	for _, b := range s.Brokers {
		ids[b] = true
	}
	if len(ids) == 0 {
		for _, b := range s.Controllers {
			ids[b] = true
		}
	}
	if len(ids) != 1 {
		return timeline.Unknown
	}
	for b := range ids {
		return b
	}
	return timeline.Unknown
}

func isBrokerKind(s *SourceFacts) bool {
	switch s.Kind {
	case "state-change.log", "controller.log", "server.log", "broker stdout (all loggers)", "state-change log", "controller log", "server log":
		return true
	}
	const brokerEras = parser.EraBrokerN | parser.EraBrokerID | parser.EraRequestInfo | parser.EraKRaft | parser.EraQuorumController |
		parser.EraZKController | parser.EraLeaderEpochServerLog | parser.EraGenerated | parser.EraPartitionState
	return s.Eras&brokerEras != 0
}

func isClientKind(s *SourceFacts) bool {
	return s.Kind == "client application log" || s.Eras&parser.EraProducer != 0 || len(s.Producers) > 0
}

func hasLevel(s *SourceFacts, l string) bool {
	for _, x := range s.Levels {
		if x == l {
			return true
		}
	}
	return false
}
