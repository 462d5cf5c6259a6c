package vltest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

// File is a log file to ingest and the stream fields it gets.
type File struct {
	Path   string
	Fields map[string]string
}

// Files lists every regular file under root except READMEs, with the
// fields a shipper on each host would give it: host = the directory
// holding it (broker-1, app), file = its name, and extra.
func Files(root string, extra map[string]string) ([]File, error) {
	var out []File
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "README.md" || d.Name() == "truth.jsonl" {
			return err
		}
		f := map[string]string{"host": filepath.Base(filepath.Dir(p)), "file": d.Name()}
		for k, v := range extra {
			f[k] = v
		}
		out = append(out, File{Path: p, Fields: f})
		return nil
	})
	return out, err
}

// StreamFields is the _stream_fields argument matching Files.
func StreamFields(extra map[string]string) string {
	s := "host,file"
	for k := range extra {
		s += "," + k
	}
	return s
}

// Ingest sends files to /insert/jsonline as a shipper that joins
// multi-line records would: one row per record (a header line and the
// continuation lines after it), _time from the header read in loc,
// log.offset the record's byte offset in its file. Lines before a file's
// first header share its first header's time. It returns the rows and
// bytes sent.
func Ingest(ctx context.Context, url string, files []File, streamFields string, loc *time.Location) (rows, size int64, err error) {
	return IngestTenant(ctx, url, "", files, streamFields, loc)
}

// IngestTenant is Ingest into tenant "ACCOUNT:PROJECT" of a cluster (the
// AccountID and ProjectID headers); "" is the default tenant 0:0.
func IngestTenant(ctx context.Context, url, tenant string, files []File, streamFields string, loc *time.Location) (rows, size int64, err error) {
	return IngestWith(ctx, url, Shipper{Tenant: tenant, Offset: true}, files, streamFields, loc)
}

// Shipper says what a shipper sends besides the record and its stream.
type Shipper struct {
	// Tenant "ACCOUNT:PROJECT" of a cluster; "" is 0:0.
	Tenant string
	// Offset: send log.offset, the record's byte offset in its file, as
	// Filebeat does. Vector, Fluent Bit and Promtail/Alloy send none by
	// default: rows of one stream with the same _time then come back in
	// no particular order.
	Offset bool
}

// IngestWith is Ingest as sh ships.
func IngestWith(ctx context.Context, url string, sh Shipper, files []File, streamFields string, loc *time.Location) (rows, size int64, err error) {
	tenant := sh.Tenant
	pr, pw := io.Pipe()
	go func() {
		bw := bufio.NewWriterSize(pw, 1<<20)
		var err error
		for _, f := range files {
			var n int64
			if n, err = writeRows(bw, f, loc, sh.Offset); err != nil {
				break
			}
			rows += n
		}
		if err == nil {
			err = bw.Flush()
		}
		pw.CloseWithError(err)
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/insert/jsonline?_stream_fields="+streamFields+"&_time_field=_time&_msg_field=_msg", pr)
	if err != nil {
		return 0, 0, err
	}
	// Not form-encoded: VictoriaLogs would read the body as a form and
	// ingest nothing, with 200 OK.
	req.Header.Set("Content-Type", "application/stream+json")
	if acc, proj, ok := strings.Cut(tenant, ":"); ok {
		req.Header.Set("AccountID", acc)
		req.Header.Set("ProjectID", proj)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return 0, 0, fmt.Errorf("ingest: %s: %s", resp.Status, msg)
	}
	for _, f := range files {
		if fi, err := os.Stat(f.Path); err == nil {
			size += fi.Size()
		}
	}
	return rows, size, nil
}

func writeRows(w io.Writer, f File, loc *time.Location, offset bool) (int64, error) {
	data, err := os.ReadFile(f.Path)
	if err != nil {
		return 0, err
	}
	type row struct {
		off  int
		t    time.Time
		body []byte
	}
	var rows []row
	var rec parser.Record
	var first time.Time
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += off
		}
		line := data[off:end]
		if parser.ParseHeader(line, loc, &rec) {
			if first.IsZero() {
				first = rec.Time
			}
			rows = append(rows, row{off: off, t: rec.Time, body: line})
		} else if len(rows) > 0 {
			r := &rows[len(rows)-1]
			r.body = data[r.off:end]
		} else {
			rows = append(rows, row{off: off, body: line})
		}
		off = end + 1
	}
	var n int64
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	obj := map[string]string{}
	for k, v := range f.Fields {
		obj[k] = v
	}
	for _, r := range rows {
		t := r.t
		if t.IsZero() {
			t = first
		}
		if t.IsZero() {
			t = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		obj["_time"] = t.UTC().Format(time.RFC3339Nano)
		obj["_msg"] = string(bytes.TrimSuffix(r.body, []byte("\r")))
		if offset {
			obj["log.offset"] = strconv.Itoa(r.off)
		}
		if err := enc.Encode(obj); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
