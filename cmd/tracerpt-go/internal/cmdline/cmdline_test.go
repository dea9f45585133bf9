package cmdline

import (
	"testing"

	"github.com/spf13/cobra"
)

// TestCompletionNames: the completion requests' names are cobra's.
func TestCompletionNames(t *testing.T) {
	if shellCompRequestCmd != cobra.ShellCompRequestCmd || shellCompNoDescRequestCmd != cobra.ShellCompNoDescRequestCmd {
		t.Errorf("%q %q, cobra's %q %q", shellCompRequestCmd, shellCompNoDescRequestCmd, cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd)
	}
}

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
		{[]string{"__completeNoDesc", "stats", ""}, false},
		{[]string{"stats", "--", "--help"}, true}, // a file called --help
	} {
		if got := MayDecode(c.args); got != c.want {
			t.Errorf("MayDecode(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
