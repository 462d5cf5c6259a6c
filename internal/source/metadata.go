package source

import (
	"context"
	"os"
	"path/filepath"
	"sort"

	"github.com/leaderaudit/leaderaudit/internal/kraft"
	"github.com/leaderaudit/leaderaudit/parser"
)

// kraftCause maps the metadata replay's causes onto the parser's.
func kraftCause(c string) parser.Cause {
	switch c {
	case kraft.CauseNewPartition:
		return parser.CauseNewPartition
	case kraft.CauseUncleanElection:
		return parser.CauseUnclean
	case kraft.CauseReassignment:
		return parser.CauseReassignment
	case kraft.CauseBrokerFenced:
		return parser.CauseBrokerFenced
	case kraft.CauseControlledShutdown:
		return parser.CauseControlledShutdown
	case kraft.CauseBrokerUnregistered:
		return parser.CauseBrokerFailure
	case kraft.CauseBrokerRestarted:
		return parser.CauseBrokerStartup
	case kraft.CauseBrokerUnfenced:
		return parser.CauseBrokerUnfenced
	case kraft.CausePreferredElection:
		return parser.CausePreferred
	}
	return parser.CauseUnknown
}

// readMetadata replays a KRaft metadata log (a __cluster_metadata-0
// directory, or one segment/snapshot) and emits each leader decision as a
// controller decision event, in commit-time order: the controller's own
// record, to be joined with what each broker logged.
func (r *Reader) readMetadata(ctx context.Context, s *Source, out chan<- []Item) {
	defer close(out)
	rp := kraft.NewReplayer()
	var censuses []kraft.Census
	fi, err := os.Stat(s.Path)
	if err != nil {
		s.Err = because(err)
		return
	}
	if fi.IsDir() {
		d, err := kraft.OpenDir(s.Path)
		if err != nil {
			s.Err = err
			return
		}
		rep, err := d.Replay(rp)
		censuses = rep.Censuses
		if err != nil {
			s.Err = err
		}
	} else {
		c, err := kraft.ReadFile(s.Path, func(rec kraft.Record) error {
			if filepath.Ext(s.Path) == ".checkpoint" {
				rec.Snapshot = true
			}
			rp.Apply(rec)
			return nil
		})
		censuses = []kraft.Census{c}
		if err != nil {
			s.Err = err
		}
	}
	rp.Flush()
	s.Read = true
	s.Metadata = summarize(censuses)
	decs := rp.Decisions()
	sort.SliceStable(decs, func(i, j int) bool { return decs[i].Time.Before(decs[j].Time) })
	batch := make([]Item, 0, batchSize)
	for _, d := range decs {
		if d.LeaderEpoch == parser.Unknown || d.Topic == "" {
			continue
		}
		ev := parser.Event{
			Kind: parser.KindDecision, Time: d.Time, Line: d.Offset, Broker: parser.Unknown,
			Controller: parser.Unknown, ControllerEpoch: d.QuorumEpoch, StateControllerEpoch: parser.Unknown,
			Topic: d.Topic, Partition: d.Partition, LeaderEpoch: d.LeaderEpoch, Leader: d.Leader, PrevLeader: d.PrevLeader,
			ISR: d.ISR, Replicas: d.Replicas, Unclean: d.Unclean, Cause: kraftCause(d.Cause),
			CorrelationID: -1, AttemptsLeft: -1, Metadata: false,
		}
		if d.Stale {
			// Epochs from a replay with records missing: do not trust the
			// previous leader.
			ev.PrevLeader = parser.Unknown
		}
		s.Stats.Events++
		batch = append(batch, Item{Src: s.Index, Ev: ev})
		// Decoded whole already: hand all of it on, interrupt or not
		// (the merge drains every reader).
		if len(batch) == batchSize {
			out <- batch
			batch = make([]Item, 0, batchSize)
		}
	}
	if len(batch) > 0 {
		out <- batch
	}
}

// MetadataSummary is what a KRaft metadata source held.
type MetadataSummary struct {
	Files           int
	Batches         int
	Records         int
	PartitionChange int
	CRCFailures     int
	Truncated       bool
	NotALog         bool
	MetadataVersion string
	BrokerIDs       []int32
}

func summarize(cs []kraft.Census) *MetadataSummary {
	m := &MetadataSummary{Files: len(cs)}
	seen := map[int32]bool{}
	for _, c := range cs {
		m.Batches += c.Batches
		for _, n := range c.Records {
			m.Records += n
		}
		m.PartitionChange += c.Records["PartitionChangeRecord"]
		m.CRCFailures += len(c.CRCFailures)
		m.Truncated = m.Truncated || c.Truncated
		m.NotALog = m.NotALog || c.NotALog
		if c.MetadataVersionName != "" {
			m.MetadataVersion = c.MetadataVersionName
		}
		for _, b := range c.BrokerIDs {
			if !seen[b] {
				seen[b] = true
				m.BrokerIDs = append(m.BrokerIDs, b)
			}
		}
	}
	sort.Slice(m.BrokerIDs, func(i, j int) bool { return m.BrokerIDs[i] < m.BrokerIDs[j] })
	return m
}
