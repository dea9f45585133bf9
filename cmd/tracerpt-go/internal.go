package main

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/etwkit/etw/internal/panicerr"
)

// internalError is the error for a panic recovered while a command read
// inputs: exit status 1 (a failure while processing, not the runtime's
// status 2, which means a bad command line here), the inputs named and
// the stack for a report.
//
// r is a recovered panic value or a [*panicerr.Error], a panic a library
// worker goroutine recovered and handed back (returned or raised again):
// its value and the worker's stack are reported.
func internalError(r any, inputs []string) error {
	in := "the inputs"
	if len(inputs) > 0 {
		in = strings.Join(inputs, ", ")
	}
	stack := debug.Stack()
	if pe, ok := r.(*panicerr.Error); ok {
		r, stack = pe.Value, pe.Stack
	}
	return withCode(exitFailure, fmt.Errorf("internal error while reading %s: %v (please report it with the input)\n%s", in, r, stack))
}

// workerPanic returns the internal error for a worker's panic that err
// carries, or err.
func workerPanic(err error, inputs []string) error {
	var pe *panicerr.Error
	if errors.As(err, &pe) {
		return internalError(pe, inputs)
	}
	return err
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
