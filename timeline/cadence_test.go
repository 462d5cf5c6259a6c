package timeline

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/source"
	"github.com/leaderaudit/leaderaudit/parser"
)

// runSwept reads the files as audit does into a timeline swept every
// `every` events (0: only at the end).
func runSwept(t *testing.T, cfg Config, every int, paths ...string) *collect {
	t.Helper()
	ins := make([]source.Input, len(paths))
	for i, p := range paths {
		ins[i] = source.Input{Path: p, Chain: p}
	}
	rd := source.NewReader(ins, func(string) *time.Location { return time.UTC })
	c := &collect{}
	tl := New(cfg, c)
	n := 0
	rd.Run(context.Background(), func(src int, ev *parser.Event) {
		tl.Add(src, ev)
		if n++; every > 0 && n%every == 0 {
			tl.Advance(ev.Time)
		}
	})
	tl.Close()
	for _, s := range rd.Sources {
		if s.Err != nil {
			t.Fatalf("%s: %v", s.Path, s.Err)
		}
	}
	return c
}

// A 2.7 follower (case 3's broker 2, after its ZooKeeper session expired)
// logs "Removed fetcher for partitions Set(events-0, …)" at 25.334, after
// its "Follower events-0 starts at leader epoch 8" lines and before its
// request's "Stopped fetchers … for 4 partitions" at 25.337. The
// partition's own line times its stopped_fetchers phase, whether the
// request closed first or the held line was released first, and it is not
// a repeat. Before, the request's time won and the held line counted as a
// repeat (swept often), or, released at the end, it went to the newest
// epoch it did not belong to and counted as an orphan.
func TestPartitionLineTimesAFollowerNotItsRequest(t *testing.T) {
	dir := filepath.Join("..", "testdata", "incidents", "case3-acks1-zk-expiry", "broker-2")
	want := time.Date(2021, 6, 14, 10, 15, 25, 334e6, time.UTC)
	for _, every := range []int{1, 7, 0} {
		c := runSwept(t, Config{}, every, filepath.Join(dir, "state-change.log"), filepath.Join(dir, "server.log"))
		for _, k := range []struct {
			topic       string
			part, epoch int32
		}{{"events", 0, 8}, {"__consumer_offsets", 9, 5}, {"events", 1, 7}, {"events", 2, 6}} {
			e := c.find(t, k.topic, k.part, k.epoch)
			bt := e.broker(2)
			if got := bt.Phases[parser.PhaseStoppedFetchers]; !got.Equal(want) || bt.Repeats != 0 {
				t.Errorf("swept every %d: %s-%d epoch %d: broker 2 stopped fetchers at %s with %d repeats, want %s and 0",
					every, k.topic, k.part, k.epoch, got.Format("15:04:05.000"), bt.Repeats, want.Format("15:04:05.000"))
			}
		}
	}
}

// A broker coming back (0.10, TRACE; the lines are the generator's, in
// broker.md's 0.10 format) applies the epoch decided while it was down and
// truncates its logs one by one before "started fetcher … with
// correlation id C": 18.3 s after "received … correlation id C", more than
// --quiet. A line that names the request's correlation id is that
// request's, however late. Before, such lines joined it only while no
// sweep had forgotten the request (after --quiet), so here "completed" was
// lost, and on the generated 1 GB 0.10 set 130 returning brokers' apply
// times read 2 ms or 18,289 ms depending on where the sweeps fell.
func TestSlowFollowerKeepsItsRequestsLines(t *testing.T) {
	const lines = `[2024-03-11 19:15:46,122] TRACE Controller 3 epoch 46 changed partition [__consumer_offsets,0] state from OnlinePartition to OfflinePartition (state.change.logger)
[2024-03-11 19:15:46,122] TRACE Controller 3 epoch 46 started leader election for partition [__consumer_offsets,0] (state.change.logger)
[2024-03-11 19:15:46,123] TRACE Controller 3 epoch 46 elected leader 3 for Offline partition [__consumer_offsets,0] (state.change.logger)
[2024-03-11 19:15:46,123] TRACE Controller 3 epoch 46 changed partition [__consumer_offsets,0] from OfflinePartition to OnlinePartition with leader 3 (state.change.logger)
[2024-03-11 19:15:46,214] TRACE Controller 3 epoch 46 sending become-leader LeaderAndIsr request (Leader:3,ISR:3,2,LeaderEpoch:100,ControllerEpoch:46) to broker 3 for partition [__consumer_offsets,0] (state.change.logger)
[2024-03-11 19:15:46,230] TRACE Broker 3 received LeaderAndIsr request PartitionState(controllerEpoch=46, leader=3, leaderEpoch=100, isr=[3, 2], zkVersion=179, replicas=[1, 3, 2]) correlation id 8173 from controller 3 epoch 46 for partition [__consumer_offsets,0] (state.change.logger)
[2024-03-11 19:15:46,231] TRACE Broker 3 handling LeaderAndIsr request correlationId 8173 from controller 3 epoch 46 starting the become-leader transition for partition __consumer_offsets-0 (state.change.logger)
[2024-03-11 19:15:46,244] TRACE Broker 3 stopped fetchers as part of become-leader request from controller 3 epoch 46 with correlation id 8173 for partition __consumer_offsets-0 (state.change.logger)
[2024-03-11 19:15:46,244] TRACE Broker 3 completed LeaderAndIsr request correlationId 8173 from controller 3 epoch 46 for the become-leader transition for partition __consumer_offsets-0 (state.change.logger)
[2024-03-11 19:18:44,200] TRACE Broker 1 received LeaderAndIsr request PartitionState(controllerEpoch=46, leader=3, leaderEpoch=100, isr=[3, 2], zkVersion=179, replicas=[1, 3, 2]) correlation id 7998 from controller 3 epoch 46 for partition [__consumer_offsets,0] (state.change.logger)
[2024-03-11 19:18:44,200] TRACE Broker 1 handling LeaderAndIsr request correlationId 7998 from controller 3 epoch 46 starting the become-follower transition for partition __consumer_offsets-0 (state.change.logger)
[2024-03-11 19:18:44,202] TRACE Broker 1 stopped fetchers as part of become-follower request from controller 3 epoch 46 with correlation id 7998 for partition __consumer_offsets-0 (state.change.logger)
[2024-03-11 19:19:02,489] TRACE Broker 1 truncated logs and checkpointed recovery boundaries for partition __consumer_offsets-0 as part of become-follower request with correlation id 7998 from controller 3 epoch 46 (state.change.logger)
[2024-03-11 19:19:02,489] TRACE Broker 1 started fetcher to new leader as part of become-follower request from controller 3 epoch 46 with correlation id 7998 for partition __consumer_offsets-0 (state.change.logger)
[2024-03-11 19:19:02,490] TRACE Broker 1 completed LeaderAndIsr request correlationId 7998 from controller 3 epoch 46 for the become-follower transition for partition __consumer_offsets-0 (state.change.logger)
`
	path := filepath.Join(t.TempDir(), "state-change.log")
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, every := range []int{1, 2, 0} {
		c := runSwept(t, Config{}, every, path)
		bt := c.find(t, "__consumer_offsets", 0, 100).broker(1)
		for _, ph := range []parser.Phase{parser.PhaseTruncated, parser.PhaseStartedFetcher, parser.PhaseCompleted} {
			if bt.Phases[ph].IsZero() {
				t.Errorf("swept every %d: phase %v not timed", every, ph)
			}
		}
		if d, ok := bt.Applied(); !ok || d != 18290*time.Millisecond {
			t.Errorf("swept every %d: applied in %v, want 18.29s", every, d)
		}
	}
}
