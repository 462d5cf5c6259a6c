package follow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sameTail is a last line that many files can end with: a run of one
// character, as the stress writers' lines do, or a stack trace's frame.
var sameTail = strings.Repeat("x", tailLen-1) + "\n"

// A closed file whose inode now holds other contents, with the same 64
// bytes before the read offset and a different start: another file (a
// freed inode number given to the next file made, or a copytruncate
// while closed), read from its first byte. The 64 bytes alone took it for
// the old file and went on at the old offset: its first lines were lost.
func TestClosedFileReusedInodeReadFromStart(t *testing.T) {
	p := tempPath(t, "server.log")
	writeFile(t, p, "old 1\n"+sameTail)
	s := newStepper(t, []string{p}, Options{FromStart: true, IdleClose: time.Nanosecond})
	s.closeAll()
	fi0, _ := os.Stat(p)
	// Same inode (O_TRUNC), same length before the old offset, same tail.
	writeFile(t, p, "new 1\n"+sameTail+"new 3\n")
	if fi, _ := os.Stat(p); !os.SameFile(fi0, fi) {
		t.Fatal("rewritten with another inode")
	}
	for range 2 + int(safetyInterval/defaultPollInterval) {
		s.tick()
	}
	equalStrings(t, "lines", s.lines[p], []string{"old 1", strings.TrimSuffix(sameTail, "\n"), "new 1", strings.TrimSuffix(sameTail, "\n"), "new 3"})
}

// A closed file that left its directory (it cannot be told from one
// deleted) is remembered by its identity, to carry on where it was left
// should it turn up under a followed name. What turns up with that inode
// and another start is another file: read from its first byte.
func TestRetiredReusedInodeReadFromStart(t *testing.T) {
	root := t.TempDir()
	logs := filepath.Join(root, "logs")
	if err := os.Mkdir(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(logs, "state-change.log")
	writeFile(t, p, "old 1\n"+sameTail)
	s := newStepper(t, []string{logs}, Options{FromStart: true, IdleClose: time.Nanosecond})
	s.closeAll()
	out := filepath.Join(root, "elsewhere.log")
	if err := os.Rename(p, out); err != nil {
		t.Fatal(err)
	}
	for n := 0; len(s.f.retired) == 0; n++ {
		if n == 8 {
			t.Fatal("the file that left is not remembered")
		}
		s.tick()
	}
	// The same inode, rewritten, comes back under a followed name.
	writeFile(t, out, "new 1\n"+sameTail+"new 3\n")
	if err := os.Rename(out, p+".1"); err != nil {
		t.Fatal(err)
	}
	for n := 0; n < 8 && len(s.lines[p+".1"]) < 3; n++ {
		s.tick()
	}
	equalStrings(t, "lines", s.lines[p+".1"], []string{"new 1", strings.TrimSuffix(sameTail, "\n"), "new 3"})
}
