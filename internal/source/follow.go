package source

import (
	"errors"
	"io"

	"github.com/leaderaudit/leaderaudit/parser"
)

// What the live pipeline (package live) needs to read files exactly as the
// batch reader does and then follow them: the walk's name rule for files
// that appear later, where to start and stop in each file, and parsers
// that outlive the read so following continues them.

// KnownLog reports whether Discover's directory walk takes a file of this
// base name (a Kafka log, a rotation of one, a .gz of either, another
// *.log/*.txt/*.out/*.json file).
func KnownLog(name string) bool {
	_, ok := knownBase(name)
	return ok
}

// Section is the part of a plain file a Reader reads: N bytes from Off
// (N < 0: to the end).
type Section struct{ Off, N int64 }

// section applies Reader.Section to an opened plain file.
func (r *Reader) section(s *Source, rd io.ReaderAt) (io.Reader, bool) {
	if r.Section == nil || s.Gzip || s.Pipe || s.Path == "-" {
		return nil, false
	}
	sec := r.Section(s)
	if sec.Off < s.NULs {
		// The NUL run a copytruncate hole left is skipped here too.
		if sec.N >= 0 {
			sec.N = max(0, sec.N-(s.NULs-sec.Off))
		}
		sec.Off = s.NULs
	}
	if sec.N < 0 {
		sec.N = 1<<63 - 1 - sec.Off
	}
	return io.NewSectionReader(rd, sec.Off, sec.N), true
}

// parser returns the parser for s: Reader.Parser's, else a new one.
func (r *Reader) parser(s *Source) *parser.Parser {
	if r.Parser != nil {
		return r.Parser(s)
	}
	p := parser.New(s.Loc)
	p.PathBroker = r.brokerFor(s.Path)
	return p
}

// Unreadable marks err, why a followed file could not be read when the
// following ended, as an error that left lines of it unread:
// errors.Is(err, ErrUnreadable) holds, and so does everything that held
// for err (fs.ErrPermission); its text is err's.
func Unreadable(err error) error {
	if err == nil || errors.Is(err, ErrUnreadable) {
		return err
	}
	return &unreadWrap{err}
}

type unreadWrap struct{ err error }

func (e *unreadWrap) Error() string        { return e.err.Error() }
func (e *unreadWrap) Unwrap() error        { return e.err }
func (e *unreadWrap) Is(target error) bool { return target == ErrUnreadable }
