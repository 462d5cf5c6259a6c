package follow

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// kafkaTime parses the "[2019-02-25 15:00:00,123] " prefix of log4j lines.
func kafkaTime(line []byte) (time.Time, bool) {
	const layout = "2006-01-02 15:04:05,000"
	if len(line) < len(layout)+2 || line[0] != '[' || line[len(layout)+1] != ']' {
		return time.Time{}, false
	}
	t, err := time.Parse(layout, string(line[1:len(layout)+1]))
	return t, err == nil
}

func ts(hour, min int) time.Time { return time.Date(2019, 2, 25, hour, min, 0, 0, time.UTC) }

func logLine(t time.Time, msg string) string {
	return "[" + t.Format("2006-01-02 15:04:05,000") + "] " + msg + "\n"
}

// linearSeek is the obvious answer SeekBackByTime must agree with.
func linearSeek(data []byte, since time.Time) int64 {
	off := 0
	for off < len(data) {
		end := bytes.IndexByte(data[off:], '\n')
		next := off + end + 1
		if end < 0 {
			end, next = len(data)-off, len(data)
		}
		line := bytes.TrimSuffix(data[off:off+end], []byte{'\r'})
		if t, ok := kafkaTime(line); ok && !t.Before(since) {
			return int64(off)
		}
		off = next
	}
	return int64(len(data))
}

func TestSeekBackByTime(t *testing.T) {
	content := "garbage header\n" +
		logLine(ts(14, 0), "INFO a") +
		logLine(ts(15, 0), "ERROR b") +
		"java.lang.IllegalStateException: boom\n\tat kafka.Foo(Foo.scala:1)\n" +
		logLine(ts(15, 0), "INFO b2") +
		logLine(ts(15, 30), "INFO c") +
		strings.TrimSuffix(logLine(ts(16, 0), "INFO d (no newline yet)"), "\n")
	data := []byte(content)
	size := int64(len(data))
	offsetOf := func(s string) int64 { return int64(strings.Index(content, s)) }
	cases := []struct {
		since time.Time
		want  int64
	}{
		{ts(0, 0), offsetOf("[2019-02-25 14:00")},
		{ts(14, 0), offsetOf("[2019-02-25 14:00")},
		{ts(14, 1), offsetOf("[2019-02-25 15:00:00,000] ERROR b")},
		{ts(15, 0), offsetOf("[2019-02-25 15:00:00,000] ERROR b")},
		{ts(15, 1), offsetOf("[2019-02-25 15:30")},
		{ts(15, 31), offsetOf("[2019-02-25 16:00")},
		{ts(16, 0), offsetOf("[2019-02-25 16:00")},
		{ts(16, 1), size},
	}
	for _, c := range cases {
		got := SeekBackByTime(bytes.NewReader(data), size, c.since, kafkaTime)
		if got != c.want {
			t.Errorf("since %s: got %d, want %d (%q)", c.since.Format("15:04"), got, c.want, content[min(c.want, size):])
		}
		if lin := linearSeek(data, c.since); lin != c.want {
			t.Fatalf("bad test: linear seek says %d, want %d", lin, c.want)
		}
	}
	if got := SeekBackByTime(bytes.NewReader(nil), 0, ts(0, 0), kafkaTime); got != 0 {
		t.Errorf("empty: got %d", got)
	}
	noTimes := []byte("a\nb\nc\n")
	if got := SeekBackByTime(bytes.NewReader(noTimes), 6, ts(0, 0), kafkaTime); got != 6 {
		t.Errorf("no timestamps: got %d, want 6", got)
	}
}

// SeekBackByTime agrees with a linear scan on many generated files: runs of
// equal timestamps, untimed lines, CRLF, lines longer than its buffer.
func TestSeekBackByTimeAgainstLinear(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for file := range 200 {
		var b strings.Builder
		now := ts(10, 0)
		n := rng.IntN(60)
		for i := range n {
			switch r := rng.IntN(100); {
			case r < 20:
				b.WriteString("\tat some.Frame(Frame.java:" + fmt.Sprint(i) + ")\n")
			case r < 22:
				b.WriteString(logLine(now, strings.Repeat("x", 30_000+rng.IntN(70_000))))
			case r < 30:
				b.WriteString(strings.TrimSuffix(logLine(now, "crlf"), "\n") + "\r\n")
			default:
				b.WriteString(logLine(now, "msg"))
			}
			if rng.IntN(3) == 0 {
				now = now.Add(time.Duration(rng.IntN(5)) * time.Minute)
			}
		}
		data := []byte(b.String())
		if rng.IntN(4) == 0 && len(data) > 0 {
			data = data[:len(data)-1] // no final '\n'
		}
		for probe := ts(9, 59); !probe.After(now.Add(time.Minute)); probe = probe.Add(time.Minute) {
			want := linearSeek(data, probe)
			got := SeekBackByTime(bytes.NewReader(data), int64(len(data)), probe, kafkaTime)
			if got != want {
				t.Fatalf("file %d (%d bytes), since %s: got %d, want %d", file, len(data), probe.Format("15:04"), got, want)
			}
		}
	}
}
