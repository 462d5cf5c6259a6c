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
