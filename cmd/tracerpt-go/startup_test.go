package main

import (
	"bytes"
	"io"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestLongFlagNamesOfRun: run normalizes the command line with the long
// options of the command it has made (subcommands added); they must be
// the root command's own.
func TestLongFlagNamesOfRun(t *testing.T) {
	cmd := newRootCmd(io.Discard, io.Discard)
	cmd.AddCommand(newPDBCmd())
	cmd.AddCommand(newTablesCmd())
	got, want := longFlagNames(cmd), longFlagNames(newRootCmd(io.Discard, io.Discard))
	if !maps.Equal(got, want) || !want["of"] || !want["help"] {
		t.Errorf("long options of run's command %v, of the root command %v", got, want)
	}
}

// rootLongs are the root command's long options, for normalizeArgs.
var rootLongs = longFlagNames(newRootCmd(io.Discard, io.Discard))

// TestOneSubcommandSameAsAll: a run that names its command first makes
// only that command, a dump none; their outputs, errors and exit codes
// are what the full tree of commands gives.
func TestOneSubcommandSameAsAll(t *testing.T) {
	full := func(args []string) (string, int) {
		var out, errb bytes.Buffer
		code := runWith(args, &out, &errb, func(root *cobra.Command, _ []string) { addSubcommands(root, nil) })
		return out.String() + "\x00" + errb.String(), code
	}
	cases := [][]string{
		// The dump, which makes no command below the root.
		{"../../testdata/etl/classic.etl", "-of", "JSON", "-o", "-"},
		{"../../testdata/etl/classic.etl", "-summary", "-", "-y"},
		{"no-such.etl"}, {"../../testdata/etl/classic.etl", "--no-such-option"},
		{"statz", "x.etl"}, // a mistyped command is an input to dump
		// The full tree.
		{}, {"--help"}, {"-?"}, {"../../testdata/etl/classic.etl", "-h"}, {"help"}, {"help", "stats"},
		{"-of", "JSON", "stats"}, {"--", "--help"},
	}
	for _, sc := range subcommands {
		cases = append(cases, []string{sc.name, "--help"}, []string{sc.name, "--no-such-option"}, []string{sc.name})
	}
	for i, args := range cases {
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		got := out.String() + "\x00" + errb.String()
		want, wantCode := full(args)
		if got != want || code != wantCode {
			t.Errorf("%q: exit %d\n%s\nthe full tree: exit %d\n%s", args, code, got, wantCode, want)
		}
		if i == 0 && (code != exitOK || !strings.HasPrefix(out.String(), "{")) {
			t.Errorf("%q: exit %d, no JSON dump: %.200s", args, code, got)
		}
	}
	// The completion command is there when it is asked for.
	var out bytes.Buffer
	if code := run([]string{"completion", "bash"}, &out, io.Discard); code != exitOK || !strings.Contains(out.String(), "bash completion") {
		t.Errorf("completion bash: exit %d, %d bytes", code, out.Len())
	}
}

// TestPackageInitsSmall: the toolkit's packages make their tables when
// first used, not when the program starts (every command pays a
// package's initialisation, whether it uses the package or not). The
// test binary, which links them all, is run with GODEBUG=inittrace=1 and
// no test; each of the toolkit's packages may allocate at most 4 KiB in
// 40 allocations at its initialisation (~2 KiB and 22 at most on
// 2026-11-29; before session 32 the packages together made ~1,000
// allocations, 60 KB, ~0.5 ms of every start).
func TestPackageInitsSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.Bytes())
	}
	// "init github.com/etwkit/etw/tdh @1.2 ms, 0.027 ms clock, 488 bytes, 12 allocs"
	line := regexp.MustCompile(`(?m)^init (github\.com/etwkit/etw/\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)
	found := 0
	for _, m := range line.FindAllStringSubmatch(stderr.String(), -1) {
		if m[1] == "github.com/etwkit/etw/cmd/tracerpt-go" || strings.HasSuffix(m[1], "test") {
			continue // this test binary's own package (its tests' variables too) and the tests' helpers
		}
		found++
		bytes, _ := strconv.Atoi(m[2])
		allocs, _ := strconv.Atoi(m[3])
		if bytes > 4096 || allocs > 40 {
			t.Errorf("%s's initialisation: %d bytes in %d allocations", m[1], bytes, allocs)
		}
	}
	if found < 10 {
		t.Fatalf("%d of the toolkit's packages in the init trace:\n%s", found, stderr.Bytes())
	}
}
