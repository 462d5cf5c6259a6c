package gen

import (
	"maps"
	"math"
	"slices"
	"strconv"
)

// Producer application logs (producer-<n>/app.log): the Java client's own
// lines around NOT_LEADER errors (shared/formats/client.md §3), the config
// dump at start-up, and some application chatter.

type clientVersion struct {
	version   string
	commit    string
	prefix    bool   // LogContext prefix "[Producer clientId=...] " (1.0+)
	errName   string // enum name printed after "Error: "
	exc       string // exception class + default message
	p2        bool   // "Received invalid metadata error ..." (2.0+)
	p2Dot     bool   // 2.0-3.7 print ". Going" after the message's own period (double period)
	appInfoSp bool   // "Kafka version : x" (<= 2.1)
	startTime bool   // "Kafka startTimeMs" (2.3+)
	defRetry  int64  // default retries
	connWarn  string // NetworkClient connection failure text after "Connection to node N"
	nodeDisc  bool   // "Node N disconnected." at INFO (3.1+)
	idem      bool   // idempotent by default (3.x)
}

func clientFor(e Era) clientVersion {
	nlfp := "org.apache.kafka.common.errors.NotLeaderForPartitionException: This server is not the leader for that topic-partition."
	nlof := "org.apache.kafka.common.errors.NotLeaderOrFollowerException: For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition."
	switch e {
	case Era010:
		return clientVersion{version: "1.0.2", commit: "2a121f7b1d402825", prefix: true, errName: "NOT_LEADER_FOR_PARTITION", exc: nlfp, appInfoSp: true, defRetry: 0, connWarn: " could not be established. Broker may not be available."}
	case Era2xTrace:
		return clientVersion{version: "2.3.1", commit: "18a913733fb71c01", prefix: true, errName: "NOT_LEADER_FOR_PARTITION", exc: nlfp, p2: true, p2Dot: true, startTime: true, defRetry: math.MaxInt32, connWarn: " could not be established. Broker may not be available."}
	case Era26Info:
		return clientVersion{version: "2.8.2", commit: "3146c6ff4a24cc24", prefix: true, errName: "NOT_LEADER_OR_FOLLOWER", exc: nlof, p2: true, p2Dot: true, startTime: true, defRetry: math.MaxInt32, connWarn: " could not be established. Broker may not be available."}
	default:
		return clientVersion{version: "3.9.0", commit: "dd5272687e8adf9e", prefix: true, errName: "NOT_LEADER_OR_FOLLOWER", exc: nlof, p2: true, startTime: true, defRetry: math.MaxInt32, connWarn: " could not be established. Node may not be available.", nodeDisc: true, idem: true}
	}
}

const (
	lgSender   = "org.apache.kafka.clients.producer.internals.Sender"
	lgErrCB    = "org.apache.kafka.clients.producer.internals.ErrorLoggingCallback"
	lgNetwork  = "org.apache.kafka.clients.NetworkClient"
	lgProdCfg  = "org.apache.kafka.clients.producer.ProducerConfig"
	lgAppInfo  = "org.apache.kafka.common.utils.AppInfoParser"
	lgMetadata = "org.apache.kafka.clients.Metadata"
	lgProducer = "org.apache.kafka.clients.producer.KafkaProducer"
	lgTxnMgr   = "org.apache.kafka.clients.producer.internals.TransactionManager"
)

type producer struct {
	n         int
	clientID  string
	thread    string
	s         *sink
	cv        clientVersion
	retries   int64
	topics    []*topic
	corr      int64
	corrBase  int64
	appLogger string
	flaky     bool // configured with few retries: its retries run out
}

func (g *generator) prodSetup() error {
	cv := clientFor(g.era)
	var apps []*topic
	for _, t := range g.topics {
		if t.name != "__consumer_offsets" {
			apps = append(apps, t)
		}
	}
	loggers := []string{"com.acme.orders.OrderPublisher", "com.acme.billing.InvoiceEmitter", "com.acme.events.EventRelay", "com.acme.shipping.ShipmentNotifier"}
	for i := 1; i <= g.cfg.Producers; i++ {
		s, err := g.addSink("producer-" + strconv.Itoa(i) + "/app.log")
		if err != nil {
			return err
		}
		p := &producer{n: i, clientID: "producer-" + strconv.Itoa(i), s: s, cv: cv}
		p.thread = "kafka-producer-network-thread | " + p.clientID
		p.appLogger = loggers[(i-1)%len(loggers)]
		p.corrBase = g.r.between(10, 5000)
		// the last producer is configured with few retries and ends up
		// failing sends; the others keep the client default (1.0: 5 retries)
		p.retries = cv.defRetry
		if g.era == Era010 {
			p.retries = 5
		}
		if i == g.cfg.Producers {
			p.flaky = true
			p.retries = 2
			if g.era == Era010 {
				p.retries = 1
			}
		}
		// every producer writes to a subset of the application topics
		for j, t := range apps {
			if (j+i)%2 == 0 || len(apps) < 3 || j == i%len(apps) {
				p.topics = append(p.topics, t)
			}
		}
		if len(p.topics) == 0 {
			p.topics = apps
		}
		if g.cfg.ProducerLayout == LayoutSpring {
			s.spring = true
			s.pid = strconv.FormatInt(g.r.between(1000, 65000), 10)
		}
		ns := newNoiseSource(g, nil, nsProducer)
		ns.p = p
		ns.g = newRNG(g.cfg.Seed, "noise-"+p.clientID)
		s.noise = ns
		s.noiseWeight = 2
		g.prods = append(g.prods, p)
	}
	return nil
}

func (p *producer) begin(t int64, lv level, logger string, network bool) []byte {
	th := "main"
	if network {
		th = p.thread
	}
	x := p.s.beginT(t, lv, logger, th)
	if p.cv.prefix && logger != lgProdCfg && logger != lgAppInfo && logger != lgErrCB && logger != p.appLogger {
		x = append(x, "[Producer clientId="...)
		x = append(x, p.clientID...)
		x = append(x, "] "...)
	}
	return x
}

// prodStart writes each producer's start-up lines.
func (g *generator) prodStart(start int64) {
	for _, p := range g.prods {
		t := start + g.rnT.between(200, 5_000)
		cfg := producerConfig(p, g)
		x := p.s.beginT(t, lvINFO, lgProdCfg, "main")
		x = append(x, "ProducerConfig values: \n"...)
		for _, kv := range cfg {
			x = append(x, '\t')
			x = append(x, kv[0]...)
			x = append(x, " = "...)
			x = append(x, kv[1]...)
			x = append(x, '\n')
		}
		p.s.end(x)
		t += g.rnT.between(10, 60)
		if p.cv.idem {
			x = p.begin(t, lvINFO, lgProducer, false)
			x = append(x, "Instantiated an idempotent producer."...)
			p.s.end(x)
		}
		sep := ": "
		if p.cv.appInfoSp {
			sep = " : "
		}
		x = p.s.beginT(t, lvINFO, lgAppInfo, "main")
		x = append(x, "Kafka version"+sep+p.cv.version...)
		p.s.end(x)
		x = p.s.beginT(t, lvINFO, lgAppInfo, "main")
		x = append(x, "Kafka commitId"+sep+p.cv.commit...)
		p.s.end(x)
		if p.cv.startTime {
			x = p.s.beginT(t, lvINFO, lgAppInfo, "main")
			x = append(x, "Kafka startTimeMs: "...)
			x = ai(x, t)
			p.s.end(x)
		}
		if g.era != Era010 {
			t += g.rnT.between(50, 400)
			x = p.begin(t, lvINFO, lgMetadata, true)
			x = append(x, "Cluster ID: "...)
			x = append(x, g.clusterID()...)
			p.s.end(x)
		}
		if p.cv.idem {
			t += g.rnT.between(5, 80)
			x = p.begin(t, lvINFO, lgTxnMgr, true)
			x = append(x, "ProducerId set to "...)
			x = ai(x, int64(1000*p.n)+g.r.between(0, 999))
			x = append(x, " with epoch 0"...)
			p.s.end(x)
		}
		p.s.noise.upAt = t + 1
	}
}

func (g *generator) clusterID() string {
	if g.kc != nil {
		return g.kc.clusterID
	}
	if g.zkClusterID == "" {
		g.zkClusterID = newRNG(g.cfg.Seed, "cluster-id").uuid22()
	}
	return g.zkClusterID
}

// producerConfig returns the ProducerConfig dump in key order.
func producerConfig(p *producer, g *generator) [][2]string {
	var servers []byte
	servers = append(servers, '[')
	for i := range g.brokers {
		if i > 0 {
			servers = append(servers, ", "...)
		}
		servers = append(servers, "kafka-"...)
		servers = ai(servers, int64(i+1))
		servers = append(servers, ":9092"...)
	}
	servers = append(servers, ']')
	v := p.cv.version
	cid := p.clientID
	acks := "1"
	idem := "false"
	if v >= "3" {
		acks = "-1"
		idem = "true"
	}
	if v == "1.0.2" || v == "2.3.1" {
		cid = ""
	}
	kv := map[string]string{
		"acks":                                     acks,
		"batch.size":                               "16384",
		"bootstrap.servers":                        string(servers),
		"buffer.memory":                            "33554432",
		"client.id":                                cid,
		"compression.type":                         "none",
		"connections.max.idle.ms":                  "540000",
		"enable.idempotence":                       idem,
		"interceptor.classes":                      "[]",
		"key.serializer":                           "class org.apache.kafka.common.serialization.StringSerializer",
		"linger.ms":                                "0",
		"max.block.ms":                             "60000",
		"max.in.flight.requests.per.connection":    "5",
		"max.request.size":                         "1048576",
		"metadata.max.age.ms":                      "300000",
		"metric.reporters":                         "[]",
		"metrics.num.samples":                      "2",
		"metrics.recording.level":                  "INFO",
		"metrics.sample.window.ms":                 "30000",
		"partitioner.class":                        "class org.apache.kafka.clients.producer.internals.DefaultPartitioner",
		"receive.buffer.bytes":                     "32768",
		"reconnect.backoff.max.ms":                 "1000",
		"reconnect.backoff.ms":                     "50",
		"request.timeout.ms":                       "30000",
		"retries":                                  strconv.FormatInt(p.retries, 10),
		"retry.backoff.ms":                         "100",
		"sasl.jaas.config":                         "null",
		"sasl.kerberos.kinit.cmd":                  "/usr/bin/kinit",
		"sasl.kerberos.min.time.before.relogin":    "60000",
		"sasl.kerberos.service.name":               "null",
		"sasl.kerberos.ticket.renew.jitter":        "0.05",
		"sasl.kerberos.ticket.renew.window.factor": "0.8",
		"sasl.mechanism":                           "GSSAPI",
		"security.protocol":                        "PLAINTEXT",
		"send.buffer.bytes":                        "131072",
		"ssl.cipher.suites":                        "null",
		"ssl.enabled.protocols":                    "[TLSv1.2, TLSv1.1, TLSv1]",
		"ssl.endpoint.identification.algorithm":    "null",
		"ssl.key.password":                         "null",
		"ssl.keymanager.algorithm":                 "SunX509",
		"ssl.keystore.location":                    "null",
		"ssl.keystore.password":                    "null",
		"ssl.keystore.type":                        "JKS",
		"ssl.protocol":                             "TLS",
		"ssl.provider":                             "null",
		"ssl.secure.random.implementation":         "null",
		"ssl.trustmanager.algorithm":               "PKIX",
		"ssl.truststore.location":                  "null",
		"ssl.truststore.password":                  "null",
		"ssl.truststore.type":                      "JKS",
		"transaction.timeout.ms":                   "60000",
		"transactional.id":                         "null",
		"value.serializer":                         "class org.apache.kafka.common.serialization.StringSerializer",
	}
	if v != "1.0.2" {
		kv["client.dns.lookup"] = "default"
		kv["delivery.timeout.ms"] = "120000"
		kv["sasl.client.callback.handler.class"] = "null"
		kv["sasl.login.callback.handler.class"] = "null"
		kv["sasl.login.class"] = "null"
		kv["sasl.login.refresh.buffer.seconds"] = "300"
		kv["sasl.login.refresh.min.period.seconds"] = "60"
		kv["sasl.login.refresh.window.factor"] = "0.8"
		kv["sasl.login.refresh.window.jitter"] = "0.05"
		kv["ssl.endpoint.identification.algorithm"] = "https"
		kv["ssl.enabled.protocols"] = "[TLSv1.2, TLSv1.1, TLSv1]"
	}
	if v >= "2.8" {
		kv["client.dns.lookup"] = "use_all_dns_ips"
		kv["metadata.max.idle.ms"] = "300000"
		kv["security.providers"] = "null"
		kv["socket.connection.setup.timeout.max.ms"] = "30000"
		kv["socket.connection.setup.timeout.ms"] = "10000"
		kv["ssl.enabled.protocols"] = "[TLSv1.2, TLSv1.3]"
		kv["ssl.protocol"] = "TLSv1.3"
		kv["ssl.engine.factory.class"] = "null"
		kv["ssl.keystore.certificate.chain"] = "null"
		kv["ssl.keystore.key"] = "null"
		kv["ssl.truststore.certificates"] = "null"
		kv["internal.auto.downgrade.txn.commit"] = "false"
	}
	if v >= "3" {
		delete(kv, "internal.auto.downgrade.txn.commit")
		kv["compression.gzip.level"] = "-1"
		kv["compression.lz4.level"] = "9"
		kv["compression.zstd.level"] = "3"
		kv["enable.metrics.push"] = "true"
		kv["metric.reporters"] = "[org.apache.kafka.common.metrics.JmxReporter]"
		kv["partitioner.adaptive.partitioning.enable"] = "true"
		kv["partitioner.availability.timeout.ms"] = "0"
		kv["partitioner.class"] = "null"
		kv["partitioner.ignore.keys"] = "false"
		kv["retry.backoff.max.ms"] = "1000"
		kv["sasl.login.connect.timeout.ms"] = "null"
		kv["sasl.login.read.timeout.ms"] = "null"
		kv["sasl.login.retry.backoff.max.ms"] = "10000"
		kv["sasl.login.retry.backoff.ms"] = "100"
		kv["sasl.oauthbearer.clock.skew.seconds"] = "30"
		kv["sasl.oauthbearer.expected.audience"] = "null"
		kv["sasl.oauthbearer.expected.issuer"] = "null"
		kv["sasl.oauthbearer.jwks.endpoint.url"] = "null"
		kv["sasl.oauthbearer.scope.claim.name"] = "scope"
		kv["sasl.oauthbearer.sub.claim.name"] = "sub"
		kv["sasl.oauthbearer.token.endpoint.url"] = "null"
	}
	keys := slices.Sorted(maps.Keys(kv))
	out := make([][2]string, len(keys))
	for i, k := range keys {
		out[i] = [2]string{k, kv[k]}
	}
	return out
}

// ---------------------------------------------------------------------
// errors

// writeError writes one failed produce response for partition p at t and
// records it in the truth. attemptsLeft < 0 means the batch is not retried
// any more (final failure).
func (g *generator) writeError(pr *producer, p *part, t int64, attemptsLeft int64) {
	// correlation ids grow with time (about 3 requests per ms); errors are
	// generated per election, not in time order
	pr.corr = pr.corrBase + (t-g.cfg.Start.UnixMilli())*3 + int64(p.gidx%3)
	cv := pr.cv
	final := attemptsLeft < 0
	if !final {
		x := pr.begin(t, lvWARN, lgSender, true)
		x = append(x, "Got error produce response with correlation id "...)
		x = ai(x, pr.corr)
		x = append(x, " on topic-partition "...)
		x = append(x, p.name...)
		x = append(x, ", retrying ("...)
		x = ai(x, attemptsLeft)
		x = append(x, " attempts left). Error: "...)
		x = append(x, cv.errName...)
		pr.s.end(x)
	} else {
		x := pr.s.beginT(t, lvERROR, lgErrCB, pr.thread)
		x = append(x, "Error when sending message to topic "...)
		x = append(x, p.t.name...)
		x = append(x, " with key: null, value: "...)
		x = ai(x, g.r.between(20, 900))
		x = append(x, " bytes with error:"...)
		x = pr.s.endMsg(x)
		x = append(x, cv.exc...)
		x = append(x, '\n')
		pr.s.end(x)
	}
	if cv.p2 {
		x := pr.begin(t, lvWARN, lgSender, true)
		x = append(x, "Received invalid metadata error in produce request on partition "...)
		x = append(x, p.name...)
		x = append(x, " due to "...)
		x = append(x, cv.exc...)
		if cv.p2Dot {
			x = append(x, '.')
		}
		x = append(x, " Going to request metadata update now"...)
		pr.s.end(x)
	}
	pe := &ProducerError{Time: t, ClientID: pr.clientID, Topic: p.t.name, Partition: p.idx, Error: cv.errName, AttemptsLeft: attemptsLeft, Final: final}
	if final {
		pe.AttemptsLeft = -1
	}
	g.tr.ProducerErrors = append(g.tr.ProducerErrors, pe)
}

// retryBackoffMs is the producers' retry.backoff.ms (their config block).
const retryBackoffMs = 100

// prodAfterIncident places NOT_LEADER errors around the elections created
// by the last event: during the window in which the old leader already
// refuses produce requests, and after the end (stale metadata).
func (g *generator) prodAfterIncident(from int) {
	els := g.tr.Elections[from:]
	for _, e := range els {
		e.finalize()
	}
	for _, e := range els {
		if e.PreviousLeader < 0 || e.PreviousLeader == e.Leader || !e.alive || e.deposedAt == 0 {
			continue
		}
		if g.r.chance(0.45) {
			continue
		}
		var cands []*producer
		for _, pr := range g.prods {
			for _, t := range pr.topics {
				if t.name == e.Topic {
					cands = append(cands, pr)
				}
			}
		}
		if len(cands) == 0 {
			continue
		}
		pr := cands[g.r.intn(len(cands))]
		p := g.partByName(e.Topic, e.Partition)
		lo, hi := e.deposedAt, e.End
		if hi < lo {
			hi = lo
		}
		t := g.r.between(lo, hi)
		left := pr.retries - 1
		if pr.retries <= 0 {
			continue
		}
		g.writeError(pr, p, t, left)
		// retries of the same batch: stale metadata, then either success or
		// (few retries configured) a final failure
		n := 0
		if pr.flaky && g.r.chance(0.4) {
			n = int(pr.retries) // exhaust the retries: the last one is final
		} else if g.r.chance(0.3) {
			n = 1
		}
		tt := e.End
		for k := 1; k <= n; k++ {
			tt += g.r.between(100, 600)
			// The resend of a failed batch waits retry.backoff.ms (100)
			// after the failure (RecordAccumulator.ready): no attempt of
			// the same batch, final or not, comes sooner.
			if tt < t+retryBackoffMs {
				tt = t + retryBackoffMs
			}
			left--
			g.writeError(pr, p, tt, left)
			t = tt
		}
	}
}

func (g *generator) partByName(topic string, idx int32) *part {
	for _, t := range g.topics {
		if t.name == topic {
			return t.parts[idx]
		}
	}
	return nil
}

// scheduleNone plans the next error that belongs to no election.
func (g *generator) scheduleNone(t int64) {
	g.schedule(t+g.rnT.between(120_000, 900_000), evProducerNone, 0)
}

func (g *generator) prodNoneError(t int64) {
	g.scheduleNone(t)
	pr := g.prods[g.r.intn(len(g.prods))]
	if len(pr.topics) == 0 || pr.retries <= 0 {
		return
	}
	tp := pr.topics[g.r.intn(len(pr.topics))]
	p := tp.parts[g.r.intn(len(tp.parts))]
	if m, _, _ := Classify(p.elections, t); m != MatchNone {
		return
	}
	for _, e := range p.elections {
		if e.Start == 0 || e.End+AfterWindowMs+5000 > t {
			return // an election of this partition may still be running
		}
	}
	g.writeError(pr, p, t+g.rnT.between(0, 999), pr.retries-1)
}

// prodBrokerDown: producers lose their connection to broker x.
func (g *generator) prodBrokerDown(t int64, x int32) {
	for _, pr := range g.prods {
		tt := t + g.rnT.between(1, 40)
		if pr.cv.nodeDisc {
			m := pr.begin(tt, lvINFO, lgNetwork, true)
			m = append(m, "Node "...)
			m = ai32(m, x)
			m = append(m, " disconnected."...)
			pr.s.end(m)
		}
		n := 1 + g.r.intn(3)
		for i := 0; i < n; i++ {
			tt += g.rnT.between(50, 1000)
			m := pr.begin(tt, lvWARN, lgNetwork, true)
			m = append(m, "Connection to node "...)
			m = ai32(m, x)
			if pr.cv.version != "1.0.2" {
				m = append(m, " (kafka-"...)
				m = ai32(m, x)
				m = append(m, "/10.0.0.1"...)
				m = ai32(m, x)
				m = append(m, ":9092)"...)
			}
			m = append(m, pr.cv.connWarn...)
			pr.s.end(m)
		}
	}
}

func (g *generator) prodBrokerUp(t int64, x int32) {}

func (g *generator) prodAddTopic(tp *topic) {}
