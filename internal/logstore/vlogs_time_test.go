package logstore

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A _time the store sends that does not parse is never taken as year 1:
// the extent fails (its window would start or end there), a row is
// skipped and counted.
func TestBadTimeFromTheStore(t *testing.T) {
	answer := ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/stream+json")
		w.Write([]byte(answer))
	}))
	defer srv.Close()
	v, err := NewVLogs("vlogs://"+strings.TrimPrefix(srv.URL, "http://"), VLogsOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	answer = `{"la_first":"2024-09-30T11:59:58.102Z","la_last":"yesterday","la_rows":"12"}` + "\n"
	if _, _, _, err := v.Extent(ctx, Query{Text: "*"}); err == nil || !strings.Contains(err.Error(), "la_last") {
		t.Errorf("bad la_last: %v", err)
	}
	answer = `{"la_first":"2024-09-30T11:59:58.102Z","la_last":"2024-09-30T12:00:01.311Z","la_rows":"12"}` + "\n"
	if first, last, ok, err := v.Extent(ctx, Query{Text: "*"}); err != nil || !ok || first.Year() != 2024 || last.Year() != 2024 {
		t.Errorf("good extent: %v %v %v %v", first, last, ok, err)
	}

	answer = `{"_time":"not a time","_msg":"a","_stream":"{host=\"b1\"}"}` + "\n" +
		`{"_time":"2024-09-30T11:59:58.102Z","_msg":"b","_stream":"{host=\"b1\"}"}` + "\n"
	var got []string
	err = v.Rows(ctx, Query{Text: "*"}, func(r *Row) error {
		if r.Time.Year() != 2024 {
			t.Errorf("row %q at %v", r.Msg, r.Time)
		}
		got = append(got, string(r.Msg))
		return nil
	})
	if err != nil || len(got) != 1 || got[0] != "b" || v.Skipped() != 1 {
		t.Errorf("rows %q, skipped %d, err %v", got, v.Skipped(), err)
	}
}
