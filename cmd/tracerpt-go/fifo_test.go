//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/etwkit/etw/etl"
)

// TestFIFOInput: a FIFO (with no writer) or a character device as input,
// trace or schema file, is refused at once with exit status 3 in every
// command (info gave 1; a schema file blocked); opening the FIFO would
// block forever.
func TestFIFOInput(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "trace.etl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	man := filepath.Join(t.TempDir(), "schema.man")
	if err := syscall.Mkfifo(man, 0o600); err != nil {
		t.Skip(err)
	}
	for _, args := range [][]string{
		{fifo, "-of", "JSON", "-o", "-"},
		{"info", fifo},
		{"relog", fifo, "-o", filepath.Join(t.TempDir(), "o.etl")},
		{"/dev/null", "-of", "JSON", "-o", "-"},
		{"schemas", man},
		{sample, "-of", "JSON", "-o", "-", "-import", man},
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
		if code != exitInput || !strings.Contains(errs, "not a regular file") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
		}
	}
}

// TestFIFOOutput: a FIFO as output is written to as it is, without -y
// (only regular files are protected), and stays a FIFO: relog and pcapng,
// which write other outputs under a temporary name, stream into it. The
// .etl relog writes there reads back (its header is not completed: a
// FIFO cannot be written at an offset).
func TestFIFOOutput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		args  func(out string) []string
		check func(t *testing.T, b []byte)
	}{
		{"relog", func(out string) []string { return []string{"relog", sample, "-o", out} }, func(t *testing.T, b []byte) {
			f, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatalf("relog into a FIFO: %v", err)
			}
			r := etl.NewReader([]*etl.File{f}, nil)
			defer r.Close()
			n := 0
			for r.Next() {
				n++
			}
			if n == 0 {
				t.Error("relog into a FIFO: no events")
			}
		}},
		{"pcapng", func(out string) []string { return []string{"pcapng", sample, "-o", out} }, func(t *testing.T, b []byte) {
			if len(b) < 4 || !bytes.Equal(b[:4], []byte{0x0A, 0x0D, 0x0D, 0x0A}) {
				t.Errorf("pcapng into a FIFO: %.16x", b)
			}
		}},
	} {
		fifo := filepath.Join(dir, c.name+".out")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip(err)
		}
		got := make(chan []byte)
		go func() {
			b, _ := os.ReadFile(fifo) // opens the reading end, reads to EOF
			got <- b
		}()
		done := make(chan struct{})
		var errs string
		var code int
		go func() {
			_, errs, code = runCLI(t, c.args(fifo)...)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s into a FIFO blocks", c.name)
		}
		if code != 0 {
			t.Fatalf("%s into a FIFO: exit %d: %s", c.name, code, errs)
		}
		c.check(t, <-got)
		if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("%s replaced the FIFO: %v %v", c.name, st.Mode(), err)
		}
	}
}
