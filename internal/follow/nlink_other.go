//go:build !unix

package follow

import "os"

// linkCount is unknown on this platform: deletion cannot be told from a
// rename.
func linkCount(fi os.FileInfo) (uint64, bool) { return 0, false }

// fileKey: no inode numbers here; files are compared with os.SameFile one
// by one instead.
type fileKey struct{}

// fileID is a file's identity: its os.FileInfo, which os.SameFile
// compares; the zero value is no file.
type fileID struct{ fi os.FileInfo }

func idOf(fi os.FileInfo) fileID { return fileID{fi} }

func (a fileID) none() bool { return a.fi == nil }

func (a fileID) same(b fileID) bool { return a.fi != nil && b.fi != nil && os.SameFile(a.fi, b.fi) }

func (a fileID) key() (fileKey, bool) { return fileKey{}, false }
