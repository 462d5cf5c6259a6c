package timeline

import (
	"sort"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

type pendingErr struct {
	pe *ProducerError
}

func (t *Timeline) producerError(src int, ev *parser.Event, ref Ref) {
	t.Stats.ProducerErrs++
	pe := &ProducerError{
		Time: ev.Time, ClientID: ev.ClientID, Topic: ev.Topic, Partition: ev.Partition, Error: ev.Error,
		AttemptsLeft: ev.AttemptsLeft, Final: ev.Final, Ref: ref, BrokerSide: ev.Broker != Unknown,
	}
	if ev.ClientID != "" {
		t.srcClient[src] = ev.ClientID
		t.client(ev.ClientID, src).Errors++
	} else if id, ok := t.srcClient[src]; ok {
		pe.ClientID = id
		if c := t.Clients[id]; c != nil {
			c.Errors++
		}
	}
	if ev.AttemptsLeft == 0 && ev.Partition != Unknown {
		m := t.retriesOut[pe.ClientID]
		if m == nil {
			m = map[string]struct {
				partition int32
				t         time.Time
			}{}
			t.retriesOut[pe.ClientID] = m
		}
		m[ev.Topic] = struct {
			partition int32
			t         time.Time
		}{ev.Partition, ev.Time}
	}
	if ev.TopicOnly {
		pe.Partition = Unknown
		pe.Inferred = true
		if m := t.retriesOut[pe.ClientID]; m != nil {
			if r, ok := m[ev.Topic]; ok && ev.Time.Sub(r.t) <= 30*time.Second && ev.Time.Sub(r.t) >= 0 {
				pe.Partition = r.partition
			}
		}
	}
	t.errs = append(t.errs, pe)
}

func (t *Timeline) matchErrors(before time.Time, all bool) {
	n := 0
	for _, pe := range t.errs {
		if !all && !pe.Time.Before(before) {
			t.errs[n] = pe
			n++
			continue
		}
		t.match(pe)
	}
	for i := n; i < len(t.errs); i++ {
		t.errs[i] = nil
	}
	t.errs = t.errs[:n]
}

func (t *Timeline) match(pe *ProducerError) {
	tol := t.cfg.SkewTolerance
	var cands []*Episode
	if pe.Partition != Unknown {
		if ps := t.parts[TP{pe.Topic, pe.Partition}]; ps != nil {
			cands = ps.open
		}
	} else if pe.Inferred {
		// Topic only: any partition of the topic whose election covers it.
		for tp, ps := range t.parts {
			if tp.Topic != pe.Topic {
				continue
			}
			for _, e := range ps.open {
				if !pe.Time.Before(e.Start.Add(-tol)) && !pe.Time.After(e.End.Add(tol)) {
					cands = append(cands, e)
				}
			}
		}
		sort.Slice(cands, func(i, j int) bool {
			if !cands[i].Start.Equal(cands[j].Start) {
				return cands[i].Start.Before(cands[j].Start)
			}
			return cands[i].Partition < cands[j].Partition
		})
		if len(cands) > 0 {
			pe.Partition = cands[len(cands)-1].Partition
		}
	}
	var during, after *Episode
	var recentDuring, recentAfter *finished
	if pe.Partition != Unknown {
		if ps := t.parts[TP{pe.Topic, pe.Partition}]; ps != nil {
			for i := range ps.recent {
				f := &ps.recent[i]
				if !pe.Time.Before(f.Start.Add(-tol)) && !pe.Time.After(f.End.Add(tol)) {
					recentDuring = f
				} else if f.End.Add(tol).Before(pe.Time) && pe.Time.Sub(f.End) <= t.cfg.StaleWindow {
					recentAfter = f
				}
			}
		}
	}
	for _, e := range cands {
		if !e.Transition {
			continue
		}
		if !pe.Time.Before(e.Start.Add(-tol)) && !pe.Time.After(e.End.Add(tol)) {
			if during == nil || e.Start.After(during.Start) {
				during = e
			}
		} else if e.End.Add(tol).Before(pe.Time) && pe.Time.Sub(e.End) <= t.cfg.StaleWindow {
			if after == nil || e.End.After(after.End) {
				after = e
			}
		}
	}
	switch {
	case during != nil:
		pe.Match = MatchDuring
		k := during.Key
		pe.Election = &k
		during.ProducerErrors++
	case after != nil:
		pe.Match = MatchAfter
		k := after.Key
		pe.Election = &k
		pe.Lag = pe.Time.Sub(after.End)
		after.ProducerErrors++
	case recentDuring != nil:
		pe.Match = MatchDuring
		k := recentDuring.Key
		pe.Election = &k
	case recentAfter != nil:
		pe.Match = MatchAfter
		k := recentAfter.Key
		pe.Election = &k
		pe.Lag = pe.Time.Sub(recentAfter.End)
	default:
		pe.Match = MatchNone
	}
	t.sink.ProducerError(pe)
}
