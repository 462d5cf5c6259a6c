// Package feed holds what a live pipeline (package live) hands the views
// that watch it: snapshots of what changed and the state of the inputs.
// It is its own package so that the screen (package tui) depends on these
// types and the timeline's, not on the readers, the log-store client or
// the KRaft decoder that produce them.
package feed

import (
	"time"

	"github.com/leaderaudit/leaderaudit/timeline"
)

// FileStatus is one followed file.
type FileStatus struct {
	Path          string // as given or found; not cleaned
	Lines         int64
	NotUnderstood int64
	Missing       bool   // the path does not exist (yet)
	Err           string // why it cannot be read right now; "" if it can
}

// Stats is the state of the whole pipeline.
type Stats struct {
	Lines         int64
	LinesPerSec   float64
	NotUnderstood int64
	Events        int64
	Files         []FileStatus
	// Looked: the paths given, where the files were looked for.
	Looked []string
	// Followed counts files being read; Missing and Unreadable the others.
	Followed, Missing, Unreadable int
	// Brokers: broker ids seen in the lines (any role).
	Brokers []int32
	// Open: episodes the timeline has not finished.
	Open           int
	Late, Orphans  int64
	ProducerErrors int64
	// ReadingBack: the start's read-back is under way; BacklogDone is its
	// progress (0–1).
	ReadingBack bool
	BacklogDone float64
}

// Snapshot is what changed since the previous snapshot. It belongs to the
// receiver: nothing in it is touched by the pipeline again.
type Snapshot struct {
	Seq int
	// Wall is when it was made.
	Wall time.Time
	// Now is the newest timestamp read (after skew correction). It does
	// not move while the logs are silent: LastLine says how long that is.
	Now time.Time
	// LastLine is when (wall clock) the newest line was read; zero before
	// the first.
	LastLine time.Time
	// Live: the read-back is over and lines are followed as written.
	Live bool
	// Changed holds open episodes that are new or changed (clones),
	// newest first.
	Changed []*timeline.Episode
	// Progress says, for each episode in Changed, how far it has got.
	Progress map[timeline.Key]Progress
	// Finished holds episodes the timeline finished: final, and no longer
	// touched by it; the report's sinks read the same ones, so they are
	// read-only.
	Finished []*timeline.Episode
	// Errors holds producer errors as they were matched (copies).
	Errors []*timeline.ProducerError
	// Bursts holds bursts the timeline closed.
	Bursts []*timeline.Burst
	Stats  Stats
	// Final: the pipeline has stopped; this is its last snapshot.
	Final bool
}

// Progress is how far an open election has got, as far as the followed
// logs can tell.
type Progress struct {
	// Complete: every live replica whose logs are followed has logged the
	// last step it logs for an election in its Kafka version (so replayed
	// history is never in progress). An election none of whose replicas'
	// logs are followed is over when it has been quiet for a while.
	Complete bool
	// Waiting: the followed live replicas that have not logged it yet.
	Waiting []int32
}
