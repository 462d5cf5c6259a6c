package report

import (
	"fmt"
	"io"

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
// broker_event, controller_event, isr_change, truncation, consumer_event.
func (j *JSONWriter) Context(st *timeline.Stats) {
	for _, b := range st.BrokerEvents {
		what := b.Lifecycle.String()
		if b.Cause != parser.CauseUnknown {
			what = b.Cause.String()
		}
		j.put(BrokerEventRecord{"broker_event", j.tm(b.Time), optInt(b.Broker), what, b.Brokers, b.Ref.Source, b.Ref.Line})
	}
	for _, c := range st.Controllers {
		j.put(ControllerEventRecord{"controller_event", j.tm(c.Time), optInt(c.Controller), optInt(c.Epoch), c.Lifecycle.String(), c.Ref.Source, c.Ref.Line})
	}
	for _, c := range st.ISRChanges {
		j.put(ISRChangeRecord{"isr_change", j.tm(c.Time), optInt(c.Broker), c.Topic, c.Partition, c.Kind, c.From, c.To, c.Rejected, c.Ref.Source, c.Ref.Line})
	}
	for _, tr := range st.Truncations {
		j.put(TruncationRecord{"truncation", j.tm(tr.Time), optInt(tr.Broker), tr.Topic, tr.Partition, tr.Offset, tr.Refused, optInt64(tr.EndOffset, tr.Refused), tr.Ref.Source, tr.Ref.Line})
	}
	for _, c := range st.Consumers {
		j.put(ConsumerEventRecord{"consumer_event", j.tm(c.Time), c.ClientID, c.GroupID, c.Kind.String(), optInt(c.Coordinator), c.Ref.Source, c.Ref.Line})
	}
}

func optInt64(v int64, ok bool) *int64 {
	if !ok {
		return nil
	}
	return &v
}

// writeContext is the text report's section on brokers and controllers.
func (c *Collector) writeContext(w io.Writer, st *timeline.Stats) {
	if st == nil || len(st.BrokerEvents)+len(st.Controllers)+len(st.ISRChanges)+len(st.Truncations) == 0 {
		return
	}
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("Brokers and controllers\n")
	counts := map[string]int{}
	for _, b := range st.BrokerEvents {
		what := b.Lifecycle.String()
		if b.Cause != parser.CauseUnknown {
			what = b.Cause.String()
		}
		counts[fmt.Sprintf("broker %s %s", leaderStr(b.Broker), what)]++
	}
	shown := 0
	for _, b := range st.BrokerEvents {
		if shown >= 30 {
			p("  … %d more broker events (see --format json)\n", len(st.BrokerEvents)-shown)
			break
		}
		what := b.Lifecycle.String()
		if b.Cause != parser.CauseUnknown {
			what = b.Cause.String()
		}
		extra := ""
		if len(b.Brokers) > 1 {
			extra = " (brokers " + ids(b.Brokers) + ")"
		}
		p("  %s broker %s %s%s\n", c.tm(b.Time), leaderStr(b.Broker), what, extra)
		shown++
	}
	for i, ce := range st.Controllers {
		if i >= 20 {
			p("  … %d more controller events\n", len(st.Controllers)-i)
			break
		}
		ep := ""
		if ce.Epoch != parser.Unknown {
			ep = fmt.Sprintf(" epoch %d", ce.Epoch)
		}
		p("  %s controller %s %s%s\n", c.tm(ce.Time), leaderStr(ce.Controller), ce.Lifecycle, ep)
	}
	shrinks, expands, rejected := 0, 0, 0
	for _, ic := range st.ISRChanges {
		switch {
		case ic.Rejected:
			rejected++
		case ic.Kind == "shrink":
			shrinks++
		case ic.Kind == "expand":
			expands++
		}
	}
	if shrinks+expands+rejected > 0 {
		p("  ISR: %d shrink(s), %d expansion(s)", shrinks, expands)
		if rejected > 0 {
			p(", %d shrink(s) REJECTED by ZooKeeper (a broker still acting as leader after losing it)", rejected)
		}
		p("\n")
	}
	for _, tr := range st.Truncations {
		if tr.Refused {
			p("  %s broker %s REFUSED to truncate %s-%d to the new leader's end offset %d: its own log ends at %d — an unclean leader; offsets %d–%d are lost\n",
				c.tm(tr.Time), leaderStr(tr.Broker), tr.Topic, tr.Partition, tr.Offset, tr.EndOffset, tr.Offset, tr.EndOffset-1)
		}
	}
	p("\n")
}
