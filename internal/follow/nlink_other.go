//go:build !unix

package follow

import "os"

// linkCount is unknown on this platform: deletion cannot be told from a
// rename.
func linkCount(fi os.FileInfo) (uint64, bool) { return 0, false }

// fileKey: no inode numbers here; files are compared with os.SameFile one
// by one instead.
type fileKey struct{}

func keyOf(os.FileInfo) (fileKey, bool) { return fileKey{}, false }
