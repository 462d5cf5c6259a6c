//go:build !unix

package unpriv

import "syscall"

// Elsewhere never gets here off unix: only root is switched away from.
func credential(uid, gid uint32) *syscall.SysProcAttr { return nil }
