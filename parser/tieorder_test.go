package parser

import (
	"strings"
	"testing"
)

// The examples of broker.md, each one broker's lines in the order Kafka
// writes them: the keys never go down (equal keys are lines the order of
// which the rule leaves to their text).
func TestTieKeysFollowKafkasOrder(t *testing.T) {
	examples := map[string]string{
		// §3.6, a default 2.7+ ZK broker (ReplicaManager 2.7.2 … 3.9).
		"2.7+ INFO": `[Broker id=2] Handling LeaderAndIsr request correlationId 118 from controller 1 for 6 partitions
[Broker id=2] Stopped fetchers as part of LeaderAndIsr request correlationId 118 from controller 1 epoch 27 as part of the become-leader transition for 2 partitions
[Broker id=2] Leader orders-3 starts at leader epoch 14 from offset 55012 with high watermark 55010 ISR [2,3] addingReplicas [] removingReplicas []. Previous leader epoch was 13.
[Broker id=2] Follower orders-7 starts at leader epoch 9 from offset 1200 with high watermark 1200. Previous leader epoch was 8.
[Broker id=2] Stopped fetchers as part of become-follower request from controller 1 epoch 27 with correlation id 118 for 4 partitions
[Broker id=2] Finished LeaderAndIsr request in 32ms correlationId 118 from controller 1 for 6 partitions
[Broker id=2] Add 6 partitions and deleted 0 partitions from metadata cache in response to UpdateMetadata request sent by controller 1 epoch 27 with correlation id 119`,
		// §3.1 (0.9.0.1, TRACE), broker 2 the leader; §3.3 (1.1.1) broker 3 a follower.
		"0.9 TRACE leader": `Broker 2 received LeaderAndIsr request (LeaderAndIsrInfo:(Leader:2,ISR:2,3,LeaderEpoch:14,ControllerEpoch:27),ReplicationFactor:3),AllReplicas:2,3,1) correlation id 118 from controller 1 epoch 27 for partition [orders,3]
Broker 2 handling LeaderAndIsr request correlationId 118 from controller 1 epoch 27 starting the become-leader transition for partition [orders,3]
Broker 2 stopped fetchers as part of become-leader request from controller 1 epoch 27 with correlation id 118 for partition [orders,3]
Broker 2 completed LeaderAndIsr request correlationId 118 from controller 1 epoch 27 for the become-leader transition for partition [orders,3]`,
		"1.1 TRACE follower": `[Broker id=3] Received LeaderAndIsr request PartitionState(controllerEpoch=27, leader=2, leaderEpoch=14, isr=2,3, zkVersion=41, replicas=2,3,1, isNew=false) correlation id 118 from controller 1 epoch 27 for partition orders-3
[Broker id=3] Truncated logs and checkpointed recovery boundaries for partition orders-3 as part of become-follower request with correlation id 118 from controller 1 epoch 27 with leader 2
[Broker id=3] Started fetcher to new leader as part of become-follower request from controller 1 epoch 27 with correlation id 118 for partition orders-3
[Broker id=3] Cached leader info PartitionState(controllerEpoch=27, leader=2, leaderEpoch=14, isr=[2, 3], zkVersion=41, replicas=[2, 3, 1], offlineReplicas=[]) for partition orders-3 in response to UpdateMetadata request sent by controller 1 epoch 27 with correlation id 119`,
		// §3.8, a 3.9 KRaft broker's state-change.log (ReplicaManager.applyDelta).
		"3.9 KRaft follower": `[Broker id=3] Transitioning 1 partition(s) to local followers.
[Broker id=3] Follower orders-3 starts at leader epoch 14 from offset 55012 with partition epoch 41 and high watermark 55010. Current leader is 2. Previous leader Some(1) and previous leader epoch was 13.
[Broker id=3] Stopped fetchers as part of become-follower for 1 partitions
[Broker id=3] Started fetchers as part of become-follower for 1 partitions`,
		"3.9 KRaft leader": `[Broker id=2] Transitioning 1 partition(s) to local leaders.
[Broker id=2] Leader orders-3 with topic id Some(kR2Xv9fHTwC1dYq4J0xB7g) starts at leader epoch 14 from offset 55012 with partition epoch 41, high watermark 55010, ISR [2,3], adding replicas [] and removing replicas [] . Previous leader Some(1) and previous leader epoch was 13.`,
		// §4.1, §4.2 (2.6+ INFO, then TRACE): the controller decides, then sends.
		// server.log of a 3.9 follower (sample 018): the fetcher thread,
		// once added, decides and truncates.
		"3.9 server.log": `[ReplicaFetcherManager on broker 0] Removed fetcher for partitions HashSet(__consumer_offsets-15)
[ReplicaFetcherManager on broker 0] Added fetcher to broker 1 for partitions HashMap(__consumer_offsets-15 -> InitialFetchState(Some(BukKZJJjQtKpBRI8DEf-DQ),BrokerEndPoint(id=1, host=localhost:9093),0,0))
[ReplicaFetcher replicaId=0, leaderId=1, fetcherId=0] Truncating partition __consumer_offsets-15 with TruncationState(offset=0, completed=true) due to local high watermark 0
[UnifiedLog partition=__consumer_offsets-15, dir=/tmp/kafka-logs-0] Truncating to 0 has no effect as the largest offset in the log is -1`,
		// server.log of a 0.10 follower: makeFollowers truncates between
		// removing and adding the fetcher.
		"0.10 server.log": `[ReplicaFetcherManager on broker 2] Removed fetcher for partitions orders-3
Truncating log orders-3 to offset 55012.
[ReplicaFetcherManager on broker 2] Added fetcher for partitions List([orders-3, initOffset 55012 to broker BrokerEndPoint(1,kafka-1,9092)] )`,
		"controller": `[Controller id=1 epoch=27] Changed partition orders-3 from OnlinePartition to OnlinePartition with state LeaderAndIsr(leader=2, leaderEpoch=14, isr=List(2, 3), zkVersion=41)
[Controller id=1 epoch=27] Sending become-leader LeaderAndIsr request LeaderAndIsrPartitionState(topicName='orders', partitionIndex=3, controllerEpoch=27, leader=2, leaderEpoch=14, isr=[2, 3], zkVersion=41, replicas=[2, 3, 1], addingReplicas=[], removingReplicas=[], isNew=false) to broker 2 for partition orders-3
[Controller id=1 epoch=27] Sending UpdateMetadata request to brokers Set(1, 2, 3) for 1 partitions`,
	}
	for name, ex := range examples {
		lines := strings.Split(ex, "\n")
		var prev TieKey
		corr := int64(-1)
		for i, l := range lines {
			k := TieKeyOf([]byte(l))
			if !k.Placed() {
				t.Errorf("%s: no rule places %q", name, l)
			}
			// As internal/source does: lines naming no request take the
			// LeaderAndIsr request's, and no broker the broker's.
			if k.Request && corr < 0 {
				corr = k.Corr
			}
			if k.Side == 1 && k.Corr < 0 && k.Partition == nil {
				k.Corr = corr
			}
			if k.Writer == Unknown {
				k.Writer = prev.Writer
			}
			if i > 0 && k.Less(prev) {
				t.Errorf("%s: %q goes before the line above it (%+v < %+v)", name, l, k, prev)
			}
			prev = k
		}
	}
}

// Lines the audit does not read order by their text only.
func TestTieKeyOfNoise(t *testing.T) {
	for _, l := range []string{
		"[GroupMetadataManager brokerId=2] Removed 0 expired offsets in 0 milliseconds.",
		"[ReplicaFetcher replicaId=2, leaderId=1, fetcherId=0] Starting",
		"[Controller id=0 epoch=2] Changed state of replica 0 for partition metadata_topic-2 from NewReplica to OnlineReplica",
	} {
		if k := TieKeyOf([]byte(l)); k.Placed() {
			t.Errorf("%q is placed: %+v", l, k)
		}
	}
}
