package main

import (
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/leaderaudit/leaderaudit/parser"
)

// matchPath reports whether glob matches p or one of its trailing parts,
// so 'app/*' matches logs/app/app.log and 'kafka-2/*' matches
// /var/log/kafka-2/server.log.
func matchPath(glob, p string) bool {
	for s := filepath.ToSlash(p); ; {
		if ok, _ := path.Match(glob, s); ok {
			return true
		}
		i := strings.IndexByte(s, '/')
		if i < 0 {
			return false
		}
		s = s[i+1:]
	}
}

// brokerIDs is --broker: the broker a file's lines come from when they do
// not name one themselves (a server.log's "Session expired.", truncation
// and group coordinator lines) and its path names none that
// parser.BrokerFromPath can read.
type brokerIDs struct {
	rules []brokerRule
}

type brokerRule struct {
	glob string
	id   int32
}

// loadBrokers resolves --broker GLOB=ID values.
func loadBrokers(vals []string) (*brokerIDs, error) {
	b := &brokerIDs{}
	for _, v := range vals {
		glob, num, ok := strings.Cut(v, "=")
		if !ok || glob == "" {
			return nil, fmt.Errorf("--broker %q: want GLOB=ID, e.g. 'node-a/*=1'", v)
		}
		id, err := strconv.ParseInt(num, 10, 32)
		if err != nil || id < 0 {
			return nil, fmt.Errorf("--broker %q: %q is not a broker id", v, num)
		}
		if _, err := path.Match(glob, ""); err != nil {
			return nil, fmt.Errorf("--broker %q: bad glob", v)
		}
		b.rules = append(b.rules, brokerRule{glob, int32(id)})
	}
	return b, nil
}

// forPath gives the first matching --broker rule, else what the path
// itself says. Either way the lines' own broker ids come first (the
// parser uses this only for a file whose lines name no broker).
func (b *brokerIDs) forPath(p string) int32 {
	for _, r := range b.rules {
		if matchPath(r.glob, p) {
			return r.id
		}
	}
	return parser.BrokerFromPath(p)
}
