package readerat

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// short is a reader that says it holds more than it does.
type short struct{ b []byte }

func (s short) ReadAt(p []byte, off int64) (int, error) { return bytes.NewReader(s.b).ReadAt(p, off) }

func TestRead(t *testing.T) {
	r := bytes.NewReader([]byte("hello"))
	if b, err := Read(r, 5, 1, 3); err != nil || string(b) != "ell" {
		t.Errorf("Read = %q, %v", b, err)
	}
	for _, c := range []struct {
		off int64
		n   int
	}{{-1, 1}, {6, 0}, {4, 2}, {0, -1}} {
		if _, err := Read(r, 5, c.off, c.n); err != ErrRange {
			t.Errorf("Read(%d, %d): %v; want ErrRange", c.off, c.n, err)
		}
	}
	if _, err := Read(short{[]byte("ab")}, 10, 0, 4); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short read: %v", err)
	}
}

func TestOpen(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	size, fh, err := Open(p, func(r io.ReaderAt, n int64) (int64, error) { return n, nil })
	if err != nil || size != 3 {
		t.Fatalf("Open = %d, %v", size, err)
	}
	fh.Close()
	bad := errors.New("bad")
	if _, _, err := Open(p, func(io.ReaderAt, int64) (int, error) { return 0, bad }); !errors.Is(err, bad) || err.Error() != p+": bad" {
		t.Errorf("Open error %v", err)
	}
}
