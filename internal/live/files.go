package live

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/follow"
	"github.com/leaderaudit/leaderaudit/internal/source"
	"github.com/leaderaudit/leaderaudit/parser"
)

// LogName reports whether a file in a followed directory is followed: what
// the batch reader's directory walk reads (source.Discover), less
// compressed rotations, which nobody appends to.
func LogName(name string) bool {
	return source.KnownLog(name) && !strings.HasSuffix(name, ".gz")
}

// followDir says which subdirectories of a followed tree are followed:
// all but KRaft metadata logs, which the batch reader decodes as a whole
// and nothing follows.
func followDir(name string) bool { return !strings.HasPrefix(name, "__cluster_metadata") }

// startFile is where the read-back of a file present at the start begins
// and ends; the follower takes the file on from end.
type startFile struct {
	fi       os.FileInfo
	off, end int64
}

// plan finds the files audit would read (source.Discover) and makes them
// the pipeline's first sources, read back by a source.Reader: plain files
// from Since (or their first byte, or their end), compressed rotations and
// KRaft metadata logs only with FromStart (nothing is appended to them).
func (p *Pipeline) plan() {
	if len(p.cfg.Paths) == 0 {
		return
	}
	ins, skipped := source.Discover(p.cfg.Paths, 0)
	p.skipped = skipped
	var keep []source.Input
	for _, in := range ins {
		if in.Pipe {
			// A FIFO is read by whoever opens it: nothing to follow.
			p.skipped = append(p.skipped, source.Skipped{Path: in.Path, Reason: "a named pipe cannot be followed (audit reads it)"})
			continue
		}
		if (in.Gzip || in.Metadata) && !p.cfg.FromStart {
			continue
		}
		keep = append(keep, in)
	}
	p.rd = source.NewReader(keep, p.locFor)
	p.rd.BrokerFor = p.brokerFor
	p.rd.Parser = func(s *source.Source) *parser.Parser { return p.srcs[s.Index].parser }
	p.rd.Section = func(s *source.Source) source.Section {
		sf := p.srcs[s.Index].start
		if sf == nil {
			return source.Section{N: -1}
		}
		return source.Section{Off: sf.off, N: sf.end - sf.off}
	}
	for _, s := range p.rd.Sources {
		ls := p.adopt(s)
		if s.Binary || s.Gzip || s.Input.Metadata {
			ls.ignored = true // its lines, were it followed, are not a text log's
			continue
		}
		f, err := os.Open(s.Path)
		if err != nil {
			continue // the reader reports it
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			continue
		}
		sf := &startFile{fi: fi, end: fi.Size()}
		switch {
		case p.cfg.FromStart:
		case !p.cfg.Since.IsZero():
			sf.off = follow.SeekBackByTime(f, sf.end, p.cfg.Since, lineTime(ls.parser.Location()))
		default:
			sf.off = sf.end
		}
		f.Close()
		ls.start = sf
		p.backTotal += sf.end - sf.off
		if m := fi.ModTime(); m.After(p.backLast) {
			p.backLast = m
		}
	}
}

// adopt makes s, a source of the batch reader's, one of the pipeline's.
func (p *Pipeline) adopt(s *source.Source) *src {
	abs, err := filepath.Abs(s.Path)
	if err != nil {
		abs = s.Path
	}
	if s.Loc == nil {
		s.Loc = p.locFor(s.Path)
	}
	if p.cfg.SkewFor != nil {
		s.Skew = p.cfg.SkewFor(s.Path)
	}
	s.Index = len(p.srcs)
	ls := &src{Source: s, abs: abs, parser: parser.New(s.Loc), flushed: true}
	ls.parser.PathBroker = p.brokerFor(s.Path)
	p.srcs = append(p.srcs, ls)
	if p.byAbs[abs] == nil {
		p.byAbs[abs] = ls
	}
	if p.byPath[s.Path] == nil {
		p.byPath[s.Path] = ls
	}
	return ls
}

// found is a file the follower reads that was not there at the start (or
// a store's stream): it is described the way Discover describes a file
// given by name, sniffed by the same rule.
func (p *Pipeline) found(path string, remote bool) *src {
	in := source.Input{Path: path, Chain: path, Remote: remote}
	if !remote {
		if ins, _ := source.Discover([]string{path}, 0); len(ins) == 1 {
			in = ins[0]
		}
	}
	ls := p.adopt(&source.Source{Input: in})
	ls.ignored = in.Binary || in.Gzip || in.Metadata
	ls.remote = remote
	return ls
}

// startOffset (called by the follower) continues each file present at
// the start from where its read-back stopped.
func (p *Pipeline) startOffset(path string, fi os.FileInfo, size int64) int64 {
	s := p.lookup(path)
	if s == nil || s.start == nil || fi == nil || !os.SameFile(fi, s.start.fi) {
		return 0 // not there when the read-back was planned: new, read it all
	}
	if size < s.start.end {
		return 0 // shrank since: truncated, read it all
	}
	return s.start.end
}

// lookup finds the source of a path as the follower spells it.
func (p *Pipeline) lookup(path string) *src {
	if s := p.byPath[path]; s != nil {
		return s
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	if s := p.byAbs[abs]; s != nil {
		p.byPath[path] = s
		return s
	}
	return nil
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

// Skipped is what the start's discovery passed over, worded as audit
// reports it ("path: reason"), less the paths that turned up and were
// read since (a file waited for). Call after Run.
func (p *Pipeline) Skipped() []string {
	var out []string
	for _, sk := range p.skipped {
		if s := p.lookup(sk.Path); s != nil && s.Read {
			continue
		}
		out = append(out, sk.Path+": "+sk.Reason)
	}
	for _, s := range p.srcs {
		if s.Binary {
			out = append(out, s.Path+": binary file (not a text log)")
		}
	}
	return out
}
