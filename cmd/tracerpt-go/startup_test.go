package main

import (
	"io"
	"maps"
	"testing"
)

func TestMayDecode(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"trace.etl"}, true},
		{[]string{"stats", "trace.etl"}, true},
		{[]string{"trace.etl", "-of", "JSON", "-o", "-"}, true},
		{[]string{"stats", "--help"}, false},
		{[]string{"-h"}, false},
		{[]string{"help", "stats"}, false},
		{[]string{"completion", "bash"}, false},
		{[]string{"__complete", "stats", ""}, false},
		{[]string{"stats", "--", "--help"}, true}, // a file called --help
	} {
		if got := mayDecode(c.args); got != c.want {
			t.Errorf("mayDecode(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

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
