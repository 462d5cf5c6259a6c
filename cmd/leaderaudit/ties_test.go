package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/gen"
	"github.com/leaderaudit/leaderaudit/internal/vltest"
)

// Rows of one stream with the same millisecond, shipped without an order
// field (Vector, Fluent Bit, Promtail/Alloy send no log.offset), come back
// from the store in no particular order. The audit puts them back in the
// order the lines say (internal/source's tie order) and equals the files'
// audit: from the server's own order, and from orders drawn from seeds by
// a proxy that strips log.offset, so the test does not rest on the order
// one server version happens to return.
func TestLogStoreTies(t *testing.T) {
	srv := vltest.Start(t)
	ctx := context.Background()
	type set struct {
		name, dir string
	}
	var sets []set
	root := filepath.Join("..", "..", "testdata", "incidents")
	for _, c := range incidents {
		sets = append(sets, set{c, filepath.Join(root, c)})
	}
	// Under -race (the README's test command) one generated seed and one
	// shuffle: all of them there cost two minutes of the package's time;
	// .ci/run runs them all without -race.
	seeds, shuffles := []int64{5, 7}, []uint64{1, 2, 3}
	if raceEnabled {
		seeds, shuffles = seeds[:1], shuffles[:1]
	}
	for _, era := range gen.Eras {
		for _, seed := range seeds {
			dir := t.TempDir()
			cfg := gen.DefaultConfig()
			cfg.Era, cfg.Size, cfg.Seed = era, 2<<20, seed
			if _, err := gen.Generate(cfg, dir); err != nil {
				t.Fatal(err)
			}
			os.Remove(filepath.Join(dir, "truth.jsonl"))
			removeEmpty(dir)
			sets = append(sets, set{"gen-" + string(era) + "-" + itoa(seed), dir})
		}
	}
	for _, s := range sets {
		for _, sh := range []vltest.Shipper{{Offset: true}, {}} {
			extra := map[string]string{"set": s.name, "offset": boolWord(sh.Offset)}
			files, err := vltest.Files(s.dir, extra)
			if err != nil {
				t.Fatal(err)
			}
			byZone := map[*time.Location][]vltest.File{}
			for _, f := range files {
				loc := time.UTC
				if s.name == "case4-clock-skew" && strings.Contains(filepath.ToSlash(f.Path), "/broker-2/") {
					loc = moscow(t)
				}
				byZone[loc] = append(byZone[loc], f)
			}
			for loc, fs := range byZone {
				if _, _, err := vltest.IngestWith(ctx, srv.URL, sh, fs, vltest.StreamFields(extra), loc); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := srv.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		t.Run(s.name, func(t *testing.T) {
			want, _, code := audit(t, "json", s.dir)
			if code != 0 {
				t.Fatalf("files: exit %d", code)
			}
			fileRoot := s.dir + string(filepath.Separator)
			t.Run("server order", func(t *testing.T) {
				got, serr, code := storeAudit(t, srv.URL, `{set="`+s.name+`",offset="no"}`, nil, nil)
				if code != 0 || serr != "" {
					t.Fatalf("exit %d: %s", code, serr)
				}
				tieDiff(t, want, got, fileRoot, "vlogs://"+srv.Addr+"/")
			})
			for _, seed := range shuffles {
				t.Run("shuffled "+itoa(int64(seed)), func(t *testing.T) {
					p := newProxy(t, srv.URL)
					p.shuffleTies = &seed
					// The proxy reads a chunk's whole answer before it
					// sends headers: on a loaded machine that took more
					// than the default 10 s --store-timeout.
					got, serr, code := storeAudit(t, p.url, `{set="`+s.name+`",offset="yes"}`, nil, func(a *AuditCmd) { a.Store.StoreTimeout = time.Minute })
					if code != 0 || serr != "" {
						t.Fatalf("exit %d: %s", code, serr)
					}
					tieDiff(t, want, got, fileRoot, "vlogs://"+strings.TrimPrefix(p.url, "http://")+"/")
				})
			}
		})
	}
}

// tieDiff says how many elections differ, then compares all records.
func tieDiff(t *testing.T, files, store, fileRoot, storeRoot string) {
	t.Helper()
	a := strings.Split(strings.ReplaceAll(withoutLineNumbers(files), fileRoot, ""), "\n")
	b := strings.Split(strings.ReplaceAll(withoutLineNumbers(store), storeRoot, ""), "\n")
	in := map[string]int{}
	n := 0
	for _, l := range a {
		if strings.HasPrefix(l, `{"type":"election"`) {
			in[l]++
			n++
		}
	}
	diff := 0
	for _, l := range b {
		if strings.HasPrefix(l, `{"type":"election"`) {
			if in[l] > 0 {
				in[l]--
			} else {
				diff++
			}
		}
	}
	if diff > 0 {
		t.Errorf("%d of %d elections differ from the files' audit", diff, n)
	}
	sameRecords(t, sortTies(withoutLineNumbers(files)), sortTies(withoutLineNumbers(store)), fileRoot, storeRoot)
}

// sortTies sorts each run of records of one type with the same time: the
// report writes those (truncations of one request, say) in the order their
// lines came in, which without an order field the store cannot know.
func sortTies(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	key := func(l string) string {
		t, _, _ := strings.Cut(l, `,`)
		return t + " " + recordTime.FindString(l)
	}
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && key(lines[j]) == key(lines[i]) {
			j++
		}
		sort.Strings(lines[i:j])
		i = j
	}
	return strings.Join(lines, "\n")
}

var recordTime = regexp.MustCompile(`"time":"[^"]*"`)

// withoutLineNumbers takes out the line numbers of events and evidence:
// without an order field the store cannot say which of a millisecond's
// lines of one file came first when the lines do not say it either (the
// partitions of one phase of a request), so their numbers are the rows'
// places in the restored order.
func withoutLineNumbers(s string) string {
	return lineNumber.ReplaceAllString(s, "${1}N")
}

var lineNumber = regexp.MustCompile(`("line":|\.log:)[0-9]+\b`)

func removeEmpty(dir string) {
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if fi, e := os.Stat(p); err == nil && e == nil && !d.IsDir() && fi.Size() == 0 {
			os.Remove(p) // an empty file is a source; a store has no stream for it
		}
		return nil
	})
}

func boolWord(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
