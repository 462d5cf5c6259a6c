package gen

import (
	"slices"
)

// The three durations of an election in truth.jsonl, as leaderaudit's
// README defines them, from decided (or start when no decision line is
// written) and leaving out the brokers that were down or shutting down when
// it was decided (catch_up: their lines, if any, are a returning broker's):
//
//	leader_ready_ms  → the new leader's completed, else epoch_start, else finished
//	isr_applied_ms   → the last non-cached phase of every ISR replica
//	propagated_ms    → the last cached phase of any broker (null if none)

// CarriedOver is an epoch a partition had when the logs begin.
type CarriedOver struct {
	Topic       string
	Partition   int32
	LeaderEpoch int32
	Leader      int32
}

func (c *CarriedOver) appendJSON(b []byte) []byte {
	b = append(b, `{"type":"carried_over","topic":`...)
	b = appendJSONString(b, c.Topic)
	b = append(b, `,"partition":`...)
	b = ai32(b, c.Partition)
	b = append(b, `,"leader_epoch":`...)
	b = ai32(b, c.LeaderEpoch)
	b = append(b, `,"leader":`...)
	b = ai32(b, c.Leader)
	return append(b, '}')
}

// noteCarriedOver records every partition's state before the cluster start
// re-sends it.
func (g *generator) noteCarriedOver() {
	for _, p := range g.parts {
		g.tr.CarriedOver = append(g.tr.CarriedOver, CarriedOver{Topic: p.t.name, Partition: p.idx, LeaderEpoch: p.epoch, Leader: p.leader})
	}
}

func (e *Election) catchUp(b int32) bool { return slices.Contains(e.notServing, b) }

// Measures returns leader_ready_ms, isr_applied_ms and propagated_ms; -1
// for null.
func (e *Election) Measures() (ready, isr, propagated int64) {
	from := e.Decided
	if from == 0 {
		from = e.Start
	}
	ready, isr, propagated = -1, -1, -1
	for _, bp := range e.Brokers {
		if e.catchUp(bp.Broker) {
			continue
		}
		if bp.Broker == e.Leader {
			for _, ph := range [...]Phase{PhCompleted, PhEpochStart, PhFinished} {
				if t := bp.At[ph]; t != 0 {
					ready = t - from
					break
				}
			}
		}
		if slices.Contains(e.isr, bp.Broker) {
			var last int64
			for ph, t := range bp.At {
				if Phase(ph) != PhCached && t > last {
					last = t
				}
			}
			if last != 0 && last-from > isr {
				isr = last - from
			}
		}
		if t := bp.At[PhCached]; t != 0 && t-from > propagated {
			propagated = t - from
		}
	}
	return
}

func (e *Election) appendMeasures(b []byte) []byte {
	ready, isr, prop := e.Measures()
	for _, x := range []struct {
		k string
		v int64
	}{{`,"leader_ready_ms":`, ready}, {`,"isr_applied_ms":`, isr}, {`,"propagated_ms":`, prop}} {
		b = append(b, x.k...)
		b = appendNullableInt(b, x.v, x.v < 0)
	}
	return b
}
