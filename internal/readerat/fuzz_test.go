package readerat

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzRead: offsets, lengths and sizes come from untrusted files (a PDB's
// stream directory, a PE's data directories). Read never panics, never
// allocates for a range outside the input, and returns exactly the bytes
// asked for or an error.
func FuzzRead(f *testing.F) {
	f.Add([]byte("hello, world"), int64(12), int64(3), 4)
	f.Add([]byte{}, int64(0), int64(0), 0)
	f.Add([]byte("abc"), int64(1<<40), int64(1<<40-1), 1<<30)
	f.Add([]byte("abc"), int64(3), int64(-1), 2)
	f.Add([]byte("abc"), int64(9), int64(2), 5) // a size that claims more than there is
	f.Fuzz(func(t *testing.T, data []byte, size, off int64, n int) {
		b, err := Read(bytes.NewReader(data), size, off, n)
		inside := off >= 0 && n >= 0 && off <= size && int64(n) <= size-off
		switch {
		case !inside:
			if !errors.Is(err, ErrRange) || b != nil {
				t.Fatalf("Read(size %d, off %d, n %d) outside: %d bytes, %v", size, off, n, len(b), err)
			}
		case err == nil && n == 0:
			if b == nil || len(b) != 0 {
				t.Fatalf("Read of 0 bytes at %d: %v", off, b)
			}
		case err == nil:
			if len(b) != n || int64(len(data)) < off+int64(n) || !bytes.Equal(b, data[off:off+int64(n)]) {
				t.Fatalf("Read(size %d, off %d, n %d) = %d bytes not the input's", size, off, n, len(b))
			}
		case int64(len(data)) >= off+int64(n):
			t.Fatalf("Read(size %d, off %d, n %d) of %d bytes: %v", size, off, n, len(data), err)
		}
	})
}
