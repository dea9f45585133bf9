//go:build !linux

package atomicfile

import (
	"errors"
	"syscall"
)

// reserveHere tells whether reserving space ahead pays in the folder
// dir: only Linux's ext4 was measured (reserve_linux.go).
func reserveHere(dir string) bool { return false }

// reserve is not done here.
func reserve(f syscall.Conn, off, n int64) error { return errors.ErrUnsupported }
