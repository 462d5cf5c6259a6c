package tui

import (
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
	Cause                                               parser.Cause
	Transition, Unclean, Resent, CarriedOver            bool
	ProducerErrors, Late, BurstID                       int

	// ids: the ISR, then the replicas, then the brokers the cause named.
	ids             []int32
	nISR, nReplicas int32
	brokers         []keptBroker

	// whole is the episode itself when one of its times is more than 292
	// years from its start (an offset would not hold it: a hostile log);
	// the times and phases above are then not used.
	whole *timeline.Episode
}

// keptBroker is a timeline.BrokerTimeline without its first line, its
// phases in nanoseconds from the election's start.
type keptBroker struct {
	Broker  int32
	Role    parser.Role
	CatchUp bool
	Repeats int
	Elapsed time.Duration
	phases  [parser.NumPhases]int64
}

// noTime stands for a zero time.Time (and is the offset Sub saturates
// to, so no real time is ever read as it).
const noTime = -1 << 63

// keep makes the screen's record of e; e itself is not held, unless its
// times cannot be packed.
func keep(e *timeline.Episode) kept {
	k := kept{
		Key: e.Key, Start: e.Start,
		Leader: e.Leader, PreviousLeader: e.PreviousLeader, Controller: e.Controller, ControllerEpoch: e.ControllerEpoch,
		Cause: e.Cause, Transition: e.Transition, Unclean: e.Unclean, Resent: e.Resent, CarriedOver: e.CarriedOver,
		ProducerErrors: e.ProducerErrors, Late: e.Late, BurstID: e.BurstID,
		nISR: int32(len(e.ISR)), nReplicas: int32(len(e.Replicas)),
	}
	if n := len(e.ISR) + len(e.Replicas) + len(e.CauseBrokers); n > 0 {
		k.ids = make([]int32, 0, n)
		k.ids = append(append(append(k.ids, e.ISR...), e.Replicas...), e.CauseBrokers...)
	}
	fits := true
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
	if len(e.Brokers) > 0 {
		k.brokers = make([]keptBroker, len(e.Brokers))
		for i, bt := range e.Brokers {
			kb := &k.brokers[i]
			kb.Broker, kb.Role, kb.CatchUp, kb.Repeats, kb.Elapsed = bt.Broker, bt.Role, bt.CatchUp, bt.Repeats, bt.Elapsed
			for ph := range kb.phases {
				kb.phases[ph] = off(bt.Phases[ph])
			}
		}
	}
	if !fits {
		k.whole = e
	}
	return k
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

// CauseBrokers are the brokers the trigger named.
func (k *kept) CauseBrokers() []int32 {
	return k.ids[k.nISR+k.nReplicas:]
}

// applied is broker i's BrokerTimeline.Applied.
func (k *kept) applied(i int) (time.Duration, bool) {
	if k.whole != nil {
		return k.whole.Brokers[i].Applied()
	}
	bt := k.broker(i)
	return bt.Applied()
}

func (k *kept) broker(i int) timeline.BrokerTimeline {
	kb := &k.brokers[i]
	bt := timeline.BrokerTimeline{Broker: kb.Broker, Role: kb.Role, CatchUp: kb.CatchUp, Repeats: kb.Repeats, Elapsed: kb.Elapsed}
	for ph, d := range kb.phases {
		bt.Phases[ph] = k.at(d)
	}
	return bt
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
		ProducerErrors: k.ProducerErrors, Late: k.Late, BurstID: k.BurstID,
	}
	ids := append([]int32(nil), k.ids...)
	if k.nISR > 0 {
		e.ISR = ids[:k.nISR:k.nISR]
	}
	if k.nReplicas > 0 {
		e.Replicas = ids[k.nISR : k.nISR+k.nReplicas : k.nISR+k.nReplicas]
	}
	if len(ids) > int(k.nISR+k.nReplicas) {
		e.CauseBrokers = ids[k.nISR+k.nReplicas:]
	}
	if len(k.brokers) > 0 {
		bts := make([]timeline.BrokerTimeline, len(k.brokers))
		e.Brokers = make([]*timeline.BrokerTimeline, len(k.brokers))
		for i := range k.brokers {
			bts[i] = k.broker(i)
			e.Brokers[i] = &bts[i]
		}
	}
	return e
}

// probe sets p to what the timeline's burst rule reads of k (InBurst,
// Burst.Joins and Add: the flags, cause and times), without the brokers
// (Add's durations, which need them, are not used by the screen).
func (k *kept) probe(p *timeline.Episode) *timeline.Episode {
	*p = timeline.Episode{
		Key: k.Key, Start: k.Start, End: k.End(), LastActivity: k.LastActivity(),
		Cause: k.Cause, CauseBrokers: k.CauseBrokers(), Transition: k.Transition, Resent: k.Resent, CarriedOver: k.CarriedOver,
		Leader: k.Leader, PreviousLeader: k.PreviousLeader,
	}
	return p
}
