package kraft

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// DirFile is a segment or snapshot of a metadata log directory.
type DirFile struct {
	Path string `json:"path"`
	// Offset is a segment's base offset, or a snapshot's end offset (the
	// first offset it does not contain).
	Offset int64 `json:"offset"`
	// Epoch is a snapshot's Raft epoch (from its name).
	Epoch    int32 `json:"epoch,omitempty"`
	Snapshot bool  `json:"snapshot"`
}

// Dir is a __cluster_metadata-0 directory's files in replay order.
type Dir struct {
	Path string
	// Base is the snapshot replay starts from (nil for none): the latest
	// snapshot whose end offset is at or before the first segment's base
	// offset. With segment 0 present, no snapshot is needed.
	Base *DirFile
	// Segments are the *.log files in base-offset order.
	Segments []DirFile
	// Checkpoints are the other snapshots newer than Base. Replay reads
	// topic names from them and, when it reaches their end offset, checks
	// its state against theirs.
	Checkpoints []DirFile
	// GapFrom..GapTo are offsets no file holds between Base (or offset 0)
	// and the first segment; GapFrom == GapTo when there is none.
	GapFrom, GapTo int64
}

// parseName recognises "<20 digits>.log" and "<20 digits>-<10 digits>.checkpoint".
func parseName(name string) (f DirFile, ok bool) {
	switch {
	case strings.HasSuffix(name, ".log"):
		off, err := strconv.ParseInt(strings.TrimSuffix(name, ".log"), 10, 64)
		return DirFile{Offset: off}, err == nil && off >= 0
	case strings.HasSuffix(name, ".checkpoint"):
		base := strings.TrimSuffix(name, ".checkpoint")
		o, e, found := strings.Cut(base, "-")
		if !found {
			return f, false
		}
		off, err1 := strconv.ParseInt(o, 10, 64)
		ep, err2 := strconv.ParseInt(e, 10, 32)
		return DirFile{Offset: off, Epoch: int32(ep), Snapshot: true}, err1 == nil && err2 == nil && off >= 0
	}
	return f, false
}

// OpenDir lists a metadata log directory's segments and snapshots and
// orders them for replay. Other files (indexes, quorum-state,
// *.checkpoint.deleted, bootstrap.checkpoint) are ignored.
func OpenDir(dir string) (*Dir, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	d := &Dir{Path: dir}
	var snaps []DirFile
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		f, ok := parseName(e.Name())
		if !ok {
			continue
		}
		f.Path = filepath.Join(dir, e.Name())
		if f.Snapshot {
			snaps = append(snaps, f)
		} else {
			d.Segments = append(d.Segments, f)
		}
	}
	if len(d.Segments) == 0 && len(snaps) == 0 {
		return nil, fmt.Errorf("kraft: %s holds no metadata log segments or snapshots", dir)
	}
	sort.Slice(d.Segments, func(i, j int) bool { return d.Segments[i].Offset < d.Segments[j].Offset })
	sort.Slice(snaps, func(i, j int) bool { return snaps[i].Offset < snaps[j].Offset })
	first := int64(-1)
	if len(d.Segments) > 0 {
		first = d.Segments[0].Offset
	}
	if first != 0 {
		for i := range snaps {
			if first < 0 || snaps[i].Offset <= first {
				d.Base = &snaps[i]
			}
		}
	}
	baseEnd := int64(0)
	if d.Base != nil {
		baseEnd = d.Base.Offset
	}
	for _, s := range snaps {
		if s.Offset > baseEnd {
			d.Checkpoints = append(d.Checkpoints, s)
		}
	}
	if first > baseEnd {
		d.GapFrom, d.GapTo = baseEnd, first
	} else {
		d.GapFrom, d.GapTo = baseEnd, baseEnd
	}
	return d, nil
}

// Files returns Base (if any) then the segments: the files to read, in order.
func (d *Dir) Files() []DirFile {
	var out []DirFile
	if d.Base != nil {
		out = append(out, *d.Base)
	}
	return append(out, d.Segments...)
}

// Read decodes Files in order, calling fn with each record and the file it
// came from. Segment records below Base's end offset or at an offset already
// read are skipped.
func (d *Dir) Read(fn func(path string, r Record) error) ([]Census, error) {
	var out []Census
	next := int64(0) // first offset not yet read from a segment
	if d.Base != nil {
		next = d.Base.Offset
	}
	for _, f := range d.Files() {
		c, err := ReadFile(f.Path, func(r Record) error {
			if !r.Snapshot {
				if r.Offset < next {
					return nil
				}
				next = r.Offset + 1
			}
			if fn == nil {
				return nil
			}
			return fn(f.Path, r)
		})
		out = append(out, c)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// SnapshotCheck is the comparison of the replayed state with a snapshot's
// at the snapshot's end offset.
type SnapshotCheck struct {
	Path       string          `json:"path"`
	Offset     int64           `json:"offset"`
	Partitions int             `json:"partitions"`
	Diffs      []PartitionDiff `json:"diffs"`
}

// ReplayReport is what Dir.Replay read and checked.
type ReplayReport struct {
	Censuses []Census `json:"censuses"`
	// GapFrom..GapTo: see Dir.
	GapFrom int64 `json:"gap_from"`
	GapTo   int64 `json:"gap_to"`
	// Checks compare the replay with each Checkpoint it reached; the
	// replay then continues from the snapshot's state. Diffs of partitions
	// whose state was stale (Got.Stale) are expected; others mean the
	// replay went wrong.
	Checks []SnapshotCheck `json:"checks"`
}

// Replay feeds the directory to p: the Base snapshot, then the segments.
// Names of topics only the Checkpoints know are given to p up front. If
// records are missing between Base and the first segment, the partitions'
// state is marked stale until a Checkpoint is reached, where the replay
// adopts the snapshot's state (and reports how it differed).
func (d *Dir) Replay(p *Replayer) (ReplayReport, error) {
	rep := ReplayReport{GapFrom: d.GapFrom, GapTo: d.GapTo, Checks: []SnapshotCheck{}}
	type checkpoint struct {
		f DirFile
		r *Replayer
	}
	var cps []checkpoint
	for _, f := range d.Checkpoints {
		r := NewReplayer()
		c, err := ReadFile(f.Path, func(rec Record) error {
			rec.Snapshot = true
			r.Apply(rec)
			return nil
		})
		if err != nil {
			return rep, err
		}
		r.Flush()
		if c.Batches == 0 {
			continue
		}
		for id, name := range r.topics {
			if p.topicName(id) == "" {
				p.nameHint(id, name)
			}
		}
		cps = append(cps, checkpoint{f, r})
	}
	reach := func(off int64) {
		for len(cps) > 0 && cps[0].f.Offset <= off {
			cp := cps[0]
			cps = cps[1:]
			rep.Checks = append(rep.Checks, SnapshotCheck{
				Path: cp.f.Path, Offset: cp.f.Offset, Partitions: len(cp.r.parts), Diffs: p.rebase(cp.r),
			})
			p.release()
			p.hold = false
		}
	}
	// With records missing, hold decisions until a snapshot can correct
	// their epochs.
	p.hold = d.GapTo > d.GapFrom && len(cps) > 0
	defer func() {
		p.release()
		p.hold = false
	}()
	last := int64(-1)
	based := false
	cs, err := d.Read(func(path string, r Record) error {
		if !r.Snapshot && !based {
			based = true
			if d.GapTo > d.GapFrom {
				p.markStale()
			}
		}
		if !r.Snapshot {
			reach(r.Offset)
			last = r.Offset
		}
		p.Apply(r)
		return nil
	})
	rep.Censuses = cs
	if err != nil {
		return rep, err
	}
	p.Flush()
	if last >= 0 {
		reach(last + 1)
	}
	return rep, nil
}
