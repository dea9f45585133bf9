package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/tdh"
)

// importSchemas imports the -import paths into dec. A path that is
// missing or a named file that cannot be read is an input error (exit
// 3); problems that do not stop the import are one summary line on
// standard error, each of them with -v.
func importSchemas(cmd *cobra.Command, dec *decode.Decoder, paths []string, verbose bool) error {
	if len(paths) == 0 {
		return nil
	}
	rep, err := dec.ImportFiles(paths...)
	if err != nil {
		return withCode(exitInput, err)
	}
	if len(rep.Warnings) == 0 && !verbose {
		return nil
	}
	w := cmd.ErrOrStderr()
	line := rep.Summary()
	if len(rep.Warnings) > 0 && !verbose {
		line += " (-v for details)"
	}
	fmt.Fprintf(w, "tracerpt-go: %s\n", line)
	if verbose {
		for _, e := range rep.Warnings {
			fmt.Fprintf(w, "tracerpt-go: warning: %v\n", e)
		}
		if n := dec.Registry.Dropped(); n > 0 {
			fmt.Fprintf(w, "tracerpt-go: %d schemas not kept: more than %d sources describe the same event\n", n, tdh.MaxCandidates)
		}
	}
	return nil
}
