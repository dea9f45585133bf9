//go:build !(darwin || linux || openbsd)

package atomicfile

import "os"

// writeBuffers writes bufs to f in order, one at a time, and returns the
// bytes written.
func writeBuffers(f *os.File, bufs [][]byte) (int, error) {
	total := 0
	for _, p := range bufs {
		n, err := f.Write(p)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}
