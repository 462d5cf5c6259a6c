// Package unpriv lets a test that needs file permissions to hold (a file
// chmod 000 that cannot be opened) run where the tests run as root, which
// reads anything: the test binary runs the one test again as an
// unprivileged user and reports its result. Only tests import it.
package unpriv

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// env marks the run as the unprivileged one.
const env = "LEADERAUDIT_UNPRIV_CHILD"

// nobody is the uid and gid the test runs as (Debian's nobody/nogroup).
const nobody = 65534

// Elsewhere reports whether t was run in another process: as root it runs
// t's test again as nobody, fails t if that run failed, and returns true
// (the caller returns). Unprivileged, or in that run, it returns false and
// the test goes on here. Where root cannot switch users it skips t.
//
// In that run the test's temporary directories are nobody's; what else it
// reads (the package's directory, shared data) must be readable by all.
func Elsewhere(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 || os.Getenv(env) != "" {
		return false
	}
	// The test binary lives in go test's private work directory: a copy
	// nobody can run.
	dir, err := os.MkdirTemp("", "unpriv")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "test")
	if err := copyFile(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), env+"=1", "HOME="+dir)
	cmd.SysProcAttr = credential(nobody, nobody)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Skipf("cannot run as uid %d: %v", nobody, err)
		}
		t.Fatalf("as uid %d: %v\n%s", nobody, err, out)
	}
	t.Logf("passed as uid %d", nobody)
	return true
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
