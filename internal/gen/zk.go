package gen

import (
	"slices"
)

// ZooKeeper-mode simulation: controller decisions (state-change.log and
// controller.log of the active controller) and the brokers' handling of the
// resulting LeaderAndIsr / UpdateMetadata requests. Three dialects:
// 0.10 (0.10.2.2, TRACE), 2.x-trace (2.3.1, TRACE) and 2.6-info (2.8.2, INFO).

func (g *generator) snap(p *part) zkState {
	return zkState{leader: p.leader, epoch: p.epoch, isr: cloneIDs(p.isr), zkv: p.zkv, cep: p.cep}
}

// addLISR queues p's current state for the given brokers (live ones only)
// and for UpdateMetadata to every live broker.
func (g *generator) addLISR(bt *zkBatch, p *part, to []int32, el *Election, isNew bool) {
	st := g.snap(p)
	for _, b := range to {
		if !g.broker(b).alive {
			continue
		}
		bt.lisr[b] = append(bt.lisr[b], zkEntry{p: p, st: st, isNew: isNew, el: el})
	}
	bt.um = append(bt.um, zkEntry{p: p, st: st, el: el})
}

func (g *generator) ctlBroker() *broker { return g.broker(g.ctl) }

// scCtl starts a controller-side state-change line.
func (g *generator) scCtl(t int64, lv level) []byte {
	sc := g.ctlBroker().sc
	b := sc.begin(t, lv, lgSC)
	if g.era == Era010 {
		b = append(b, "Controller "...)
		b = ai32(b, g.ctl)
		b = append(b, " epoch "...)
		b = ai32(b, g.ctlEpoch)
		return append(b, ' ')
	}
	b = append(b, "[Controller id="...)
	b = ai32(b, g.ctl)
	b = append(b, " epoch="...)
	b = ai32(b, g.ctlEpoch)
	return append(b, "] "...)
}

func (g *generator) scCtlEnd(b []byte) { g.ctlBroker().sc.end(b) }

// kc starts a controller.log line of logger lg with the KafkaController prefix.
func (g *generator) kcLine(t int64, lv level) []byte {
	c := g.ctlBroker().ctl
	b := c.begin(t, lv, lgKC)
	if g.era == Era010 {
		b = append(b, "[Controller "...)
		b = ai32(b, g.ctl)
		return append(b, "]: "...)
	}
	b = append(b, "[Controller id="...)
	b = ai32(b, g.ctl)
	return append(b, "] "...)
}

func (g *generator) kcEnd(b []byte) { g.ctlBroker().ctl.end(b) }

func (g *generator) kcMsg(t int64, lv level, msg string) {
	b := g.kcLine(t, lv)
	b = append(b, msg...)
	g.kcEnd(b)
}

// ctlOther writes a controller.log line with another logger and prefix.
func (g *generator) ctlOther(t int64, lv level, logger, prefix, msg string) {
	c := g.ctlBroker().ctl
	b := c.begin(t, lv, logger)
	b = append(b, prefix...)
	b = append(b, msg...)
	c.end(b)
}

// scPrefix appends a broker-side state-change prefix.
func (g *generator) scBroker(b *broker, t int64, lv level) []byte {
	x := b.sc.begin(t, lv, lgSC)
	if g.era == Era010 {
		x = append(x, "Broker "...)
		x = ai32(x, b.id)
		return append(x, ' ')
	}
	x = append(x, "[Broker id="...)
	x = ai32(x, b.id)
	return append(x, "] "...)
}

func (g *generator) pname(p *part) string {
	if g.era == Era010 {
		return p.bname
	}
	return p.name
}

// ---------------------------------------------------------------------
// sending

// zkSend logs the controller's send lines for a batch and delivers the
// requests. t is the send time; it returns the controller's clock after
// logging.
func (g *generator) zkSend(bt *zkBatch, t int64) int64 {
	if bt.empty() {
		return t
	}
	brokers := make([]int32, 0, len(bt.lisr))
	for b := range bt.lisr {
		brokers = append(brokers, b)
	}
	slices.Sort(brokers)
	live := g.liveBrokers()
	switch g.era {
	case Era010, Era2xTrace:
		for _, bid := range brokers {
			for _, e := range bt.lisr[bid] {
				b := g.scCtl(t, lvTRACE)
				if g.era == Era010 {
					b = append(b, "sending "...)
					b = append(b, becomeWord(bid, e.st.leader)...)
					b = append(b, " LeaderAndIsr request "...)
					b = appendLICE(b, &e.st, false)
					b = append(b, " to broker "...)
					b = ai32(b, bid)
					b = append(b, " for partition "...)
					b = append(b, e.p.bname...)
				} else {
					b = append(b, "Sending "...)
					b = append(b, becomeWord(bid, e.st.leader)...)
					b = append(b, " LeaderAndIsr request "...)
					b = appendLisrPS23(b, &e.st, e.p.replicas, e.isNew)
					b = append(b, " to broker "...)
					b = ai32(b, bid)
					b = append(b, " for partition "...)
					b = append(b, e.p.name...)
				}
				g.scCtlEnd(b)
				e.el.ctlLine(t)
			}
		}
		for _, e := range bt.um {
			b := g.scCtl(t, lvTRACE)
			if g.era == Era010 {
				b = append(b, "sending UpdateMetadata request "...)
				b = appendLICE(b, &e.st, false)
				b = append(b, " to brokers "...)
				b = appendIDSet(b, g.era, live)
				b = append(b, " for partition "...)
				b = append(b, e.p.name...)
			} else {
				b = append(b, "Sending UpdateMetadata request "...)
				b = appendUmPS23(b, &e.st, e.p.replicas, g.offlineReplicas(e.p))
				b = append(b, " to brokers "...)
				b = appendIDSet(b, g.era, live)
				b = append(b, " for partition "...)
				b = append(b, e.p.name...)
			}
			g.scCtlEnd(b)
			e.el.ctlLine(t)
			t += g.rnT.stepMs(2) / 2
		}
	case Era26Info:
		for _, bid := range brokers {
			nl := 0
			for _, e := range bt.lisr[bid] {
				if e.st.leader == bid {
					nl++
				}
			}
			b := g.scCtl(t, lvINFO)
			b = append(b, "Sending LeaderAndIsr request to broker "...)
			b = ai32(b, bid)
			b = append(b, " with "...)
			b = ai(b, int64(nl))
			b = append(b, " become-leader and "...)
			b = ai(b, int64(len(bt.lisr[bid])-nl))
			b = append(b, " become-follower partitions"...)
			g.scCtlEnd(b)
			t += g.rnT.stepMs(2) / 2
		}
		b := g.scCtl(t, lvINFO)
		b = append(b, "Sending UpdateMetadata request to brokers "...)
		b = appendIDSet(b, g.era, live)
		b = append(b, " for "...)
		b = ai(b, int64(len(bt.um)))
		b = append(b, " partitions"...)
		g.scCtlEnd(b)
	}
	// deliver: LeaderAndIsr first on every channel, UpdateMetadata after it
	for _, bid := range brokers {
		br := g.broker(bid)
		br.corr++
		arrive := t + g.rnT.between(1, 5)
		g.zkDeliverLISR(br, br.corr, bt.lisr[bid], arrive)
	}
	for _, bid := range live {
		br := g.broker(bid)
		br.corr++
		arrive := t + g.rnT.between(1, 6)
		g.zkDeliverUM(br, br.corr, bt.um, arrive)
	}
	return t + 1
}

func becomeWord(broker, leader int32) string {
	if broker == leader {
		return "become-leader"
	}
	return "become-follower"
}

func (g *generator) offlineReplicas(p *part) []int32 {
	var out []int32
	for _, r := range p.replicas {
		if !g.broker(r).alive {
			out = append(out, r)
		}
	}
	return out
}

// ---------------------------------------------------------------------
// broker side: LeaderAndIsr

func (g *generator) offlineReplicasCache() func(*part) []int32 {
	return func(p *part) []int32 { return g.offlineReplicas(p) }
}

// ---------------------------------------------------------------------
// controller decisions

const (
	stratOffline = iota
	stratControlledShutdown
	stratPreferred
)

// zkElect elects new leaders for ps with the given strategy, logs the
// controller's decision lines and sends the requests. 0.10.2 handles
// controlled shutdown and preferred elections one partition per batch.
func (g *generator) zkElect(t int64, ps []*part, strat int, cause string, shutting int32) int64 {
	if len(ps) == 0 {
		return t
	}
	serial := g.era == Era010 && strat != stratOffline
	if serial {
		for _, p := range ps {
			t = g.zkElectBatch(t, []*part{p}, strat, cause, shutting)
			t += g.rnT.between(1, 4)
		}
		return t
	}
	return g.zkElectBatch(t, ps, strat, cause, shutting)
}

func (g *generator) zkElectBatch(t int64, ps []*part, strat int, cause string, shutting int32) int64 {
	bt := newBatch()
	type dec struct {
		p      *part
		el     *Election
		prev   int32
		recips []int32
		from   string
	}
	var decs []dec
	for _, p := range ps {
		p.advanceOffsets(t)
		prev := p.leader
		var leader int32 = -1
		var isr []int32
		var recips []int32
		from := "OnlinePartition"
		switch strat {
		case stratOffline:
			from = "OfflinePartition"
			for _, r := range p.isr {
				if g.broker(r).alive {
					isr = append(isr, r)
				}
			}
			for _, r := range p.replicas {
				if g.broker(r).alive {
					recips = append(recips, r)
					if leader < 0 && containsID(isr, r) {
						leader = r
					}
				}
			}
		case stratControlledShutdown:
			isr = without(p.isr, shutting)
			for _, r := range p.replicas {
				if containsID(isr, r) && g.broker(r).alive {
					leader = r
					break
				}
			}
			for _, r := range p.replicas {
				if g.broker(r).alive || r == shutting {
					recips = append(recips, r)
				}
			}
		case stratPreferred:
			isr = cloneIDs(p.isr)
			leader = p.replicas[0]
			recips = nil
			for _, r := range p.replicas {
				if g.broker(r).alive {
					recips = append(recips, r)
				}
			}
		}
		if leader < 0 {
			continue // no eligible leader: not simulated
		}
		if leader != prev {
			g.moveLeader(p)
		}
		p.leader = leader
		p.isr = isr
		p.epoch++
		p.zkv++
		p.cep = g.ctlEpoch
		el := g.newElection(p, leader, prev, g.ctl, g.ctlEpoch, cause, 0)
		el.alive = prev >= 0 && g.broker(prev).alive
		decs = append(decs, dec{p: p, el: el, prev: prev, recips: recips, from: from})
	}
	// decision lines
	switch g.era {
	case Era010:
		for _, d := range decs {
			p := d.p
			pn := p.bname
			switch strat {
			case stratPreferred:
				g.kcMsg(t, lvINFO, "Starting preferred replica leader election for partitions "+pn)
				d.el.ctlLine(t)
			}
			if strat != stratOffline {
				g.ctlOther(t, lvINFO, lgPSM, "[Partition state machine on Controller "+itoa(g.ctl)+"]: ", "Invoking state change to OnlinePartition for partitions "+pn)
				d.el.ctlLine(t)
			}
			b := g.scCtl(t, lvTRACE)
			b = append(b, "started leader election for partition "...)
			b = append(b, pn...)
			g.scCtlEnd(b)
			d.el.ctlLine(t)
			t += g.rnT.stepMs(3)
			st := g.snap(p)
			selected := int64(0)
			switch strat {
			case stratOffline:
				g.ctlOther(t, lvDEBUG, lgOfflineSel, "[OfflinePartitionLeaderSelector]: ", "Some broker in ISR is alive for "+pn+". Select "+itoa(p.leader)+" from ISR "+string(appendInts(nil, p.isr, ","))+" to be the leader.")
				g.ctlOther(t, lvINFO, lgOfflineSel, "[OfflinePartitionLeaderSelector]: ", "Selected new leader and ISR "+string(appendLeaderAndIsr(nil, g.era, &st))+" for offline partition "+pn)
				// The selector's line names the new leader and epoch: the
				// decision is logged here first.
				selected = t
			case stratControlledShutdown:
				g.ctlOther(t, lvDEBUG, lgCSSel, "[ControlledShutdownLeaderSelector]: ", "Partition "+pn+" : current leader = "+itoa(d.prev)+", new leader = "+itoa(p.leader))
			case stratPreferred:
				g.ctlOther(t, lvINFO, lgPrefSel, "[PreferredReplicaPartitionLeaderSelector]: ", "Current leader "+itoa(d.prev)+" for partition "+pn+" is not the preferred replica. Triggering preferred replica leader election")
			}
			t += g.rnT.stepMs(3)
			b = g.scCtl(t, lvTRACE)
			b = append(b, "elected leader "...)
			b = ai32(b, p.leader)
			b = append(b, " for Offline partition "...)
			b = append(b, pn...)
			g.scCtlEnd(b)
			b = g.scCtl(t, lvTRACE)
			b = append(b, "changed partition "...)
			b = append(b, pn...)
			b = append(b, " from "...)
			b = append(b, d.from...)
			b = append(b, " to OnlinePartition with leader "...)
			b = ai32(b, p.leader)
			g.scCtlEnd(b)
			d.el.Decided = t
			if selected != 0 {
				d.el.Decided = selected
			}
			d.el.ctlLine(t)
			g.addLISR(bt, p, d.recips, d.el, false)
			if strat == stratPreferred {
				g.kcMsg(t, lvINFO, "Partition "+pn+" completed preferred replica leader election. New leader is "+itoa(p.leader))
				d.el.ctlLine(t)
			}
		}
	case Era2xTrace, Era26Info:
		if strat == stratPreferred && len(decs) > 0 {
			names := make([]string, len(decs))
			for i, d := range decs {
				names[i] = d.p.name
			}
			if g.era == Era2xTrace {
				g.kcMsg(t, lvINFO, "Starting preferred replica leader election for partitions "+joinStr(names, ","))
			} else {
				g.kcMsg(t, lvINFO, "Starting replica leader election (PREFERRED) for partitions "+joinStr(names, ",")+" triggered by AutoTriggered")
			}
			for _, d := range decs {
				d.el.ctlLine(t)
			}
		}
		t += g.rnT.stepMs(4)
		for _, d := range decs {
			st := g.snap(d.p)
			lv := lvTRACE
			if g.era == Era26Info {
				lv = lvINFO
			}
			b := g.scCtl(t, lv)
			b = append(b, "Changed partition "...)
			b = append(b, d.p.name...)
			b = append(b, " from "...)
			b = append(b, d.from...)
			b = append(b, " to OnlinePartition with state "...)
			b = appendLeaderAndIsr(b, g.era, &st)
			g.scCtlEnd(b)
			d.el.Decided = t
			d.el.ctlLine(t)
			g.addLISR(bt, d.p, d.recips, d.el, false)
			t += g.rnT.stepMs(2) / 2
		}
		if strat == stratPreferred {
			for _, d := range decs {
				g.kcMsg(t, lvINFO, "Partition "+d.p.name+" completed preferred replica leader election. New leader is "+itoa(d.p.leader))
				d.el.ctlLine(t)
			}
		}
	}
	t = g.zkSend(bt, t+g.rnT.stepMs(3))
	return t
}

// zkResendAll sends every live broker a LeaderAndIsr for all its replicas
// (controller failover, cluster start, broker restart) without changing
// any epoch.
func (g *generator) zkResendAll(t int64, only int32) int64 {
	bt := newBatch()
	for _, p := range g.parts {
		st := g.snap(p)
		for _, r := range p.replicas {
			if only >= 0 && r != only {
				continue
			}
			if g.broker(r).alive {
				bt.lisr[r] = append(bt.lisr[r], zkEntry{p: p, st: st})
			}
		}
		if only < 0 {
			bt.um = append(bt.um, zkEntry{p: p, st: st})
		}
	}
	if only >= 0 {
		// onBrokerStartup: the new broker gets the full metadata
		for _, p := range g.parts {
			bt.um = append(bt.um, zkEntry{p: p, st: g.snap(p)})
		}
	}
	return g.zkSend(bt, t)
}

// ---------------------------------------------------------------------
// incidents

// zkBaseline: the log files begin with a cluster start; the controller
// comes up last, so every partition keeps its leader and the brokers learn
// the current leaders and epochs from the controller's LeaderAndIsr.
func (g *generator) zkBaseline(start int64) {
	t := start
	for _, b := range g.brokers {
		g.brokerStartup(b, t)
		t += g.rnT.between(800, 2500)
	}
	g.ctl = g.brokers[g.r.intn(len(g.brokers))].id
	g.ctlEpoch = int32(g.r.between(3, 40))
	g.ctlZkv = g.ctlEpoch - 1
	for _, p := range g.parts {
		p.cep = g.ctlEpoch - int32(g.r.between(0, 2))
		if p.cep < 1 {
			p.cep = 1
		}
		p.lastT = start
	}
	t = g.zkBecomeController(t+g.rnT.between(200, 900), g.ctl)
	t = g.zkResendAll(t, -1)
	g.tickAt = t + 5000
	g.schedule(g.tickAt, evTick, 0)
	g.schedule(t+g.rnT.between(60_000, 180_000), evChaos, 0)
	g.scheduleNone(t)
}

// zkBecomeController writes the controller election / failover lines.
func (g *generator) zkBecomeController(t int64, id int32) int64 {
	g.ctl = id
	switch g.era {
	case Era010:
		g.kcMsg(t, lvINFO, "Broker "+itoa(id)+" starting become controller state transition")
		t += g.rnT.between(5, 40)
		g.kcMsg(t, lvINFO, "Controller "+itoa(id)+" incremented epoch to "+itoa(g.ctlEpoch))
		t += g.rnT.between(20, 200)
		g.kcMsg(t, lvINFO, "Currently active brokers in the cluster: "+string(appendImmutableIDSet(nil, g.era, g.liveBrokers())))
		g.kcMsg(t, lvINFO, "Currently shutting brokers in the cluster: Set()")
		t += g.rnT.between(50, 400)
		g.kcMsg(t, lvINFO, "Broker "+itoa(id)+" is ready to serve as the new controller with epoch "+itoa(g.ctlEpoch))
		g.kcMsg(t, lvINFO, "starting the partition rebalance scheduler")
	default:
		g.kcMsg(t, lvINFO, itoa(id)+" successfully elected as the controller. Epoch incremented to "+itoa(g.ctlEpoch)+" and epoch zk version is now "+itoa(g.ctlZkv))
		t += g.rnT.between(1, 10)
		g.kcMsg(t, lvINFO, "Registering handlers")
		t += g.rnT.between(1, 20)
		g.kcMsg(t, lvINFO, "Deleting log dir event notifications")
		g.kcMsg(t, lvINFO, "Deleting isr change notifications")
		t += g.rnT.between(1, 20)
		g.kcMsg(t, lvINFO, "Initializing controller context")
		t += g.rnT.between(20, 300)
		g.kcMsg(t, lvINFO, "Currently active brokers in the cluster: "+string(appendImmutableIDSet(nil, g.era, g.liveBrokers())))
		g.kcMsg(t, lvINFO, "Currently shutting brokers in the cluster: "+emptySet(g.era))
		t += g.rnT.between(1, 30)
		g.kcMsg(t, lvINFO, "Fetching topic deletions in progress")
		g.kcMsg(t, lvINFO, "List of topics to be deleted: ")
		g.kcMsg(t, lvINFO, "List of topics ineligible for deletion: ")
		g.kcMsg(t, lvINFO, "Initializing topic deletion manager")
		t += g.rnT.between(1, 20)
		g.kcMsg(t, lvINFO, "Sending update metadata request")
		t += g.rnT.between(5, 60)
		g.kcMsg(t, lvINFO, "Ready to serve as the new controller with epoch "+itoa(g.ctlEpoch))
		g.kcMsg(t, lvINFO, "Starting the controller scheduler")
	}
	return t + g.rnT.between(1, 20)
}

func emptySet(e Era) string {
	if e == Era26Info {
		return "HashSet()"
	}
	return "Set()"
}

func (g *generator) partitionPrefix(m []byte, p *part, broker int32) []byte {
	if g.era == Era010 {
		m = append(m, "Partition "...)
		m = append(m, p.bname...)
		m = append(m, " on broker "...)
		m = ai32(m, broker)
		return append(m, ": "...)
	}
	m = append(m, "[Partition "...)
	m = append(m, p.name...)
	m = append(m, " broker="...)
	m = ai32(m, broker)
	return append(m, "] "...)
}

func (g *generator) serverLine(b *broker, t int64, lv level, msg string) {
	m := b.srv.begin(t, lv, lgKafkaServer)
	if g.era == Era010 {
		m = append(m, "[Kafka Server "...)
		m = ai32(m, b.id)
		m = append(m, "], "...)
	} else {
		m = append(m, "[KafkaServer id="...)
		m = ai32(m, b.id)
		m = append(m, "] "...)
	}
	m = append(m, msg...)
	b.srv.end(m)
}

// ---------------------------------------------------------------------

func itoa(n int32) string { return string(ai32(nil, n)) }

func joinStr(xs []string, sep string) string {
	var b []byte
	for i, x := range xs {
		if i > 0 {
			b = append(b, sep...)
		}
		b = append(b, x...)
	}
	return string(b)
}

// reqFor appends what ("... from controller ") and the rest of a broker's
// per-partition TRACE line about one LeaderAndIsr request: "K epoch E with
// correlation id C for partition P" (broker.md §3.3).
func reqFor(x []byte, what string, ctl, ctlEpoch, corr int32, partition string) []byte {
	x = append(x, what...)
	x = ai32(x, ctl)
	x = append(x, " epoch "...)
	x = ai32(x, ctlEpoch)
	x = append(x, " with correlation id "...)
	x = ai32(x, corr)
	x = append(x, " for partition "...)
	return append(x, partition...)
}
