package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestStatsSymbolsDoNotApply: stats prints no frames, so --symbols,
// tracerpt's -pdb and --offline are accepted (scripts pass them to every
// command) but reported on stderr, the output unchanged; a symbol path
// that does not parse is no usage error here, since none is built.
func TestStatsSymbolsDoNotApply(t *testing.T) {
	kinds := filepath.Join("..", "..", "testdata", "etl", "record-kinds.etl")
	want, wantErr, code := runCLI(t, "stats", kinds)
	if code != 0 {
		t.Fatalf("stats: exit %d, stderr %q", code, wantErr)
	}
	for _, args := range [][]string{
		{"--symbols", t.TempDir(), "--offline"},
		{"-pdb", t.TempDir()},
		{"--symbols", "srv*"},
	} {
		out, stderr, code := runCLI(t, append([]string{"stats", kinds}, args...)...)
		if code != 0 || out != want {
			t.Errorf("stats %v: exit %d, output changed:\n%s", args, code, out)
		}
		var rest []string
		warned := map[string]bool{}
		for _, line := range strings.SplitAfter(stderr, "\n") {
			name, _, ok := strings.Cut(strings.TrimPrefix(line, "tracerpt-go: warning: "), " names native frames through PDBs; stats prints no frames (ignored)\n")
			if ok {
				warned[name] = true
			} else {
				rest = append(rest, line)
			}
		}
		if strings.Join(rest, "") != wantErr {
			t.Errorf("stats %v: stderr %q, want the warnings and %q", args, stderr, wantErr)
		}
		for _, name := range []string{"--symbols", "--offline"} {
			given := strings.Contains(strings.Join(args, " "), name) || name == "--symbols" && args[0] == "-pdb"
			if warned[name] != given {
				t.Errorf("stats %v: stderr %q: warns of %s %v, want %v", args, stderr, name, warned[name], given)
			}
		}
	}
}
