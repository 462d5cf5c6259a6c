// Package gen writes deterministic, synthetic Kafka incident data sets:
// broker, controller and producer logs in the exact line formats of a chosen
// Kafka version, plus truth.jsonl, the ground truth of every leader
// election in them and of every producer NOT_LEADER error, in the output
// schema of leaderaudit so that tests can compare the two directly.
//
// # Usage
//
//	tr, err := gen.Generate(cfg, dir)   // cfg from gen.DefaultConfig()
//
//	leaderaudit-gen --era 2.6-info --brokers 3 --partitions 12 --topics 4 \
//	    --seed 1 --size 1GB --noise 20 --start 2024-03-11T10:00:00 --tz UTC --out DIR
//
// The same Config (seed included) always produces byte-identical files.
//
// # Eras
//
// Each era is rendered as one Kafka release; every format string was
// checked against that release's source (apache/kafka tags):
//
//	era        broker (ZK/KRaft)                        producer client
//	0.10       0.10.2.2, ZK, state-change at TRACE      1.0.2 (retries=5; the last producer retries=1)
//	2.x-trace  2.3.1,    ZK, state-change at TRACE      2.3.1 (retries=MAX; the last producer retries=2)
//	2.6-info   2.8.2,    ZK, state-change at INFO       2.8.2 (idem)
//	kraft      3.9,      KRaft, dedicated controllers   3.9.0 (idem)
//
// 1.0.2 stands in for the 0.10 era's clients because a 0.10 producer has no
// "[Producer clientId=...]" prefix and, with its default retries=0, logs no
// NOT_LEADER line at all.
//
// # Files
//
//	DIR/broker-<id>/state-change.log   ZK: the broker's state.change.logger lines, and on the
//	                                   active controller also the controller's (both loggers
//	                                   write state-change.log in Kafka's log4j.properties)
//	DIR/broker-<id>/controller.log     ZK: kafka.controller.* of the active controller (the
//	                                   other brokers' files stay nearly empty); KRaft: empty
//	DIR/broker-<id>/server.log         everything else, including the unrelated lines
//	DIR/controller-<id>/controller.log KRaft only: dedicated quorum nodes 3000, 3001, ...; the
//	                                   active one writes the fencing / controlled shutdown /
//	                                   balancing / topic creation lines
//	DIR/producer-<n>/app.log           producer applications (log4j layout, or Spring Boot 3
//	                                   console layout with --producer-layout spring)
//	DIR/truth.jsonl                    the ground truth
//
// Lines use log4j's "[%d] %p %m (%c)%n" with timestamps in the configured
// zone and no offset. Multi-line records: Java stack traces (tab-indented
// "at" frames, "Caused by:", "... N more"), the "KafkaConfig values:" and
// "ProducerConfig values:" dumps (the logger then stands alone on the last
// line: " (org.apache...)"), and the log cleaner's statistics.
//
// # What happens
//
// The logs begin with a cluster start: every broker starts, the controller
// comes up last and sends every broker the current leaders (so the previous
// leader of every later election can be read from the logs). Then, in a
// loop: a broker is stopped with a controlled shutdown or crashes (ZK: the
// controller notices when the ZooKeeper session expires; KRaft: when the
// broker session times out), restarts 0.5-4 minutes later, rejoins the
// ISRs, and the next auto-rebalance check moves the preferred leaderships
// back (ZK: every 300 s on the controller; KRaft: maybeBalancePartitionLeaders
// 300 s after unfencing). Sometimes a topic is created instead, and in
// KRaft the controller quorum occasionally changes leader. If the
// controller broker itself fails, another broker takes over with the next
// controller epoch. Elections of one trigger come in a burst within the
// same second; 0.10.2 handles controlled shutdown and preferred elections
// one partition per request, later versions batch them.
//
// ZK controllers also bump the leader epoch when they remove a replica of a
// failed or stopped broker from an ISR (same leader, new epoch): these are
// elections with previous_leader == leader. KRaft (metadata.version >= 3.6)
// does not bump the leader epoch for ISR changes; brokers then log
// "Skipped the become-leader/follower state change ...", which is not an
// election. Re-sends with an unchanged epoch (controller failover, broker
// restart, the OfflineReplica transition after a move) are logged by the
// brokers as "Ignoring LeaderAndIsr request ... matches the current leader
// epoch" (0.10: "ignoring ... is not higher than") and are not elections.
//
// # Truth
//
// One JSON object per line; elections first (ordered by start, topic,
// partition), then producer errors (ordered by time). Times are RFC 3339
// with milliseconds and the zone's offset.
//
// An election is one leader-epoch change of one partition. leader_epoch is
// the new epoch; previous_leader is the leader before (null for a new
// partition). controller is the deciding controller (ZK broker id; KRaft the
// active quorum node id) and controller_epoch its ZK controller epoch
// (null in KRaft, where partition states carry controllerEpoch=-1). cause is
// broker_failure, controlled_shutdown, preferred_election or new_partition.
// decided is the time of the controller line that carries the decision:
//
//	0.10       "Controller K epoch E changed partition [t,p] from S to OnlinePartition with leader L"
//	           (a broker failure: the earlier controller.log "[OfflinePartitionLeaderSelector]: Selected
//	           new leader and ISR {...}", which names the epoch);
//	           same-leader bumps: controller.log "New leader and ISR for partition [t,p] is {...}"
//	2.x-trace  "Changed partition t-p from S to OnlinePartition with state LeaderAndIsr(...)";
//	           same-leader bumps: "Changed state of replica R for partition t-p from OnlineReplica to OfflineReplica"
//	2.6-info   "Changed partition t-p from S to OnlinePartition with state LeaderAndIsr(...)";
//	           same-leader bumps: "Partition t-p state changed to (...) after removing replica R ..."
//	kraft      the trigger on the active controller: "handleBrokerFenced: changing N partition(s)",
//	           "enterControlledShutdown[X]: changing N partition(s)", "maybeBalancePartitionLeaders: ...",
//	           "Replayed PartitionRecord for new partition t-p ..."
//
// start is the earliest and end the latest of: decided, every controller
// line naming the partition (e.g. "started leader election for partition",
// "Sending become-leader LeaderAndIsr request ... for partition t-p",
// 2.x-trace "Changed partition t-p state from OnlinePartition to
// OfflinePartition"), and every phase below; duration_ms = end - start.
// brokers lists each broker that wrote a phase line for the election (in
// the TRACE eras that includes brokers outside the replica set, whose only
// line is the per-partition "cached leader info"), role "leader" for the
// new leader and "follower" otherwise. Phases (a
// request-level line sets the phase of every partition in the request):
//
//	phase             0.10 / 2.x-trace (state-change TRACE)          2.6-info                                   kraft
//	received          received / Received LeaderAndIsr request ...   -                                          -
//	handling          handling / Handling ... transition ...         Handling LeaderAndIsr request ... for N    Transitioning N partition(s) to local leaders./followers.
//	stopped_fetchers  stopped / Stopped fetchers ... for partition   Stopped fetchers as part of ...            Stopped fetchers as part of become-follower for N partitions
//	                  (or server.log "Removed fetcher for partitions ...", whichever comes first; the stopping
//	                  KRaft broker: "Stopped fetchers as part of controlled shutdown for N partitions")
//	truncated         truncated / Truncated logs ...                 server.log "[Log ...] Truncating to ..."    server.log "Truncating partition t-p with TruncationState(...)"
//	                                                                 (the deposed leader's tail)                (the deposed leader's tail)
//	started_fetcher   started / Started fetcher to new leader ...    server.log "Added fetcher to broker L ..."  Started fetchers as part of become-follower for N partitions
//	completed         completed / Completed LeaderAndIsr request ... -                                          -
//	cached            cached / Cached leader info ...                Add N partitions and deleted 0 ...         -
//	                                                                 (every broker the UpdateMetadata
//	                                                                 carrying the election went to)
//	epoch_start       2.x-trace only: server.log "[Partition t-p     Leader / Follower t-p starts at leader     Leader t-p with topic id ... / Follower t-p starts at ...
//	                  broker=N] t-p starts at Leader Epoch E ..."    epoch E ...
//	finished          -                                              Finished LeaderAndIsr request in Xms ...   -
//
// Only the phases a broker actually wrote are present (a same-leader bump
// in 0.10 writes "skipped the become-... state change" instead of the
// fetcher steps; a crashed old leader writes nothing).
//
// What the election took, from decided (or start when no decision line is
// written), leaving out the brokers that were down or shutting down when it
// was decided (marked "catch_up": true; a returning broker's later
// re-apply is not in the truth): leader_ready_ms → the new leader's
// completed, else epoch_start, else finished; isr_applied_ms → the last
// non-cached phase of every replica in the ISR the decision set;
// propagated_ms → the last cached phase (null when no cached line is
// written, as in KRaft).
//
// A carried_over record ({"type":"carried_over", topic, partition,
// leader_epoch, leader}, after the elections) is the epoch a partition had
// when the logs begin: the cluster start re-sends and re-applies it, no
// line decides it, and it is not an election.
//
// A producer_error is one failed produce response: the Sender's
// "Got error produce response ... retrying (N attempts left). Error: X"
// (attempts_left = N, final = false), or, when the retries are used up, the
// ErrorLoggingCallback's "Error when sending message to topic T ..." ERROR
// with the exception on the next line (attempts_left = null, final = true).
// Clients 2.0+ follow either with "Received invalid metadata error ...",
// which belongs to the same error. match, election and lag_ms come from
// Classify: "during" if start <= time <= end of an election of the same
// partition (lag_ms = time - start), else "after" if the time is within
// AfterWindowMs (2 s) after an election's end (lag_ms = time - end), else
// "none". Errors are placed while the deposed leader already refuses
// produce requests (from its become-follower line to the end), 100 ms - 2 s
// after the end (stale metadata, retries), and a few away from any election.
//
// # Noise
//
// About Config.Noise unrelated records per incident record: log segment
// rolls with producer snapshots, retention deletions, group coordinator
// rebalances and member expiry, offset expiry, the log cleaner (in Kafka's
// default log4j.properties it writes log-cleaner.log; here it goes to
// server.log as in one-stream container setups), replica fetcher errors
// and request handler errors with stack traces, ZooKeeper client
// reconnects (2.x eras) and KRaft snapshots. Unrelated lines are spread
// uniformly over time, only while the writing broker runs, at no more than
// noiseRate; what does not fit a quiet window is carried into the next.
package gen
