package gen

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

// start time of the next request on a broker's request channel
func (b *broker) slot(arrive int64) int64 {
	if arrive <= b.busy {
		return b.busy + 1
	}
	return arrive
}

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
			// a request-level line, but the controller's "Sending
			// UpdateMetadata request to brokers ... for N partitions" says
			// which partitions it carries: every broker it names cached them
			if e.el != nil {
				e.el.phase(b.id, role(b.id, e.st.leader), PhCached, t)
			}
		}
	}
	b.busy = t
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
