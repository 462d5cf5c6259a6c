package parser

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// seedLines adds every line of the real samples as a seed.
func seedLines(f *testing.F, maxPerFile int) {
	files, _ := filepath.Glob("../testdata/samples/*.log")
	// The client libraries' own lines (logfmt, zap console, librdkafka,
	// kafkajs JSON).
	clients, _ := filepath.Glob("../testdata/clients/*.log")
	files = append(files, clients...)
	for _, name := range files {
		fh, err := os.Open(name)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		n := 0
		for sc.Scan() && n < maxPerFile {
			f.Add(append([]byte(nil), sc.Bytes()...))
			n++
		}
		fh.Close()
	}
	for _, c := range lineCases {
		f.Add([]byte(c.line))
	}
	for _, c := range goClientCases {
		for _, l := range c.lines {
			f.Add([]byte(l))
		}
	}
	for _, c := range collectorCases {
		f.Add([]byte(c.line))
	}
	for _, c := range unusedConfigCases {
		for _, l := range c.lines {
			f.Add([]byte(l))
		}
	}
}

// FuzzLine: any bytes, fed as lines, never panic, and events are sane.
func FuzzLine(f *testing.F) {
	seedLines(f, 40)
	f.Fuzz(func(t *testing.T, data []byte) {
		p := New(time.UTC)
		check := func(e *Event) {
			if e.Kind == KindNone {
				t.Fatalf("event without kind from %q", data)
			}
			if e.Kind == KindPhase && (e.Topic == "" || e.Partition < 0) {
				t.Fatalf("phase event without partition from %q: %+v", data, e)
			}
			if e.Line < 1 || e.Line > p.Stats.Lines {
				t.Fatalf("line number %d out of range", e.Line)
			}
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			p.Line(l, check)
		}
		p.Flush(check)
		if p.Stats.Records+p.Stats.NotUnderstood > p.Stats.Lines {
			t.Fatalf("counts exceed lines: %+v", p.Stats)
		}
	})
}

// FuzzHeader: layout detection on any line.
func FuzzHeader(f *testing.F) {
	seedLines(f, 5)
	f.Fuzz(func(t *testing.T, line []byte) {
		var r Record
		if ParseHeader(line, time.UTC, &r) {
			if r.Level == LevelNone || r.Layout == LayoutNone {
				t.Fatalf("header without level/layout: %q", line)
			}
			if len(r.Msg) > len(line) {
				t.Fatalf("message longer than line")
			}
		}
	})
}

// FuzzState: the struct renderings (LeaderAndIsrPartitionState(...), etc.).
func FuzzState(f *testing.F) {
	for in := range map[string]bool{
		`(LeaderAndIsrInfo:(Leader:2,ISR:2,3,LeaderEpoch:14,ControllerEpoch:27),ReplicationFactor:3),AllReplicas:2,3,1)`: true,
		`PartitionState(controllerEpoch=3, leader=0, leaderEpoch=1, isr=0,2, zkVersion=1, replicas=0,2,1, isNew=false)`:  true,
		`{"leader":-1,"leader_epoch":1,"isr":[1]}`: true,
		`LeaderAndIsr(leader=2, leaderEpoch=14, isrWithBrokerEpoch=List(BrokerState(brokerId=2, brokerEpoch=-1)), leaderRecoveryState=RECOVERED, partitionEpoch=41)`:                                                        true,
		`LeaderAndIsrPartitionState(topicName='orders', partitionIndex=3, controllerEpoch=27, leader=2, leaderEpoch=14, isr=[2, 3], zkVersion=41, replicas=[2, 3, 1], addingReplicas=[], removingReplicas=[], isNew=false)`: true,
		`isr: [1, 2, 3] -> [2, 3], leader: 1 -> 2, leaderEpoch: 13 -> 14, partitionEpoch: 40 -> 41`:                                                                                                                         true,
	} {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		st := ParseState(s)
		if st.Topic != "" && len(st.Topic) > len(s) {
			t.Fatal("topic longer than input")
		}
		d := parseDiff(s)
		_ = d
		TopicPartition(s)
	})
}

// FuzzConfigBlock: the multi-line ProducerConfig block.
func FuzzConfigBlock(f *testing.F) {
	f.Add([]byte("[2019-02-25 14:00:00,101] INFO ProducerConfig values: \n\tacks = 1\n\tretries = 0\n (org.apache.kafka.clients.producer.ProducerConfig)\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := New(time.UTC)
		for _, l := range bytes.Split(data, []byte("\n")) {
			p.Line(l, func(e *Event) {
				if e.Kind == KindProducerConfig && e.Config == nil {
					t.Fatal("config event without config")
				}
			})
		}
		p.Flush(func(*Event) {})
	})
}
