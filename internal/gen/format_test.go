package gen

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The expected lines below are written out by hand from the format strings
// quoted in shared/formats/broker.md and client.md (Kafka source of each
// era's version), filled in with the fixed values of the scenario:
// partition orders-3, replicas [2,3,1], leader 1 -> 2, leader epoch
// 13 -> 14, ISR [1,2,3] -> [2,3], zkVersion/partition epoch 40 -> 41,
// controller 1 at epoch 27, every controller->broker channel at correlation
// id 117 (so the LeaderAndIsr is 118 and the UpdateMetadata 119), log end
// offset 55012, high watermark 55010. "{N}" stands for any integer (values
// that depend on simulated timing).

// testGen builds a small generator with that fixed state.
func testGen(t *testing.T, era Era) (*generator, *part) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Era = era
	cfg.Topics, cfg.Partitions, cfg.OffsetsPartitions, cfg.Producers = 1, 4, 0, 1
	g := &generator{cfg: cfg, dir: t.TempDir(), era: era, loc: time.UTC,
		r: newRNG(1, "sim"), rnT: newRNG(1, "timing"), rnN: newRNG(1, "noise-alloc"), tr: &Truth{Location: time.UTC}}
	if err := g.setup(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.closeAll() })
	tp := g.topics[0]
	tp.name = "orders"
	tp.id = "kR2Xv9fHTwC1dYq4J0xB7g"
	for _, p := range tp.parts {
		p.name = "orders-" + strconv.Itoa(int(p.idx))
		p.bname = "[orders," + strconv.Itoa(int(p.idx)) + "]"
		p.rate = 0
	}
	p := tp.parts[3]
	p.replicas = []int32{2, 3, 1}
	p.leader, p.epoch, p.isr, p.zkv, p.cep = 1, 13, []int32{1, 2, 3}, 40, 27
	p.leo, p.hw = 55012, 55010
	for _, b := range g.brokers {
		b.corr = 117
		b.local[p.gidx] = localView{known: true, leader: 1, epoch: 13}
	}
	g.ctl, g.ctlEpoch = 1, 27
	if era == EraKRaft {
		g.kc.active = 3000
	}
	return g, p
}

// isolate keeps broker 1 out of every other partition so that a change of
// broker 1 touches orders-3 only.
func isolate(g *generator, p *part) {
	for _, q := range g.parts {
		if q != p {
			q.replicas = []int32{2, 3}
			q.isr = []int32{2, 3}
			q.leader = 2
			for _, b := range g.brokers {
				b.local[q.gidx] = localView{known: true, leader: 2, epoch: q.epoch}
			}
		}
	}
}

// pending renders every pending record of every sink as
// "LEVEL message (logger)" (log4j layout without the timestamp).
func pending(g *generator) map[string][]string {
	out := map[string][]string{}
	for _, s := range g.sinks {
		for _, r := range s.pending {
			msg := string(s.arena[r.a:r.b])
			line := levelNames[r.lvl] + " " + msg + " (" + r.logger + ")"
			if r.c > r.b {
				line += "\n" + strings.TrimSuffix(string(s.arena[r.b:r.c]), "\n")
			}
			out[s.name] = append(out[s.name], line)
		}
	}
	return out
}

func patternOf(want string) *regexp.Regexp {
	parts := strings.Split(want, "{N}")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return regexp.MustCompile("^" + strings.Join(parts, `-?\d+`) + "$")
}

type wantLine struct {
	file string
	line string
}

func checkLines(t *testing.T, got map[string][]string, want []wantLine) {
	t.Helper()
	for _, w := range want {
		re := patternOf(w.line)
		found := false
		for _, l := range got[w.file] {
			if re.MatchString(l) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s: missing line\n  want: %s\n  have:\n    %s", w.file, w.line, strings.Join(got[w.file], "\n    "))
		}
	}
}

const (
	b1sc = "broker-1/state-change.log"
	b2sc = "broker-2/state-change.log"
	b3sc = "broker-3/state-change.log"
	b1sv = "broker-1/server.log"
	b2sv = "broker-2/server.log"
	b3sv = "broker-3/server.log"
	b1ct = "broker-1/controller.log"
)

// TestFormatsLeaderMove moves orders-3 from broker 1 to broker 2 (controlled
// shutdown of broker 1) and checks one line of every family the era writes.
func TestFormatsLeaderMove(t *testing.T) {
	cases := map[Era][]wantLine{
		Era010: {
			{b1ct, "INFO [Partition state machine on Controller 1]: Invoking state change to OnlinePartition for partitions [orders,3] (kafka.controller.PartitionStateMachine)"},
			{b1ct, "DEBUG [ControlledShutdownLeaderSelector]: Partition [orders,3] : current leader = 1, new leader = 2 (kafka.controller.ControlledShutdownLeaderSelector)"},
			{b1sc, "TRACE Controller 1 epoch 27 started leader election for partition [orders,3] (state.change.logger)"},
			{b1sc, "TRACE Controller 1 epoch 27 elected leader 2 for Offline partition [orders,3] (state.change.logger)"},
			{b1sc, "TRACE Controller 1 epoch 27 changed partition [orders,3] from OnlinePartition to OnlinePartition with leader 2 (state.change.logger)"},
			{b1sc, "TRACE Controller 1 epoch 27 sending become-leader LeaderAndIsr request (Leader:2,ISR:2,3,LeaderEpoch:14,ControllerEpoch:27) to broker 2 for partition [orders,3] (state.change.logger)"},
			{b1sc, "TRACE Controller 1 epoch 27 sending become-follower LeaderAndIsr request (Leader:2,ISR:2,3,LeaderEpoch:14,ControllerEpoch:27) to broker 3 for partition [orders,3] (state.change.logger)"},
			{b1sc, "TRACE Controller 1 epoch 27 sending UpdateMetadata request (Leader:2,ISR:2,3,LeaderEpoch:14,ControllerEpoch:27) to brokers Set(1, 2, 3) for partition orders-3 (state.change.logger)"},
			{b2sc, "TRACE Broker 2 received LeaderAndIsr request PartitionState(controllerEpoch=27, leader=2, leaderEpoch=14, isr=[2, 3], zkVersion=41, replicas=[2, 3, 1]) correlation id 118 from controller 1 epoch 27 for partition [orders,3] (state.change.logger)"},
			{b2sc, "TRACE Broker 2 handling LeaderAndIsr request correlationId 118 from controller 1 epoch 27 starting the become-leader transition for partition orders-3 (state.change.logger)"},
			{b2sc, "TRACE Broker 2 stopped fetchers as part of become-leader request from controller 1 epoch 27 with correlation id 118 for partition orders-3 (state.change.logger)"},
			{b2sc, "TRACE Broker 2 completed LeaderAndIsr request correlationId 118 from controller 1 epoch 27 for the become-leader transition for partition orders-3 (state.change.logger)"},
			{b3sc, "TRACE Broker 3 handling LeaderAndIsr request correlationId 118 from controller 1 epoch 27 starting the become-follower transition for partition orders-3 (state.change.logger)"},
			{b3sc, "TRACE Broker 3 stopped fetchers as part of become-follower request from controller 1 epoch 27 with correlation id 118 for partition orders-3 (state.change.logger)"},
			{b3sc, "TRACE Broker 3 truncated logs and checkpointed recovery boundaries for partition orders-3 as part of become-follower request with correlation id 118 from controller 1 epoch 27 (state.change.logger)"},
			{b3sc, "TRACE Broker 3 started fetcher to new leader as part of become-follower request from controller 1 epoch 27 with correlation id 118 for partition orders-3 (state.change.logger)"},
			{b3sc, "TRACE Broker 3 completed LeaderAndIsr request correlationId 118 from controller 1 epoch 27 for the become-follower transition for partition orders-3 (state.change.logger)"},
			{b3sc, "TRACE Broker 3 cached leader info (LeaderAndIsrInfo:(Leader:2,ISR:2,3,LeaderEpoch:14,ControllerEpoch:27),ReplicationFactor:3),AllReplicas:2,3,1) for partition orders-3 in response to UpdateMetadata request sent by controller 1 epoch 27 with correlation id 119 (state.change.logger)"},
			{b3sv, "INFO [ReplicaFetcherManager on broker 3] Removed fetcher for partitions orders-3 (kafka.server.ReplicaFetcherManager)"},
			{b3sv, "INFO Truncating log orders-3 to offset 55010. (kafka.log.Log)"},
			{b3sv, "INFO [ReplicaFetcherManager on broker 3] Added fetcher for partitions List([orders-3, initOffset 55010 to broker BrokerEndPoint(2,kafka-2,9092)] ) (kafka.server.ReplicaFetcherManager)"},
		},
		Era2xTrace: {
			{b1sc, "TRACE [Controller id=1 epoch=27] Changed partition orders-3 from OnlinePartition to OnlinePartition with state LeaderAndIsr(leader=2, leaderEpoch=14, isr=List(2, 3), zkVersion=41) (state.change.logger)"},
			{b1sc, "TRACE [Controller id=1 epoch=27] Sending become-leader LeaderAndIsr request PartitionState(controllerEpoch=27, leader=2, leaderEpoch=14, isr=2,3, zkVersion=41, replicas=2,3,1, isNew=false) to broker 2 for partition orders-3 (state.change.logger)"},
			{b1sc, "TRACE [Controller id=1 epoch=27] Sending become-follower LeaderAndIsr request PartitionState(controllerEpoch=27, leader=2, leaderEpoch=14, isr=2,3, zkVersion=41, replicas=2,3,1, isNew=false) to broker 3 for partition orders-3 (state.change.logger)"},
			{b1sc, "TRACE [Controller id=1 epoch=27] Sending UpdateMetadata request PartitionState(controllerEpoch=27, leader=2, leaderEpoch=14, isr=[2, 3], zkVersion=41, replicas=[2, 3, 1], offlineReplicas=[]) to brokers Set(1, 2, 3) for partition orders-3 (state.change.logger)"},
			{b2sc, "TRACE [Broker id=2] Received LeaderAndIsr request PartitionState(controllerEpoch=27, leader=2, leaderEpoch=14, isr=2,3, zkVersion=41, replicas=2,3,1, isNew=false) correlation id 118 from controller 1 epoch 27 for partition orders-3 (state.change.logger)"},
			{b2sc, "TRACE [Broker id=2] Handling LeaderAndIsr request correlationId 118 from controller 1 epoch 27 starting the become-leader transition for partition orders-3 (state.change.logger)"},
			{b2sc, "TRACE [Broker id=2] Stopped fetchers as part of become-leader request from controller 1 epoch 27 with correlation id 118 for partition orders-3 (last update controller epoch 27) (state.change.logger)"},
			{b2sc, "TRACE [Broker id=2] Completed LeaderAndIsr request correlationId 118 from controller 1 epoch 27 for the become-leader transition for partition orders-3 (state.change.logger)"},
			{b2sc, "TRACE [Broker id=2] Cached leader info PartitionState(controllerEpoch=27, leader=2, leaderEpoch=14, isr=[2, 3], zkVersion=41, replicas=[2, 3, 1], offlineReplicas=[]) for partition orders-3 in response to UpdateMetadata request sent by controller 1 epoch 27 with correlation id 119 (state.change.logger)"},
			{b2sv, "INFO [ReplicaFetcherManager on broker 2] Removed fetcher for partitions Set(orders-3) (kafka.server.ReplicaFetcherManager)"},
			{b2sv, "INFO [Partition orders-3 broker=2] orders-3 starts at Leader Epoch 14 from offset {N}. Previous Leader Epoch was: 13 (kafka.cluster.Partition)"},
			{b3sc, "TRACE [Broker id=3] Handling LeaderAndIsr request correlationId 118 from controller 1 epoch 27 starting the become-follower transition for partition orders-3 with leader 2 (state.change.logger)"},
			{b3sc, "TRACE [Broker id=3] Stopped fetchers as part of become-follower request from controller 1 epoch 27 with correlation id 118 for partition orders-3 with leader 2 (state.change.logger)"},
			{b3sc, "TRACE [Broker id=3] Truncated logs and checkpointed recovery boundaries for partition orders-3 as part of become-follower request with correlation id 118 from controller 1 epoch 27 with leader 2 (state.change.logger)"},
			{b3sc, "TRACE [Broker id=3] Started fetcher to new leader as part of become-follower request from controller 1 epoch 27 with correlation id 118 for partition orders-3 with leader 2 (state.change.logger)"},
			{b3sc, "TRACE [Broker id=3] Completed LeaderAndIsr request correlationId 118 from controller 1 epoch 27 for the become-follower transition for partition orders-3 with leader 2 (state.change.logger)"},
			{b3sv, "INFO [ReplicaFetcherManager on broker 3] Added fetcher to broker BrokerEndPoint(id=2, host=kafka-2:9092) for partitions Map(orders-3 -> (offset=55010, leaderEpoch=14)) (kafka.server.ReplicaFetcherManager)"},
		},
		Era26Info: {
			{b1sc, "INFO [Controller id=1 epoch=27] Changed partition orders-3 from OnlinePartition to OnlinePartition with state LeaderAndIsr(leader=2, leaderEpoch=14, isr=List(2, 3), zkVersion=41) (state.change.logger)"},
			{b1sc, "INFO [Controller id=1 epoch=27] Sending LeaderAndIsr request to broker 2 with 1 become-leader and 0 become-follower partitions (state.change.logger)"},
			{b1sc, "INFO [Controller id=1 epoch=27] Sending LeaderAndIsr request to broker 3 with 0 become-leader and 1 become-follower partitions (state.change.logger)"},
			{b1sc, "INFO [Controller id=1 epoch=27] Sending UpdateMetadata request to brokers HashSet(1, 2, 3) for 1 partitions (state.change.logger)"},
			{b2sc, "INFO [Broker id=2] Handling LeaderAndIsr request correlationId 118 from controller 1 for 1 partitions (state.change.logger)"},
			{b2sc, "INFO [Broker id=2] Stopped fetchers as part of LeaderAndIsr request correlationId 118 from controller 1 epoch 27 as part of the become-leader transition for 1 partitions (state.change.logger)"},
			{b2sc, "INFO [Broker id=2] Leader orders-3 starts at leader epoch 14 from offset {N} with high watermark 55010 ISR [2,3] addingReplicas [] removingReplicas []. Previous leader epoch was 13. (state.change.logger)"},
			{b2sc, "INFO [Broker id=2] Finished LeaderAndIsr request in {N}ms correlationId 118 from controller 1 for 1 partitions (state.change.logger)"},
			{b2sc, "INFO [Broker id=2] Add 1 partitions and deleted 0 partitions from metadata cache in response to UpdateMetadata request sent by controller 1 epoch 27 with correlation id 119 (state.change.logger)"},
			{b2sv, "INFO [ReplicaFetcherManager on broker 2] Removed fetcher for partitions Set(orders-3) (kafka.server.ReplicaFetcherManager)"},
			{b3sc, "INFO [Broker id=3] Follower orders-3 starts at leader epoch 14 from offset 55010 with high watermark 55010. Previous leader epoch was 13. (state.change.logger)"},
			{b3sc, "INFO [Broker id=3] Stopped fetchers as part of become-follower request from controller 1 epoch 27 with correlation id 118 for 1 partitions (state.change.logger)"},
			{b3sv, "INFO [ReplicaFetcherManager on broker 3] Removed fetcher for partitions HashSet(orders-3) (kafka.server.ReplicaFetcherManager)"},
			{b3sv, "INFO [ReplicaFetcherManager on broker 3] Added fetcher to broker 2 for partitions Map(orders-3 -> InitialFetchState(BrokerEndPoint(id=2, host=kafka-2:9092),14,55010)) (kafka.server.ReplicaFetcherManager)"},
			{b1sc, "INFO [Broker id=1] Follower orders-3 starts at leader epoch 14 from offset 55012 with high watermark 55010. Previous leader epoch was 13. (state.change.logger)"},
		},
	}
	for era, want := range cases {
		t.Run(string(era), func(t *testing.T) {
			g, p := testGen(t, era)
			g.zkElect(1_000_000, []*part{p}, stratControlledShutdown, CauseControlledShutdown, 1)
			got := pending(g)
			checkLines(t, got, want)
			if len(p.elections) != 1 {
				t.Fatalf("elections = %d, want 1", len(p.elections))
			}
			e := p.elections[0]
			if e.Leader != 2 || e.PreviousLeader != 1 || e.LeaderEpoch != 14 || e.Controller != 1 || e.ControllerEpoch != 27 {
				t.Errorf("election = %+v", e)
			}
			if e.deposedAt == 0 {
				t.Error("the old leader's become-follower time was not recorded")
			}
		})
	}
}

// TestFormatsDeposedTruncation checks the truncation of the deposed
// leader's unreplicated tail (a truncated phase in 2.6-info and kraft).
func TestFormatsDeposedTruncation(t *testing.T) {
	g, p := testGen(t, Era26Info)
	g.zkElect(1_000_000, []*part{p}, stratControlledShutdown, CauseControlledShutdown, 1)
	got := pending(g)
	newLEO := p.leo
	want := "INFO [Log partition=orders-3, dir=/var/lib/kafka/data] Truncating to offset " + strconv.FormatInt(newLEO, 10) + " (kafka.log.Log)"
	if newLEO == 55012 {
		want = "INFO [Log partition=orders-3, dir=/var/lib/kafka/data] Truncating to 55012 has no effect as the largest offset in the log is 55011 (kafka.log.Log)"
	}
	checkLines(t, got, []wantLine{{b1sv, want}})
	if p.elections[0].phaseTime(1, PhTruncated) == 0 {
		t.Error("no truncated phase for the deposed leader")
	}
}

// TestFormatsISROnly removes follower 3 from the ISR: the ZooKeeper
// controller bumps the leader epoch with the same leader.
func TestFormatsISROnly(t *testing.T) {
	cases := map[Era][]wantLine{
		Era010: {
			{b1ct, "INFO [Replica state machine on controller 1]: Invoking state change to OfflineReplica for replicas [Topic=orders,Partition=3,Replica=3] (kafka.controller.ReplicaStateMachine)"},
			{b1ct, "DEBUG [Controller 1]: Removing replica 3 from ISR 1,2,3 for partition [orders,3]. (kafka.controller.KafkaController)"},
			{b1ct, `INFO [Controller 1]: New leader and ISR for partition [orders,3] is {"leader":1,"leader_epoch":14,"isr":[1,2]} (kafka.controller.KafkaController)`},
			{b1sc, "TRACE Controller 1 epoch 27 changed state of replica 3 for partition [orders,3] from OnlineReplica to OfflineReplica (state.change.logger)"},
			{b1sc, "INFO Broker 1 skipped the become-leader state change after marking its partition as leader with correlation id 118 from controller 1 epoch 27 for partition orders-3 since it is already the leader for the partition. (state.change.logger)"},
			{b2sc, "INFO Broker 2 skipped the become-follower state change after marking its partition as follower with correlation id 118 from controller 1 epoch 27 for partition orders-3 since the new leader 1 is the same as the old leader (state.change.logger)"},
		},
		Era2xTrace: {
			{b1sc, "TRACE [Controller id=1 epoch=27] Changed state of replica 3 for partition orders-3 from OnlineReplica to OfflineReplica (state.change.logger)"},
			{b1sc, "INFO [Broker id=1] Skipped the become-leader state change after marking its partition as leader with correlation id 118 from controller 1 epoch 27 for partition orders-3 (last update controller epoch 27) since it is already the leader for the partition. (state.change.logger)"},
			{b2sc, "TRACE [Broker id=2] Stopped fetchers as part of become-follower request from controller 1 epoch 27 with correlation id 118 for partition orders-3 with leader 1 (state.change.logger)"},
		},
		Era26Info: {
			{b1sc, "INFO [Controller id=1 epoch=27] Partition orders-3 state changed to (Leader:1,ISR:1,2,LeaderEpoch:14,ZkVersion:41,ControllerEpoch:27) after removing replica 3 from the ISR as part of transition to OfflineReplica (state.change.logger)"},
			{b1sc, "INFO [Broker id=1] Leader orders-3 starts at leader epoch 14 from offset 55012 with high watermark 55010 ISR [1,2] addingReplicas [] removingReplicas []. Previous leader epoch was 13. (state.change.logger)"},
			{b1sc, "INFO [Broker id=1] Skipped the become-leader state change after marking its partition as leader with correlation id 118 from controller 1 epoch 27 for partition orders-3 (last update controller epoch 27) since it is already the leader for the partition. (state.change.logger)"},
		},
	}
	for era, want := range cases {
		t.Run(string(era), func(t *testing.T) {
			g, p := testGen(t, era)
			g.zkRemoveFromISR(1_000_000, 3, []*part{p}, CauseBrokerFailure)
			checkLines(t, pending(g), want)
			e := p.elections[0]
			if e.Leader != 1 || e.PreviousLeader != 1 || e.LeaderEpoch != 14 || e.Decided == 0 {
				t.Errorf("election = %+v", e)
			}
		})
	}
}

// TestFormatsResend: an unchanged state re-sent after a failover is not an
// election and brokers say so.
func TestFormatsResend(t *testing.T) {
	cases := map[Era]wantLine{
		Era010:     {b2sc, "WARN Broker 2 ignoring LeaderAndIsr request from controller 1 with correlation id 118 epoch 27 for partition [orders,3] since its associated leader epoch 13 is not higher than the current leader epoch 13 (state.change.logger)"},
		Era2xTrace: {b2sc, "DEBUG [Broker id=2] Ignoring LeaderAndIsr request from controller 1 with correlation id 118 epoch 27 for partition orders-3 since its associated leader epoch 13 matches the current leader epoch (state.change.logger)"},
		Era26Info:  {b2sc, "INFO [Broker id=2] Ignoring LeaderAndIsr request from controller 1 with correlation id 118 epoch 27 for partition orders-3 since its associated leader epoch 13 matches the current leader epoch (state.change.logger)"},
	}
	for era, want := range cases {
		t.Run(string(era), func(t *testing.T) {
			g, _ := testGen(t, era)
			for _, b := range g.brokers {
				for i := range b.local {
					if !b.local[i].known {
						b.local[i] = localView{known: true, leader: g.parts[i].leader, epoch: g.parts[i].epoch}
					}
				}
			}
			g.zkResendAll(1_000_000, 2)
			checkLines(t, pending(g), []wantLine{want})
			if len(g.tr.Elections) != 0 {
				t.Errorf("resend produced %d elections", len(g.tr.Elections))
			}
		})
	}
}

func TestFormatsControllerLog(t *testing.T) {
	cases := map[Era][]wantLine{
		Era010: {
			{b1ct, "INFO [BrokerChangeListener on Controller 1]: Newly added brokers: , deleted brokers: 3, all live brokers: 1,2 (kafka.controller.ReplicaStateMachine$BrokerChangeListener)"},
			{b1ct, "INFO [Controller 1]: Broker failure callback for 3 (kafka.controller.KafkaController)"},
			{b1ct, "INFO [Controller 1]: Removed ArrayBuffer() from list of shutting down brokers. (kafka.controller.KafkaController)"},
			{b1sc, "TRACE Controller 1 epoch 27 changed partition [orders,3] state from OnlinePartition to OfflinePartition (state.change.logger)"},
			{b1ct, `INFO [OfflinePartitionLeaderSelector]: Selected new leader and ISR {"leader":2,"leader_epoch":14,"isr":[2,1]} for offline partition [orders,3] (kafka.controller.OfflinePartitionLeaderSelector)`},
		},
		Era2xTrace: {
			{b1ct, "INFO [Controller id=1] Newly added brokers: , deleted brokers: 3, bounced brokers: , all live brokers: 1,2 (kafka.controller.KafkaController)"},
			{b1ct, "INFO [Controller id=1] Broker failure callback for 3 (kafka.controller.KafkaController)"},
			{b1sc, "TRACE [Controller id=1 epoch=27] Changed partition orders-3 state from OnlinePartition to OfflinePartition (state.change.logger)"},
			{b1sc, "TRACE [Controller id=1 epoch=27] Changed partition orders-3 from OfflinePartition to OnlinePartition with state LeaderAndIsr(leader=2, leaderEpoch=14, isr=List(2, 1), zkVersion=41) (state.change.logger)"},
		},
		Era26Info: {
			{b1ct, "INFO [Controller id=1] Newly added brokers: , deleted brokers: 3, bounced brokers: , all live brokers: 1,2 (kafka.controller.KafkaController)"},
			{b1ct, "INFO [Controller id=1] Broker failure callback for 3 (kafka.controller.KafkaController)"},
			{b1sc, "INFO [Controller id=1 epoch=27] Changed partition orders-3 from OfflinePartition to OnlinePartition with state LeaderAndIsr(leader=2, leaderEpoch=14, isr=List(2, 1), zkVersion=41) (state.change.logger)"},
		},
	}
	for era, want := range cases {
		t.Run(string(era), func(t *testing.T) {
			g, p := testGen(t, era)
			p.leader, p.isr = 3, []int32{3, 2, 1}
			for _, b := range g.brokers {
				b.local[p.gidx] = localView{known: true, leader: 3, epoch: 13}
			}
			g.zkCrash(1_000_000, 3)
			got := pending(g)
			checkLines(t, got, want)
			if era != Era010 {
				for _, l := range got[b1ct] {
					if strings.Contains(l, "from list of shutting down brokers") {
						t.Errorf("2.1+ logs %q only when a shutting-down broker died", l)
					}
				}
			}
			e := p.elections[0]
			if e.Cause != CauseBrokerFailure || e.Leader != 2 || e.PreviousLeader != 3 {
				t.Errorf("election = %+v", e)
			}
		})
	}
}

// TestFormatsKRaft: broker 1 is fenced; orders-3 moves to broker 2.
func TestFormatsKRaft(t *testing.T) {
	g, p := testGen(t, EraKRaft)
	isolate(g, p)
	g.brokers[0].kraftEpoch = 81
	b1 := g.brokers[0]
	b1.alive = false
	g.qa(1_000_000, lvINFO, lgRCM, "Fencing broker 1 because its session has timed out.")
	changed := g.kraftRemoveBroker(1_000_000, 1, CauseBrokerFailure)
	g.kraftDeliver(1_000_001, changed)
	const c3000 = "controller-3000/controller.log"
	leo := strconv.FormatInt(p.leo, 10)
	checkLines(t, pending(g), []wantLine{
		{c3000, "INFO [QuorumController id=3000] Fencing broker 1 because its session has timed out. (org.apache.kafka.controller.ReplicationControlManager)"},
		{b2sc, "INFO [Broker id=2] Transitioning 1 partition(s) to local leaders. (state.change.logger)"},
		{b2sv, "INFO [ReplicaFetcherManager on broker 2] Removed fetcher for partitions Set(orders-3) (kafka.server.ReplicaFetcherManager)"},
		{b2sc, "INFO [Broker id=2] Leader orders-3 with topic id Some(kR2Xv9fHTwC1dYq4J0xB7g) starts at leader epoch 14 from offset " + leo + " with partition epoch 41, high watermark 55010, ISR [2,3], adding replicas [] and removing replicas [] . Previous leader Some(1) and previous leader epoch was 13. (state.change.logger)"},
		{b3sc, "INFO [Broker id=3] Transitioning 1 partition(s) to local followers. (state.change.logger)"},
		{b3sc, "INFO [Broker id=3] Follower orders-3 starts at leader epoch 14 from offset 55010 with partition epoch 41 and high watermark 55010. Current leader is 2. Previous leader Some(2) and previous leader epoch was 14. (state.change.logger)"},
		{b3sv, "INFO [ReplicaFetcherManager on broker 3] Removed fetcher for partitions Set(orders-3) (kafka.server.ReplicaFetcherManager)"},
		{b3sc, "INFO [Broker id=3] Stopped fetchers as part of become-follower for 1 partitions (state.change.logger)"},
		{b3sv, "INFO [ReplicaFetcherManager on broker 3] Added fetcher to broker 2 for partitions HashMap(orders-3 -> InitialFetchState(Some(kR2Xv9fHTwC1dYq4J0xB7g),BrokerEndPoint(id=2, host=kafka-2:9092),14,55010)) (kafka.server.ReplicaFetcherManager)"},
		{b3sc, "INFO [Broker id=3] Started fetchers as part of become-follower for 1 partitions (state.change.logger)"},
	})
	e := p.elections[0]
	if e.Controller != 3000 || e.ControllerEpoch != -1 || e.PreviousLeader != 1 || e.Leader != 2 {
		t.Errorf("election = %+v", e)
	}
	// an ISR-only change in KRaft keeps the leader epoch: "Skipped ..." lines, no election
	g2, p2 := testGen(t, EraKRaft)
	isolate(g2, p2)
	p2.leader, p2.isr = 2, []int32{2, 3, 1}
	for _, b := range g2.brokers {
		b.local[p2.gidx] = localView{known: true, leader: 2, epoch: 13}
	}
	g2.brokers[0].alive = false
	changed = g2.kraftRemoveBroker(1_000_000, 1, CauseBrokerFailure)
	g2.kraftDeliver(1_000_001, changed)
	checkLines(t, pending(g2), []wantLine{
		{b2sc, "INFO [Broker id=2] Skipped the become-leader state change for orders-3 with topic id Some(kR2Xv9fHTwC1dYq4J0xB7g) and partition state LeaderAndIsrPartitionState(topicName='orders', partitionIndex=3, controllerEpoch=-1, leader=2, leaderEpoch=13, isr=[2, 3], partitionEpoch=41, replicas=[2, 3, 1], addingReplicas=[], removingReplicas=[], isNew=false, leaderRecoveryState=0) since it is already the leader with leader epoch 13. Current high watermark 55010, ISR [2,3], adding replicas [] and removing replicas []. (state.change.logger)"},
		{b3sc, "INFO [Broker id=3] Skipped the become-follower state change for orders-3 with topic id Some(kR2Xv9fHTwC1dYq4J0xB7g) and partition state LeaderAndIsrPartitionState(topicName='orders', partitionIndex=3, controllerEpoch=-1, leader=2, leaderEpoch=13, isr=[2, 3], partitionEpoch=41, replicas=[2, 3, 1], addingReplicas=[], removingReplicas=[], isNew=false, leaderRecoveryState=0) since it is already a follower with leader epoch 13. (state.change.logger)"},
	})
	if len(p2.elections) != 0 {
		t.Errorf("ISR-only change in KRaft produced %d elections", len(p2.elections))
	}
}

// TestFormatsProducer checks the client lines of each era's client version.
func TestFormatsProducer(t *testing.T) {
	nlof := "For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition."
	nlfp := "This server is not the leader for that topic-partition."
	const pf = "producer-1/app.log"
	cases := map[Era][]wantLine{
		Era010: {
			{pf, "WARN [Producer clientId=producer-1] Got error produce response with correlation id {N} on topic-partition orders-3, retrying (4 attempts left). Error: NOT_LEADER_FOR_PARTITION (org.apache.kafka.clients.producer.internals.Sender)"},
			{pf, "ERROR Error when sending message to topic orders with key: null, value: {N} bytes with error: (org.apache.kafka.clients.producer.internals.ErrorLoggingCallback)\norg.apache.kafka.common.errors.NotLeaderForPartitionException: " + nlfp},
		},
		Era2xTrace: {
			{pf, "WARN [Producer clientId=producer-1] Got error produce response with correlation id {N} on topic-partition orders-3, retrying (2147483646 attempts left). Error: NOT_LEADER_FOR_PARTITION (org.apache.kafka.clients.producer.internals.Sender)"},
			{pf, "WARN [Producer clientId=producer-1] Received invalid metadata error in produce request on partition orders-3 due to org.apache.kafka.common.errors.NotLeaderForPartitionException: " + nlfp + ". Going to request metadata update now (org.apache.kafka.clients.producer.internals.Sender)"},
		},
		Era26Info: {
			{pf, "WARN [Producer clientId=producer-1] Got error produce response with correlation id {N} on topic-partition orders-3, retrying (2147483646 attempts left). Error: NOT_LEADER_OR_FOLLOWER (org.apache.kafka.clients.producer.internals.Sender)"},
			{pf, "WARN [Producer clientId=producer-1] Received invalid metadata error in produce request on partition orders-3 due to org.apache.kafka.common.errors.NotLeaderOrFollowerException: " + nlof + ". Going to request metadata update now (org.apache.kafka.clients.producer.internals.Sender)"},
		},
		EraKRaft: {
			{pf, "WARN [Producer clientId=producer-1] Received invalid metadata error in produce request on partition orders-3 due to org.apache.kafka.common.errors.NotLeaderOrFollowerException: " + nlof + " Going to request metadata update now (org.apache.kafka.clients.producer.internals.Sender)"},
			{pf, "ERROR Error when sending message to topic orders with key: null, value: {N} bytes with error: (org.apache.kafka.clients.producer.internals.ErrorLoggingCallback)\norg.apache.kafka.common.errors.NotLeaderOrFollowerException: " + nlof},
		},
	}
	for era, want := range cases {
		t.Run(string(era), func(t *testing.T) {
			g, p := testGen(t, era)
			pr := g.prods[0]
			def := clientFor(era).defRetry
			if era == Era010 {
				def = 5
			}
			g.writeError(pr, p, 1_000_000, def-1)
			g.writeError(pr, p, 1_000_100, -1)
			checkLines(t, pending(g), want)
			if len(g.tr.ProducerErrors) != 2 || !g.tr.ProducerErrors[1].Final || g.tr.ProducerErrors[1].AttemptsLeft != -1 {
				t.Errorf("producer errors = %+v", g.tr.ProducerErrors)
			}
		})
	}
}

func TestAbbreviateLogger(t *testing.T) {
	for in, want := range map[string]string{
		"org.apache.kafka.clients.producer.internals.Sender":             "o.a.k.clients.producer.internals.Sender ",
		"org.apache.kafka.clients.NetworkClient":                         "org.apache.kafka.clients.NetworkClient  ",
		"org.apache.kafka.clients.producer.ProducerConfig":               "o.a.k.clients.producer.ProducerConfig   ",
		"org.apache.kafka.common.utils.AppInfoParser":                    "o.a.kafka.common.utils.AppInfoParser    ",
		"org.apache.kafka.clients.producer.internals.TransactionManager": "o.a.k.c.p.internals.TransactionManager  ",
	} {
		if got := springLogger(in); got != want {
			t.Errorf("springLogger(%q) = %q, want %q", in, got, want)
		}
	}
	if got := string(appendThread15(nil, "kafka-producer-network-thread | producer-2")); got != "ad | producer-2" {
		t.Errorf("thread = %q", got)
	}
	if got := string(appendThread15(nil, "main")); got != "           main" {
		t.Errorf("thread = %q", got)
	}
}

func TestHelpers(t *testing.T) {
	if got := javaHashCode("orders"); got != -1008770331 {
		t.Errorf("javaHashCode(orders) = %d", got)
	}
	if got := formatJavaDouble(1.0 / 3); got != "0.3333333333333333" {
		t.Errorf("formatJavaDouble = %s", got)
	}
	if got := formatJavaDouble(0); got != "0.0" {
		t.Errorf("formatJavaDouble(0) = %s", got)
	}
	if got := groupThousands(1234567); got != "1,234,567" {
		t.Errorf("groupThousands = %s", got)
	}
	for in, want := range map[string]int64{"1GB": 1e9, "500MB": 5e8, "64MiB": 64 << 20, "1e6": 1e6, "2048": 2048, "1.5 GB": 15e8} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := ParseSize("lots"); err == nil {
		t.Error("ParseSize(lots) succeeded")
	}
	r := newRNG(1, "x")
	if u := r.uuid22(); len(u) != 22 || strings.ContainsAny(u, "+/=") {
		t.Errorf("uuid22 = %q", u)
	}
}
