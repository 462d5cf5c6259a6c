package verdict_test

import (
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/report"
	"github.com/leaderaudit/leaderaudit/internal/verdict"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

type keep struct{ eps []*timeline.Episode }

func (k *keep) Episode(e *timeline.Episode)           { k.eps = append(k.eps, e) }
func (k *keep) ProducerError(*timeline.ProducerError) {}
func (k *keep) Burst(*timeline.Burst)                 {}

// benchElections: n elections as a controlled shutdown of a 3-broker
// cluster makes them (2.6+ INFO): the controller's decision, the new
// leader's and a follower's "starts at leader epoch", the follower's
// fetcher and truncation, every broker caching the leader; 200 partitions
// of 20 topics, re-elected every few seconds.
func benchElections(n int) []*timeline.Episode {
	base := time.Date(2024, 3, 11, 9, 0, 0, 0, time.UTC)
	ev := func(k parser.Kind, at time.Duration) parser.Event {
		return parser.Event{Kind: k, Time: base.Add(at), Broker: parser.Unknown, Controller: parser.Unknown, ControllerEpoch: parser.Unknown,
			StateControllerEpoch: parser.Unknown, Partition: parser.Unknown, LeaderEpoch: parser.Unknown, Leader: parser.Unknown,
			PrevLeader: parser.Unknown, CorrelationID: -1, AttemptsLeft: -1}
	}
	k := &keep{}
	tl := timeline.New(timeline.Config{}, k)
	line := int64(0)
	add := func(src int, e parser.Event) {
		line++
		e.Line = line
		tl.Add(src, &e)
		tl.Advance(e.Time)
	}
	topics := make([]string, 20)
	for i := range topics {
		topics[i] = "orders-" + strconv.Itoa(i)
	}
	for i := 0; i < n; i++ {
		p := i % 200
		topic, part, epoch := topics[p%20], int32(p/20), int32(i/200+1)
		at := time.Duration(i) * 20 * time.Millisecond
		leader := int32(1 + (i/200)%3)
		follower := leader%3 + 1
		d := ev(parser.KindDecision, at)
		d.Controller, d.Topic, d.Partition, d.LeaderEpoch, d.Leader, d.Cause = 1, topic, part, epoch, leader, parser.CauseControlledShutdown
		d.ISR, d.Replicas = []int32{leader, follower}, []int32{leader, follower, follower%3 + 1}
		add(0, d)
		for j, b := range []int32{leader, follower} {
			e := ev(parser.KindPhase, at+time.Duration(2+j)*time.Millisecond)
			e.Broker, e.Role, e.Phase, e.Topic, e.Partition, e.LeaderEpoch = b, parser.RoleFollower, parser.PhaseEpochStart, topic, part, epoch
			if j == 0 {
				e.Role = parser.RoleLeader
			}
			add(int(b), e)
		}
		f := ev(parser.KindPhase, at+5*time.Millisecond)
		f.Broker, f.Role, f.Phase, f.Topic, f.Partition, f.LeaderEpoch, f.Leader = follower, parser.RoleFollower, parser.PhaseStartedFetcher, topic, part, epoch, leader
		add(int(follower), f)
		tr := ev(parser.KindTruncation, at+6*time.Millisecond)
		tr.Broker, tr.Topic, tr.Partition, tr.Offset = follower, topic, part, int64(i)
		add(int(follower), tr)
		for b := int32(1); b <= 3; b++ {
			c := ev(parser.KindPhase, at+time.Duration(7+b)*time.Millisecond)
			c.Broker, c.Phase, c.Topic, c.Partition, c.LeaderEpoch, c.Leader, c.Metadata = b, parser.PhaseCached, topic, part, epoch, leader, true
			add(int(b), c)
		}
	}
	tl.Close()
	return k.eps
}

// BenchmarkReportPath: what the report goroutine does per election in an
// audit with --format json (the window, the collector and its JSON line,
// the verdicts' analyzer).
func BenchmarkReportPath(b *testing.B) {
	eps := benchElections(20000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		col := report.NewCollector(report.Options{Loc: time.UTC})
		col.JSON = report.NewJSONWriter(io.Discard, time.UTC)
		sink := report.WindowSink(&report.Window{}, verdict.Tee(col, verdict.New(verdict.Config{})))
		for _, e := range eps {
			sink.Episode(e)
		}
		col.JSON.Flush()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(eps)), "ns/election")
	b.ReportMetric(float64(len(eps)), "elections")
}
