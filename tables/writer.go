package tables

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"

	"github.com/etwkit/etw/analysis"
)

// Names lists the tables a Writer writes, in the order they are opened:
// one Parquet file each, named NAME.parquet by [CreateDir].
var Names = []string{"traces", "processes", "threads", "images", "methods", "frames", "stacks", "samples", "gcs", "disk_io", "files", "packets"}

// DefaultRowGroupRows is the default Options.RowGroupRows.
const DefaultRowGroupRows = 1 << 17

// batchRows is how many rows a table collects before handing them to the
// Parquet writer.
const batchRows = 1024

// Options configure a Writer. The zero value is ready to use.
type Options struct {
	// RowGroupRows bounds the rows of a row group: the memory a table
	// holds before writing (default DefaultRowGroupRows).
	RowGroupRows int
	// Symbolizer, if set, names code in images (the frames' function,
	// file and line columns).
	Symbolizer analysis.Symbolizer
	// Window is the enricher's window (default analysis.DefaultWindow).
	Window int
}

// table writes the rows of one table.
type table[T any] struct {
	name string
	out  io.WriteCloser
	w    *parquet.GenericWriter[T]
	buf  []T
	rows int64
}

// newTable returns table i of Names, written to outs[i] in row groups of
// at most groupRows rows.
func newTable[T any](outs []io.WriteCloser, i, groupRows int) *table[T] {
	return &table[T]{
		name: Names[i],
		out:  outs[i],
		w: parquet.NewGenericWriter[T](outs[i], parquet.Compression(&parquet.Snappy),
			parquet.CreatedBy("etwkit tracerpt-go", "", ""), parquet.MaxRowsPerRowGroup(int64(groupRows))),
		buf: make([]T, 0, batchRows),
	}
}

// add appends one row. Errors are kept for flush and close.
func (t *table[T]) add(r *T) error {
	t.buf = append(t.buf, *r)
	t.rows++
	if len(t.buf) == cap(t.buf) {
		return t.flush()
	}
	return nil
}

func (t *table[T]) flush() error {
	if len(t.buf) == 0 {
		return nil
	}
	_, err := t.w.Write(t.buf)
	clear(t.buf) // drop the strings the rows held
	t.buf = t.buf[:0]
	if err != nil {
		return fmt.Errorf("table %s: %w", t.name, err)
	}
	return nil
}

func (t *table[T]) close() error {
	err := t.flush()
	if cerr := t.w.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("table %s: %w", t.name, cerr)
	}
	if cerr := t.out.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("table %s: %w", t.name, cerr)
	}
	return err
}

// Writer writes the analysis model of traces as tables. Add each trace,
// then Close.
type Writer struct {
	opts Options

	traces    *table[TraceRow]
	processes *table[ProcessRow]
	threads   *table[ThreadRow]
	images    *table[ImageRow]
	methods   *table[MethodRow]
	frames    *table[FrameRow]
	stacks    *table[StackRow]
	samples   *table[SampleRow]
	gcs       *table[GCRow]
	diskIO    *table[DiskIORow]
	files     *table[FileRow]
	packets   *table[PacketRow]
	closers   []func() error

	// The last id given in each id space (ids are 1-based).
	trace                                         int32
	upid, utid, image, method, frame, stack, file int64
}

// NewWriter returns a writer whose tables go to the writers create
// returns, one per name of Names (each closed by Close).
func NewWriter(create func(table string) (io.WriteCloser, error), opts *Options) (*Writer, error) {
	w := &Writer{}
	if opts != nil {
		w.opts = *opts
	}
	if w.opts.RowGroupRows <= 0 {
		w.opts.RowGroupRows = DefaultRowGroupRows
	}
	outs := make([]io.WriteCloser, len(Names))
	for i, n := range Names {
		o, err := create(n)
		if err != nil {
			for _, c := range outs[:i] {
				c.Close()
			}
			return nil, fmt.Errorf("table %s: %w", n, err)
		}
		outs[i] = o
	}
	g := w.opts.RowGroupRows
	w.traces, w.processes, w.threads = newTable[TraceRow](outs, 0, g), newTable[ProcessRow](outs, 1, g), newTable[ThreadRow](outs, 2, g)
	w.images, w.methods, w.frames = newTable[ImageRow](outs, 3, g), newTable[MethodRow](outs, 4, g), newTable[FrameRow](outs, 5, g)
	w.stacks, w.samples, w.gcs = newTable[StackRow](outs, 6, g), newTable[SampleRow](outs, 7, g), newTable[GCRow](outs, 8, g)
	w.diskIO, w.files, w.packets = newTable[DiskIORow](outs, 9, g), newTable[FileRow](outs, 10, g), newTable[PacketRow](outs, 11, g)
	w.closers = []func() error{w.traces.close, w.processes.close, w.threads.close, w.images.close, w.methods.close,
		w.frames.close, w.stacks.close, w.samples.close, w.gcs.close, w.diskIO.close, w.files.close, w.packets.close}
	return w, nil
}

// CreateDir returns a writer of the tables as NAME.parquet files in dir,
// which is created if needed. Existing files are replaced.
func CreateDir(dir string, opts *Options) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return NewWriter(func(name string) (io.WriteCloser, error) {
		return os.Create(filepath.Join(dir, name+".parquet"))
	}, opts)
}

// Rows returns the number of rows written to each table so far, by name.
func (w *Writer) Rows() map[string]int64 {
	return map[string]int64{
		"traces": w.traces.rows, "processes": w.processes.rows, "threads": w.threads.rows,
		"images": w.images.rows, "methods": w.methods.rows, "frames": w.frames.rows,
		"stacks": w.stacks.rows, "samples": w.samples.rows, "gcs": w.gcs.rows,
		"disk_io": w.diskIO.rows, "files": w.files.rows, "packets": w.packets.rows,
	}
}

// Close finishes every table and closes its writer.
func (w *Writer) Close() error {
	var errs []error
	for _, c := range w.closers {
		if err := c(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
