package parser

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/gen"
)

// Noise lines as real server.logs are full of: the hot path must reject
// them without allocating.
var noiseLines = [][]byte{
	[]byte(`[2024-09-30 12:00:01,311] INFO [Log partition=orders-3, dir=/var/lib/kafka] Rolled new log segment at offset 55012 in 3 ms. (kafka.log.Log)`),
	[]byte(`[2024-09-30 12:00:01,312] INFO [GroupCoordinator 1]: Preparing to rebalance group orders-consumer in state PreparingRebalance with old generation 12 (__consumer_offsets-21) (reason: Adding new member) (kafka.coordinator.group.GroupCoordinator)`),
	[]byte(`[2024-09-30 12:00:01,313] INFO [LocalLog partition=orders-7, dir=/var/lib/kafka] Deleting segment files LogSegment(baseOffset=0, size=1048576) (kafka.log.LocalLog$)`),
	[]byte("\tat kafka.network.Processor.run(SocketServer.scala:1110)"),
}

var leadershipLines = [][]byte{
	[]byte(`[2021-04-28 16:12:30,890] INFO [Broker id=0] Leader erstesTopic-1 starts at leader epoch 10 from offset 0 with high watermark 0 ISR [0] addingReplicas [] removingReplicas []. Previous leader epoch was 9. (state.change.logger)`),
	[]byte(`[2018-07-18 16:02:27,031] TRACE [Broker id=0] Received LeaderAndIsr request PartitionState(controllerEpoch=3, leader=0, leaderEpoch=1, isr=0,2, zkVersion=1, replicas=0,2,1, isNew=false) correlation id 7 from controller 0 epoch 3 for partition my-replicated-topic-0 (state.change.logger)`),
	[]byte(`[2022-02-24 11:07:09,456] WARN [Producer clientId=producer-1] Got error produce response with correlation id 4928 on topic-partition orders-0, retrying (2147483646 attempts left). Error: NOT_LEADER_OR_FOLLOWER (org.apache.kafka.clients.producer.internals.Sender)`),
}

func benchLines(b *testing.B, lines [][]byte) {
	p := New(time.UTC)
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	emit := func(*Event) {}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			p.Line(l, emit)
		}
	}
}

func BenchmarkNoise(b *testing.B)      { benchLines(b, noiseLines) }
func BenchmarkLeadership(b *testing.B) { benchLines(b, leadershipLines) }

func BenchmarkSpringLayout(b *testing.B) {
	benchLines(b, [][]byte{
		[]byte(`2024-03-11T20:35:28.207+03:00  INFO 16076 --- [nio-8080-exec-1] o.a.k.clients.producer.KafkaProducer     : [Producer clientId=producer-2] Instantiated an idempotent producer.`),
		[]byte(`2024-03-11T20:35:28.207+03:00  WARN 16076 --- [ad | producer-2] o.a.k.clients.producer.internals.Sender  : [Producer clientId=producer-2] Got error produce response with correlation id 4711 on topic-partition orders-3, retrying (2147483646 attempts left). Error: NOT_LEADER_OR_FOLLOWER`),
	})
}

// The irrelevant-line path allocates nothing.
func TestNoiseDoesNotAllocate(t *testing.T) {
	p := New(time.UTC)
	emit := func(*Event) {}
	for _, l := range noiseLines {
		p.Line(l, emit)
	}
	allocs := testing.AllocsPerRun(200, func() {
		for _, l := range noiseLines {
			p.Line(l, emit)
		}
	})
	if allocs != 0 {
		t.Errorf("noise lines allocate %.1f times per pass", allocs)
	}
}

// The same noise behind collector prefixes (kubectl --timestamps, --prefix,
// docker-compose, journald, syslog) and Go clients' lines that are no
// leader move.
var wrappedNoiseLines = [][]byte{
	[]byte(`2024-09-30T12:00:01.311123456Z [2024-09-30 12:00:01,311] INFO [Log partition=orders-3, dir=/var/lib/kafka] Rolled new log segment at offset 55012 in 3 ms. (kafka.log.Log)`),
	[]byte(`[pod/kafka-0/kafka] [2024-09-30 12:00:01,312] INFO [GroupCoordinator 1]: Preparing to rebalance group orders-consumer in state PreparingRebalance with old generation 12 (__consumer_offsets-21) (reason: Adding new member) (kafka.coordinator.group.GroupCoordinator)`),
	[]byte(`kafka-1  | [2024-09-30 12:00:01,313] INFO [LocalLog partition=orders-7, dir=/var/lib/kafka] Deleting segment files LogSegment(baseOffset=0, size=1048576) (kafka.log.LocalLog$)`),
	[]byte(`2024-09-30T12:00:01+0000 broker1 kafka-server-start.sh[1234]: [2024-09-30 12:00:01,311] INFO [Log partition=orders-3, dir=/var/lib/kafka] Rolled new log segment at offset 55012 in 3 ms. (kafka.log.Log)`),
	[]byte(`Sep 30 12:00:01 broker1 kafka[1234]: [2024-09-30 12:00:01,311] INFO [Log partition=orders-3, dir=/var/lib/kafka] Rolled new log segment at offset 55012 in 3 ms. (kafka.log.Log)`),
	[]byte(`[Sarama] 2024/09/30 12:00:01 producer/broker/1 starting up`),
	[]byte(`2024-09-30T12:00:01.311Z [INFO] metadata update triggered; why: produce request had retry batches`),
}

func BenchmarkWrappedNoise(b *testing.B) { benchLines(b, wrappedNoiseLines) }

func BenchmarkGoClients(b *testing.B) {
	benchLines(b, [][]byte{
		[]byte(`[Sarama] 2024/03/11 20:35:28 producer/broker/1 state change to [retrying] on orders/3 because kafka server: Tried to send a message to a replica that is not the leader for some partition. Your metadata is out of date`),
		[]byte(`[Sarama] 2024/03/11 20:35:28 producer/leader/orders/3 selected broker 2`),
		[]byte(`2024-03-11T20:35:28.207Z error writing messages to orders (partition 3, attempt 2): [6] Not Leader For Partition: the client attempted to send messages to a replica that is not the leader for some partition, the client's metadata are likely out of date`),
	})
}

func TestWrappedNoiseDoesNotAllocate(t *testing.T) {
	p := New(time.UTC)
	emit := func(*Event) {}
	for _, l := range wrappedNoiseLines {
		var r Record
		if !ParseHeader(l, time.UTC, &r) {
			t.Fatalf("not a record: %s", l)
		}
		p.Line(l, emit)
	}
	allocs := testing.AllocsPerRun(200, func() {
		for _, l := range wrappedNoiseLines {
			p.Line(l, emit)
		}
	})
	if allocs != 0 {
		t.Errorf("wrapped noise lines allocate %.1f times per pass", allocs)
	}
}

// A buffer of server.log noise as the file reader hands it to Skim: log4j
// records of the busiest loggers and the stack frames and statistics lines
// between them, all taken by the fast path.
func BenchmarkSkim(b *testing.B) {
	var buf []byte
	for i := range 64 {
		sec := i % 60
		buf = fmt.Appendf(buf, "[2024-03-11 10:00:%02d,%03d] INFO [Log partition=orders-%d, dir=/var/lib/kafka/data] Rolled new log segment at offset %d in 3 ms. (kafka.log.Log)\n", sec, i*13%1000, i%12, 55012+i)
		buf = fmt.Appendf(buf, "[2024-03-11 10:00:%02d,%03d] INFO Deleting index /var/lib/kafka/data/orders-%d/00000000000000055012.timeindex.deleted (kafka.log.TimeIndex)\n", sec, i*13%1000, i%12)
		buf = fmt.Appendf(buf, "[2024-03-11 10:00:%02d,%03d] WARN [ReplicaFetcherThread-0-2], Error in fetch kafka.server.ReplicaFetcherThread$FetchRequest@%x (kafka.server.ReplicaFetcherThread)\n", sec, i*13%1000, i)
		buf = append(buf, "\tat kafka.utils.NetworkClientBlockingOps$.recursivePoll$2(NetworkClientBlockingOps.scala:137)\n\tat kafka.server.AbstractFetcherThread.doWork(AbstractFetcherThread.scala:103)\n"...)
	}
	p := New(time.UTC)
	p.Line([]byte("[2024-03-11 10:00:00,000] INFO Started (kafka.server.KafkaServer)"), func(*Event) {})
	if n := p.Skim(buf); n != len(buf) {
		b.Fatalf("Skim took %d of %d bytes: %q", n, len(buf), buf[n:min(len(buf), n+200)])
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.Skim(buf)
	}
}

// A 0.10 broker's TRACE state-change.log: every line an event.
func BenchmarkStateChange010(b *testing.B) {
	benchLines(b, [][]byte{
		[]byte(`[2024-03-11 10:00:05,763] TRACE Broker 1 cached leader info (LeaderAndIsrInfo:(Leader:1,ISR:1,3,2,LeaderEpoch:38,ControllerEpoch:32),ReplicationFactor:3),AllReplicas:1,3,2) for partition __consumer_offsets-0 in response to UpdateMetadata request sent by controller 1 epoch 32 with correlation id 2 (state.change.logger)`),
		[]byte(`[2024-03-11 10:01:12,164] TRACE Broker 1 received LeaderAndIsr request PartitionState(controllerEpoch=32, leader=1, leaderEpoch=27, isr=[1, 3], zkVersion=46, replicas=[2, 1, 3]) correlation id 11 from controller 1 epoch 32 for partition [__consumer_offsets,13] (state.change.logger)`),
		[]byte(`[2024-03-11 10:01:12,165] TRACE Broker 1 handling LeaderAndIsr request correlationId 11 from controller 1 epoch 32 starting the become-leader transition for partition __consumer_offsets-13 (state.change.logger)`),
		[]byte(`[2024-03-11 10:01:12,166] TRACE Broker 1 stopped fetchers as part of become-leader request from controller 1 epoch 32 with correlation id 11 for partition __consumer_offsets-13 (state.change.logger)`),
		[]byte(`[2024-03-11 10:01:12,166] TRACE Broker 1 completed LeaderAndIsr request correlationId 11 from controller 1 epoch 32 for the become-leader transition for partition __consumer_offsets-13 (state.change.logger)`),
		[]byte(`[2024-03-11 10:01:12,167] TRACE Controller 1 epoch 32 elected leader 3 for Offline partition [__consumer_offsets,16] (state.change.logger)`),
	})
}

// BenchmarkFiles parses every file of a generated set of each era as the
// file reader does: Skim over the buffer, the slow way (Line) for each line
// it leaves, events counted. It is the parser's share of the file audit.
func BenchmarkFiles(b *testing.B) {
	for _, era := range gen.Eras {
		b.Run(string(era), func(b *testing.B) {
			files := benchFiles(b, era)
			var size int64
			for _, f := range files {
				size += int64(len(f.data))
			}
			b.SetBytes(size)
			b.ReportAllocs()
			events := 0
			emit := func(*Event) { events++ }
			for b.Loop() {
				for _, f := range files {
					p := New(time.UTC)
					p.PathBroker = BrokerFromPath(f.path)
					for d := f.data; len(d) > 0; {
						d = d[p.Skim(d):]
						if len(d) == 0 {
							break
						}
						i := bytes.IndexByte(d, '\n')
						if i < 0 {
							i = len(d) - 1
						}
						p.Line(d[:i], emit)
						d = d[i+1:]
					}
					p.Flush(emit)
				}
			}
			b.ReportMetric(float64(events)/float64(b.N), "events/op")
		})
	}
}

type benchFile struct {
	path string
	data []byte
}

var benchFileSets = map[gen.Era][]benchFile{}

// benchFiles: the files of a 32 MB generated set (seed 1) of era, read
// into memory once per process.
func benchFiles(b *testing.B, era gen.Era) []benchFile {
	if fs, ok := benchFileSets[era]; ok {
		return fs
	}
	dir, err := os.MkdirTemp("", "leaderaudit-parser-bench-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cfg := gen.DefaultConfig()
	cfg.Era, cfg.Size, cfg.Seed = era, 32<<20, 1
	if _, err := gen.Generate(cfg, dir); err != nil {
		b.Fatal(err)
	}
	var fs []benchFile
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".log") {
			data, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			rel, _ := filepath.Rel(dir, p)
			fs = append(fs, benchFile{rel, data})
		}
		return nil
	})
	benchFileSets[era] = fs
	return fs
}
