package logstore

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The filter's regexp (as the server reads it: Go's RE2) leaves out a
// quiet logger's record, also with the logger after its block, and keeps
// the record whose stack trace merely passes through that logger's code,
// and those with a kept word.
func TestPushdown(t *testing.T) {
	f := Pushdown([]string{"kafka.log.LogSegment", "kafka.coordinator.group.GroupCoordinator", "org.apache.kafka.storage.internals.log.LogSegment"}, []string{"Elected as the group coordinator"})
	quoted := regexp.MustCompile(`~("(?:[^"\\]|\\.)*")`).FindAllStringSubmatch(f, -1)
	if len(quoted) != 3 || !strings.HasPrefix(f, "NOT ((~") {
		t.Fatalf("filter %s", f)
	}
	re := func(i int) *regexp.Regexp {
		s, err := strconv.Unquote(quoted[i][1])
		if err != nil {
			t.Fatal(err)
		}
		return regexp.MustCompile(s)
	}
	kafka, org, keep := re(0), re(1), re(2)
	for i, want := range []string{" (kafka.", " (org.apache.kafka.storage."} {
		if p, _ := re(i).LiteralPrefix(); !strings.HasPrefix(p, want) {
			t.Errorf("literal prefix %q, want %q: the server would scan each row", p, want)
		}
	}
	drop := regexp.MustCompile(kafka.String() + "|" + org.String())
	for _, c := range []struct {
		row  string
		left bool
	}{
		{"[2024-03-11 11:51:34,753] INFO Deleted log /d/t-1/0.log.deleted. (kafka.log.LogSegment)", true},
		{"[2024-03-11 11:51:34,753] INFO Deleted log /d/t-1/0.log.deleted. (kafka.log.LogSegment)\r", true},
		{"[2024-03-11 11:51:34,753] INFO [kafka-log-cleaner-thread-0]: \n\tLog cleaner thread 0 cleaned log\n (kafka.log.LogSegment)", true},
		{"[2024-03-11 11:51:34,753] INFO [GroupCoordinator 1]: Elected as the group coordinator for partition 3 (kafka.coordinator.group.GroupCoordinator)", false},
		{"[2024-03-11 11:51:34,753] ERROR [ReplicaManager broker=1] Error processing append operation on partition t-0 (kafka.server.ReplicaManager)\n\tat kafka.log.LogSegment.append(LogSegment.scala:126)", false},
		{"[2024-03-11 11:51:34,753] INFO Rolled new log segment (kafka.log.LogSegments)", false},
		{"[2024-03-11 11:51:34,753] INFO [LocalLog partition=t-1, dir=/d] Rolled new log segment at offset 5 (org.apache.kafka.storage.internals.log.LogSegment)", true},
	} {
		if got := drop.MatchString(c.row) && !keep.MatchString(c.row); got != c.left {
			t.Errorf("left out %v, want %v: %q", got, c.left, c.row)
		}
	}
}
