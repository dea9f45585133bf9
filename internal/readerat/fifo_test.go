//go:build unix

package readerat_test

import (
	"errors"
	"io"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/etwkit/etw/internal/readerat"
	"github.com/etwkit/etw/pdb"
	"github.com/etwkit/etw/pe"
)

// TestOpenRefusesFIFO: the PE and PDB readers refuse a FIFO (no writer)
// and a directory at once with ErrNotRegular, as etl.Open does; opening
// the FIFO would block forever.
func TestOpenRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.pdb")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	opens := map[string]func(string) (io.Closer, error){
		"pdb": func(n string) (io.Closer, error) { return pdb.Open(n) },
		"pe":  func(n string) (io.Closer, error) { return pe.Open(n) },
	}
	for name, open := range opens {
		for _, path := range []string{fifo, dir} {
			done := make(chan error, 1)
			go func() {
				c, err := open(path)
				if err == nil {
					c.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, readerat.ErrNotRegular) {
					t.Errorf("%s.Open(%s) = %v, want ErrNotRegular", name, path, err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s.Open(%s) blocks", name, path)
			}
		}
	}
}
