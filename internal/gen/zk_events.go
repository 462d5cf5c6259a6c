package gen

import "math"

// zkRemoveFromISR is ReplicaStateMachine's OfflineReplica transition for
// replica x of partitions ps (controlled shutdown followers, or every
// replica of a dead broker). Partitions whose ISR contains x get a new
// leader epoch with the same leader; the others are re-sent unchanged.
func (g *generator) zkRemoveFromISR(t int64, x int32, ps []*part, cause string) int64 {
	if len(ps) == 0 {
		return t
	}
	if g.era == Era010 && cause == CauseControlledShutdown {
		for _, p := range ps {
			t = g.zkRemoveFromISRBatch(t, x, []*part{p}, cause)
			t += g.rnT.between(1, 3)
		}
		return t
	}
	return g.zkRemoveFromISRBatch(t, x, ps, cause)
}

func (g *generator) zkRemoveFromISRBatch(t int64, x int32, ps []*part, cause string) int64 {
	bt := newBatch()
	if g.era == Era010 {
		var rs []byte
		for i, p := range ps {
			if i > 0 {
				rs = append(rs, ',')
			}
			rs = append(rs, "[Topic="...)
			rs = append(rs, p.t.name...)
			rs = append(rs, ",Partition="...)
			rs = ai32(rs, p.idx)
			rs = append(rs, ",Replica="...)
			rs = ai32(rs, x)
			rs = append(rs, ']')
		}
		g.ctlOther(t, lvINFO, lgRSM, "[Replica state machine on controller "+itoa(g.ctl)+"]: ", "Invoking state change to OfflineReplica for replicas "+string(rs))
	}
	t += g.rnT.stepMs(3)
	type res struct {
		p  *part
		el *Election
	}
	var results []res
	for _, p := range ps {
		p.advanceOffsets(t)
		var el *Election
		if p.inISR(x) && p.leader != x && len(p.isr) > 1 {
			oldISR := string(appendInts(nil, p.isr, ","))
			p.isr = without(p.isr, x)
			p.epoch++
			p.zkv++
			p.cep = g.ctlEpoch
			el = g.newElection(p, p.leader, p.leader, g.ctl, g.ctlEpoch, cause, 0)
			el.alive = true
			if g.era == Era010 {
				g.kcMsg(t, lvDEBUG, "Removing replica "+itoa(x)+" from ISR "+oldISR+" for partition "+p.bname+".")
				el.ctlLine(t)
				st := g.snap(p)
				b := g.kcLine(t, lvINFO)
				b = append(b, "New leader and ISR for partition "...)
				b = append(b, p.bname...)
				b = append(b, " is "...)
				b = appendLeaderAndIsr(b, g.era, &st)
				g.kcEnd(b)
				el.Decided = t
				el.ctlLine(t)
			}
		} else if g.era == Era010 {
			g.kcMsg(t, lvDEBUG, "Removing replica "+itoa(x)+" from ISR "+string(appendInts(nil, p.isr, ","))+" for partition "+p.bname+".")
			g.kcMsg(t, lvWARN, "Cannot remove replica "+itoa(x)+" from ISR of partition "+p.bname+" since it is not in the ISR. Leader = "+itoa(p.leader)+" ; ISR = List("+string(appendInts(nil, p.isr, ", "))+")")
		}
		results = append(results, res{p, el})
		t += g.rnT.stepMs(2) / 2
	}
	for _, r := range results {
		p := r.p
		st := g.snap(p)
		switch g.era {
		case Era010, Era2xTrace:
			b := g.scCtl(t, lvTRACE)
			if g.era == Era010 {
				b = append(b, "changed state of replica "...)
				b = ai32(b, x)
				b = append(b, " for partition "...)
				b = append(b, p.bname...)
			} else {
				b = append(b, "Changed state of replica "...)
				b = ai32(b, x)
				b = append(b, " for partition "...)
				b = append(b, p.name...)
			}
			b = append(b, " from OnlineReplica to OfflineReplica"...)
			g.scCtlEnd(b)
			if r.el != nil {
				if g.era == Era2xTrace {
					r.el.Decided = t
				}
				r.el.ctlLine(t)
			}
		case Era26Info:
			b := g.scCtl(t, lvINFO)
			b = append(b, "Partition "...)
			b = append(b, p.name...)
			b = append(b, " state changed to "...)
			b = appendLICE(b, &st, true)
			b = append(b, " after removing replica "...)
			b = ai32(b, x)
			b = append(b, " from the ISR as part of transition to OfflineReplica"...)
			g.scCtlEnd(b)
			if r.el != nil {
				r.el.Decided = t
				r.el.ctlLine(t)
			}
		}
		g.addLISR(bt, p, without(p.replicas, x), r.el, false)
	}
	return g.zkSend(bt, t+g.rnT.stepMs(3))
}

func (g *generator) brokerChangeLines(t int64, added, deleted []int32) {
	live := g.liveBrokers()
	if g.era == Era010 {
		g.ctlOther(t, lvINFO, lgBrokerChg, "[BrokerChangeListener on Controller "+itoa(g.ctl)+"]: ", "Broker change listener fired for path /brokers/ids with children "+string(appendInts(nil, live, ",")))
		g.ctlOther(t, lvINFO, lgBrokerChg, "[BrokerChangeListener on Controller "+itoa(g.ctl)+"]: ", "Newly added brokers: "+string(appendInts(nil, added, ","))+", deleted brokers: "+string(appendInts(nil, deleted, ","))+", all live brokers: "+string(appendInts(nil, live, ",")))
		return
	}
	g.kcMsg(t, lvINFO, "Newly added brokers: "+string(appendInts(nil, added, ","))+", deleted brokers: "+string(appendInts(nil, deleted, ","))+", bounced brokers: , all live brokers: "+string(appendInts(nil, live, ",")))
}

func (g *generator) pickVictim() int32 {
	live := g.liveBrokers()
	if len(live) < 2 {
		return -1
	}
	g.victimRR++
	return live[(g.victimRR+g.r.intn(2))%len(live)]
}

func (g *generator) zkChaos(t int64) {
	if g.r.chance(0.12) && len(g.liveBrokers()) == len(g.brokers) {
		g.zkNewTopic(t)
		g.schedule(t+g.rnT.between(60_000, 240_000), evChaos, 0)
		return
	}
	x := g.pickVictim()
	if x < 0 {
		g.schedule(t+60_000, evChaos, 0)
		return
	}
	var downDone int64
	if g.r.chance(0.55) {
		downDone = g.zkControlledShutdown(t, x)
	} else {
		downDone = g.zkCrash(t, x)
	}
	restart := downDone + g.rnT.between(30_000, 200_000)
	restart = g.avoidTick(restart)
	g.schedule(restart, evRestart, x)
}

// avoidTick moves a restart so that the ISR catch-up after it is not cut
// by an auto-rebalance check (which would try a preferred election with
// the preferred replica out of the ISR).
func (g *generator) avoidTick(restart int64) int64 {
	if g.era == EraKRaft {
		return restart
	}
	tick := g.nextEventAt(evTick)
	for tick >= 0 {
		if tick >= restart-2_000 && tick < restart+25_000 {
			restart = tick + 3_000
			continue
		}
		if tick > restart {
			break
		}
		tick += 300_000
	}
	return restart
}

func (g *generator) sessionTimeout() int64 {
	if g.era == Era26Info {
		return g.rnT.between(17_000, 19_500)
	}
	return g.rnT.between(5_500, 7_500)
}

// zkCrash kills broker x at t; the controller notices when its ZooKeeper
// session expires.
func (g *generator) zkCrash(t int64, x int32) int64 {
	b := g.broker(x)
	b.alive = false
	b.downAt = t
	g.prodBrokerDown(t, x)
	td := t + g.sessionTimeout()
	var led []*part
	var hosted []*part
	for _, p := range g.parts {
		if p.leader == x {
			led = append(led, p)
		}
		if p.isReplica(x) {
			hosted = append(hosted, p)
		}
	}
	if x == g.ctl {
		// a new controller is elected when the old one's session expires
		newCtl := g.liveBrokers()[g.r.intn(len(g.liveBrokers()))]
		g.ctlEpoch++
		g.ctlZkv++
		tt := g.zkBecomeController(td+g.rnT.between(20, 300), newCtl)
		g.zkResendAll(tt, -1)
		tt += g.rnT.between(30, 200)
		tt = g.zkElect(tt, led, stratOffline, CauseBrokerFailure, -1)
		g.rescheduleTick(tt + 5000)
		g.shrinkISRLater(td+g.rnT.between(1000, 10000), x, hosted)
		return tt
	}
	g.brokerChangeLines(td, nil, []int32{x})
	g.kcMsg(td, lvINFO, "Broker failure callback for "+itoa(x))
	if g.era == Era010 {
		// 0.10.2 prints the (empty) Seq; 2.1+ logs the line only when it is non-empty
		g.kcMsg(td, lvINFO, "Removed ArrayBuffer() from list of shutting down brokers.")
	}
	tt := td + g.rnT.between(2, 15)
	offlineAt := tt
	if g.era != Era26Info {
		for _, p := range led {
			st := g.scCtl(tt, lvTRACE)
			if g.era == Era010 {
				st = append(st, "changed partition "...)
			} else {
				st = append(st, "Changed partition "...)
			}
			st = append(st, g.pname(p)...)
			st = append(st, " state from OnlinePartition to OfflinePartition"...)
			g.scCtlEnd(st)
		}
		tt += g.rnT.stepMs(3)
	}
	first := len(g.tr.Elections)
	tt = g.zkElect(tt, led, stratOffline, CauseBrokerFailure, -1)
	if g.era != Era26Info {
		// the OfflinePartition line above is this episode's first controller line
		for _, el := range g.tr.Elections[first:] {
			el.ctlLine(offlineAt)
		}
	}
	tt += g.rnT.between(2, 20)
	tt = g.zkRemoveFromISR(tt, x, hosted, CauseBrokerFailure)
	return tt
}

// shrinkISRLater: after a controller failover nobody removes the dead
// replica from the ISR; the leaders shrink it themselves once
// replica.lag.time.max.ms has passed (no leader-epoch change).
func (g *generator) shrinkISRLater(t int64, x int32, ps []*part) {
	for _, p := range ps {
		if !p.inISR(x) || p.leader == x || len(p.isr) < 2 {
			continue
		}
		old := cloneIDs(p.isr)
		p.isr = without(p.isr, x)
		p.zkv++
		lb := g.broker(p.leader)
		tt := t + g.rnT.between(0, 2000)
		p.advanceOffsets(tt)
		m := lb.srv.begin(tt, lvINFO, lgPartition)
		m = g.partitionPrefix(m, p, lb.id)
		switch g.era {
		case Era010:
			m = append(m, "Shrinking ISR for partition "...)
			m = append(m, p.bname...)
			m = append(m, " from "...)
			m = appendInts(m, old, ",")
			m = append(m, " to "...)
			m = appendInts(m, p.isr, ",")
		case Era2xTrace:
			m = append(m, "Shrinking ISR from "...)
			m = appendInts(m, old, ",")
			m = append(m, " to "...)
			m = appendInts(m, p.isr, ",")
			m = append(m, ". Leader: (highWatermark: "...)
			m = ai(m, p.hw)
			m = append(m, ", endOffset: "...)
			m = ai(m, p.leo)
			m = append(m, "). Out of sync replicas: (brokerId: "...)
			m = ai32(m, x)
			m = append(m, ", endOffset: "...)
			m = ai(m, p.hw-g.rnT.between(0, 200))
			m = append(m, ")."...)
		default:
			m = append(m, "Shrinking ISR from "...)
			m = appendInts(m, old, ",")
			m = append(m, " to "...)
			m = appendInts(m, p.isr, ",")
			m = append(m, ". Leader: (highWatermark: "...)
			m = ai(m, p.hw)
			m = append(m, ", endOffset: "...)
			m = ai(m, p.leo)
			m = append(m, "). Out of sync replicas: (brokerId: "...)
			m = ai32(m, x)
			m = append(m, ", endOffset: "...)
			m = ai(m, p.hw-g.rnT.between(0, 200))
			m = append(m, ")."...)
		}
		lb.srv.end(m)
		if g.era == Era26Info {
			m = lb.srv.begin(tt+g.rnT.between(2, 30), lvINFO, lgPartition)
			m = g.partitionPrefix(m, p, lb.id)
			m = append(m, "ISR updated to "...)
			m = appendInts(m, p.isr, ",")
			m = append(m, " and version updated to ["...)
			m = ai32(m, p.zkv)
			m = append(m, ']')
			lb.srv.end(m)
		}
	}
}

func (g *generator) rescheduleTick(at int64) {
	g.unschedule(evTick)
	g.tickAt = at
	g.schedule(at, evTick, 0)
}

// zkControlledShutdown: broker x asks the controller to move its
// leaderships away, then stops.
func (g *generator) zkControlledShutdown(t int64, x int32) int64 {
	b := g.broker(x)
	b.shuttingDown = true
	g.serverLine(b, t, lvINFO, "Starting controlled shutdown")
	tc := t + g.rnT.between(5, 40)
	g.kcMsg(tc, lvINFO, "Shutting down broker "+itoa(x))
	others := without(g.liveBrokers(), x)
	g.kcMsg(tc, lvDEBUG, "All shutting down brokers: "+itoa(x))
	g.kcMsg(tc, lvDEBUG, "Live brokers: "+string(appendInts(nil, others, ",")))
	var led, followed []*part
	for _, p := range g.parts {
		if !p.isReplica(x) || len(p.replicas) < 2 {
			continue
		}
		if p.leader == x {
			led = append(led, p)
		} else {
			followed = append(followed, p)
		}
	}
	tt := g.zkElect(tc+g.rnT.stepMs(3), led, stratControlledShutdown, CauseControlledShutdown, x)
	tt = g.zkStopReplica(tt+g.rnT.stepMs(3), b, followed)
	tt = g.zkRemoveFromISR(tt+g.rnT.stepMs(3), x, followed, CauseControlledShutdown)
	// the broker's controlled shutdown request returns, then it stops
	td := tt + g.rnT.between(60, 400)
	if td < b.busy {
		td = b.busy + g.rnT.between(5, 50)
	}
	if g.era == Era010 || g.era == Era26Info || g.era == Era2xTrace {
		g.serverLine(b, td, lvINFO, "Controlled shutdown succeeded")
	}
	td += g.rnT.between(5, 60)
	g.serverLine(b, td, lvINFO, "shutting down")
	td += g.rnT.between(800, 3500)
	g.serverLine(b, td, lvINFO, "shut down completed")
	b.alive = false
	b.shuttingDown = false
	b.downAt = td + 1
	g.prodBrokerDown(td, x)
	// the controller sees the broker's znode disappear
	tz := td + g.rnT.between(20, 300)
	if x == g.ctl {
		if g.era == Era010 {
			g.kcMsg(tz-10, lvINFO, "Broker "+itoa(x)+" resigned as the controller")
		} else {
			g.kcMsg(tz-10, lvINFO, "Resigned")
		}
		newCtl := others[g.r.intn(len(others))]
		g.ctlEpoch++
		g.ctlZkv++
		tt2 := g.zkBecomeController(tz+g.rnT.between(50, 400), newCtl)
		tt2 = g.zkResendAll(tt2, -1)
		g.rescheduleTick(tt2 + 5000)
		return tt2
	}
	g.brokerChangeLines(tz, nil, []int32{x})
	g.kcMsg(tz, lvINFO, "Broker failure callback for "+itoa(x))
	if g.era == Era010 {
		g.kcMsg(tz, lvINFO, "Removed ArrayBuffer("+itoa(x)+") from list of shutting down brokers.")
	} else {
		g.kcMsg(tz, lvINFO, "Removed "+itoa(x)+" from list of shutting down brokers.")
	}
	var hosted []*part
	for _, p := range g.parts {
		if p.isReplica(x) {
			hosted = append(hosted, p)
		}
	}
	tz += g.rnT.between(2, 20)
	return g.zkRemoveFromISR(tz, x, hosted, CauseBrokerFailure)
}

// zkStopReplica sends StopReplica (delete=false) to a shutting-down broker
// for the partitions it follows.
func (g *generator) zkStopReplica(t int64, b *broker, ps []*part) int64 {
	if len(ps) == 0 {
		return t
	}
	b.corr++
	corr := b.corr
	if g.era == Era26Info {
		m := g.scCtl(t, lvINFO)
		m = append(m, "Sending StopReplica request for "...)
		m = ai(m, int64(len(ps)))
		m = append(m, " replicas to broker "...)
		m = ai32(m, b.id)
		g.scCtlEnd(m)
	}
	tb := b.slot(t + g.rnT.between(1, 4))
	switch g.era {
	case Era010, Era2xTrace:
		for _, p := range ps {
			m := g.scBroker(b, tb, lvTRACE)
			if g.era == Era010 {
				m = append(m, "handling stop replica (delete=false) for partition "...)
			} else {
				m = append(m, "Handling stop replica (delete=false) for partition "...)
			}
			m = append(m, p.name...)
			b.sc.end(m)
		}
		tb += g.rnT.stepMs(5)
		if g.era == Era010 {
			for i := range ps {
				g.removedFetcher(b, tb, stopItems(ps), []int{i}, setKeySet)
			}
		} else {
			g.removedFetcher(b, tb, stopItems(ps), seqIdx(len(ps)), setKeySet)
		}
		for _, p := range ps {
			m := g.scBroker(b, tb, lvTRACE)
			if g.era == Era010 {
				m = append(m, "finished handling stop replica (delete=false) for partition "...)
			} else {
				m = append(m, "Finished handling stop replica (delete=false) for partition "...)
			}
			m = append(m, p.name...)
			b.sc.end(m)
		}
	default:
		m := g.scBroker(b, tb, lvINFO)
		m = append(m, "Handling StopReplica request correlationId "...)
		m = ai32(m, corr)
		m = append(m, " from controller "...)
		m = ai32(m, g.ctl)
		m = append(m, " for "...)
		m = ai(m, int64(len(ps)))
		m = append(m, " partitions"...)
		b.sc.end(m)
		tb += g.rnT.stepMs(5)
		g.removedFetcher(b, tb, stopItems(ps), seqIdx(len(ps)), setKeySet)
	}
	b.busy = tb + 1
	return t + 1
}

// zkRestart brings broker x back: it registers, the controller sends it
// every partition it hosts, and it rejoins the ISRs a few seconds later.
func (g *generator) zkRestart(t int64, x int32) {
	b := g.broker(x)
	b.alive = true
	b.downAt = math.MaxInt64
	b.resetLocal()
	b.busy = 0
	treg := g.brokerStartup(b, t)
	tc := treg + g.rnT.between(10, 120)
	g.brokerChangeLines(tc, []int32{x}, nil)
	g.kcMsg(tc, lvINFO, "New broker startup callback for "+itoa(x))
	g.prodBrokerUp(tc, x)
	tt := g.zkResendAll(tc+g.rnT.stepMs(5), x)
	// catch-up: the leaders add x back to the ISR
	g.isrExpand(tt+g.rnT.between(800, 6000), x)
	next := tt + g.rnT.between(330_000, 800_000)
	g.schedule(next, evChaos, 0)
}

// isrExpand adds replica x back to the ISR of every partition it follows.
func (g *generator) isrExpand(t int64, x int32) {
	var changed []*part
	for _, p := range g.parts {
		if !p.isReplica(x) || p.inISR(x) || p.leader == x {
			continue
		}
		lb := g.broker(p.leader)
		if !lb.alive {
			continue
		}
		tt := t + g.rnT.between(0, 1500)
		p.advanceOffsets(tt)
		old := cloneIDs(p.isr)
		p.isr = append(p.isr, x)
		p.zkv++
		m := lb.srv.begin(tt, lvINFO, lgPartition)
		m = g.partitionPrefix(m, p, lb.id)
		switch g.era {
		case Era010:
			m = append(m, "Expanding ISR for partition "...)
			m = append(m, p.name...)
			m = append(m, " from "...)
			m = appendInts(m, old, ",")
			m = append(m, " to "...)
			m = appendInts(m, p.isr, ",")
		case Era2xTrace:
			m = append(m, "Expanding ISR from "...)
			m = appendInts(m, old, ",")
			m = append(m, " to "...)
			m = appendInts(m, p.isr, ",")
		default:
			m = append(m, "ISR updated to "...)
			m = appendInts(m, p.isr, ",")
			m = append(m, " and version updated to ["...)
			m = ai32(m, p.zkv)
			m = append(m, ']')
		}
		lb.srv.end(m)
		changed = append(changed, p)
	}
	if len(changed) == 0 {
		return
	}
	// the controller propagates the new ISRs with UpdateMetadata
	tc := t + g.rnT.between(1600, 5000)
	if g.era == Era26Info {
		for _, p := range changed {
			g.kcMsg(tc, lvDEBUG, "ISR for partition "+p.name+" updated to ["+string(appendInts(nil, p.isr, ","))+"] and zkVersion updated to ["+itoa(p.zkv)+"]")
		}
	}
	bt := newBatch()
	for _, p := range changed {
		bt.um = append(bt.um, zkEntry{p: p, st: g.snap(p)})
	}
	g.zkSend(bt, tc+1)
}

// zkTick is the controller's auto leader rebalance check
// (leader.imbalance.check.interval.seconds = 300).
func (g *generator) zkTick(t int64) {
	g.schedule(t+300_000, evTick, 0)
	g.tickAt = t + 300_000
	switch g.era {
	case Era010:
		m := g.kcLine(t, lvTRACE)
		m = append(m, "checking need to trigger partition rebalance"...)
		g.kcEnd(m)
	default:
		g.kcMsg(t, lvINFO, "Processing automatic preferred replica leader election")
		g.kcMsg(t, lvTRACE, "Checking need to trigger auto leader balancing")
	}
	t += g.rnT.stepMs(3)
	for _, b := range g.brokers {
		var total, notLed int
		var cand []*part
		for _, p := range g.parts {
			if p.replicas[0] != b.id {
				continue
			}
			total++
			if p.leader != b.id {
				notLed++
				if b.alive && p.inISR(b.id) {
					cand = append(cand, p)
				}
			}
		}
		if total == 0 {
			continue
		}
		ratio := float64(notLed) / float64(total)
		switch g.era {
		case Era010:
			g.kcMsg(t, lvTRACE, "leader imbalance ratio for broker "+itoa(b.id)+" is "+formatF6(ratio))
		default:
			g.kcMsg(t, lvTRACE, "Leader imbalance ratio for broker "+itoa(b.id)+" is "+formatJavaDouble(ratio))
		}
		if ratio > 0.10 {
			if g.era == Era010 {
				if b.alive {
					t = g.zkElect(t+1, cand, stratPreferred, CausePreferredElection, -1)
				}
			} else if len(cand) == 0 {
				if g.era == Era2xTrace {
					g.kcMsg(t, lvINFO, "Starting preferred replica leader election for partitions ")
				} else {
					g.kcMsg(t, lvINFO, "Starting replica leader election (PREFERRED) for partitions  triggered by AutoTriggered")
				}
			} else {
				t = g.zkElect(t+1, cand, stratPreferred, CausePreferredElection, -1)
			}
		}
		t += g.rnT.stepMs(2)
	}
}

// zkNewTopic creates a topic: partitions start at leader epoch 0 with the
// preferred replica as leader.
func (g *generator) zkNewTopic(t int64) {
	name := g.newTopicName()
	n := g.cfg.Partitions
	nb := int32(len(g.brokers))
	tp := &topic{name: name, id: g.r.uuid22()}
	start := int32(g.r.intn(int(nb)))
	rf := len(g.parts[len(g.parts)-1].replicas)
	var ps []*part
	for i := 0; i < n; i++ {
		p := &part{t: tp, idx: int32(i), gidx: len(g.parts)}
		p.name = name + "-" + itoa(int32(i))
		p.bname = "[" + name + "," + itoa(int32(i)) + "]"
		first := (start + int32(i)) % nb
		p.replicas = append(p.replicas, first+1)
		for j := 1; j < rf; j++ {
			p.replicas = append(p.replicas, (first+int32(j))%nb+1)
		}
		p.leader = -1
		p.epoch = -1
		p.zkv = -1
		p.rate = float64(g.r.between(5, 300)) / 1000.0
		p.lastT = t
		tp.parts = append(tp.parts, p)
		g.parts = append(g.parts, p)
		ps = append(ps, p)
		for _, b := range g.brokers {
			b.local = append(b.local, localView{leader: -1, epoch: -1})
		}
	}
	g.topics = append(g.topics, tp)
	// controller.log: topic change listener
	asg := appendScalaMapPrefix(nil, g.era, len(ps))
	for i, p := range ps {
		if i > 0 {
			asg = append(asg, ", "...)
		}
		if g.era == Era010 {
			asg = append(asg, p.bname...)
		} else {
			asg = append(asg, p.name...)
		}
		asg = append(asg, " -> "...)
		if g.era == Era26Info {
			asg = append(asg, "ReplicaAssignment(replicas="...)
			asg = appendInts(asg, p.replicas, ",")
			asg = append(asg, ", addingReplicas=, removingReplicas=)"...)
		} else {
			asg = append(asg, "List("...)
			asg = appendInts(asg, p.replicas, ", ")
			asg = append(asg, ')')
		}
	}
	asg = append(asg, ')')
	switch g.era {
	case Era010:
		g.ctlOther(t, lvINFO, "kafka.controller.PartitionStateMachine$TopicChangeListener", "[TopicChangeListener on Controller "+itoa(g.ctl)+"]: ", "New topics: [Set("+name+")], deleted topics: [Set()], new partition replica assignment ["+string(asg)+"]")
	case Era2xTrace:
		g.kcMsg(t, lvINFO, "New topics: [Set("+name+")], deleted topics: [Set()], new partition replica assignment ["+string(asg)+"]")
	default:
		g.kcMsg(t, lvINFO, "New topics: [Set("+name+")], deleted topics: [HashSet()], new partition replica assignment [Set(TopicIdReplicaAssignment("+name+",Some("+tp.id+"),"+string(asg)+"))]")
	}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = g.pname(p)
	}
	g.kcMsg(t, lvINFO, "New topic creation callback for "+joinStr(names, ","))
	g.kcMsg(t, lvINFO, "New partition creation callback for "+joinStr(names, ","))
	t += g.rnT.stepMs(4)
	for _, p := range ps {
		lv := lvTRACE
		if g.era == Era26Info {
			lv = lvINFO
		}
		m := g.scCtl(t, lv)
		if g.era == Era010 {
			m = append(m, "changed partition "...)
		} else {
			m = append(m, "Changed partition "...)
		}
		m = append(m, g.pname(p)...)
		m = append(m, " state from NonExistentPartition to NewPartition with assigned replicas "...)
		m = appendInts(m, p.replicas, ",")
		g.scCtlEnd(m)
	}
	t += g.rnT.stepMs(8)
	bt := newBatch()
	for _, p := range ps {
		p.leader = p.replicas[0]
		p.isr = cloneIDs(p.replicas)
		p.epoch = 0
		p.zkv = 0
		p.cep = g.ctlEpoch
		p.leo, p.hw = 0, 0
		el := g.newElection(p, p.leader, -1, g.ctl, g.ctlEpoch, CauseNewPartition, 0)
		lv := lvTRACE
		if g.era == Era26Info {
			lv = lvINFO
		}
		m := g.scCtl(t, lv)
		st := g.snap(p)
		if g.era == Era010 {
			m = append(m, "changed partition "...)
			m = append(m, p.bname...)
			m = append(m, " from NewPartition to OnlinePartition with leader "...)
			m = ai32(m, p.leader)
		} else {
			m = append(m, "Changed partition "...)
			m = append(m, p.name...)
			m = append(m, " from NewPartition to OnlinePartition with state "...)
			m = appendLeaderAndIsr(m, g.era, &st)
		}
		g.scCtlEnd(m)
		el.Decided = t
		el.ctlLine(t)
		g.addLISR(bt, p, p.replicas, el, true)
		t += g.rnT.stepMs(2) / 2
	}
	// every replica creates its log
	for _, p := range ps {
		for _, r := range p.replicas {
			b := g.broker(r)
			tl := t + g.rnT.between(2, 12)
			m := b.srv.begin(tl, lvINFO, lgLogManager)
			switch g.era {
			case Era010:
				m = append(m, "Created log for partition "...)
				m = append(m, p.bname...)
				m = append(m, " in "...)
				m = append(m, logDir...)
				m = append(m, " with properties {compression.type -> producer, message.format.version -> 0.10.2-IV0, file.delete.delay.ms -> 60000, max.message.bytes -> 1000012, min.compaction.lag.ms -> 0, message.timestamp.type -> CreateTime, min.insync.replicas -> 1, segment.jitter.ms -> 0, preallocate -> false, min.cleanable.dirty.ratio -> 0.5, index.interval.bytes -> 4096, unclean.leader.election.enable -> true, retention.bytes -> -1, delete.retention.ms -> 86400000, cleanup.policy -> [delete], flush.ms -> 9223372036854775807, segment.ms -> 604800000, segment.bytes -> 1073741824, retention.ms -> 604800000, message.timestamp.difference.max.ms -> 9223372036854775807, segment.index.bytes -> 10485760, flush.messages -> 9223372036854775807}."...)
			case Era2xTrace:
				m = append(m, "[Log partition="...)
				m = append(m, p.name...)
				m = append(m, ", dir="...)
				m = append(m, logDir...)
				m = append(m, "] Loading producer state till offset 0 with message format version 2"...)
				b.srv.end(m)
				m = b.srv.begin(tl, lvINFO, lgLogManager)
				m = append(m, "Created log for partition "...)
				m = append(m, p.name...)
				m = append(m, " in "...)
				m = append(m, logDir...)
				m = append(m, "/"...)
				m = append(m, p.name...)
				m = append(m, " with properties {}"...)
			default:
				m = append(m, "Created log for partition "...)
				m = append(m, p.name...)
				m = append(m, " in "...)
				m = append(m, logDir...)
				m = append(m, "/"...)
				m = append(m, p.name...)
				m = append(m, " with properties {}"...)
			}
			b.srv.end(m)
		}
	}
	g.zkSend(bt, t+g.rnT.stepMs(3))
	g.prodAddTopic(tp)
}

func (g *generator) newTopicName() string {
	g.topicSeq++
	base := []string{"events-v", "tmp.backfill-", "metrics_raw-", "orders-replay-", "ledger.entries-"}
	return base[g.r.intn(len(base))] + itoa(int32(g.topicSeq))
}
