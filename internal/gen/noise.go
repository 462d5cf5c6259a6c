package gen

import (
	"strconv"
	"time"
)

// Unrelated lines ("noise") that real server.log / controller.log /
// application logs carry between leadership events. Texts are the Kafka
// source strings of the era's version (log segment rolls and retention,
// producer snapshots, group coordinator rebalances, offset expiry, the log
// cleaner with its multi-line statistics, replica fetcher errors with stack
// traces, request handler errors with "Caused by:", ZooKeeper client
// reconnects, KRaft snapshots).

const (
	nsServer = iota
	nsController
	nsProducer
	nsKController
)

type noiseSource struct {
	gen  *generator
	b    *broker
	p    *producer
	kind int
	cid  int32 // KRaft controller id of a controller.log
	upAt int64 // producers: no unrelated lines before the application started
	g    *rng
	fam  []func(s *sink, ts int64)
	w    []int
}

func newNoiseSource(gen *generator, b *broker, kind int) *noiseSource {
	name := "noise"
	if b != nil {
		name += "-b" + strconv.Itoa(int(b.id))
	}
	name += "-" + strconv.Itoa(kind)
	ns := &noiseSource{gen: gen, b: b, kind: kind, g: newRNG(gen.cfg.Seed, name)}
	ns.setup()
	return ns
}

func (ns *noiseSource) add(w int, f func(s *sink, ts int64)) {
	ns.fam = append(ns.fam, f)
	ns.w = append(ns.w, w)
}

func (ns *noiseSource) emit(s *sink, ts int64) {
	ns.fam[ns.g.pick(ns.w)](s, ts)
}

func (ns *noiseSource) setup() {
	e := ns.gen.era
	switch ns.kind {
	case nsServer:
		ns.add(30, ns.logRoll)
		ns.add(12, ns.retention)
		ns.add(10, ns.segmentDeleted)
		if ns.gen.cfg.OffsetsPartitions > 0 {
			ns.add(10, ns.groupRebalance)
			ns.add(4, ns.memberFailed)
			ns.add(5, ns.expiredOffsets)
			ns.add(4, ns.logCleaner)
		}
		ns.add(3, ns.fetcherError)
		ns.add(1, ns.requestHandlerError)
		if e == Era2xTrace || e == Era26Info {
			ns.add(2, ns.zkReconnect)
		}
		if e == EraKRaft {
			ns.add(2, ns.kraftSnapshot)
		}
	case nsController:
		ns.add(1, ns.controllerConnected)
	case nsKController:
		ns.add(3, ns.producerIds)
		ns.add(1, ns.kraftSnapshot)
	case nsProducer:
		ns.add(10, ns.appLine)
		ns.add(2, ns.appWarn)
	}
}

// partition helpers ----------------------------------------------------

func (ns *noiseSource) hostedPart() *part {
	ps := ns.gen.parts
	for i := 0; i < 8; i++ {
		p := ps[ns.g.intn(len(ps))]
		if ns.b == nil || p.isReplica(ns.b.id) {
			return p
		}
	}
	return ps[ns.g.intn(len(ps))]
}

func (ns *noiseSource) offsetsPartLed() *part {
	var t *topic
	for _, x := range ns.gen.topics {
		if x.name == "__consumer_offsets" {
			t = x
			break
		}
	}
	if t == nil {
		return nil
	}
	for i := 0; i < 10; i++ {
		p := t.parts[ns.g.intn(len(t.parts))]
		if ns.b == nil || p.leader == ns.b.id {
			return p
		}
	}
	return nil
}

func (ns *noiseSource) logPrefix(x []byte, p *part, unified bool) []byte {
	switch {
	case ns.gen.era == EraKRaft && unified:
		x = append(x, "[UnifiedLog partition="...)
	case ns.gen.era == EraKRaft:
		x = append(x, "[LocalLog partition="...)
	default:
		x = append(x, "[Log partition="...)
	}
	x = append(x, p.name...)
	x = append(x, ", dir="...)
	x = append(x, logDir...)
	return append(x, "] "...)
}

func appendSegFile(x []byte, p *part, base int64, ext string) []byte {
	x = append(x, logDir...)
	x = append(x, '/')
	x = append(x, p.name...)
	x = append(x, '/')
	s := strconv.FormatInt(base, 10)
	for i := len(s); i < 20; i++ {
		x = append(x, '0')
	}
	x = append(x, s...)
	return append(x, ext...)
}

// families --------------------------------------------------------------

func (ns *noiseSource) logRoll(s *sink, ts int64) {
	p := ns.hostedPart()
	off := p.leo - ns.g.between(0, 5000)
	if off < 0 {
		off = 0
	}
	ms := ns.g.between(0, 3)
	switch ns.gen.era {
	case Era010:
		x := s.begin(ts, lvINFO, lgLog)
		x = append(x, "Rolled new log segment for '"...)
		x = append(x, p.name...)
		x = append(x, "' in "...)
		x = ai(x, ms)
		x = append(x, " ms."...)
		s.end(x)
	case Era2xTrace, Era26Info:
		x := s.begin(ts, lvINFO, lgLog)
		x = ns.logPrefix(x, p, false)
		x = append(x, "Rolled new log segment at offset "...)
		x = ai(x, off)
		x = append(x, " in "...)
		x = ai(x, ms)
		x = append(x, " ms."...)
		s.end(x)
		x = s.begin(ts, lvINFO, "kafka.log.ProducerStateManager")
		x = append(x, "[ProducerStateManager partition="...)
		x = append(x, p.name...)
		x = append(x, "] Writing producer snapshot at offset "...)
		x = ai(x, off)
		s.end(x)
	default:
		x := s.begin(ts, lvINFO, "org.apache.kafka.storage.internals.log.ProducerStateManager")
		x = append(x, "[ProducerStateManager partition="...)
		x = append(x, p.name...)
		x = append(x, "] Wrote producer snapshot at offset "...)
		x = ai(x, off)
		x = append(x, " with "...)
		x = ai(x, ns.g.between(0, 4))
		x = append(x, " producer ids in "...)
		x = ai(x, ns.g.between(0, 6))
		x = append(x, " ms."...)
		s.end(x)
		x = s.begin(ts, lvINFO, "kafka.log.LocalLog")
		x = ns.logPrefix(x, p, false)
		x = append(x, "Rolled new log segment at offset "...)
		x = ai(x, off)
		x = append(x, " in "...)
		x = ai(x, ms)
		x = append(x, " ms."...)
		s.end(x)
	}
}

func (ns *noiseSource) segment(p *part) (base, size, mod, largest int64) {
	base = p.leo/3 - ns.g.between(0, 100000)
	if base < 0 {
		base = 0
	}
	size = ns.g.between(100_000, 1_073_741_000)
	mod = ns.gen.wStart - 7*24*3600*1000 - ns.g.between(0, 3600_000)
	largest = mod - ns.g.between(0, 5000)
	return
}

func (ns *noiseSource) retention(s *sink, ts int64) {
	p := ns.hostedPart()
	base, size, mod, largest := ns.segment(p)
	switch ns.gen.era {
	case Era010:
		x := s.begin(ts, lvINFO, lgLog)
		x = append(x, "Scheduling log segment "...)
		x = ai(x, base)
		x = append(x, " for log "...)
		x = append(x, p.name...)
		x = append(x, " for deletion."...)
		s.end(x)
	case Era2xTrace:
		x := s.begin(ts, lvINFO, lgLog)
		x = ns.logPrefix(x, p, false)
		x = append(x, "Found deletable segments with base offsets ["...)
		x = ai(x, base)
		x = append(x, "] due to retention time 604800000ms breach"...)
		s.end(x)
		x = s.begin(ts, lvINFO, lgLog)
		x = ns.logPrefix(x, p, false)
		x = append(x, "Scheduling log segment [baseOffset "...)
		x = ai(x, base)
		x = append(x, ", size "...)
		x = ai(x, size)
		x = append(x, "] for deletion."...)
		s.end(x)
		x = s.begin(ts, lvINFO, lgLog)
		x = ns.logPrefix(x, p, false)
		x = append(x, "Incrementing log start offset to "...)
		x = ai(x, base+ns.g.between(1000, 90000))
		s.end(x)
	case Era26Info:
		x := s.begin(ts, lvINFO, lgLog)
		x = ns.logPrefix(x, p, false)
		x = append(x, "Deleting segment LogSegment(baseOffset="...)
		x = ai(x, base)
		x = append(x, ", size="...)
		x = ai(x, size)
		x = append(x, ", lastModifiedTime="...)
		x = ai(x, mod)
		x = append(x, ", largestRecordTimestamp=Some("...)
		x = ai(x, largest)
		x = append(x, ")) due to retention time 604800000ms breach based on the largest record timestamp in the segment"...)
		s.end(x)
		x = s.begin(ts, lvINFO, lgLog)
		x = ns.logPrefix(x, p, false)
		x = append(x, "Incrementing log start offset to "...)
		x = ai(x, base+ns.g.between(1000, 90000))
		x = append(x, " due to SegmentDeletion"...)
		s.end(x)
	default:
		x := s.begin(ts, lvINFO, lgUnifiedLog)
		x = ns.logPrefix(x, p, true)
		x = append(x, "Deleting segment LogSegment(baseOffset="...)
		x = ai(x, base)
		x = append(x, ", size="...)
		x = ai(x, size)
		x = append(x, ", lastModifiedTime="...)
		x = ai(x, mod)
		x = append(x, ", largestRecordTimestamp="...)
		x = ai(x, largest)
		x = append(x, ") due to log retention time 604800000ms breach based on the largest record timestamp in the segment"...)
		s.end(x)
		x = s.begin(ts, lvINFO, lgUnifiedLog)
		x = ns.logPrefix(x, p, true)
		x = append(x, "Incrementing log start offset to "...)
		x = ai(x, base+ns.g.between(1000, 90000))
		x = append(x, " due to segment deletion"...)
		s.end(x)
	}
}

func (ns *noiseSource) segmentDeleted(s *sink, ts int64) {
	p := ns.hostedPart()
	base, size, mod, largest := ns.segment(p)
	switch ns.gen.era {
	case Era010:
		x := s.begin(ts, lvINFO, lgLog)
		x = append(x, "Deleting segment "...)
		x = ai(x, base)
		x = append(x, " from log "...)
		x = append(x, p.name...)
		x = append(x, '.')
		s.end(x)
		x = s.begin(ts, lvINFO, "kafka.log.OffsetIndex")
		x = append(x, "Deleting index "...)
		x = appendSegFile(x, p, base, ".index.deleted")
		s.end(x)
		x = s.begin(ts, lvINFO, "kafka.log.TimeIndex")
		x = append(x, "Deleting index "...)
		x = appendSegFile(x, p, base, ".timeindex.deleted")
		s.end(x)
	case Era2xTrace:
		x := s.begin(ts, lvINFO, lgLog)
		x = ns.logPrefix(x, p, false)
		x = append(x, "Deleting segment "...)
		x = ai(x, base)
		s.end(x)
		for _, k := range []struct{ typ, ext string }{{"log", ".log.deleted"}, {"offset index", ".index.deleted"}, {"time index", ".timeindex.deleted"}} {
			x = s.begin(ts, lvINFO, "kafka.log.LogSegment")
			x = append(x, "Deleted "...)
			x = append(x, k.typ...)
			x = append(x, ' ')
			x = appendSegFile(x, p, base, k.ext)
			x = append(x, '.')
			s.end(x)
		}
	default:
		lg, lsLg := lgLog, "kafka.log.LogSegment"
		if ns.gen.era == EraKRaft {
			lg, lsLg = "kafka.log.LocalLog$", "org.apache.kafka.storage.internals.log.LogSegment"
		}
		x := s.begin(ts, lvINFO, lg)
		x = ns.logPrefix(x, p, false)
		x = append(x, "Deleting segment files LogSegment(baseOffset="...)
		x = ai(x, base)
		x = append(x, ", size="...)
		x = ai(x, size)
		x = append(x, ", lastModifiedTime="...)
		x = ai(x, mod)
		if ns.gen.era == EraKRaft {
			x = append(x, ", largestRecordTimestamp="...)
			x = ai(x, largest)
			x = append(x, ')')
		} else {
			x = append(x, ", largestRecordTimestamp=Some("...)
			x = ai(x, largest)
			x = append(x, "))"...)
		}
		s.end(x)
		for _, k := range []struct{ typ, ext string }{{"log", ".log.deleted"}, {"offset index", ".index.deleted"}, {"time index", ".timeindex.deleted"}} {
			x = s.begin(ts, lvINFO, lsLg)
			x = append(x, "Deleted "...)
			x = append(x, k.typ...)
			x = append(x, ' ')
			x = appendSegFile(x, p, base, k.ext)
			x = append(x, '.')
			s.end(x)
		}
	}
}

var groupNames = []string{"orders-service", "payment-processor", "analytics-etl", "search-indexer", "billing", "notification-dispatcher", "fraud-detector", "inventory-sync", "audit-archiver", "recommendations"}

func (ns *noiseSource) groupFor(p *part) string {
	n := ns.gen.cfg.OffsetsPartitions
	for i := 0; i < 40; i++ {
		g := groupNames[ns.g.intn(len(groupNames))]
		if i > 10 {
			g += "-" + strconv.Itoa(i)
		}
		if partitionForGroup(g, n) == int(p.idx) {
			return g
		}
	}
	return ""
}

func (ns *noiseSource) memberID(group string) string {
	return "consumer-" + group + "-" + strconv.Itoa(1+ns.g.intn(4)) + "-" + ns.g.hex(8) + "-" + ns.g.hex(4) + "-" + ns.g.hex(4) + "-" + ns.g.hex(4) + "-" + ns.g.hex(12)
}

func (ns *noiseSource) groupPrefix(x []byte) []byte {
	x = append(x, "[GroupCoordinator "...)
	x = ai32(x, ns.b.id)
	return append(x, "]: "...)
}

func (ns *noiseSource) groupRebalance(s *sink, ts int64) {
	p := ns.offsetsPartLed()
	if p == nil {
		ns.logRoll(s, ts)
		return
	}
	group := ns.groupFor(p)
	if group == "" {
		ns.logRoll(s, ts)
		return
	}
	gen := ns.g.between(1, 400)
	members := ns.g.between(1, 6)
	lg := "kafka.coordinator.group.GroupCoordinator"
	if ns.gen.era == Era010 {
		lg = "kafka.coordinator.GroupCoordinator"
		x := s.begin(ts, lvINFO, lg)
		x = ns.groupPrefix(x)
		x = append(x, "Preparing to restabilize group "...)
		x = append(x, group...)
		x = append(x, " with old generation "...)
		x = ai(x, gen)
		s.end(x)
		x = s.begin(ts, lvINFO, lg)
		x = ns.groupPrefix(x)
		x = append(x, "Stabilized group "...)
		x = append(x, group...)
		x = append(x, " generation "...)
		x = ai(x, gen+1)
		s.end(x)
		x = s.begin(ts, lvINFO, lg)
		x = ns.groupPrefix(x)
		x = append(x, "Assignment received from leader for group "...)
		x = append(x, group...)
		x = append(x, " for generation "...)
		x = ai(x, gen+1)
		s.end(x)
		return
	}
	mid := ns.memberID(group)
	x := s.begin(ts, lvINFO, lg)
	x = ns.groupPrefix(x)
	x = append(x, "Preparing to rebalance group "...)
	x = append(x, group...)
	x = append(x, " in state PreparingRebalance with old generation "...)
	x = ai(x, gen)
	x = append(x, " (__consumer_offsets-"...)
	x = ai32(x, p.idx)
	x = append(x, ") (reason: Adding new member "...)
	x = append(x, mid...)
	switch ns.gen.era {
	case Era2xTrace:
		x = append(x, " with group instanceid None)"...)
	case Era26Info:
		x = append(x, " with group instance id None)"...)
	default:
		x = append(x, " with group instance id None; client reason: need to re-join with the given member-id: "...)
		x = append(x, mid...)
		x = append(x, ')')
	}
	s.end(x)
	x = s.begin(ts, lvINFO, lg)
	x = ns.groupPrefix(x)
	x = append(x, "Stabilized group "...)
	x = append(x, group...)
	x = append(x, " generation "...)
	x = ai(x, gen+1)
	x = append(x, " (__consumer_offsets-"...)
	x = ai32(x, p.idx)
	x = append(x, ')')
	if ns.gen.era != Era2xTrace {
		x = append(x, " with "...)
		x = ai(x, members)
		x = append(x, " members"...)
	}
	s.end(x)
	x = s.begin(ts, lvINFO, lg)
	x = ns.groupPrefix(x)
	x = append(x, "Assignment received from leader "...)
	if ns.gen.era == EraKRaft {
		x = append(x, mid...)
		x = append(x, ' ')
	}
	x = append(x, "for group "...)
	x = append(x, group...)
	x = append(x, " for generation "...)
	x = ai(x, gen+1)
	if ns.gen.era != Era2xTrace {
		x = append(x, ". The group has "...)
		x = ai(x, members)
		x = append(x, " members, 0 of which are static."...)
	}
	s.end(x)
}

func (ns *noiseSource) memberFailed(s *sink, ts int64) {
	p := ns.offsetsPartLed()
	if p == nil || ns.gen.era == Era010 {
		ns.logRoll(s, ts)
		return
	}
	group := ns.groupFor(p)
	if group == "" {
		ns.logRoll(s, ts)
		return
	}
	mid := ns.memberID(group)
	x := s.begin(ts, lvINFO, "kafka.coordinator.group.GroupCoordinator")
	x = ns.groupPrefix(x)
	x = append(x, "Member "...)
	x = append(x, mid...)
	x = append(x, " in group "...)
	x = append(x, group...)
	x = append(x, " has failed, removing it from the group"...)
	s.end(x)
	x = s.begin(ts, lvINFO, "kafka.coordinator.group.GroupCoordinator")
	x = ns.groupPrefix(x)
	x = append(x, "Preparing to rebalance group "...)
	x = append(x, group...)
	x = append(x, " in state PreparingRebalance with old generation "...)
	x = ai(x, ns.g.between(1, 400))
	x = append(x, " (__consumer_offsets-"...)
	x = ai32(x, p.idx)
	x = append(x, ") (reason: removing member "...)
	x = append(x, mid...)
	x = append(x, " on heartbeat expiration)"...)
	s.end(x)
}

func (ns *noiseSource) expiredOffsets(s *sink, ts int64) {
	lg := "kafka.coordinator.group.GroupMetadataManager"
	x := []byte(nil)
	if ns.gen.era == Era010 {
		x = s.begin(ts, lvINFO, "kafka.coordinator.GroupMetadataManager")
		x = append(x, "[Group Metadata Manager on Broker "...)
		x = ai32(x, ns.b.id)
		x = append(x, "]: Removed "...)
		x = ai(x, ns.g.between(0, 3))
	} else {
		x = s.begin(ts, lvINFO, lg)
		x = append(x, "[GroupMetadataManager brokerId="...)
		x = ai32(x, ns.b.id)
		x = append(x, "] Removed "...)
		x = ai(x, ns.g.between(1, 40))
	}
	x = append(x, " expired offsets in "...)
	x = ai(x, ns.g.between(0, 4))
	x = append(x, " milliseconds."...)
	s.end(x)
}

func (ns *noiseSource) logCleaner(s *sink, ts int64) {
	var t *topic
	for _, x := range ns.gen.topics {
		if x.name == "__consumer_offsets" {
			t = x
		}
	}
	if t == nil {
		ns.logRoll(s, ts)
		return
	}
	p := t.parts[ns.g.intn(len(t.parts))]
	lg := "kafka.log.LogCleaner"
	line := func(msg ...string) {
		x := s.begin(ts, lvINFO, lg)
		x = append(x, "Cleaner 0: "...)
		for _, m := range msg {
			x = append(x, m...)
		}
		s.end(x)
	}
	from := ns.g.between(0, 100000)
	to := from + ns.g.between(10, 5000)
	line("Beginning cleaning of log ", p.name, ".")
	line("Building offset map for ", p.name, "...")
	line("Building offset map for log ", p.name, " for 1 segments in offset range [", strconv.FormatInt(from, 10), ", ", strconv.FormatInt(to, 10), ").")
	line("Offset map for log ", p.name, " complete.")
	now := time.UnixMilli(ts).In(ns.gen.loc)
	line("Cleaning log ", p.name, " (cleaning prior to ", javaDate(now), ", discarding tombstones prior to ", javaDate(now.Add(-24*time.Hour)), ")...")
	// the statistics message starts and ends with a line break (%n)
	mb := float64(ns.g.between(1, 4000)) / 100
	secs := float64(ns.g.between(1, 300)) / 100
	x := s.begin(ts, lvINFO, lg)
	x = append(x, "[kafka-log-cleaner-thread-0]: \n\tLog cleaner thread 0 cleaned log "...)
	x = append(x, p.name...)
	x = append(x, " (dirty section = ["...)
	x = ai(x, from)
	x = append(x, ", "...)
	x = ai(x, to)
	x = append(x, "])\n\t"...)
	x = append(x, ff1(mb)...)
	x = append(x, " MB of log processed in "...)
	x = append(x, ff1(secs)...)
	x = append(x, " seconds ("...)
	x = append(x, ff1(mb/secs)...)
	x = append(x, " MB/sec).\n\tIndexed "...)
	x = append(x, ff1(mb)...)
	x = append(x, " MB in "...)
	x = append(x, ff1(secs/2)...)
	x = append(x, " seconds ("...)
	x = append(x, ff1(mb/(secs/2))...)
	x = append(x, " Mb/sec, 50.0% of total time)\n\tBuffer utilization: 0.0%\n\tCleaned "...)
	x = append(x, ff1(mb)...)
	x = append(x, " MB in "...)
	x = append(x, ff1(secs/2)...)
	x = append(x, " seconds ("...)
	x = append(x, ff1(mb/(secs/2))...)
	x = append(x, " Mb/sec, 50.0% of total time)\n\tStart size: "...)
	x = append(x, ff1(mb)...)
	msgs := ns.g.between(10, 90000)
	x = append(x, " MB ("...)
	x = append(x, groupThousands(msgs)...)
	x = append(x, " messages)\n\tEnd size: "...)
	x = append(x, ff1(mb/3)...)
	x = append(x, " MB ("...)
	x = append(x, groupThousands(msgs/3)...)
	x = append(x, " messages)\n\t66.7% size reduction (66.7% fewer messages)\n"...)
	s.end(x)
}

var javaStackFetch = "java.io.IOException: Connection to %d was disconnected before the response was read\n" +
	"\tat org.apache.kafka.clients.NetworkClientUtils.sendAndReceive(NetworkClientUtils.java:100)\n" +
	"\tat kafka.server.ReplicaFetcherBlockingSend.sendRequest(ReplicaFetcherBlockingSend.scala:110)\n" +
	"\tat kafka.server.ReplicaFetcherThread.fetchFromLeader(ReplicaFetcherThread.scala:217)\n" +
	"\tat kafka.server.AbstractFetcherThread.processFetchRequest(AbstractFetcherThread.scala:325)\n" +
	"\tat kafka.server.AbstractFetcherThread.$anonfun$maybeFetch$3(AbstractFetcherThread.scala:141)\n" +
	"\tat kafka.server.AbstractFetcherThread.maybeFetch(AbstractFetcherThread.scala:140)\n" +
	"\tat kafka.server.AbstractFetcherThread.doWork(AbstractFetcherThread.scala:123)\n" +
	"\tat kafka.utils.ShutdownableThread.run(ShutdownableThread.scala:96)\n"

func (ns *noiseSource) fetcherError(s *sink, ts int64) {
	b := ns.b
	if b == nil {
		return
	}
	leader := b.id%int32(len(ns.gen.brokers)) + 1
	var x []byte
	if ns.gen.era == Era010 {
		x = s.begin(ts, lvWARN, lgFetcher)
		x = append(x, "[ReplicaFetcherThread-0-"...)
		x = ai32(x, leader)
		x = append(x, "], Error in fetch kafka.server.ReplicaFetcherThread$FetchRequest@"...)
		x = append(x, ns.g.hex(8)...)
	} else {
		x = s.begin(ts, lvWARN, lgFetcher)
		x = append(x, "[ReplicaFetcher replicaId="...)
		x = ai32(x, b.id)
		x = append(x, ", leaderId="...)
		x = ai32(x, leader)
		x = append(x, ", fetcherId=0] Error in response for fetch request (type=FetchRequest, replicaId="...)
		x = ai32(x, b.id)
		x = append(x, ", maxWait=500, minBytes=1, maxBytes=10485760, fetchData={}, isolationLevel=READ_UNCOMMITTED, toForget=, metadata=(sessionId="...)
		x = ai(x, ns.g.between(100000000, 2000000000))
		x = append(x, ", epoch="...)
		x = ai(x, ns.g.between(1, 90000))
		x = append(x, "), rackId="...)
		x = append(x, ')')
	}
	x = s.endMsg(x)
	st := javaStackFetch
	if ns.gen.era == Era010 {
		st = "java.io.IOException: Connection to %d was disconnected before the response was read\n" +
			"\tat kafka.utils.NetworkClientBlockingOps$.$anonfun$blockingSendAndReceive$1(NetworkClientBlockingOps.scala:115)\n" +
			"\tat kafka.utils.NetworkClientBlockingOps$.recursivePoll$2(NetworkClientBlockingOps.scala:137)\n" +
			"\tat kafka.utils.NetworkClientBlockingOps$.pollContinuously$extension(NetworkClientBlockingOps.scala:143)\n" +
			"\tat kafka.utils.NetworkClientBlockingOps$.blockingSendAndReceive$extension(NetworkClientBlockingOps.scala:108)\n" +
			"\tat kafka.server.ReplicaFetcherThread.sendRequest(ReplicaFetcherThread.scala:253)\n" +
			"\tat kafka.server.ReplicaFetcherThread.fetch(ReplicaFetcherThread.scala:238)\n" +
			"\tat kafka.server.AbstractFetcherThread.processFetchRequest(AbstractFetcherThread.scala:118)\n" +
			"\tat kafka.server.AbstractFetcherThread.doWork(AbstractFetcherThread.scala:103)\n" +
			"\tat kafka.utils.ShutdownableThread.run(ShutdownableThread.scala:63)\n"
	}
	for i := 0; i < len(st); i++ {
		if st[i] == '%' && i+1 < len(st) && st[i+1] == 'd' {
			x = ai32(x, leader)
			i++
			continue
		}
		x = append(x, st[i])
	}
	s.end(x)
}

func (ns *noiseSource) requestHandlerError(s *sink, ts int64) {
	b := ns.b
	lg := "kafka.server.KafkaRequestHandler"
	x := s.begin(ts, lvERROR, lg)
	x = append(x, "[Kafka Request Handler "...)
	x = ai(x, ns.g.between(0, 7))
	if ns.gen.era == EraKRaft {
		x = append(x, " on Broker "...)
	} else {
		x = append(x, " on Broker "...)
	}
	x = ai32(x, b.id)
	x = append(x, "], Exception when handling request"...)
	x = s.endMsg(x)
	x = append(x, "java.lang.IllegalStateException: Unexpected error while writing the response\n"...)
	x = append(x, "\tat kafka.network.RequestChannel.sendResponse(RequestChannel.scala:385)\n"...)
	x = append(x, "\tat kafka.server.KafkaApis.sendResponse(KafkaApis.scala:3112)\n"...)
	x = append(x, "\tat kafka.server.KafkaApis.handleFetchRequest(KafkaApis.scala:874)\n"...)
	x = append(x, "\tat kafka.server.KafkaApis.handle(KafkaApis.scala:172)\n"...)
	x = append(x, "\tat kafka.server.KafkaRequestHandler.run(KafkaRequestHandler.scala:74)\n"...)
	x = append(x, "\tat java.base/java.lang.Thread.run(Thread.java:829)\n"...)
	x = append(x, "Caused by: java.io.IOException: Broken pipe\n"...)
	x = append(x, "\tat java.base/sun.nio.ch.FileDispatcherImpl.write0(Native Method)\n"...)
	x = append(x, "\tat java.base/sun.nio.ch.SocketDispatcher.write(SocketDispatcher.java:47)\n"...)
	x = append(x, "\tat java.base/sun.nio.ch.IOUtil.writeFromNativeBuffer(IOUtil.java:113)\n"...)
	x = append(x, "\tat java.base/sun.nio.ch.SocketChannelImpl.write(SocketChannelImpl.java:502)\n"...)
	x = append(x, "\tat org.apache.kafka.common.network.PlaintextTransportLayer.write(PlaintextTransportLayer.java:143)\n"...)
	x = append(x, "\t... 6 more\n"...)
	s.end(x)
}

func (ns *noiseSource) zkReconnect(s *sink, ts int64) {
	lg := "org.apache.zookeeper.ClientCnxn"
	zk := 1 + ns.g.intn(3)
	sid := "0x" + strconv.Itoa(1+zk) + "000" + ns.g.hex(11)
	srv := "zk-" + strconv.Itoa(zk) + "/10.0.1." + strconv.Itoa(20+zk) + ":2181"
	s.line(ts, lvINFO, lg, "Unable to read additional data from server sessionid "+sid+", likely server has closed socket, closing socket connection and attempting reconnect")
	s.line(ts, lvINFO, lg, "Opening socket connection to server "+srv+". Will not attempt to authenticate using SASL (unknown error)")
	if ns.gen.era == Era2xTrace {
		s.line(ts, lvINFO, lg, "Socket connection established to "+srv+", initiating session")
	} else {
		s.line(ts, lvINFO, lg, "Socket connection established, initiating session, client: /10.0.0.1"+strconv.Itoa(int(ns.b.id))+":"+strconv.Itoa(30000+ns.g.intn(30000))+", server: "+srv)
	}
	timeout := "6000"
	if ns.gen.era == Era26Info {
		timeout = "18000"
	}
	s.line(ts, lvINFO, lg, "Session establishment complete on server "+srv+", sessionid = "+sid+", negotiated timeout = "+timeout)
}

func (ns *noiseSource) kraftSnapshot(s *sink, ts int64) {
	id := "id=" + strconv.Itoa(int(ns.nodeID()))
	off := ns.g.between(100000, 9000000)
	name := pad20(off) + "-" + pad10(int64(ns.gen.kraftEpoch()))
	s.line(ts, lvINFO, "org.apache.kafka.image.publisher.SnapshotGenerator", "[SnapshotGenerator "+id+"] Creating new KRaft snapshot file "+name+" because we have waited at least 60 minute(s).")
	s.line(ts, lvINFO, "org.apache.kafka.image.publisher.SnapshotEmitter", "[SnapshotEmitter "+id+"] Successfully wrote snapshot "+name)
}

func (ns *noiseSource) nodeID() int32 {
	if ns.b != nil {
		return ns.b.id
	}
	if ns.cid != 0 {
		return ns.cid
	}
	return 0
}

func (ns *noiseSource) producerIds(s *sink, ts int64) {
	kc := ns.gen.kc
	b := ns.gen.brokers[ns.g.intn(len(ns.gen.brokers))]
	x := s.begin(ts, lvINFO, "org.apache.kafka.controller.ProducerIdControlManager")
	x = append(x, "[QuorumController id="...)
	x = ai32(x, ns.cid)
	x = append(x, "] Replaying ProducerIdsRecord ProducerIdsRecord(brokerId="...)
	x = ai32(x, b.id)
	x = append(x, ", brokerEpoch="...)
	x = ai(x, b.kraftEpoch)
	x = append(x, ", nextProducerId="...)
	kc.nextPID += 1000
	x = ai(x, kc.nextPID)
	x = append(x, ')')
	s.end(x)
}

func (ns *noiseSource) controllerConnected(s *sink, ts int64) {
	// a (re)connection of the controller's request thread; rare
	if ns.gen.era == EraKRaft || ns.b.id != ns.gen.ctl {
		return
	}
	to := ns.gen.brokers[ns.g.intn(len(ns.gen.brokers))]
	if !to.alive {
		return
	}
	x := s.begin(ts, lvINFO, "kafka.controller.RequestSendThread")
	if ns.gen.era == Era010 {
		x = append(x, "[Controller-"...)
		x = ai32(x, ns.b.id)
		x = append(x, "-to-broker-"...)
		x = ai32(x, to.id)
		x = append(x, "-send-thread], Controller "...)
	} else {
		x = append(x, "[RequestSendThread controllerId="...)
		x = ai32(x, ns.b.id)
		x = append(x, "] Controller "...)
	}
	x = ai32(x, ns.b.id)
	x = append(x, " connected to kafka-"...)
	x = ai32(x, to.id)
	x = append(x, ":9092 (id: "...)
	x = ai32(x, to.id)
	x = append(x, " rack: null) for sending state change requests"...)
	s.end(x)
}

var appEvents = []string{"order", "payment", "invoice", "shipment", "event"}

func (ns *noiseSource) appLine(s *sink, ts int64) {
	p := ns.p
	x := s.beginT(ts, lvINFO, p.appLogger, "main")
	x = append(x, "Published "...)
	x = ai(x, ns.g.between(1, 5000))
	x = append(x, ' ')
	x = append(x, appEvents[ns.g.intn(len(appEvents))]...)
	x = append(x, "s to "...)
	x = append(x, p.topics[ns.g.intn(len(p.topics))].name...)
	x = append(x, " in "...)
	x = ai(x, ns.g.between(2, 3000))
	x = append(x, " ms"...)
	s.end(x)
}

func (ns *noiseSource) appWarn(s *sink, ts int64) {
	p := ns.p
	x := s.beginT(ts, lvWARN, p.appLogger, "main")
	x = append(x, "Slow downstream call to inventory-service took "...)
	x = ai(x, ns.g.between(1000, 9000))
	x = append(x, " ms (request id "...)
	x = append(x, ns.g.hex(16)...)
	x = append(x, ')')
	s.end(x)
}

// helpers -----------------------------------------------------------------

func ff1(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// groupThousands renders Java's "%,d".
func groupThousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// javaDate renders java.util.Date.toString: "Mon Mar 11 10:05:00 UTC 2024".
func javaDate(t time.Time) string { return t.Format("Mon Jan 02 15:04:05 MST 2006") }

func pad20(n int64) string {
	s := strconv.FormatInt(n, 10)
	for len(s) < 20 {
		s = "0" + s
	}
	return s
}

func pad10(n int64) string {
	s := strconv.FormatInt(n, 10)
	for len(s) < 10 {
		s = "0" + s
	}
	return s
}

// formatF6 is Java's "%f" (six decimals).
func formatF6(f float64) string { return strconv.FormatFloat(f, 'f', 6, 64) }

// formatJavaDouble is Double.toString for values in [0.001, 10^7).
func formatJavaDouble(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return s
		}
	}
	return s + ".0"
}
