package tables

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/parquet-go/parquet-go"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/internal/bufwrite"
	"github.com/etwkit/etw/parquetout"
)

// Names lists the tables a Writer writes, in the order they are opened:
// one Parquet file each, named NAME.parquet by [CreateDir].
var Names = []string{"traces", "processes", "threads", "images", "methods", "frames", "stacks", "samples", "gcs", "disk_io", "files", "packets", "events"}

// DefaultRowGroupRows is the default Options.RowGroupRows.
const DefaultRowGroupRows = 1 << 17

// batchRows is how many rows a table collects before handing them to the
// Parquet writer.
const batchRows = 1024

// maxGroupBytes bounds what the row group a model table is writing holds
// in memory (its compressed pages and the page being filled, as
// parquet-go estimates them): past it, after a batch, the row group is
// written. Without it a table held its row group of up to RowGroupRows
// rows until it was full: over 16 inputs of net.4.5.2 the methods table
// kept 8.9 MB of pages and the five largest tables 15 MB. Row groups of
// about 512 KiB (6,144 methods, 40,000-44,000 stack nodes over 16 inputs
// of net.4.5.2) cost readers nothing that matters; at 1 MiB the tables
// held 1.3 MB more at the end of a trace on average, up to 2.2 MB (2.8
// MB against 1.5 MB: six largest tables, parquet-go's estimate).
const maxGroupBytes = 512 << 10

// Options configure a Writer. The zero value is ready to use.
type Options struct {
	// RowGroupRows bounds the rows of a row group: the memory a table
	// holds before writing (default DefaultRowGroupRows).
	RowGroupRows int
	// Symbolizer, if set, names code in images (the frames' function,
	// file and line columns).
	Symbolizer analysis.Symbolizer
	// Workers is the number of goroutines that decode and render the
	// events (pipeline.Config.Workers; 0: GOMAXPROCS). The tables do not
	// depend on it.
	Workers int
	// MaxFileRows, if not 0, bounds the rows of each file: a table whose
	// rows pass it goes on in another file, which NewWriter's create
	// gives (CreateDir: NAME-2.parquet, NAME-3.parquet, …).
	MaxFileRows int64
	// Aggregates computes each trace's Aggregates (TraceStats.Aggregates).
	Aggregates bool
	// FirstTrace is the trace id of the first trace added (default 1):
	// the fleet numbers the traces of all its writers.
	FirstTrace int32
	// TempDir, when set, is where the events table's compressed pages
	// wait for their row group to be written, in a temporary file
	// (parquetout.Options.TempDir), instead of in memory; the files'
	// bytes do not change.
	TempDir string
}

// table writes the rows of one table.
type table[T any] struct {
	name      string
	create    func() (io.WriteCloser, error)
	groupRows int
	maxRows   int64 // per file (0: no bound)
	out       io.WriteCloser
	w         *parquet.GenericWriter[T]
	buf       []T
	rows      int64
	fileRows  int64 // in the file being written, buffered rows included
	written   int64 // the file's size (parquet-go's estimate) after its last row group
}

// newTable returns the table name, written to the files create gives in
// row groups of at most groupRows rows, at most maxRows rows a file (0:
// one file).
func newTable[T any](name string, create func() (io.WriteCloser, error), groupRows int, maxRows int64) (*table[T], error) {
	t := &table[T]{name: name, create: create, groupRows: groupRows, maxRows: maxRows}
	return t, t.open()
}

// open starts the next file.
func (t *table[T]) open() error {
	out, err := t.create()
	if err != nil {
		return fmt.Errorf("table %s: %w", t.name, err)
	}
	t.out, t.fileRows, t.written = out, 0, 0
	// The model tables' writers write to create's writers unbuffered
	// (parquet.WriteBufferSize(0): no 32 KiB buffer of their own in front
	// of the file's, 384 KiB for the twelve): NewWriter asks for buffered
	// writers, as CreateFile's are.
	t.w = parquet.NewGenericWriter[T](out, parquet.Compression(parquetout.Snappy.Codec()),
		parquet.CreatedBy("etwkit tracerpt-go", "", ""), parquet.MaxRowsPerRowGroup(int64(t.groupRows)),
		parquet.PageBufferSize(pageBufferSize), parquet.WriteBufferSize(0))
	return nil
}

// pageBufferSize is the page size of the model's tables. Each column of
// a row group being written holds up to a page (parquet-go reserves a
// page's worth of values for a required column at once): at the
// library's default of 256 KiB, the twelve tables' columns took 9 MB
// whatever their rows, most of them a few hundred.
const pageBufferSize = 32 << 10

// add appends one row. Errors are kept for flush and close.
func (t *table[T]) add(r *T) error {
	if t.maxRows > 0 && t.fileRows >= t.maxRows {
		if err := t.closeFile(); err != nil {
			return err
		}
		if err := t.open(); err != nil {
			return err
		}
	}
	if t.buf == nil {
		// Made at the first row: of the twelve tables' batches (1.2 MB
		// in all) a trace often leaves several empty (packets, gcs,
		// disk_io, files).
		t.buf = make([]T, 0, batchRows)
	}
	t.buf = append(t.buf, *r)
	t.rows++
	t.fileRows++
	if len(t.buf) == batchRows {
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
	if err == nil && t.w.Size()-t.written >= maxGroupBytes {
		err = t.w.Flush()
		t.written = t.w.Size()
	}
	if err != nil {
		return fmt.Errorf("table %s: %w", t.name, err)
	}
	return nil
}

// closeFile finishes the file being written.
func (t *table[T]) closeFile() error {
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
	events    *eventsTable
	closers   []func() error

	// The last id given in each id space (ids are 1-based).
	trace                                         int32
	upid, utid, image, method, frame, stack, file int64
}

// NewWriter returns a writer whose tables go to the writers create
// returns, one per name of Names (each closed by Close), and more for a
// table whose rows pass Options.MaxFileRows. The tables write to them
// page by page, small writes: they should be buffered (as CreateFile's
// are).
func NewWriter(create func(table string) (io.WriteCloser, error), opts *Options) (*Writer, error) {
	w := &Writer{}
	if opts != nil {
		w.opts = *opts
	}
	if w.opts.RowGroupRows <= 0 {
		w.opts.RowGroupRows = DefaultRowGroupRows
	}
	if w.opts.FirstTrace > 0 {
		w.trace = w.opts.FirstTrace - 1
	}
	// Each table starts by its name, in the order of Names.
	start := map[string]func(name string) error{
		"traces":    func(n string) error { return addTable(w, &w.traces, n, create) },
		"processes": func(n string) error { return addTable(w, &w.processes, n, create) },
		"threads":   func(n string) error { return addTable(w, &w.threads, n, create) },
		"images":    func(n string) error { return addTable(w, &w.images, n, create) },
		"methods":   func(n string) error { return addTable(w, &w.methods, n, create) },
		"frames":    func(n string) error { return addTable(w, &w.frames, n, create) },
		"stacks":    func(n string) error { return addTable(w, &w.stacks, n, create) },
		"samples":   func(n string) error { return addTable(w, &w.samples, n, create) },
		"gcs":       func(n string) error { return addTable(w, &w.gcs, n, create) },
		"disk_io":   func(n string) error { return addTable(w, &w.diskIO, n, create) },
		"files":     func(n string) error { return addTable(w, &w.files, n, create) },
		"packets":   func(n string) error { return addTable(w, &w.packets, n, create) },
		"events":    func(n string) error { return w.addEvents(n, create) },
	}
	if len(start) != len(Names) {
		panic(fmt.Sprintf("tables: Names lists %d tables, NewWriter starts %d", len(Names), len(start)))
	}
	for _, name := range Names {
		add, ok := start[name]
		if !ok {
			panic("tables: NewWriter does not start table " + name + " of Names")
		}
		if err := add(name); err != nil {
			w.Close()
			return nil, err
		}
	}
	return w, nil
}

// addTable starts the table called name in *dst.
func addTable[T any](w *Writer, dst **table[T], name string, create func(string) (io.WriteCloser, error)) error {
	t, err := newTable[T](name, func() (io.WriteCloser, error) { return create(name) }, w.opts.RowGroupRows, w.opts.MaxFileRows)
	if err != nil {
		return err
	}
	*dst = t
	w.closers = append(w.closers, t.closeFile)
	return nil
}

// addEvents starts the events table, called name.
func (w *Writer) addEvents(name string, create func(string) (io.WriteCloser, error)) error {
	out, err := create(name)
	if err != nil {
		return fmt.Errorf("table %s: %w", name, err)
	}
	next := func() (io.Writer, error) {
		if err := out.Close(); err != nil {
			return nil, fmt.Errorf("table %s: %w", name, err)
		}
		if out, err = create(name); err != nil {
			return nil, fmt.Errorf("table %s: %w", name, err)
		}
		return out, nil
	}
	ev, err := newEventsTable(out, &w.opts, next)
	if err != nil {
		out.Close()
		return err
	}
	w.events = ev
	w.closers = append(w.closers, func() error {
		err := ev.pw.Close()
		if cerr := out.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("table %s: %w", name, err)
		}
		return nil
	})
	return nil
}

// CreateDir returns a writer of the tables as NAME.parquet files in dir,
// which is created if needed (with Options.MaxFileRows, a table's next
// files are NAME-2.parquet, NAME-3.parquet, …). Existing files are
// replaced.
func CreateDir(dir string, opts *Options) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return NewWriter(NumberParts(func(name string, part int) (io.WriteCloser, error) {
		return CreateFile(filepath.Join(dir, PartName(name, part)), name)
	}), opts)
}

// CreateFile creates the file path of table name (one of Names) for
// NewWriter's create, written through a buffer (Parquet writers write
// page by page) of FileBufferSize(name) bytes.
func CreateFile(path, name string) (io.WriteCloser, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return bufwrite.New(f, FileBufferSize(name), f.Close), nil
}

// FileBufferSize returns the size of the write buffer for a file of table
// name (one of Names), as NewWriter's create should give it (thirteen
// files are open at once: at 1 MiB each, 13 MiB of buffers). The events
// table, the only large one, is written a column chunk at a time in 32
// KiB pieces: 64 KiB; each of the twelve others a row group of at most
// 512 KiB at a time, page by page (writes of at most a 32 KiB page, most
// of a few bytes): 16 KiB. The thirteen buffers are 256 KiB (at 64 KiB
// each, 832 KiB).
func FileBufferSize(name string) int {
	if name == "events" {
		return 64 << 10
	}
	return 16 << 10
}

// Rows returns the number of rows written to each table so far, by name.
func (w *Writer) Rows() map[string]int64 {
	return map[string]int64{
		"traces": w.traces.rows, "processes": w.processes.rows, "threads": w.threads.rows,
		"images": w.images.rows, "methods": w.methods.rows, "frames": w.frames.rows,
		"stacks": w.stacks.rows, "samples": w.samples.rows, "gcs": w.gcs.rows,
		"disk_io": w.diskIO.rows, "files": w.files.rows, "packets": w.packets.rows,
		"events": w.events.rows,
	}
}

// Close finishes every table and closes its writer. The last table
// opened (the events, the largest) is finished on a goroutine of its own
// beside the others.
func (w *Writer) Close() error {
	errs := make([]error, len(w.closers))
	var wg sync.WaitGroup
	if n := len(w.closers); n > 0 {
		wg.Go(func() { errs[n-1] = w.closers[n-1]() })
		for i, c := range w.closers[:n-1] {
			errs[i] = c()
		}
	}
	wg.Wait()
	return errors.Join(errs...)
}
