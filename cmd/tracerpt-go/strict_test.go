package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/internal/etltest"
)

// TestEveryTraceCommandHasStrictAndVerbose (issue 25.8): every
// subcommand that reads traces takes -v and --strict.
func TestEveryTraceCommandHasStrictAndVerbose(t *testing.T) {
	for _, c := range []string{"", "stats", "stacks", "report", "providers", "relog", "tables", "pcapng", "info"} {
		args := []string{"--help"}
		if c != "" {
			args = []string{c, "--help"}
		}
		out := mustRun(t, args...)
		if !strings.Contains(out, "--strict") || !strings.Contains(out, "-v, --verbose") {
			t.Errorf("tracerpt-go %s --help: no --strict or -v", c)
		}
	}
}

// TestStrictOnEveryCommand (issue 25.8): with --strict a damaged input
// (a file cut short) is exit status 5 on every subcommand that reads
// traces, leaving the previous output as it was; without it the damage
// is a warning and the output is written.
func TestStrictOnEveryCommand(t *testing.T) {
	damaged := etltest.AttackFile(t, "trunc_at_buffer_boundary.etl")
	dir := t.TempDir()
	const previous = "previous output\n"
	for _, c := range []struct {
		cmd string
		out string // the output file ("" for standard output)
	}{
		{"stats", ""},
		{"providers", ""},
		{"stacks", "cpu.folded"},
		{"report", "report.html"},
		{"relog", "out.etl"},
		{"tables", "tables/processes.parquet"},
		{"pcapng", "out.pcapng"},
	} {
		args := []string{c.cmd, damaged}
		var out string
		if c.out != "" {
			out = filepath.Join(dir, c.out)
			os.MkdirAll(filepath.Dir(out), 0o755)
			if err := os.WriteFile(out, []byte(previous), 0o644); err != nil {
				t.Fatal(err)
			}
			o := out
			if c.cmd == "tables" {
				o = filepath.Dir(out)
			}
			args = append(args, "-o", o, "-y")
		}
		stdout, stderr, code := runCLI(t, append(args, "--strict")...)
		if code != exitCorrupt {
			t.Errorf("%s --strict: exit %d, want %d: %s", c.cmd, code, exitCorrupt, stderr)
		}
		if !strings.Contains(stderr, "file cut short") {
			t.Errorf("%s --strict: the damage is not reported: %s", c.cmd, stderr)
		}
		if stdout != "" {
			t.Errorf("%s --strict: wrote %d bytes to standard output", c.cmd, len(stdout))
		}
		if out != "" {
			if b, _ := os.ReadFile(out); string(b) != previous {
				t.Errorf("%s --strict: the previous output was replaced (%d bytes)", c.cmd, len(b))
			}
		}
		stdout, stderr, code = runCLI(t, args...)
		if c.cmd == "stacks" && code == exitEmpty || c.cmd == "pcapng" && code == exitEmpty {
			continue // no samples, no packets in this file: nothing to write
		}
		if code != exitOK || !strings.Contains(stderr, "file cut short") {
			t.Errorf("%s without --strict: exit %d: %s", c.cmd, code, stderr)
		}
		if out == "" && stdout == "" {
			t.Errorf("%s without --strict: no output", c.cmd)
		}
		if b, _ := os.ReadFile(out); out != "" && string(b) == previous {
			t.Errorf("%s without --strict: the output was not written", c.cmd)
		}
	}
}
