package tui

import (
	"slices"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// kept is an election as the screen keeps it. The screen holds every
// election of the last --keep (up to Options.MaxEpisodes) for its rows,
// filters, bursts and histogram, and draws one in full only when it is
// selected. Holding a copy of the timeline's Episode for each (432 bytes,
// 288 more per broker, every time 24 bytes) made the screen the largest
// user of memory once tens of thousands were open at once: 50,000 of them
// were 45 MB of a 106 MB heap in the real watch. So what the rows read is
// kept as fields, the rest packed: times as nanoseconds from the start,
// broker ids in one slice, each broker's phases likewise; episode()
// rebuilds the Episode that the detail and the timeline's measures read.
//
// The screen draws none of the evidence, the truncations or the brokers'
// first lines, and they are not kept. Nothing in a kept election is
// changed after keep made it.
type kept struct {
	timeline.Key
	Start time.Time
	// Nanoseconds from Start (noTime: not logged).
	end, lastActivity, decided, sentLAI, sentUM, detectFrom int64

	Leader, PreviousLeader, Controller, ControllerEpoch int32
	ProducerErrors, Late, BurstID                       int32
	Cause                                               parser.Cause
	Transition, Unclean, Resent, CarriedOver            bool
	// packed holds the ISR, the replicas and the brokers the cause named
	// (nISR, nReplicas, nCause of them), then the phases each broker
	// logged in broker and phase order, in nanoseconds from Start.
	nISR, nReplicas, nCause uint16
	packed                  []int64
	brokers                 []keptBroker

	// whole is the episode itself when it does not pack: a time more than
	// 292 years from its start, a count past int32, more than 65,535
	// broker ids (a hostile log). Then only the fields above are read.
	whole *timeline.Episode
}

// keptBroker is a timeline.BrokerTimeline without its first line; the
// phases it logged (bit ph of logged) are in kept.packed.
type keptBroker struct {
	Broker  int32
	Role    parser.Role
	CatchUp bool
	logged  uint16
	Repeats int
	Elapsed time.Duration
}

// A broker's logged phases are bits of a uint16.
const _ uint = 16 - uint(parser.NumPhases)

// noTime stands for a zero time.Time (and is the offset Sub saturates
// to, so no real time is ever read as it).
const noTime = -1 << 63

// keep makes the screen's record of e; e itself is not held, unless it
// does not pack.
func keep(e *timeline.Episode) kept {
	var k kept
	k.keep(e)
	return k
}

// keep makes k the record of e, in k's buffers when they are big enough:
// an open election is kept anew at every change, and tens of thousands
// change in a burst. (Nothing else holds the buffers: episode copies out
// of them.)
func (k *kept) keep(e *timeline.Episode) {
	packed, brokers := k.packed[:0], k.brokers[:0]
	*k = kept{
		Key: e.Key, Start: e.Start,
		Leader: e.Leader, PreviousLeader: e.PreviousLeader, Controller: e.Controller, ControllerEpoch: e.ControllerEpoch,
		ProducerErrors: int32(e.ProducerErrors), Late: int32(e.Late), BurstID: int32(e.BurstID),
		Cause: e.Cause, Transition: e.Transition, Unclean: e.Unclean, Resent: e.Resent, CarriedOver: e.CarriedOver,
		nISR: uint16(len(e.ISR)), nReplicas: uint16(len(e.Replicas)), nCause: uint16(len(e.CauseBrokers)),
	}
	fits := int(k.ProducerErrors) == e.ProducerErrors && int(k.Late) == e.Late && int(k.BurstID) == e.BurstID &&
		int(k.nISR) == len(e.ISR) && int(k.nReplicas) == len(e.Replicas) && int(k.nCause) == len(e.CauseBrokers)
	off := func(t time.Time) int64 {
		if t.IsZero() {
			return noTime
		}
		d := t.Sub(e.Start)
		if d == noTime || !e.Start.Add(d).Equal(t) {
			fits = false
		}
		return int64(d)
	}
	k.end, k.lastActivity = off(e.End), off(e.LastActivity)
	k.decided, k.sentLAI, k.sentUM, k.detectFrom = off(e.Decided), off(e.SentLeaderAndIsr), off(e.SentUpdateMetadata), off(e.DetectFrom)
	n := len(e.ISR) + len(e.Replicas) + len(e.CauseBrokers)
	for _, bt := range e.Brokers {
		for _, t := range bt.Phases {
			if !t.IsZero() {
				n++
			}
		}
	}
	if n > 0 {
		k.packed = packed
		if cap(k.packed) < n {
			k.packed = make([]int64, 0, n)
		}
		for _, ids := range [][]int32{e.ISR, e.Replicas, e.CauseBrokers} {
			for _, id := range ids {
				k.packed = append(k.packed, int64(id))
			}
		}
	}
	if len(e.Brokers) > 0 {
		k.brokers = brokers
		if cap(k.brokers) < len(e.Brokers) {
			k.brokers = make([]keptBroker, len(e.Brokers))
		}
		k.brokers = k.brokers[:len(e.Brokers)]
		for i, bt := range e.Brokers {
			kb := &k.brokers[i]
			*kb = keptBroker{Broker: bt.Broker, Role: bt.Role, CatchUp: bt.CatchUp, Repeats: bt.Repeats, Elapsed: bt.Elapsed}
			for ph, t := range bt.Phases {
				if !t.IsZero() {
					kb.logged |= 1 << ph
					k.packed = append(k.packed, off(t))
				}
			}
		}
	}
	if !fits {
		k.whole = e
	}
}

func (k *kept) at(d int64) time.Time {
	if d == noTime {
		return time.Time{}
	}
	return k.Start.Add(time.Duration(d))
}

// End is the election's last line.
func (k *kept) End() time.Time {
	if k.whole != nil {
		return k.whole.End
	}
	return k.at(k.end)
}

// LastActivity is when a line last added to it.
func (k *kept) LastActivity() time.Time {
	if k.whole != nil {
		return k.whole.LastActivity
	}
	return k.at(k.lastActivity)
}

// ids are n broker ids of packed from i.
func (k *kept) ids(i, n int) []int32 {
	if n == 0 {
		return nil
	}
	out := make([]int32, n)
	for j := range out {
		out[j] = int32(k.packed[i+j])
	}
	return out
}

// CauseBrokers are the brokers the trigger named.
func (k *kept) CauseBrokers() []int32 {
	if k.whole != nil {
		return k.whole.CauseBrokers
	}
	return k.ids(int(k.nISR)+int(k.nReplicas), int(k.nCause))
}

// causeNames says whether the trigger named broker b.
func (k *kept) causeNames(b int32) bool {
	if k.whole != nil {
		return slices.Contains(k.whole.CauseBrokers, b)
	}
	i := int(k.nISR) + int(k.nReplicas)
	for _, id := range k.packed[i : i+int(k.nCause)] {
		if int32(id) == b {
			return true
		}
	}
	return false
}

// applied calls fn with each broker's BrokerTimeline.Applied, where it
// has one, in broker order.
func (k *kept) applied(fn func(broker int32, d time.Duration)) {
	if k.whole != nil {
		for _, bt := range k.whole.Brokers {
			if d, ok := bt.Applied(); ok {
				fn(bt.Broker, d)
			}
		}
		return
	}
	j := k.phases()
	for i := range k.brokers {
		var bt timeline.BrokerTimeline
		bt, j = k.broker(i, j)
		if d, ok := bt.Applied(); ok {
			fn(bt.Broker, d)
		}
	}
}

// phases is where the brokers' phases start in packed.
func (k *kept) phases() int { return int(k.nISR) + int(k.nReplicas) + int(k.nCause) }

// broker rebuilds broker i's timeline from its phases at packed[j:], and
// says where the next broker's start: the brokers are read in one pass.
func (k *kept) broker(i, j int) (timeline.BrokerTimeline, int) {
	kb := &k.brokers[i]
	bt := timeline.BrokerTimeline{Broker: kb.Broker, Role: kb.Role, CatchUp: kb.CatchUp, Repeats: kb.Repeats, Elapsed: kb.Elapsed}
	for ph := range bt.Phases {
		if kb.logged&(1<<ph) != 0 {
			bt.Phases[ph] = k.at(k.packed[j])
			j++
		}
	}
	return bt, j
}

// episode rebuilds the election for the detail and the timeline's
// measures (fresh each time: the caller may keep it).
func (k *kept) episode() *timeline.Episode {
	if k.whole != nil {
		return k.whole
	}
	e := &timeline.Episode{
		Key: k.Key, Start: k.Start, End: k.at(k.end), LastActivity: k.at(k.lastActivity),
		Decided: k.at(k.decided), SentLeaderAndIsr: k.at(k.sentLAI), SentUpdateMetadata: k.at(k.sentUM), DetectFrom: k.at(k.detectFrom),
		Leader: k.Leader, PreviousLeader: k.PreviousLeader, Controller: k.Controller, ControllerEpoch: k.ControllerEpoch,
		Cause: k.Cause, Transition: k.Transition, Unclean: k.Unclean, Resent: k.Resent, CarriedOver: k.CarriedOver,
		ProducerErrors: int(k.ProducerErrors), Late: int(k.Late), BurstID: int(k.BurstID),
	}
	e.ISR = k.ids(0, int(k.nISR))
	e.Replicas = k.ids(int(k.nISR), int(k.nReplicas))
	e.CauseBrokers = k.CauseBrokers()
	if len(k.brokers) > 0 {
		bts := make([]timeline.BrokerTimeline, len(k.brokers))
		e.Brokers = make([]*timeline.BrokerTimeline, len(k.brokers))
		j := k.phases()
		for i := range k.brokers {
			bts[i], j = k.broker(i, j)
			e.Brokers[i] = &bts[i]
		}
	}
	return e
}

// probe sets p to what the timeline's burst rule reads of k (InBurst,
// Burst.Joins and Add: the flags, the cause and the times), without the
// brokers: Add's durations and cause brokers, which need them, are not
// what the screen reads of a burst.
func (k *kept) probe(p *timeline.Episode) *timeline.Episode {
	*p = timeline.Episode{
		Key: k.Key, Start: k.Start, End: k.End(), LastActivity: k.LastActivity(),
		Cause: k.Cause, Transition: k.Transition, Resent: k.Resent, CarriedOver: k.CarriedOver,
		Leader: k.Leader, PreviousLeader: k.PreviousLeader,
	}
	return p
}
