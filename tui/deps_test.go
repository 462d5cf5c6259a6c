package tui

import (
	"os/exec"
	"strings"
	"testing"
)

// The screen draws what package feed hands it: it must not link the
// readers behind the pipeline (the log-store HTTP client, the KRaft
// decoder), which it did through report and live before feed.
func TestScreenLinksNoReader(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the imports with")
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, bad := range []string{"/internal/logstore", "/internal/kraft", "/internal/source", "/internal/live", "/internal/report", "net/http"} {
			if strings.HasSuffix(dep, bad) || dep == bad {
				t.Errorf("tui links %s", dep)
			}
		}
	}
}
