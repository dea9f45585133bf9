// Package readerat holds what the debug/pe-style readers (pe, pdb) share:
// opening a file as an io.ReaderAt with its size, and exact reads checked
// against the size first.
package readerat

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrRange is returned by [Read] when the range lies outside the input.
var ErrRange = errors.New("beyond the end of the input")

// Read reads exactly n bytes at off of an input of size bytes. It returns
// [ErrRange] before reading when the range is not inside [0, size), and
// io.ErrUnexpectedEOF (or the reader's error) for a short read.
func Read(r io.ReaderAt, size, off int64, n int) ([]byte, error) {
	if off < 0 || n < 0 || off > size || int64(n) > size-off {
		return nil, ErrRange
	}
	b := make([]byte, n)
	if n == 0 {
		return b, nil
	}
	m, err := r.ReadAt(b, off)
	if m == n {
		return b, nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return nil, err
}

// Open opens the named file and hands it with its size to newFile. On
// success it returns newFile's value and the open file (the caller closes
// it); on failure the file is closed and the error names the file.
func Open[T any](name string, newFile func(io.ReaderAt, int64) (T, error)) (T, *os.File, error) {
	var zero T
	fh, err := os.Open(name)
	if err != nil {
		return zero, nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return zero, nil, err
	}
	v, err := newFile(fh, st.Size())
	if err != nil {
		fh.Close()
		return zero, nil, fmt.Errorf("%s: %w", name, err)
	}
	return v, fh, nil
}
