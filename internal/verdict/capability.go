package verdict

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

func (f *finisher) capability(subject, msg string, data map[string]any, refs ...timeline.Ref) {
	f.add(Finding{Code: CodeCapability, Severity: Info, Subject: subject, Message: msg, Evidence: f.ev(refs...), Data: data})
}

// capabilities says what the given logs cannot show, and why.
func (f *finisher) capabilities() {
	var brokerSrc, clientSrc, infoSrc, kraftSrc []*SourceFacts
	ctrl := false
	for i := range f.sources {
		s := &f.sources[i]
		if isBrokerKind(s) {
			brokerSrc = append(brokerSrc, s)
		}
		if isClientKind(s) {
			clientSrc = append(clientSrc, s)
		}
		if s.Eras&(parser.EraZKController|parser.EraQuorumController) != 0 {
			ctrl = true
		}
		if s.Eras&parser.EraRequestInfo != 0 && s.Eras&parser.EraTrace == 0 && !hasLevel(s, "TRACE") {
			infoSrc = append(infoSrc, s)
		}
		if s.Eras&parser.EraKRaft != 0 && s.Eras&parser.EraTrace == 0 {
			kraftSrc = append(kraftSrc, s)
		}
	}
	// By path, not in the order the sources were found: a log store's
	// tail finds its streams in the order of their first rows.
	paths := func(ss []*SourceFacts) []string {
		var out []string
		for _, s := range ss {
			out = append(out, f.name(s.Index))
		}
		slices.Sort(out)
		return out
	}
	base := func(ss []*SourceFacts) string {
		names := paths(ss)
		for i := range names {
			names[i] = filepath.ToSlash(names[i])
		}
		return f.list(names, len(names))
	}

	for _, s := range f.sources {
		if s.UndatedErrors > 0 {
			f.capability("logs", fmt.Sprintf("%s is a producer log with %d undated errors (exception lines with no timestamped record above them): they cannot be placed in time, so no election is matched to them",
				filepath.ToSlash(f.name(s.Index)), s.UndatedErrors), map[string]any{"file": f.name(s.Index), "undated_errors": s.UndatedErrors})
		}
	}
	if len(f.sources) > 0 && len(brokerSrc) == 0 {
		f.capability("logs", "no broker logs given: elections cannot be reconstructed, so producer errors stay unexplained and no cluster-side verdict is possible", nil)
	}
	if len(f.sources) > 0 && len(clientSrc) == 0 && len(f.clients) == 0 && f.a.errors == 0 {
		f.capability("logs", "no producer logs given: producer errors cannot be matched to elections, and retries/acks settings are unknown (give the application logs with their \"ProducerConfig values:\" block)", nil)
	}
	if len(brokerSrc) > 0 && !ctrl {
		f.capability("logs", "no controller lines given (controller.log, or the controller's lines in state-change.log): election causes and decision times are unknown, so elections are timed from the brokers' lines only", nil)
	}
	if len(infoSrc) > 0 {
		f.capability("logs", fmt.Sprintf("state.change.logger at INFO (the 2.6+ default) in %s: per-partition phase times need TRACE; a broker's step times here are its whole LeaderAndIsr request's, shared by every partition in it",
			base(infoSrc)), map[string]any{"files": paths(infoSrc)})
	}
	if len(kraftSrc) > 0 {
		f.capability("logs", fmt.Sprintf("KRaft logs in %s: the controller writes no per-partition line for a clean election: its decision is the active controller's \"changing N partition(s)\" line (fencing, controlled shutdown, balancing) when the controller's log is given, else the election starts at the first broker line; broker steps are per metadata batch",
			base(kraftSrc)), map[string]any{"files": paths(kraftSrc)})
	}

	// Brokers that took part in elections but have no lines of their own
	// then: their logs are missing for that time (or they were down).
	own := map[int32][]*SourceFacts{}
	for _, s := range brokerSrc {
		for _, b := range s.Brokers {
			own[b] = append(own[b], s)
		}
		for _, b := range s.Controllers {
			if !contains(s.Brokers, b) {
				own[b] = append(own[b], s)
			}
		}
	}
	var absent []int32
	for b := range f.a.absent {
		absent = append(absent, b)
	}
	sort.Slice(absent, func(i, j int) bool { return absent[i] < absent[j] })
	var noLogs []string
	noLogsN := 0
	for _, b := range absent {
		ss := f.a.absent[b]
		srcs := own[b]
		if len(srcs) == 0 {
			if len(brokerSrc) > 0 && f.a.brokersSeen[b] == 0 {
				noLogsN++
				noLogs = append(noLogs, fmt.Sprintf("broker %d (in %s)", b, plural(ss.n, "election", "elections")))
			}
			continue
		}
		var gaps []span
		for _, sp := range ss.spans {
			in := false
			for _, s := range srcs {
				if !s.First.IsZero() && !sp.from.Before(s.First.Add(-time.Minute)) && !sp.to.After(s.Last.Add(time.Minute)) {
					in = true
					break
				}
			}
			if !in {
				gaps = append(gaps, sp)
			}
		}
		if len(gaps) == 0 {
			continue
		}
		var items []string
		for _, g := range gaps {
			if g.from.Equal(g.to) {
				items = append(items, f.tm(g.from))
			} else {
				items = append(items, f.tm(g.from)+"–"+f.tm(g.to))
			}
		}
		f.capability(fmt.Sprintf("broker %d", b), fmt.Sprintf("broker %d's logs are missing for %s: it was leader or replica in elections then but its files (%s) do not cover that time, so its side of them is unknown (or it was down)",
			b, f.list(items, len(items)), base(srcs)), map[string]any{"broker": b, "spans": len(gaps)})
	}
	if noLogsN > 0 {
		f.capability("logs", fmt.Sprintf("no logs of their own for %s: they appear as leader or replica, but how they applied each change is unknown", f.list(noLogs, noLogsN)), nil)
	}

	// Producer-side gaps.
	for _, p := range f.producerList() {
		name := f.producerName(p)
		if !p.hasCfg && p.agg != nil {
			f.capability("producer "+name, fmt.Sprintf("producer %s logged %s but no \"ProducerConfig values:\" block: its retries, acks and idempotence are unknown, so the client-side verdicts that need them are skipped",
				name, plural(p.agg.n, "error", "errors")), nil, p.agg.refs[:min(1, len(p.agg.refs))]...)
		}
		if p.hasCfg && (p.client.Version == "" || !p.set.ver.ok) {
			missing := []string{}
			for _, k := range []string{"retries", "acks", "enable.idempotence", "delivery.timeout.ms"} {
				if _, ok := p.client.Config[k]; !ok {
					missing = append(missing, k)
				}
			}
			if len(missing) > 0 {
				f.capability("producer "+name, fmt.Sprintf("producer %s: no usable \"Kafka version\" line, so the defaults of %s (absent from its config block) are unknown",
					name, strings.Join(missing, ", ")), nil, p.client.Ref)
			}
		}
		if p.set.idemUnsure {
			f.capability("producer "+name, fmt.Sprintf("producer %s runs %s, which prints enable.idempotence=true even when it is not applied (KAFKA-13598): look for \"Instantiated an idempotent producer.\" to be sure",
				name, f.producerVersion(p)), nil, f.cfgRef(p)...)
		}
	}

	// Errors outside every broker log's time range.
	outside := 0
	for _, na := range f.a.none {
		if !f.covered(na.first) && !f.covered(na.last) {
			outside += na.n
		}
	}
	if outside > 0 && len(brokerSrc) > 0 {
		f.capability("logs", fmt.Sprintf("%s fall outside the time the broker logs cover: no election can explain them", plural(outside, "producer error", "producer errors")), map[string]any{"errors": outside})
	}
	if f.a.offsetsMax >= int32(f.cfg.OffsetsPartitions) {
		f.capability("__consumer_offsets", fmt.Sprintf("__consumer_offsets-%d appears although the configured partition count is %d: groups were mapped with the wrong count (set it to the topic's real count)",
			f.a.offsetsMax, f.cfg.OffsetsPartitions), map[string]any{"highest_partition": f.a.offsetsMax})
	}
	if f.stats.Evicted > 0 {
		f.capability("timeline", fmt.Sprintf("%d elections were finished early to bound memory: their durations may be short", f.stats.Evicted), nil)
	}
	if f.stats.Orphans > 0 {
		f.capability("timeline", fmt.Sprintf("%s could not be tied to an election (no leader epoch in or before them)", plural(int(f.stats.Orphans), "broker line", "broker lines")), nil)
	}
	if f.a.interestDropped > 0 || f.a.clientsDropped > 0 || f.a.noneDropped > 0 {
		f.capability("verdict", fmt.Sprintf("bounds reached: %d elections, %d producers, %d partitions with unexplained errors were not tracked in detail",
			f.a.interestDropped, f.a.clientsDropped, f.a.noneDropped), nil)
	}
}
