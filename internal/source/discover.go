// Package source finds log files, reads them (plain or gzip, stdin) line by
// line with bounded memory, parses each with its own parser, and merges the
// events of all files in time order. It only ever opens files read-only.
package source

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/leaderaudit/leaderaudit/internal/fdlimit"
)

// Input is one file to read ("-" is standard input).
type Input struct {
	Path string
	// Chain groups a log with its rotated predecessors (state-change.log,
	// state-change.log.2019-02-25-15, ...): files of one chain are read one
	// after another, oldest first, by one reader.
	Chain string
	// Order sorts files within a chain, oldest first.
	Order string
	Gzip  bool
	Size  int64
	// Binary: the file starts with bytes no text log has (and is not a
	// KRaft metadata log); it is skipped.
	Binary bool
	// Metadata: a KRaft __cluster_metadata log (a directory, a segment or a
	// snapshot), decoded by the kraft package.
	Metadata bool
	// Remote: a stream of a log store (AddStore), not a file.
	Remote bool
	// Pipe: a FIFO named on the command line, read as a stream.
	Pipe bool
	// NULs: leading NUL bytes skipped (see Start.NULs).
	NULs int64
	// Err: the file (or a directory of the walk) was found but cannot be
	// opened or its start read (permission denied, an I/O error). It is
	// not read: its source carries the error, the report names it and the
	// audit fails, since its lines are missing from the report.
	Err error
}

// isMetadataFile: KRaft segment "<20 digits>.log" or snapshot
// "<20 digits>-<10 digits>.checkpoint".
func isMetadataFile(name string) bool {
	if len(name) < 24 {
		return false
	}
	for _, c := range name[:20] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return name[20:] == ".log" || strings.HasSuffix(name, ".checkpoint")
}

// Skipped is a path that could not be used, with the reason.
type Skipped struct {
	Path   string
	Reason string
}

// knownBase reports whether a file name is a Kafka log or a rotation of one.
func knownBase(name string) (base string, ok bool) {
	n := strings.TrimSuffix(name, ".gz")
	for _, b := range []string{"state-change.log", "controller.log", "server.log", "kafkaServer.out", "kafka-server.log"} {
		if n == b || strings.HasPrefix(n, b+".") || strings.HasPrefix(n, b+"-") {
			return b, true
		}
	}
	switch ext := filepath.Ext(n); ext {
	case ".log", ".txt", ".out", ".json", ".jsonl", ".ndjson":
		return n, true
	}
	// app.log.1, app.log.2024-03-11 (logback / logrotate rotations).
	if i := strings.Index(n, ".log."); i > 0 {
		return n[:i+4], true
	}
	return "", false
}

// Discover expands paths: files are taken as given (any name), directories
// are walked for Kafka logs, their rotations, *.gz of them and other
// *.log/*.txt/*.out files. Symlink loops, missing paths, links to a file
// already taken and files that are not regular are skipped with a reason.
// A file (or directory) that is there but cannot be opened is an input
// with Err: a failure of the audit, never only a note.
func Discover(paths []string, maxFiles int) ([]Input, []Skipped) {
	var ins []Input
	var skipped []Skipped
	seen := map[string]bool{}
	// A file reached by two paths (a symlink to it or to a directory above
	// it, a hard link, the same directory given twice) is read once.
	seenID := map[[2]uint64]string{}
	visited := map[string]string{}
	var metaDir func(string)
	add := func(path string, fi fs.FileInfo, explicit bool) {
		key := path
		if abs, err := filepath.Abs(path); err == nil {
			key = abs
		}
		if seen[key] {
			return
		}
		seen[key] = true
		if id, ok := fileID(fi); ok {
			if first, dup := seenID[id]; dup {
				if _, known := knownBase(filepath.Base(path)); known || explicit {
					skipped = append(skipped, Skipped{path, "the same file as " + first + " (a link): read once"})
				}
				return
			}
			seenID[id] = path
		}
		if maxFiles > 0 && len(ins) >= maxFiles {
			skipped = append(skipped, Skipped{path, fmt.Sprintf("over the limit of %d files", maxFiles)})
			return
		}
		name := filepath.Base(path)
		base, ok := knownBase(name)
		if !ok && !explicit {
			return
		}
		if !ok {
			base = strings.TrimSuffix(name, ".gz")
		}
		// Found by walking, only regular files are read (as grep -r): a
		// FIFO would wait for a writer forever. Named on the command line,
		// a FIFO is read as a stream.
		if !fi.Mode().IsRegular() && (!explicit || fi.Mode()&fs.ModeNamedPipe == 0) {
			skipped = append(skipped, Skipped{path, "not a regular file (" + fileType(fi.Mode()) + ")"})
			return
		}
		in := Input{Path: path, Chain: filepath.Join(filepath.Dir(path), base), Size: fi.Size(), Gzip: strings.HasSuffix(name, ".gz")}
		in.Order = rotationOrder(strings.TrimSuffix(name, ".gz"), base)
		in.Pipe = fi.Mode()&fs.ModeNamedPipe != 0
		if fi.Mode().IsRegular() {
			st, err := sniff(path)
			if err != nil {
				in.Err = err
				ins = append(ins, in)
				return
			}
			in.Gzip = st.Gzip
			in.Binary = st.Binary
			in.NULs = st.NULs
			bin := st.Binary
			if (bin || strings.HasSuffix(name, ".checkpoint")) && isMetadataFile(name) {
				if !explicit && metaDir != nil {
					// A metadata log directory under another name: replay
					// its snapshots and segments together.
					metaDir(filepath.Dir(path))
					return
				}
				in.Binary, in.Metadata, in.Chain = false, true, path
			}
		}
		ins = append(ins, in)
	}
	addMeta := func(dir string) {
		key, _ := filepath.Abs(dir)
		if seen[key] {
			return
		}
		seen[key] = true
		ins = append(ins, Input{Path: dir, Chain: dir, Metadata: true})
	}
	metaDir = addMeta
	// unreadable takes in a path that is there and cannot be looked into:
	// a file whose name the walk takes, a directory (whose files are
	// unknown), a path given.
	unreadable := func(path string, err error) {
		key, _ := filepath.Abs(path)
		if seen[key] {
			return
		}
		seen[key] = true
		ins = append(ins, Input{Path: path, Chain: path, Err: err})
	}
	for _, p := range paths {
		if p == "-" {
			ins = append(ins, Input{Path: "-", Chain: "-"})
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				skipped = append(skipped, Skipped{p, reason(err)})
			} else {
				unreadable(p, because(err))
			}
			continue
		}
		if !fi.IsDir() {
			add(p, fi, true)
			continue
		}
		if strings.HasPrefix(filepath.Base(filepath.Clean(p)), "__cluster_metadata") {
			addMeta(p)
			continue
		}
		walkDir(p, visited, func(path string, fi fs.FileInfo) { add(path, fi, false) }, addMeta, unreadable, &skipped, 0)
	}
	sort.SliceStable(ins, func(i, j int) bool {
		if ins[i].Chain != ins[j].Chain {
			return ins[i].Chain < ins[j].Chain
		}
		return ins[i].Order < ins[j].Order
	})
	return ins, skipped
}

// walkDir follows symlinked directories once (by real path), so links
// into the log tree work and loops end. A directory that cannot be listed, or an entry that cannot be looked at
// (a directory searchable by nobody), goes to bad.
func walkDir(dir string, visited map[string]string, fn func(string, fs.FileInfo), meta func(string), bad func(string, error), skipped *[]Skipped, depth int) {
	// By absolute real path: "." and a link to the directory's absolute
	// path are one directory.
	real, err := filepath.Abs(dir)
	if err == nil {
		real, err = filepath.EvalSymlinks(real)
	}
	if err != nil {
		*skipped = append(*skipped, Skipped{dir, reason(err)})
		return
	}
	if first, ok := visited[real]; ok {
		*skipped = append(*skipped, Skipped{dir, "the same directory as " + first + " (a symlink to it, or a loop): read once"})
		return
	}
	if depth > 32 {
		*skipped = append(*skipped, Skipped{dir, "directory nesting deeper than 32"})
		return
	}
	visited[real] = dir
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			*skipped = append(*skipped, Skipped{dir, reason(err)})
		} else {
			bad(dir, fmt.Errorf("cannot list the directory: %w", because(err)))
		}
		return
	}
	for _, e := range ents {
		path := filepath.Join(dir, e.Name())
		fi, err := os.Stat(path) // follows links
		if err != nil {
			switch _, lerr := os.Lstat(path); {
			case lerr == nil && e.Type()&fs.ModeSymlink != 0:
				*skipped = append(*skipped, Skipped{path, "broken or looping symlink"})
			case errors.Is(err, fs.ErrNotExist):
				*skipped = append(*skipped, Skipped{path, reason(err)}) // gone since the listing
			case e.IsDir():
				bad(path, fmt.Errorf("cannot list the directory: %w", because(err)))
			default:
				if _, ok := knownBase(e.Name()); ok {
					bad(path, because(err))
				}
			}
			continue
		}
		if fi.IsDir() {
			// KRaft metadata directories hold binary segments named *.log:
			// one metadata source each.
			if strings.HasPrefix(e.Name(), "__cluster_metadata") {
				meta(path)
				continue
			}
			walkDir(path, visited, fn, meta, bad, skipped, depth+1)
			continue
		}
		fn(path, fi)
	}
}

// fileType names what a non-regular file is, for the skip note.
func fileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "not a plain file"
}

// because is err worded by reason, still wrapping err (errors.Is(err,
// fs.ErrNotExist) holds).
func because(err error) error { return &reasonError{reason(err), err} }

type reasonError struct {
	msg string
	err error
}

func (e *reasonError) Error() string { return e.msg }
func (e *reasonError) Unwrap() error { return e.err }

func reason(err error) string {
	switch {
	case os.IsNotExist(err):
		return "no such file or directory"
	case os.IsPermission(err):
		return "permission denied"
	}
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// rotationOrder sorts rotations oldest first: dated suffixes
// (.2019-02-25-15) ascend; numeric suffixes (.1, .2) are older the higher
// they are; the live file (no suffix) is newest.
func rotationOrder(name, base string) string {
	suf := strings.TrimPrefix(strings.TrimPrefix(name, base), ".")
	if suf == "" {
		return "~" // sorts after every suffix
	}
	allDigits := true
	for _, c := range suf {
		if c < '0' || c > '9' {
			allDigits = false
			break
		}
	}
	if allDigits && len(suf) < 6 {
		// .1 is newest of the numbered: invert.
		return fmt.Sprintf("0-%06d", 999999-atoi(suf))
	}
	return "1-" + suf
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// sniff applies SniffStart to a file.
func sniff(path string) (Start, error) {
	f, err := os.Open(path)
	if err != nil {
		return Start{}, because(err)
	}
	defer f.Close()
	st, err := SniffStart(f)
	if err != nil {
		return st, because(err)
	}
	return st, nil
}

// fileLimit is the descriptor limit the open-file slots are sized from,
// the soft limit raised to the hard one, so `ulimit -n 256` drops no file.
func fileLimit() int { return fdlimit.Limit() }
