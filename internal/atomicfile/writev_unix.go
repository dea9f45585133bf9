//go:build darwin || linux || openbsd

package atomicfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// writeBuffers writes bufs to f in order with writev(2), through f's
// SyscallConn (Fd would make the file blocking), until all is written or
// a call fails, and returns the bytes written.
func writeBuffers(f *os.File, bufs [][]byte) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	total := 0
	for {
		// Empty slices first would make a call write nothing.
		if bufs = advance(bufs, 0); len(bufs) == 0 {
			return total, nil
		}
		var n int
		var werr error
		cerr := rc.Write(func(fd uintptr) bool {
			n, werr = unix.Writev(int(fd), bufs[:min(len(bufs), maxIovecs)])
			return werr != unix.EAGAIN
		})
		if werr == unix.EINTR {
			continue
		}
		if werr == nil {
			werr = cerr
		}
		if n > 0 {
			total += n
			bufs = advance(bufs, n)
		}
		if werr != nil {
			return total, &os.PathError{Op: "write", Path: f.Name(), Err: werr}
		}
		if n == 0 {
			return total, &os.PathError{Op: "write", Path: f.Name(), Err: unix.EIO}
		}
	}
}
