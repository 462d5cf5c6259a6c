// Package textfmt holds the small text conventions every output shares
// (the report, the findings, the live screen): how a duration, a list of
// ids and an instant are written, and how log text is made safe for a
// terminal. It imports nothing of the tool, so the screen can use it
// without pulling in the readers.
package textfmt

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// TimeFormat is RFC 3339 with milliseconds and the zone offset.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

// Dur renders a duration the way operators read them: "21 ms", "2.4 s", "3 min 12 s".
func Dur(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + Dur(-d)
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d < time.Hour:
		if s := int(d.Seconds()) % 60; s != 0 {
			return fmt.Sprintf("%d min %d s", int(d.Minutes()), s)
		}
		return fmt.Sprintf("%d min", int(d.Minutes()))
	}
	return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
}

// JoinIDs writes broker or controller ids as Kafka lists them: "1,2,3".
func JoinIDs(v []int32) string {
	var b strings.Builder
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(x)))
	}
	return b.String()
}

// ZoneName names a zone for people: the machine's local zone says so.
func ZoneName(l *time.Location) string {
	if l == time.Local {
		name, _ := time.Now().In(l).Zone()
		if l.String() == "Local" {
			return "machine local zone (" + name + ")"
		}
	}
	return l.String()
}
