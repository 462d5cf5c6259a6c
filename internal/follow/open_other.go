//go:build !windows

package follow

import "os"

// openFile opens path read-only.
func openFile(path string) (*os.File, error) { return os.Open(path) }
