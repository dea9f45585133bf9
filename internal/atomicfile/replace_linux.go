package atomicfile

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// replace puts tmp, a complete file, at path. When a regular file is at
// path already, the two names are exchanged in one step (renameat2 with
// RENAME_EXCHANGE: as atomic as a rename, path names the old file or the
// new one and never neither) and tmp, which then names the old file, is
// removed. A rename over an existing file makes ext4 start writing the
// new file's data back before the rename returns (its auto_da_alloc, for
// programs that rewrite files without fsync): 63-72 ms for the 173 MB of
// net.4.5.2's JSON dump on the measuring host of docs/performance.md
// (session 30), against 0.2-0.7 ms for the exchange; the old file's
// removal then costs what it costs in the rename (its pages and blocks
// freed). Where the names cannot be
// exchanged (a file system without it, path gone meanwhile), tmp is
// renamed.
func replace(tmp, path string) error {
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
		return os.Rename(tmp, path)
	}
	if err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE); err != nil {
		return os.Rename(tmp, path)
	}
	// Unlink, not os.Remove: a folder put at path after the Lstat is not
	// removed. It is put back, and the commit fails as a rename over it
	// would (Commit then removes tmp, the new file again).
	if err := unix.Unlink(tmp); err != nil {
		if xerr := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE); xerr != nil {
			return fmt.Errorf("%s is in place, and what it replaced is left at %s: %w", path, tmp, err)
		}
		return &os.LinkError{Op: "rename", Old: tmp, New: path, Err: err}
	}
	return nil
}
