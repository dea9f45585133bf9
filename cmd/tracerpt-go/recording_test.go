package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestRecording: with its variable set, recording starts before f, stops
// after it, and the file holds what was written; without it, or when the
// file or the start fails, f still runs (and only then).
func TestRecording(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.out")
	t.Setenv("TRACERPT_GO_TEST_RECORDING", path)
	var order []string
	start := func(w io.Writer) error {
		order = append(order, "start")
		_, err := io.WriteString(w, "recorded")
		return err
	}
	stop := func() { order = append(order, "stop") }
	f := func() int { order = append(order, "f"); return 7 }
	if got := recording("TRACERPT_GO_TEST_RECORDING", start, stop, f); got != 7 {
		t.Errorf("status %d, want f's 7", got)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "recorded" {
		t.Errorf("file %q, %v; want what start wrote", b, err)
	}
	if g := order; len(g) != 3 || g[0] != "start" || g[1] != "f" || g[2] != "stop" {
		t.Errorf("order %v, want start f stop", g)
	}
	order = nil
	failing := func(io.Writer) error { return errors.New("busy") }
	if got := recording("TRACERPT_GO_TEST_RECORDING", failing, stop, f); got != 7 || len(order) != 1 || order[0] != "f" {
		t.Errorf("a failed start: status %d, calls %v; want f alone", got, order)
	}
	order = nil
	t.Setenv("TRACERPT_GO_TEST_RECORDING", filepath.Join(path, "not-a-folder", "x"))
	if got := recording("TRACERPT_GO_TEST_RECORDING", start, stop, f); got != 7 || len(order) != 1 || order[0] != "f" {
		t.Errorf("an uncreatable file: status %d, calls %v; want f alone", got, order)
	}
	order = nil
	t.Setenv("TRACERPT_GO_TEST_RECORDING", "")
	if got := recording("TRACERPT_GO_TEST_RECORDING", start, stop, f); got != 7 || len(order) != 1 || order[0] != "f" {
		t.Errorf("unset: status %d, calls %v; want f alone", got, order)
	}
}
