package main

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// importSchemas imports the -import paths into dec. A path that cannot
// be imported is a warning when other paths were named, and an error
// (schemaCode) when it was the only one; problems that do not stop the
// import are one summary line on standard error, each of them with -v.
func importSchemas(cmd *cobra.Command, dec *decode.Decoder, paths []string, verbose bool) error {
	if len(paths) == 0 {
		return nil
	}
	rep, err := dec.ImportFiles(paths...)
	if err != nil {
		return withCode(schemaCode(err), err)
	}
	for _, e := range rep.Failed {
		warn(cmd, e)
	}
	if len(rep.Warnings) == 0 && len(rep.Failed) == 0 && !verbose {
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

// schemaCode is the exit status for a schema file (given to -import or
// to schemas) that could not be used, whichever command reads it: a file
// that is missing, not a regular file or cannot be read is an input
// error (3), as for traces; one that is read but is not a schema file, is
// malformed, damaged or over a bound is exitMalformed (6).
func schemaCode(err error) int {
	var pe *fs.PathError
	if errors.As(err, &pe) || errors.Is(err, etl.ErrNotRegular) {
		return exitInput
	}
	return exitMalformed
}
