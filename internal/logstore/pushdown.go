package logstore

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/leaderaudit/leaderaudit/parser"
)

// Pushdown is the LogsQL filter for the rows that can matter to the
// audit: those meeting one of needs (parser.Candidates), each a phrase
// filter ("…", or "…"* where the word may go on) or an AND of them, all
// OR-ed. A phrase's words are looked up in each block's bloom filter, so
// the server skips the blocks that hold none of them and reads only the
// rest's messages; a regexp read every message (a NOT-regexp of the quiet
// loggers cost 2.5 server CPU-s for a 1 GB set's 5 M rows and kept 22%
// of them).
func Pushdown(needs []parser.Need) string {
	if len(needs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteByte('(')
	for i, n := range needs {
		if i > 0 {
			b.WriteString(" OR ")
		}
		if len(n) > 1 {
			b.WriteByte('(')
		}
		for j, t := range n {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(Phrase(t))
		}
		if len(n) > 1 {
			b.WriteByte(')')
		}
	}
	b.WriteByte(')')
	return b.String()
}

// Phrase is t as a LogsQL phrase filter on _msg: VictoriaLogs matches it
// as parser.Term.In does.
func Phrase(t parser.Term) string {
	s := strconv.Quote(t.Text)
	if t.Prefix {
		s += "*"
	}
	return s
}

// And is the query text q narrowed by filter (a LogsQL filter AND-ed
// with it); q is the user's scope and stays whole.
func And(q, filter string) string {
	if filter == "" {
		return q
	}
	if strings.TrimSpace(q) == "" || strings.TrimSpace(q) == "*" {
		return "* " + filter
	}
	return "(" + q + ") " + filter
}

// HintFilter is the LogsQL filter for rows with a line that ends with
// " (logger)" and, when msgPrefix is set, holds it before that on the
// same line. The phrase "(logger)" first: the server skips the blocks
// whose bloom filters lack the logger's words and runs the regexp only
// on the rows that hold the phrase.
func HintFilter(logger, msgPrefix string) string {
	phrase := strconv.Quote("(" + logger + ")")
	tail := ` \(` + regexp.QuoteMeta(logger) + `\)\r?(?:\n|$)`
	if msgPrefix == "" {
		return phrase + " ~" + strconv.Quote(tail)
	}
	return phrase + " ~" + strconv.Quote(regexp.QuoteMeta(msgPrefix)+`[^\n]*`+tail)
}
