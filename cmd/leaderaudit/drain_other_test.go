//go:build !linux

package main

import (
	"io"
	"testing"
	"time"
)

// waitDrained gives the audit 200 ms to start reading: only Linux tells
// how much of a pipe is unread.
func waitDrained(t *testing.T, w io.Writer) {
	time.Sleep(200 * time.Millisecond)
}

// waitReadBytes gives the audit 500 ms to read its files: only Linux tells
// how much a process has read.
func waitReadBytes(t *testing.T, pid int, n int64) {
	time.Sleep(500 * time.Millisecond)
}
