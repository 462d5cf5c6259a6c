package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// The client libraries' own captures (testdata/clients, each trimmed to
// three NOT_LEADER responses) through the whole reading path: discovery
// by content, the candidate-line prefilter, the layout sniff. Each gives
// its three producer errors.
func TestClientCapturesAudit(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "clients", "*.log"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no captures: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			out, errs, code := audit(t, "json", f)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			n := 0
			for _, l := range strings.Split(out, "\n") {
				var r struct {
					Type  string `json:"type"`
					Error string `json:"error"`
				}
				if json.Unmarshal([]byte(l), &r) == nil && r.Type == "producer_error" {
					n++
					if r.Error != "NOT_LEADER_FOR_PARTITION" {
						t.Errorf("error %q", r.Error)
					}
				}
			}
			if n != 3 {
				t.Errorf("%d producer errors, want 3", n)
			}
		})
	}
}
