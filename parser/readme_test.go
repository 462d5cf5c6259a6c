package parser

import (
	"os"
	"strings"
	"testing"
	"time"
)

// readmeFormats returns the README's supported-formats table: family name
// and the example lines of its row (every code span of the example
// column, "\|" unescaped).
func readmeFormats(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "| family | example line") {
			start = i + 2
			break
		}
	}
	if start < 0 {
		t.Fatal("README has no formats table")
	}
	out := map[string][]string{}
	for _, l := range lines[start:] {
		if !strings.HasPrefix(l, "|") {
			break
		}
		cells := splitRow(l)
		if len(cells) < 3 {
			t.Fatalf("row with %d cells: %s", len(cells), l)
		}
		var ex []string
		for rest := cells[1]; ; {
			o := strings.IndexByte(rest, '`')
			if o < 0 {
				break
			}
			e := strings.IndexByte(rest[o+1:], '`')
			if e < 0 {
				t.Fatalf("unclosed code span in %s", l)
			}
			ex = append(ex, strings.ReplaceAll(rest[o+1:o+1+e], `\|`, "|"))
			rest = rest[o+1+e+1:]
		}
		out[cells[0]] = ex
	}
	return out
}

// splitRow splits a Markdown table row on the pipes that are not escaped.
func splitRow(l string) []string {
	var cells []string
	cur := strings.Builder{}
	for i := 1; i < len(l); i++ {
		switch {
		case l[i] == '\\' && i+1 < len(l) && l[i+1] == '|':
			cur.WriteString(`\|`)
			i++
		case l[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(l[i])
		}
	}
	return cells
}

// Every example line in the README's formats table is read as a record,
// so the table cannot drift from the parser; and every family the tool
// claims has a row.
func TestREADMEFormatsTable(t *testing.T) {
	rows := readmeFormats(t)
	for _, fam := range []string{"Kafka log4j", "Kafka 4.x log4j2", "Strimzi", "Spring Boot", "logstash / JSON", "KafkaJS",
		"LinkedIn fork", "librdkafka", "sarama", "franz-go", "kafka-go", "Kafka Connect", "kubectl logs --timestamps",
		"kubectl logs --prefix", "stern", "docker-compose", "journald", "syslog"} {
		found := false
		for name, ex := range rows {
			if strings.HasPrefix(name, fam) && len(ex) > 0 {
				found = true
			}
		}
		if !found {
			t.Errorf("no row with an example for %s", fam)
		}
	}
	for name, ex := range rows {
		for _, l := range ex {
			var r Record
			if !ParseHeader([]byte(l), time.UTC, &r) {
				t.Errorf("%s: example not read as a record: %s", name, l)
			}
		}
	}
}
