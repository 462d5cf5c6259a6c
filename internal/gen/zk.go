package gen

import (
	"math"
	"slices"
)

// ZooKeeper-mode simulation: controller decisions (state-change.log and
// controller.log of the active controller) and the brokers' handling of the
// resulting LeaderAndIsr / UpdateMetadata requests. Three dialects:
// 0.10 (0.10.2.2, TRACE), 2.x-trace (2.3.1, TRACE) and 2.6-info (2.8.2, INFO).

// zkEntry is one partition state inside a LeaderAndIsr request.
type zkEntry struct {
	p     *part
	st    zkState
	isNew bool
	el    *Election
}

type zkBatch struct {
	lisr      map[int32][]zkEntry
	um        []zkEntry
	umBrokers []int32
}

func newBatch() *zkBatch { return &zkBatch{lisr: map[int32][]zkEntry{}} }

func (bt *zkBatch) empty() bool { return len(bt.lisr) == 0 && len(bt.um) == 0 }

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

// start time of the next request on a broker's request channel
func (b *broker) slot(arrive int64) int64 {
	if arrive <= b.busy {
		return b.busy + 1
	}
	return arrive
}

// ---------------------------------------------------------------------
// broker side: LeaderAndIsr

type lisrItem struct {
	e        zkEntry
	accepted bool
	wasLead  bool // broker believed it was the leader before
	prevEp   int32
	changed  bool // leader or epoch changed (follower side)
}

func (g *generator) zkDeliverLISR(b *broker, corr int32, entries []zkEntry, arrive int64) {
	if len(entries) == 0 {
		return
	}
	t := b.slot(arrive)
	items := make([]lisrItem, len(entries))
	for i, e := range entries {
		lv := &b.local[e.p.gidx]
		items[i] = lisrItem{e: e, accepted: !lv.known || e.st.epoch > lv.epoch, wasLead: lv.known && lv.leader == b.id, prevEp: lv.epoch}
		if !lv.known {
			items[i].prevEp = -1
		}
		items[i].changed = !(lv.known && lv.leader == e.st.leader && lv.epoch == e.st.epoch)
	}
	switch g.era {
	case Era010:
		t = g.lisr010(b, corr, items, t)
	case Era2xTrace:
		t = g.lisr23(b, corr, items, t)
	default:
		t = g.lisr28(b, corr, items, t)
	}
	b.busy = t
}

func (g *generator) markLocal(b *broker, it *lisrItem) {
	lv := &b.local[it.e.p.gidx]
	lv.known = true
	lv.leader = it.e.st.leader
	lv.epoch = it.e.st.epoch
}

func (g *generator) deposed(b *broker, it *lisrItem, t int64) {
	if it.wasLead && it.e.st.leader != b.id && it.e.el != nil && it.e.el.deposedAt == 0 {
		it.e.el.deposedAt = t
	}
}

// lisr010 is ReplicaManager.becomeLeaderOrFollower of 0.10.2.2.
func (g *generator) lisr010(b *broker, corr int32, items []lisrItem, t int64) int64 {
	K, E := g.ctl, g.ctlEpoch
	for i := range items {
		e := &items[i].e
		x := g.scBroker(b, t, lvTRACE)
		x = append(x, "received LeaderAndIsr request "...)
		x = appendPS010(x, &e.st, e.p.replicas)
		x = append(x, " correlation id "...)
		x = ai32(x, corr)
		x = append(x, " from controller "...)
		x = ai32(x, K)
		x = append(x, " epoch "...)
		x = ai32(x, E)
		x = append(x, " for partition "...)
		x = append(x, e.p.bname...)
		b.sc.end(x)
		e.el.phase(b.id, role(b.id, e.st.leader), PhReceived, t)
	}
	var leaders, followers []int
	for i := range items {
		it := &items[i]
		if !it.accepted {
			t += g.rnT.stepMs(3)
			x := g.scBroker(b, t, lvWARN)
			x = append(x, "ignoring LeaderAndIsr request from controller "...)
			x = ai32(x, K)
			x = append(x, " with correlation id "...)
			x = ai32(x, corr)
			x = append(x, " epoch "...)
			x = ai32(x, E)
			x = append(x, " for partition "...)
			x = append(x, it.e.p.bname...)
			x = append(x, " since its associated leader epoch "...)
			x = ai32(x, it.e.st.epoch)
			x = append(x, " is not higher than the current leader epoch "...)
			x = ai32(x, it.prevEp)
			b.sc.end(x)
			continue
		}
		if it.e.st.leader == b.id {
			leaders = append(leaders, i)
		} else {
			followers = append(followers, i)
		}
	}
	hdr := func(x []byte, what string) []byte {
		x = append(x, what...)
		x = append(x, " LeaderAndIsr request correlationId "...)
		x = ai32(x, corr)
		x = append(x, " from controller "...)
		x = ai32(x, K)
		x = append(x, " epoch "...)
		x = ai32(x, E)
		return x
	}
	if len(leaders) > 0 {
		t += g.rnT.stepMs(5)
		for _, i := range leaders {
			x := g.scBroker(b, t, lvTRACE)
			x = hdr(x, "handling")
			x = append(x, " starting the become-leader transition for partition "...)
			x = append(x, items[i].e.p.name...)
			b.sc.end(x)
			items[i].e.el.phase(b.id, "leader", PhHandling, t)
		}
		t += g.rnT.stepMs(10)
		g.removedFetcher(b, t, items, leaders, setImmutable)
		var newLeaders []int
		for _, i := range leaders {
			it := &items[i]
			t += g.rnT.stepMs(3)
			if !it.wasLead {
				newLeaders = append(newLeaders, i)
			} else {
				x := g.scBroker(b, t, lvINFO)
				x = append(x, "skipped the become-leader state change after marking its partition as leader with correlation id "...)
				x = ai32(x, corr)
				x = append(x, " from controller "...)
				x = ai32(x, K)
				x = append(x, " epoch "...)
				x = ai32(x, E)
				x = append(x, " for partition "...)
				x = append(x, it.e.p.name...)
				x = append(x, " since it is already the leader for the partition."...)
				b.sc.end(x)
			}
			g.markLocal(b, it)
		}
		for _, i := range newLeaders {
			x := g.scBroker(b, t, lvTRACE)
			x = reqFor(x, "stopped fetchers as part of become-leader request from controller ", K, E, corr, items[i].e.p.name)
			b.sc.end(x)
			items[i].e.el.phase(b.id, "leader", PhStoppedFetchers, t)
		}
		t += g.rnT.stepMs(4)
		for _, i := range leaders {
			x := g.scBroker(b, t, lvTRACE)
			x = hdr(x, "completed")
			x = append(x, " for the become-leader transition for partition "...)
			x = append(x, items[i].e.p.name...)
			b.sc.end(x)
			items[i].e.el.phase(b.id, "leader", PhCompleted, t)
		}
	}
	if len(followers) > 0 {
		t += g.rnT.stepMs(5)
		for _, i := range followers {
			x := g.scBroker(b, t, lvTRACE)
			x = hdr(x, "handling")
			x = append(x, " starting the become-follower transition for partition "...)
			x = append(x, items[i].e.p.name...)
			b.sc.end(x)
			items[i].e.el.phase(b.id, "follower", PhHandling, t)
			g.deposed(b, &items[i], t)
		}
		var changed []int
		for _, i := range followers {
			it := &items[i]
			lv := b.local[it.e.p.gidx]
			if lv.known && lv.leader == it.e.st.leader {
				// Partition.makeFollower returns false: same leader
				t += g.rnT.stepMs(2)
				x := g.scBroker(b, t, lvINFO)
				x = append(x, "skipped the become-follower state change after marking its partition as follower with correlation id "...)
				x = ai32(x, corr)
				x = append(x, " from controller "...)
				x = ai32(x, K)
				x = append(x, " epoch "...)
				x = ai32(x, it.e.st.cep)
				x = append(x, " for partition "...)
				x = append(x, it.e.p.name...)
				x = append(x, " since the new leader "...)
				x = ai32(x, it.e.st.leader)
				x = append(x, " is the same as the old leader"...)
				b.sc.end(x)
			} else {
				changed = append(changed, i)
			}
			g.markLocal(b, it)
		}
		t += g.rnT.stepMs(10)
		g.removedFetcher(b, t, items, changed, setMutable)
		for _, i := range changed {
			x := g.scBroker(b, t, lvTRACE)
			x = reqFor(x, "stopped fetchers as part of become-follower request from controller ", K, E, corr, items[i].e.p.name)
			b.sc.end(x)
			items[i].e.el.phase(b.id, "follower", PhStoppedFetchers, t)
		}
		// logManager.truncateTo: one server.log line per partition; sometimes slow
		for _, i := range changed {
			p := items[i].e.p
			t += g.rnT.stepMs(3)
			if g.rnT.chance(0.015) {
				t += g.rnT.between(800, 4500)
			}
			x := b.srv.begin(t, lvINFO, lgLog)
			x = append(x, "Truncating log "...)
			x = append(x, p.name...)
			x = append(x, " to offset "...)
			x = ai(x, p.hw)
			x = append(x, '.')
			b.srv.end(x)
		}
		for _, i := range changed {
			x := g.scBroker(b, t, lvTRACE)
			x = append(x, "truncated logs and checkpointed recovery boundaries for partition "...)
			x = append(x, items[i].e.p.name...)
			x = append(x, " as part of become-follower request with correlation id "...)
			x = ai32(x, corr)
			x = append(x, " from controller "...)
			x = ai32(x, K)
			x = append(x, " epoch "...)
			x = ai32(x, E)
			b.sc.end(x)
			items[i].e.el.phase(b.id, "follower", PhTruncated, t)
		}
		if len(changed) > 0 {
			t += g.rnT.stepMs(8)
			x := b.srv.begin(t, lvINFO, lgFetcherMgr)
			x = appendFetcherMgrPrefix(x, b.id)
			x = append(x, "Added fetcher for partitions List("...)
			for k, i := range changed {
				if k > 0 {
					x = append(x, ", "...)
				}
				p := items[i].e.p
				x = append(x, '[')
				x = append(x, p.name...)
				x = append(x, ", initOffset "...)
				x = ai(x, p.hw)
				x = append(x, " to broker "...)
				x = appendBrokerEndPoint(x, g.era, items[i].e.st.leader)
				x = append(x, "] "...)
			}
			x = append(x, ')')
			b.srv.end(x)
			for _, i := range changed {
				x := g.scBroker(b, t, lvTRACE)
				x = reqFor(x, "started fetcher to new leader as part of become-follower request from controller ", K, E, corr, items[i].e.p.name)
				b.sc.end(x)
				items[i].e.el.phase(b.id, "follower", PhStartedFetcher, t)
			}
		}
		t += g.rnT.stepMs(4)
		for _, i := range followers {
			x := g.scBroker(b, t, lvTRACE)
			x = hdr(x, "completed")
			x = append(x, " for the become-follower transition for partition "...)
			x = append(x, items[i].e.p.name...)
			b.sc.end(x)
			items[i].e.el.phase(b.id, "follower", PhCompleted, t)
		}
	}
	return t + g.rnT.stepMs(3)
}

func appendFetcherMgrPrefix(x []byte, id int32) []byte {
	x = append(x, "[ReplicaFetcherManager on broker "...)
	x = ai32(x, id)
	return append(x, "] "...)
}

// removedFetcher writes "Removed fetcher for partitions ..." in the era's
// rendering (0.10.2 logs it even when empty; 2.1+ only when non-empty).
func (g *generator) removedFetcher(b *broker, t int64, items []lisrItem, idx []int, style int) {
	if len(idx) == 0 && g.era != Era010 {
		return
	}
	x := b.srv.begin(t, lvINFO, lgFetcherMgr)
	x = appendFetcherMgrPrefix(x, b.id)
	x = append(x, "Removed fetcher for partitions "...)
	if g.era == Era010 {
		for k, i := range idx {
			if k > 0 {
				x = append(x, ',')
			}
			x = append(x, items[i].e.p.name...)
		}
	} else {
		ps := make([]*part, len(idx))
		for k, i := range idx {
			ps[k] = items[i].e.p
		}
		x = appendNameSet(x, g.era, ps, style)
	}
	b.srv.end(x)
	// the fetchers stop here; the state-change line saying so follows
	for _, i := range idx {
		e := &items[i].e
		e.el.phase(b.id, role(b.id, e.st.leader), PhStoppedFetchers, t)
	}
}

// lisr23 is ReplicaManager.becomeLeaderOrFollower of 2.3.1 with TRACE on.
func (g *generator) lisr23(b *broker, corr int32, items []lisrItem, t int64) int64 {
	K, E := g.ctl, g.ctlEpoch
	for i := range items {
		e := &items[i].e
		x := g.scBroker(b, t, lvTRACE)
		x = append(x, "Received LeaderAndIsr request "...)
		x = appendLisrPS23(x, &e.st, e.p.replicas, e.isNew)
		x = append(x, " correlation id "...)
		x = ai32(x, corr)
		x = append(x, " from controller "...)
		x = ai32(x, K)
		x = append(x, " epoch "...)
		x = ai32(x, E)
		x = append(x, " for partition "...)
		x = append(x, e.p.name...)
		b.sc.end(x)
		e.el.phase(b.id, role(b.id, e.st.leader), PhReceived, t)
	}
	leaders, followers, t := g.splitByRole(b, corr, items, t, lvDEBUG)
	if len(leaders) > 0 {
		t += g.rnT.stepMs(5)
		for _, i := range leaders {
			x := g.scBroker(b, t, lvTRACE)
			x = append(x, "Handling LeaderAndIsr request correlationId "...)
			x = ai32(x, corr)
			x = append(x, " from controller "...)
			x = ai32(x, K)
			x = append(x, " epoch "...)
			x = ai32(x, E)
			x = append(x, " starting the become-leader transition for partition "...)
			x = append(x, items[i].e.p.name...)
			b.sc.end(x)
			items[i].e.el.phase(b.id, "leader", PhHandling, t)
		}
		t += g.rnT.stepMs(10)
		g.removedFetcher(b, t, items, leaders, setImmutable)
		for _, i := range leaders {
			it := &items[i]
			p := it.e.p
			t += g.rnT.stepMs(4)
			x := b.srv.begin(t, lvINFO, lgPartition)
			x = append(x, "[Partition "...)
			x = append(x, p.name...)
			x = append(x, " broker="...)
			x = ai32(x, b.id)
			x = append(x, "] "...)
			x = append(x, p.name...)
			x = append(x, " starts at Leader Epoch "...)
			x = ai32(x, it.e.st.epoch)
			x = append(x, " from offset "...)
			x = ai(x, p.leo)
			x = append(x, ". Previous Leader Epoch was: "...)
			x = ai32(x, it.prevEp)
			b.srv.end(x)
			it.e.el.phase(b.id, "leader", PhEpochStart, t)
			if !it.wasLead {
				x := g.scBroker(b, t, lvTRACE)
				x = reqFor(x, "Stopped fetchers as part of become-leader request from controller ", K, E, corr, p.name)
				x = append(x, " (last update controller epoch "...)
				x = ai32(x, it.e.st.cep)
				x = append(x, ')')
				b.sc.end(x)
				it.e.el.phase(b.id, "leader", PhStoppedFetchers, t)
			} else {
				x := g.scBroker(b, t, lvINFO)
				x = append(x, "Skipped the become-leader state change after marking its partition as leader with correlation id "...)
				x = ai32(x, corr)
				x = append(x, " from controller "...)
				x = ai32(x, K)
				x = append(x, " epoch "...)
				x = ai32(x, E)
				x = append(x, " for partition "...)
				x = append(x, p.name...)
				x = append(x, " (last update controller epoch "...)
				x = ai32(x, it.e.st.cep)
				x = append(x, ") since it is already the leader for the partition."...)
				b.sc.end(x)
			}
			g.markLocal(b, it)
		}
		t += g.rnT.stepMs(4)
		for _, i := range leaders {
			x := g.scBroker(b, t, lvTRACE)
			x = append(x, "Completed LeaderAndIsr request correlationId "...)
			x = ai32(x, corr)
			x = append(x, " from controller "...)
			x = ai32(x, K)
			x = append(x, " epoch "...)
			x = ai32(x, E)
			x = append(x, " for the become-leader transition for partition "...)
			x = append(x, items[i].e.p.name...)
			b.sc.end(x)
			items[i].e.el.phase(b.id, "leader", PhCompleted, t)
		}
	}
	if len(followers) > 0 {
		t += g.rnT.stepMs(5)
		withLeader := func(x []byte, it *lisrItem) []byte {
			x = append(x, " with leader "...)
			return ai32(x, it.e.st.leader)
		}
		for _, i := range followers {
			x := g.scBroker(b, t, lvTRACE)
			x = append(x, "Handling LeaderAndIsr request correlationId "...)
			x = ai32(x, corr)
			x = append(x, " from controller "...)
			x = ai32(x, K)
			x = append(x, " epoch "...)
			x = ai32(x, E)
			x = append(x, " starting the become-follower transition for partition "...)
			x = append(x, items[i].e.p.name...)
			x = withLeader(x, &items[i])
			b.sc.end(x)
			items[i].e.el.phase(b.id, "follower", PhHandling, t)
			g.deposed(b, &items[i], t)
		}
		// 2.3 Partition.makeFollower returns true whenever the epoch moved
		changed := followers
		for _, i := range followers {
			g.markLocal(b, &items[i])
		}
		t += g.rnT.stepMs(10)
		g.removedFetcher(b, t, items, changed, setMutable)
		for _, i := range changed {
			x := g.scBroker(b, t, lvTRACE)
			x = reqFor(x, "Stopped fetchers as part of become-follower request from controller ", K, E, corr, items[i].e.p.name)
			x = withLeader(x, &items[i])
			b.sc.end(x)
			items[i].e.el.phase(b.id, "follower", PhStoppedFetchers, t)
		}
		t += g.rnT.stepMs(3)
		for _, i := range changed {
			x := g.scBroker(b, t, lvTRACE)
			x = append(x, "Truncated logs and checkpointed recovery boundaries for partition "...)
			x = append(x, items[i].e.p.name...)
			x = append(x, " as part of become-follower request with correlation id "...)
			x = ai32(x, corr)
			x = append(x, " from controller "...)
			x = ai32(x, K)
			x = append(x, " epoch "...)
			x = ai32(x, E)
			x = withLeader(x, &items[i])
			b.sc.end(x)
			items[i].e.el.phase(b.id, "follower", PhTruncated, t)
		}
		{
			t += g.rnT.stepMs(8)
			g.addedFetcher(b, t, items, changed)
			for _, i := range changed {
				x := g.scBroker(b, t, lvTRACE)
				x = reqFor(x, "Started fetcher to new leader as part of become-follower request from controller ", K, E, corr, items[i].e.p.name)
				x = withLeader(x, &items[i])
				b.sc.end(x)
				items[i].e.el.phase(b.id, "follower", PhStartedFetcher, t)
			}
		}
		t += g.rnT.stepMs(4)
		for _, i := range followers {
			x := g.scBroker(b, t, lvTRACE)
			x = append(x, "Completed LeaderAndIsr request correlationId "...)
			x = ai32(x, corr)
			x = append(x, " from controller "...)
			x = ai32(x, K)
			x = append(x, " epoch "...)
			x = ai32(x, E)
			x = append(x, " for the become-follower transition for partition "...)
			x = append(x, items[i].e.p.name...)
			x = withLeader(x, &items[i])
			b.sc.end(x)
			items[i].e.el.phase(b.id, "follower", PhCompleted, t)
		}
		g.fetcherTruncation(b, t, items, changed)
	}
	return t + g.rnT.stepMs(3)
}

// splitByRole logs the 2.3+ "Ignoring LeaderAndIsr request" line for each
// partition the broker refuses (at lv; WARN when the epoch went backwards)
// and splits the others into the ones it leads and the ones it follows.
func (g *generator) splitByRole(b *broker, corr int32, items []lisrItem, t int64, lv level) (leaders, followers []int, _ int64) {
	for i := range items {
		it := &items[i]
		if !it.accepted {
			t += g.rnT.stepMs(2)
			l := lv
			if it.e.st.epoch < it.prevEp {
				l = lvWARN
			}
			x := g.scBroker(b, t, l)
			x = g.ignoringMsg(x, corr, it)
			b.sc.end(x)
			continue
		}
		if it.e.st.leader == b.id {
			leaders = append(leaders, i)
		} else {
			followers = append(followers, i)
		}
	}
	return leaders, followers, t
}

// ignoringMsg renders the 2.3+ "Ignoring LeaderAndIsr request ..." epoch check.
func (g *generator) ignoringMsg(x []byte, corr int32, it *lisrItem) []byte {
	x = append(x, "Ignoring LeaderAndIsr request from controller "...)
	x = ai32(x, g.ctl)
	x = append(x, " with correlation id "...)
	x = ai32(x, corr)
	x = append(x, " epoch "...)
	x = ai32(x, g.ctlEpoch)
	x = append(x, " for partition "...)
	x = append(x, it.e.p.name...)
	x = append(x, " since its associated leader epoch "...)
	x = ai32(x, it.e.st.epoch)
	if it.e.st.epoch < it.prevEp {
		x = append(x, " is smaller than the current leader epoch "...)
		return ai32(x, it.prevEp)
	}
	return append(x, " matches the current leader epoch"...)
}

// addedFetcher writes AbstractFetcherManager's "Added fetcher to broker ..."
// lines, one per source broker (num.replica.fetchers=1).
func (g *generator) addedFetcher(b *broker, t int64, items []lisrItem, idx []int) {
	byLeader := map[int32][]int{}
	var leaders []int32
	for _, i := range idx {
		l := items[i].e.st.leader
		if _, ok := byLeader[l]; !ok {
			leaders = append(leaders, l)
		}
		byLeader[l] = append(byLeader[l], i)
	}
	for _, l := range leaders {
		grp := byLeader[l]
		x := b.srv.begin(t, lvINFO, lgFetcherMgr)
		x = appendFetcherMgrPrefix(x, b.id)
		x = append(x, "Added fetcher to broker "...)
		if g.era == Era2xTrace {
			x = appendBrokerEndPoint(x, g.era, l)
		} else {
			x = ai32(x, l)
		}
		x = append(x, " for partitions "...)
		x = appendScalaMapPrefix(x, g.era, len(grp))
		for k, i := range grp {
			if k > 0 {
				x = append(x, ", "...)
			}
			p := items[i].e.p
			x = append(x, p.name...)
			x = append(x, " -> "...)
			switch g.era {
			case Era2xTrace:
				x = append(x, "(offset="...)
				x = ai(x, p.hw)
				x = append(x, ", leaderEpoch="...)
				x = ai32(x, items[i].e.st.epoch)
				x = append(x, ')')
			case Era26Info:
				x = append(x, "InitialFetchState("...)
				x = appendBrokerEndPoint(x, g.era, l)
				x = append(x, ',')
				x = ai32(x, items[i].e.st.epoch)
				x = append(x, ',')
				x = ai(x, p.hw)
				x = append(x, ')')
			default: // kraft 3.9
				x = append(x, "InitialFetchState(Some("...)
				x = append(x, p.t.id...)
				x = append(x, "),"...)
				x = appendBrokerEndPoint(x, g.era, l)
				x = append(x, ',')
				x = ai32(x, items[i].e.st.epoch)
				x = append(x, ',')
				x = ai(x, p.hw)
				x = append(x, ')')
			}
		}
		x = append(x, ')')
		b.srv.end(x)
		if g.era != Era2xTrace {
			for _, i := range grp {
				items[i].e.el.phase(b.id, "follower", PhStartedFetcher, t)
			}
		}
	}
}

// fetcherTruncation writes the fetcher thread's truncation of the deposed
// leader's unreplicated tail (server.log). In 2.6-info and kraft this is the
// "truncated" phase.
func (g *generator) fetcherTruncation(b *broker, t int64, items []lisrItem, idx []int) {
	for _, i := range idx {
		it := &items[i]
		if !it.wasLead || it.e.el == nil {
			continue
		}
		p := it.e.p
		tt := t + g.rnT.between(3, 40)
		if g.rnT.chance(0.03) {
			tt += g.rnT.between(1000, 4000)
		}
		target := p.leo // end offset of the previous epoch on the new leader
		var lg string
		var x []byte
		switch g.era {
		case Era2xTrace, Era26Info:
			lg = lgLog
			x = b.srv.begin(tt, lvINFO, lg)
			x = append(x, "[Log partition="...)
		default:
			// 3.9: the fetcher's line first, then the UnifiedLog line
			x = b.srv.begin(tt, lvINFO, lgFetcher)
			x = append(x, "[ReplicaFetcher replicaId="...)
			x = ai32(x, b.id)
			x = append(x, ", leaderId="...)
			x = ai32(x, it.e.st.leader)
			x = append(x, ", fetcherId=0] Truncating partition "...)
			x = append(x, p.name...)
			x = append(x, " with TruncationState(offset="...)
			x = ai(x, target)
			x = append(x, ", completed=true) due to leader epoch and offset EpochEndOffset(errorCode=0, partition="...)
			x = ai32(x, p.idx)
			x = append(x, ", leaderEpoch="...)
			x = ai32(x, it.prevEp)
			x = append(x, ", endOffset="...)
			x = ai(x, target)
			x = append(x, ')')
			b.srv.end(x)
			it.e.el.phase(b.id, "follower", PhTruncated, tt)
			lg = lgUnifiedLog
			x = b.srv.begin(tt, lvINFO, lg)
			x = append(x, "[UnifiedLog partition="...)
		}
		x = append(x, p.name...)
		x = append(x, ", dir="...)
		x = append(x, logDir...)
		if p.prevLEO > target {
			x = append(x, "] Truncating to offset "...)
			x = ai(x, target)
		} else {
			x = append(x, "] Truncating to "...)
			x = ai(x, target)
			x = append(x, " has no effect as the largest offset in the log is "...)
			x = ai(x, p.prevLEO-1)
		}
		b.srv.end(x)
		if g.era == Era26Info {
			it.e.el.phase(b.id, "follower", PhTruncated, tt)
		}
	}
}

// lisr28 is ReplicaManager.becomeLeaderOrFollower of 2.8.2 at INFO.
func (g *generator) lisr28(b *broker, corr int32, items []lisrItem, t int64) int64 {
	K, E := g.ctl, g.ctlEpoch
	t0 := t
	x := g.scBroker(b, t, lvINFO)
	x = append(x, "Handling LeaderAndIsr request correlationId "...)
	x = ai32(x, corr)
	x = append(x, " from controller "...)
	x = ai32(x, K)
	x = append(x, " for "...)
	x = ai(x, int64(len(items)))
	x = append(x, " partitions"...)
	b.sc.end(x)
	for i := range items {
		items[i].e.el.phase(b.id, role(b.id, items[i].e.st.leader), PhHandling, t)
	}
	leaders, followers, t := g.splitByRole(b, corr, items, t, lvINFO)
	if len(leaders) > 0 {
		t += g.rnT.stepMs(6)
		g.removedFetcher(b, t, items, leaders, setImmutable)
		x := g.scBroker(b, t, lvINFO)
		x = append(x, "Stopped fetchers as part of LeaderAndIsr request correlationId "...)
		x = ai32(x, corr)
		x = append(x, " from controller "...)
		x = ai32(x, K)
		x = append(x, " epoch "...)
		x = ai32(x, E)
		x = append(x, " as part of the become-leader transition for "...)
		x = ai(x, int64(len(leaders)))
		x = append(x, " partitions"...)
		b.sc.end(x)
		for _, i := range leaders {
			items[i].e.el.phase(b.id, "leader", PhStoppedFetchers, t)
		}
		for _, i := range leaders {
			it := &items[i]
			p := it.e.p
			t += g.rnT.stepMs(5)
			x := g.scBroker(b, t, lvINFO)
			x = append(x, "Leader "...)
			x = append(x, p.name...)
			x = append(x, " starts at leader epoch "...)
			x = ai32(x, it.e.st.epoch)
			x = append(x, " from offset "...)
			x = ai(x, p.leo)
			x = append(x, " with high watermark "...)
			x = ai(x, p.hw)
			x = append(x, " ISR ["...)
			x = appendInts(x, it.e.st.isr, ",")
			x = append(x, "] addingReplicas [] removingReplicas []. Previous leader epoch was "...)
			x = ai32(x, it.prevEp)
			x = append(x, '.')
			b.sc.end(x)
			it.e.el.phase(b.id, "leader", PhEpochStart, t)
			if it.wasLead {
				x := g.scBroker(b, t, lvINFO)
				x = append(x, "Skipped the become-leader state change after marking its partition as leader with correlation id "...)
				x = ai32(x, corr)
				x = append(x, " from controller "...)
				x = ai32(x, K)
				x = append(x, " epoch "...)
				x = ai32(x, E)
				x = append(x, " for partition "...)
				x = append(x, p.name...)
				x = append(x, " (last update controller epoch "...)
				x = ai32(x, it.e.st.cep)
				x = append(x, ") since it is already the leader for the partition."...)
				b.sc.end(x)
			}
			g.markLocal(b, it)
		}
	}
	if len(followers) > 0 {
		for _, i := range followers {
			it := &items[i]
			p := it.e.p
			t += g.rnT.stepMs(4)
			leo := p.hw
			if it.wasLead {
				leo = p.prevLEO
			}
			x := g.scBroker(b, t, lvINFO)
			x = append(x, "Follower "...)
			x = append(x, p.name...)
			x = append(x, " starts at leader epoch "...)
			x = ai32(x, it.e.st.epoch)
			x = append(x, " from offset "...)
			x = ai(x, leo)
			x = append(x, " with high watermark "...)
			x = ai(x, p.hw)
			x = append(x, ". Previous leader epoch was "...)
			x = ai32(x, it.prevEp)
			x = append(x, '.')
			b.sc.end(x)
			it.e.el.phase(b.id, "follower", PhEpochStart, t)
			g.deposed(b, it, t)
			g.markLocal(b, it)
		}
		t += g.rnT.stepMs(6)
		g.removedFetcher(b, t, items, followers, setMutable)
		x := g.scBroker(b, t, lvINFO)
		x = append(x, "Stopped fetchers as part of become-follower request from controller "...)
		x = ai32(x, K)
		x = append(x, " epoch "...)
		x = ai32(x, E)
		x = append(x, " with correlation id "...)
		x = ai32(x, corr)
		x = append(x, " for "...)
		x = ai(x, int64(len(followers)))
		x = append(x, " partitions"...)
		b.sc.end(x)
		for _, i := range followers {
			items[i].e.el.phase(b.id, "follower", PhStoppedFetchers, t)
		}
		t += g.rnT.stepMs(6)
		g.addedFetcher(b, t, items, followers)
		g.fetcherTruncation(b, t, items, followers)
	}
	t += g.rnT.stepMs(6)
	x = g.scBroker(b, t, lvINFO)
	x = append(x, "Finished LeaderAndIsr request in "...)
	x = ai(x, t-t0)
	x = append(x, "ms correlationId "...)
	x = ai32(x, corr)
	x = append(x, " from controller "...)
	x = ai32(x, K)
	x = append(x, " for "...)
	x = ai(x, int64(len(items)))
	x = append(x, " partitions"...)
	b.sc.end(x)
	for i := range items {
		items[i].e.el.phase(b.id, role(b.id, items[i].e.st.leader), PhFinished, t)
	}
	return t + 1
}

// zkDeliverUM handles an UpdateMetadata request on a broker.
func (g *generator) zkDeliverUM(b *broker, corr int32, entries []zkEntry, arrive int64) {
	t := b.slot(arrive)
	K, E := g.ctl, g.ctlEpoch
	switch g.era {
	case Era010:
		for _, e := range entries {
			x := g.scBroker(b, t, lvTRACE)
			x = append(x, "cached leader info "...)
			x = appendPSI010(x, &e.st, e.p.replicas)
			x = append(x, " for partition "...)
			x = append(x, e.p.name...)
			x = append(x, " in response to UpdateMetadata request sent by controller "...)
			x = ai32(x, K)
			x = append(x, " epoch "...)
			x = ai32(x, E)
			x = append(x, " with correlation id "...)
			x = ai32(x, corr)
			b.sc.end(x)
			e.el.phase(b.id, role(b.id, e.st.leader), PhCached, t)
			t += g.rnT.stepMs(2) / 2
		}
	case Era2xTrace:
		off := g.offlineReplicasCache()
		for _, e := range entries {
			x := g.scBroker(b, t, lvTRACE)
			x = append(x, "Cached leader info "...)
			x = appendUmPS23(x, &e.st, e.p.replicas, off(e.p))
			x = append(x, " for partition "...)
			x = append(x, e.p.name...)
			x = append(x, " in response to UpdateMetadata request sent by controller "...)
			x = ai32(x, K)
			x = append(x, " epoch "...)
			x = ai32(x, E)
			x = append(x, " with correlation id "...)
			x = ai32(x, corr)
			b.sc.end(x)
			e.el.phase(b.id, role(b.id, e.st.leader), PhCached, t)
			t += g.rnT.stepMs(2) / 2
		}
	default:
		t += g.rnT.stepMs(3)
		x := g.scBroker(b, t, lvINFO)
		x = append(x, "Add "...)
		x = ai(x, int64(len(entries)))
		x = append(x, " partitions and deleted 0 partitions from metadata cache in response to UpdateMetadata request sent by controller "...)
		x = ai32(x, K)
		x = append(x, " epoch "...)
		x = ai32(x, E)
		x = append(x, " with correlation id "...)
		x = ai32(x, corr)
		b.sc.end(x)
		for _, e := range entries {
			// a request-level line: attributed only to elections whose
			// LeaderAndIsr this broker handled
			if e.el != nil && e.el.phaseTime(b.id, PhHandling) != 0 {
				e.el.phase(b.id, role(b.id, e.st.leader), PhCached, t)
			}
		}
	}
	b.busy = t
}

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
			switch strat {
			case stratOffline:
				g.ctlOther(t, lvDEBUG, lgOfflineSel, "[OfflinePartitionLeaderSelector]: ", "Some broker in ISR is alive for "+pn+". Select "+itoa(p.leader)+" from ISR "+string(appendInts(nil, p.isr, ","))+" to be the leader.")
				g.ctlOther(t, lvINFO, lgOfflineSel, "[OfflinePartitionLeaderSelector]: ", "Selected new leader and ISR "+string(appendLeaderAndIsr(nil, g.era, &st))+" for offline partition "+pn)
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

func stopItems(ps []*part) []lisrItem {
	out := make([]lisrItem, len(ps))
	for i, p := range ps {
		out[i].e.p = p
	}
	return out
}

func seqIdx(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
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
