package live

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/source"
	"github.com/leaderaudit/leaderaudit/parser"
)

// LogName reports whether a file in a followed directory is followed: Kafka
// logs and their rotations (state-change.log, controller.log.2024-03-11-15,
// server.log.1), kafkaServer.out, and other *.log, *.txt, *.out, *.json,
// *.jsonl, *.ndjson files and their rotations. Compressed rotations (.gz,
// .zip, .bz2, .xz, .zst) are not followed: nobody appends to them.
func LogName(name string) bool {
	if strings.HasPrefix(name, ".") {
		return false
	}
	switch filepath.Ext(name) {
	case ".gz", ".zip", ".bz2", ".xz", ".zst", ".lz4", ".tmp", ".swp", ".lock", ".pid":
		return false
	}
	for _, b := range []string{"state-change.log", "controller.log", "server.log", "kafkaServer.out", "kafka-server.log"} {
		if name == b || strings.HasPrefix(name, b+".") || strings.HasPrefix(name, b+"-") {
			return true
		}
	}
	switch filepath.Ext(name) {
	case ".log", ".txt", ".out", ".json", ".jsonl", ".ndjson":
		return true
	}
	// app.log.1, app.log.2024-03-11 (logback / logrotate rotations).
	return strings.Contains(name, ".log.")
}

// startFile is a file present when the pipeline started.
type startFile struct {
	path string // as Line.Path will spell it
	abs  string
	fi   os.FileInfo
	size int64 // size when the read-back was planned
	off  int64 // where the read-back starts
	err  error
}

// expand lists the regular files the follower will follow at its start:
// file inputs as given (when they exist), and the files directly in
// directory inputs that match.
func expand(paths []string, match func(string) bool) []*startFile {
	var out []*startFile
	seen := map[string]bool{}
	add := func(path string) {
		abs, err := filepath.Abs(path)
		if err != nil {
			abs = path
		}
		if seen[abs] {
			return
		}
		seen[abs] = true
		fi, err := os.Stat(path)
		if err != nil || !fi.Mode().IsRegular() {
			return
		}
		out = append(out, &startFile{path: path, abs: abs, fi: fi, size: fi.Size()})
	}
	var dirs []string
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			dirs = append(dirs, p)
			continue
		}
		add(p)
	}
	for _, d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if match != nil && !match(e.Name()) {
				continue
			}
			add(filepath.Join(d, e.Name()))
		}
	}
	return out
}

// binaryStart reports whether a file starts like a binary file (a KRaft
// record-batch segment, gzip) rather than a text log.
func binaryStart(r io.ReaderAt) bool {
	var buf [512]byte
	n, _ := r.ReadAt(buf[:], 0)
	b := buf[:n]
	if n >= 2 && b[0] == 0x1f && b[1] == 0x8b {
		return true
	}
	return n > 16 && bytes.Count(b, []byte{0}) > n/8
}

// lineTime is the timestamp parser handed to follow.SeekBackByTime.
func lineTime(loc *time.Location) func([]byte) (time.Time, bool) {
	var rec parser.Record
	return func(line []byte) (time.Time, bool) {
		if !parser.ParseHeader(line, loc, &rec) {
			return time.Time{}, false
		}
		return rec.Time, true
	}
}

// backlogReader parses one file's read-back region lazily, an event at a time.
type backlogReader struct {
	src *src
	lr  *source.LineReader
	buf []parser.Event
	pos int
	eof bool
	f   *os.File
}

// next makes sure an event is at buf[pos]; false at the end of the region.
func (b *backlogReader) next(p *Pipeline) bool {
	for b.pos >= len(b.buf) {
		if b.eof {
			return false
		}
		b.buf, b.pos = b.buf[:0], 0
		for len(b.buf) == 0 && !b.eof {
			line, err := b.lr.Next()
			if line != nil || err == nil {
				b.src.parser.Line(line, func(ev *parser.Event) { b.buf = append(b.buf, *ev) })
				p.lines++
			}
			if err != nil {
				b.eof = true
			}
		}
	}
	return true
}

type backlogHeap []*backlogReader

func (h backlogHeap) Len() int { return len(h) }
func (h backlogHeap) Less(i, j int) bool {
	a, b := &h[i].buf[h[i].pos], &h[j].buf[h[j].pos]
	if !a.Time.Equal(b.Time) {
		return a.Time.Before(b.Time)
	}
	return h[i].src.index < h[j].src.index
}
func (h backlogHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *backlogHeap) Push(x any)   { *h = append(*h, x.(*backlogReader)) }
func (h *backlogHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
