package parquetout

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/internal/panicerr"
	"github.com/etwkit/etw/pipeline"
)

// A panic on an encoder goroutine (converting a row group) is the
// writer's error, not the end of the process.
func TestWriterGoroutinePanic(t *testing.T) {
	files := etltest.OpenFiles(t, "../testdata/etl/compressed.etl")
	enc := NewEncoder(files, false)
	var recs bytes.Buffer
	if _, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{Files: files, Decoder: decode.New(), Encoder: enc, Output: &recs, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		out  io.Writer
		hook func(w *Writer)
		want string
	}{
		{"encoder", io.Discard, func(w *Writer) {
			w.t.convertWrite = func(rowGroupWriter, *chunk) error { panic("injected encoder panic") }
		}, "injected encoder panic"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := NewWriter(c.out, enc, &Options{RowGroupRows: 7})
			c.hook(w)
			_, err := w.Write(recs.Bytes())
			err = errors.Join(err, w.Close())
			var pe *panicerr.Error
			if !errors.As(err, &pe) || pe.Value != c.want {
				t.Fatalf("got %v, want a *panicerr.Error of %q", err, c.want)
			}
			if !strings.Contains(string(pe.Stack), "panic_test.go") {
				t.Errorf("the stack does not show where it panicked:\n%s", pe.Stack)
			}
		})
	}
}
