package parser

import (
	"bytes"
	"slices"
)

// What a record must carry for any rule to read it, for a log store to
// be asked for those records only. Each list is the one the rules read
// (ruleStarts, serverStarts, loggerNames, errorTexts…); a word added there
// is asked for. candidates_test.go audits the samples, the incidents and
// generated sets of every era once with every record and once with the
// records Keeps keeps, and compares events and the Stats the audit's
// verdicts read: a rule whose words are not here fails it.

// Term is a literal as a log store's word index finds it (a VictoriaLogs
// phrase): Text occurs in the record where, if Text begins with a word
// byte (a letter, digit or '_'), the byte before is not one, and if it
// ends with one, the byte after is not one, unless Prefix (the phrase's
// last word may go on: LogsQL "Text"*).
type Term struct {
	Text   string
	Prefix bool
}

// Need is what one rule needs: a record holding every term of it.
type Need []Term

// term is the store's reading of a literal the parser looks for with
// bytes.Contains or bytes.HasPrefix at a message's start: a literal that
// ends inside a word matches words that go on ("Truncat", "starting").
// One that begins inside a word ("eader epoch") would miss; none here
// does.
func term(s string) Term {
	return Term{Text: s, Prefix: wordByte(s[len(s)-1])}
}

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}

func needs(words ...string) []Need {
	out := make([]Need, 0, len(words))
	for _, w := range words {
		out = append(out, Need{term(w)})
	}
	return out
}

// loggers: the records of loggers named n, by the name loggerClass reads,
// which ends at a ')', '$' or '"' in every layout.
func loggers(names ...string) []Need {
	out := make([]Need, 0, len(names))
	for _, n := range names {
		out = append(out, Need{{Text: n}})
	}
	return out
}

// Candidates lists what a record may hold for any rule, or anything the
// audit reports beside a source's own counts, to read it; a record that
// meets none of the needs changes no event, no finding and none of the
// sources' facts the verdicts read (kind, brokers, controllers,
// producers, eras but those of CandidateEras, the TRACE level), only the
// sources' line and record counts, levels and time span.
func Candidates() []Need {
	var out []Need
	// Loggers whose every record a rule may read, by the last component
	// of the name loggerClass reads (a Logback-abbreviated, a $-suffixed
	// or a JSON layout's logger field holds it too).
	out = append(out, loggers(stateChangeLogger)...)
	out = append(out, needs(controllerPackages[:]...)...)
	for k, names := range loggerNames {
		switch loggerKind(k) {
		case lgLog, lgFetcher, lgCoordinator:
			// The rules read how a message begins: ruleStarts below.
			continue
		case lgServer:
			names = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(zkClientLoggers[:], n) })
		}
		out = append(out, loggers(names...)...)
	}
	for _, ws := range ruleStarts {
		out = append(out, needs(ws...)...)
	}
	out = append(out, needs(serverStarts...)...)
	out = append(out, needs(serverWords...)...)
	// An application's logger, sarama, franz-go, kafka-go, librdkafka,
	// KafkaJS in any layout (skim.go's contract for these lists).
	out = append(out, needs(clientWords...)...)
	out = append(out, needs(libraryWords...)...)
	out = append(out, needs(kafkaJSLogger)...)
	// clientFailure reads a record of an application's logger (ERROR,
	// WARN "send") only for an error it names, in the message or the
	// stack trace after it (which a store keeps in the same row).
	for _, e := range errorTexts {
		if e.name == "NETWORK_EXCEPTION" {
			continue // clientFailure drops it
		}
		n := Need{term(e.text)}
		if e.also != "" {
			n = append(n, term(e.also))
		}
		out = append(out, n)
	}
	// configNotice: the "<Class>Config values:" heads (the class is part
	// of the word, so the store looks for what follows it) and the
	// unknown or unused keys' notices; the dump's own lines come in its
	// row (the protocol version, broker.id).
	out = append(out, needs(configValues, unknownKeyHead, unusedKeysHead, protocolVersionLine[1:], brokerIDLine[1:])...)
	// A loggerless record that reads as a state-change line (dispatch's
	// default branch).
	out = append(out, needs(loggerlessBroker[:]...)...)
	// brokerIdentity: the broker-to-controller channel names its broker;
	// its heartbeat marks KRaft when the message or thread begins with
	// "[B", "[b" or "B".
	out = append(out, needs(identityWords[:]...)...)
	out = append(out, Need{term(heartbeatWord), term("Broker")}, Need{term(heartbeatWord), term("broker")})
	// The verdicts ask whether a source logs at TRACE.
	out = append(out, needs("TRACE", "trace", "Trace")...)
	return out
}

// Literals of the rules that Candidates names.
const (
	// configValues: how a config dump's head goes on after its class
	// (configBlockHead).
	configValues        = " values:"
	protocolVersionLine = "\tinter.broker.protocol.version = "
	brokerIDLine        = "\tbroker.id = "
	kafkaJSLogger       = "kafkajs"
	heartbeatWord       = "heartbeat"
)

var (
	// loggerlessBroker: how dispatch's loggerless state-change records
	// begin.
	loggerlessBroker = [...]string{"[Broker id=", "[Controller id=", "Broker ", "Controller "}
	// identityWords: what brokerIdentity reads a broker id from.
	identityWords = [...]string{"BrokerToControllerChannelManager ", "[broker-", "-to-controller"}
)

// CandidateEras lists the eras that records Candidates leaves out mark
// (markEraOf's lgLog loggers): a store asks which streams hold one.
func CandidateEras() []EraHint {
	hs := QuietEras()
	for _, n := range loggerNames[lgLog] {
		hs = append(hs, EraHint{Logger: storageLogPackage + n, Era: EraStorage4})
	}
	return hs
}

// storageLogPackage: where Kafka 4 moved the log's classes (logEra reads
// any logger under org.apache.kafka.storage.).
const storageLogPackage = "org.apache.kafka.storage.internals.log."

// Keeps reports whether text (a record with its continuation lines, as a
// store's row holds it) meets one of needs, as the store would find it.
func Keeps(needs []Need, text []byte) bool {
	for _, n := range needs {
		all := true
		for _, t := range n {
			if !t.In(text) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// In reports whether text holds t (VictoriaLogs' matchPhrase and
// matchPrefix over ASCII: a byte of 0x80 and up counts as a word byte,
// as most of what it starts is a letter).
func (t Term) In(text []byte) bool {
	p := t.Text
	if p == "" {
		return true
	}
	start, end := wordByte(p[0]), wordByte(p[len(p)-1]) && !t.Prefix
	for i := 0; ; {
		j := bytes.Index(text[i:], []byte(p))
		if j < 0 {
			return false
		}
		j += i
		i = j + 1
		if start && j > 0 && wordByte(text[j-1]) {
			continue
		}
		if e := j + len(p); end && e < len(text) && wordByte(text[e]) {
			continue
		}
		return true
	}
}
