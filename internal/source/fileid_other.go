//go:build !unix

package source

import "io/fs"

// fileID: no inodes here; paths are compared instead (Discover's fallback).
func fileID(fs.FileInfo) (id [2]uint64, ok bool) { return id, false }
