package atomicfile

import "syscall"

// ext4Magic is ext4's (and ext2's and ext3's) statfs f_type.
const ext4Magic = 0xEF53

// reserveHere tells whether reserving space ahead pays in the folder
// dir: on ext4 (reserver).
func reserveHere(dir string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return false
	}
	return st.Type == ext4Magic
}

// reserve allocates n bytes of f's space from off without changing its
// size (fallocate with FALLOC_FL_KEEP_SIZE), through f's SyscallConn
// (Fd would make the file blocking).
func reserve(f syscall.Conn, off, n int64) error {
	const keepSize = 1 // FALLOC_FL_KEEP_SIZE
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	cerr := rc.Control(func(fd uintptr) {
		for {
			err = syscall.Fallocate(int(fd), keepSize, off, n)
			if err != syscall.EINTR {
				return
			}
		}
	})
	if cerr != nil {
		return cerr
	}
	return err
}
