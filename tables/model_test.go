package tables

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// failingFile takes n bytes, then fails.
type failingFile struct{ n int }

var errFull = errors.New("disk full")

func (f *failingFile) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errFull
	}
	f.n -= len(p)
	return len(p), nil
}

func (*failingFile) Close() error { return nil }

// A failure to write a model table (written beside the second pass) is
// Add's error, and stops the pass.
func TestModelWriteError(t *testing.T) {
	net := etltest.CorpusFile(t, netRel)
	w, err := NewWriter(func(name string) (io.WriteCloser, error) {
		if name == "methods" {
			return &failingFile{n: 4}, nil
		}
		return &memFile{}, nil
	}, &Options{RowGroupRows: 1000}) // the rows of the methods table reach the file before Add ends
	if err != nil {
		t.Fatal(err)
	}
	st, err := w.Add(net, []*etl.File{openETL(t, net)}, nil)
	if !errors.Is(err, errFull) || !strings.Contains(err.Error(), "table methods") {
		t.Errorf("Add: %v, want the methods table's write error", err)
	}
	if st.Events >= 179474 {
		t.Errorf("the second pass read all %d events after the failure", st.Events)
	}
	w.Close()
}
