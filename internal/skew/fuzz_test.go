package skew

import (
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
)

// FuzzEstimate feeds arbitrary event sequences (kinds, sources, times,
// epochs from the input bytes) and checks the estimate never panics and
// every offset it applies satisfies the bounds it reports.
func FuzzEstimate(f *testing.F) {
	f.Add([]byte{0, 0, 1, 5, 1, 1, 2, 0, 1, 3, 2, 1, 4, 9})
	f.Add([]byte{3, 1, 2, 200, 4, 0, 2, 10, 0, 0, 1, 1, 1, 1, 1, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		e := NewEstimator()
		for i := 0; i+4 <= len(b) && i < 4000; i += 4 {
			src := int(b[i+1] % 4)
			ev := &parser.Event{Time: t0.Add(time.Duration(int8(b[i+2])) * 37 * time.Millisecond).Add(time.Duration(i) * time.Millisecond),
				Topic: "t", Partition: int32(b[i+3] % 3), LeaderEpoch: int32(b[i+3] / 3 % 4), Broker: int32(src), Controller: parser.Unknown, Leader: int32(b[i+3] % 4)}
			switch b[i] % 5 {
			case 0:
				ev.Kind, ev.Controller = parser.KindDecision, 0
			case 1:
				ev.Kind, ev.Phase = parser.KindPhase, parser.PhaseEpochStart
			case 2:
				ev.Kind, ev.Phase, ev.LeaderEpoch = parser.KindPhase, parser.PhaseStartedFetcher, parser.Unknown
			case 3:
				ev.Kind, ev.ISR = parser.KindISRChange, []int32{int32(src), int32(b[i+3] % 4)}
			case 4:
				ev.Kind, ev.Lifecycle = parser.KindBrokerLifecycle, parser.LifeRegistered
				if b[i+3]&1 == 1 {
					ev.Kind, ev.Cause, ev.Subjects, ev.Controller = parser.KindTrigger, parser.CauseBrokerStartup, []int32{int32(b[i+3] % 4)}, 0
				}
			}
			e.Add(src, ev)
		}
		clocks := []Clock{{"a", []int{0}}, {"b", []int{1}}, {"c", []int{2, 3}}}
		es := e.Estimate(clocks)
		for _, r := range es.Results {
			if r.HasLo && r.HasHi && r.Lo > r.Hi {
				t.Fatalf("%s: empty interval %v…%v", r.Clock.Name, r.Lo, r.Hi)
			}
			if (r.HasLo && r.Offset < r.Lo) || (r.HasHi && r.Offset > r.Hi) {
				t.Fatalf("%s: offset %v outside %v…%v", r.Clock.Name, r.Offset, r.Lo, r.Hi)
			}
		}
	})
}
