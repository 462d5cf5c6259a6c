package gen

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// Data flow:
//
//	event agenda ──> incident code (zk.go / kraft.go) ──> pending records per sink
//	                          │                                  │
//	                          └──> truth (Election, ProducerError) │
//	window flush (advance) ── sort pending by time, merge with noise (noise.go) ──> files
//
// The simulation advances from event to event. Before an event at time T
// runs, every sink flushes the window [previous event, T): its pending
// records with ts < T, interleaved with --noise unrelated lines per pending
// record, spread uniformly over the part of the window in which the writing
// process was alive.

type event struct {
	at   int64
	seq  int
	kind int
	arg  int32
}

const (
	evChaos = iota
	evRestart
	evTick
	evNewTopic
	evKBalance
	evProducerNone
)

type generator struct {
	cfg  Config
	dir  string
	era  Era
	loc  *time.Location
	r    *rng // the simulation's own stream
	rnT  *rng // timing jitter stream
	rnN  *rng // noise allocation stream
	tr   *Truth
	seq  int
	ag   []event
	done bool

	topics  []*topic
	parts   []*part
	brokers []*broker
	sinks   []*sink

	wStart int64

	// ZooKeeper controller
	ctl      int32
	ctlEpoch int32
	ctlZkv   int32
	tickAt   int64
	topicSeq int

	// KRaft
	kc *kraftState

	// producers
	prods []*producer

	victimRR    int
	noiseOwed   int64
	wr          *asyncWriter
	zkClusterID string
	stats       struct{ leaderChanges, isrOnly int }
}

// Generate writes a data set for cfg into dir and returns the ground truth,
// which it also writes to dir/truth.jsonl.
func Generate(cfg Config, dir string) (Truth, error) {
	if err := cfg.Validate(); err != nil {
		return Truth{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Truth{}, err
	}
	g := &generator{
		cfg: cfg, dir: dir, era: cfg.Era, loc: cfg.Location,
		r:   newRNG(cfg.Seed, "sim"),
		rnT: newRNG(cfg.Seed, "timing"),
		rnN: newRNG(cfg.Seed, "noise-alloc"),
		tr:  &Truth{Location: cfg.Location},
	}
	if err := g.setup(); err != nil {
		g.closeAll()
		return Truth{}, err
	}
	start := cfg.Start.UnixMilli()
	g.wStart = start
	g.noteCarriedOver()
	if g.era == EraKRaft {
		g.kraftBaseline(start)
	} else {
		g.zkBaseline(start)
	}
	g.prodStart(start)
	for !g.done {
		if len(g.ag) == 0 {
			g.schedule(g.wStart+60_000, evChaos, 0)
		}
		ev := g.ag[0]
		g.ag = g.ag[1:]
		g.advance(ev.at)
		n := len(g.tr.Elections)
		g.run(ev)
		g.prodAfterIncident(n)
		if g.estimatedBytes() >= cfg.Size {
			g.done = true
		}
	}
	// let the last incident finish, then flush everything (with the noise
	// still owed)
	end := g.lastPending() + 1 + g.rnT.between(5_000, 30_000)
	for _, s := range g.sinks {
		g.noiseOwed += s.counted * int64(g.cfg.Noise)
		g.tr.LeadershipRecords += s.counted
		s.counted = 0
	}
	if need := g.wStart + int64(float64(g.noiseOwed)/g.noiseRate()) + 1000; need > end {
		end = need
	}
	g.advance(end)
	for _, s := range g.sinks {
		s.flushWindow(end, math.MaxInt64, 0, g.rnN)
	}
	if err := g.closeAll(); err != nil {
		return Truth{}, err
	}
	g.finishTruth()
	if err := g.tr.WriteJSONL(filepath.Join(dir, "truth.jsonl")); err != nil {
		return Truth{}, err
	}
	return *g.tr, nil
}

func (g *generator) schedule(at int64, kind int, arg int32) {
	g.seq++
	ev := event{at: at, seq: g.seq, kind: kind, arg: arg}
	i, _ := slices.BinarySearchFunc(g.ag, ev, func(a, b event) int {
		if a.at != b.at {
			return cmpI64(a.at, b.at)
		}
		return a.seq - b.seq
	})
	g.ag = slices.Insert(g.ag, i, ev)
}

func (g *generator) unschedule(kind int) {
	g.ag = slices.DeleteFunc(g.ag, func(e event) bool { return e.kind == kind })
}

func (g *generator) nextEventAt(kind int) int64 {
	for _, e := range g.ag {
		if e.kind == kind {
			return e.at
		}
	}
	return -1
}

func (g *generator) run(ev event) {
	if g.era == EraKRaft {
		switch ev.kind {
		case evChaos:
			g.kraftChaos(ev.at)
		case evRestart:
			g.kraftRestart(ev.at, ev.arg)
		case evKBalance:
			g.kraftBalance(ev.at)
		case evNewTopic:
			g.kraftNewTopic(ev.at)
		case evProducerNone:
			g.prodNoneError(ev.at)
		}
		return
	}
	switch ev.kind {
	case evChaos:
		g.zkChaos(ev.at)
	case evRestart:
		g.zkRestart(ev.at, ev.arg)
	case evTick:
		g.zkTick(ev.at)
	case evNewTopic:
		g.zkNewTopic(ev.at)
	case evProducerNone:
		g.prodNoneError(ev.at)
	}
}

// advance flushes every sink up to (not including) t.
func (g *generator) advance(t int64) {
	if t <= g.wStart {
		return
	}
	counted := int64(0)
	for _, s := range g.sinks {
		counted += s.counted
		s.counted = 0
	}
	g.tr.LeadershipRecords += counted
	// Noise is owed at --noise lines per leadership line but written at a
	// bounded rate, so that a big incident does not bury its own window
	// under a wall of unrelated lines; what does not fit is carried over.
	g.noiseOwed += counted * int64(g.cfg.Noise)
	capacity := int64(float64(t-g.wStart) * g.noiseRate())
	nNoise := g.noiseOwed
	if nNoise > capacity {
		nNoise = capacity
	}
	g.noiseOwed -= nNoise
	// alive span of every noisy sink within [wStart, t)
	type share struct {
		s        *sink
		from, to int64
		w        float64
	}
	var shares []share
	total := 0.0
	for _, s := range g.sinks {
		if s.noise == nil || s.noiseWeight == 0 {
			continue
		}
		from, to := g.wStart, t
		if s.noise.upAt > from {
			from = s.noise.upAt
		}
		if s.noise.b != nil {
			b := s.noise.b
			if b.upAt > from {
				from = b.upAt
			}
			if b.downAt < to {
				to = b.downAt
			}
		}
		if to <= from {
			continue
		}
		w := float64(s.noiseWeight) * float64(to-from)
		shares = append(shares, share{s, from, to, w})
		total += w
	}
	alloc := map[*sink]share{}
	carry := 0.0
	for _, sh := range shares {
		x := float64(nNoise)*sh.w/total + carry
		n := math.Floor(x)
		carry = x - n
		sh.w = n
		alloc[sh.s] = sh
	}
	for _, s := range g.sinks {
		if sh, ok := alloc[s]; ok && sh.w > 0 {
			// sh.w records are wanted; a noise event writes zero or more
			// records, so ask for as many events as its measured yield
			// needs and carry the difference
			perEvent := 1.5
			if s.noiseEvents > 100 {
				perEvent = float64(s.noiseRecords) / float64(s.noiseEvents)
			}
			events := 0
			if perEvent > 0 {
				events = int(sh.w/perEvent + 0.5)
			}
			// The yield is a lifetime average and goes stale: a
			// controller.log whose broker held the controller once and
			// lost it writes nothing now, every empty event drags its
			// yield down and the next ask up, without end. The events
			// of one window are held in memory (spreadTimes), so they
			// may not outnumber the records owed to the whole cluster
			// in it.
			if events > int(nNoise) {
				events = int(nNoise)
			}
			before := s.noiseRecords
			s.flushWindow(sh.from, t, events, s.noise.g)
			g.noiseOwed += int64(sh.w) - (s.noiseRecords - before)
			continue
		}
		s.flushWindow(g.wStart, t, 0, g.rnN)
	}
	g.wStart = t
}

// noiseRate is the cluster-wide ceiling for unrelated lines per ms.
func (g *generator) noiseRate() float64 {
	return 0.05 * float64(len(g.brokers)+len(g.prods))
}

func (g *generator) bytesSoFar() int64 {
	var n int64
	for _, s := range g.sinks {
		n += s.queued + int64(len(s.out))
		if s.wr == nil {
			n += s.written
		}
	}
	return n
}

// estimatedBytes is what the files will hold if the simulation stops now:
// written bytes, pending records and the unrelated lines still owed.
func (g *generator) estimatedBytes() int64 {
	n := g.bytesSoFar()
	owed := g.noiseOwed
	for _, s := range g.sinks {
		n += int64(len(s.arena)) + 40*int64(len(s.pending))
		owed += s.counted * int64(g.cfg.Noise)
	}
	return n + owed*noiseLineBytes
}

// noiseLineBytes is the average size of an unrelated line (measured).
const noiseLineBytes = 170

func (g *generator) lastPending() int64 {
	m := g.wStart
	for _, s := range g.sinks {
		if x := s.maxPending(); x > m {
			m = x
		}
	}
	return m
}

func (g *generator) closeAll() error {
	var first error
	for _, s := range g.sinks {
		if err := s.close(); err != nil && first == nil {
			first = err
		}
	}
	if g.wr != nil {
		if err := g.wr.close(); err != nil && first == nil {
			first = err
		}
		for _, s := range g.sinks {
			if err := s.f.Close(); err != nil && first == nil {
				first = err
			}
		}
		g.wr = nil
	}
	return first
}

func (g *generator) addSink(name string) (*sink, error) {
	s, err := newSink(g.dir, name, newTSCache(g.loc))
	if err != nil {
		return nil, err
	}
	if g.wr == nil {
		g.wr = newAsyncWriter()
	}
	s.wr = g.wr
	g.sinks = append(g.sinks, s)
	return s, nil
}

// setup creates topics, brokers, controllers, producers and their files.
func (g *generator) setup() error {
	cfg := g.cfg
	nb := int32(cfg.Brokers)
	rf := 3
	if cfg.Brokers < 3 {
		rf = cfg.Brokers
	}
	names := topicNames(g.r, cfg.Topics)
	mk := func(name string, n int, rf int) {
		t := &topic{name: name, id: g.r.uuid22()}
		start := int32(g.r.intn(int(nb)))
		shift := int32(g.r.intn(int(nb)))
		for i := 0; i < n; i++ {
			p := &part{t: t, idx: int32(i), gidx: len(g.parts)}
			p.name = name + "-" + strconv.Itoa(i)
			p.bname = "[" + name + "," + strconv.Itoa(i) + "]"
			// Kafka's rack-unaware assignment: first replica round-robin,
			// followers shifted.
			first := (start + int32(i)) % nb
			if i > 0 && int32(i)%nb == 0 {
				shift++
			}
			p.replicas = append(p.replicas, first+1)
			for j := 1; j < rf; j++ {
				off := 1 + (shift+int32(j-1))%(nb-1)
				p.replicas = append(p.replicas, (first+off)%nb+1)
			}
			p.leader = p.replicas[0]
			p.isr = cloneIDs(p.replicas)
			p.epoch = int32(g.r.between(0, 40))
			p.zkv = p.epoch + int32(g.r.between(0, 30))
			p.cep = -1 // filled in by the baseline
			p.rate = float64(g.r.between(5, 400)) / 1000.0
			p.leo = g.r.between(1000, 5_000_000)
			p.hw = p.leo
			t.parts = append(t.parts, p)
			g.parts = append(g.parts, p)
		}
		g.topics = append(g.topics, t)
	}
	if cfg.OffsetsPartitions > 0 {
		mk("__consumer_offsets", cfg.OffsetsPartitions, rf)
	}
	for i, n := range names {
		// application topics alternate between replication factor 3 and 2
		r := rf
		if i%2 == 1 && rf > 2 {
			r = 2
		}
		mk(n, cfg.Partitions, r)
	}
	for i := int32(1); i <= nb; i++ {
		b := &broker{id: i, alive: true, downAt: math.MaxInt64, host: "kafka-" + strconv.Itoa(int(i))}
		b.local = make([]localView, len(g.parts))
		b.resetLocal()
		b.epochZK = 4294967296 + g.r.between(100, 90000)
		b.incarnation = g.r.uuid22()
		var err error
		dirName := "broker-" + strconv.Itoa(int(i))
		if b.sc, err = g.addSink(dirName + "/state-change.log"); err != nil {
			return err
		}
		if b.ctl, err = g.addSink(dirName + "/controller.log"); err != nil {
			return err
		}
		if b.srv, err = g.addSink(dirName + "/server.log"); err != nil {
			return err
		}
		b.srv.noise = newNoiseSource(g, b, nsServer)
		b.srv.noiseWeight = 20
		b.ctl.noise = newNoiseSource(g, b, nsController)
		b.ctl.noiseWeight = 1
		g.brokers = append(g.brokers, b)
	}
	if g.era == EraKRaft {
		if err := g.kraftSetup(); err != nil {
			return err
		}
	}
	return g.prodSetup()
}

func (g *generator) broker(id int32) *broker { return g.brokers[id-1] }

func (g *generator) liveBrokers() []int32 {
	var out []int32
	for _, b := range g.brokers {
		if b.alive {
			out = append(out, b.id)
		}
	}
	return out
}

// finishTruth finalizes elections and classifies producer errors.
func (g *generator) finishTruth() {
	for _, e := range g.tr.Elections {
		e.finalize()
	}
	byPart := map[string][]*Election{}
	for _, e := range g.tr.Elections {
		k := e.Topic + "\x00" + strconv.Itoa(int(e.Partition))
		byPart[k] = append(byPart[k], e)
	}
	for _, pe := range g.tr.ProducerErrors {
		k := pe.Topic + "\x00" + strconv.Itoa(int(pe.Partition))
		pe.Match, pe.Election, pe.LagMs = Classify(byPart[k], pe.Time)
	}
	g.tr.sortAll()
	var total, lines int64
	for _, s := range g.sinks {
		g.tr.Files = append(g.tr.Files, FileStat{Path: s.name, Bytes: s.written, Lines: s.lines})
		total += s.written
		lines += s.lines
	}
	slices.SortFunc(g.tr.Files, func(a, b FileStat) int {
		if a.Path < b.Path {
			return -1
		}
		if a.Path > b.Path {
			return 1
		}
		return 0
	})
	g.tr.Bytes = total
	g.tr.Lines = lines
	for _, s := range g.sinks {
		g.tr.NoiseRecords += s.noiseRecords
	}
}

// newElection records a leader-epoch change decided by controller ctl.
func (g *generator) newElection(p *part, leader, prev int32, ctl, ctlEpoch int32, cause string, decided int64) *Election {
	e := &Election{
		Topic: p.t.name, Partition: p.idx, LeaderEpoch: p.epoch, Leader: leader,
		PreviousLeader: prev, Controller: ctl, ControllerEpoch: ctlEpoch, Cause: cause, Decided: decided,
		isr: cloneIDs(p.isr),
	}
	for _, b := range g.brokers {
		if !b.alive || b.shuttingDown {
			e.notServing = append(e.notServing, b.id)
		}
	}
	if prev == leader {
		g.stats.isrOnly++
	} else {
		g.stats.leaderChanges++
	}
	p.elections = append(p.elections, e)
	g.tr.Elections = append(g.tr.Elections, e)
	return e
}

func role(b, leader int32) string {
	if b == leader {
		return "leader"
	}
	return "follower"
}

// moveLeader records a leader change in the offsets: the new leader's log
// ends somewhere between the high watermark and the old leader's end; the
// old leader's extra records will be truncated.
func (g *generator) moveLeader(p *part) {
	p.prevLEO = p.leo
	if p.leo > p.hw {
		p.leo = p.hw + g.r.between(0, p.leo-p.hw)
	}
}

// advanceOffsets moves a partition's log end offset to time t.
func (p *part) advanceOffsets(t int64) {
	if p.rate == 0 {
		return
	}
	if p.lastT == 0 {
		p.lastT = t
		return
	}
	if t > p.lastT {
		p.leo += int64(float64(t-p.lastT) * p.rate)
		p.lastT = t
	}
	lag := int64(p.rate * 40)
	if p.leo-lag > p.hw {
		p.hw = p.leo - lag
	}
}

var topicWords = []string{"orders", "payments", "user-events", "clickstream.v2", "inventory_updates", "shipments", "audit-log", "sensor.readings", "billing-invoices", "notifications", "search_queries", "fraud-scores", "sessions", "cart.events", "price-changes", "emails_outbound"}

func topicNames(r *rng, n int) []string {
	words := append([]string(nil), topicWords...)
	for i := len(words) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		words[i], words[j] = words[j], words[i]
	}
	out := make([]string, 0, n)
	for i := 0; len(out) < n; i++ {
		name := words[i%len(words)]
		if i >= len(words) {
			name += "-" + strconv.Itoa(i/len(words))
		}
		out = append(out, name)
	}
	return out
}

func (g *generator) String() string { return fmt.Sprintf("generator(%s)", g.era) }
