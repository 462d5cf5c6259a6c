package follow

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writer appends to a file through one descriptor, as log4j does.
type writer struct {
	t  *testing.T
	fh *os.File
}

func openWriter(t *testing.T, path string) *writer {
	t.Helper()
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	return &writer{t: t, fh: fh}
}

func (w *writer) write(s string) {
	w.t.Helper()
	if _, err := w.fh.WriteString(s); err != nil {
		w.t.Fatal(err)
	}
}

func (w *writer) close() {
	w.t.Helper()
	if err := w.fh.Close(); err != nil {
		w.t.Fatal(err)
	}
}

func rename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

// Hourly rename rotation: the old file is read to its end before the new
// one, every line once, in order.
func TestRenameRotation(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		for _, gap := range []bool{false, true} {
			name := "replaced at once"
			if gap {
				name = "missing for a while"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				p := filepath.Join(dir, "state-change.log")
				writeFile(t, p, "before the start\n")
				h := startFollower(t, []string{p}, opts)

				oldLines, oldText := numbered("old", 0, 2000)
				w := openWriter(t, p)
				w.write(oldText[:len(oldText)/2])
				h.waitLines(1) // the follower has the old file open
				w.write(oldText[len(oldText)/2:])
				w.close()
				rename(t, p, p+".2019-02-25-15")
				if gap {
					h.waitFile(p, "missing", func(st FileState) bool { return st.Missing })
				}
				newLines, newText := numbered("new", 0, 2000)
				w = openWriter(t, p)
				w.write(newText[:1000])
				w.write(newText[1000:])
				w.close()

				h.waitLines(len(oldLines) + len(newLines))
				got := textsOf(h.stop(), p)
				equalStrings(t, "lines", got, append(oldLines, newLines...))
			})
		}
	})
}

// A directory input whose Match also accepts the rotated name: the rotated
// file is followed under its new name from where it was left, not re-read.
func TestRenameRotationRotatedNameMatches(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		dir := t.TempDir()
		p := filepath.Join(dir, "state-change.log")
		rotated := p + ".2019-02-25-15"
		writeFile(t, p, "before the start\n")
		opts.Match = func(name string) bool { return strings.HasPrefix(name, "state-change.log") }
		h := startFollower(t, []string{dir}, opts)

		oldLines, oldText := numbered("old", 0, 2000)
		w := openWriter(t, p)
		w.write(oldText[:100])
		h.waitLines(1)
		w.write(oldText[100:])
		w.close()
		rename(t, p, rotated)
		newLines, newText := numbered("new", 0, 2000)
		writeFile(t, p, newText)
		h.waitLines(len(oldLines) + len(newLines))
		size := int64(len("before the start\n") + len(oldText))
		h.waitFile(rotated, "followed at its end", func(st FileState) bool { return st.Offset == size })

		// Something appended to the rotated file later is still delivered.
		appendFile(t, rotated, "late\n")
		h.waitCount(rotated, 1)
		lines := h.stop()
		equalStrings(t, "live name", textsOf(lines, p), append(oldLines, newLines...))
		equalStrings(t, "rotated name", textsOf(lines, rotated), []string{"late"})
	})
}

// Copytruncate: the file shrinks under the reader, which starts again at 0.
func TestCopyTruncate(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		t.Run("noticed before rewrite", func(t *testing.T) {
			p := tempPath(t, "server.log")
			writeFile(t, p, "")
			h := startFollower(t, []string{p}, opts)
			before, text := numbered("a", 0, 100)
			appendFile(t, p, text)
			h.waitLines(100)
			if err := os.Truncate(p, 0); err != nil {
				t.Fatal(err)
			}
			h.waitFile(p, "offset 0", func(st FileState) bool { return st.Offset == 0 })
			after, text := numbered("b", 0, 10)
			appendFile(t, p, text)
			h.waitLines(110)
			equalStrings(t, "lines", texts(h.stop()), append(before, after...))
		})
		t.Run("rewritten past the old offset", func(t *testing.T) {
			p := tempPath(t, "server.log")
			writeFile(t, p, "")
			h := startFollower(t, []string{p}, opts)
			before, text := numbered("a", 0, 100)
			appendFile(t, p, text)
			h.waitLines(100)
			after, newText := numbered("longer", 0, 100)
			if len(newText) <= len(text) || newText[len(text)-1] == '\n' {
				t.Fatal("bad test data: the rewrite must go past the old offset, with no '\\n' just before it")
			}
			writeFile(t, p, newText) // truncate and write at once
			h.waitLines(200)
			equalStrings(t, "lines", texts(h.stop()), append(before, after...))
		})
		t.Run("partial line flushed", func(t *testing.T) {
			p := tempPath(t, "server.log")
			writeFile(t, p, "")
			h := startFollower(t, []string{p}, opts)
			appendFile(t, p, "a\nhalf")
			h.waitFile(p, "offset 6", func(st FileState) bool { return st.Offset == 6 })
			if err := os.Truncate(p, 0); err != nil {
				t.Fatal(err)
			}
			h.waitFile(p, "offset 0", func(st FileState) bool { return st.Offset == 0 })
			appendFile(t, p, "b\n")
			h.waitLines(3)
			equalStrings(t, "lines", texts(h.stop()), []string{"a", "half", "b"})
		})
	})
}

// Delete and re-create: the deleted file is still read to its end (through
// the open descriptor), the deletion is reported, the new file read from 0.
func TestDeleteRecreate(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		p := tempPath(t, "server.log")
		writeFile(t, p, "")
		h := startFollower(t, []string{p}, opts)
		oldLines, oldText := numbered("old", 0, 1000)
		w := openWriter(t, p)
		w.write(oldText[:100])
		h.waitLines(1)
		w.write(oldText[100:])
		w.close()
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		newLines, newText := numbered("new", 0, 1000)
		writeFile(t, p, newText)
		h.waitLines(2000)
		h.waitError(ErrDeleted, p)
		equalStrings(t, "lines", texts(h.stop()), append(oldLines, newLines...))
	})
}

// The parent directory of a file input is removed and created again: the
// lost watch is noticed and set up again.
func TestParentDirectoryRecreated(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		base := t.TempDir()
		dir := filepath.Join(base, "logs")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "server.log")
		writeFile(t, p, "")
		h := startFollower(t, []string{p}, opts)
		appendFile(t, p, "one\n")
		h.waitLines(1)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		h.waitFile(p, "missing", func(st FileState) bool { return st.Missing })
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, "two\n")
		h.waitLines(2)
		appendFile(t, p, "three\n")
		h.waitLines(3)
		equalStrings(t, "lines", texts(h.stop()), []string{"one", "two", "three"})
	})
}

// Copytruncate followed by a write of exactly as many bytes before the
// follower looks: the size and the '\n' before the old offset are as they
// were; the line before it is not.
func TestCopyTruncateSameLength(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		p := tempPath(t, "server.log")
		writeFile(t, p, "")
		h := startFollower(t, []string{p}, opts)
		appendFile(t, p, "[10:00:01] first\n")
		h.waitLines(1)
		writeFile(t, p, "[10:00:02] other\n") // truncate and write at once
		h.waitLines(2)
		lines := h.stop()
		equalStrings(t, "lines", texts(lines), []string{"[10:00:01] first", "[10:00:02] other"})
		if lines[0].Restart || !lines[1].Restart {
			t.Errorf("Restart = %v, %v; want false, true", lines[0].Restart, lines[1].Restart)
		}
	})
}

// The first line of the new file after a rename or a re-creation is marked
// Restart (line numbers start again); lines of the old file are not.
func TestRestartMarked(t *testing.T) {
	for _, kind := range []string{"rename", "delete"} {
		t.Run(kind, func(t *testing.T) {
			p := tempPath(t, "state-change.log")
			writeFile(t, p, "")
			h := startFollower(t, []string{filepath.Dir(p)}, Options{})
			appendFile(t, p, "a\nb\n")
			h.waitLines(2)
			if kind == "rename" {
				if err := os.Rename(p, p+".1"); err != nil {
					t.Fatal(err)
				}
			} else if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			writeFile(t, p, "c\nd\n")
			h.waitCount(p, 4)
			var got []string
			for _, l := range h.stop() {
				if l.Path == p {
					got = append(got, fmt.Sprintf("%s:%v", l.Text, l.Restart))
				}
			}
			equalStrings(t, "lines", got, []string{"a:false", "b:false", "c:true", "d:false"})
		})
	}
}

// Recursive: files in subdirectories at the start, in subdirectories made
// later, and nested deeper still are all followed, under paths joined
// from the directory input as given.
func TestRecursive(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		opts.Recursive = true
		opts.Dir = func(name string) bool { return name != "skip" }
		root := t.TempDir()
		old := filepath.Join(root, "broker-1", "state-change.log")
		if err := os.MkdirAll(filepath.Dir(old), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, old, "at start\n")
		h := startFollower(t, []string{root}, opts)
		appendFile(t, old, "appended\n")
		h.waitCount(old, 1)
		later := filepath.Join(root, "logs", "broker-2", "server.log")
		if err := os.MkdirAll(filepath.Dir(later), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, later, "new dir\n")
		skipped := filepath.Join(root, "skip", "server.log")
		if err := os.MkdirAll(filepath.Dir(skipped), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, skipped, "not followed\n")
		h.waitCount(later, 1)
		appendFile(t, later, "more\n")
		h.waitCount(later, 2)
		lines := h.stop()
		equalStrings(t, "old", textsOf(lines, old), []string{"appended"})
		equalStrings(t, "later", textsOf(lines, later), []string{"new dir", "more"})
		equalStrings(t, "skipped", textsOf(lines, skipped), nil)
	})
}
