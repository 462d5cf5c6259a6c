package gen

import (
	"math"
	"strconv"
)

// KRaft mode (Kafka 3.9): a dedicated controller quorum
// (controller-<id>/controller.log, ids 3000..) decides; brokers apply
// metadata deltas and write state-change.log lines (ReplicaManager.applyDelta,
// Partition.makeLeader/makeFollower) and fetcher/log lines to server.log.
// Leader epochs change only when the leader changes: ISR changes bump the
// partition epoch only (metadata.version >= 3.6), which brokers log as
// "Skipped the become-leader/follower state change ...".

const (
	lgQC  = "org.apache.kafka.controller.QuorumController"
	lgRCM = "org.apache.kafka.controller.ReplicationControlManager"
	lgCCM = "org.apache.kafka.controller.ClusterControlManager"
	lgBHM = "org.apache.kafka.controller.BrokerHeartbeatManager"
)

type kcontroller struct {
	id  int32
	ctl *sink
}

type kraftState struct {
	ctls      []*kcontroller
	active    int32
	raftEpoch int32
	offset    int64 // metadata log offset
	clusterID string
	nextPID   int64
	dirID     map[int32]string
}

func (g *generator) kraftEpoch() int32 {
	if g.kc == nil {
		return 0
	}
	return g.kc.raftEpoch
}

func (g *generator) kraftSetup() error {
	kc := &kraftState{clusterID: g.r.uuid22(), dirID: map[int32]string{}}
	for i := 0; i < g.cfg.Controllers; i++ {
		id := int32(3000 + i)
		s, err := g.addSink("controller-" + strconv.Itoa(int(id)) + "/controller.log")
		if err != nil {
			return err
		}
		c := &kcontroller{id: id, ctl: s}
		kc.ctls = append(kc.ctls, c)
	}
	kc.active = kc.ctls[g.r.intn(len(kc.ctls))].id
	kc.raftEpoch = int32(g.r.between(3, 300))
	kc.offset = g.r.between(20_000, 900_000)
	kc.nextPID = g.r.between(1, 90) * 1000
	for _, b := range g.brokers {
		kc.dirID[b.id] = g.r.uuid22()
		b.ctl.noise = nil // broker-only nodes: controller.log stays empty
		b.ctl.noiseWeight = 0
	}
	g.kc = kc
	g.zkClusterID = kc.clusterID
	for _, c := range kc.ctls {
		ns := newNoiseSource(g, nil, nsKController)
		ns.cid = c.id
		ns.g = newRNG(g.cfg.Seed, "noise-controller-"+itoa(c.id))
		c.ctl.noise = ns
		c.ctl.noiseWeight = 1
	}
	return nil
}

func (g *generator) activeCtl() *kcontroller {
	for _, c := range g.kc.ctls {
		if c.id == g.kc.active {
			return c
		}
	}
	return g.kc.ctls[0]
}

// qc writes a controller line with the [QuorumController id=N] prefix.
func (g *generator) qc(c *kcontroller, t int64, lv level, logger, msg string) {
	x := c.ctl.begin(t, lv, logger)
	x = append(x, "[QuorumController id="...)
	x = ai32(x, c.id)
	x = append(x, "] "...)
	x = append(x, msg...)
	c.ctl.end(x)
}

func (g *generator) qa(t int64, lv level, logger, msg string) {
	g.qc(g.activeCtl(), t, lv, logger, msg)
}

// kraftBecomeActive writes the Raft leader change seen by every controller.
func (g *generator) kraftBecomeActive(t int64, id int32) int64 {
	kc := g.kc
	old := kc.active
	oldEpoch := kc.raftEpoch
	kc.raftEpoch++
	if old != id && t > g.cfg.Start.UnixMilli()+1000 {
		for _, c := range kc.ctls {
			if c.id == old {
				g.qc(c, t, lvWARN, lgQC, "Renouncing the leadership due to a metadata log event. We were the leader at epoch "+itoa(oldEpoch)+", but in the new epoch "+itoa(kc.raftEpoch)+", the leader is (none). Reverting to last stable offset "+strconv.FormatInt(kc.offset, 10)+".")
			}
		}
	}
	for _, c := range kc.ctls {
		if c.id != id {
			g.qc(c, t, lvINFO, lgQC, "In the new epoch "+itoa(kc.raftEpoch)+", the leader is (none).")
		}
	}
	t += g.rnT.between(200, 1500)
	kc.active = id
	kc.offset += g.rnT.between(1, 20)
	for _, c := range kc.ctls {
		if c.id != id {
			g.qc(c, t, lvINFO, lgQC, "In the new epoch "+itoa(kc.raftEpoch)+", the leader is "+itoa(id)+".")
		}
	}
	c := g.activeCtl()
	g.qc(c, t, lvINFO, lgQC, "Becoming the active controller at epoch "+itoa(kc.raftEpoch)+", next write offset "+strconv.FormatInt(kc.offset+1, 10)+".")
	g.qc(c, t, lvWARN, lgQC, "Performing controller activation. Loaded ZK migration state of NONE. This is expected because this is a de-novo KRaft cluster.")
	return t + g.rnT.between(5, 50)
}

func (g *generator) regChange(t int64, b *broker, fenced, cs int) {
	g.qa(t, lvINFO, lgCCM, "Replayed BrokerRegistrationChangeRecord modifying the registration for broker "+itoa(b.id)+": BrokerRegistrationChangeRecord(brokerId="+itoa(b.id)+", brokerEpoch="+strconv.FormatInt(b.kraftEpoch, 10)+", fenced="+strconv.Itoa(fenced)+", inControlledShutdown="+strconv.Itoa(cs)+", logDirs=[])")
}

// kraftBaseline: controllers elect a leader, brokers start, register, load
// the metadata image (learning every partition's leader and epoch) and are
// unfenced. No leader epoch changes.
func (g *generator) kraftBaseline(start int64) {
	kc := g.kc
	for _, p := range g.parts {
		p.lastT = start
	}
	t := g.kraftBecomeActive(start+g.rnT.between(500, 3000), kc.active)
	for _, b := range g.brokers {
		t += g.rnT.between(500, 2000)
		b.upAt = math.MaxInt64
		g.kraftBrokerStart(b, t)
	}
	g.schedule(t+g.rnT.between(60_000, 180_000), evChaos, 0)
	g.scheduleNone(t)
}

// kraftBrokerStart: registration, initial metadata load, unfencing.
func (g *generator) kraftBrokerStart(b *broker, t int64) int64 {
	kc := g.kc
	srv := func(tt int64, logger, prefix, msg string) {
		x := b.srv.begin(tt, lvINFO, logger)
		x = append(x, prefix...)
		x = append(x, msg...)
		b.srv.end(x)
	}
	bs := "[BrokerServer id=" + itoa(b.id) + "] "
	blm := "[BrokerLifecycleManager id=" + itoa(b.id) + "] "
	g.kafkaConfigBlock(b, t)
	srv(t, "kafka.server.BrokerServer", bs, "Transition from SHUTDOWN to STARTING")
	srv(t, "kafka.server.BrokerServer", bs, "Starting broker")
	t += g.rnT.between(100, 900)
	newInc := g.r.uuid22()
	srv(t, "kafka.server.BrokerLifecycleManager", blm, "Incarnation "+newInc+" of broker "+itoa(b.id)+" in cluster "+kc.clusterID+" is now STARTING.")
	t += g.rnT.between(20, 300)
	kc.offset += g.rnT.between(1, 30)
	b.kraftEpoch = kc.offset
	g.qa(t, lvINFO, lgCCM, "Registering a new incarnation of broker "+itoa(b.id)+". Previous incarnation ID was "+b.incarnation+"; new incarnation ID is "+newInc+". Generated 0 record(s) to clean up previous incarnations. Broker epoch will become "+strconv.FormatInt(b.kraftEpoch, 10)+".")
	b.incarnation = newInc
	t += g.rnT.between(5, 40)
	srv(t, "kafka.server.BrokerLifecycleManager", blm, "Successfully registered broker "+itoa(b.id)+" with broker epoch "+strconv.FormatInt(b.kraftEpoch, 10))
	t += g.rnT.between(100, 1200)
	srv(t, "kafka.server.BrokerLifecycleManager", blm, "The broker has caught up. Transitioning from STARTING to RECOVERY.")
	// initial metadata image: every hosted partition
	var items []kItem
	for _, p := range g.parts {
		if p.isReplica(b.id) {
			items = append(items, kItem{p: p, fresh: true})
		}
	}
	t = g.kraftApply(b, t+g.rnT.between(1, 20), items)
	t += g.rnT.between(200, 2000)
	g.qa(t, lvINFO, lgBHM, "The request from broker "+itoa(b.id)+" to unfence has been granted because it has caught up with the offset of its register broker record "+strconv.FormatInt(b.kraftEpoch, 10)+".")
	g.regChange(t, b, -1, 0)
	t += g.rnT.between(5, 400)
	srv(t, "kafka.server.BrokerLifecycleManager", blm, "The broker has been unfenced. Transitioning from RECOVERY to RUNNING.")
	t += g.rnT.between(5, 200)
	srv(t, "kafka.server.BrokerServer", bs, "Transition from STARTING to STARTED")
	x := b.srv.begin(t, lvINFO, "kafka.server.KafkaRaftServer")
	x = append(x, "Kafka Server started"...)
	b.srv.end(x)
	b.upAt = t + 1
	return t
}

// kItem is one partition in a metadata delta as seen by one broker.
type kItem struct {
	p     *part
	el    *Election
	fresh bool // the broker creates the Partition object now
	isNew bool // brand-new partition
}

// kraftApply is ReplicaManager.applyDelta for one broker.
func (g *generator) kraftApply(b *broker, t int64, items []kItem) int64 {
	var leaders, followers []kItem
	for _, it := range items {
		if it.p.leader == b.id {
			leaders = append(leaders, it)
		} else {
			followers = append(followers, it)
		}
	}
	sc := func(tt int64, msg ...string) {
		x := b.sc.begin(tt, lvINFO, lgSC)
		x = append(x, "[Broker id="...)
		x = ai32(x, b.id)
		x = append(x, "] "...)
		for _, m := range msg {
			x = append(x, m...)
		}
		b.sc.end(x)
	}
	const minISR = 2 // min.insync.replicas in the broker config dump
	if len(leaders) > 0 {
		sc(t, "Transitioning ", strconv.Itoa(len(leaders)), " partition(s) to local leaders.")
		for _, it := range leaders {
			it.el.phase(b.id, "leader", PhHandling, t)
		}
		t += g.rnT.stepMs(4)
		ps := make([]*part, len(leaders))
		for i, it := range leaders {
			ps[i] = it.p
		}
		x := b.srv.begin(t, lvINFO, lgFetcherMgr)
		x = appendFetcherMgrPrefix(x, b.id)
		x = append(x, "Removed fetcher for partitions "...)
		x = appendNameSet(x, g.era, ps, setKeySet)
		b.srv.end(x)
		for _, it := range leaders {
			p := it.p
			lv := &b.local[p.gidx]
			t += g.rnT.stepMs(5)
			if it.fresh || it.isNew {
				sc(t, "Creating new partition ", p.name, " with topic id ", p.t.id, ".")
			}
			if !lv.known || p.epoch > lv.epoch {
				prev := "None"
				if lv.known && lv.leader >= 0 {
					prev = "Some(" + itoa(lv.leader) + ")"
				}
				under := ""
				if len(p.isr) < minISR {
					under = "(under-min-isr)"
				}
				m := make([]byte, 0, 256)
				m = append(m, "Leader "...)
				m = append(m, p.name...)
				m = append(m, " with topic id Some("...)
				m = append(m, p.t.id...)
				m = append(m, ") starts at leader epoch "...)
				m = ai32(m, p.epoch)
				m = append(m, " from offset "...)
				m = ai(m, p.leo)
				m = append(m, " with partition epoch "...)
				m = ai32(m, p.zkv)
				m = append(m, ", high watermark "...)
				m = ai(m, p.hw)
				m = append(m, ", ISR ["...)
				m = appendInts(m, p.isr, ",")
				m = append(m, "], adding replicas [] and removing replicas [] "...)
				m = append(m, under...)
				m = append(m, ". Previous leader "...)
				m = append(m, prev...)
				m = append(m, " and previous leader epoch was "...)
				m = ai32(m, lv.epoch)
				m = append(m, '.')
				sc(t, string(m))
				it.el.phase(b.id, "leader", PhEpochStart, t)
			} else {
				sc(t, "Skipped the become-leader state change for ", p.name, " with topic id Some(", p.t.id, ") and partition state ", string(g.lisrPartitionState(nil, p)), " since it is already the leader with leader epoch ", itoa(lv.epoch), ". Current high watermark ", strconv.FormatInt(p.hw, 10), ", ISR [", string(appendInts(nil, p.isr, ",")), "], adding replicas [] and removing replicas [].")
			}
			lv.known, lv.leader, lv.epoch = true, b.id, p.epoch
		}
	}
	if len(followers) > 0 {
		t += g.rnT.stepMs(5)
		sc(t, "Transitioning ", strconv.Itoa(len(followers)), " partition(s) to local followers.")
		for _, it := range followers {
			it.el.phase(b.id, "follower", PhHandling, t)
		}
		var start, stop []lisrItem
		for _, it := range followers {
			p := it.p
			lv := &b.local[p.gidx]
			t += g.rnT.stepMs(4)
			if it.fresh || it.isNew {
				sc(t, "Creating new partition ", p.name, " with topic id ", p.t.id, ".")
			}
			wasLead := lv.known && lv.leader == b.id
			prevEp := lv.epoch
			newEpoch := !lv.known || p.epoch > lv.epoch
			if newEpoch {
				leo := p.hw
				if wasLead {
					leo = p.prevLEO
				}
				// the printed "previous" values are the new ones (formats §10)
				sc(t, "Follower ", p.name, " starts at leader epoch ", itoa(p.epoch), " from offset ", strconv.FormatInt(leo, 10), " with partition epoch ", itoa(p.zkv), " and high watermark ", strconv.FormatInt(p.hw, 10), ". Current leader is ", itoa(p.leader), ". Previous leader Some(", itoa(p.leader), ") and previous leader epoch was ", itoa(p.epoch), ".")
				it.el.phase(b.id, "follower", PhEpochStart, t)
				if wasLead && it.el != nil && it.el.deposedAt == 0 {
					it.el.deposedAt = t
				}
			} else {
				sc(t, "Skipped the become-follower state change for ", p.name, " with topic id Some(", p.t.id, ") and partition state ", string(g.lisrPartitionState(nil, p)), " since it is already a follower with leader epoch ", itoa(lv.epoch), ".")
			}
			lv.known, lv.leader, lv.epoch = true, p.leader, p.epoch
			li := lisrItem{e: zkEntry{p: p, st: zkState{leader: p.leader, epoch: p.epoch, isr: p.isr}, el: it.el}, wasLead: wasLead, prevEp: prevEp}
			if b.shuttingDown && (p.leader < 0 || !p.inISR(b.id)) {
				stop = append(stop, li)
			} else if newEpoch {
				start = append(start, li)
			}
		}
		if len(start) > 0 {
			t += g.rnT.stepMs(6)
			g.removedFetcher(b, t, start, seqIdx(len(start)), setKeySet)
			sc(t, "Stopped fetchers as part of become-follower for ", strconv.Itoa(len(start)), " partitions")
			for _, li := range start {
				li.e.el.phase(b.id, "follower", PhStoppedFetchers, t)
			}
			t += g.rnT.stepMs(8)
			g.addedFetcher(b, t, start, seqIdx(len(start)))
			sc(t, "Started fetchers as part of become-follower for ", strconv.Itoa(len(start)), " partitions")
			for _, li := range start {
				li.e.el.phase(b.id, "follower", PhStartedFetcher, t)
			}
			g.fetcherTruncation(b, t, start, seqIdx(len(start)))
			g.restartTruncation(b, t, start, followers)
		}
		if len(stop) > 0 {
			t += g.rnT.stepMs(10)
			g.removedFetcher(b, t, stop, seqIdx(len(stop)), setKeySet)
			sc(t, "Stopped fetchers as part of controlled shutdown for ", strconv.Itoa(len(stop)), " partitions")
			for _, li := range stop {
				li.e.el.phase(b.id, "follower", PhStoppedFetchers, t)
			}
		}
	}
	return t + 1
}

// restartTruncation: a freshly started follower truncates to its high
// watermark before fetching (server.log, no election).
func (g *generator) restartTruncation(b *broker, t int64, start []lisrItem, followers []kItem) {
	if len(followers) == 0 || !followers[0].fresh {
		return
	}
	for _, li := range start {
		p := li.e.p
		tt := t + g.rnT.between(1, 20)
		x := b.srv.begin(tt, lvINFO, lgFetcher)
		x = append(x, "[ReplicaFetcher replicaId="...)
		x = ai32(x, b.id)
		x = append(x, ", leaderId="...)
		x = ai32(x, p.leader)
		x = append(x, ", fetcherId=0] Truncating partition "...)
		x = append(x, p.name...)
		x = append(x, " with TruncationState(offset="...)
		x = ai(x, p.hw)
		x = append(x, ", completed=true) due to local high watermark "...)
		x = ai(x, p.hw)
		b.srv.end(x)
		x = b.srv.begin(tt, lvINFO, lgUnifiedLog)
		x = append(x, "[UnifiedLog partition="...)
		x = append(x, p.name...)
		x = append(x, ", dir="...)
		x = append(x, logDir...)
		x = append(x, "] Truncating to "...)
		x = ai(x, p.hw)
		x = append(x, " has no effect as the largest offset in the log is "...)
		x = ai(x, p.hw-1)
		b.srv.end(x)
	}
}

// lisrPartitionState renders LeaderAndIsrPartitionState as built from
// KRaft metadata (controllerEpoch=-1).
func (g *generator) lisrPartitionState(x []byte, p *part) []byte {
	x = append(x, "LeaderAndIsrPartitionState(topicName='"...)
	x = append(x, p.t.name...)
	x = append(x, "', partitionIndex="...)
	x = ai32(x, p.idx)
	x = append(x, ", controllerEpoch=-1, leader="...)
	x = ai32(x, p.leader)
	x = append(x, ", leaderEpoch="...)
	x = ai32(x, p.epoch)
	x = append(x, ", isr=["...)
	x = appendInts(x, p.isr, ", ")
	x = append(x, "], partitionEpoch="...)
	x = ai32(x, p.zkv)
	x = append(x, ", replicas=["...)
	x = appendInts(x, p.replicas, ", ")
	return append(x, "], addingReplicas=[], removingReplicas=[], isNew=false, leaderRecoveryState=0)"...)
}

// kraftDeliver publishes a metadata delta to every live broker hosting a
// changed partition.
func (g *generator) kraftDeliver(t int64, changed []kItem) int64 {
	last := t
	for _, b := range g.brokers {
		if !b.alive {
			continue
		}
		var mine []kItem
		for _, it := range changed {
			if it.p.isReplica(b.id) {
				mine = append(mine, it)
			}
		}
		if len(mine) == 0 {
			continue
		}
		tt := b.slot(t + g.rnT.between(2, 30))
		tt = g.kraftApply(b, tt, mine)
		b.busy = tt
		if tt > last {
			last = tt
		}
	}
	return last
}

// kraftRemoveBroker elects new leaders for partitions led by x and removes
// x from every ISR (handleBrokerFenced / enterControlledShutdown).
func (g *generator) kraftRemoveBroker(t int64, x int32, cause string) []kItem {
	var changed []kItem
	for _, p := range g.parts {
		if !p.inISR(x) {
			continue
		}
		p.advanceOffsets(t)
		newISR := p.isr
		if len(p.isr) > 1 {
			newISR = without(p.isr, x)
		}
		var el *Election
		if p.leader == x {
			leader := int32(-1)
			for _, r := range p.replicas {
				if containsID(newISR, r) && r != x && g.broker(r).alive && !g.broker(r).shuttingDown {
					leader = r
					break
				}
			}
			if leader < 0 {
				continue
			}
			prev := p.leader
			g.moveLeader(p)
			p.leader = leader
			p.epoch++
			el = g.newElection(p, leader, prev, g.kc.active, -1, cause, t)
			el.alive = g.broker(prev).alive
		} else if len(p.isr) == len(newISR) {
			continue
		}
		p.isr = newISR
		if el != nil {
			el.isr = cloneIDs(newISR)
		}
		p.zkv++
		changed = append(changed, kItem{p: p, el: el})
	}
	return changed
}

func (g *generator) kraftChaos(t int64) {
	kc := g.kc
	if g.r.chance(0.10) && len(g.liveBrokers()) == len(g.brokers) {
		g.kraftNewTopic(t)
		g.schedule(t+g.rnT.between(60_000, 240_000), evChaos, 0)
		return
	}
	if g.r.chance(0.08) && len(kc.ctls) > 1 {
		// controller quorum leader change; no partition leadership moves
		var others []int32
		for _, c := range kc.ctls {
			if c.id != kc.active {
				others = append(others, c.id)
			}
		}
		g.kraftBecomeActive(t, others[g.r.intn(len(others))])
		g.schedule(t+g.rnT.between(30_000, 120_000), evChaos, 0)
		return
	}
	x := g.pickVictim()
	if x < 0 {
		g.schedule(t+60_000, evChaos, 0)
		return
	}
	b := g.broker(x)
	var down int64
	if g.r.chance(0.55) {
		// controlled shutdown
		bs := "[BrokerServer id=" + itoa(x) + "] "
		blm := "[BrokerLifecycleManager id=" + itoa(x) + "] "
		g.kline(b, t, "kafka.server.BrokerServer", bs+"Transition from STARTED to SHUTTING_DOWN")
		g.kline(b, t, "kafka.server.BrokerServer", bs+"shutting down")
		g.kline(b, t+1, "kafka.server.BrokerLifecycleManager", blm+"Beginning controlled shutdown.")
		tc := t + g.rnT.between(20, 1800)
		b.shuttingDown = true
		g.qa(tc, lvINFO, lgBHM, "Unfenced broker "+itoa(x)+" has requested and been granted a controlled shutdown.")
		changed := g.kraftRemoveBroker(tc, x, CauseControlledShutdown)
		if len(changed) > 0 {
			g.qa(tc, lvINFO, lgRCM, "enterControlledShutdown["+itoa(x)+"]: changing "+strconv.Itoa(len(changed))+" partition(s)")
		}
		g.regChange(tc, b, 0, 1)
		kc.offset += int64(len(changed)) + 1
		last := g.kraftDeliver(tc+1, changed)
		tg := last + g.rnT.between(50, 600)
		g.qa(tg, lvINFO, lgBHM, "The request from broker "+itoa(x)+" to shut down has been granted since the lowest active offset 9223372036854775807 is now greater than the broker's controlled shutdown offset "+strconv.FormatInt(kc.offset, 10)+".")
		g.regChange(tg, b, 1, 0)
		tb := tg + g.rnT.between(5, 300)
		g.kline(b, tb, "kafka.server.BrokerLifecycleManager", blm+"The controller has asked us to exit controlled shutdown.")
		g.kline(b, tb, "kafka.server.BrokerLifecycleManager", blm+"Transitioning from PENDING_CONTROLLED_SHUTDOWN to SHUTTING_DOWN.")
		tb += g.rnT.between(500, 3000)
		g.kline(b, tb, "kafka.server.BrokerServer", bs+"shut down completed")
		b.alive = false
		b.shuttingDown = false
		b.downAt = tb + 1
		g.prodBrokerDown(tb, x)
		down = tb
	} else {
		b.alive = false
		b.downAt = t
		g.prodBrokerDown(t, x)
		tf := t + g.rnT.between(9_000, 11_000)
		g.qa(tf, lvINFO, lgRCM, "Fencing broker "+itoa(x)+" because its session has timed out.")
		changed := g.kraftRemoveBroker(tf, x, CauseBrokerFailure)
		if len(changed) > 0 {
			g.qa(tf, lvINFO, lgRCM, "handleBrokerFenced: changing "+strconv.Itoa(len(changed))+" partition(s)")
		}
		g.regChange(tf+g.rnT.between(0, 3), b, 1, 0)
		kc.offset += int64(len(changed)) + 1
		down = g.kraftDeliver(tf+1, changed)
	}
	g.schedule(down+g.rnT.between(30_000, 200_000), evRestart, x)
}

func (g *generator) kline(b *broker, t int64, logger, msg string) {
	x := b.srv.begin(t, lvINFO, logger)
	x = append(x, msg...)
	b.srv.end(x)
}

func (g *generator) kraftRestart(t int64, x int32) {
	b := g.broker(x)
	b.alive = true
	b.upAt = math.MaxInt64
	b.downAt = math.MaxInt64
	b.resetLocal()
	b.busy = 0
	g.prodBrokerUp(t, x)
	tt := g.kraftBrokerStart(b, t)
	// catch-up: leaders add x back to their ISR (partition epoch only)
	ti := tt + g.rnT.between(500, 5000)
	var changed []kItem
	for _, p := range g.parts {
		if !p.isReplica(x) || p.inISR(x) || p.leader == x {
			continue
		}
		lb := g.broker(p.leader)
		if !lb.alive {
			continue
		}
		p.advanceOffsets(ti)
		p.isr = append(p.isr, x)
		p.zkv++
		m := lb.srv.begin(ti+g.rnT.between(0, 40), lvINFO, lgPartition)
		m = g.partitionPrefix(m, p, lb.id)
		m = append(m, "ISR updated to "...)
		m = appendInts(m, p.isr, ",")
		m = append(m, "  and version updated to "...)
		m = ai32(m, p.zkv)
		lb.srv.end(m)
		changed = append(changed, kItem{p: p})
	}
	g.kc.offset += int64(len(changed))
	g.kraftDeliver(ti+g.rnT.between(45, 90), changed)
	g.schedule(tt+g.rnT.between(290_000, 310_000), evKBalance, 0)
}

// kraftBalance is the controller's preferred-leader balancing
// (maybeBalancePartitionLeaders, leader.imbalance.check.interval.seconds).
func (g *generator) kraftBalance(t int64) {
	var changed []kItem
	for _, p := range g.parts {
		pref := p.replicas[0]
		if p.leader == pref || !p.inISR(pref) || !g.broker(pref).alive {
			continue
		}
		p.advanceOffsets(t)
		prev := p.leader
		g.moveLeader(p)
		p.leader = pref
		p.epoch++
		p.zkv++
		el := g.newElection(p, pref, prev, g.kc.active, -1, CausePreferredElection, t)
		el.alive = g.broker(prev).alive
		changed = append(changed, kItem{p: p, el: el})
	}
	g.qa(t, lvINFO, lgQC, "maybeBalancePartitionLeaders: generated "+strconv.Itoa(len(changed))+" records in "+strconv.FormatInt(g.rnT.between(80, 3000), 10)+" microseconds.")
	g.kc.offset += int64(len(changed))
	g.kraftDeliver(t+1, changed)
	g.schedule(t+g.rnT.between(60_000, 500_000), evChaos, 0)
}

func (g *generator) kraftNewTopic(t int64) {
	kc := g.kc
	name := g.newTopicName()
	n := g.cfg.Partitions
	nb := int32(len(g.brokers))
	rf := len(g.parts[len(g.parts)-1].replicas)
	tp := &topic{name: name, id: g.r.uuid22()}
	g.qa(t, lvINFO, lgRCM, "CreateTopics result(s): CreatableTopic(name='"+name+"', numPartitions="+strconv.Itoa(n)+", replicationFactor="+strconv.Itoa(rf)+", assignments=[], configs=[]): SUCCESS")
	g.qa(t, lvINFO, lgRCM, "Replayed TopicRecord for topic "+name+" with topic ID "+tp.id+".")
	start := int32(g.r.intn(int(nb)))
	var changed []kItem
	for i := 0; i < n; i++ {
		p := &part{t: tp, idx: int32(i), gidx: len(g.parts)}
		p.name = name + "-" + strconv.Itoa(i)
		p.bname = "[" + name + "," + strconv.Itoa(i) + "]"
		first := (start + int32(i)) % nb
		p.replicas = append(p.replicas, first+1)
		for j := 1; j < rf; j++ {
			p.replicas = append(p.replicas, (first+int32(j))%nb+1)
		}
		p.isr = nil
		for _, r := range p.replicas {
			if g.broker(r).alive {
				p.isr = append(p.isr, r)
			}
		}
		p.leader = p.isr[0]
		p.epoch, p.zkv = 0, 0
		p.rate = float64(g.r.between(5, 300)) / 1000.0
		p.lastT = t
		tp.parts = append(tp.parts, p)
		g.parts = append(g.parts, p)
		for _, b := range g.brokers {
			b.local = append(b.local, localView{leader: -1, epoch: -1})
		}
		var dirs []byte
		for k, r := range p.replicas {
			if k > 0 {
				dirs = append(dirs, ", "...)
			}
			dirs = append(dirs, kc.dirID[r]...)
		}
		el := g.newElection(p, p.leader, -1, kc.active, -1, CauseNewPartition, t)
		g.qa(t, lvINFO, lgRCM, "Replayed PartitionRecord for new partition "+p.name+" with topic ID "+tp.id+" and PartitionRegistration(replicas=["+string(appendInts(nil, p.replicas, ", "))+"], directories=["+string(dirs)+"], isr=["+string(appendInts(nil, p.isr, ", "))+"], removingReplicas=[], addingReplicas=[], elr=[], lastKnownElr=[], leader="+itoa(p.leader)+", leaderRecoveryState=RECOVERED, leaderEpoch=0, partitionEpoch=0).")
		changed = append(changed, kItem{p: p, el: el, isNew: true})
	}
	g.topics = append(g.topics, tp)
	kc.offset += int64(n) + 1
	// brokers create the logs while applying the delta
	for _, it := range changed {
		for _, r := range it.p.replicas {
			b := g.broker(r)
			if !b.alive {
				continue
			}
			x := b.srv.begin(t+g.rnT.between(3, 30), lvINFO, lgLogManager)
			x = append(x, "Created log for partition "...)
			x = append(x, it.p.name...)
			x = append(x, " in "...)
			x = append(x, logDir...)
			x = append(x, '/')
			x = append(x, it.p.name...)
			x = append(x, " with properties {}"...)
			b.srv.end(x)
		}
	}
	g.kraftDeliver(t+1, changed)
	g.prodAddTopic(tp)
}
