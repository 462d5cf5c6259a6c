package parser

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// storeRows splits data into the rows a store holds, as internal/vltest
// ships a file: a line with a record's header starts a row, the lines
// after it up to the next header are part of it; lines before the first
// header are rows of their own.
func storeRows(data []byte) [][]byte {
	var rows [][]byte
	var rec Record
	start, have := -1, false
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += off
		}
		line := data[off:end]
		switch {
		case ParseHeader(line, time.UTC, &rec):
			if have {
				rows = append(rows, data[start:off])
			}
			start, have = off, true
		case !have:
			rows = append(rows, data[off:min(end+1, len(data))])
		}
		off = end + 1
	}
	if have {
		rows = append(rows, data[start:])
	}
	return rows
}

// storeView is what the audit reads of a source parsed from some of its
// rows: its events (without line numbers, which count the rows read) and
// the facts the verdicts read of it.
type storeView struct {
	events      []Event
	eras        Era
	trace       bool
	brokers     []int32
	controllers []int32
	producers   []string
	clients     []string
	protocol    string
	undated     int64
	kind        [6]bool // what source.Kind reads of ByLogger
	records     bool
}

// parseRows parses the rows keep keeps (all if nil) and gives the eras
// hints names to the rows it leaves out, as a store's hint queries do.
func parseRows(rows [][]byte, keep func([]byte) bool, hints []EraHint) storeView {
	p := New(time.UTC)
	p.Now = func() time.Time { return time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC) }
	var v storeView
	emit := func(ev *Event) {
		e := *ev
		e.Line, e.Lines = 0, nil
		v.events = append(v.events, e)
	}
	var hinted Era
	for _, r := range rows {
		if keep != nil && !keep(r) {
			for _, h := range hints {
				if hintMatches(h, r) {
					hinted |= h.Era
				}
			}
			continue
		}
		for _, line := range bytes.Split(bytes.TrimSuffix(r, []byte("\n")), []byte("\n")) {
			p.Line(line, emit)
		}
	}
	p.Flush(emit)
	st := &p.Stats
	v.eras, v.trace = st.Eras|hinted, st.Levels&(1<<LevelTrace) != 0
	v.brokers, v.controllers, v.producers, v.clients = st.Brokers, st.Controllers, st.Producers, st.Clients
	v.protocol, v.undated, v.records = st.ProtocolVersion, st.UndatedErrors, st.Records > 0
	b := &st.ByLogger
	client := b[LoggerSender] + b[LoggerConfig] + b[LoggerCallback] + b[LoggerLibrdkafka] + b[LoggerConsumer] + b[LoggerGoClient]
	broker := b[LoggerStateChange] + b[LoggerController] + b[LoggerPartition] + b[LoggerServer] + b[LoggerQuorum]
	v.kind = [6]bool{client > 0, broker > 0, b[LoggerStateChange] > 0, b[LoggerServer]+b[LoggerPartition] > 0, b[LoggerController] > 0, b[LoggerServer] > 0}
	return v
}

// hintMatches is internal/logstore's HintFilter: a line of row that ends
// with " (logger)" and holds the message prefix before it.
func hintMatches(h EraHint, row []byte) bool {
	for _, line := range bytes.Split(row, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		tail := " (" + h.Logger + ")"
		if bytes.HasSuffix(line, []byte(tail)) && bytes.Contains(line[:len(line)-len(tail)], []byte(h.MsgPrefix)) {
			return true
		}
	}
	return false
}

func viewDiff(all, kept storeView) string {
	ea, ek := all.events, kept.events
	all.events, kept.events = nil, nil
	if !reflect.DeepEqual(all, kept) {
		return fmt.Sprintf("facts differ:\nall  %+v\nkept %+v", all, kept)
	}
	if len(ea) != len(ek) {
		return fmt.Sprintf("%d events from every row, %d from the rows kept", len(ea), len(ek))
	}
	for i := range ea {
		if !reflect.DeepEqual(ea[i], ek[i]) {
			return fmt.Sprintf("event %d differs:\nall  %+v\nkept %+v", i, ea[i], ek[i])
		}
	}
	return ""
}

// A store asked for the candidate records only gives the audit what every
// record does: every sample, incident and generated era, parsed from all
// of its rows and from those Keeps keeps, gives the same events and the
// same facts (kind, eras with CandidateEras' hints, TRACE, brokers,
// controllers, producers, clients, protocol), and the generated sets keep
// only a few percent of their rows.
func TestCandidatesKeepWhatRulesRead(t *testing.T) {
	corpus := skimCorpus(t)
	needs, hints := Candidates(), CandidateEras()
	keep := func(r []byte) bool { return Keeps(needs, r) }
	var rows, kept, genRows, genKept int
	for name, data := range corpus {
		rs := storeRows(data)
		if d := viewDiff(parseRows(rs, nil, nil), parseRows(rs, keep, hints)); d != "" {
			t.Errorf("%s: %s", name, d)
		}
		n := 0
		for _, r := range rs {
			if keep(r) {
				n++
				if os.Getenv("CANDIDATES_SHOW") != "" {
					for _, nd := range needs {
						if Keeps([]Need{nd}, r) {
							fmt.Printf("KEPT %v %s\n", nd, bytes.TrimSpace(r[:min(len(r), 160)]))
							break
						}
					}
				}
			}
		}
		rows, kept = rows+len(rs), kept+n
		if !strings.HasPrefix(name, "../") && !strings.HasPrefix(name, "testdata") && name != "synthetic edges" {
			genRows, genKept = genRows+len(rs), genKept+n
		}
	}
	t.Logf("%d files: %d of %d rows kept (generated sets: %d of %d, %.1f%%)", len(corpus), kept, rows, genKept, genRows, 100*float64(genKept)/float64(genRows))
	// State-change and controller logs are kept whole: 5% of a 1 GB
	// set's rows, more of these small ones.
	if genKept*10 > genRows {
		t.Errorf("the generated sets keep %d of %d rows, want ≤ 10%%", genKept, genRows)
	}
}

// The comparison catches a word the candidates forget: without each list
// the rules read, some file of the corpus comes out different.
func TestCandidatesCatchAForgottenList(t *testing.T) {
	corpus := skimCorpus(t)
	var rowsOf [][][]byte
	for _, data := range corpus {
		rowsOf = append(rowsOf, storeRows(data))
	}
	full := make([]storeView, len(rowsOf))
	for i, rs := range rowsOf {
		full[i] = parseRows(rs, nil, nil)
	}
	// Lists that overlap (a state-change line holds TRACE, "[Broker id=",
	// a controller's logger its package) are forgotten together.
	var errorWords, clientLoggers []string
	for _, e := range errorTexts {
		errorWords = append(errorWords, e.text)
	}
	for _, k := range []loggerKind{lgProducerSender, lgProducerConfig, lgClientCallback, lgAppInfo} {
		clientLoggers = append(clientLoggers, loggerNames[k]...)
	}
	lists := map[string][]string{
		"state change":   slices.Concat([]string{stateChangeLogger, "TRACE", "trace", "Trace"}, loggerlessBroker[:]),
		"controller":     slices.Concat(loggerNames[lgController], controllerPackages[:], loggerlessBroker[:]),
		"partition":      loggerNames[lgPartition],
		"producer":       slices.Concat(clientLoggers, errorWords, clientWords),
		"fetcher starts": ruleStarts[lgFetcher],
		"server":         slices.Concat(loggerNames[lgServer], serverStarts, serverWords),
		"config heads":   {configValues, brokerIDLine[1:], protocolVersionLine[1:]},
	}
	for name, words := range lists {
		needs := slices.DeleteFunc(Candidates(), func(n Need) bool {
			return slices.ContainsFunc(n, func(t Term) bool { return slices.Contains(words, t.Text) })
		})
		keep := func(r []byte) bool { return Keeps(needs, r) }
		caught := false
		for i, rs := range rowsOf {
			if viewDiff(full[i], parseRows(rs, keep, CandidateEras())) != "" {
				caught = true
				break
			}
		}
		if !caught {
			t.Errorf("forgetting the %s words went unnoticed", name)
		}
	}
}

// Term.In is VictoriaLogs' phrase match: word boundaries at a word byte
// that starts or ends the phrase, none at punctuation, none at the end of
// a prefix.
func TestTermIn(t *testing.T) {
	for _, c := range []struct {
		t    Term
		text string
		want bool
	}{
		{Term{Text: "Partition"}, "x (kafka.cluster.Partition)", true},
		{Term{Text: "Partition"}, "x (kafka.cluster.PartitionX)", false},
		{Term{Text: "Partition"}, "[ReplicaFetcherPartition] x", false},
		{Term{Text: "Partition"}, `"logger_name":"kafka.cluster.Partition"`, true},
		{Term{Text: "Truncat", Prefix: true}, "] Truncating partition t-1", true},
		{Term{Text: "Truncat", Prefix: true}, "] reTruncating", false},
		{Term{Text: "producer/"}, "[sarama] producer/broker/1 state change", true},
		{Term{Text: "producer/"}, "kafka-producer/1", true},
		{Term{Text: "producer/"}, "myproducer/1", false},
		{Term{Text: "|MSGSET|"}, "%7|1709|MSGSET|rdkafka#producer-1|", true},
		{Term{Text: "|MSGSET|"}, "x|MSGSETS|", false},
		{Term{Text: "Broker "}, "INFO Broker 1 x", true},
		{Term{Text: "Broker "}, "INFO BrokerToController x", false},
		{Term{Text: " values:"}, "INFO ProducerConfig values: ", true},
		{Term{Text: "Partition"}, "Partition", true},
		{Term{Text: "Partition"}, "Partition Partitions", true},
		{Term{Text: "Partition"}, "Partitions xPartition", false},
	} {
		if got := c.t.In([]byte(c.text)); got != c.want {
			t.Errorf("%+v in %q: %v, want %v", c.t, c.text, got, c.want)
		}
	}
}
