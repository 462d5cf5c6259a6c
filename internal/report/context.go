package report

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/textfmt"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// BrokerEventRecord is a "broker_event" line: a broker's lifecycle
// (starting, registered, fenced, zk_session_expired, shut_down, …) or, when
// the controller names why, the cause it acted on.
type BrokerEventRecord struct {
	Type    string  `json:"type"`
	Time    *string `json:"time"`
	Broker  *int32  `json:"broker"`
	Event   string  `json:"event"`
	Brokers []int32 `json:"brokers,omitempty"`
	Source  int     `json:"source"`
	Line    int64   `json:"line"`
}

// ControllerEventRecord is a "controller_event" line: a controller (or
// KRaft quorum leader) elected or resigned, with its controller epoch.
type ControllerEventRecord struct {
	Type       string  `json:"type"`
	Time       *string `json:"time"`
	Controller *int32  `json:"controller"`
	Epoch      *int32  `json:"epoch"`
	Event      string  `json:"event"`
	Source     int     `json:"source"`
	Line       int64   `json:"line"`
}

// ISRChangeRecord is an "isr_change" line: an ISR shrink or expansion, and
// whether ZooKeeper rejected it.
type ISRChangeRecord struct {
	Type      string  `json:"type"`
	Time      *string `json:"time"`
	Broker    *int32  `json:"broker"`
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Change    string  `json:"change"`
	From      []int32 `json:"from"`
	To        []int32 `json:"to"`
	Rejected  bool    `json:"rejected"`
	Source    int     `json:"source"`
	Line      int64   `json:"line"`
}

// TruncationRecord is a "truncation" line: a replica truncated its log to
// the new leader's, or refused to.
type TruncationRecord struct {
	Type      string  `json:"type"`
	Time      *string `json:"time"`
	Broker    *int32  `json:"broker"`
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Offset    int64   `json:"offset"`
	Refused   bool    `json:"refused"`
	EndOffset *int64  `json:"replica_end_offset,omitempty"`
	Source    int     `json:"source"`
	Line      int64   `json:"line"`
}

// ConsumerEventRecord is a "consumer_event" line: a consumer's group
// event (coordinator found or lost, join, revoke, assign, poll timeout,
// commit failure).
type ConsumerEventRecord struct {
	Type        string  `json:"type"`
	Time        *string `json:"time"`
	ClientID    string  `json:"client_id"`
	GroupID     string  `json:"group_id"`
	Event       string  `json:"event"`
	Coordinator *int32  `json:"coordinator"`
	Source      int     `json:"source"`
	Line        int64   `json:"line"`
}

// Context writes the timeline's context records as JSON lines:
// broker_event, controller_event, isr_change, truncation, consumer_event;
// those inside the window w.
func (j *JSONWriter) Context(st *timeline.Stats, w *Window) {
	for _, b := range st.BrokerEvents {
		if !w.In(b.Time) {
			continue
		}
		j.put(BrokerEventRecord{"broker_event", j.tm(b.Time), optInt(b.Broker), brokerEventName(&b), b.Brokers, b.Ref.Source, b.Ref.Line})
	}
	for _, c := range st.Controllers {
		if !w.In(c.Time) {
			continue
		}
		j.put(ControllerEventRecord{"controller_event", j.tm(c.Time), optInt(c.Controller), optInt(c.Epoch), c.Lifecycle.String(), c.Ref.Source, c.Ref.Line})
	}
	for _, c := range st.ISRChanges {
		if !w.In(c.Time) || !w.Covers(c.Topic, c.Partition) {
			continue
		}
		j.putLine(j.appendISRChange(j.line[:0], &c))
	}
	for _, tr := range st.Truncations {
		if !w.In(tr.Time) || !w.Covers(tr.Topic, tr.Partition) {
			continue
		}
		j.putLine(j.appendTruncation(j.line[:0], &tr))
	}
	for _, c := range st.Consumers {
		if !w.In(c.Time) {
			continue
		}
		j.put(ConsumerEventRecord{"consumer_event", j.tm(c.Time), c.ClientID, c.GroupID, c.Kind.String(), optInt(c.Coordinator), c.Ref.Source, c.Ref.Line})
	}
}

// brokerEventName is what a broker event is called: the cause the
// controller acted on where it names one, else the lifecycle step.
func brokerEventName(b *timeline.BrokerEvent) string {
	if b.Cause != parser.CauseUnknown {
		return b.Cause.String()
	}
	return b.Lifecycle.String()
}

// appendISRChange appends c as encoding/json writes its ISRChangeRecord
// (TestContextRecordsMatchEncoding checks): up to 10,000 of them a run.
func (j *JSONWriter) appendISRChange(b []byte, c *timeline.ISRChange) []byte {
	b = append(b, `{"type":"isr_change","time":`...)
	b = j.appendTime(b, c.Time)
	b = append(b, `,"broker":`...)
	b = appendOptInt(b, c.Broker)
	b = append(b, `,"topic":`...)
	b = appendStr(b, c.Topic)
	b = append(b, `,"partition":`...)
	b = strconv.AppendInt(b, int64(c.Partition), 10)
	b = append(b, `,"change":`...)
	b = appendStr(b, c.Kind)
	b = append(b, `,"from":`...)
	b = appendIntsOrNull(b, c.From)
	b = append(b, `,"to":`...)
	b = appendIntsOrNull(b, c.To)
	b = append(b, `,"rejected":`...)
	b = strconv.AppendBool(b, c.Rejected)
	return appendRef(b, c.Ref)
}

// appendTruncation appends tr as encoding/json writes its TruncationRecord.
func (j *JSONWriter) appendTruncation(b []byte, tr *timeline.Truncation) []byte {
	b = append(b, `{"type":"truncation","time":`...)
	b = j.appendTime(b, tr.Time)
	b = append(b, `,"broker":`...)
	b = appendOptInt(b, tr.Broker)
	b = append(b, `,"topic":`...)
	b = appendStr(b, tr.Topic)
	b = append(b, `,"partition":`...)
	b = strconv.AppendInt(b, int64(tr.Partition), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, tr.Offset, 10)
	b = append(b, `,"refused":`...)
	b = strconv.AppendBool(b, tr.Refused)
	if tr.Refused {
		b = append(b, `,"replica_end_offset":`...)
		b = strconv.AppendInt(b, tr.EndOffset, 10)
	}
	return appendRef(b, tr.Ref)
}

// appendRef ends a context record: its source and line, the newline.
func appendRef(b []byte, r timeline.Ref) []byte {
	b = append(b, `,"source":`...)
	b = strconv.AppendInt(b, int64(r.Source), 10)
	b = append(b, `,"line":`...)
	b = strconv.AppendInt(b, r.Line, 10)
	return append(b, "}\n"...)
}

// appendIntsOrNull: encoding/json writes a nil slice as null.
func appendIntsOrNull(b []byte, v []int32) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	return appendInts(b, v)
}

func optInt64(v int64, ok bool) *int64 {
	if !ok {
		return nil
	}
	return &v
}

// contextShown bounds the broker and controller events listed unless
// the report is --full.
const contextShown = 30

// writeContext is the text report's section on brokers and controllers
// inside the window. One thing logged twice in a row (the controller's
// "Newly added brokers: 2" and "New broker startup callback for 2") is
// listed once.
func (c *Collector) writeContext(t *textOut, st *timeline.Stats, w *Window, full bool) {
	if st == nil {
		return
	}
	type row struct {
		at   time.Time
		text string
	}
	var rows []row
	var last struct {
		broker int32
		what   string
		at     time.Time
	}
	for _, b := range st.BrokerEvents {
		if !w.In(b.Time) {
			continue
		}
		what := brokerEventName(&b)
		if b.Broker == last.broker && what == last.what && b.Time.Sub(last.at) < time.Second {
			continue
		}
		last.broker, last.what, last.at = b.Broker, what, b.Time
		who := "broker " + leaderStr(b.Broker)
		if b.Broker == parser.Unknown {
			who = "a broker"
		}
		extra := ""
		if len(b.Brokers) > 1 {
			extra = " (brokers " + ids(b.Brokers) + ")"
		}
		rows = append(rows, row{b.Time, fmt.Sprintf("  %s %s %s%s", c.tm(b.Time), who, what, extra)})
	}
	for _, ce := range st.Controllers {
		if !w.In(ce.Time) {
			continue
		}
		ep := ""
		if ce.Epoch != parser.Unknown {
			ep = fmt.Sprintf(" epoch %d", ce.Epoch)
		}
		rows = append(rows, row{ce.Time, fmt.Sprintf("  %s controller %s %s%s", c.tm(ce.Time), leaderStr(ce.Controller), ce.Lifecycle, ep)})
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].at.Before(rows[j].at) })
	shrinks, expands, rejected := 0, 0, 0
	var refused []*timeline.Truncation
	for _, ic := range st.ISRChanges {
		if !w.In(ic.Time) || !w.Covers(ic.Topic, ic.Partition) {
			continue
		}
		switch {
		case ic.Rejected:
			rejected++
		case ic.Kind == "shrink":
			shrinks++
		case ic.Kind == "expand":
			expands++
		}
	}
	for i := range st.Truncations {
		tr := &st.Truncations[i]
		if tr.Refused && w.In(tr.Time) && w.Covers(tr.Topic, tr.Partition) {
			refused = append(refused, tr)
		}
	}
	if len(rows) == 0 && shrinks+expands+rejected == 0 && len(refused) == 0 {
		return
	}
	t.p("Brokers and controllers\n")
	for i, r := range rows {
		if !full && i == contextShown {
			t.p("  … %d more (--full, or --format json)\n", len(rows)-i)
			break
		}
		t.line(r.text)
	}
	if shrinks+expands+rejected > 0 {
		s := fmt.Sprintf("  ISR: %d shrink(s), %d expansion(s)", shrinks, expands)
		if rejected > 0 {
			s += fmt.Sprintf(", %d shrink(s) REJECTED by ZooKeeper (a broker still acting as leader after losing it)", rejected)
		}
		t.para("", "    ", s)
	}
	for _, tr := range refused {
		t.para("", "    ", fmt.Sprintf("  %s broker %s REFUSED to truncate %s-%d to the new leader's end offset %d: its own log ends at %d — an unclean leader; offsets %d–%d are lost",
			c.tm(tr.Time), leaderStr(tr.Broker), textfmt.Clean(tr.Topic), tr.Partition, tr.Offset, tr.EndOffset, tr.Offset, tr.EndOffset-1))
	}
	t.p("\n")
}
