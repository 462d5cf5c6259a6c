package live

import (
	"slices"

	"github.com/leaderaudit/leaderaudit/internal/feed"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

// Progress is feed.Progress.
type Progress = feed.Progress

// brokerLogs is what the followed logs have shown of one broker: that it
// logs the steps of applying elections (its state-change.log, or the
// server.log lines of versions that log them there) and whether its
// version logs "Finished LeaderAndIsr request" (2.7+), the last of them.
type brokerLogs struct {
	phases, finishes bool
}

// note records what an event shows of the broker that wrote it.
func (p *Pipeline) note(ev *parser.Event) {
	if ev.Broker == parser.Unknown {
		return
	}
	switch ev.Kind {
	case parser.KindPhase, parser.KindRequestStart, parser.KindRequestPhase:
	case parser.KindRequestFinished:
		if bl := p.logs[ev.Broker]; !bl.finishes {
			p.logs[ev.Broker] = brokerLogs{phases: true, finishes: true}
			p.logsVer++
		}
		return
	default:
		return
	}
	if bl := p.logs[ev.Broker]; !bl.phases {
		bl.phases = true
		p.logs[ev.Broker] = bl
		p.logsVer++
	}
}

// progress says what an open election still waits for: each live replica
// (the new ISR; without one, the replicas less the brokers the trigger
// named; without those, the brokers that logged it) whose logs show it
// applying elections, until it has logged its last step.
func (p *Pipeline) progress(e *timeline.Episode) Progress {
	live := e.ISR
	if len(live) == 0 {
		for _, b := range e.Replicas {
			if !slices.Contains(e.CauseBrokers, b) {
				live = append(live, b)
			}
		}
	}
	if len(live) == 0 {
		for _, bt := range e.Brokers {
			live = append(live, bt.Broker)
		}
	}
	var pr Progress
	followed := 0
	for _, b := range live {
		bl, ok := p.logs[b]
		if !ok || !bl.phases {
			continue
		}
		followed++
		if !applied(brokerOf(e, b), bl) {
			pr.Waiting = append(pr.Waiting, b)
		}
	}
	pr.Complete = followed > 0 && len(pr.Waiting) == 0
	return pr
}

func brokerOf(e *timeline.Episode, b int32) *timeline.BrokerTimeline {
	for _, bt := range e.Brokers {
		if bt.Broker == b {
			return bt
		}
	}
	return nil
}

// applied says whether a broker logged the last step it logs: the
// request's "Finished" line where its version writes one; before 2.7 the
// per-partition completion, or the leader's "starts at leader epoch", or
// a follower's fetcher to the new leader.
func applied(bt *timeline.BrokerTimeline, bl brokerLogs) bool {
	if bt == nil {
		return false
	}
	ph := &bt.Phases
	if bl.finishes {
		return !ph[parser.PhaseFinished].IsZero()
	}
	if !ph[parser.PhaseCompleted].IsZero() || !ph[parser.PhaseFinished].IsZero() {
		return true
	}
	switch bt.Role {
	case parser.RoleLeader:
		return !ph[parser.PhaseEpochStart].IsZero()
	case parser.RoleFollower:
		return !ph[parser.PhaseStartedFetcher].IsZero() || !ph[parser.PhaseEpochStart].IsZero()
	}
	return !ph[parser.PhaseEpochStart].IsZero() || !ph[parser.PhaseStartedFetcher].IsZero()
}
