package verdict

import (
	"fmt"
	"github.com/leaderaudit/leaderaudit/internal/textfmt"
	"sort"
	"strings"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// incident is one time a broker went away (events less than IncidentGap apart).
type incident struct {
	broker      int32
	first, last time.Time
	kinds       []string
	hard        bool // failed, fenced for a timed-out session, lost its ZooKeeper session
	controlled  bool
	refs        []timeline.Ref
	back        time.Time
	backRef     timeline.Ref
	causes      map[parser.Cause]bool
}

// addKind records what happened; it reports whether that is news (so that
// the first line of each kind of event is cited).
func (in *incident) addKind(k string) bool {
	for i, x := range in.kinds {
		switch {
		case x == k, strings.HasPrefix(x, k+" "):
			return false // already said, or said more precisely
		case strings.HasPrefix(k, x+" "):
			in.kinds[i] = k
			return true
		}
	}
	in.kinds = append(in.kinds, k)
	return true
}

func (in *incident) kindText() string { return strings.Join(in.kinds, ", ") }

// brokerIncidents groups timeline.Stats.BrokerEvents into incidents per
// broker. Events that name no broker (the broker's own ZooKeeperClient
// "Session expired.") belong to the one broker their file is about.
func (f *finisher) brokerIncidents() map[int32][]*incident {
	evs := append([]timeline.BrokerEvent(nil), f.stats.BrokerEvents...)
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Time.Before(evs[j].Time) })
	out := map[int32][]*incident{}
	hardRaw := map[*incident]bool{}
	for _, be := range evs {
		b := be.Broker
		if (b == timeline.Unknown || b < 0) && be.Cause == parser.CauseUnknown {
			// A broker's own line that does not name it ("Session
			// expired."): the broker the file is about. Controller lines
			// that name no broker ("handleBrokerFenced: changing N
			// partition(s)") stay unattributed.
			b = f.srcBroker(be.Ref.Source)
		}
		if b == timeline.Unknown || b < 0 {
			continue
		}
		kind, hard, controlled, recovery := "", false, false, false
		switch be.Lifecycle {
		case parser.LifeSessionExpired:
			kind, hard = "lost its ZooKeeper session", true
		case parser.LifeFenced:
			kind = "was fenced"
		case parser.LifeControlledShutdown:
			kind, controlled = "began a controlled shutdown", true
		case parser.LifeShuttingDown, parser.LifeShutdown:
			kind = "shut down"
		case parser.LifeStarting, parser.LifeStarted, parser.LifeRegistered, parser.LifeUnfenced:
			recovery = true
		}
		switch be.Cause {
		case parser.CauseBrokerFailure:
			kind, hard = "was removed by the controller (broker failure)", true
		case parser.CauseBrokerFenced:
			kind, hard = "was fenced by the controller (session timed out)", true
		case parser.CauseControlledShutdown:
			kind, controlled = "was shut down by the controller (controlled shutdown)", true
		case parser.CauseBrokerStartup, parser.CauseBrokerUnfenced:
			recovery = true
		}
		list := out[b]
		var cur *incident
		if n := len(list); n > 0 && be.Time.Sub(list[n-1].last) <= f.cfg.IncidentGap {
			cur = list[n-1]
		}
		if recovery {
			if cur != nil && cur.back.IsZero() && !be.Time.Before(cur.first) {
				cur.back, cur.backRef = be.Time, be.Ref
			} else if n := len(list); n > 0 && list[n-1].back.IsZero() && be.Time.After(list[n-1].first) && be.Time.Sub(list[n-1].last) <= time.Hour {
				list[n-1].back, list[n-1].backRef = be.Time, be.Ref
			}
			continue
		}
		if kind == "" {
			continue
		}
		if cur == nil || !cur.back.IsZero() && be.Time.After(cur.back) && be.Time.Sub(cur.back) > time.Second {
			cur = &incident{broker: b, first: be.Time, causes: map[parser.Cause]bool{}}
			out[b] = append(out[b], cur)
		}
		cur.last = be.Time
		news := cur.addKind(kind)
		if hard {
			hardRaw[cur] = true
		}
		if controlled {
			cur.controlled = true
		}
		if be.Cause != parser.CauseUnknown {
			cur.causes[be.Cause] = true
		}
		if be.Lifecycle == parser.LifeSessionExpired {
			cur.causes[parser.CauseBrokerFailure] = true
		}
		if news && len(cur.refs) < 4 && be.Ref.Line > 0 {
			cur.refs = append(cur.refs, be.Ref)
		}
	}
	// A controlled shutdown also ends in "deleted brokers" once the broker
	// is gone: that is not a failure.
	for _, list := range out {
		for _, in := range list {
			in.hard = hardRaw[in] && !in.controlled
		}
	}
	return out
}

// moved counts the elections (and leader moves) an incident caused.
func (f *finisher) moved(in *incident) (n, moved, unknown int) {
	from, to := in.first.Add(-time.Second), in.last.Add(time.Minute)
	if r := f.a.brokerRuns[in.broker]; r != nil {
		n, moved, unknown = r.count(from, to)
	}
	if n > 0 {
		return
	}
	// Elections whose cause named no broker (KRaft "handleBrokerFenced:
	// changing N partition(s)" names none).
	causes := map[parser.Cause]bool{}
	for c := range in.causes {
		causes[c] = true
		if c == parser.CauseBrokerFailure {
			causes[parser.CauseOfflinePartition] = true
		}
	}
	for c := range causes {
		if r := f.a.causeRuns[c]; r != nil {
			x, m, u := r.count(from, to)
			n += x
			moved += m
			unknown += u
		}
	}
	return
}

// unstable: brokers that went away at least UnstableEvents times.
func (f *finisher) unstable() {
	var brokers []int32
	for b := range f.incidents {
		brokers = append(brokers, b)
	}
	sort.Slice(brokers, func(i, j int) bool { return brokers[i] < brokers[j] })
	for _, b := range brokers {
		list := f.incidents[b]
		if len(list) < f.cfg.UnstableEvents {
			continue
		}
		hard := 0
		var items []string
		var refs []timeline.Ref
		var data []map[string]any
		totalMoved, totalElections := 0, 0
		for _, in := range list {
			if in.hard {
				hard++
			}
			n, mv, unk := f.moved(in)
			totalMoved += mv
			totalElections += n
			it := fmt.Sprintf("%s %s", f.tm(in.first), in.kindText())
			if !in.back.IsZero() {
				it += fmt.Sprintf(", back after %s", textfmt.Dur(in.back.Sub(in.first)))
			}
			upTo := in.last
			if in.back.After(upTo) {
				upTo = in.back
			}
			caught, hasCaught := f.a.caughtUp(b, in.first, upTo.Add(time.Minute))
			if hasCaught {
				it += fmt.Sprintf(", caught up in %s", textfmt.Dur(caught))
			}
			switch {
			case unk > 0:
				it += fmt.Sprintf(", %s followed (%d moved a leader, %d with no earlier leader in the logs)", plural(n, "election", "elections"), mv, unk)
			case n > mv:
				it += fmt.Sprintf(", %s moved (%d more epoch bumps)", plural(mv, "leadership", "leaderships"), n-mv)
			default:
				it += fmt.Sprintf(", %s moved", plural(mv, "leadership", "leaderships"))
			}
			items = append(items, it)
			refs = append(refs, in.refs...)
			if !in.back.IsZero() {
				refs = append(refs, in.backRef)
			}
			dd := map[string]any{"time": f.rfc(in.first), "what": in.kinds, "hard": in.hard, "leaderships_moved": mv, "elections": n, "previous_leader_unknown": unk}
			if !in.back.IsZero() {
				dd["back_after_ms"] = in.back.Sub(in.first).Milliseconds()
			}
			if hasCaught {
				dd["caught_up_ms"] = caught.Milliseconds()
			}
			data = append(data, dd)
		}
		sev := Warning
		if hard >= f.cfg.UnstableEvents {
			sev = Critical
		}
		what := "went away"
		if hard == len(list) {
			what = "failed"
		} else if hard == 0 {
			what = "was shut down"
		}
		msg := fmt.Sprintf("broker %d %s %d times (%d hard failures): %s; %s followed in all",
			b, what, len(list), hard, f.list(items, len(items)), plural(totalElections, "election", "elections"))
		remedy := fmt.Sprintf("Find why broker %d drops out: ZooKeeper session expiries and KRaft fencing come from GC pauses, a saturated disk "+
			"or network trouble to ZooKeeper/the controllers (zookeeper.session.timeout.ms, broker.session.timeout.ms); each drop moves its "+
			"leaderships and fails in-flight produce requests.", b)
		if hard == 0 {
			remedy = fmt.Sprintf("Broker %d was shut down repeatedly: if planned, each restart still moves its leaderships away and back "+
				"(auto.leader.rebalance.enable); if not, find what stops it.", b)
		}
		f.add(Finding{
			Code: CodeUnstableBroker, Severity: sev, Subject: fmt.Sprintf("broker %d", b), Message: msg, Remedy: remedy,
			Evidence: f.ev(refs...), Data: map[string]any{"broker": b, "incidents": data, "hard": hard, "leaderships_moved": totalMoved, "elections": totalElections},
		})
	}
}

// uncleanElections: leaders taken from outside the ISR, and followers that
// refused to truncate below their own end (the proof one happened, even
// when the election itself is not in the logs).
func (f *finisher) uncleanElections() {
	seen := map[timeline.TP]bool{}
	for _, e := range f.a.unclean {
		seen[timeline.TP{Topic: e.key.Topic, Partition: e.key.Partition}] = true
	}
	var orphan []timeline.Truncation
	for _, tr := range f.stats.Truncations {
		if tr.Refused && !seen[timeline.TP{Topic: tr.Topic, Partition: tr.Partition}] && len(orphan) < maxUnclean {
			orphan = append(orphan, tr)
			seen[timeline.TP{Topic: tr.Topic, Partition: tr.Partition}] = true
		}
	}
	total := f.a.uncleanN + len(orphan)
	if total == 0 {
		return
	}
	var items []string
	var refs []timeline.Ref
	var data []map[string]any
	shown := 0
	for _, e := range f.a.unclean {
		it := fmt.Sprintf("%s leader %s→%s at %s", keyName(e.key), itoa(e.prev), itoa(e.leader), f.tm(e.start))
		var lost []map[string]any
		for i := range e.truncs {
			tr := &e.truncs[i]
			it += "; " + tr.text()
			refs = append(refs, tr.ref)
			l := map[string]any{"broker": tr.broker, "truncated_to": tr.offset}
			if tr.end > tr.offset {
				l["log_end"] = tr.end
				l["records"] = tr.end - tr.offset
			}
			lost = append(lost, l)
			shown++
		}
		items = append(items, it)
		refs = append(refs, e.refs...)
		dd := map[string]any{"topic": e.key.Topic, "partition": e.key.Partition, "leader_epoch": e.key.LeaderEpoch,
			"leader": e.leader, "previous_leader": e.prev, "start": f.rfc(e.start)}
		if len(lost) > 0 {
			dd["lost"] = lost
		}
		data = append(data, dd)
	}
	for _, x := range orphan {
		tr := trunc{t: x.Time, broker: x.Broker, offset: x.Offset, end: x.EndOffset, refused: true, ref: x.Ref}
		tp := timeline.TP{Topic: x.Topic, Partition: x.Partition}
		items = append(items, fmt.Sprintf("%s (the election itself is not in these logs): %s at %s", tpName(tp), tr.text(), f.tm(x.Time)))
		refs = append(refs, x.Ref)
		shown++
		l := map[string]any{"broker": x.Broker, "truncated_to": x.Offset}
		if x.EndOffset > x.Offset {
			l["log_end"] = x.EndOffset
			l["records"] = x.EndOffset - x.Offset
		}
		data = append(data, map[string]any{"topic": x.Topic, "partition": x.Partition, "lost": []map[string]any{l}})
	}
	tail := "records the old leader had and the new one lacked are lost"
	if shown == 0 {
		tail += " (no truncation line shows which offsets: look for the old leader's \"Truncating to offset\" when it rejoins)"
	}
	msg := fmt.Sprintf("%s took a leader from outside the ISR: %s; %s",
		plural(total, "unclean election", "unclean elections"), f.list(items, total), tail)
	f.add(Finding{
		Code: CodeUnclean, Severity: Critical, Subject: "cluster", Message: msg,
		Remedy: "Keep unclean.leader.election.enable=false (the default since 0.11) unless availability matters more than the data; " +
			"use replication factor 3 with min.insync.replicas=2 and acks=all so a clean leader is always left, and find why the ISR had shrunk.",
		Evidence: f.ev(refs...), Data: map[string]any{"unclean_elections": total, "elections": data},
	})
}

// flapping: partitions whose leader changed FlapChanges times within FlapWindow.
func (f *finisher) flapping() {
	type item struct {
		tp timeline.TP
		r  *flapRun
	}
	var items []item
	for tp, pa := range f.a.parts {
		if pa.best != nil && pa.best.n >= f.cfg.FlapChanges {
			items = append(items, item{tp, pa.best})
		}
	}
	if len(items) == 0 {
		return
	}
	sort.Slice(items, func(i, j int) bool {
		if items[i].r.n != items[j].r.n {
			return items[i].r.n > items[j].r.n
		}
		return lessTP(items[i].tp, items[j].tp)
	})
	w := items[0]
	var steps []string
	var refs []timeline.Ref
	common := map[int32]int{}
	for _, c := range w.r.changes {
		steps = append(steps, fmt.Sprintf("%s→%s %s %s", itoa(c.from), itoa(c.to), f.tm(c.t), causeName(c.cause)))
		refs = append(refs, c.ref)
		common[c.from]++
		if c.to != c.from {
			common[c.to]++
		}
	}
	// The broker every change involves: with two brokers trading the
	// leadership both are; name the one that kept going away, if any.
	var every []int32
	for b, n := range common {
		if n == len(w.r.changes) && b >= 0 {
			every = append(every, b)
		}
	}
	sort.Slice(every, func(i, j int) bool { return every[i] < every[j] })
	involved := timeline.Unknown
	for _, b := range every {
		if len(f.incidents[b]) > 0 && (involved == timeline.Unknown || len(f.incidents[b]) > len(f.incidents[involved])) {
			involved = b
		}
	}
	if involved == timeline.Unknown && len(every) == 1 {
		involved = every[0]
	}
	msg := fmt.Sprintf("%s changed leader at least %d times within %s; worst %s: %d changes in %s (%s)",
		plural(len(items), "partition", "partitions"), f.cfg.FlapChanges, textfmt.Dur(f.cfg.FlapWindow), tpName(w.tp), w.r.n,
		textfmt.Dur(w.r.end.Sub(w.r.start)), f.list(steps, w.r.n))
	if involved != timeline.Unknown {
		msg += fmt.Sprintf("; every change involves broker %d", involved)
		if n := len(f.incidents[involved]); n > 0 {
			msg += fmt.Sprintf(", which went away %s", plural(n, "time", "times"))
		}
	} else if len(every) > 1 {
		msg += fmt.Sprintf("; every change is between brokers %s", ids(every))
	}
	if len(items) > 1 {
		var others []string
		for _, it := range items[1:] {
			others = append(others, fmt.Sprintf("%s %d", tpName(it.tp), it.r.n))
		}
		msg += "; also " + f.list(others, len(others))
	}
	var data []map[string]any
	for i, it := range items {
		if i >= 100 {
			break
		}
		data = append(data, map[string]any{"topic": it.tp.Topic, "partition": it.tp.Partition, "changes": it.r.n,
			"from": f.rfc(it.r.start), "to": f.rfc(it.r.end), "window_ms": it.r.end.Sub(it.r.start).Milliseconds()})
	}
	d := map[string]any{"partitions": len(items), "threshold_changes": f.cfg.FlapChanges, "window_ms": f.cfg.FlapWindow.Milliseconds(), "flapping": data}
	if involved != timeline.Unknown {
		d["broker_in_every_change"] = involved
	}
	f.add(Finding{
		Code: CodeFlapping, Severity: Warning, Subject: tpName(w.tp), Message: msg,
		Remedy: "Leaders that move back and forth follow a broker that keeps dropping out and coming back (see unstable-broker), or " +
			"preferred-leader rebalancing moving them home each time: fix the broker, and while it is unstable consider " +
			"auto.leader.rebalance.enable=false so leadership stays put.",
		Evidence: f.ev(refs...), Data: d,
	})
}

// slowElections: elections or steps above SlowElection.
func (f *finisher) slowElections() {
	if f.a.slowN == 0 {
		return
	}
	var items []string
	var refs []timeline.Ref
	var data []map[string]any
	for _, s := range f.a.slow {
		it := fmt.Sprintf("%s took %s to the new leader ready", keyName(s.key), textfmt.Dur(s.dur))
		if s.step != "" && s.stepDur > 0 {
			it += fmt.Sprintf(" (%s took %s)", s.step, textfmt.Dur(s.stepDur))
		}
		items = append(items, it)
		refs = append(refs, s.stepRef)
		refs = append(refs, s.refs...)
		data = append(data, map[string]any{"topic": s.key.Topic, "partition": s.key.Partition, "leader_epoch": s.key.LeaderEpoch,
			"leader_ready_ms": s.dur.Milliseconds(), "slowest_step": s.step, "slowest_step_ms": s.stepDur.Milliseconds(), "start": f.rfc(s.start)})
	}
	msg := fmt.Sprintf("%s took longer than %s from decision to the new leader ready, or had a step on a serving broker that did: %s",
		plural(f.a.slowN, "election", "elections"), textfmt.Dur(f.cfg.SlowElection), f.list(items, f.a.slowN))
	f.add(Finding{
		Code: CodeSlowElection, Severity: Warning, Subject: "cluster", Message: msg,
		Remedy: "While a partition's leadership is moving producers get NOT_LEADER errors: a slow step on one broker (truncation, " +
			"fetcher restarts, a long LeaderAndIsr request) points at that broker's disk or load; a slow controller step at the controller " +
			"(many partitions per request, ZooKeeper latency).",
		Evidence: f.ev(refs...), Data: map[string]any{"slow_elections": f.a.slowN, "threshold_ms": f.cfg.SlowElection.Milliseconds(), "slowest": data},
	})
}

// offlineWindows: partitions with no leader, and for how long.
func (f *finisher) offlineWindows() {
	wins := append([]offWin(nil), f.a.offline...)
	open := 0
	for _, pa := range f.a.parts {
		if pa.off != nil {
			wins = append(wins, *pa.off)
			open++
		}
	}
	if len(wins) == 0 {
		return
	}
	end := func(w offWin) time.Time {
		if w.end.IsZero() {
			if f.endOfLogs.After(w.start) {
				return f.endOfLogs
			}
			return w.start
		}
		return w.end
	}
	sort.Slice(wins, func(i, j int) bool {
		di, dj := end(wins[i]).Sub(wins[i].start), end(wins[j]).Sub(wins[j].start)
		if di != dj {
			return di > dj
		}
		return lessTP(wins[i].tp, wins[j].tp)
	})
	total := f.a.offlineN + open
	var items []string
	var refs []timeline.Ref
	var data []map[string]any
	parts := map[timeline.TP]bool{}
	var longest time.Duration
	for _, w := range wins {
		parts[w.tp] = true
		d := end(w).Sub(w.start)
		if d > longest {
			longest = d
		}
		var it string
		if w.end.IsZero() {
			it = fmt.Sprintf("%s from %s to the end of the logs (%s)", tpName(w.tp), f.tm(w.start), textfmt.Dur(d))
		} else {
			it = fmt.Sprintf("%s for %s (%s → %s)", tpName(w.tp), textfmt.Dur(d), f.tm(w.start), f.tm(w.end))
		}
		items = append(items, it)
		refs = append(refs, w.ref, w.endRef)
		dd := map[string]any{"topic": w.tp.Topic, "partition": w.tp.Partition, "leader_epoch": w.epoch, "from": f.rfc(w.start), "duration_ms": d.Milliseconds(), "open": w.end.IsZero()}
		if !w.end.IsZero() {
			dd["to"] = f.rfc(w.end)
		}
		if len(w.replicas) > 0 {
			dd["replicas"] = w.replicas
		}
		data = append(data, dd)
	}
	msg := fmt.Sprintf("%s had no leader (leader -1) %s: %s; every produce and fetch to them failed meanwhile",
		plural(len(parts), "partition", "partitions"), plural(total, "time", "times"), f.list(items, total))
	f.add(Finding{
		Code: CodeOfflineWindow, Severity: Critical, Subject: "cluster", Message: msg,
		Remedy: "A partition is leaderless until a replica in its ISR is back (or, with unclean.leader.election.enable=true, any replica, " +
			"losing data): bring the brokers of its replica set back, and give topics replication factor 3 spread over brokers that do not fail together.",
		Evidence: f.ev(refs...), Data: map[string]any{"windows": total, "partitions": len(parts), "longest_ms": longest.Milliseconds(), "offline": data},
	})
}

// consumerKindText names consumer events in messages.
var consumerKindText = map[parser.ConsumerEvent]string{
	parser.ConsCoordinatorDead:       "coordinator lost",
	parser.ConsCoordinatorDiscovered: "coordinator rediscovered",
	parser.ConsJoin:                  "rejoining",
	parser.ConsJoined:                "rejoined",
	parser.ConsRevoke:                "partitions revoked",
	parser.ConsAssign:                "partitions assigned",
	parser.ConsPollTimeout:           "poll timeout (left the group)",
	parser.ConsCommitFailed:          "offset commit failed",
	parser.ConsFetchError:            "fetch error",
}

// coordinators: leader changes of __consumer_offsets partitions, the groups
// coordinated there, and what their consumers logged around them.
func (f *finisher) coordinators() {
	var moved []int32
	for tp, pa := range f.a.parts {
		if tp.Topic == offsetsTopicName && len(pa.moves) > 0 {
			moved = append(moved, tp.Partition)
		}
	}
	if len(moved) == 0 {
		return
	}
	sort.Slice(moved, func(i, j int) bool { return moved[i] < moved[j] })
	groups := map[string][]timeline.ConsumerEvent{}
	for _, ce := range f.stats.Consumers {
		if ce.GroupID == "" {
			continue
		}
		if _, ok := groups[ce.GroupID]; ok || len(groups) < 10000 {
			groups[ce.GroupID] = append(groups[ce.GroupID], ce)
		}
	}
	n := f.cfg.OffsetsPartitions
	var names []string
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)
	reported := 0
	for _, g := range names {
		p := OffsetsPartition(g, n)
		pa := f.a.parts[timeline.TP{Topic: offsetsTopicName, Partition: p}]
		if pa == nil || len(pa.moves) == 0 {
			continue
		}
		reported++
		var steps []string
		var refs []timeline.Ref
		counts := map[parser.ConsumerEvent]int{}
		var seen []string
		disrupted := false
		confirmed := ""
		for _, mv := range pa.moves {
			steps = append(steps, fmt.Sprintf("%s→%s at %s (%s)", itoa(mv.from), itoa(mv.to), f.tm(mv.t), causeName(mv.cause)))
			refs = append(refs, mv.ref)
			for _, ce := range groups[g] {
				if ce.Time.Before(mv.t.Add(-10*time.Second)) || ce.Time.After(mv.t.Add(f.cfg.CoordinatorWindow)) {
					continue
				}
				if counts[ce.Kind] == 0 {
					if len(refs) < f.cfg.MaxEvidence {
						refs = append(refs, ce.Ref)
					}
				}
				counts[ce.Kind]++
				switch ce.Kind {
				case parser.ConsCoordinatorDead, parser.ConsPollTimeout, parser.ConsCommitFailed, parser.ConsRevoke, parser.ConsJoin:
					disrupted = true
				case parser.ConsCoordinatorDiscovered:
					if ce.Coordinator == mv.to && confirmed == "" {
						confirmed = fmt.Sprintf("the consumers found the new coordinator on broker %d at %s", mv.to, f.tm(ce.Time))
					}
				}
			}
		}
		for _, k := range []parser.ConsumerEvent{parser.ConsCoordinatorDead, parser.ConsCoordinatorDiscovered, parser.ConsRevoke, parser.ConsJoin,
			parser.ConsJoined, parser.ConsAssign, parser.ConsPollTimeout, parser.ConsCommitFailed, parser.ConsFetchError} {
			if c := counts[k]; c > 0 {
				seen = append(seen, fmt.Sprintf("%s %d", consumerKindText[k], c))
			}
		}
		msg := fmt.Sprintf("group %s is coordinated by __consumer_offsets-%d (abs(hash) %% %d), whose leader changed %s: %s",
			g, p, n, plural(len(pa.moves), "time", "times"), f.list(steps, len(pa.moves)))
		if len(seen) > 0 {
			msg += "; its consumers logged: " + strings.Join(seen, ", ")
		} else {
			msg += "; its consumers logged nothing about it within " + textfmt.Dur(f.cfg.CoordinatorWindow)
		}
		if confirmed != "" {
			msg += "; " + confirmed
		}
		sev := Info
		if disrupted {
			sev = Warning
		}
		ev := map[string]int{}
		for k, c := range counts {
			ev[k.String()] = c
		}
		f.add(Finding{
			Code: CodeCoordinatorMoved, Severity: sev, Subject: "group " + g, Message: msg,
			Remedy: "A coordinator move makes the group find the new coordinator and, if it takes long, rebalance: keep the " +
				"__consumer_offsets leaders stable (the broker behind the move), and give consumers session.timeout.ms and " +
				"max.poll.interval.ms that ride out an election.",
			Evidence: f.ev(refs...),
			Data:     map[string]any{"group": g, "offsets_partition": p, "offsets_partitions": n, "leader_changes": len(pa.moves), "consumer_events": ev},
		})
	}
	if len(groups) == 0 || reported == 0 {
		var items []string
		var refs []timeline.Ref
		for _, p := range moved {
			pa := f.a.parts[timeline.TP{Topic: offsetsTopicName, Partition: p}]
			mv := pa.moves[0]
			items = append(items, fmt.Sprintf("__consumer_offsets-%d %s→%s at %s", p, itoa(mv.from), itoa(mv.to), f.tm(mv.t)))
			refs = append(refs, mv.ref)
		}
		why := "no consumer logs were given, so the groups coordinated there are unknown"
		if len(groups) > 0 {
			why = fmt.Sprintf("none of the %s in the consumer logs is coordinated there", plural(len(groups), "group", "groups"))
		}
		f.add(Finding{
			Code: CodeCoordinatorMoved, Severity: Info, Subject: "__consumer_offsets",
			Message: fmt.Sprintf("%s of __consumer_offsets changed leader (%s): the groups they coordinate had to find a new coordinator; %s",
				plural(len(moved), "partition", "partitions"), f.list(items, len(items)), why),
			Remedy:   "Give the consumer application logs to see which groups were affected and whether they rebalanced.",
			Evidence: f.ev(refs...), Data: map[string]any{"partitions": moved, "groups_known": len(groups)},
		})
	}
}

// ctrlChange is one controller election or KRaft quorum leader change.
type ctrlChange struct {
	t          time.Time
	controller int32
	epoch      int32
	kraft      bool
	ref        timeline.Ref
}

// controllerChurn: controller failovers and their cost.
func (f *finisher) controllerChurn() {
	var changes []*ctrlChange
	byEpoch := map[[2]int32]*ctrlChange{} // (kraft, epoch)
	leaderless := map[int32]bool{}
	resigned := 0
	evs := append([]timeline.ControllerEvent(nil), f.stats.Controllers...)
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Time.Before(evs[j].Time) })
	for _, ce := range evs {
		switch ce.Lifecycle {
		case parser.LifeControllerResigned:
			resigned++
			continue
		case parser.LifeControllerElected, parser.LifeQuorumLeader:
		default:
			continue
		}
		kraft := ce.Lifecycle == parser.LifeQuorumLeader
		if kraft && ce.Controller == timeline.Unknown {
			if ce.Epoch != timeline.Unknown {
				leaderless[ce.Epoch] = true
			}
			continue
		}
		kk := int32(0)
		if kraft {
			kk = 1
		}
		if ce.Epoch != timeline.Unknown {
			if c := byEpoch[[2]int32{kk, ce.Epoch}]; c != nil {
				if c.controller == timeline.Unknown {
					c.controller = ce.Controller
				}
				continue
			}
		}
		// An epoch-less line ("successfully elected" before 2.1) joins the
		// same controller's line with an epoch logged within a minute.
		var near *ctrlChange
		for _, c := range changes {
			if c.kraft == kraft && c.controller == ce.Controller && ce.Time.Sub(c.t) <= time.Minute && c.t.Sub(ce.Time) <= time.Minute &&
				(c.epoch == timeline.Unknown || ce.Epoch == timeline.Unknown) {
				near = c
			}
		}
		if near != nil {
			if near.epoch == timeline.Unknown && ce.Epoch != timeline.Unknown {
				near.epoch = ce.Epoch
				byEpoch[[2]int32{kk, ce.Epoch}] = near
			}
			continue
		}
		c := &ctrlChange{t: ce.Time, controller: ce.Controller, epoch: ce.Epoch, kraft: kraft, ref: ce.Ref}
		changes = append(changes, c)
		if ce.Epoch != timeline.Unknown {
			byEpoch[[2]int32{kk, ce.Epoch}] = c
		}
	}
	for e := range leaderless {
		for _, c := range changes {
			if c.kraft && c.epoch == e {
				delete(leaderless, e)
			}
		}
	}
	if len(changes) < f.cfg.ControllerChanges {
		return
	}
	var items []string
	var refs []timeline.Ref
	var data []map[string]any
	cost := 0
	kraft := false
	for _, c := range changes {
		n, _, _ := f.a.allRuns.count(c.t, c.t.Add(f.cfg.CostWindow))
		cost += n
		who := "controller " + itoa(c.controller)
		if c.kraft {
			kraft = true
			who = "quorum leader " + itoa(c.controller)
		}
		it := fmt.Sprintf("%s at %s", who, f.tm(c.t))
		if c.epoch != timeline.Unknown {
			it = fmt.Sprintf("%s epoch %d at %s", who, c.epoch, f.tm(c.t))
		}
		if n > 0 {
			it += fmt.Sprintf(" (%s within %s)", plural(n, "election", "elections"), textfmt.Dur(f.cfg.CostWindow))
		}
		items = append(items, it)
		refs = append(refs, c.ref)
		data = append(data, map[string]any{"time": f.rfc(c.t), "controller": c.controller, "epoch": c.epoch, "kraft_quorum": c.kraft, "elections_after": n})
	}
	span := changes[len(changes)-1].t.Sub(changes[0].t)
	msg := fmt.Sprintf("the controller changed %d times in %s: %s; %s started within %s after them",
		len(changes), textfmt.Dur(span), f.list(items, len(items)), plural(cost, "partition election", "partition elections"), textfmt.Dur(f.cfg.CostWindow))
	if len(leaderless) > 0 {
		msg += fmt.Sprintf("; %s passed with no quorum leader", plural(len(leaderless), "quorum epoch", "quorum epochs"))
	}
	if resigned > 0 {
		msg += fmt.Sprintf("; %s", plural(resigned, "resignation was", "resignations were")) + " logged"
	}
	remedy := "A ZooKeeper-mode controller fails over when its ZooKeeper session expires: check the controller broker's GC pauses and its " +
		"network to ZooKeeper (zookeeper.session.timeout.ms); each failover re-sends state to every broker and delays elections."
	if kraft {
		remedy = "KRaft quorum leadership keeps moving: check the network between the controllers, fsync latency of the metadata log disk, " +
			"and controller.quorum.election.timeout.ms / controller.quorum.fetch.timeout.ms; brokers stall on metadata while there is no quorum leader."
	}
	f.add(Finding{
		Code: CodeControllerChurn, Severity: Warning, Subject: "controller", Message: msg, Remedy: remedy,
		Evidence: f.ev(refs...),
		Data:     map[string]any{"changes": data, "elections_after": cost, "leaderless_epochs": len(leaderless), "resignations": resigned},
	})
}
