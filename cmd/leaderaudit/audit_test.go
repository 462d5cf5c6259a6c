package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

func audit(t *testing.T, format string, paths ...string) (string, string, int) {
	t.Helper()
	return auditWith(t, nil, format, paths...)
}

// auditWith runs audit with the defaults, then lets set change flags.
func auditWith(t *testing.T, set func(*AuditCmd), format string, paths ...string) (string, string, int) {
	t.Helper()
	a := parseAudit(t, append([]string{"--tz", "UTC", "--format", format, "--"}, paths...)...)
	if set != nil {
		set(a)
	}
	return runAudit(a)
}

// parseAudit parses "leaderaudit audit args..." as the binary does, so a
// test's flags have kong's real defaults.
func parseAudit(t *testing.T, args ...string) *AuditCmd {
	t.Helper()
	var cli CLI
	p, err := newParser(&cli, stdio{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Parse(append([]string{"audit"}, args...)); err != nil {
		t.Fatal(err)
	}
	return &cli.Audit
}

// runAudit runs a parsed audit (not following) on an empty stdin and maps
// its error to the exit status, as main does.
func runAudit(a *AuditCmd) (string, string, int) {
	var out, errb bytes.Buffer
	code := exitStatus(a.run(context.Background(), strings.NewReader(""), &out, &errb), &errb)
	return out.String(), errb.String(), code
}

// cli runs the whole command line, exit status mapping included.
func cli(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := run(args, stdio{strings.NewReader(""), &out, &errb})
	return out.String(), errb.String(), code
}

// incidentFlags: the flags an incident's README says to audit it with.
var incidentFlags = map[string]func(*AuditCmd){
	"case4-clock-skew": func(a *AuditCmd) {
		a.Read.TZ = []string{"UTC", "broker-2/*=Europe/Moscow"}
		a.Read.Skew = []string{"auto"}
	},
}

// stable removes what differs between machines (absolute paths).
func stable(s string) string {
	wd, _ := os.Getwd()
	root := filepath.Dir(filepath.Dir(wd))
	return strings.ReplaceAll(s, root+string(filepath.Separator), "")
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "golden", name)
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/leaderaudit -update to create)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from golden file; run with -update after checking the diff.\n--- got (first 3000 bytes) ---\n%s", name, first(got, 3000))
	}
}

func first(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Every real sample audits to its golden JSON lines, and every line parses.
func TestSamplesGoldenJSON(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/samples/*.log")
	if len(files) == 0 {
		t.Fatal("no samples")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".log")
		t.Run(name[:3], func(t *testing.T) {
			out, _, code := audit(t, "json", f)
			if code != exitOK {
				t.Fatalf("exit %d", code)
			}
			for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var m map[string]any
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatalf("line %d is not JSON: %v: %s", i+1, err, line)
				}
				if _, ok := m["type"]; !ok {
					t.Fatalf("line %d has no type: %s", i+1, line)
				}
			}
			golden(t, "samples/"+name[:3]+".jsonl", stable(out))
		})
	}
}

func TestIncidentGoldenText(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/incidents/*")
	for _, d := range dirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			continue
		}
		name := filepath.Base(d)
		t.Run(name, func(t *testing.T) {
			out, _, code := auditWith(t, incidentFlags[name], "text", d)
			if code != exitOK {
				t.Fatalf("exit %d", code)
			}
			golden(t, "incidents/"+name+".txt", stable(out))
			js, _, _ := auditWith(t, incidentFlags[name], "json", d)
			golden(t, "incidents/"+name+".jsonl", stable(js))
		})
	}
}

func TestUnreadablePathsNamedAndRestAudited(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "state-change.log")
	data, _ := os.ReadFile("../../testdata/incidents/worked-0.10.2/broker-2/state-change.log")
	os.WriteFile(good, data, 0o644)
	out, errs, code := audit(t, "json", filepath.Join(dir, "missing.log"), good)
	if code != exitOK {
		t.Fatalf("exit %d, want 0 when something was read", code)
	}
	if !strings.Contains(errs, "missing.log") || !strings.Contains(errs, "no such file") {
		t.Errorf("stderr does not name the missing file: %q", errs)
	}
	if !strings.Contains(out, `"type":"election"`) {
		t.Error("the readable file was not audited")
	}
	_, errs, code = audit(t, "text", filepath.Join(dir, "missing.log"))
	if code != exitError || !strings.Contains(errs, "nothing could be read") {
		t.Errorf("all missing: exit %d stderr %q", code, errs)
	}
}

// Log text must not reach the terminal as control sequences (OSC 52
// clipboard writes, screen clears); JSON escapes them.
func TestTerminalSafety(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "app\x1b[2J.log")
	line := "[2022-02-24 11:07:09,456] WARN [Producer clientId=evil\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\u009b31m] Got error produce response with correlation id 1 on topic-partition orders-0, retrying (2 attempts left). Error: NOT_LEADER_OR_FOLLOWER\x1b[2J (org.apache.kafka.clients.producer.internals.Sender)\n"
	if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "json"} {
		out, errs, code := audit(t, format, dir)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", format, code, errs)
		}
		for _, s := range []string{out, errs} {
			if strings.ContainsAny(s, "\x1b\x07\u009b") {
				t.Errorf("%s output carries a control sequence: %q", format, s)
			}
		}
		if !strings.Contains(out, "evil") {
			t.Errorf("%s: the error itself was lost", format)
		}
	}
}

func TestZonePerPath(t *testing.T) {
	z, err := loadZones([]string{"UTC", "app/*=Europe/Moscow", "*.out=Asia/Jakarta"})
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		"logs/app/app.log": "Europe/Moscow", "app/x.log": "Europe/Moscow", "broker-1/server.log": "UTC", "b/kafkaServer.out": "Asia/Jakarta",
	} {
		if got := z.forPath(p).String(); got != want {
			t.Errorf("%s: %s, want %s", p, got, want)
		}
	}
	if !strings.Contains(z.note, "app/* as Europe/Moscow") {
		t.Errorf("note %q", z.note)
	}
	if _, err := loadZones([]string{"Mars/Olympus"}); err == nil {
		t.Error("bad zone accepted")
	}
}

// A server.log whose lines name no broker, in a directory whose name says
// nothing either: --broker gives the id; without it the event has none;
// a path that does name one (kafka-3/) is read by itself, and --broker wins
// over it.
func TestBrokerPerPath(t *testing.T) {
	dir := t.TempDir()
	line := "[2021-06-14 10:15:24,902] INFO [ZooKeeperClient Kafka server] Session expired. (kafka.zookeeper.ZooKeeperClient)\n"
	for _, d := range []string{"node-a", "kafka-3"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
		if err := os.WriteFile(filepath.Join(dir, d, "server.log"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	brokers := func(flags ...string) map[string]any {
		t.Helper()
		a := parseAudit(t, "--tz", "UTC", "--format", "json", dir)
		a.Read.Broker = flags
		out, errb, code := runAudit(a)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errb)
		}
		// Source lines come last, after the events that point at them.
		paths := map[float64]string{}
		bySource := map[float64]any{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatal(err)
			}
			switch m["type"] {
			case "source":
				paths[m["source"].(float64)] = filepath.Base(filepath.Dir(m["path"].(string)))
			case "broker_event":
				bySource[m["source"].(float64)] = m["broker"]
			}
		}
		got := map[string]any{}
		for src, b := range bySource {
			got[paths[src]] = b
		}
		return got
	}
	if got := brokers(); got["node-a"] != nil || got["kafka-3"] != 3.0 {
		t.Errorf("no --broker: %v, want node-a none, kafka-3 3", got)
	}
	if got := brokers("node-a/*=4", "kafka-3/*=7"); got["node-a"] != 4.0 || got["kafka-3"] != 7.0 {
		t.Errorf("--broker: %v, want node-a 4, kafka-3 7", got)
	}
	for _, bad := range []string{"node-a", "=4", "node-a/*=x", "node-a/*=-1", "[=1"} {
		if _, err := loadBrokers([]string{bad}); err == nil {
			t.Errorf("--broker %q accepted", bad)
		}
	}
}
