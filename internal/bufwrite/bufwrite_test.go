package bufwrite

import (
	"bytes"
	"errors"
	"testing"
)

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestClose(t *testing.T) {
	var out bytes.Buffer
	closed := 0
	w := New(&out, 16, func() error { closed++; return nil })
	if _, err := w.Write([]byte("page")); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Fatalf("written before Close: %q", out.String())
	}
	if err := w.Close(); err != nil || out.String() != "page" || closed != 1 {
		t.Fatalf("Close: %v, wrote %q, closed %d times", err, out.String(), closed)
	}

	// Without a close function Close only flushes.
	out.Reset()
	w = New(&out, 16, nil)
	w.WriteString("rest")
	if err := w.Close(); err != nil || out.String() != "rest" {
		t.Fatalf("Close without close: %v, wrote %q", err, out.String())
	}

	// The flush's error comes first; the close still runs.
	closeErr := errors.New("close failed")
	w = New(failWriter{}, 16, func() error { closed++; return closeErr })
	w.WriteString("x")
	if err := w.Close(); err == nil || errors.Is(err, closeErr) || closed != 2 {
		t.Fatalf("Close after a failed flush: %v, closed %d times", err, closed)
	}
	w = New(&out, 16, func() error { return closeErr })
	if err := w.Close(); !errors.Is(err, closeErr) {
		t.Fatalf("Close: %v, want the close's error", err)
	}
}
