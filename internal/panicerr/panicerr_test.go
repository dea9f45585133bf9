package panicerr

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestRecover(t *testing.T) {
	run := func(f func()) (err error) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer Recover(&err)
			f()
		}()
		<-done
		return err
	}
	if err := run(func() {}); err != nil {
		t.Fatalf("no panic: got %v", err)
	}
	err := run(func() { panic(io.ErrUnexpectedEOF) })
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %T %v, want *Error", err, err)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) || err.Error() != "panic: unexpected EOF" {
		t.Errorf("got %q", err)
	}
	if !strings.Contains(string(e.Stack), "panicerr.TestRecover") {
		t.Errorf("stack does not name the worker:\n%s", e.Stack)
	}
	// A re-raised *Error keeps the first stack.
	again := run(func() { panic(e) })
	if again != e {
		t.Errorf("re-raised: got %v, want the same *Error", again)
	}
}
