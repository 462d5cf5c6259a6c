package main

import (
	"strings"
	"testing"
)

// The exit statuses the README documents, through kong as the binary
// parses its command line: 0 ok, 1 runtime failure, 2 usage error, 3
// --fail-on.
func TestExitStatus(t *testing.T) {
	worked := "../../testdata/incidents/worked-0.10.2"
	case3 := "../../testdata/incidents/case3-acks1-zk-expiry"
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string // a part of it; "" wants it empty
	}{
		{"audited", []string{"audit", "--tz", "UTC", worked}, exitOK, ""},
		// The worked example's findings are information only; case 3 has
		// two critical ones (loss-risk-acks, unstable-broker).
		{"fail-on matched", []string{"audit", "--tz", "UTC", "--fail-on", "critical", case3}, exitFindings, ""},
		{"fail-on code matched", []string{"audit", "--tz", "UTC", "--fail-on", "unclean-election,loss-risk-acks", case3}, exitFindings, ""},
		{"fail-on not matched", []string{"audit", "--tz", "UTC", "--fail-on", "warning", worked}, exitOK, ""},
		{"nothing read", []string{"audit", "--tz", "UTC", "does-not-exist/state-change.log"}, exitError, "nothing could be read"},
		{"unknown flag", []string{"audit", "--bogus", worked}, exitUsage, "unknown flag --bogus"},
		{"bad duration", []string{"audit", "--quiet", "ten", worked}, exitUsage, "--quiet"},
		{"bad enum", []string{"audit", "--format", "xml", worked}, exitUsage, "--format"},
		{"no command", nil, exitUsage, "expected one of"},
		{"bad zone", []string{"audit", "--tz", "Nowhere/Else", worked}, exitUsage, "unknown time zone"},
		{"bad since", []string{"audit", "--since", "yesterday-ish", worked}, exitUsage, "--since"},
		{"bad gate", []string{"audit", "--fail-on", "dreadful", worked}, exitUsage, "--fail-on"},
		// These were accepted: a --since that overflowed into the future,
		// negative windows read as none or as the default.
		{"since overflows", []string{"audit", "--since", "9999999999d", worked}, exitUsage, "more than 106751 days back"},
		{"since too many days", []string{"audit", "--since", "99999999999999999999d", worked}, exitUsage, "more than 106751 days back"},
		{"negative since", []string{"audit", "--since=-5h", worked}, exitUsage, "a time back from now is positive"},
		{"negative since days", []string{"audit", "--since=-5d", worked}, exitUsage, "a time back from now is positive"},
		{"negative quiet", []string{"audit", "--quiet=-1s", worked}, exitUsage, "--quiet -1s: more than 0"},
		{"negative quiet, watch", []string{"watch", "--quiet=-1s", worked}, exitUsage, "--quiet -1s: more than 0"},
		{"negative stale window", []string{"audit", "--stale-window=-1m", worked}, exitUsage, "--stale-window"},
		{"zero flap changes", []string{"audit", "--flap-changes=0", worked}, exitUsage, "--flap-changes"},
		{"zone with an escape", []string{"audit", "--tz", "\x1b[2J", worked}, exitUsage, `--tz "\x1b[2J": unknown time zone`},
		{"metadata on random bytes", []string{"metadata", "../../testdata/incidents/worked-0.10.2/broker-2/state-change.log"}, exitError, "not a KRaft metadata log"},
		{"bad broker", []string{"audit", "--broker", "node-a", worked}, exitUsage, "--broker"},
		{"follow needs paths", []string{"audit", "--follow"}, exitUsage, "--follow needs file or directory paths"},
		{"follow cannot skew auto", []string{"audit", "--follow", "--skew", "auto", worked}, exitUsage, "--skew auto is for a batch audit"},
		{"watch needs a terminal", []string{"watch", worked}, exitUsage, "not a terminal"},
		{"metadata needs paths", []string{"metadata"}, exitUsage, "expected \"<path> ...\""},
		{"metadata bad topic glob", []string{"metadata", "--topic", "orders[", worked}, exitUsage, "bad glob"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := cli(c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			if strings.ContainsRune(stderr, 0x1b) {
				t.Errorf("stderr carries an ESC: %q", stderr)
			}
			if c.stderr == "" && stderr != "" || !strings.Contains(stderr, c.stderr) {
				t.Errorf("stderr %q, want it to contain %q", stderr, c.stderr)
			}
			if code == exitUsage {
				// A short message and where to look, not the whole help.
				if n := strings.Count(stderr, "\n"); n > 3 || !strings.Contains(stderr, "--help' for usage") {
					t.Errorf("usage error: %d lines on stderr:\n%s", n, stderr)
				}
			}
		})
	}
}

func TestHelpAndVersion(t *testing.T) {
	out, stderr, code := cli("--version")
	if code != exitOK || !strings.HasPrefix(out, "leaderaudit ") || stderr != "" {
		t.Errorf("--version: exit %d, out %q, stderr %q", code, out, stderr)
	}
	out, _, code = cli("audit", "--help")
	if code != exitOK || !strings.Contains(out, "--fail-on") || !strings.Contains(out, "--skew-tolerance=200ms") {
		t.Errorf("audit --help: exit %d:\n%s", code, out)
	}
	// The shared groups give watch the same flags, defaults and help.
	wout, _, _ := cli("watch", "--help")
	for _, flag := range []string{"--tz", "--broker", "--skew", "--skew-tolerance=200ms", "--stale-window=5m", "--quiet=10s", "--slow-election=1s", "--flap-changes=4"} {
		if !strings.Contains(wout, flag) {
			t.Errorf("watch --help lacks %s", flag)
		}
		if help(out, flag) != help(wout, flag) {
			t.Errorf("%s: audit and watch help differ:\n%s\n%s", flag, help(out, flag), help(wout, flag))
		}
	}
}

// help is the help line of flag in a --help text.
func help(text, flag string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, flag) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}
