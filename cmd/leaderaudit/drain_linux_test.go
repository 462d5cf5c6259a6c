package main

import (
	"io"
	"os"
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
