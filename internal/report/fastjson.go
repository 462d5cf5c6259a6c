package report

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/textfmt"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// The election line is the one JSON record written per election on the
// audit's serial path: build it by hand, in exactly the bytes
// encoding/json would write for JSONElection (TestFastElectionMatchesEncoding
// checks), without reflection or maps.

func appendStr(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendOptInt(b []byte, v int32) []byte {
	if v == parser.Unknown {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, int64(v), 10)
}

func appendInts(b []byte, v []int32) []byte {
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}

func (j *JSONWriter) appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, "null"...)
	}
	b = append(b, '"')
	sec := t.Unix()
	if c := &j.stamp; c.ok && c.sec == sec {
		// The same second as the last stamp (an election's lines are a
		// few seconds apart): the same date, clock and offset in loc.
		b = append(b, c.pre[:]...)
		ms := t.Nanosecond() / 1e6
		b = append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
		b = append(b, c.suf[:c.nsuf]...)
	} else {
		n := len(b)
		b = appendStamp(b, t.In(j.loc))
		j.stamp.keep(sec, b[n:])
	}
	return append(b, '"')
}

// stampCache is the last stamp appendTime wrote, but for its milliseconds.
type stampCache struct {
	ok   bool
	sec  int64
	pre  [19]byte // 2006-01-02T15:04:05
	suf  [6]byte  // Z or -07:00
	nsuf uint8
}

func (c *stampCache) keep(sec int64, st []byte) {
	c.ok = len(st) >= 24 && len(st)-23 <= len(c.suf) && st[19] == '.'
	if !c.ok {
		return
	}
	c.sec = sec
	copy(c.pre[:], st)
	c.nsuf = uint8(copy(c.suf[:], st[23:]))
}

// appendStamp appends t as AppendFormat(textfmt.TimeFormat) does, by
// hand: every election writes several, and the layout's parsing cost
// more than the rest of its line.
func appendStamp(b []byte, t time.Time) []byte {
	y, mo, d := t.Date()
	if _, off := t.Zone(); y < 0 || y > 9999 || off <= -100*3600 || off >= 100*3600 {
		return t.AppendFormat(b, textfmt.TimeFormat)
	}
	h, mi, s := t.Clock()
	two := func(b []byte, v int) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-')
	b = two(b, int(mo))
	b = append(b, '-')
	b = two(b, d)
	b = append(b, 'T')
	b = two(b, h)
	b = append(b, ':')
	b = two(b, mi)
	b = append(b, ':')
	b = two(b, s)
	ms := t.Nanosecond() / 1e6
	b = append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	_, off := t.Zone()
	if off == 0 {
		return append(b, 'Z')
	}
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	off /= 60
	b = append(b, sign)
	b = two(b, off/60)
	b = append(b, ':')
	return two(b, off%60)
}

// phaseOrder lists phases by name, the order encoding/json gives map keys.
var phaseOrder = func() []parser.Phase {
	var ps []parser.Phase
	for ph := parser.PhaseReceived; ph < parser.NumPhases; ph++ {
		ps = append(ps, ph)
	}
	for i := 1; i < len(ps); i++ {
		for k := i; k > 0 && ps[k].String() < ps[k-1].String(); k-- {
			ps[k], ps[k-1] = ps[k-1], ps[k]
		}
	}
	return ps
}()

func (j *JSONWriter) appendElection(b []byte, e *timeline.Episode) []byte {
	b = append(b, `{"type":"election","topic":`...)
	b = appendStr(b, e.Topic)
	b = append(b, `,"partition":`...)
	b = strconv.AppendInt(b, int64(e.Partition), 10)
	b = append(b, `,"leader_epoch":`...)
	b = strconv.AppendInt(b, int64(e.LeaderEpoch), 10)
	b = append(b, `,"leader":`...)
	b = appendOptInt(b, e.Leader)
	b = append(b, `,"previous_leader":`...)
	b = appendOptInt(b, e.PreviousLeader)
	b = append(b, `,"leader_changed":`...)
	if changed, known := e.LeaderChanged(); known {
		b = strconv.AppendBool(b, changed)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"controller":`...)
	b = appendOptInt(b, e.Controller)
	b = append(b, `,"controller_epoch":`...)
	b = appendOptInt(b, e.ControllerEpoch)
	b = append(b, `,"cause":`...)
	if e.Cause != parser.CauseUnknown {
		b = appendStr(b, e.Cause.String())
	} else {
		b = append(b, "null"...)
	}
	if len(e.CauseBrokers) > 0 {
		b = append(b, `,"cause_brokers":`...)
		b = appendInts(b, e.CauseBrokers)
	}
	b = append(b, `,"unclean":`...)
	b = strconv.AppendBool(b, e.Unclean)
	b = append(b, `,"decided":`...)
	b = j.appendTime(b, e.Decided)
	b = append(b, `,"start":`...)
	b = j.appendTime(b, e.Start)
	b = append(b, `,"end":`...)
	b = j.appendTime(b, e.End)
	b = append(b, `,"duration_ms":`...)
	b = strconv.AppendInt(b, e.Duration().Milliseconds(), 10)
	m := e.Measures()
	b = append(b, `,"leader_ready_ms":`...)
	b = appendOptMs(b, m.LeaderReady, m.HasLeaderReady)
	b = append(b, `,"isr_applied_ms":`...)
	b = appendOptMs(b, m.ISRApplied, m.HasISRApplied)
	b = append(b, `,"propagated_ms":`...)
	b = appendOptMs(b, m.Propagated, m.HasPropagated)
	if m.HasDetect {
		b = append(b, `,"detect_ms":`...)
		b = strconv.AppendInt(b, m.Detect.Milliseconds(), 10)
	}
	if len(e.ISR) > 0 {
		b = append(b, `,"isr":`...)
		b = appendInts(b, e.ISR)
	}
	if len(e.Replicas) > 0 {
		b = append(b, `,"replicas":`...)
		b = appendInts(b, e.Replicas)
	}
	b = append(b, `,"brokers":[`...)
	for i, bt := range e.Brokers {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"broker":`...)
		b = strconv.AppendInt(b, int64(bt.Broker), 10)
		b = append(b, `,"role":`...)
		b = appendStr(b, roleName(bt.Role))
		b = append(b, `,"phases":{`...)
		n := 0
		for _, ph := range phaseOrder {
			if t := bt.Phases[ph]; !t.IsZero() {
				if n > 0 {
					b = append(b, ',')
				}
				n++
				b = appendStr(b, ph.String())
				b = append(b, ':')
				b = j.appendTime(b, t)
			}
		}
		b = append(b, `},"apply_ms":`...)
		if d, ok := bt.Applied(); ok {
			b = strconv.AppendInt(b, d.Milliseconds(), 10)
		} else {
			b = append(b, "null"...)
		}
		if first, ok := bt.FirstPhase(); ok && !e.Decided.IsZero() {
			b = append(b, `,"since_decided_ms":`...)
			b = strconv.AppendInt(b, first.Sub(e.Decided).Milliseconds(), 10)
		}
		if bt.Elapsed > 0 {
			b = append(b, `,"finished_in_ms":`...)
			b = strconv.AppendInt(b, bt.Elapsed.Milliseconds(), 10)
		}
		if bt.Repeats != 0 {
			b = append(b, `,"repeats":`...)
			b = strconv.AppendInt(b, int64(bt.Repeats), 10)
		}
		if bt.CatchUp {
			b = append(b, `,"catch_up":true`...)
		}
		b = append(b, '}')
	}
	b = append(b, `],"producer_errors":`...)
	b = strconv.AppendInt(b, int64(e.ProducerErrors), 10)
	b = append(b, `,"transition":`...)
	b = strconv.AppendBool(b, e.Transition)
	b = append(b, `,"resent":`...)
	b = strconv.AppendBool(b, e.Resent)
	b = append(b, `,"carried_over":`...)
	b = strconv.AppendBool(b, e.CarriedOver)
	if e.BurstID != 0 {
		b = append(b, `,"burst":`...)
		b = strconv.AppendInt(b, int64(e.BurstID), 10)
	}
	if e.Late != 0 {
		b = append(b, `,"late_lines":`...)
		b = strconv.AppendInt(b, int64(e.Late), 10)
	}
	if !e.SentLeaderAndIsr.IsZero() {
		b = append(b, `,"sent_leader_and_isr":`...)
		b = j.appendTime(b, e.SentLeaderAndIsr)
	}
	if !e.SentUpdateMetadata.IsZero() {
		b = append(b, `,"sent_update_metadata":`...)
		b = j.appendTime(b, e.SentUpdateMetadata)
	}
	b = append(b, '}', '\n')
	return b
}

func appendOptMs(b []byte, d time.Duration, ok bool) []byte {
	if !ok {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, d.Milliseconds(), 10)
}
