package logstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func scanMap(b []byte) (map[string]string, error) {
	m := map[string]string{}
	var scratch []byte
	err := scanObject(b, &scratch, func(k, v []byte) { m[string(k)] = string(v) })
	return m, err
}

func TestScanObject(t *testing.T) {
	for _, c := range []struct {
		in   string
		want map[string]string
	}{
		{`{}`, map[string]string{}},
		{`{"_msg":"a\nb\t\"q\" \\ \/ \u00e9 \ud83d\ude00","_time":"2019-02-25T15:01:03.023Z"}`, map[string]string{"_msg": "a\nb\t\"q\" \\ / é 😀", "_time": "2019-02-25T15:01:03.023Z"}},
		{` { "n" : 12 , "b":true,"z":null } `, map[string]string{"n": "12", "b": "true", "z": "null"}},
		{`{"lone":"\ud83d x"}`, map[string]string{"lone": "\ufffd x"}},
	} {
		got, err := scanMap([]byte(c.in))
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v %v, want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{``, `{`, `{"a"}`, `{"a":}`, `{"a":"b"`, `{"a":"b",}`, `{"a":{"b":"c"}}`, `{"a":["b"]}`, `<html>`, `{"a":"b"} x`, `{"a":"\x"}`} {
		if _, err := scanMap([]byte(bad)); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

// FuzzScanObject: whatever encoding/json reads as an object of strings,
// scanObject reads the same; it never panics on anything else.
func FuzzScanObject(f *testing.F) {
	f.Add([]byte(`{"_msg":"[2019-02-25 15:01:03,023] TRACE x","_stream":"{host=\"broker-1\"}","_time":"2019-02-25T15:01:03.023Z"}`))
	f.Add([]byte(`{"a":"\u0000\ud800\udc00\n"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := scanMap(b)
		var want map[string]string
		if json.Unmarshal(b, &want) != nil || want == nil {
			return
		}
		if err != nil {
			t.Fatalf("%q: encoding/json reads it, scanObject: %v", b, err)
		}
		// encoding/json turns each invalid UTF-8 byte into U+FFFD;
		// scanObject keeps the bytes (the parser reads bytes).
		for k, v := range got {
			delete(got, k)
			got[string([]rune(k))] = string([]rune(v))
		}
		if !reflect.DeepEqual(got, want) {
			// Duplicate keys: both keep the last.
			t.Fatalf("%q: got %v, want %v", b, got, want)
		}
	})
}

func TestParseStreamName(t *testing.T) {
	m, err := ParseStreamName(`{file="state-change.log",host="broker-1",q="a\"b,c=d"}`)
	if err != nil || !reflect.DeepEqual(m, map[string]string{"file": "state-change.log", "host": "broker-1", "q": `a"b,c=d`}) {
		t.Errorf("%v %v", m, err)
	}
	if m, err := ParseStreamName(`{}`); err != nil || len(m) != 0 {
		t.Errorf("{}: %v %v", m, err)
	}
	for _, bad := range []string{`host="x"`, `{host=x}`, `{host="x}`} {
		if _, err := ParseStreamName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// fake is a store of n rows, one a second from t0, that can fail.
type fake struct {
	t0    time.Time
	n     int
	calls atomic.Int32
	// fail decides a Rows call's fate: after how many rows to fail (-1:
	// none) and with what.
	fail func(call int, w Window) (int, error)
}

func (f *fake) String() string { return "fake://" }
func (f *fake) Extent(context.Context, Query) (time.Time, time.Time, bool, error) {
	return f.t0, f.t0.Add(time.Duration(f.n-1) * time.Second), f.n > 0, nil
}
func (f *fake) Streams(context.Context, Query) ([]Stream, error) { return nil, nil }
func (f *fake) Counts(_ context.Context, q Query, step time.Duration) ([]Count, error) {
	var out []Count
	for t := q.Start.Truncate(step); t.Before(q.End); t = t.Add(step) {
		var n int64
		for i := range f.n {
			rt := f.t0.Add(time.Duration(i) * time.Second)
			if !rt.Before(t) && rt.Before(t.Add(step)) && !rt.Before(q.Start) && rt.Before(q.End) {
				n++
			}
		}
		out = append(out, Count{Start: t, Rows: n})
	}
	return out, nil
}
func (f *fake) Rows(ctx context.Context, q Query, fn func(*Row) error) error {
	call := int(f.calls.Add(1))
	after, ferr := -1, error(nil)
	if f.fail != nil {
		after, ferr = f.fail(call, q.Window)
	}
	sent := 0
	for i := range f.n {
		rt := f.t0.Add(time.Duration(i) * time.Second)
		if rt.Before(q.Start) || !rt.Before(q.End) {
			continue
		}
		if sent == after {
			return ferr
		}
		if err := fn(&Row{Time: rt, Msg: []byte(fmt.Sprint(i)), Stream: "{}"}); err != nil {
			return err
		}
		sent++
	}
	if after >= 0 && ferr != nil && sent <= after {
		return ferr
	}
	return nil
}
func (f *fake) Tail(context.Context, Query, func(*Row) error) error { return nil }

func readAll(t *testing.T, f *fake, opt ReadOptions) ([]string, error) {
	t.Helper()
	var got []string
	q := Query{Text: "*", Window: Window{f.t0, f.t0.Add(time.Duration(f.n) * time.Second)}}
	n, err := Read(context.Background(), f, q, opt, func(r *Row) error { got = append(got, string(r.Msg)); return nil })
	if int(n) != len(got) {
		t.Errorf("Read says %d rows, handed on %d", n, len(got))
	}
	return got, err
}

func TestReadChunksInOrder(t *testing.T) {
	f := &fake{t0: time.Date(2024, 3, 11, 9, 0, 0, 0, time.UTC), n: 3000}
	got, err := readAll(t, f, ReadOptions{ChunkRows: 100, Concurrency: 5, AheadRows: 300})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != f.n {
		t.Fatalf("%d rows", len(got))
	}
	for i, m := range got {
		if m != fmt.Sprint(i) {
			t.Fatalf("row %d is %s", i, m)
		}
	}
	if c := f.calls.Load(); c < 25 {
		t.Errorf("only %d chunks for 3000 rows at 100 a chunk", c)
	}
}

func TestReadRetriesUntilRowsHandedOn(t *testing.T) {
	f := &fake{t0: time.Date(2024, 3, 11, 9, 0, 0, 0, time.UTC), n: 1000}
	f.fail = func(call int, _ Window) (int, error) {
		if call <= 2 {
			return 10, errors.New("connection reset by peer")
		}
		return -1, nil
	}
	var retried int
	got, err := readAll(t, f, ReadOptions{Concurrency: 1, Backoff: time.Millisecond, Retried: func(Window, int, error) { retried++ }})
	if err != nil || len(got) != 1000 || retried != 2 {
		t.Fatalf("%d rows, %d retries, %v", len(got), retried, err)
	}

	// A 4xx is not retried.
	f = &fake{t0: f.t0, n: 1000}
	f.fail = func(int, Window) (int, error) { return 0, &StatusError{Status: 400, Message: "bad query"} }
	if _, err := readAll(t, f, ReadOptions{Backoff: time.Millisecond}); err == nil || f.calls.Load() != 1 || !strings.Contains(err.Error(), "bad query") {
		t.Fatalf("%v after %d calls", err, f.calls.Load())
	}

	// Past a handed-on batch, a failure ends the read: partial.
	f = &fake{t0: f.t0, n: 5000}
	f.fail = func(int, Window) (int, error) { return 2000, errors.New("unexpected EOF") }
	got, err = readAll(t, f, ReadOptions{Concurrency: 1, Backoff: time.Millisecond})
	var pe *PartialError
	if !errors.As(err, &pe) || len(got) == 0 || len(got) > 2000 || pe.Rows != int64(len(got)) {
		t.Fatalf("%d rows, %v", len(got), err)
	}
	for i, m := range got {
		if m != fmt.Sprint(i) {
			t.Fatalf("row %d is %s", i, m)
		}
	}
}
