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

// buffersOut is an output that takes several slices at once and counts
// its calls.
type buffersOut struct {
	bytes.Buffer
	calls int
}

func (b *buffersOut) WriteBuffers(bufs [][]byte) (int, error) {
	b.calls++
	n := 0
	for _, p := range bufs {
		k, _ := b.Write(p)
		n += k
	}
	return n, nil
}

// TestDirectWriterBuffers: a large rendering goes to an output that takes
// several slices in one call, after what the buffer holds; a small one
// goes through the buffer; the bytes and their order are the same.
func TestDirectWriterBuffers(t *testing.T) {
	var out buffersOut
	var want bytes.Buffer
	buf := bufio.NewWriterSize(&out, 256<<10)
	w := &directWriter{buf: buf, w: &out}
	write := func(bufs ...[]byte) {
		t.Helper()
		size := 0
		for _, p := range bufs {
			want.Write(p)
			size += len(p)
		}
		if n, err := w.WriteBuffers(bufs); n != size || err != nil {
			t.Fatalf("WriteBuffers: %d, %v; want %d", n, err, size)
		}
	}
	w.Write([]byte("small"))
	want.WriteString("small")
	write([]byte("a"), []byte("bc"))
	if out.calls != 0 || buf.Buffered() != 8 {
		t.Fatalf("a small rendering: %d calls, %d bytes buffered; want 0 and 8", out.calls, buf.Buffered())
	}
	write(bytes.Repeat([]byte("x"), directBytes/2), bytes.Repeat([]byte("y"), directBytes/2), []byte("z"))
	if out.calls != 1 || buf.Buffered() != 0 {
		t.Fatalf("a large rendering: %d calls, %d bytes buffered; want 1 and 0", out.calls, buf.Buffered())
	}
	if err := buf.Flush(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want.Bytes()) {
		t.Error("the output differs from what was written")
	}
}
