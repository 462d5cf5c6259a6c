package gen

import (
	"maps"
	"slices"
	"strconv"
)

// Broker start-up lines (server.log). The KafkaConfig dump is one record
// of ~100 tab-indented continuation lines, as AbstractConfig.logAll writes it.

// brokerStartup writes a ZooKeeper-mode broker's start-up and returns the
// time it registered in ZooKeeper.
func (g *generator) brokerStartup(b *broker, t int64) int64 {
	g.kafkaConfigBlock(b, t)
	srv := func(tt int64, logger, msg string) {
		x := b.srv.begin(tt, lvINFO, logger)
		x = append(x, msg...)
		b.srv.end(x)
	}
	zk := "zk-1:2181,zk-2:2181,zk-3:2181"
	srv(t, lgKafkaServer, "starting")
	t += g.rnT.between(2, 20)
	srv(t, lgKafkaServer, "Connecting to zookeeper on "+zk)
	if g.era != Era010 {
		zc := "[ZooKeeperClient Kafka server] "
		srv(t, "kafka.zookeeper.ZooKeeperClient", zc+"Initializing a new session to "+zk+".")
		t += g.rnT.between(5, 60)
		srv(t, "kafka.zookeeper.ZooKeeperClient", zc+"Waiting until connected.")
		t += g.rnT.between(20, 300)
		srv(t, "kafka.zookeeper.ZooKeeperClient", zc+"Connected.")
	}
	t += g.rnT.between(50, 500)
	srv(t, lgKafkaServer, "Cluster ID = "+g.clusterID())
	if g.era != Era26Info {
		srv(t, lgLogManager, "Loading logs.")
	}
	t += g.rnT.between(300, 6000)
	if g.era != Era26Info {
		srv(t, lgLogManager, "Logs loading complete in "+strconv.FormatInt(g.rnT.between(300, 5000), 10)+" ms.")
	}
	t += g.rnT.between(20, 300)
	switch g.era {
	case Era010:
		srv(t, "kafka.network.Acceptor", "Awaiting socket connections on 0.0.0.0:9092.")
		t += g.rnT.between(50, 400)
		srv(t, "kafka.utils.ZkUtils", "Registered broker "+itoa(b.id)+" at path /brokers/ids/"+itoa(b.id)+" with addresses: EndPoint(kafka-"+itoa(b.id)+",9092,ListenerName(PLAINTEXT),PLAINTEXT)")
	case Era26Info:
		t += g.rnT.between(50, 400)
		b.epochZK += g.rnT.between(10, 400)
		srv(t, "kafka.zk.KafkaZkClient", "Registered broker "+itoa(b.id)+" at path /brokers/ids/"+itoa(b.id)+" with addresses: PLAINTEXT://kafka-"+itoa(b.id)+":9092, czxid (broker epoch): "+strconv.FormatInt(b.epochZK, 10))
	default:
		t += g.rnT.between(50, 400)
	}
	reg := t
	t += g.rnT.between(20, 400)
	g.serverLine(b, t, lvINFO, "started")
	b.upAt = t + 1 // unrelated lines start once the broker is up
	return reg
}

// kafkaConfigBlock writes the "KafkaConfig values:" record.
func (g *generator) kafkaConfigBlock(b *broker, t int64) {
	kv := map[string]string{
		"advertised.listeners":                          "PLAINTEXT://kafka-" + itoa(b.id) + ":9092",
		"auto.create.topics.enable":                     "true",
		"auto.leader.rebalance.enable":                  "true",
		"background.threads":                            "10",
		"broker.id":                                     itoa(b.id),
		"broker.rack":                                   "null",
		"compression.type":                              "producer",
		"connections.max.idle.ms":                       "600000",
		"controlled.shutdown.enable":                    "true",
		"controlled.shutdown.max.retries":               "3",
		"controlled.shutdown.retry.backoff.ms":          "5000",
		"controller.socket.timeout.ms":                  "30000",
		"default.replication.factor":                    "3",
		"delete.topic.enable":                           "true",
		"fetch.purgatory.purge.interval.requests":       "1000",
		"group.max.session.timeout.ms":                  "1800000",
		"group.min.session.timeout.ms":                  "6000",
		"inter.broker.listener.name":                    "null",
		"leader.imbalance.check.interval.seconds":       "300",
		"leader.imbalance.per.broker.percentage":        "10",
		"listener.security.protocol.map":                "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL",
		"listeners":                                     "PLAINTEXT://0.0.0.0:9092",
		"log.cleaner.backoff.ms":                        "15000",
		"log.cleaner.dedupe.buffer.size":                "134217728",
		"log.cleaner.delete.retention.ms":               "86400000",
		"log.cleaner.enable":                            "true",
		"log.cleaner.io.buffer.size":                    "524288",
		"log.cleaner.min.cleanable.ratio":               "0.5",
		"log.cleaner.threads":                           "1",
		"log.cleanup.policy":                            "[delete]",
		"log.dir":                                       "/tmp/kafka-logs",
		"log.dirs":                                      logDir,
		"log.flush.interval.messages":                   "9223372036854775807",
		"log.flush.interval.ms":                         "null",
		"log.index.interval.bytes":                      "4096",
		"log.index.size.max.bytes":                      "10485760",
		"log.preallocate":                               "false",
		"log.retention.bytes":                           "-1",
		"log.retention.check.interval.ms":               "300000",
		"log.retention.hours":                           "168",
		"log.retention.minutes":                         "null",
		"log.retention.ms":                              "null",
		"log.roll.hours":                                "168",
		"log.roll.jitter.hours":                         "0",
		"log.segment.bytes":                             "1073741824",
		"log.segment.delete.delay.ms":                   "60000",
		"max.connections.per.ip":                        "2147483647",
		"message.max.bytes":                             "1048588",
		"metric.reporters":                              "[]",
		"metrics.num.samples":                           "2",
		"metrics.sample.window.ms":                      "30000",
		"min.insync.replicas":                           "2",
		"num.io.threads":                                "8",
		"num.network.threads":                           "3",
		"num.partitions":                                strconv.Itoa(g.cfg.Partitions),
		"num.recovery.threads.per.data.dir":             "1",
		"num.replica.fetchers":                          "1",
		"offset.metadata.max.bytes":                     "4096",
		"offsets.commit.timeout.ms":                     "5000",
		"offsets.retention.check.interval.ms":           "600000",
		"offsets.retention.minutes":                     "10080",
		"offsets.topic.num.partitions":                  "50",
		"offsets.topic.replication.factor":              "3",
		"offsets.topic.segment.bytes":                   "104857600",
		"queued.max.requests":                           "500",
		"replica.fetch.backoff.ms":                      "1000",
		"replica.fetch.max.bytes":                       "1048576",
		"replica.fetch.min.bytes":                       "1",
		"replica.fetch.wait.max.ms":                     "500",
		"replica.high.watermark.checkpoint.interval.ms": "5000",
		"replica.lag.time.max.ms":                       "30000",
		"replica.socket.receive.buffer.bytes":           "65536",
		"replica.socket.timeout.ms":                     "30000",
		"request.timeout.ms":                            "30000",
		"security.inter.broker.protocol":                "PLAINTEXT",
		"socket.receive.buffer.bytes":                   "102400",
		"socket.request.max.bytes":                      "104857600",
		"socket.send.buffer.bytes":                      "102400",
		"transaction.state.log.min.isr":                 "2",
		"transaction.state.log.replication.factor":      "3",
		"unclean.leader.election.enable":                "false",
	}
	switch g.era {
	case Era010:
		kv["delete.topic.enable"] = "false"
		kv["group.max.session.timeout.ms"] = "300000"
		kv["host.name"] = ""
		kv["port"] = "9092"
		kv["inter.broker.protocol.version"] = "0.10.2-IV0"
		kv["log.message.format.version"] = "0.10.2-IV0"
		kv["message.max.bytes"] = "1000012"
		kv["offsets.retention.minutes"] = "1440"
		kv["replica.lag.time.max.ms"] = "10000"
		kv["unclean.leader.election.enable"] = "true"
		delete(kv, "transaction.state.log.min.isr")
		delete(kv, "transaction.state.log.replication.factor")
		kv["zookeeper.connect"] = "zk-1:2181,zk-2:2181,zk-3:2181"
		kv["zookeeper.connection.timeout.ms"] = "6000"
		kv["zookeeper.session.timeout.ms"] = "6000"
	case Era2xTrace:
		kv["port"] = "9092"
		kv["host.name"] = ""
		kv["inter.broker.protocol.version"] = "2.3-IV1"
		kv["log.message.format.version"] = "2.3-IV1"
		kv["group.initial.rebalance.delay.ms"] = "3000"
		kv["replica.lag.time.max.ms"] = "10000"
		kv["zookeeper.connect"] = "zk-1:2181,zk-2:2181,zk-3:2181"
		kv["zookeeper.connection.timeout.ms"] = "6000"
		kv["zookeeper.session.timeout.ms"] = "6000"
		kv["zookeeper.max.in.flight.requests"] = "10"
	case Era26Info:
		kv["inter.broker.protocol.version"] = "2.8-IV1"
		kv["log.message.format.version"] = "2.8-IV1"
		kv["group.initial.rebalance.delay.ms"] = "3000"
		kv["zookeeper.connect"] = "zk-1:2181,zk-2:2181,zk-3:2181"
		kv["zookeeper.connection.timeout.ms"] = "18000"
		kv["zookeeper.session.timeout.ms"] = "18000"
		kv["zookeeper.max.in.flight.requests"] = "10"
		kv["socket.connection.setup.timeout.ms"] = "10000"
		kv["socket.connection.setup.timeout.max.ms"] = "30000"
	default:
		delete(kv, "broker.id")
		kv["broker.id"] = itoa(b.id)
		kv["node.id"] = itoa(b.id)
		kv["process.roles"] = "broker"
		kv["controller.listener.names"] = "CONTROLLER"
		var voters []byte
		for i, c := range g.kc.ctls {
			if i > 0 {
				voters = append(voters, ',')
			}
			voters = ai32(voters, c.id)
			voters = append(voters, "@kraft-controller-"...)
			voters = ai(voters, int64(i))
			voters = append(voters, ":9093"...)
		}
		kv["controller.quorum.voters"] = string(voters)
		kv["broker.heartbeat.interval.ms"] = "2000"
		kv["broker.session.timeout.ms"] = "9000"
		kv["group.initial.rebalance.delay.ms"] = "3000"
		kv["inter.broker.protocol.version"] = "3.9-IV0"
		kv["log.message.format.version"] = "3.0-IV1"
		kv["metadata.log.dir"] = "null"
		kv["metadata.log.max.record.bytes.between.snapshots"] = "20971520"
		kv["metadata.max.idle.interval.ms"] = "500"
		kv["zookeeper.connect"] = "null"
		kv["zookeeper.session.timeout.ms"] = "18000"
	}
	keys := slices.Sorted(maps.Keys(kv))
	x := b.srv.begin(t, lvINFO, lgKafkaConfig)
	x = append(x, "KafkaConfig values: \n"...)
	for _, k := range keys {
		x = append(x, '\t')
		x = append(x, k...)
		x = append(x, " = "...)
		x = append(x, kv[k]...)
		x = append(x, '\n')
	}
	b.srv.end(x)
}
