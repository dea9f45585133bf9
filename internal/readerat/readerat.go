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

// ErrNotRegular is the error [OpenRegular] wraps for a path that is not a
// regular file (a FIFO, a device, a socket, a directory).
var ErrNotRegular = errors.New("not a regular file")

// OpenRegular opens the named file for random access and returns it with
// its size. It refuses anything but a regular file before opening it
// (opening a FIFO without a writer would block) and again after (the path
// replaced in between): a *os.PathError wrapping [ErrNotRegular], naming
// the kind of file and why (what a reader of this format needs).
func OpenRegular(name, why string) (*os.File, int64, error) {
	if err := CheckRegular(name, why); err != nil {
		return nil, 0, err
	}
	fh, err := os.Open(name)
	if err != nil {
		return nil, 0, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		fh.Close()
		return nil, 0, notRegular(name, why, st.Mode())
	}
	return fh, st.Size(), nil
}

// CheckRegular returns the error [OpenRegular] returns for a path that is
// missing or not a regular file, without opening it: for readers that open
// the path themselves (and must not block on a FIFO).
func CheckRegular(name, why string) error {
	st, err := os.Stat(name)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return notRegular(name, why, st.Mode())
	}
	return nil
}

// notRegular is the error for name of mode m.
func notRegular(name, why string, m os.FileMode) error {
	return &os.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w (%s): %s", ErrNotRegular, FileKind(m), why)}
}

// FileKind names a non-regular file mode ("a named pipe (FIFO)", "a
// directory", …), for errors that wrap [ErrNotRegular].
func FileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// Open opens the named regular file ([OpenRegular]) and hands it with its
// size to newFile. On success it returns newFile's value and the open file
// (the caller closes it); on failure the file is closed and the error
// names the file.
func Open[T any](name string, newFile func(io.ReaderAt, int64) (T, error)) (T, *os.File, error) {
	var zero T
	fh, size, err := OpenRegular(name, "the file is read with random access")
	if err != nil {
		return zero, nil, err
	}
	v, err := newFile(fh, size)
	if err != nil {
		fh.Close()
		return zero, nil, fmt.Errorf("%s: %w", name, err)
	}
	return v, fh, nil
}
