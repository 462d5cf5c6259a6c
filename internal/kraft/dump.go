package kraft

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Filter selects what Dump writes. The zero value selects everything.
type Filter struct {
	// Topic is a glob (path.Match syntax) on topic names; when set, only
	// records naming a matching topic (Topic, Partition, PartitionChange,
	// RemoveTopic, topic Config and ClearElr records) are written.
	Topic string
	// Partition, when >= 0, keeps only Partition and PartitionChange
	// records of that partition. Use -1 (or AllPartitions) for all.
	Partition int32
	// Since and Until bound the batch time (zero: unbounded; Until is
	// exclusive).
	Since, Until time.Time
	// Types keeps only these record types; names are matched without case
	// and with or without the "Record" suffix ("PartitionChange",
	// "noop", "LeaderChangeMessage").
	Types []string
	// SkipNoOp leaves out NoOpRecords (the controller's heartbeats).
	SkipNoOp bool
	// Decisions writes replayed leader Decisions ("leader_decision" lines)
	// instead of records; the census lines are still written.
	Decisions bool
}

// AllPartitions is Filter.Partition's value for no partition filter.
const AllPartitions int32 = -1

// Dump decodes each path (a segment, a snapshot, or a metadata log
// directory, whose files it reads in Dir order) and writes JSON lines to w:
// one "metadata_record" per record (or "leader_decision" per Decision with
// Filter.Decisions), then one "metadata_census" per file. Topic ids are
// named from the records read so far and from the *.checkpoint snapshots
// beside each file. Bad input is reported in the census line; the error is
// an I/O error.
func Dump(w io.Writer, paths []string, f Filter) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	types := map[string]bool{}
	for _, t := range f.Types {
		for _, part := range strings.Split(t, ",") {
			if part = normType(part); part != "" {
				types[part] = true
			}
		}
	}
	dd := &dumper{w: bw, f: f, types: types}
	// Files given one by one share a replay (a snapshot, then segments).
	dd.rp = NewReplayer()
	dd.rp.OnDecision = dd.decision
	for _, p := range paths {
		if err := dd.path(p); err != nil {
			bw.Flush()
			return err
		}
	}
	dd.rp.Flush()
	if dd.err != nil {
		return dd.err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	// Everything readable is written; then say what was not.
	return errors.Join(dd.notes...)
}

func normType(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.TrimSuffix(s, "record")
}

type dumper struct {
	w     *bufio.Writer
	f     Filter
	types map[string]bool
	rp    *Replayer
	buf   bytes.Buffer
	err   error
	// notes: what could not be read but did not stop the dump.
	notes []error
}

func (d *dumper) note(err error) {
	if err != nil {
		d.notes = append(d.notes, err)
	}
}

func (d *dumper) path(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if st.IsDir() {
		rp := NewReplayer()
		rp.OnDecision = d.decision
		dir, err := OpenDir(p)
		if err != nil {
			return err
		}
		if d.f.Decisions {
			rep, err := dir.Replay(rp)
			for _, c := range rep.Censuses {
				d.census(c)
			}
			if err != nil {
				return err
			}
			return d.err
		}
		d.note(hintSiblings(rp, p, ""))
		cs, err := dir.Read(func(file string, r Record) error {
			rp.Apply(r)
			d.record(file, r, rp)
			return d.err
		})
		for _, c := range cs {
			d.census(c)
		}
		if err != nil {
			return err
		}
		return d.err
	}
	rp := d.rp
	d.note(hintSiblings(rp, filepath.Dir(p), p))
	c, err := ReadFile(p, func(r Record) error {
		rp.Apply(r)
		if !d.f.Decisions {
			d.record(p, r, rp)
		}
		return d.err
	})
	d.census(c)
	if err != nil {
		return err
	}
	return d.err
}

// hintSiblings names topics from the snapshots in dir (except skip). A
// snapshot that cannot be read leaves its topics unnamed (records show
// their topic ids); the error says which.
func hintSiblings(rp *Replayer, dir, skip string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("naming topics from the snapshots in %s: %w", dir, err)
	}
	var errs []error
	for _, e := range ents {
		cp := filepath.Join(dir, e.Name())
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".checkpoint") || cp == skip {
			continue
		}
		_, err := ReadFile(cp, func(r Record) error {
			if t, ok := r.Value.(*TopicRecord); ok && rp.topicName(t.TopicID) == "" {
				rp.nameHint(t.TopicID, t.Name)
			}
			return nil
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("naming topics from %s: %w", cp, err))
		}
	}
	return errors.Join(errs...)
}

// topicOf returns the topic a record names, and whether it names one.
func topicOf(r Record, rp *Replayer) (string, bool) {
	switch v := r.Value.(type) {
	case *TopicRecord:
		return v.Name, true
	case *PartitionRecord:
		return rp.TopicName(v.TopicID), true
	case *PartitionChangeRecord:
		return rp.TopicName(v.TopicID), true
	case *RemoveTopicRecord:
		return rp.TopicName(v.TopicID), true
	case *ConfigRecord:
		return v.ResourceName, v.ResourceType == 2
	case *ClearElrRecord:
		return v.TopicName, v.TopicName != ""
	}
	return "", false
}

func partitionOf(r Record) (int32, bool) {
	switch v := r.Value.(type) {
	case *PartitionRecord:
		return v.PartitionID, true
	case *PartitionChangeRecord:
		return v.PartitionID, true
	}
	return 0, false
}

func (d *dumper) timeOK(t time.Time) bool {
	return (d.f.Since.IsZero() || !t.Before(d.f.Since)) && (d.f.Until.IsZero() || t.Before(d.f.Until))
}

func (d *dumper) topicOK(name string, has bool) bool {
	if d.f.Topic == "" {
		return true
	}
	if !has {
		return false
	}
	ok, _ := path.Match(d.f.Topic, name)
	return ok
}

func (d *dumper) record(file string, r Record, rp *Replayer) {
	if d.err != nil {
		return
	}
	if d.f.SkipNoOp && r.Type == "NoOpRecord" {
		return
	}
	if len(d.types) > 0 && !d.types[normType(r.Type)] {
		return
	}
	if !d.timeOK(r.BatchTime) {
		return
	}
	if !d.topicOK(topicOf(r, rp)) {
		return
	}
	if d.f.Partition >= 0 {
		if p, ok := partitionOf(r); !ok || p != d.f.Partition {
			return
		}
	}
	o := d.obj()
	o.kv("type", "metadata_record")
	o.kv("file", file)
	o.kv("offset", r.Offset)
	o.kv("batch_offset", r.BatchOffset)
	o.kv("batch_time", jsonTime(r.BatchTime))
	o.kv("quorum_epoch", r.QuorumEpoch)
	if r.Snapshot {
		o.kv("snapshot", true)
	}
	if r.Control {
		o.kv("control", true)
	}
	o.kv("record", r.Type)
	o.kv("version", r.Version)
	if r.Err != nil {
		o.kv("error", r.Err.Error())
	}
	_, isPC := r.Value.(*PartitionChangeRecord)
	for _, fl := range fieldList(r.Value) {
		v := fl.value
		if r.Control && fl.name == "version" {
			continue // the control message's own Version, already written
		}
		switch {
		case isPC && fl.name == "leader" && v == LeaderUnchanged:
			v = "unchanged"
		case isPC && fl.name == "leader_recovery_state" && v == LeaderRecoveryUnchanged:
			v = "unchanged"
		}
		o.kv(fl.name, v)
		if fl.name == "topic_id" {
			if _, isTopic := r.Value.(*TopicRecord); !isTopic {
				if id, ok := v.(UUID); ok {
					if n := rp.TopicName(id); n != "" {
						o.kv("topic_name", n)
					}
				}
			}
		}
		if fl.name == "feature_level" {
			if fr, ok := r.Value.(*FeatureLevelRecord); ok && fr.Name == "metadata.version" {
				o.kv("release", MetadataVersionName(fr.FeatureLevel))
			}
		}
	}
	d.end(o)
}

func (d *dumper) decision(x Decision) {
	if d.err != nil || !d.f.Decisions {
		return
	}
	if !d.timeOK(x.Time) || !d.topicOK(x.Topic, true) {
		return
	}
	if d.f.Partition >= 0 && x.Partition != d.f.Partition {
		return
	}
	o := d.obj()
	o.kv("type", "leader_decision")
	o.kv("time", jsonTime(x.Time))
	for _, fl := range fieldList(x)[1:] {
		v := fl.value
		if i, ok := v.(int32); ok && i == Unknown {
			v = nil
		}
		o.kv(fl.name, v)
	}
	d.end(o)
}

func (d *dumper) census(c Census) {
	if d.err != nil {
		return
	}
	file := c.Path
	if c.NotALog {
		// Said on stderr and in the exit status too: a census line alone
		// looked like a clean dump of an empty log.
		d.note(fmt.Errorf("%s: not a KRaft metadata log (%s)", file, c.NotALogReason))
	}
	c.Path = ""
	o := d.obj()
	o.kv("type", "metadata_census")
	o.kv("file", file)
	b, err := json.Marshal(c)
	if err != nil {
		d.err = err
		return
	}
	// Splice the census's own fields in after "file".
	o.raw(b[1 : len(b)-1])
	d.end(o)
}

// obj is a JSON object under construction in d.buf.
type obj struct {
	d     *dumper
	first bool
}

func (d *dumper) obj() *obj {
	d.buf.Reset()
	d.buf.WriteByte('{')
	return &obj{d: d, first: true}
}

func (o *obj) key(k string) {
	if !o.first {
		o.d.buf.WriteByte(',')
	}
	o.first = false
	o.d.buf.WriteString(strconv.Quote(k))
	o.d.buf.WriteByte(':')
}

func (o *obj) kv(k string, v any) {
	o.key(k)
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(strconv.Quote(fmt.Sprint(v)))
	}
	o.d.buf.Write(b)
}

func (o *obj) raw(b []byte) {
	if len(b) == 0 {
		return
	}
	if !o.first {
		o.d.buf.WriteByte(',')
	}
	o.first = false
	o.d.buf.Write(b)
}

func (d *dumper) end(o *obj) {
	d.buf.WriteString("}\n")
	if _, err := d.w.Write(d.buf.Bytes()); err != nil {
		d.err = err
	}
}

// ParseTime parses a --since/--until value: RFC 3339 (with or without
// fractional seconds or zone; no zone means UTC), a date, or a duration
// before now such as "2h", "90m" or "3d".
func ParseTime(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t.UTC(), nil
		}
	}
	if strings.HasSuffix(s, "d") {
		if n, err := strconv.ParseFloat(strings.TrimSuffix(s, "d"), 64); err == nil && n >= 0 {
			return now.Add(-time.Duration(n * float64(24*time.Hour))).UTC(), nil
		}
	}
	if dur, err := time.ParseDuration(s); err == nil && dur >= 0 {
		return now.Add(-dur).UTC(), nil
	}
	return time.Time{}, fmt.Errorf("kraft: cannot parse time %q: want RFC 3339 or a duration like 2h", s)
}
