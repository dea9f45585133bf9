package atomicfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteBuffers: slices written in one call, more of them than one
// writev takes, empty ones among them, and mixed with Write, reach the
// file in order, and the file's offset follows.
func TestWriteBuffers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.bin")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	var want bytes.Buffer
	f.Write([]byte("head"))
	want.WriteString("head")
	var bufs [][]byte
	for i := range maxIovecs + 300 {
		p := bytes.Repeat([]byte{byte(i)}, i%7*100)
		bufs = append(bufs, p)
		want.Write(p)
	}
	n, err := f.WriteBuffers(bufs)
	if err != nil || n != want.Len()-4 {
		t.Fatalf("WriteBuffers: %d, %v; want %d bytes", n, err, want.Len()-4)
	}
	if n, err := f.WriteBuffers([][]byte{nil, {}, nil}); n != 0 || err != nil {
		t.Fatalf("WriteBuffers of empty slices: %d, %v", n, err)
	}
	f.Write([]byte("tail"))
	want.WriteString("tail")
	if f.off != int64(want.Len()) {
		t.Errorf("offset %d after %d bytes", f.off, want.Len())
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("the file holds %d bytes (%v), want the %d written in order", len(got), err, want.Len())
	}
}

// TestAdvance: a partial write's count drops whole slices and the start
// of the next one.
func TestAdvance(t *testing.T) {
	bufs := [][]byte{[]byte("ab"), []byte("cde"), nil, []byte("fg")}
	for n, want := range []string{"abcdefg", "bcdefg", "cdefg", "defg", "efg", "fg", "g", ""} {
		var got []byte
		for _, p := range advance(append([][]byte(nil), bufs...), n) {
			got = append(got, p...)
		}
		if string(got) != want {
			t.Errorf("advance %d: %q, want %q", n, got, want)
		}
	}
}
