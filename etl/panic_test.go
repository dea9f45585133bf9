package etl

import (
	"bytes"
	"errors"
	"os"
	"sync/atomic"
	"testing"

	"github.com/etwkit/etw/internal/panicerr"
)

// panicReaderAt panics on every read once armed.
type panicReaderAt struct {
	r     *bytes.Reader
	armed atomic.Bool
}

func (p *panicReaderAt) ReadAt(b []byte, off int64) (int, error) {
	if p.armed.Load() {
		panic("injected read panic")
	}
	return p.r.ReadAt(b, off)
}

// mustPanicErr runs f and returns the *panicerr.Error it panics with on
// the calling goroutine (a panic on a worker would end the test binary).
func mustPanicErr(t *testing.T, f func()) (pe *panicerr.Error) {
	t.Helper()
	defer func() {
		r := recover()
		err, _ := r.(error)
		if !errors.As(err, &pe) {
			t.Fatalf("recovered %T %v, want a *panicerr.Error", r, r)
		}
	}()
	f()
	return nil
}

func armedFile(t *testing.T) (*File, *panicReaderAt) {
	t.Helper()
	data, err := os.ReadFile("../testdata/etl/compressed.etl")
	if err != nil {
		t.Fatal(err)
	}
	ra := &panicReaderAt{r: bytes.NewReader(data)}
	f, err := NewFile(ra, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Buffers()) == 0 {
		t.Fatal("no buffers")
	}
	ra.armed.Store(true)
	return f, ra
}

// A panic while a worker loads a buffer reaches the caller's goroutine.
func TestWorkerPanicReachesCaller(t *testing.T) {
	f, _ := armedFile(t)
	pe := mustPanicErr(t, func() {
		r := NewReader([]*File{f}, nil)
		for r.Next() {
		}
	})
	if pe.Value != "injected read panic" || !bytes.Contains(pe.Stack, []byte("panicReaderAt")) {
		t.Errorf("got %v with stack\n%s", pe.Value, pe.Stack)
	}
	f, _ = armedFile(t)
	pe = mustPanicErr(t, func() { f.Scan() })
	if pe.Value != "injected read panic" {
		t.Errorf("Scan: got %v", pe.Value)
	}
}
