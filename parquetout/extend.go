package parquetout

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// Column is an integer column that a Writer made by [NewExtendedWriter]
// adds after the events table's columns (package tables' trace, utid and
// stack_id).
type Column struct {
	Name string
	// Bits is 32 (INT32) or 64 (INT64).
	Bits int
	// Optional writes a 0 as NULL.
	Optional bool
}

// Extension adds columns to the events table a Writer writes and bounds
// the rows of its files.
type Extension struct {
	// Columns are added after the stack, in order.
	Columns []Column
	// Values is called once per record written, in order, on the
	// goroutine that calls Write: it fills dst with the row's values, one
	// per column.
	Values func(dst []int64)
	// MaxFileRows, if not 0, bounds the rows of a file: once a file holds
	// that many, the Writer finishes it (footer and all) and goes on in
	// the writer NextFile returns.
	MaxFileRows int64
	NextFile    func() (io.Writer, error)
}

// ext is what a Writer keeps of its Extension.
type ext struct {
	x        *Extension
	opts     Options
	vals     []int64
	buf      []byte
	cols     []int // leaf column index of each of x.Columns
	fileRows int64
}

// NewExtendedWriter is NewWriter with the columns of x after the events
// table's and files of at most x.MaxFileRows rows. Records may come from
// the Encoders of several traces: SetEncoder names the one whose records
// follow (its trace start gives their rel_ms).
func NewExtendedWriter(out io.Writer, o *Options, x *Extension) (*Writer, error) {
	for _, c := range x.Columns {
		if c.Bits != 32 && c.Bits != 64 {
			return nil, fmt.Errorf("parquetout: column %s: %d bits, want 32 or 64", c.Name, c.Bits)
		}
	}
	if x.MaxFileRows > 0 && x.NextFile == nil {
		return nil, fmt.Errorf("parquetout: MaxFileRows without NextFile")
	}
	w := &Writer{colWorkers: columnWorkers(), bulk: bulkColumns()}
	w.x = x
	if o != nil {
		w.opts = *o
	}
	w.vals = make([]int64, len(x.Columns))
	w.buf = make([]byte, 8+8*len(x.Columns))
	if err := w.startFile(out); err != nil {
		return nil, err
	}
	return w, nil
}

// startFile starts a file of the extended events table on out.
func (w *Writer) startFile(out io.Writer) error {
	fields := mainFields()
	for _, c := range w.x.Columns {
		n := parquet.Int(c.Bits)
		if c.Optional {
			n = opt(n)
		}
		fields = append(fields, field{c.Name, n})
	}
	w.t = newTable(out, "event", fields, &w.opts, metadata(), true)
	w.t.extra = len(w.buf)
	w.t.convertWrite = w.convertWrite
	w.stack = w.t.stackColumns()
	w.cols = w.cols[:0]
	for _, c := range w.x.Columns {
		for i, path := range w.t.schema.Columns() {
			if len(path) == 1 && path[0] == c.Name {
				w.cols = append(w.cols, i)
			}
		}
	}
	w.fileRows = 0
	if ownFile {
		return w.t.useOwnWriter(&w.opts)
	}
	return nil
}

// addExtended adds one record with its extension's values, starting the
// next file first when the current one is full.
func (w *Writer) addExtended(b []byte) error {
	if w.x.MaxFileRows > 0 && w.fileRows >= w.x.MaxFileRows {
		if err := w.t.close(); err != nil {
			return err
		}
		out, err := w.x.NextFile()
		if err != nil {
			return err
		}
		if err := w.startFile(out); err != nil {
			return err
		}
	}
	w.x.Values(w.vals)
	binary.LittleEndian.PutUint64(w.buf, uint64(w.start))
	for i, v := range w.vals {
		binary.LittleEndian.PutUint64(w.buf[8+8*i:], uint64(v))
	}
	w.fileRows++
	return w.t.addRawExt(b, w.buf)
}

// extend appends the extension's values of the rows of s to chunk c,
// one column at a time.
func (w *Writer) extend(c *chunk, s *rowSet) {
	stride := 8 * len(w.x.Columns)
	for i, col := range w.x.Columns {
		var out []parquet.Value
		c.cols[w.cols[i]], out = growValues(c.cols[w.cols[i]], s.n)
		def := 0
		if col.Optional {
			def = 1
		}
		for j := range out {
			v := int64(binary.LittleEndian.Uint64(s.ext[j*stride+8*i:]))
			if col.Optional && v == 0 {
				out[j] = parquet.Value{}
				continue
			}
			p := &out[j]
			*p = intValue(v, col.Bits == 64)
			p.SetDefinitionLevel(def)
		}
	}
}

// SetEncoder says that the records written next come from enc (an
// extended Writer's records may come from the Encoders of several
// traces).
func (w *Writer) SetEncoder(enc *Encoder) { w.start = enc.start }
