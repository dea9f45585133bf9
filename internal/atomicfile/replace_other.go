//go:build !linux

package atomicfile

import "os"

// replace puts tmp, a complete file, at path (replace_linux.go exchanges
// the names where that is cheaper).
func replace(tmp, path string) error { return os.Rename(tmp, path) }
