//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFOInput: a FIFO (with no writer) or a character device as input is
// refused at once with exit status 3; opening the FIFO would block
// forever.
func TestFIFOInput(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "trace.etl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	for _, args := range [][]string{
		{fifo, "-of", "JSON", "-o", "-"},
		{"info", fifo},
		{"relog", fifo, "-o", filepath.Join(t.TempDir(), "o.etl")},
		{"/dev/null", "-of", "JSON", "-o", "-"},
	} {
		done := make(chan struct{})
		var errs string
		var code int
		go func() {
			_, errs, code = runCLI(t, args...)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%q blocks", args)
		}
		if code == 0 || !strings.Contains(errs, "not a regular file") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
		}
	}
}
