// Package logstore reads log lines back from a central log store (the
// first is VictoriaLogs) so they can be audited like files: a query over a
// time window yields rows {time, message, stream}, in time order, with
// memory that does not grow with the number of rows.
//
// A store answers four questions; Loki's query_range / tail and
// Elasticsearch's search_after / point-in-time APIs can answer the same
// ones, so they can be added beside VictoriaLogs as other Store
// implementations.
package logstore

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Row is one log record from the store.
type Row struct {
	// Time is the store's timestamp of the record (VictoriaLogs _time).
	Time time.Time
	// Msg is the record's text; a shipper that joins multi-line records
	// (stack traces, config blocks) keeps their lines separated by '\n'.
	// It is valid only during the callback that is handed the row (Read
	// copies it), so a store can decode into one reused buffer.
	Msg []byte
	// Stream names the stream the record belongs to, in the store's own
	// spelling ({host="broker-1",file="state-change.log"}); records of one
	// stream come from one log file.
	Stream string
	// Level and Logger, when the shipper parsed them out of the line.
	Level, Logger string
	// Ordered: an order field (the shipper's file offset) placed the row
	// among the rows of its stream with the same Time. Without one the
	// store returns those in no particular order.
	Ordered bool
}

// Stream is one stream a query matched.
type Stream struct {
	// Name in the store's spelling, as Row.Stream.
	Name string
	// Fields are the stream's labels.
	Fields map[string]string
	// Rows the query matched in this stream over the window.
	Rows int64
}

// Window is a half-open time range [Start, End).
type Window struct {
	Start, End time.Time
}

// Query is what to read.
type Query struct {
	// Text in the store's query language (LogsQL for VictoriaLogs).
	Text string
	Window
}

// Count is how many rows fall in [Start, Start+step).
type Count struct {
	Start time.Time
	Rows  int64
}

// Store is a log store that can be audited from.
type Store interface {
	// String names the store for the report (vlogs://host:9428).
	String() string
	// Extent is the time of the first and last row the query matches in
	// its window; ok is false when it matches none.
	Extent(ctx context.Context, q Query) (first, last time.Time, ok bool, err error)
	// Streams lists the streams the query matches in its window.
	Streams(ctx context.Context, q Query) ([]Stream, error)
	// Counts gives the rows per step-wide bucket of the window, for
	// splitting it into chunks of bounded size.
	Counts(ctx context.Context, q Query, step time.Duration) ([]Count, error)
	// Rows calls fn for each row of the window in time order (rows of one
	// stream with equal times in the order they were written, where the
	// store can tell). An error from fn stops the read and is returned.
	// The row, Msg included, is valid during the call only.
	Rows(ctx context.Context, q Query, fn func(*Row) error) error
	// Tail calls fn for each row matching the query that arrives from now
	// on, until ctx is done.
	Tail(ctx context.Context, q Query, fn func(*Row) error) error
}

// StatusError is a store's answer other than success.
type StatusError struct {
	URL    string
	Status int
	// Message is what the server said (cut to a few hundred bytes); it is
	// untrusted text.
	Message string
}

func (e *StatusError) Error() string {
	msg := strings.TrimSpace(e.Message)
	if msg == "" {
		msg = "(no message)"
	}
	s := fmt.Sprintf("%s: HTTP %d %s: %s", e.URL, e.Status, http.StatusText(e.Status), msg)
	if e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden {
		s += fmt.Sprintf(" (credentials come from %s, or %s and %s)", EnvToken, EnvUser, EnvPassword)
	}
	return s
}

// Temporary reports whether a retry may succeed (5xx, 429).
func (e *StatusError) Temporary() bool { return e.Status >= 500 || e.Status == 429 }

// Retryable reports whether a retry may cure err: a connection that
// failed, a 5xx or a 429; not a 4xx, nor a stop the caller asked for.
// Every retry loop of the tool asks it (see Retry).
func Retryable(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Temporary()
	}
	var ae *AnswerError
	if errors.As(err, &ae) {
		return false
	}
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, errStop)
}

// ParseStreamName reads a stream name in the LogsQL / PromQL label
// spelling {k="v",k2="v2"} into its fields.
func ParseStreamName(s string) (map[string]string, error) {
	m := map[string]string{}
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return nil, fmt.Errorf("stream %q: want {field=\"value\",...}", s)
	}
	s = s[1 : len(s)-1]
	for len(s) > 0 {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 || eq+1 >= len(s) || s[eq+1] != '"' {
			return nil, fmt.Errorf("stream field %q: want name=\"value\"", s)
		}
		key := strings.TrimSpace(s[:eq])
		rest := s[eq+1:]
		end := 1
		for end < len(rest) && rest[end] != '"' {
			if rest[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(rest) {
			return nil, fmt.Errorf("stream field %q: unterminated value", key)
		}
		val, err := strconv.Unquote(rest[:end+1])
		if err != nil {
			return nil, fmt.Errorf("stream field %q: %w", key, err)
		}
		m[key] = val
		s = strings.TrimPrefix(strings.TrimSpace(rest[end+1:]), ",")
	}
	return m, nil
}

// SortStreams orders streams by name, so source indices (and the order
// of events with equal times) do not depend on the store's answer order.
func SortStreams(ss []Stream) {
	sort.Slice(ss, func(i, j int) bool { return ss[i].Name < ss[j].Name })
}
