package main

import (
	"io"
	"os"
)

// checkedWriter is the commands' standard output: it passes writes on
// and keeps the first error, so that output written with fmt.Fprintf or
// a table writer (which drop or hide write errors) is not lost without
// an error: run fails with exit status 1 when a write failed.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

// file returns the *os.File under w (through a checkedWriter), if any.
func file(w io.Writer) (*os.File, bool) {
	if c, ok := w.(*checkedWriter); ok {
		w = c.w
	}
	f, ok := w.(*os.File)
	return f, ok
}
