package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/quantile"
	"github.com/leaderaudit/leaderaudit/internal/textfmt"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// JSONWriter writes one JSON object per line.
type JSONWriter struct {
	w    *bufio.Writer
	buf  bytes.Buffer
	line []byte
	enc  *json.Encoder
	loc  *time.Location
	// stamp: see appendTime.
	stamp stampCache
	// Path names a source by its index, for producer errors' lines.
	Path func(src int) string
	// Err is the first write error (a closed pipe, a full disk).
	Err error
}

// NewJSONWriter writes to w, showing times in loc.
func NewJSONWriter(w io.Writer, loc *time.Location) *JSONWriter {
	j := &JSONWriter{w: bufio.NewWriterSize(w, 64<<10), loc: loc}
	j.enc = json.NewEncoder(&j.buf)
	j.enc.SetEscapeHTML(false)
	return j
}

// Flush writes buffered lines.
func (j *JSONWriter) Flush() error {
	if err := j.w.Flush(); err != nil && j.Err == nil {
		j.Err = err
	}
	return j.Err
}

func (j *JSONWriter) put(v any) {
	if j.Err != nil {
		return
	}
	j.buf.Reset()
	if err := j.enc.Encode(v); err != nil {
		j.Err = err
		return
	}
	j.write(j.buf.Bytes())
}

// write escapes C1 controls and writes one encoded line.
func (j *JSONWriter) write(b []byte) {
	// encoding/json escapes C0 controls but passes C1 (U+0080–U+009F)
	// through; some terminals act on them, so escape them too. In UTF-8 they
	// are 0xC2 0x80–0x9F, which only occur inside strings.
	if bytes.IndexByte(b, 0xc2) >= 0 {
		var out []byte
		for i := 0; i < len(b); i++ {
			if b[i] == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f {
				out = append(out, fmt.Sprintf("\\u%04x", b[i+1])...)
				i++
				continue
			}
			out = append(out, b[i])
		}
		b = out
	}
	if _, err := j.w.Write(b); err != nil {
		j.Err = err
	}
}

func (j *JSONWriter) tm(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.In(j.loc).Format(textfmt.TimeFormat)
	return &s
}

func optInt(v int32) *int32 {
	if v == parser.Unknown {
		return nil
	}
	return &v
}

// JSONBroker is one broker's part of an election.
type JSONBroker struct {
	Broker  int32             `json:"broker"`
	Role    string            `json:"role"`
	Phases  map[string]string `json:"phases"`
	ApplyMs *int64            `json:"apply_ms"`
	// SinceDecidedMs: from the controller's decision to this broker's
	// first line about it (negative: the clocks disagree).
	SinceDecidedMs *int64 `json:"since_decided_ms,omitempty"`
	ElapsedMs      *int64 `json:"finished_in_ms,omitempty"`
	Repeats        int    `json:"repeats,omitempty"`
	CatchUp        bool   `json:"catch_up,omitempty"`
}

// JSONElection is the "election" record (README documents it).
type JSONElection struct {
	Type               string       `json:"type"`
	Topic              string       `json:"topic"`
	Partition          int32        `json:"partition"`
	LeaderEpoch        int32        `json:"leader_epoch"`
	Leader             *int32       `json:"leader"`
	PreviousLeader     *int32       `json:"previous_leader"`
	LeaderChanged      *bool        `json:"leader_changed"`
	Controller         *int32       `json:"controller"`
	ControllerEpoch    *int32       `json:"controller_epoch"`
	Cause              *string      `json:"cause"`
	CauseBrokers       []int32      `json:"cause_brokers,omitempty"`
	Unclean            bool         `json:"unclean"`
	Decided            *string      `json:"decided"`
	Start              *string      `json:"start"`
	End                *string      `json:"end"`
	DurationMs         int64        `json:"duration_ms"`
	LeaderReadyMs      *int64       `json:"leader_ready_ms"`
	ISRAppliedMs       *int64       `json:"isr_applied_ms"`
	PropagatedMs       *int64       `json:"propagated_ms"`
	DetectMs           *int64       `json:"detect_ms,omitempty"`
	ISR                []int32      `json:"isr,omitempty"`
	Replicas           []int32      `json:"replicas,omitempty"`
	Brokers            []JSONBroker `json:"brokers"`
	ProducerErrors     int          `json:"producer_errors"`
	Transition         bool         `json:"transition"`
	Resent             bool         `json:"resent"`
	CarriedOver        bool         `json:"carried_over"`
	Burst              int          `json:"burst,omitempty"`
	Late               int          `json:"late_lines,omitempty"`
	SentLeaderAndIsr   *string      `json:"sent_leader_and_isr,omitempty"`
	SentUpdateMetadata *string      `json:"sent_update_metadata,omitempty"`
}

func roleName(r parser.Role) string {
	if s := r.String(); s != "" {
		return s
	}
	return "observer"
}

func optMs(d time.Duration, ok bool) *int64 {
	if !ok {
		return nil
	}
	ms := d.Milliseconds()
	return &ms
}

// ElectionRecord builds the JSON form of an episode.
func (j *JSONWriter) ElectionRecord(e *timeline.Episode) JSONElection {
	je := JSONElection{
		Type: "election", Topic: e.Topic, Partition: e.Partition, LeaderEpoch: e.LeaderEpoch,
		Leader: optInt(e.Leader), PreviousLeader: optInt(e.PreviousLeader),
		Controller: optInt(e.Controller), ControllerEpoch: optInt(e.ControllerEpoch),
		Unclean: e.Unclean, Decided: j.tm(e.Decided), Start: j.tm(e.Start), End: j.tm(e.End),
		DurationMs: e.Duration().Milliseconds(), ISR: e.ISR, Replicas: e.Replicas,
		ProducerErrors: e.ProducerErrors, Transition: e.Transition, Resent: e.Resent, CarriedOver: e.CarriedOver, Burst: e.BurstID, Late: e.Late,
		CauseBrokers: e.CauseBrokers, Brokers: []JSONBroker{},
		SentLeaderAndIsr: j.tm(e.SentLeaderAndIsr), SentUpdateMetadata: j.tm(e.SentUpdateMetadata),
	}
	if changed, known := e.LeaderChanged(); known {
		je.LeaderChanged = &changed
	}
	m := e.Measures()
	je.LeaderReadyMs, je.ISRAppliedMs, je.PropagatedMs = optMs(m.LeaderReady, m.HasLeaderReady), optMs(m.ISRApplied, m.HasISRApplied), optMs(m.Propagated, m.HasPropagated)
	je.DetectMs = optMs(m.Detect, m.HasDetect)
	if e.Cause != parser.CauseUnknown {
		c := e.Cause.String()
		je.Cause = &c
	}
	for _, bt := range e.Brokers {
		jb := JSONBroker{Broker: bt.Broker, Role: roleName(bt.Role), Phases: map[string]string{}, Repeats: bt.Repeats, CatchUp: bt.CatchUp}
		for ph := parser.PhaseReceived; ph < parser.NumPhases; ph++ {
			if t := bt.Phases[ph]; !t.IsZero() {
				jb.Phases[ph.String()] = *j.tm(t)
			}
		}
		if d, ok := bt.Applied(); ok {
			ms := d.Milliseconds()
			jb.ApplyMs = &ms
		}
		if first, ok := bt.FirstPhase(); ok && !e.Decided.IsZero() {
			ms := first.Sub(e.Decided).Milliseconds()
			jb.SinceDecidedMs = &ms
		}
		if bt.Elapsed > 0 {
			ms := bt.Elapsed.Milliseconds()
			jb.ElapsedMs = &ms
		}
		je.Brokers = append(je.Brokers, jb)
	}
	return je
}

// putLine writes a line built by hand, keeping its buffer for the next.
func (j *JSONWriter) putLine(b []byte) {
	j.line = b
	if j.Err == nil {
		j.write(b)
	}
}

// Episode writes an "election" line.
func (j *JSONWriter) Episode(e *timeline.Episode) {
	if j.Err != nil {
		return
	}
	j.line = j.appendElection(j.line[:0], e)
	j.write(j.line)
}

// JSONKey names an election.
type JSONKey struct {
	Topic       string `json:"topic"`
	Partition   int32  `json:"partition"`
	LeaderEpoch int32  `json:"leader_epoch"`
}

// JSONProducerError is the "producer_error" record: one client event, a
// failed send attempt the client retried or a batch it gave up.
type JSONProducerError struct {
	Type     string  `json:"type"`
	Time     *string `json:"time"`
	ClientID *string `json:"client_id"`
	// Topic: null where no line names it (KafkaJS's responses).
	Topic     *string `json:"topic"`
	Partition *int32  `json:"partition"`
	// Candidates: where the partition is null, the partitions the lines
	// leave possible.
	Candidates   []int32  `json:"candidates,omitempty"`
	Error        string   `json:"error"`
	AttemptsLeft *int64   `json:"attempts_left"`
	Final        bool     `json:"final"`
	Lines        []string `json:"lines"`
	BrokerSide   bool     `json:"broker_side,omitempty"`
	Match        string   `json:"match"`
	Election     *JSONKey `json:"election"`
	LagMs        *int64   `json:"lag_ms"`
}

// ProducerErrorRecord builds the JSON form of a producer error.
func (j *JSONWriter) ProducerErrorRecord(pe *timeline.ProducerError) JSONProducerError {
	jp := JSONProducerError{
		Type: "producer_error", Time: j.tm(pe.Time), Partition: optInt(pe.Partition),
		Error: pe.Error, Final: pe.Final, BrokerSide: pe.BrokerSide,
		Match: pe.Match.String(), Lines: make([]string, 0, len(pe.Lines)),
	}
	if pe.Partition == parser.Unknown && len(pe.Candidates) > 0 {
		jp.Candidates = pe.Candidates
	}
	for _, r := range pe.Lines {
		jp.Lines = append(jp.Lines, j.ref(r))
	}
	if pe.ClientID != "" {
		id := pe.ClientID
		jp.ClientID = &id
	}
	if pe.Topic != "" {
		tp := pe.Topic
		jp.Topic = &tp
	}
	if pe.AttemptsLeft >= 0 {
		a := pe.AttemptsLeft
		jp.AttemptsLeft = &a
	}
	if pe.Election != nil {
		jp.Election = &JSONKey{pe.Election.Topic, pe.Election.Partition, pe.Election.LeaderEpoch}
	}
	if pe.Match == timeline.MatchAfter {
		ms := pe.Lag.Milliseconds()
		jp.LagMs = &ms
	}
	return jp
}

// ref names a line as "file:line", the file as the source records and
// findings name it.
func (j *JSONWriter) ref(r timeline.Ref) string {
	name := ""
	if j.Path != nil {
		name = j.Path(r.Source)
	}
	if name == "" {
		name = "source " + strconv.Itoa(r.Source)
	}
	return name + ":" + strconv.FormatInt(r.Line, 10)
}

// ProducerError writes a "producer_error" line.
func (j *JSONWriter) ProducerError(pe *timeline.ProducerError) { j.put(j.ProducerErrorRecord(pe)) }

// Burst writes a "burst" line.
func (j *JSONWriter) Burst(b *timeline.Burst) {
	var cause *string
	if b.Cause != parser.CauseUnknown {
		c := b.Cause.String()
		cause = &c
	}
	j.put(struct {
		Type         string  `json:"type"`
		ID           int     `json:"id"`
		Start        *string `json:"start"`
		End          *string `json:"end"`
		Elections    int     `json:"elections"`
		Cause        *string `json:"cause"`
		CauseBrokers []int32 `json:"cause_brokers,omitempty"`
		P50Ms        int64   `json:"p50_ms"`
		P99Ms        int64   `json:"p99_ms"`
		MaxMs        int64   `json:"max_ms"`
		Slowest      JSONKey `json:"slowest"`
	}{"burst", b.ID, j.tm(b.Start), j.tm(b.End), b.Episodes, cause, b.CauseBrokers,
		quantile.Percentile(b.Durations, 50).Milliseconds(), quantile.Percentile(b.Durations, 99).Milliseconds(), b.SlowestDur.Milliseconds(),
		JSONKey{b.Slowest.Topic, b.Slowest.Partition, b.Slowest.LeaderEpoch}})
}

// Any writes an arbitrary record (source, summary, finding).
func (j *JSONWriter) Any(v any) { j.put(v) }
