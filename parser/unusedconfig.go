package parser

import (
	"bytes"
)

// The lines AbstractConfig.logUnused() writes after a client's config block
// (client.md §10; read at the release tags of apache/kafka):
//
//	0.8.2–0.10.0  WARN "The configuration {} = {} was supplied but isn't a known config."   (key, value; 0.8.2 prints
//	              the parsed value, always null for an unknown key)
//	0.10.1–3.2    WARN "The configuration '{}' was supplied but isn't a known config."      (one line per key)
//	3.3–3.4       WARN "These configurations '{}' were supplied but are not used yet."      (all keys: a Java Set, "[a, b]")
//	3.5+          INFO  the same                                                            (KAFKA-6793)
//
// The logger is the config class (getClass(): ProducerConfig, ConsumerConfig,
// AdminClientConfig, StreamsConfig, ...) up to 3.9, and AbstractConfig from
// 4.0 (KAFKA-17185 made the logger static), where only the config block
// logged just before it says whose keys they were.
const (
	unknownKeyHead  = "The configuration "
	unknownKeyTail  = " was supplied but isn't a known config."
	unusedKeysHead  = "These configurations '"
	unusedKeysTail  = "' were supplied but are not used yet."
	maxUnknownKeys  = 256
	maxUnknownKeyLn = 256
)

// configNotice reads logUnused()'s lines into KindUnknownConfig events and
// notes which client class logged the latest "<Class> values:" block, for
// the 4.0+ lines whose logger no longer says it; a consumer's or admin
// client's block it keeps (ProducerConfig blocks have their own event), so
// that the event can say what that client ran with. It reports whether the
// record was consumed.
func (p *Parser) configNotice(line []byte, first bool) bool {
	m := p.rec.Msg
	if len(m) < 20 {
		return false
	}
	if m[0] != 'T' {
		if m[0] >= 'A' && m[0] <= 'Z' {
			// "ProducerConfig values: ", "ConsumerConfig values: ", ...:
			// note the class; the record goes on to its own rule.
			if i := configBlockHead(m); i > 0 {
				if !bytes.Equal(m[:i], p.lastConfig) {
					p.lastConfig = append(p.lastConfig[:0], m[:i]...)
				}
				if cls := string(m[:i]); cls == "ConsumerConfig" || cls == "AdminClientConfig" {
					p.lastBlock = nil
					if first {
						p.hold(pendOtherConfig, line)
						return true
					}
				}
			}
		}
		return false
	}
	var keys map[string]string
	switch {
	case bytes.HasPrefix(m, []byte(unusedKeysHead)):
		end := bytes.LastIndex(m, []byte(unusedKeysTail))
		if end < len(unusedKeysHead) {
			return false
		}
		set := m[len(unusedKeysHead):end]
		if len(set) < 2 || set[0] != '[' || set[len(set)-1] != ']' {
			return false
		}
		set = set[1 : len(set)-1]
		keys = map[string]string{}
		// AbstractCollection.toString joins with ", "; a key's own spaces
		// (the misspelling itself, "retries ") stay part of it.
		for len(set) > 0 && len(keys) < maxUnknownKeys {
			k := set
			if i := bytes.Index(set, []byte(", ")); i >= 0 {
				k, set = set[:i], set[i+2:]
			} else {
				set = nil
			}
			if len(k) > 0 && len(k) <= maxUnknownKeyLn {
				keys[string(k)] = ""
			}
		}
	case bytes.HasPrefix(m, []byte(unknownKeyHead)):
		end := bytes.LastIndex(m, []byte(unknownKeyTail))
		if end < len(unknownKeyHead) {
			return false
		}
		body := m[len(unknownKeyHead):end]
		var k, v []byte
		if len(body) >= 2 && body[0] == '\'' && body[len(body)-1] == '\'' {
			k = body[1 : len(body)-1]
		} else if i := bytes.Index(body, []byte(" = ")); i > 0 {
			k, v = body[:i], body[i+3:]
			if string(v) == "null" {
				v = nil
			}
		} else {
			return false
		}
		if len(k) == 0 || len(k) > maxUnknownKeyLn {
			return false
		}
		keys = map[string]string{string(k): string(v)}
	default:
		return false
	}
	if len(keys) == 0 {
		return true
	}
	ev := p.start(KindUnknownConfig)
	ev.Config = keys
	ev.Text = configClass(p.rec.Logger, p.lastConfig)
	if ev.Text == string(p.lastConfig) && p.lastBlock != nil {
		ev.Values = p.lastBlock
		ev.ClientID = p.lastBlock["client.id"]
	}
	p.send()
	return true
}

// configClass names the client config whose keys a logUnused() line lists:
// the logger's class, or for 4.0+'s AbstractConfig logger (and layouts that
// print no logger) the class of the latest config block in the file.
func configClass(logger, last []byte) string {
	lg := logger
	if i := bytes.LastIndexByte(lg, '.'); i >= 0 {
		lg = lg[i+1:]
	}
	if i := bytes.IndexByte(lg, ':'); i >= 0 {
		lg = lg[:i] // "AbstractConfig:394" from a %c:%L layout
	}
	if len(lg) > len("Config") && bytes.HasSuffix(lg, []byte("Config")) && string(lg) != "AbstractConfig" {
		return string(lg)
	}
	return string(last)
}

// otherConfig keeps a held consumer or admin client "values:" block (the
// tab-indented "key = value" lines after it, or a JSON layout's message).
func (p *Parser) otherConfig() {
	cfg := map[string]string{}
	add := func(l []byte) {
		l = bytes.TrimRight(l, " \r")
		if len(l) == 0 || (l[0] != '\t' && l[0] != ' ') || len(cfg) >= 1024 {
			return
		}
		l = bytes.TrimLeft(l, " \t")
		if eq := bytes.Index(l, []byte(" = ")); eq > 0 {
			cfg[string(l[:eq])] = string(l[eq+3:])
		} else if bytes.HasSuffix(l, []byte(" =")) {
			cfg[string(l[:len(l)-2])] = ""
		}
	}
	if i := bytes.IndexByte(p.rec.Msg, '\n'); i >= 0 {
		for _, l := range bytes.Split(p.rec.Msg[i+1:], []byte("\n")) {
			add(l)
		}
	}
	for _, l := range p.pend.conts {
		add(l)
	}
	if len(cfg) > 0 {
		p.lastBlock = cfg
	}
}
