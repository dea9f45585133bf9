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

// WriteBuffers writes the slices of bufs in order: in one call to w when
// they are large and w takes several at once (atomicfile.File, writev),
// else as Write does.
func (d *directWriter) WriteBuffers(bufs [][]byte) (int, error) {
	size := 0
	for _, p := range bufs {
		size += len(p)
	}
	bw, ok := d.w.(interface {
		WriteBuffers([][]byte) (int, error)
	})
	if !ok || size < directBytes {
		total := 0
		for _, p := range bufs {
			n, err := d.Write(p)
			total += n
			if err != nil {
				return total, err
			}
		}
		return total, nil
	}
	if err := d.buf.Flush(); err != nil {
		return 0, err
	}
	return bw.WriteBuffers(bufs)
}
