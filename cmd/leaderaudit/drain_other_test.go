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
