package verdict_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leaderaudit/leaderaudit/internal/report"
	"github.com/leaderaudit/leaderaudit/internal/source"
	"github.com/leaderaudit/leaderaudit/internal/verdict"
	"github.com/leaderaudit/leaderaudit/parser"
	"github.com/leaderaudit/leaderaudit/timeline"
)

type auditResult struct {
	findings []verdict.Finding
	col      *report.Collector
	tl       *timeline.Timeline
}

// auditDir runs what "leaderaudit audit --tz UTC DIR" runs (discovery, the
// merged reader, the timeline with default settings) and the analyzer
// beside the report collector, then Finish with the sources' facts.
func auditDir(t *testing.T, cfg verdict.Config, dir string) auditResult {
	t.Helper()
	ins, skipped := source.Discover([]string{dir}, 0)
	if len(skipped) > 0 {
		t.Fatalf("skipped: %v", skipped)
	}
	rd := source.NewReader(ins, func(string) *time.Location { return time.UTC })
	col := report.NewCollector(report.Options{Loc: time.UTC})
	an := verdict.New(cfg)
	tl := timeline.New(timeline.Config{}, verdict.Tee(col, an))
	var n int64
	rd.Run(context.Background(), func(src int, ev *parser.Event) {
		tl.Add(src, ev)
		n++
		if n&1023 == 0 {
			tl.Advance(ev.Time)
		}
	})
	tl.Close()
	var facts []verdict.SourceFacts
	for _, s := range rd.Sources {
		if s.Binary {
			continue
		}
		facts = append(facts, verdict.Facts(s, source.Kind(s), source.EraName(&s.Stats)))
	}
	path := func(src int) string {
		p := rd.Sources[src].Path
		if rel, err := filepath.Rel(dir, p); err == nil {
			return filepath.ToSlash(rel)
		}
		return p
	}
	fs := an.Finish(tl, path, facts)
	for _, f := range fs {
		b, err := json.Marshal(f.Record())
		if err != nil || !strings.HasPrefix(string(b), `{"type":"finding","code":`) {
			t.Errorf("JSON of %s: %v %.80s", f.Code, err, b)
		}
		if f.Message == "" || f.Severity == "" || f.Subject == "" || f.Evidence == nil {
			t.Errorf("incomplete finding %+v", f)
		}
	}
	return auditResult{findings: fs, col: col, tl: tl}
}

func (r auditResult) codes() []string {
	var out []string
	for _, f := range r.findings {
		out = append(out, f.Code+"/"+f.Severity)
	}
	return out
}

// one returns the only finding with code (and subject, if given).
func (r auditResult) one(t *testing.T, code, subject string) verdict.Finding {
	t.Helper()
	var got []verdict.Finding
	for _, f := range r.findings {
		if f.Code == code && (subject == "" || f.Subject == subject) {
			got = append(got, f)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%d %s findings (subject %q), want 1; all: %v\n%s", len(got), code, subject, r.codes(), strings.Join(verdict.Lines(r.findings), "\n"))
	}
	return got[0]
}

func (r auditResult) none(t *testing.T, codes ...string) {
	t.Helper()
	for _, f := range r.findings {
		for _, c := range codes {
			if f.Code == c {
				t.Errorf("unexpected %s (%s): %s", f.Code, f.Severity, f.Message)
			}
		}
	}
}

func hasEvidence(t *testing.T, f verdict.Finding, file string, line int64) {
	t.Helper()
	for _, e := range f.Evidence {
		if e.File == file && e.Line == line {
			return
		}
	}
	t.Errorf("%s: no evidence %s:%d among %v", f.Code, file, line, f.Evidence)
}

func contains(t *testing.T, f verdict.Finding, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(f.Message, p) {
			t.Errorf("%s message lacks %q:\n%s", f.Code, p, f.Message)
		}
	}
}

// Case 1: a 0.10.2 producer with retries=0 crashes on the NOT_LEADER of a
// 21 ms preferred-replica election.
func TestIncidentCase1NoRetries(t *testing.T) {
	r := auditDir(t, verdict.Config{}, "../../testdata/incidents/case1-0.10.2-no-retries")
	for _, l := range verdict.Lines(r.findings) {
		t.Log(l)
	}
	const subj = "producer (no client.id) in producer.log"
	rb := r.one(t, verdict.CodeRetryBudget, subj)
	if rb.Severity != verdict.Critical {
		t.Errorf("severity %s", rb.Severity)
	}
	// Broker 3 stopped leading at 07.111 (its become-follower), broker 2 led from 07.113 (completed).
	contains(t, rb, "budget 0 ms (retries=0), producers saw NOT_LEADER for 2 ms", "Kafka 0.10.2.1", "NOT_LEADER_FOR_PARTITION", "orders-1 epoch 7")
	if rb.Data["budget_ms"] != int64(0) || rb.Data["election_ms"] != int64(2) || rb.Data["failures"] != 1 {
		t.Errorf("data %v", rb.Data)
	}
	hasEvidence(t, rb, "app/producer.log", 56)         // the ErrorLoggingCallback line
	hasEvidence(t, rb, "app/producer.log", 1)          // ProducerConfig values: (retries = 0)
	hasEvidence(t, rb, "broker-1/state-change.log", 1) // the controller's decision
	if !strings.Contains(rb.Remedy, "max.in.flight.requests.per.connection=1") {
		t.Errorf("remedy %q", rb.Remedy)
	}

	nr := r.one(t, verdict.CodeNoRetries, subj)
	contains(t, nr, "retries=0", "1 leader-related error (1 final)")
	if nr.Severity != verdict.Warning {
		t.Errorf("no-retries severity %s", nr.Severity)
	}
	// acks=1 (the 0.10.2 default, in the dump) and a clean preferred election.
	lr := r.one(t, verdict.CodeLossRiskAcks, subj)
	if lr.Severity != verdict.Warning {
		t.Errorf("loss-risk severity %s: %s", lr.Severity, lr.Message)
	}
	contains(t, lr, "acks=1", "orders-1 epoch 7 3→2", "preferred election")
	r.none(t, verdict.CodeReordering, verdict.CodeStaleMetadata, verdict.CodeNotAReplica, verdict.CodeUnclean,
		verdict.CodeFlapping, verdict.CodeUnstableBroker, verdict.CodeSlowElection, verdict.CodeOfflineWindow, verdict.CodeControllerChurn)
}

// Case 2: a Spring producer (acks=all, idempotence, retries=10) keeps
// logging NOT_LEADER_OR_FOLLOWER retries. Of the candidate causes the logs
// prove one: broker 3 is fenced over and over (session timeouts) and the
// preferred-leader balancer moves orders-2 back each time: leader flapping.
// The client is configured right and its metadata keeps up.
func TestIncidentCase2SpringRetries(t *testing.T) {
	r := auditDir(t, verdict.Config{}, "../../testdata/incidents/case2-spring-idempotent-retries")
	for _, l := range verdict.Lines(r.findings) {
		t.Log(l)
	}
	ub := r.one(t, verdict.CodeUnstableBroker, "broker 3")
	if ub.Severity != verdict.Critical {
		t.Errorf("unstable-broker severity %s", ub.Severity)
	}
	contains(t, ub, "broker 3 failed 3 times (3 hard failures)", "09:00:12.101", "back after 21.4 s", "1 leadership moved")
	hasEvidence(t, ub, "broker-1/controller.log", 2) // Fencing broker 3 because its session has timed out.
	if ub.Data["leaderships_moved"] != 3 {
		t.Errorf("data %v", ub.Data)
	}
	fl := r.one(t, verdict.CodeFlapping, "orders-2")
	contains(t, fl, "1 partition changed leader at least 4 times within 15 min", "orders-2: 6 changes in 13 min 28 s",
		"3→1 09:00:12.102 broker fenced", "1→3 09:03:40.512 preferred election", "every change involves broker 3")
	if fl.Severity != verdict.Warning {
		t.Errorf("flapping severity %s", fl.Severity)
	}
	// Not the client: no budget problem, retries > 0, idempotent, acks=all,
	// every error during an election, all partitions explained.
	r.none(t, verdict.CodeRetryBudget, verdict.CodeNoRetries, verdict.CodeReordering, verdict.CodeLossRiskAcks,
		verdict.CodeStaleMetadata, verdict.CodeNotAReplica, verdict.CodeUnclean, verdict.CodeSlowElection,
		verdict.CodeOfflineWindow, verdict.CodeControllerChurn, verdict.CodeCoordinatorMoved)
}

// Case 3: under load a producer with acks=1 lost records while broker 2's
// ZooKeeper sessions were expiring, and the consumer group coordinated on
// broker 2 kept losing its coordinator and rebalancing.
func TestIncidentCase3Acks1ZKExpiry(t *testing.T) {
	r := auditDir(t, verdict.Config{}, "../../testdata/incidents/case3-acks1-zk-expiry")
	for _, l := range verdict.Lines(r.findings) {
		t.Log(l)
	}
	// The loss: acks=1 and the leader of events-0 moved off broker 2
	// twice after its ZooKeeper session expired.
	lr := r.one(t, verdict.CodeLossRiskAcks, "producer ingest-1")
	if lr.Severity != verdict.Critical {
		t.Errorf("loss-risk-acks severity %s", lr.Severity)
	}
	contains(t, lr, "acks=1", "Kafka 2.8.0", "changed 3 times", "events-0 epoch 10 2→3 at 10:41:02.237",
		"broker 2 was removed by the controller (broker failure), lost its ZooKeeper session", "events-0 epoch 8 ?→3",
		"2 changes followed a hard failure", "broker 2 truncated its log to offset 48210 at 10:15:25.385",
		"after 2 changes a replica cut records from its log")
	hasEvidence(t, lr, "app/ingest.log", 1)       // acks = 1
	hasEvidence(t, lr, "broker-2/server.log", 10) // Truncating to offset 48210
	if lr.Data["hard_changes"] != 2 || lr.Data["truncated_after"] != 2 || lr.Data["acks"] != "1" {
		t.Errorf("data %v", lr.Data)
	}
	// The cluster side: broker 2 keeps losing its ZooKeeper session.
	ub := r.one(t, verdict.CodeUnstableBroker, "broker 2")
	if ub.Severity != verdict.Critical {
		t.Errorf("unstable-broker severity %s", ub.Severity)
	}
	contains(t, ub, "broker 2 failed 2 times (2 hard failures)", "10:15:20.409 was removed by the controller (broker failure), lost its ZooKeeper session, back after 4.6 s",
		"10:41:02.215", "back after 5.3 s", "caught up in 76 ms", "2 leaderships moved (2 more epoch bumps)")
	hasEvidence(t, ub, "broker-2/server.log", 1)     // [ZooKeeperClient Kafka server] Session expired.
	hasEvidence(t, ub, "broker-1/controller.log", 1) // deleted brokers: 2
	// The old leader only heard of the change when it came back: its
	// catch-up is the unstable broker's, the partition had a leader again
	// in ~20 ms (no slow election).
	r.none(t, verdict.CodeSlowElection)
	// The consumers: group billing lives on __consumer_offsets-9, which moved with broker 2.
	cm := r.one(t, verdict.CodeCoordinatorMoved, "group billing")
	if cm.Severity != verdict.Warning {
		t.Errorf("coordinator-moved severity %s", cm.Severity)
	}
	contains(t, cm, "__consumer_offsets-9 (abs(hash) % 50), whose leader changed 3 times", "coordinator lost 3", "coordinator rediscovered 3",
		"partitions revoked 2", "found the new coordinator on broker 3")
	hasEvidence(t, cm, "app/billing-consumer.log", 6) // Group coordinator kafka-2:9092 ... is unavailable or invalid
	// And the producer's retries without idempotence can reorder.
	r.one(t, verdict.CodeReordering, "producer ingest-1")
	r.none(t, verdict.CodeRetryBudget, verdict.CodeNoRetries, verdict.CodeStaleMetadata, verdict.CodeNotAReplica,
		verdict.CodeUnclean, verdict.CodeFlapping, verdict.CodeOfflineWindow, verdict.CodeControllerChurn)
}

// Case 5: a misspelled "retries " leaves a 1.1.1 producer at retries=0;
// another rides out the same 338 ms election with no retry to spare.
func TestIncidentCase5MisspelledRetries(t *testing.T) {
	r := auditDir(t, verdict.Config{}, "../../testdata/incidents/case5-1.1-misspelled-retries")
	for _, l := range verdict.Lines(r.findings) {
		t.Log(l)
	}
	ms := r.one(t, verdict.CodeMisspelledConfig, "producer checkout")
	if ms.Severity != verdict.Warning {
		t.Errorf("misspelled-config severity %s", ms.Severity)
	}
	contains(t, ms, "'retries '", "(a trailing space)", "the setting is retries", "ran with retries=0 (the default before 2.1",
		"any leader change fails its in-flight sends at once", "1 send failed for good")
	hasEvidence(t, ms, "app/checkout.log", 56) // The configuration 'retries ' was supplied but isn't a known config.
	hasEvidence(t, ms, "app/checkout.log", 1)  // ProducerConfig values: (retries = 0)
	if ms.Data["setting"] != "retries" || ms.Data["key"] != "retries " || ms.Data["value"] != "0" {
		t.Errorf("data %v", ms.Data)
	}
	r.one(t, verdict.CodeRetryBudget, "producer checkout")
	r.one(t, verdict.CodeNoRetries, "producer checkout")

	rm := r.one(t, verdict.CodeRetryMargin, "producer ledger")
	if rm.Severity != verdict.Warning {
		t.Errorf("retry-margin severity %s", rm.Severity)
	}
	contains(t, rm, "payments-1 epoch 7 (NOT_LEADER for 322 ms from 03:00:07.104)", "3 of its 3 retries (100%)", "0 attempts left",
		"retries=7 at retry.backoff.ms=100")
	// Retrying from 07.116 to 07.325 is 209 ms of the 3 × 100 ms budget;
	// 2 × 322 ms (old leader stopping → new leader ready) needs 7 back-offs of 100 ms.
	if rm.Data["retries_used"] != int64(3) || rm.Data["retrying_ms"] != int64(209) || rm.Data["budget_ms"] != int64(300) ||
		rm.Data["suggested_retries"] != int64(7) || rm.Data["longest_election_ms"] != int64(322) || rm.Data["used_percent"] != 100 {
		t.Errorf("data %v", rm.Data)
	}
	hasEvidence(t, rm, "app/ledger.log", 61) // retrying (0 attempts left)
	hasEvidence(t, rm, "app/ledger.log", 59) // the first retry

	uc := r.one(t, verdict.CodeUnknownConfig, "producer ledger")
	if uc.Severity != verdict.Info {
		t.Errorf("unknown-config severity %s", uc.Severity)
	}
	contains(t, uc, "'schema.registry.url'")
	r.none(t, verdict.CodeStaleMetadata, verdict.CodeNotAReplica, verdict.CodeUnclean, verdict.CodeFlapping, verdict.CodeOfflineWindow)
	for _, f := range r.findings {
		if f.Code == verdict.CodeRetryMargin && f.Subject != "producer ledger" {
			t.Errorf("retry-margin for %s: %s", f.Subject, f.Message)
		}
	}
}
