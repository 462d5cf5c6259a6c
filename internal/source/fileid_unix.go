//go:build unix

package source

import (
	"io/fs"
	"syscall"
)

// fileID is what makes two paths one file: its device and inode (a
// symlink, a hard link, a directory reached twice).
func fileID(fi fs.FileInfo) (id [2]uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return id, false
	}
	return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
}

// fileLimit raises the soft limit on open files to the hard one (Go does
// so at start-up too, since 1.19) and returns it: the open-file slots are
// sized from it, so `ulimit -n 256` drops no file.
func fileLimit() int {
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) != nil {
		return 0
	}
	if rl.Cur < rl.Max {
		want := rl
		want.Cur = rl.Max
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want) == nil {
			rl = want
		}
	}
	if rl.Cur > 1<<20 {
		return 1 << 20
	}
	return int(rl.Cur)
}
