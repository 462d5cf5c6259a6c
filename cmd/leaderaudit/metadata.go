package main

import (
	"path"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/kraft"
)

// MetadataCmd decodes KRaft __cluster_metadata segments, snapshots or whole
// metadata log directories and writes them as JSON lines (see kraft.Dump).
type MetadataCmd struct {
	Paths     []string `arg:"" name:"path" help:"__cluster_metadata segment, snapshot, or directory" type:"path"`
	Topic     string   `help:"only records of topics matching this glob"`
	Partition int32    `default:"-1" help:"only Partition/PartitionChange records of this partition (-1: all)"`
	Since     string   `help:"RFC 3339 or relative like 2h"`
	Until     string   `help:"RFC 3339 or relative like 30m (exclusive)"`
	Type      []string `help:"only these record types, e.g. PartitionChange,RegisterBroker" sep:","`
	SkipNoop  bool     `help:"leave out NoOpRecords (controller heartbeats)"`
	Decisions bool     `help:"write the leader decisions replayed from the records instead of the records"`
}

// Run writes JSON lines to standard output.
func (c *MetadataCmd) Run(io stdio) error {
	if _, err := path.Match(c.Topic, ""); err != nil {
		return usagef("--topic %q: bad glob", c.Topic)
	}
	now := time.Now()
	since, err := kraft.ParseTime(c.Since, now)
	if err != nil {
		return usagef("--since: %w", err)
	}
	until, err := kraft.ParseTime(c.Until, now)
	if err != nil {
		return usagef("--until: %w", err)
	}
	return kraft.Dump(io.out, c.Paths, kraft.Filter{
		Topic:     c.Topic,
		Partition: c.Partition,
		Since:     since,
		Until:     until,
		Types:     c.Type,
		SkipNoOp:  c.SkipNoop,
		Decisions: c.Decisions,
	})
}
