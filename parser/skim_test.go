package parser

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/gen"
)

// skimCorpus: every sample and incident log, and a generated set of every
// era (Java producers in log4j and Spring layouts), as name → content.
func skimCorpus(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	add := func(path string) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files[path] = b
	}
	for _, dir := range []string{"../../shared/samples", "../testdata/samples", "../testdata/incidents", "testdata"} {
		filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !strings.HasSuffix(path, ".md") && !strings.HasSuffix(path, ".golden") {
				add(path)
			}
			return nil
		})
	}
	if len(files) < 40 {
		t.Fatalf("only %d sample files found", len(files))
	}
	files["synthetic edges"] = skimEdges()
	for _, era := range gen.Eras {
		for _, layout := range []string{gen.LayoutLog4j, gen.LayoutSpring} {
			cfg := gen.DefaultConfig()
			cfg.Era, cfg.ProducerLayout, cfg.Size, cfg.Seed = era, layout, 3<<20, 7
			dir := t.TempDir()
			if _, err := gen.Generate(cfg, dir); err != nil {
				t.Fatal(err)
			}
			filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(path, ".log") {
					add(path)
				}
				return nil
			})
		}
	}
	return files
}

// skimEdges: lines at the edges of what the fast path decides from
// searches over a whole buffer and from stamps compared in parts:
// continuation lines with a NUL or a collector's "| " (before and after
// their first 128 bytes, and a '|' far from any), stamps that go back
// within a minute and across one, the eras a kafka.log logger marks.
func skimEdges() []byte {
	const notLeader = "org.apache.kafka.common.errors.NotLeaderForPartitionException: This server is not the leader for that topic-partition.\n"
	var b bytes.Buffer
	rec := func(stamp, lv, msg, logger string) {
		fmt.Fprintf(&b, "[2024-03-11 %s] %s %s (%s)\n", stamp, lv, msg, logger)
	}
	rec("10:00:00,000", "INFO", "KafkaConfig values: ", "kafka.server.KafkaConfig")
	b.WriteString("\tbroker.id = 7\n\tinter.broker.protocol.version = 0.10.2-IV0\n")
	for i := range 300 {
		ms := (i * 37) % 1000
		sec := (i / 7) % 60
		min := i / 50
		rec(fmt.Sprintf("10:%02d:%02d,%03d", min, sec, ms), "INFO", fmt.Sprintf("[Log partition=t-%d, dir=/d] Rolled new log segment at offset %d in 1 ms.", i%5, i), "kafka.log.Log")
		switch i % 10 {
		case 0:
			b.WriteString("\tat kafka.log.Log.roll(Log.scala:1)\n")
		case 1:
			b.WriteString("\tat a\x00b(Log.scala:2)\n")
		case 2:
			b.WriteString("\tkafka-1  | [2024-03-11 10:00:00,000] INFO x (kafka.log.Log)\n")
		case 3:
			b.WriteString("\t" + strings.Repeat("y", 130) + "| z\n")
		case 4:
			b.WriteString("\tat p|q(Log.scala:3)\n")
			// Digit-led and bracketed continuation lines, and records
			// indented whole.
			b.WriteString("\t22.4 MB of log processed in 1.1 seconds (21.0 MB/sec).\n\t[0, 71582] dirty\n\t{not json\n")
			fmt.Fprintf(&b, "\t[2024-03-11 10:%02d:%02d,%03d] INFO indented whole (kafka.server.KafkaServer)\n", min, sec, ms)
			fmt.Fprintf(&b, "\t 2024-03-11 10:%02d:%02d,%03d INFO  [main] o.a.k.App: indented Spring-like\n", min, sec, ms)
		case 5:
			rec(fmt.Sprintf("10:%02d:%02d,%03d", min, sec, (ms+999)%1000), "WARN", "Found a corrupted index file", "kafka.log.OffsetIndex")
		case 6:
			rec(fmt.Sprintf("09:%02d:59,999", 59-min), "INFO", "Deleting segment 0", "kafka.log.UnifiedLog")
		case 7:
			rec(fmt.Sprintf("10:%02d:%02d,%03d", min, sec, ms), "INFO", "Deleting segment 1", "org.apache.kafka.storage.internals.log.LogSegment")
		case 8:
			// Back in time, then a line the slow way: the newest record
			// is not the last one when the slow path takes over.
			rec("09:00:00,000", "INFO", "Deleting segment 2", "kafka.log.Log")
			b.WriteString(" (kafka.log.LogCleaner)\n")
		}
		if i%9 == 0 {
			// A fetcher's error and its stack trace, the same each time:
			// the exception line is no record in any layout.
			rec(fmt.Sprintf("10:%02d:%02d,%03d", min, sec, ms), "WARN", "[ReplicaFetcherThread-0-2], Error in fetch", "kafka.server.ReplicaFetcherThread")
			b.WriteString("java.io.IOException: Connection to 2 was disconnected before the response was read\n\tat kafka.utils.NetworkClientBlockingOps$.recursivePoll$2(NetworkClientBlockingOps.scala:137)\n")
			b.WriteString("Caused by: java.io.IOException: Broken pipe\n")
			b.WriteString(notLeader)
		}
		if i%13 == 0 {
			// A block without its logger on the header line, which the
			// slow path holds for the line after.
			hour := 10
			if i%26 == 0 {
				hour = 9 // back in time
			}
			fmt.Fprintf(&b, "[2024-03-11 %02d:%02d:%02d,%03d] INFO [kafka-log-cleaner-thread-0]: \n\tLog cleaner thread 0 cleaned log t-0 (dirty section = [0, 0])\n (kafka.log.LogCleaner)\n", hour, min, sec, ms)
		}
		if i%17 == 0 {
			// The same exception line while a client's error is held for
			// its stack trace: part of that record, not counted alone.
			rec(fmt.Sprintf("10:%02d:%02d,%03d", min, sec, ms), "ERROR", "Error when sending message to topic orders with key: null, value: 5 bytes with error:", "org.apache.kafka.clients.producer.internals.ErrorLoggingCallback")
			b.WriteString(notLeader)
		}
		if i%23 == 0 {
			// Loggerless heads whose held record does matter: a client's
			// failed send, a broker's own line, a paste wrapped mid-line
			// (the next line glued back on).
			fmt.Fprintf(&b, "[2024-03-11 10:%02d:%02d,%03d] WARN Failed to send batch to orders-3: \n\tat a.B(C.java:1)\n", min, sec, ms)
			fmt.Fprintf(&b, "[2024-03-11 10:%02d:%02d,%03d] INFO [Broker id=1] Leader orders-3 starts at leader epoch %d from offset 0 with high watermark 0 ISR [1]\n\tat a.B(C.java:1)\n", min, sec, ms, i)
			fmt.Fprintf(&b, "[2024-03-11 10:%02d:%02d,%03d] INFO [Broker id=1] Leader orders-4 starts at leader\n epoch %d from offset 0 with high watermark 0 ISR [1] (state.change.logger)\n", min, sec, ms, i)
		}
		if i%61 == 0 {
			b.WriteString(strings.Repeat("\tat x.y(Z.java:1)\n", 200))
		}
	}
	// The file ends on a record back in time: Last is the one before.
	rec("11:00:00,000", "INFO", "Deleting segment 3", "kafka.log.Log")
	rec("11:00:00,001", "INFO", "Deleting segment 4", "kafka.log.Log")
	rec("10:59:59,999", "INFO", "Deleting segment 5", "kafka.log.Log")
	return b.Bytes()
}

type parsed struct {
	events  []Event
	stats   Stats
	skimmed int64
}

func parseBoth(data []byte, slow bool) parsed { return parseWay(data, slow, false) }

// parseWay parses data the slow way, or with the fast path line by line,
// or (block) with the fast path taking buffered lines through Skim.
func parseWay(data []byte, slow, block bool) parsed {
	p := New(time.UTC)
	p.Now = func() time.Time { return time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC) }
	p.skimSt.off = slow
	var out parsed
	emit := func(ev *Event) { out.events = append(out.events, *ev) }
	for len(data) > 0 {
		if block {
			// As the file reader does: the buffered lines that hold no CR
			// to Skim, then one line the ordinary way.
			b := data
			if i := bytes.IndexByte(b, '\r'); i >= 0 {
				b = b[:i]
			}
			data = data[p.Skim(b[:bytes.LastIndexByte(b, '\n')+1]):]
			if len(data) == 0 {
				break
			}
		}
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		n := p.skimSt.taken
		p.Line(line, emit)
		if os.Getenv("SKIM_SHOW") != "" && !slow && n == p.skimSt.taken && looksLikeHeader(line) {
			fmt.Println("SLOW", string(line[:min(len(line), 200)]))
		}
	}
	out.skimmed = p.skimSt.taken
	p.Flush(emit)
	out.stats = p.Stats
	return out
}

// skimDiff names the first difference between the slow and the fast parse.
func skimDiff(slow, fast parsed) string {
	if !reflect.DeepEqual(slow.stats, fast.stats) {
		return fmt.Sprintf("stats differ:\nslow %+v\nfast %+v", slow.stats, fast.stats)
	}
	if len(slow.events) != len(fast.events) {
		return fmt.Sprintf("%d events the slow way, %d the fast way", len(slow.events), len(fast.events))
	}
	for i := range slow.events {
		if !reflect.DeepEqual(slow.events[i], fast.events[i]) {
			return fmt.Sprintf("event %d differs:\nslow %+v\nfast %+v", i, slow.events[i], fast.events[i])
		}
	}
	return ""
}

// The fast path costs nothing in accuracy: every line of every sample,
// incident and generated era parsed the slow way gives the same events and
// the same source summary as with the fast path.
func TestSkimEqualsSlowPath(t *testing.T) {
	corpus := skimCorpus(t)
	var lines, skimmed, genLines, genSkimmed int64
	for name, data := range corpus {
		slow, fast := parseBoth(data, true), parseBoth(data, false)
		if d := skimDiff(slow, fast); d != "" {
			t.Errorf("%s: %s", name, d)
		}
		if d := skimDiff(slow, parseWay(data, false, true)); d != "" {
			t.Errorf("%s, with Skim: %s", name, d)
		}
		lines += fast.stats.Lines
		skimmed += fast.skimmed
		if strings.HasPrefix(name, os.TempDir()) {
			genLines += fast.stats.Records
			genSkimmed += fast.skimmed
		}
	}
	t.Logf("%d files, %d lines, %d records taken by the fast path (generated sets: %d of %d records)", len(corpus), lines, skimmed, genSkimmed, genLines)
	// The generated sets are noise-dominated: most of their records must
	// take the fast path, or it is not doing its job.
	if genSkimmed*10 < genLines*8 {
		t.Errorf("fast path took %d of %d generated records, want ≥ 80%%", genSkimmed, genLines)
	}
}

// The comparison above catches a rule the fast path skips: pretend the
// tables forgot the words of each logger kind the slow path reads, and
// some file of the corpus must come out different.
func TestSkimEquivalenceCatchesAForgottenRule(t *testing.T) {
	corpus := skimCorpus(t)
	defer func() { forgetRule = NumLoggerKinds }()
	for _, lg := range []loggerKind{lgStateChange, lgController, lgPartition, lgServer, lgQuorum, lgProducerSender, lgClientCallback} {
		forgetRule = lg
		caught := false
		for _, data := range corpus {
			if skimDiff(parseBoth(data, true), parseBoth(data, false)) != "" {
				caught = true
				break
			}
		}
		if !caught {
			t.Errorf("skipping every line of logger kind %d went unnoticed", lg)
		}
	}
}

// What QuietRecords lets a store leave out is what the fast path skips in
// any state: each logger is one whose records dispatch only counts (apart
// from the kept words), and none marks an era.
func TestQuietRecords(t *testing.T) {
	loggers, keep := QuietRecords()
	for _, lg := range loggers {
		k := loggerClass([]byte(lg))
		switch {
		case k == lgNone && brokerInternal([]byte(lg)):
		case k == lgLog:
			for _, w := range ruleStarts[k] {
				if !slices.Contains(keep, w) {
					t.Errorf("%s: rule start %q not kept", lg, w)
				}
			}
			continue
		case k == lgCoordinator:
			for _, w := range ruleStarts[k] {
				if !slices.Contains(keep, w) {
					t.Errorf("%s: rule start %q not kept", lg, w)
				}
			}
		default:
			t.Errorf("%s: logger kind %d has rules of its own", lg, k)
		}
		p := New(time.UTC)
		p.markEraOf(k, []byte(lg), []byte("[Log partition=t-0, dir=/d] x"))
		if p.Stats.Eras != 0 {
			t.Errorf("%s marks an era", lg)
		}
	}
}

// A client library's line inside an application's log4j layout goes the
// slow way (its words are in libraryWords); the application's own does not.
func TestSkimLeavesLibraryLines(t *testing.T) {
	p := New(time.UTC)
	emit := func(*Event) {}
	p.Line([]byte("[2024-03-11 10:00:00,000] INFO Started (com.acme.App)"), emit)
	for _, c := range []struct {
		line string
		fast bool
	}{
		{"[2024-03-11 10:00:00,001] INFO Published 12 orders in 3 ms (com.acme.App)", true},
		{"[2024-03-11 10:00:00,002] INFO producer/broker/1 state change to [retrying] on orders/0 because kafka server: Request was for a topic or partition that does not exist on this broker (com.acme.Sarama)", false},
		{"[2024-03-11 10:00:00,003] INFO %4|1709976000.003|MSGSET|rdkafka#producer-1| [thrd:b1:9092/1]: b1:9092/1: orders [0]: MessageSet with 1 message(s) (MsgId 0, BaseSeq -1) encountered error: Broker: Not leader for partition (retrying) (com.acme.Rd)", false},
		{"[2024-03-11 10:00:00,004] WARN Slow call to inventory took 2 s (com.acme.App)", true},
		{"[2024-03-11 10:00:00,005] WARN Failed to send the batch (com.acme.App)", false},
	} {
		n := p.skimSt.taken
		p.Line([]byte(c.line), emit)
		if got := p.skimSt.taken > n; got != c.fast {
			t.Errorf("fast path %v, want %v: %s", got, c.fast, c.line)
		}
	}
}

// Every era a quiet logger's record marks is one QuietEras names, so a
// store that leaves them out can still give it.
func TestQuietEras(t *testing.T) {
	loggers, _ := QuietRecords()
	for _, lg := range loggers {
		for _, msg := range []string{"[Log partition=t-0, dir=/d] Rolled new log segment", "[LocalLog partition=t-0, dir=/d] x", "Deleting segment 0"} {
			p := New(time.UTC)
			p.markEraOf(loggerClass([]byte(lg)), []byte(lg), []byte(msg))
			var hinted Era
			for _, h := range QuietEras() {
				if h.Logger == lg && strings.HasPrefix(msg, h.MsgPrefix) {
					hinted |= h.Era
				}
			}
			if p.Stats.Eras != hinted {
				t.Errorf("%s %q marks era %b, QuietEras gives %b", lg, msg, p.Stats.Eras, hinted)
			}
		}
	}
}

// The word set finds each word wherever it stands, as bytes.Contains does.
func TestWordSetEqualsContains(t *testing.T) {
	for _, words := range [][]string{slices.Concat(clientWords, libraryWords), anchorWords} {
		wordSetEqualsContains(t, words)
	}
}

func wordSetEqualsContains(t *testing.T, words []string) {
	ws := newWordSet(words)
	for _, w := range words {
		long := strings.Repeat("a|b/c k ", 20) // words after or before a long text
		for _, text := range []string{w, "x" + w, w + " y", "a|b/c " + w[:len(w)-1] + " and " + w + ".", long + w, w + long, long + w + long} {
			if !ws.in([]byte(text)) {
				t.Errorf("%q not found in %q", w, text)
			}
		}
		for _, cut := range []string{w[:len(w)-1], long + w[:len(w)-1]} {
			if !containsAny([]byte(cut), words) && ws.in([]byte(cut)) {
				t.Errorf("found a word in %q", cut)
			}
		}
	}
	for _, text := range []string{"", "Slow downstream call to inventory-service took 6020 ms", "producer", "|MSGSET", "kip-95",
		"Controller 1 connected to kafka-3:9092 (id: 3 rack: null) for sending state change requests", "leader epoc", "become-leade"} {
		if ws.in([]byte(text)) != containsAny([]byte(text), words) {
			t.Errorf("%q: the word set and bytes.Contains disagree", text)
		}
	}
}

// firstSpace finds what a byte loop finds, wherever the space falls in or
// past its eight-byte words, for every byte value around it.
func TestFirstSpace(t *testing.T) {
	naive := func(m []byte, n int) int {
		i := 0
		for i < len(m) && i < n && m[i] != ' ' {
			i++
		}
		return i
	}
	for size := 0; size <= 40; size++ {
		for pos := -1; pos < size; pos++ {
			for _, fill := range []byte{'a', 0, 0x1f, 0x21, 0xa0, 0xff, '\t'} {
				m := bytes.Repeat([]byte{fill}, size)
				if pos >= 0 {
					m[pos] = ' '
					if pos+1 < size {
						m[pos+1] = ' ' // a second space after the first
					}
				}
				for _, n := range []int{0, 7, 8, 9, 16, 23, 48} {
					if got, want := firstSpace(m, n), naive(m, n); got != want {
						t.Fatalf("firstSpace(%q, %d) = %d, want %d", m, n, got, want)
					}
				}
			}
		}
	}
}

// plainLine says what the two searches it saves would: no NUL anywhere,
// no '|' in the first 128 bytes (or, past them, it may say no and leave
// the searches to find out).
func TestPlainLine(t *testing.T) {
	for size := 0; size <= 150; size++ {
		for pos := -1; pos < size; pos++ {
			for _, c := range []byte{0, '|', 0x7d, 0x80, 0xfc, 0x01} {
				m := bytes.Repeat([]byte{'x'}, size)
				if pos >= 0 {
					m[pos] = c
				}
				nul := bytes.IndexByte(m, 0) >= 0
				bar := bytes.IndexByte(m[:min(len(m), 128)], '|') >= 0
				got := plainLine(m)
				if nul || bar {
					if got {
						t.Fatalf("plainLine(%d bytes, %#x at %d) = true", size, c, pos)
					}
				} else if !got && bytes.IndexByte(m[:min(len(m), 136)], '|') < 0 {
					t.Fatalf("plainLine(%d bytes, %#x at %d) = false", size, c, pos)
				}
			}
		}
	}
}

// With the shared logger table full (input of endlessly new logger names),
// the lines of a logger not kept go the slow way: the same events and
// summary, no allocation per line, and the table stays at its bound.
func TestSkimWithLoggerTableFull(t *testing.T) {
	loggerInfos.Lock()
	saved := loggerInfos.m
	full := make(map[string]*loggerInfo, maxLoggerInfos)
	for i := 0; i < maxLoggerInfos; i++ {
		full[fmt.Sprintf("(x.Filler%d)", i)] = &loggerInfo{}
	}
	loggerInfos.m = full
	loggerInfos.Unlock()
	defer func() {
		loggerInfos.Lock()
		loggerInfos.m = saved
		loggerInfos.Unlock()
	}()
	for name, data := range skimCorpus(t) {
		if d := skimDiff(parseBoth(data, true), parseBoth(data, false)); d != "" {
			t.Errorf("%s: %s", name, d)
		}
	}
	p := New(time.UTC)
	line := []byte("[2024-01-01 10:00:00,000] INFO [Log partition=t-1, dir=/d] Rolled new log segment at offset 5 in 1 ms. (kafka.log.Log)")
	emit := func(*Event) {}
	p.Line(line, emit)
	p.Line(line, emit)
	if a := testing.AllocsPerRun(100, func() { p.Line(line, emit) }); a != 0 {
		t.Errorf("%v allocations per line with the logger table full", a)
	}
	if len(loggerInfos.m) != maxLoggerInfos {
		t.Errorf("logger table grew past %d to %d", maxLoggerInfos, len(loggerInfos.m))
	}
}
