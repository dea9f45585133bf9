package driver

import (
	"bufio"
	"io"
)

// directBytes is the size from which a write to a text dump's output
// skips its buffer: the pipeline writes each batch's rendering in chunks
// of about 192 KiB, which the buffer would only copy (12 ms of the JSON
// dump of net.4.5.2, 173 MB; docs/performance.md).
const directBytes = 64 << 10

// directWriter writes to w through buf, but writes of directBytes or more
// go to w at once, after what buf holds: the bytes and their order are
// the same.
type directWriter struct {
	buf *bufio.Writer
	w   io.Writer
}

// Write writes p through the buffer, or directly when it is large.
func (d *directWriter) Write(p []byte) (int, error) {
	if len(p) < directBytes {
		return d.buf.Write(p)
	}
	if err := d.buf.Flush(); err != nil {
		return 0, err
	}
	return d.w.Write(p)
}
