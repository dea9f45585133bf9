package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/etwkit/etw/internal/etltest"
)

// TestHelperProcess runs main with the arguments after "--" when
// TRACERPT_GO_HELPER is set: the subprocess of the interrupt test.
func TestHelperProcess(t *testing.T) {
	if os.Getenv("TRACERPT_GO_HELPER") == "" {
		t.Skip("subprocess of TestCorpusInterruptKeepsOutput")
	}
	os.Args = append([]string{"tracerpt-go"}, helperArgs()...)
	main()
}

// helperArgs returns the arguments after "--": the command line a helper
// subprocess runs.
func helperArgs() []string {
	for i, a := range os.Args {
		if a == "--" {
			return os.Args[i+1:]
		}
	}
	return nil
}

// Ctrl-C while the dump is written (the temporary file exists) exits 130,
// removes the temporary file and keeps the previous output.
func TestCorpusInterruptKeepsOutput(t *testing.T) {
	in := etltest.CorpusFile(t, netRel)
	dir := t.TempDir()
	out := filepath.Join(dir, "o.json")
	os.WriteFile(out, []byte("previous"), 0o644)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "--", in, "-of", "JSON", "-o", out, "-y", "--quiet")
	cmd.Env = append(os.Environ(), "TRACERPT_GO_HELPER=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
wait:
	for {
		select {
		case <-done:
			t.Skip("the dump finished before a temporary file was seen")
		default:
		}
		if m, _ := filepath.Glob(filepath.Join(dir, ".o.json.*.tmp")); len(m) > 0 {
			cmd.Process.Signal(syscall.SIGINT)
			err = <-done
			break wait
		}
		time.Sleep(time.Millisecond)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Errorf("exit %v, want %d; stderr %q", err, exitInterrupted, stderr.String())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("files left: %v", ents)
	}
	if b, _ := os.ReadFile(out); string(b) != "previous" {
		t.Errorf("o.json = %.40q, want the previous output", b)
	}
}

// --strict on a damaged input exits 5 and keeps every previous output that
// -y would have replaced, with no partial or temporary file left.
func TestAttackStrictKeepsOutputs(t *testing.T) {
	in := etltest.AttackFile(t, "bufsize_swallows_next.etl")
	dir := t.TempDir()
	for _, c := range [][]string{
		{"-of", "JSON", "-o", "o.json"},
		{"-of", "XML", "-o", "o.xml"},
		{"-of", "CSV", "-o", "o.csv", "-summary", "s.txt"},
		{"-of", "PARQUET", "-o", "o.parquet"},
	} {
		var outs []string
		for i, a := range c {
			if i > 0 && (c[i-1] == "-o" || c[i-1] == "-summary") {
				p := filepath.Join(dir, a)
				os.WriteFile(p, []byte("previous"), 0o644)
				c[i] = p
				outs = append(outs, p)
			}
		}
		args := append([]string{in, "--strict", "-y", "--quiet"}, c...)
		if _, errs, code := runCLI(t, args...); code != exitCorrupt {
			t.Errorf("%q: exit %d (%s), want %d", c, code, errs, exitCorrupt)
		}
		for _, p := range outs {
			if b, _ := os.ReadFile(p); string(b) != "previous" {
				t.Errorf("%q: %s = %.40q, want the previous output", c, filepath.Base(p), b)
			}
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}
