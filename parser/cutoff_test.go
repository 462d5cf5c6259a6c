package parser

import (
	"strings"
	"testing"
)

// A line cut before its number (a log truncated mid-line, a 1 MiB cut, a
// paste) names no broker, epoch or offset: it must not read as broker 0
// or offset 0, which are real ones. Whole lines quoted from
// shared/formats/broker.md (§5 KRaft controller examples, §7 truncation).
func TestCutOffNumbersAreNotZero(t *testing.T) {
	for _, c := range []struct {
		name, whole, cut string
		check            func(t *testing.T, evs []Event) // on the whole line's events
	}{
		{"fencing broker",
			`[2024-09-30 11:59:58,102] INFO [QuorumController id=3000] Fencing broker 1 because its session has timed out. (org.apache.kafka.controller.ReplicationControlManager)`,
			"Fencing broker ",
			func(t *testing.T, evs []Event) {
				if !hasBroker(evs, KindBrokerLifecycle, 1) {
					t.Errorf("whole line: no fenced broker 1 in %+v", evs)
				}
			}},
		{"registration change",
			`[2024-09-30 11:59:58,104] INFO [QuorumController id=3000] Replayed BrokerRegistrationChangeRecord modifying the registration for broker 1: BrokerRegistrationChangeRecord(brokerId=1, brokerEpoch=81, fenced=1, inControlledShutdown=0, logDirs=[]) (org.apache.kafka.controller.ClusterControlManager)`,
			"brokerId=",
			func(t *testing.T, evs []Event) {
				if !hasBroker(evs, KindBrokerLifecycle, 1) {
					t.Errorf("whole line: no broker 1 in %+v", evs)
				}
			}},
		{"truncation",
			`[2021-05-04 17:22:10,120] INFO [Log partition=orders-3, dir=/var/lib/kafka] Truncating to offset 55010 (kafka.log.Log)`,
			"Truncating to offset ",
			func(t *testing.T, evs []Event) {
				if len(evs) != 1 || evs[0].Kind != KindTruncation || evs[0].Offset != 55010 {
					t.Errorf("whole line: %+v", evs)
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.check(t, parseAll(c.whole))
			// Cut right after the marker, and with the number alone taken
			// out (the logger still names the line).
			i := strings.Index(c.whole, c.cut) + len(c.cut)
			j := i
			for j < len(c.whole) && c.whole[j] >= '0' && c.whole[j] <= '9' {
				j++
			}
			for _, line := range []string{c.whole[:i], c.whole[:i] + c.whole[j:]} {
				for _, e := range parseAll(line) {
					if e.Broker == 0 || e.Kind == KindTruncation || (len(e.Subjects) == 1 && e.Subjects[0] == 0) {
						t.Errorf("%q: read as %+v", line, e)
					}
				}
			}
		})
	}
}

func hasBroker(evs []Event, k Kind, b int32) bool {
	for _, e := range evs {
		if e.Kind == k && e.Broker == b {
			return true
		}
	}
	return false
}
