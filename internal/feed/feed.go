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
	// Now is the pipeline's event-time clock: the newest timestamp read,
	// moved on with the wall clock while every input is silent (see package
	// live). Live views compare Episode.LastActivity with it.
	Now time.Time
	// Live: the read-back is over and lines are followed as written.
	Live bool
	// Changed holds open episodes that are new or changed (clones),
	// newest first.
	Changed []*timeline.Episode
	// Finished holds episodes the timeline finished (clones): final.
	Finished []*timeline.Episode
	// Errors holds producer errors as they were matched (copies).
	Errors []*timeline.ProducerError
	// Bursts holds bursts the timeline closed.
	Bursts []*timeline.Burst
	Stats  Stats
	// Final: the pipeline has stopped; this is its last snapshot.
	Final bool
}
