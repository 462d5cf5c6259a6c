//go:build unix

package follow

import (
	"os"
	"syscall"
)

// linkCount returns the number of names fi's file has; 0 means it was
// deleted and lives on only through open descriptors.
func linkCount(fi os.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Nlink), true
}

// fileKey is what os.SameFile compares here: device and inode.
type fileKey struct{ dev, ino uint64 }

// fileID is a file's identity, what os.SameFile compares, kept in 16
// bytes instead of an os.FileInfo (a 200-byte stat buffer on the heap)
// for each of thousands of followed files; the zero value is no file.
type fileID struct{ k fileKey }

func idOf(fi os.FileInfo) fileID {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}
	}
	return fileID{fileKey{uint64(st.Dev), uint64(st.Ino)}}
}

func (a fileID) none() bool { return a.k == fileKey{} }

// same reports whether a and b are one file (neither is none).
func (a fileID) same(b fileID) bool { return !a.none() && a.k == b.k }

// key is a's map key, when the platform has one.
func (a fileID) key() (fileKey, bool) { return a.k, !a.none() }
