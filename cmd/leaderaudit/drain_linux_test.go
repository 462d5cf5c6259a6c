package main

import (
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// waitDrained waits until the reader of pipe w has read everything written
// to it (FIONREAD on the write end; the FIFO's open already waited for its
// reader), or 200 ms where the pipe cannot tell.
func waitDrained(t *testing.T, w io.Writer) {
	t.Helper()
	f, ok := w.(*os.File)
	if !ok {
		time.Sleep(200 * time.Millisecond)
		return
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		var n int32
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); errno != 0 {
			time.Sleep(200 * time.Millisecond)
			return
		}
		if n == 0 {
			return
		}
	}
	t.Fatal("the audit never read its input")
}

// waitReadBytes waits until process pid has read at least n bytes (rchar
// in /proc/PID/io counts every read, the runtime's own ~9 KB at start
// included) and then nothing more for a second, so that a signal sent next
// finds the named files read, not waiting to be opened: on a loaded machine
// a race-built audit can take seconds to open its files.
func waitReadBytes(t *testing.T, pid int, n int64) {
	t.Helper()
	last, since := int64(-1), time.Now()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/io")
		if err != nil {
			time.Sleep(time.Second)
			return
		}
		var got int64
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "rchar: "); ok {
				got, _ = strconv.ParseInt(v, 10, 64)
			}
		}
		if got != last {
			last, since = got, time.Now()
		} else if got >= n && time.Since(since) >= time.Second {
			return
		}
	}
	t.Fatalf("the audit never read its %d bytes of input and went quiet", n)
}
