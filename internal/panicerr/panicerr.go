// Package panicerr carries a panic recovered on a worker goroutine back
// to the goroutine that started the worker, with the worker's stack.
//
// A panic on a goroutine other than the one a program recovers on ends
// the process (exit status 2). Workers defer [Recover] and hand the
// resulting [*Error] to their caller, which returns it (or, where its API
// has no error result, panics with it on its own goroutine); the command
// line recognises an [*Error] and reports an internal error naming the
// input.
package panicerr

import (
	"fmt"
	"runtime/debug"
)

// Error is a panic recovered on a worker goroutine.
type Error struct {
	Value any    // the value the worker panicked with
	Stack []byte // the worker's stack when it panicked
}

// Error returns "panic: VALUE".
func (e *Error) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Unwrap returns the panic value if it is an error.
func (e *Error) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// Recover, deferred directly by a worker goroutine, stores a panic of
// that goroutine in *errp as an [*Error] (keeping an *Error it is handed
// again as it is) and ends the panic. Without a panic it leaves *errp
// alone.
func Recover(errp *error) {
	r := recover()
	if r == nil {
		return
	}
	if e, ok := r.(*Error); ok {
		*errp = e
		return
	}
	*errp = &Error{Value: r, Stack: debug.Stack()}
}
