package driver

import (
	"bufio"
	"bytes"
	"errors"
	"testing"
)

// TestDirectWriter checks that writes large and small, in any mix, reach
// the output in order, the large ones without the buffer's copy.
func TestDirectWriter(t *testing.T) {
	var out, want bytes.Buffer
	buf := bufio.NewWriterSize(&out, 256<<10)
	w := &directWriter{buf: buf, w: &out}
	sizes := []int{10, directBytes, 3, 300 << 10, directBytes - 1, 1, directBytes + 7, 5}
	for i, n := range sizes {
		p := bytes.Repeat([]byte{byte('a' + i)}, n)
		want.Write(p)
		if k, err := w.Write(p); k != n || err != nil {
			t.Fatalf("write %d: %d, %v", n, k, err)
		}
		if n >= directBytes && buf.Buffered() != 0 {
			t.Fatalf("after a write of %d bytes the buffer holds %d", n, buf.Buffered())
		}
	}
	if buf.Buffered() != 5 {
		t.Errorf("buffered %d bytes, want the last small write's 5", buf.Buffered())
	}
	if err := buf.Flush(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want.Bytes()) {
		t.Fatal("output differs from the writes in order")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestDirectWriterError checks that the buffer's failure to flush stops a
// large write.
func TestDirectWriterError(t *testing.T) {
	buf := bufio.NewWriterSize(failWriter{}, 1024)
	w := &directWriter{buf: buf, w: failWriter{}}
	if _, err := w.Write([]byte("small")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, directBytes)); err == nil {
		t.Fatal("no error from a large write after a failed flush")
	}
}
