//go:build !unix

package follow

import "os"

// linkCount is unknown on this platform: deletion cannot be told from a
// rename.
func linkCount(fi os.FileInfo) (uint64, bool) { return 0, false }
