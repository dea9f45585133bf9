// Package driver runs a whole dump of ETW trace files, as tracerpt-go's
// dump command does, in the spirit of pprof's driver: the caller fills
// Options, Dump builds the analysis model (and registers the schemas the
// trace carries) in one pass when the dump needs it, selects processes,
// runs the pipeline with the format's encoder and writes every output (the
// dump in XML, CSV, JSON Lines or Parquet, the Parquet tables of each
// event type, tracerpt's summary) atomically: a failed run leaves no
// partial file. It imports the output packages; they do not import it.
package driver

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/atomicfile"
	"github.com/etwkit/etw/parquetout"
	"github.com/etwkit/etw/pipeline"
	"github.com/etwkit/etw/tracerpt"
)

// Format is a dump format: tracerpt's formats and Parquet.
type Format int

// The dump formats.
const (
	XML     = Format(tracerpt.XML)  // tracerpt's XML dump
	CSV     = Format(tracerpt.CSV)  // tracerpt's CSV dump
	JSON    = Format(tracerpt.JSON) // JSON Lines (docs/cli.md)
	Parquet = JSON + 1              // the events table, or a table per event type
)

// ParseFormat parses a format name as -of takes it: XML, CSV, JSON or
// PARQUET (case-insensitive).
func ParseFormat(s string) (Format, error) {
	if strings.EqualFold(s, "PARQUET") {
		return Parquet, nil
	}
	f, err := tracerpt.ParseFormat(s)
	return Format(f), err
}

// String returns "XML", "CSV", "JSON" or "PARQUET".
func (f Format) String() string {
	if f == Parquet {
		return "PARQUET"
	}
	return f.tracerpt().String()
}

// tracerpt returns the tracerpt format of f (JSON for Parquet, which
// renders as the JSON dump does).
func (f Format) tracerpt() tracerpt.Format {
	if f == Parquet {
		return tracerpt.JSON
	}
	return tracerpt.Format(f)
}

// DefaultOutput returns the default dump file name of the format:
// dumpfile.xml, dumpfile.csv, dumpfile.json or dumpfile.parquet.
func (f Format) DefaultOutput() string {
	if f == Parquet {
		return "dumpfile.parquet"
	}
	return f.tracerpt().DefaultOutput()
}

// Annotates reports whether the format writes what the analysis model says
// of each event (process name, stack): JSON and Parquet.
func (f Format) Annotates() bool { return f == JSON || f == Parquet }

// Options say what Dump reads and writes.
type Options struct {
	// Files are the inputs (Open opens them as tracerpt-go takes them),
	// merged in Order; Names are what the summary lists them as (nil:
	// their names). Dump does not close them.
	Files []*etl.File
	Names []string
	Order etl.Order
	// Decoder finds the schemas (with the imports); nil means
	// decode.New().
	Decoder *decode.Decoder
	// Workers, Strict, Warn and Progress are pipeline.Config's.
	Workers  int
	Strict   bool
	Warn     func(error)
	Progress func(done, total int64)

	// Filter selects the events; Processes, if set, keeps only those of
	// the processes with these image names (with or without extension),
	// taken from the analysis model. When no process has one of them,
	// NoProcess is called with the image names the trace has and the
	// dump is written empty.
	Filter    pipeline.Filter
	Processes []string
	NoProcess func(names, known []string)
	// NoAnalysis leaves process names and stacks out of the JSON and
	// Parquet dumps (and skips the model's pass when nothing else needs
	// it).
	NoAnalysis bool
	// Symbolizer, if set, names native frames of the JSON dump's stacks
	// (analysis.Model.SetSymbolizer).
	Symbolizer analysis.Symbolizer

	// Format and Output are the dump: a file written atomically, "-" for
	// Stdout (nil: os.Stdout), "" for none. SplitDir, with Parquet, writes a table per
	// event type under that directory instead.
	Format   Format
	Output   string
	SplitDir string
	Stdout   io.Writer
	// Render sets the tracerpt formats' options (zone, culture, CSV
	// encoding, raw); Compression the Parquet codec.
	Render      tracerpt.Options
	Compression parquetout.Compression
	// Summary, if set, is where tracerpt's summary goes ("-": Stdout).
	Summary string
}

// Result is what Dump did.
type Result struct {
	pipeline.Stats
	// NoProcess tells that Options.Processes matched no process.
	NoProcess bool
}

// Dump runs the dump o describes. The errors of the run are the
// pipeline's (a *pipeline.CorruptError in strict mode) and the outputs'.
func Dump(ctx context.Context, o *Options) (Result, error) {
	var res Result
	if o.Stdout == nil {
		c := *o
		c.Stdout = os.Stdout
		o = &c
	}
	dec := o.Decoder
	if dec == nil {
		dec = decode.New()
	}
	dump := o.Output != "" || o.SplitDir != ""
	cfg := &pipeline.Config[byte]{
		Files: o.Files, Order: o.Order, Workers: o.Workers, Decoder: dec,
		Strict: o.Strict, Warn: o.Warn, Progress: o.Progress,
	}
	filter := o.Filter
	cfg.Filter = &filter
	annotate := dump && o.Format.Annotates() && !o.NoAnalysis
	if len(o.Processes) > 0 || annotate {
		// One pass builds the analysis model and registers the schemas
		// the trace carries: the dump needs no prescan of its own. The
		// reader's warnings come from the dump. What the model holds:
		// modelOptions.
		model, _, prescanErr := pipeline.PrepareWith(o.Files, dec, modelOptions(o, annotate))
		// The dump's stacks wait for the .NET methods themselves
		// (LateMethods); a panic adding them is raised here at the
		// latest, rather than lost.
		defer model.WaitMethods()
		if o.Symbolizer != nil {
			model.SetSymbolizer(o.Symbolizer)
		}
		if prescanErr != nil && o.Warn != nil {
			o.Warn(prescanErr)
		}
		cfg.Prescanned = true
		if len(o.Processes) > 0 {
			pids, known := SelectProcesses(model, o.Processes, filter.PIDs)
			if len(pids) == 0 {
				res.NoProcess = true
				filter.None = true
				if o.NoProcess != nil {
					o.NoProcess(o.Processes, known)
				}
			}
			filter.PIDs = pids
		}
		if annotate {
			cfg.Analysis = model
		}
	}
	var sum *tracerpt.Summary
	if o.Summary != "" {
		sum = tracerpt.NewSummary(o.Files, o.Names)
		cfg.Counter = sum
	}
	out, err := o.startDump(cfg)
	if err != nil {
		return res, err
	}
	defer out.abort()
	res.Stats, err = pipeline.Run(ctx, cfg)
	if err = out.finish(err); err != nil {
		return res, err
	}
	if sum != nil {
		err = writeOutput(o.Summary, o.Stdout, func(w io.Writer) error {
			_, err := sum.WriteTo(w, &o.Render)
			return err
		})
	}
	return res, err
}

// modelOptions returns the options of the dump's model pass (see Dump).
// The model holds what the annotations and SelectProcesses read, unless
// a name to select is empty: that one matches the processes without a
// name, of which a full model has more (analysis.Options.AnnotationsOnly).
// Without annotations no frame is resolved: no .NET methods, nor the
// images' identities without a symbolizer. With annotations, the model
// pass returns before its goroutine has added the last .NET methods
// (LateMethods: net.4.5.2's rundown ends the trace), so that the dump
// pass starts reading meanwhile; its stacks wait for them
// (analysis.StackResolver), and the model pass still shares their
// decoding (AnnotationsOnly).
func modelOptions(o *Options, annotate bool) *analysis.Options {
	annOnly := !slices.Contains(o.Processes, "")
	return &analysis.Options{AnnotationsOnly: annOnly,
		NoImageIDs: o.Symbolizer == nil || !annotate, NoMethods: !annotate,
		LateMethods: annotate && annOnly}
}

// SelectProcesses returns the ids of the processes of m with one of these
// image names (with or without extension), among pids if any are given,
// and the image names the trace has, sorted.
func SelectProcesses(m *analysis.Model, names []string, pids []uint32) (selected []uint32, known []string) {
	for _, p := range m.Processes() {
		if p.ImageFileName != "" && !slices.Contains(known, p.ImageFileName) {
			known = append(known, p.ImageFileName)
		}
		for _, n := range names {
			if strings.EqualFold(n, p.ImageFileName) || strings.EqualFold(n, p.Name) {
				if len(pids) == 0 || slices.Contains(pids, p.PID) {
					selected = append(selected, p.PID)
				}
			}
		}
	}
	slices.Sort(known)
	return selected, known
}

// dumpOutput is the dump being written: its file (nil for standard
// output), its buffer and the Parquet writer that ends it.
type dumpOutput struct {
	file *atomicfile.File
	buf  *bufio.Writer
	pq   io.Closer
}

// startDump opens the dump's output and sets cfg's encoder and output.
func (o *Options) startDump(cfg *pipeline.Config[byte]) (*dumpOutput, error) {
	d := &dumpOutput{}
	if o.Output == "" && o.SplitDir == "" {
		return d, nil
	}
	if o.SplitDir != "" {
		enc := parquetout.NewEncoder(o.Files, o.Render.Raw)
		sw, err := parquetout.NewSplitWriter(o.SplitDir, enc, &parquetout.Options{Compression: o.Compression})
		if err != nil {
			return nil, err
		}
		cfg.Encoder, cfg.Output, d.pq = enc, sw, sw
		return d, nil
	}
	var w io.Writer = o.Stdout
	if o.Output != "-" {
		f, err := atomicfile.Create(o.Output)
		if err != nil {
			return nil, err
		}
		d.file = f
		w = f.Writer()
	}
	d.buf = bufio.NewWriterSize(w, 256<<10)
	switch {
	case o.Format == Parquet:
		enc := parquetout.NewEncoder(o.Files, o.Render.Raw)
		// The pages of the row group being written wait beside the
		// output, not in memory (docs/performance.md).
		tmp := os.TempDir()
		if o.Output != "-" {
			tmp = filepath.Dir(o.Output)
		}
		pw := parquetout.NewWriter(d.buf, enc, &parquetout.Options{Compression: o.Compression, TempDir: tmp})
		cfg.Encoder, cfg.Output, d.pq = enc, pw, pw
	case o.Format == CSV && o.Render.Encoding == tracerpt.Unicode:
		cfg.Output = tracerpt.NewUTF16Writer(d.buf)
		cfg.Encoder = tracerpt.NewEncoder(o.Format.tracerpt(), o.Files, &o.Render)
	default:
		// The pipeline's chunks go to the file as they are.
		cfg.Output = &directWriter{buf: d.buf, w: w}
		cfg.Encoder = tracerpt.NewEncoder(o.Format.tracerpt(), o.Files, &o.Render)
	}
	return d, nil
}

// finish ends the dump (the Parquet footer, the buffer) and puts its file
// in place; err is the run's error so far, which leaves no file.
func (d *dumpOutput) finish(err error) error {
	if d.pq != nil {
		if cerr := d.pq.Close(); err == nil {
			err = cerr
		}
	}
	if d.buf != nil {
		if ferr := d.buf.Flush(); err == nil {
			err = ferr
		}
	}
	if err != nil || d.file == nil {
		return err
	}
	return d.file.Commit()
}

// abort removes the dump's file unless it was committed.
func (d *dumpOutput) abort() {
	if d.file != nil {
		d.file.Abort()
	}
}

// writeOutput writes path ("-": stdout) atomically with write.
func writeOutput(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "-" {
		return write(stdout)
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := write(f.Writer()); err != nil {
		return err
	}
	return f.Commit()
}
