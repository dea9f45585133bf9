// Package bufwrite is the buffered io.WriteCloser that the Parquet table
// files are written through (the Parquet writers write page by page).
package bufwrite

import (
	"bufio"
	"io"
)

// WriteCloser writes through a buffer; Close writes what the buffer holds
// and then runs the close function it was made with.
type WriteCloser struct {
	*bufio.Writer
	close func() error
}

// New returns a WriteCloser writing to w through a buffer of size bytes.
// Its Close runs close after the flush (nil: nothing more to do, as for a
// file that is committed or closed afterwards by its owner) and returns
// the first error.
func New(w io.Writer, size int, close func() error) *WriteCloser {
	return &WriteCloser{bufio.NewWriterSize(w, size), close}
}

// Close writes what the buffer holds, then runs the close function.
func (b *WriteCloser) Close() error {
	err := b.Flush()
	if b.close != nil {
		if cerr := b.close(); err == nil {
			err = cerr
		}
	}
	return err
}
