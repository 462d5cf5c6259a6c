package tui

import (
	"bytes"
	"io"
	"os"
)

// Bracketed-paste markers. bubbletea, having seen a start, buffers every
// byte after it until the end marker: a stray start (a terminal that
// sent one on its own, a paste cut short, `printf '\e[200~'` from another
// program on the tty) left watch deaf to q and Ctrl-C for good.
var (
	pasteStart = []byte("\x1b[200~")
	pasteEnd   = []byte("\x1b[201~")
)

// PasteGuard reads a terminal and drops the bracketed-paste markers, so a
// paste arrives as the keys it holds and a stray marker is nothing. It is
// a term.File (Fd, Write, Close pass through) so bubbletea still puts the
// terminal in raw mode and can cancel its reads.
type PasteGuard struct {
	f    *os.File
	held []byte // a marker's start at the end of a full read
	out  []byte // cleaned bytes not yet returned
}

// GuardPaste wraps a terminal (or any file) for tea.WithInput.
func GuardPaste(f *os.File) *PasteGuard { return &PasteGuard{f: f} }

// OpenTTY opens the controlling terminal, guarded, for when standard input
// is not one (what tea.WithInputTTY does, unguarded).
func OpenTTY() (*PasteGuard, error) {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	return GuardPaste(f), nil
}

func (g *PasteGuard) Read(p []byte) (int, error) {
	for len(g.out) == 0 {
		buf := make([]byte, max(len(p), 256))
		n, err := g.f.Read(buf)
		b := append(g.held, buf[:n]...)
		g.held = nil
		if n == len(buf) {
			// More may be waiting: keep a marker's start for the next read.
			if k := markerPrefix(b); k > 0 {
				g.held = append([]byte(nil), b[len(b)-k:]...)
				b = b[:len(b)-k]
			}
		}
		g.out = stripMarkers(b)
		if err != nil {
			if len(g.out) == 0 {
				g.out = append(g.out, g.held...)
				g.held = nil
			}
			if len(g.out) == 0 {
				return 0, err
			}
			break
		}
	}
	n := copy(p, g.out)
	g.out = g.out[n:]
	return n, nil
}

// stripMarkers removes every whole paste marker from b.
func stripMarkers(b []byte) []byte {
	if bytes.IndexByte(b, 0x1b) < 0 {
		return b
	}
	b = bytes.ReplaceAll(b, pasteStart, nil)
	return bytes.ReplaceAll(b, pasteEnd, nil)
}

// markerPrefix: how many bytes at b's end could begin a marker (an ESC
// alone is kept too only after a full read: the Esc key is sent alone).
func markerPrefix(b []byte) int {
	for k := min(len(pasteStart)-1, len(b)); k > 0; k-- {
		tail := b[len(b)-k:]
		if bytes.HasPrefix(pasteStart, tail) || bytes.HasPrefix(pasteEnd, tail) {
			return k
		}
	}
	return 0
}

func (g *PasteGuard) Write(p []byte) (int, error) { return g.f.Write(p) }
func (g *PasteGuard) Close() error                { return g.f.Close() }
func (g *PasteGuard) Fd() uintptr                 { return g.f.Fd() }

var _ io.ReadWriteCloser = (*PasteGuard)(nil)
