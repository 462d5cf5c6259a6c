package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := run([]string{"--era", "kraft", "--brokers", "3", "--partitions", "4", "--topics", "2", "--seed", "9",
		"--size", "2MB", "--noise", "5", "--start", "2024-03-11T10:00:00", "--tz", "Europe/Berlin", "--out", dir}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "elections") {
		t.Errorf("summary: %q", out.String())
	}
	for _, f := range []string{"truth.jsonl", "broker-1/state-change.log", "broker-3/server.log", "controller-3000/controller.log", "producer-1/app.log"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	// Berlin is UTC+1 in March (before the switch): the truth carries the offset
	data, _ := os.ReadFile(filepath.Join(dir, "truth.jsonl"))
	if !bytes.Contains(data, []byte("+01:00\"")) {
		t.Errorf("truth has no +01:00 times: %.200s", data)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "broker-1/server.log"))
	if !bytes.HasPrefix(log, []byte("[2024-03-11 10:00:")) {
		t.Errorf("server.log does not start at the wall-clock start time: %.60s", log)
	}
}

func TestRunErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--out", t.TempDir(), "--era", "0.9"},
		{"--out", t.TempDir(), "--size", "lots"},
		{"--out", t.TempDir(), "--tz", "Mars/Olympus"},
		{"--out", t.TempDir(), "--brokers", "1"},
		{"--out", t.TempDir(), "extra"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code == 0 {
			t.Errorf("%v: exit 0", args)
		} else if errb.Len() == 0 {
			t.Errorf("%v: no message", args)
		}
	}
}
