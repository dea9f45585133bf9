package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// internalError is the error for a panic recovered while a command read
// inputs: exit status 1 (a failure while processing, not the runtime's
// status 2, which means a bad command line here), the inputs named and
// the stack for a report.
func internalError(r any, inputs []string) error {
	in := "the inputs"
	if len(inputs) > 0 {
		in = strings.Join(inputs, ", ")
	}
	return withCode(exitFailure, fmt.Errorf("internal error while reading %s: %v (please report it with the input)\n%s", in, r, debug.Stack()))
}

// commandInputs returns the arguments (not options) of the command that
// args run in root, once root has parsed them.
func commandInputs(root *cobra.Command, args []string) []string {
	c, _, err := root.Find(args)
	if err != nil || c == nil {
		return nil
	}
	return c.Flags().Args()
}
