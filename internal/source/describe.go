package source

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/textfmt"
	"github.com/leaderaudit/leaderaudit/parser"
)

// Info is what the report says about one input file.
type Info struct {
	Type        string   `json:"type"`
	Index       int      `json:"source"`
	Path        string   `json:"path"`
	Kind        string   `json:"kind"`
	Brokers     []int32  `json:"brokers"`
	Controllers []int32  `json:"controllers,omitempty"`
	Producers   []string `json:"producers,omitempty"`
	// Clients: other client ids (consumers, KafkaJS, librdkafka instances).
	Clients []string `json:"clients,omitempty"`
	// Writers: in a file several brokers' JVMs wrote at once, each one's
	// share (records whose prefix names it), span and own disorder.
	Writers []WriterInfo `json:"writers,omitempty"`
	Era     string       `json:"era"`
	Levels  []string     `json:"levels"`
	Layouts []string     `json:"layouts"`
	// Collectors: prefixes a log collector put on the lines (kubectl,
	// stern, docker-compose, journald, syslog).
	Collectors    []string `json:"collectors,omitempty"`
	Lines         int64    `json:"lines"`
	Records       int64    `json:"records"`
	NotUnderstood int64    `json:"not_understood"`
	Unparsed      int64    `json:"unparsed"`
	// UndatedErrors: a producer's exception lines no record dates.
	UndatedErrors int64 `json:"undated_errors,omitempty"`
	Events        int64 `json:"events"`
	CutLines      int64 `json:"cut_lines"`
	OutOfOrder    int64 `json:"out_of_order"`
	// Reordered: events put back in time order; LateEvents: written further
	// out of order than ReorderWindow, left in file order.
	Reordered  int64   `json:"reordered"`
	LateEvents int64   `json:"late_events"`
	Bytes      int64   `json:"bytes"`
	First      *string `json:"first"`
	Last       *string `json:"last"`
	Zone       string  `json:"zone"`
	Error      *string `json:"error"`
	// first, last: First and Last as instants, for the report's log span.
	first, last time.Time
}

// WriterInfo is one writer's share of a shared log.
type WriterInfo struct {
	ID         int32  `json:"id"`
	Records    int64  `json:"records"`
	First      string `json:"first"`
	Last       string `json:"last"`
	OutOfOrder int64  `json:"out_of_order"`
}

// Describe summarises a source after reading.
func Describe(s *Source, loc *time.Location) Info {
	st := &s.Stats
	si := Info{
		Type: "source", Index: s.Index, Path: s.Path, Brokers: st.Brokers, Controllers: st.Controllers,
		Producers: st.Producers, Clients: st.Clients, Writers: writers(st, loc), Lines: st.Lines, Records: st.Records, NotUnderstood: st.NotUnderstood,
		Unparsed: st.Unparsed, UndatedErrors: st.UndatedErrors, Events: st.Events, CutLines: st.CutLines, OutOfOrder: st.OutOfOrder, Bytes: s.Bytes,
		Reordered: s.Reordered, LateEvents: s.LateEvents,
		Kind: Kind(s), Era: EraName(st), Levels: []string{}, Layouts: []string{}, Collectors: parser.CollectorNames(st.Collectors),
	}
	if m := s.Metadata; m != nil {
		si.Kind = "KRaft metadata log"
		si.Era = "KRaft metadata"
		if m.MetadataVersion != "" {
			si.Era += " (metadata.version " + m.MetadataVersion + ")"
		}
		si.Brokers = m.BrokerIDs
		si.Records = int64(m.Records)
		si.Lines = int64(m.Batches)
		si.Zone = "UTC (batch timestamps)"
		if m.CRCFailures > 0 || m.Truncated || m.NotALog {
			e := fmt.Sprintf("%d batch(es) failed their CRC; truncated tail: %v; not a record-batch log: %v", m.CRCFailures, m.Truncated, m.NotALog)
			if s.Err != nil {
				e = s.Err.Error() + "; " + e
			}
			si.Error = &e
		} else if s.Err != nil {
			e := s.Err.Error()
			si.Error = &e
		}
		return si
	}
	if si.Brokers == nil {
		si.Brokers = []int32{}
	}
	for l := parser.LevelTrace; l <= parser.LevelFatal; l++ {
		if st.Levels&(1<<l) != 0 {
			si.Levels = append(si.Levels, l.String())
		}
	}
	for l := parser.LayoutLog4j; l < parser.NumLayouts; l++ {
		if st.Layouts&(1<<l) != 0 {
			si.Layouts = append(si.Layouts, l.String())
		}
	}
	if !st.First.IsZero() {
		f := st.First.In(loc).Format(textfmt.TimeFormat)
		l := st.Last.In(loc).Format(textfmt.TimeFormat)
		si.First, si.Last = &f, &l
		si.first, si.last = st.First, st.Last
	}
	switch {
	case st.HasZone:
		si.Zone = "offset in the lines"
	case s.Loc != nil:
		si.Zone = "assumed " + textfmt.ZoneName(s.Loc)
	}
	if s.Err != nil {
		e := s.Err.Error()
		si.Error = &e
	}
	return si
}

// Span is the first and last line time (zero for a metadata log or an
// empty file), for the report's log span.
func (si *Info) Span() (first, last time.Time) { return si.first, si.last }

// writers lists a shared log's writers (nil for a log with one).
func writers(st *parser.Stats, loc *time.Location) []WriterInfo {
	if len(st.Writers) < 2 {
		return nil
	}
	var out []WriterInfo
	for _, w := range st.Writers {
		out = append(out, WriterInfo{ID: w.ID, Records: w.Records, OutOfOrder: w.OutOfOrder,
			First: w.First.In(loc).Format(textfmt.TimeFormat), Last: w.Last.In(loc).Format(textfmt.TimeFormat)})
	}
	return out
}

// Kind names what a file is, from its name and what it held.
func Kind(s *Source) string {
	if s.Binary {
		return "binary"
	}
	st := &s.Stats
	b := st.ByLogger
	name := filepath.Base(s.Path)
	switch {
	case strings.HasPrefix(name, "state-change.log"):
		return "state-change.log"
	case strings.HasPrefix(name, "controller.log"):
		return "controller.log"
	case strings.HasPrefix(name, "server.log"):
		return "server.log"
	}
	client := b[parser.LoggerSender] + b[parser.LoggerConfig] + b[parser.LoggerCallback] + b[parser.LoggerLibrdkafka] + b[parser.LoggerConsumer] + b[parser.LoggerGoClient]
	broker := b[parser.LoggerStateChange] + b[parser.LoggerController] + b[parser.LoggerPartition] + b[parser.LoggerServer] + b[parser.LoggerQuorum]
	switch {
	case st.Records == 0 && st.UndatedErrors > 0:
		return "client application log"
	case st.Records == 0 && s.Input.Err != nil && !s.Read:
		return "not read" // nothing to say what it is
	case st.Records == 0:
		return "unrecognised"
	case (client > 0 || len(st.Clients) > 0) && broker == 0:
		return "client application log"
	case b[parser.LoggerStateChange] > 0 && b[parser.LoggerServer]+b[parser.LoggerPartition] > 0:
		return "broker stdout (all loggers)"
	case b[parser.LoggerStateChange] > 0:
		return "state-change log"
	case b[parser.LoggerController] > 0 && b[parser.LoggerServer] == 0:
		return "controller log"
	case broker > 0:
		return "server log"
	case st.Eras&parser.EraProducer != 0:
		return "client application log"
	}
	return "other log"
}

// EraName names the Kafka version range the source's line shapes belong to.
func EraName(st *parser.Stats) string {
	e := st.Eras
	var parts []string
	switch {
	case e&parser.EraKRaft != 0 || (e&parser.EraTopicID != 0 && e&parser.EraRequestInfo == 0):
		switch {
		case e&parser.EraPreviousLeader != 0:
			parts = append(parts, "KRaft broker 3.6+")
		case e&parser.EraTopicID != 0:
			parts = append(parts, "KRaft broker 3.3+")
		default:
			parts = append(parts, "KRaft broker 3.0+")
		}
	case e&parser.EraFinished != 0:
		parts = append(parts, "ZK broker 2.7–3.9 (INFO)")
	case e&parser.EraRequestInfo != 0:
		parts = append(parts, "ZK broker 2.6+ (INFO)")
	case e&parser.EraGenerated != 0:
		parts = append(parts, "ZK broker 2.4–2.5 (TRACE)")
	case e&parser.EraBrokerID != 0:
		parts = append(parts, "ZK broker 1.0–2.3 (TRACE)")
	case e&parser.EraBrokerN != 0 && e&parser.EraTPInTransition != 0:
		parts = append(parts, "ZK broker 0.10.2–0.11 (TRACE)")
	case e&parser.EraBrokerN != 0:
		parts = append(parts, "ZK broker 0.8.2–0.11 (TRACE)")
	case e&parser.EraLeaderEpochServerLog != 0:
		parts = append(parts, "ZK broker 0.11–2.5 server.log")
	case e&parser.EraStorage4 != 0:
		parts = append(parts, "broker 4.x server.log")
	case e&parser.EraUnifiedLog != 0:
		parts = append(parts, "broker 3.1–3.9 server.log")
	case e&parser.EraLogPrefix != 0:
		parts = append(parts, "broker 1.0–3.0 server.log")
	case e&parser.EraLeaderNotLocal != 0:
		parts = append(parts, "ZK broker 0.8.2 server.log")
	case e&parser.EraBracketTP != 0:
		parts = append(parts, "ZK broker ≤0.11 server.log")
	}
	if e&parser.EraRaft != 0 && e&parser.EraQuorumController == 0 {
		parts = append(parts, "KRaft quorum (Raft)")
	}
	if e&parser.EraZKController != 0 {
		parts = append(parts, "ZK controller")
	}
	if e&parser.EraQuorumController != 0 {
		parts = append(parts, "KRaft controller")
	}
	if e&parser.EraProducer != 0 {
		switch {
		case e&parser.EraNotLeaderOrFollower != 0:
			parts = append(parts, "Java producer 2.6+")
		case e&parser.EraNotLeaderForPartition != 0:
			parts = append(parts, "Java producer ≤2.5")
		default:
			parts = append(parts, "Java producer")
		}
	}
	if len(parts) == 0 && st.ProtocolVersion != "" {
		parts = append(parts, "broker, inter.broker.protocol.version "+st.ProtocolVersion)
	}
	if e&parser.EraKafkaJS != 0 {
		parts = append(parts, "KafkaJS client")
	}
	if len(parts) == 0 {
		// No version marker: the layout still names the client or fork.
		for _, c := range []struct {
			l    parser.Layout
			name string
		}{{parser.LayoutLibrdkafka, "librdkafka client"}, {parser.LayoutLinkedIn, "LinkedIn Kafka fork"}} {
			if st.Layouts&(1<<c.l) != 0 {
				parts = append(parts, c.name)
			}
		}
		for l := parser.LayoutLog4j; l < parser.NumLayouts; l++ {
			if n := l.String(); st.Layouts&(1<<l) != 0 && (n == "sarama" || n == "franz-go" || n == "kafka-go") {
				parts = append(parts, n+" client")
			}
		}
	}
	if len(parts) == 0 {
		return "unknown"
	}
	return strings.Join(parts, " + ")
}
