// Package livetest holds what the tests of following (packages live and
// tui) write to the logs they follow: an election as a broker logs it,
// and the ways a log is rotated under its writer.
package livetest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"time"
)

// Election is one ZK-era election of events-0 as broker 1 (controller and
// follower) logs it in its state-change.log: case3's broker-1 lines of
// 10:15:20 with the epoch and times changed.
func Election(epoch int, at time.Time) []string {
	ts := func(d time.Duration) string { return at.Add(d).UTC().Format("2006-01-02 15:04:05,000") }
	return []string{
		fmt.Sprintf("[%s] INFO [Controller id=1 epoch=3] Changed partition events-0 from OnlinePartition to OnlinePartition with state LeaderAndIsr(leader=3, leaderEpoch=%d, isr=List(3, 1), zkVersion=%d) (state.change.logger)", ts(0), epoch, 20+epoch),
		fmt.Sprintf("[%s] INFO [Broker id=1] Follower events-0 starts at leader epoch %d from offset %d with high watermark %d. Previous leader epoch was %d. (state.change.logger)", ts(15*time.Millisecond), epoch, 1000*epoch, 1000*epoch, epoch-1),
	}
}

// Append writes lines to the end of path, making it if need be.
func Append(path string, lines []string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// Kinds names the rotations Rotate knows.
var Kinds = []string{"rename", "copytruncate", "delete-recreate", "rename-compress"}

// Rotate rotates the log at path the way kind says:
//   - rename: log4j's RollingFileAppender, rename to path.1 and a new file;
//   - copytruncate: logrotate's, copy to path.1 and cut the file to nothing;
//   - delete-recreate: remove it and make a new one;
//   - rename-compress: logrotate's compress, path.1 gzipped to path.1.gz and
//     removed, then a rename.
func Rotate(kind, path string) error {
	switch kind {
	case "rename":
		if err := os.Rename(path, path+".1"); err != nil {
			return err
		}
		return os.WriteFile(path, nil, 0o644)
	case "copytruncate":
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.WriteFile(path+".1", b, 0o644); err != nil {
			return err
		}
		return os.Truncate(path, 0)
	case "delete-recreate":
		if err := os.Remove(path); err != nil {
			return err
		}
		return os.WriteFile(path, nil, 0o644)
	case "rename-compress":
		if b, err := os.ReadFile(path + ".1"); err == nil {
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			if _, err := zw.Write(b); err != nil {
				return err
			}
			if err := zw.Close(); err != nil {
				return err
			}
			if err := os.WriteFile(path+".1.gz", z.Bytes(), 0o644); err != nil {
				return err
			}
			if err := os.Remove(path + ".1"); err != nil {
				return err
			}
		}
		return Rotate("rename", path)
	}
	return fmt.Errorf("livetest: no rotation %q", kind)
}
