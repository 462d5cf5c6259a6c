package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// buildBinary builds leaderaudit for the process-level tests, with the
// race detector when the tests have it (go test -race), so a race on a
// signal's path fails the test.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "leaderaudit")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, ".")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// SIGINT during an audit blocked on a pipe (a FIFO named on the command
// line, or stdin): prints what it has, says it was interrupted, exits 130;
// SIGTERM exits 143. Built with -race under go test -race: the readers
// still running when the signal comes must not race the report.
func TestSignalsDuringAudit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	data, err := os.ReadFile("../../testdata/incidents/worked-0.10.2/broker-2/state-change.log")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sig   syscall.Signal
		code  int
		stdin bool
	}{{syscall.SIGINT, 130, false}, {syscall.SIGTERM, 143, false}, {syscall.SIGINT, 130, true}} {
		var out, errb bytes.Buffer
		var cmd *exec.Cmd
		var w io.WriteCloser
		if c.stdin {
			cmd = exec.Command(bin, "audit", "--tz", "UTC")
			r, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			cmd.Stdin, w = r, pw
		} else {
			fifo := filepath.Join(t.TempDir(), "state-change.log")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip("no FIFOs here:", err)
			}
			cmd = exec.Command(bin, "audit", "--tz", "UTC", fifo)
			defer func() {
				if w != nil {
					w.Close()
				}
			}()
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if w, err = os.OpenFile(fifo, os.O_WRONLY, 0); err != nil {
				t.Fatal(err)
			}
		}
		if c.stdin {
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
		}
		w.Write(data)
		// Keep the pipe open: the audit would wait forever without the signal.
		// A signal before the audit's handler is installed kills it (exit -1),
		// and on a loaded machine start-up outlasts any fixed sleep: the
		// audit installs it before reading, so wait for the pipe to drain.
		waitDrained(t, w)
		cmd.Process.Signal(c.sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v (stdin %v): audit did not stop", c.sig, c.stdin)
		}
		w.Close()
		if got := cmd.ProcessState.ExitCode(); got != c.code {
			t.Errorf("%v (stdin %v): exit %d, want %d; stderr %s", c.sig, c.stdin, got, c.code, errb.String())
		}
		if !strings.Contains(out.String(), "INTERRUPTED") || !strings.Contains(errb.String(), "interrupted") {
			t.Errorf("%v (stdin %v): no interruption note:\n%s\n%s", c.sig, c.stdin, out.String(), errb.String())
		}
		if strings.Contains(errb.String(), "DATA RACE") {
			t.Errorf("%v (stdin %v): %s", c.sig, c.stdin, errb.String())
		}
	}
}

// A full disk for the output is an error with a message, not a silent loss.
func TestOutputDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full")
	}
	defer full.Close()
	bin := buildBinary(t)
	for _, format := range []string{"text", "json"} {
		var errb bytes.Buffer
		cmd := exec.Command(bin, "audit", "--tz", "UTC", "--format", format, "../../testdata/samples")
		cmd.Stdout, cmd.Stderr = full, &errb
		cmd.Run()
		if cmd.ProcessState.ExitCode() != exitError || !strings.Contains(errb.String(), "no space left") {
			t.Errorf("%s: exit %d, stderr %q", format, cmd.ProcessState.ExitCode(), errb.String())
		}
	}
}

// Piped into head: ends quietly (no error message).
func TestBrokenPipeQuiet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	cmd := exec.Command("sh", "-c", bin+" audit --tz UTC --format json ../../testdata/samples | head -1 >/dev/null")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	cmd.Run()
	if strings.Contains(errb.String(), "leaderaudit:") {
		t.Errorf("stderr: %s", errb.String())
	}
}

// buildRaceBinary builds leaderaudit with the race detector whatever the
// tests were built with: the interrupt's path runs readers and the merge
// at once, and a race there is what this test is for.
func buildRaceBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "leaderaudit")
	if out, err := exec.Command("go", "build", "-race", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Skipf("no race build here: %v\n%s", err, out)
	}
	return bin
}

// Ctrl-C with a quiet pipe among the inputs ((cat broker-2/state-change.log;
// sleep) | leaderaudit audit - broker-1 broker-3 app): the report covers
// everything read, the pipe's lines included, and each source says how far
// it was read. Before, the merge waited for a first batch of 256 events
// from the pipe and the interrupt threw everything away: 0 elections, 0
// producer errors.
func TestInterruptKeepsWhatWasRead(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildRaceBinary(t)
	dir := "../../testdata/incidents/case1-0.10.2-no-retries"
	data, err := os.ReadFile(dir + "/broker-2/state-change.log")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "audit", "--tz", "UTC", "--format", "json", "-", dir+"/broker-1", dir+"/broker-3", dir+"/app")
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Write(data)
	waitDrained(t, w) // the audit has its handler and reads; the pipe stays open
	waitReadBytes(t, cmd.Process.Pid, int64(len(data))+treeBytes(t, dir+"/broker-1", dir+"/broker-3", dir+"/app"))
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("audit did not stop")
	}
	if got := cmd.ProcessState.ExitCode(); got != 130 {
		t.Errorf("exit %d, want 130; stderr %s", got, errb.String())
	}
	if strings.Contains(errb.String(), "DATA RACE") {
		t.Fatal(errb.String())
	}
	var sum map[string]any
	stdinErr := ""
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		switch {
		case m["type"] == "summary":
			sum = m
		case m["type"] == "source" && m["path"] == "-":
			stdinErr, _ = m["error"].(string)
		}
	}
	if sum == nil || sum["elections"] != 1.0 || sum["producer_errors"] != 1.0 || sum["interrupted"] != true {
		t.Errorf("summary after the interrupt: %v\nstderr %s", sum, errb.String())
	}
	if !strings.Contains(stdinErr, "interrupted after line 5") {
		t.Errorf("stdin's source record does not say how far it was read: %q", stdinErr)
	}
}

// Under `ulimit -n 100`, 150 logs of 1,000 events each: every file is
// read (the open files are bounded by the limit, not by the input) and
// the audit exits 0. It used to keep every file open while its reader
// waited on the merge: "too many open files" for most of them, exit 0,
// only stderr knew.
func TestManyFilesUnderALowDescriptorLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	const files = 150
	for i := range files {
		var b strings.Builder
		for j := range 1000 {
			fmt.Fprintf(&b, "[2024-01-01 10:%02d:%02d,%03d] INFO [Broker id=1] Leader t%d-%d starts at leader epoch 1 from offset 0 with high watermark 0 ISR [1] addingReplicas [] removingReplicas []. Previous leader epoch was 0. (state.change.logger)\n", j/60%60, j%60, i, i, j)
		}
		os.MkdirAll(filepath.Join(dir, fmt.Sprintf("b%03d", i)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("b%03d", i), "state-change.log"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("sh", "-c", `ulimit -n 100 && exec "$0" audit --tz UTC --format json "$1"`, bin, dir)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Run()
	sources, bad := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil || m["type"] != "source" {
			continue
		}
		sources++
		if m["error"] != nil || m["events"] != 1000.0 {
			bad++
		}
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 || sources != files || bad != 0 {
		t.Errorf("exit %d, %d sources, %d not read whole; stderr:\n%.600s", code, sources, bad, errb.String())
	}
}

// treeBytes is the size of the regular files under dirs.
func treeBytes(t *testing.T, dirs ...string) int64 {
	t.Helper()
	var n int64
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(_ string, e fs.DirEntry, err error) error {
			if err != nil || !e.Type().IsRegular() {
				return err
			}
			fi, err := e.Info()
			if err == nil {
				n += fi.Size()
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// `audit --follow` (the live pipeline `watch` runs) on 2,000 files under
// `ulimit -n 128`: every file is read back and followed, elections
// appended to a few of them once following is under way are reported,
// no source has an error, exit 0 after SIGINT, and the descriptors open
// stay near the bound the limit gives (64). The follower kept one
// descriptor per followed file.
func TestFollowManyFilesUnderALowDescriptorLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	const files = 2000
	leader := func(sec, part, epoch int) string {
		return fmt.Sprintf("[2024-01-01 10:00:%02d,000] INFO [Broker id=1] Leader t-%d starts at leader epoch %d from offset 0 with high watermark 0 ISR [1] addingReplicas [] removingReplicas []. Previous leader epoch was %d. (state.change.logger)\n", sec, part, epoch, epoch-1)
	}
	path := func(i int) string {
		return filepath.Join(dir, fmt.Sprintf("b%02d", i/100), fmt.Sprintf("state-change-%d.log", i%100))
	}
	for i := range files {
		os.MkdirAll(filepath.Dir(path(i)), 0o755)
		if err := os.WriteFile(path(i), []byte(leader(0, i, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// --quiet and --stale-window short: each election is over, and
	// written, once the logs have been silent a second.
	cmd := exec.Command("sh", "-c", `ulimit -n 128 && exec "$0" audit --follow --tz UTC --format json --quiet 1ms --stale-window 1ms "$1"`, bin, dir)
	var out syncBuffer
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	peak := 0
	elections := func() int { return strings.Count(out.String(), `"type":"election"`) }
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for !cond() {
			if des, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", cmd.Process.Pid)); err == nil {
				peak = max(peak, len(des))
			}
			if time.Now().After(deadline) {
				t.Fatalf("gave up waiting for %s; stderr %.600s", what, errb.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitFor("the read-back's elections", func() bool { return elections() == files })
	more := []int{0, 777, 1999}
	for _, i := range more {
		f, err := os.OpenFile(path(i), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(leader(5, i, 2))
		f.Close()
	}
	waitFor("the appended elections", func() bool { return elections() == files+len(more) })
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v; stderr %.600s", err, errb.String())
	}
	sources, bad := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil || m["type"] != "source" {
			continue
		}
		sources++
		want := 1.0
		for _, i := range more {
			if m["path"] == path(i) {
				want = 2
			}
		}
		if m["error"] != nil || m["lines"] != want {
			bad++
		}
	}
	if sources != files || bad != 0 {
		t.Errorf("%d sources, %d with an error or lines missing; stderr %.600s", sources, bad, errb.String())
	}
	if peak > 64+16 {
		t.Errorf("peak %d descriptors open: the bound under ulimit -n 128 is 64 log files", peak)
	}
	t.Logf("%d files under ulimit -n 128: peak %d descriptors open", files, peak)
}

// syncBuffer is a bytes.Buffer a process writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
