package parser

import "bytes"

// TieKey places a record among the records of one log file that carry the
// same millisecond, from what the record says. A log store that was not
// sent the shipper's file offset (Vector, Fluent Bit, Promtail/Alloy send
// none by default) returns such records in no particular order, and the
// timeline reads request-level lines against the partition lines before
// them: a "Finished LeaderAndIsr request … correlationId C" read before
// the partition lines of request C attaches to none of them.
//
// The order is the one Kafka's code writes the lines in (broker.md §3, §4,
// §6): the controller's decisions and the requests it sends come before
// any broker's handling of them; a broker handles one controller request
// at a time, in correlation id order; within a request the steps run
// received → handling → stopped fetchers → started at the new epoch →
// completed for the leaders, then the same for the followers with
// truncated and started fetcher, then finished (ReplicaManager
// becomeLeaderOrFollower, makeLeaders, makeFollowers, 0.8.2 … 3.9); a
// KRaft broker applies a metadata delta as deletions → leaders →
// followers → fetchers stopped → started (ReplicaManager.applyDelta,
// 3.0 … 3.9). Records of the same step (the partitions of one request)
// keep the order of their text: the lines do not say theirs, and the
// timeline reads each partition on its own.
type TieKey struct {
	// Side: 0 for the controller's lines, 1 for everything else.
	Side uint8
	// Writer: the broker or controller id the line's prefix names (a file
	// that several brokers' logs were collected into holds each one's
	// lines in its own order), Unknown when it names none.
	Writer int32
	// Corr: the controller request a broker's line belongs to, -1 when
	// the line names none (then the request the other lines of the
	// millisecond name is meant: see Inherit).
	Corr int64
	// Request: the line is one of a LeaderAndIsr request's (Corr then
	// is what lines naming none take).
	Request bool
	// Rank: the line's step.
	Rank uint8
	// Client and Partition: a Java producer's "Got error produce response
	// with correlation id C on topic-partition P" (Corr C) and the
	// "Received invalid metadata error … on partition P" that
	// Sender.completeBatch logs right after it (Follows): each takes the
	// correlation id of its own retry line, the i-th of the client's
	// lines for P the i-th retry (see source's tie order).
	Client, Partition []byte
	Follows           bool
	placed            bool
}

// Less orders keys; equal keys fall back to the records' text.
func (k TieKey) Less(o TieKey) bool {
	if k.Side != o.Side {
		return k.Side < o.Side
	}
	if k.Writer != o.Writer {
		return k.Writer < o.Writer
	}
	if k.Corr != o.Corr {
		return k.Corr < o.Corr
	}
	return k.Rank < o.Rank
}

// rankOther is the step of a line no rule names: after the steps that
// open a request's leaders' part and before its followers' part.
const rankOther = 50

// rankStarts: a leader's new epoch starts (Partition.makeLeader), the
// step rankOther sits at.
const rankStarts = 50

// Placed: a rule named the line's step (the others are lines whose order
// the audit does not read: the log cleaner's, the coordinator's).
func (k TieKey) Placed() bool { return k.placed }

// TieKeyOf reads the key of a record from its message (the text after
// the layout's header; for a row shipped without one, the row itself).
func TieKeyOf(msg []byte) TieKey {
	k := tieKeyOf(msg)
	if k.placed = k.Rank != 0; !k.placed {
		k.Rank = rankOther
	}
	return k
}

func tieKeyOf(msg []byte) TieKey {
	pf, s := parsePrefix(msg)
	// Rank 0 until a rule names the line's step.
	k := TieKey{Side: 1, Writer: pf.id, Corr: -1}
	if pf.side == sideController && !pf.kraftCtrl && pf.id != Unknown {
		k.Side = 0
		k.Rank = controllerRank(s)
		return k
	}
	if pf.kraftCtrl || pf.quorumNode {
		k.Side = 0
		k.Rank = quorumControllerRank(s)
		return k
	}
	if pf.side == sideBroker {
		if r, ok := brokerRank(s); ok {
			k.Rank = r
			if c := correlation(s); c >= 0 {
				k.Corr = c
				k.Request = bytes.Contains(s, []byte("LeaderAndIsr"))
			}
			return k
		}
	}
	switch {
	case bytes.HasPrefix(s, []byte("Removed fetcher for partitions ")):
		// ReplicaFetcherManager (server.log): a leader's and a new
		// follower's fetchers stop before their epoch starts.
		k.Rank = 40
	case bytes.Contains(s, []byte(" starts at Leader Epoch ")), bytes.Contains(s, []byte(" starts at leader epoch ")):
		// Partition (server.log ≤2.5).
		k.Rank = rankStarts
	case bytes.Equal(pf.component, []byte("ReplicaFetcher")):
		// The fetcher thread truncates once it has been added (2.6+,
		// §6.3); its other lines (Starting) the audit does not read.
		if bytes.HasPrefix(s, []byte("Truncating")) {
			k.Rank = 92
		}
	case bytes.HasPrefix(s, []byte("Truncating")) && len(pf.tpRaw) > 0:
		// [Log partition=…] (1.0+): the fetcher thread truncates the
		// log after it decided to (KIP-101), after it was added.
		k.Rank = 93
	case bytes.HasPrefix(s, []byte("Truncating")):
		// ≤0.11 kafka.log.Log ("Truncating log t-p to offset N."):
		// makeFollowers truncates between the fetchers stopped and
		// started.
		k.Rank = 85
	case bytes.HasPrefix(s, []byte("Added fetcher ")):
		k.Rank = 90
	case bytes.Contains(s, []byte("Got error produce response with correlation id ")):
		// Sender.completeBatch: the retry (or the callback of a failed
		// batch, a line of the application's) before the metadata
		// refresh it asks for.
		k.Rank = 40
		i := bytes.Index(msg, []byte("Got error produce response with correlation id "))
		k.Client = msg[:i]
		k.Corr, _ = intAfter(msg[i:], "correlation id ")
		k.Partition = wordAfter(msg[i:], "on topic-partition ")
	case bytes.Contains(s, []byte("Received invalid metadata error in produce request on partition ")):
		k.Rank = 60
		i := bytes.Index(msg, []byte("Received invalid metadata error in produce request on partition "))
		k.Client = msg[:i]
		k.Partition = wordAfter(msg[i:], "on partition ")
		k.Follows = true
	}
	return k
}

// wordAfter is the text after marker up to a space or comma.
func wordAfter(s []byte, marker string) []byte {
	i := bytes.Index(s, []byte(marker))
	if i < 0 {
		return nil
	}
	w := s[i+len(marker):]
	if e := bytes.IndexAny(w, " ,"); e >= 0 {
		w = w[:e]
	}
	return w
}

// quorumControllerRank: a KRaft controller's lines (broker.md §5): what
// set an election off (a fenced broker, a controlled shutdown), the
// partitions it changes, the records replayed, in QuorumController's
// order; a snapshot's load brackets the records it replays.
func quorumControllerRank(s []byte) uint8 {
	switch {
	case bytes.HasPrefix(s, []byte("Starting to load snapshot")), bytes.HasPrefix(s, []byte("Starting loading snapshot")):
		return 2
	case bytes.HasPrefix(s, []byte("Becoming the active controller at epoch ")), bytes.HasPrefix(s, []byte("Becoming active at controller epoch ")),
		bytes.HasPrefix(s, []byte("In the new epoch ")):
		return 5
	case bytes.HasPrefix(s, []byte("Fencing broker ")), bytes.HasPrefix(s, []byte("Unfenced broker ")):
		return 10
	case bytes.Contains(s, []byte(": changing ")), bytes.Contains(s, []byte(": generated ")):
		return 15
	case bytes.HasPrefix(s, []byte("Setting new leader for topicId ")):
		return 18
	case bytes.HasPrefix(s, []byte("UNCLEAN partition change for ")), bytes.HasPrefix(s, []byte("partition change for ")):
		return 20
	case bytes.HasPrefix(s, []byte("Replayed ")):
		return 30
	case bytes.HasPrefix(s, []byte("Renouncing the leadership")):
		return 95
	case bytes.HasPrefix(s, []byte("Successfully loaded snapshot")), bytes.HasPrefix(s, []byte("Finished loading snapshot")):
		return 98
	}
	return 0
}

// controllerRank: the ZooKeeper controller's state-change lines (broker.md
// §4.1–4.3): partitions go offline, leaders are elected, replicas change
// state (the ISR shrinks that bump an epoch), then the LeaderAndIsr,
// UpdateMetadata and StopReplica requests go out.
func controllerRank(s []byte) uint8 {
	switch {
	case has(s, "changed partition ") && bytes.Contains(s, []byte(" with assigned replicas ")):
		return 8
	case has(s, "changed partition ") && bytes.Contains(s, []byte(" state from ")):
		return 10
	case has(s, "started leader election "):
		return 12
	case has(s, "elected leader "):
		return 14
	case has(s, "changed partition "):
		return 20
	case has(s, "Partition ") && bytes.Contains(s, []byte(" state changed to ")):
		// The ISR shrink of a replica going offline (2.6+), which
		// bumps the epoch the requests after it carry.
		return 22
	case has(s, "sending become-leader "), has(s, "sending become-follower "):
		return 30
	case has(s, "sending UpdateMetadata request ") && bytes.Contains(s, []byte(" for partition ")):
		return 40
	case has(s, "sending UpdateMetadata request "):
		return 42
	case has(s, "sending StopReplica "):
		return 45
	}
	return 0
}

// brokerRank: a broker's state-change lines (broker.md §3), ZooKeeper and
// KRaft; false for a line no rule names.
func brokerRank(s []byte) (uint8, bool) {
	leader := bytes.Contains(s, []byte("become-leader"))
	follower := bytes.Contains(s, []byte("become-follower"))
	switch {
	case has(s, "Deleting "):
		return 5, true
	case has(s, "handling LeaderAndIsr request ") && !leader && !follower, has(s, "handling StopReplica request "):
		// 2.6+: the request's first line.
		return 10, true
	case has(s, "received LeaderAndIsr request "), has(s, "ignoring LeaderAndIsr request "),
		has(s, "received StopReplica request "), has(s, "ignoring StopReplica request "),
		has(s, "Updating log for "), has(s, "While handling full LeaderAndIsr"),
		has(s, "cached leader info "), has(s, "deleted partition "), has(s, "received update metadata request "),
		has(s, "Add ") && bytes.Contains(s, []byte("from metadata cache")):
		// The per-partition loop that opens a request (an UpdateMetadata
		// is a request of its own, with its own correlation id).
		return 20, true
	case has(s, "Transitioning ") && bytes.Contains(s, []byte("local leaders")):
		return 25, true
	case has(s, "handling stop replica "), has(s, "ignoring stop replica "):
		return 30, true
	case has(s, "handling LeaderAndIsr request ") && leader:
		return 30, true
	case has(s, "finished handling stop replica "):
		return 40, true
	case has(s, "stopped fetchers as part of ") && bytes.Contains(s, []byte("controlled shutdown")):
		return 97, true
	case has(s, "stopped fetchers as part of ") && leader:
		return 40, true
	case has(s, "skipped the become-leader "), bytes.HasPrefix(s, []byte("Leader ")) && bytes.Contains(s, []byte(" starts at ")),
		has(s, "Creating new partition "):
		return rankStarts, true
	case has(s, "completed LeaderAndIsr request ") && leader:
		return 60, true
	case has(s, "Transitioning ") && bytes.Contains(s, []byte("local followers")):
		return 72, true
	case has(s, "handling LeaderAndIsr request ") && follower:
		return 70, true
	case has(s, "skipped the become-follower "), has(s, "received LeaderAndIsrRequest with correlation id "),
		bytes.HasPrefix(s, []byte("Follower ")) && bytes.Contains(s, []byte(" starts at ")):
		return 75, true
	case has(s, "stopped fetchers as part of "):
		return 80, true
	case has(s, "truncated logs and checkpointed "), has(s, "Unable to start fetching "):
		return 85, true
	case has(s, "skipped the adding-fetcher "):
		return 88, true
	case has(s, "started fetcher to new leader "), has(s, "started fetchers as part of "):
		return 90, true
	case has(s, "completed LeaderAndIsr request "):
		return 95, true
	case has(s, "finished LeaderAndIsr request "):
		return 99, true
	}
	return 0, false
}
