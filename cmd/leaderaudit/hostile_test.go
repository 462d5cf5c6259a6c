package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

const goodLine = "[2021-04-28 16:12:30,890] INFO [Broker id=0] Leader erstesTopic-1 starts at leader epoch 10 from offset 0 with high watermark 0 ISR [0] addingReplicas [] removingReplicas []. Previous leader epoch was 9. (state.change.logger)\n"

// hostileAudit runs the audit with a deadline: a hang fails the test.
func hostileAudit(t *testing.T, paths ...string) (map[string]any, []map[string]any, string, int) {
	t.Helper()
	type res struct {
		out, errs string
		code      int
	}
	done := make(chan res, 1)
	go func() {
		out, errs, code := audit(t, "json", paths...)
		done <- res{out, errs, code}
	}()
	var r res
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("audit did not finish within 60 s")
	}
	var summary map[string]any
	var sources []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.out), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("output line is not JSON: %v: %q", err, line)
		}
		switch m["type"] {
		case "summary":
			summary = m
		case "source":
			sources = append(sources, m)
		}
	}
	return summary, sources, r.errs, r.code
}

func num(m map[string]any, k string) int64 {
	v, _ := m[k].(float64)
	return int64(v)
}

// Each hostile input: no crash, no hang, a clear account of what was
// skipped, and the good lines around it still audited.
func TestHostileInputs(t *testing.T) {
	random := make([]byte, 1<<20)
	rand.Read(random)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(goodLine + goodLine))
	zw.Close()
	cases := []struct {
		name, file, data string
		check            func(t *testing.T, src map[string]any, summary map[string]any, errs string)
	}{
		{"random bytes", "state-change.log", string(random), func(t *testing.T, src, sum map[string]any, errs string) {
			// Sniffed as binary (NULs in the first block) or read as text with
			// nothing understood; either way named and not fatal.
			if src != nil && num(src, "events") != 0 {
				t.Errorf("events from random bytes: %v", src)
			}
		}},
		{"20 MB line", "state-change.log", goodLine + strings.Repeat("A", 20<<20) + "\n" + goodLine, func(t *testing.T, src, sum map[string]any, errs string) {
			if num(src, "cut_lines") != 1 || num(sum, "elections") != 1 {
				t.Errorf("cut %v elections %v", src["cut_lines"], sum["elections"])
			}
		}},
		{"NUL tail after a crash", "state-change.log", goodLine + strings.Repeat("\x00", 4096) + "\n", func(t *testing.T, src, sum map[string]any, errs string) {
			if num(sum, "elections") != 1 || num(src, "not_understood") != 1 {
				t.Errorf("%v / %v", sum, src)
			}
		}},
		{"invalid UTF-8 and controls in names", "state-change.log", strings.Replace(goodLine, "erstesTopic", "erste\xff\x1b[2J", 1) + goodLine, func(t *testing.T, src, sum map[string]any, errs string) {
			if num(sum, "elections") != 1 || num(src, "unparsed") != 1 {
				t.Errorf("%v / unparsed %v", sum["elections"], src["unparsed"])
			}
		}},
		{"CRLF and CR-only", "state-change.log", strings.ReplaceAll(goodLine, "\n", "\r\n") + strings.Replace(strings.ReplaceAll(goodLine, "\n", "\r"), "erstesTopic-1", "other-2", 1), func(t *testing.T, src, sum map[string]any, errs string) {
			if num(sum, "elections") != 2 {
				t.Errorf("elections %v", sum["elections"])
			}
		}},
		{"ends mid-line", "state-change.log", strings.TrimSuffix(goodLine, "\n"), func(t *testing.T, src, sum map[string]any, errs string) {
			if num(sum, "elections") != 1 {
				t.Errorf("elections %v", sum["elections"])
			}
		}},
		{"timestamps backwards and duplicates", "state-change.log", goodLine + strings.Replace(goodLine, "16:12:30,890", "16:12:29,000", 1) + goodLine + goodLine, func(t *testing.T, src, sum map[string]any, errs string) {
			if num(src, "out_of_order") != 1 || num(sum, "elections") != 1 {
				t.Errorf("out of order %v elections %v", src["out_of_order"], sum["elections"])
			}
		}},
		{"partition beyond int32", "state-change.log", strings.Replace(goodLine, "erstesTopic-1", "erstesTopic-99999999999", 1), func(t *testing.T, src, sum map[string]any, errs string) {
			if num(sum, "elections") != 0 || num(src, "unparsed") != 1 {
				t.Errorf("%v %v", sum["elections"], src["unparsed"])
			}
		}},
		{"leader epoch going down", "state-change.log", goodLine + strings.Replace(goodLine, "epoch 10", "epoch 3", 1), func(t *testing.T, src, sum map[string]any, errs string) {
			if num(sum, "elections") != 2 {
				t.Errorf("elections %v", sum["elections"])
			}
		}},
		{"not gzip at all", "state-change.log.gz", goodLine, func(t *testing.T, src, sum map[string]any, errs string) {
			if num(sum, "elections") != 1 {
				t.Errorf("elections %v", sum["elections"])
			}
		}},
		{"truncated gzip", "state-change.log.gz", gz.String()[:gz.Len()-12], func(t *testing.T, src, sum map[string]any, errs string) {
			if src["error"] == nil || !strings.Contains(errs, "truncated") {
				t.Errorf("no truncation reported: %v / %s", src["error"], errs)
			}
		}},
		{"empty file", "state-change.log", "", func(t *testing.T, src, sum map[string]any, errs string) {
			if num(src, "lines") != 0 {
				t.Errorf("%v", src)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, c.file)
			os.WriteFile(p, []byte(c.data), 0o644)
			// A good file beside it must still be audited.
			good := filepath.Join(dir, "good", "state-change.log")
			os.MkdirAll(filepath.Dir(good), 0o755)
			os.WriteFile(good, []byte(strings.Replace(goodLine, "erstesTopic-1", "companion-0", 1)), 0o644)
			sum, srcs, errs, code := hostileAudit(t, p, good)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var src map[string]any
			for _, s := range srcs {
				if s["path"] == p {
					src = s
				}
			}
			if src == nil && !strings.Contains(errs, "binary") {
				t.Fatalf("no source line and no message: %s", errs)
			}
			// The companion's election is in the counts: take it out.
			sum["elections"] = float64(num(sum, "elections") - 1)
			if num(sum, "elections") < 0 {
				t.Fatal("the good file beside it was not audited")
			}
			c.check(t, src, sum, errs)
		})
	}
}

func TestHostileDirectoryOf10000Files(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 files")
	}
	dir := t.TempDir()
	for i := 0; i < 10000; i++ {
		line := strings.Replace(goodLine, "erstesTopic-1", fmt.Sprintf("t%d-0", i), 1)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("app-%05d.log", i)), []byte(line), 0o644)
	}
	sum, srcs, errs, code := hostileAudit(t, dir)
	if code != exitOK || len(srcs) != 10000 || num(sum, "elections") != 10000 {
		t.Fatalf("exit %d, %d sources, %v elections: %s", code, len(srcs), sum["elections"], errs)
	}
}

// Memory grows with partitions, not with log size: 100,000 distinct
// partitions, one election each, stay within 2 KiB of heap per partition.
func TestHostileManyPartitionsBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("large input")
	}
	dir := t.TempDir()
	f, _ := os.Create(filepath.Join(dir, "state-change.log"))
	n := 100000
	if raceEnabled {
		// The race detector's shadow memory voids the bound (it is not
		// checked there) and makes 100,000 partitions cost 13–40 s of the
		// package's time: .ci/run checks the bound in a run without -race,
		// and this run keeps the shape (the minute's wrap puts elections
		// before those indexed, once quadratic in the match index).
		n = 20000
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(f, "[2021-04-28 16:12:%02d,%03d] INFO [Broker id=0] Leader t-%d starts at leader epoch 1 from offset 0 with high watermark 0 ISR [0] addingReplicas [] removingReplicas []. Previous leader epoch was 0. (state.change.logger)\n", i/1000%60, i%1000, i)
	}
	f.Close()
	var peak uint64
	stop := make(chan bool)
	sampled := make(chan bool)
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			default:
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak {
				peak = ms.HeapInuse
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	a := parseAudit(t, "--tz", "UTC", "--format", "json", dir)
	var errb bytes.Buffer
	code := exitStatus(a.run(context.Background(), strings.NewReader(""), discard{}, &errb), &errb)
	close(stop)
	<-sampled
	if code != exitOK {
		t.Fatal(errb.String())
	}
	if peak > uint64(n)*2048+64<<20 && !raceEnabled {
		t.Errorf("peak heap %d MiB for %d partitions", peak>>20, n)
	}
	t.Logf("peak heap %d MiB for %d partitions", peak>>20, n)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// copyTree copies a directory of small files.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Case 1 copied with links into it (the producer's log as a symlink to
// its dated file, a link to the audited root) and audited together with a
// link to its directory: 7 sources, 1 producer error, 1 final failure,
// as without the links (it was 14, 2 and 2: every file read twice).
func TestSymlinkedFilesAreReadOnce(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "case1")
	copyTree(t, "../../testdata/incidents/case1-0.10.2-no-retries", root)
	app := filepath.Join(root, "app")
	if err := os.Rename(filepath.Join(app, "producer.log"), filepath.Join(app, "producer-2019-03-04.log")); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"producer-2019-03-04.log", filepath.Join(app, "producer.log")}, {root, filepath.Join(root, "all")}, {root, filepath.Join(dir, "case1link")}} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	summary, sources, errs, code := hostileAudit(t, root, filepath.Join(dir, "case1link"))
	if code != 0 || len(sources) != 7 || num(summary, "producer_errors") != 1 || num(summary, "final_failures") != 1 {
		t.Errorf("exit %d, %d sources, %d producer errors, %d final; stderr %s", code, len(sources), num(summary, "producer_errors"), num(summary, "final_failures"), errs)
	}
}

// A FIFO in a walked directory is skipped and named (the audit hung on it
// with no output); the rest is audited.
func TestFIFOInAWalkedDirectory(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "../../testdata/incidents/case1-0.10.2-no-retries", dir)
	if err := syscall.Mkfifo(filepath.Join(dir, "broker-2", "controller.log"), 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	summary, sources, errs, code := hostileAudit(t, dir)
	if code != 0 || len(sources) != 7 || num(summary, "producer_errors") != 1 || !strings.Contains(errs, "controller.log: not a regular file (a FIFO)") {
		t.Errorf("exit %d, %d sources; stderr %s", code, len(sources), errs)
	}
}

// 4 KiB of NULs in front of a broker's lines (kafkaServer.out after a
// copytruncate under a > redirect): read after them, and said; it used to
// be dropped whole as a binary file.
func TestNULPrefixedLogIsAudited(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kafkaServer.out"), []byte(strings.Repeat("\x00", 4096)+goodLine+goodLine), 0o644); err != nil {
		t.Fatal(err)
	}
	summary, sources, errs, code := hostileAudit(t, dir)
	if code != 0 || len(sources) != 1 || num(sources[0], "lines") != 2 || num(summary, "elections") != 1 || !strings.Contains(errs, "starts with 4096 NUL bytes") {
		t.Errorf("exit %d, sources %v, summary %v; stderr %s", code, sources, summary, errs)
	}
}
