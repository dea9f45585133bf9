// Package fleetpipe is the Apache Beam pipeline of etl-fleet: it lists the
// .etl files a glob names on any file system Beam's Go SDK has registered,
// keeps AutoLogger .etl.NNN sets together as one element, writes each
// element's tables with the toolkit's package tables (the tables of
// tracerpt-go tables, the events table among them: the rows of
// tracerpt-go -of PARQUET) and its aggregates (events per provider and
// event name, CPU samples per process and module, .NET GC pauses, lost
// events and damaged buffers) under NAME/host=…/date=…, and reports per
// element what was read and what failed.
package fleetpipe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/driver"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/sympath"
	"github.com/etwkit/etw/tables"
	"github.com/etwkit/etw/tracerpt"
)

func init() {
	register.DoFn3x1[context.Context, []string, func(Element), error](&expandFn{})
	register.Emitter1[Element]()
	register.DoFn4x1[context.Context, Element, func(string), func(string), error](&convertFn{})
	register.Emitter1[string]()
}

// Element is one trace of the fleet: its files (one, or an .etl.NNN set)
// and its trace id, 1, 2, … in the order of the sorted file names, the
// trace column of its tables.
type Element struct {
	Trace int32
	Files []string
}

// Import is a schema file shipped to the workers with the pipeline: its base
// name and its bytes.
type Import struct {
	Name string
	Data []byte
}

// ReadImports reads the schema files named, to ship them with the pipeline.
func ReadImports(paths []string) ([]Import, error) {
	var out []Import
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
		out = append(out, Import{Name: filepath.Base(p), Data: b})
	}
	return out, nil
}

// FileResult is one line of the files output: an element (a file, or an
// .etl.NNN set) and what its conversion read and wrote.
type FileResult struct {
	File    string `json:"file"`
	Trace   int32  `json:"trace"`
	Members int    `json:"members"`
	Host    string `json:"host"`
	// Computer is the computer name the trace's SystemConfig events give
	// ("" when none: Host is then the file's folder).
	Computer string `json:"computer,omitempty"`
	Date     string `json:"date"`
	Bytes    int64  `json:"bytes"`
	Events   int    `json:"events"`
	Lost     uint32 `json:"events_lost"`
	Damaged  int    `json:"damaged"`
	Output   string `json:"output,omitempty"`
}

// ErrorRecord is one line of the errors output: a file that failed or was
// damaged, the reason and the file offset (-1 when the error has none).
type ErrorRecord struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
	Offset int64  `json:"offset"`
}

var (
	filesCounter  = beam.NewCounter("etl-fleet", "files")
	bytesCounter  = beam.NewCounter("etl-fleet", "bytes")
	eventsCounter = beam.NewCounter("etl-fleet", "events")
	errorsCounter = beam.NewCounter("etl-fleet", "errors")
)

// Options are what Build's conversion writes.
type Options struct {
	// Imports are the schema files shipped to the workers.
	Imports []Import
	// MaxFileRows bounds the rows of each Parquet file of the tables
	// (tables.Options.MaxFileRows): a table of a trace goes on in
	// NAME-2.parquet, … (0: DefaultMaxFileRows).
	MaxFileRows int64
	// Symbols is a symbol path (sympath.Parse: folders, stores,
	// srv*CACHE*URL) each worker finds the traces' PDBs through, to name
	// native frames by function in the cpu_samples aggregate and the
	// frames table; "" names them by module. A worker caches downloads
	// where the path says (the default cache of the worker's user for
	// srv*URL).
	Symbols string
}

// DefaultMaxFileRows is Options.MaxFileRows' default: about 100 to 300
// MB of events.
const DefaultMaxFileRows = 1 << 20

// Build adds the pipeline to s: the files the globs name, converted under outDir,
// with the imports shipped. It returns the files and errors outputs (JSON
// lines, one per element and one per error).
func Build(s beam.Scope, globs []string, outDir string, o *Options) (files, errs beam.PCollection) {
	return build(s, globs, false, outDir, o)
}

// BuildListed is Build over names, the files List returned for the globs:
// a caller that has listed them already (etl-fleet, for its progress bar)
// spares the pipeline a second listing of the stores.
func BuildListed(s beam.Scope, names []string, outDir string, o *Options) (files, errs beam.PCollection) {
	if names == nil {
		names = []string{}
	}
	return build(s, names, true, outDir, o)
}

// build is Build (listed false: in are globs) and BuildListed (listed:
// in are List's names).
func build(s beam.Scope, in []string, listed bool, outDir string, o *Options) (files, errs beam.PCollection) {
	s = s.Scope("etl-fleet")
	var opts Options
	if o != nil {
		opts = *o
	}
	if opts.MaxFileRows <= 0 {
		opts.MaxFileRows = DefaultMaxFileRows
	}
	// One element with every glob (or every name): the traces are
	// numbered across them.
	groups := beam.ParDo(s, &expandFn{Listed: listed}, beam.Create(s, in))
	groups = beam.Reshuffle(s, groups)
	return beam.ParDo2(s, &convertFn{Output: outDir, Imports: opts.Imports, MaxFileRows: opts.MaxFileRows, Symbols: opts.Symbols}, groups)
}

type expandFn struct {
	// Listed says the element holds the files List returned for the
	// globs rather than the globs.
	Listed bool
}

// ProcessElement lists the globs (unless Listed) and emits one element per
// file, the members of an .etl.NNN set (and its .etl) together, sorted,
// numbered in the order of their names.
func (f *expandFn) ProcessElement(ctx context.Context, globs []string, emit func(Element)) error {
	names := globs
	if !f.Listed {
		var err error
		if names, err = List(ctx, globs); err != nil {
			return err
		}
	}
	for i, g := range tracerpt.GroupSequences(names) {
		emit(Element{Trace: int32(i + 1), Files: g})
	}
	return nil
}

// List returns the files the globs name, each once, on the file systems
// Beam's Go SDK has registered.
func List(ctx context.Context, globs []string) ([]string, error) {
	var names []string
	seen := map[string]bool{}
	for _, glob := range globs {
		fs, err := filesystem.New(ctx, glob)
		if err != nil {
			return nil, fmt.Errorf("file system of %s: %w", glob, err)
		}
		list, err := fs.List(ctx, glob)
		fs.Close()
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", glob, err)
		}
		for _, n := range list {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	return names, nil
}

type convertFn struct {
	Output      string
	Imports     []Import
	MaxFileRows int64
	Symbols     string

	importDir string
	dec       *decode.Decoder
}

// Setup writes the shipped imports to a local folder and builds the decoder
// every element clones.
func (f *convertFn) Setup() error {
	f.dec = decode.New()
	if len(f.Imports) == 0 {
		return nil
	}
	dir, err := os.MkdirTemp("", "etl-fleet-imports-")
	if err != nil {
		return err
	}
	f.importDir = dir
	var paths []string
	for i, im := range f.Imports {
		p := filepath.Join(dir, fmt.Sprintf("%03d-%s", i, filepath.Base(im.Name)))
		if err := os.WriteFile(p, im.Data, 0o644); err != nil {
			return err
		}
		paths = append(paths, p)
	}
	if _, err := f.dec.ImportFiles(paths...); err != nil {
		return fmt.Errorf("imports: %w", err)
	}
	return nil
}

// Teardown removes the local copy of the imports.
func (f *convertFn) Teardown() error {
	if f.importDir != "" {
		return os.RemoveAll(f.importDir)
	}
	return nil
}

// ProcessElement converts one element; its failure is an errors line, not
// the pipeline's failure.
func (f *convertFn) ProcessElement(ctx context.Context, el Element, emitFile, emitErr func(string)) error {
	filesCounter.Inc(ctx, 1)
	res, errs := f.convert(ctx, el)
	bytesCounter.Inc(ctx, res.Bytes)
	eventsCounter.Inc(ctx, int64(res.Events))
	for _, e := range errs {
		errorsCounter.Inc(ctx, 1)
		emitErr(mustJSON(e))
	}
	emitFile(mustJSON(res))
	return nil
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the records hold only strings and numbers
	}
	return string(b)
}

func errorRecord(file string, err error) ErrorRecord {
	r := ErrorRecord{File: file, Reason: err.Error(), Offset: -1}
	var fe *etl.FormatError
	if errors.As(err, &fe) {
		r.Offset = fe.Offset
	}
	return r
}

// Aggregates lists the aggregate outputs, each a folder beside the
// tables' (docs/fleet.md).
var Aggregates = []string{"provider_events", "cpu_samples", "gc_stats", "file_stats"}

func (f *convertFn) convert(ctx context.Context, el Element) (FileResult, []ErrorRecord) {
	group := el.Files
	name := group[0]
	res := FileResult{File: name, Trace: el.Trace, Members: len(group), Host: HostOf(name)}
	work, err := os.MkdirTemp("", "etl-fleet-")
	if err != nil {
		return res, []ErrorRecord{errorRecord(name, err)}
	}
	defer os.RemoveAll(work)
	local, n, err := fetch(ctx, group, work)
	res.Bytes = n
	if err != nil {
		return res, []ErrorRecord{errorRecord(name, err)}
	}
	files, err := driver.Open(local)
	defer func() {
		for _, fl := range files {
			fl.Close()
		}
	}()
	if err != nil {
		return res, []ErrorRecord{errorRecord(name, err)}
	}
	res.Date = "unknown"
	if st := files[0].Header.StartTime; st > 0 {
		res.Date = etl.FiletimeToTime(st).Format("2006-01-02")
	}
	for _, fl := range files {
		res.Lost += fl.Header.EventsLost
	}
	// The tables go to local files (the host is known once the trace is
	// read), then to the output's file system.
	tdir := filepath.Join(work, "tables")
	if err := os.Mkdir(tdir, 0o755); err != nil {
		return res, []ErrorRecord{errorRecord(name, err)}
	}
	// The local files, in the order created: each one's table and part
	// (from 1) of the table.
	type localFile struct {
		path, table string
		part        int
	}
	var written []localFile
	topts := &tables.Options{Aggregates: true, FirstTrace: el.Trace, MaxFileRows: f.MaxFileRows, Workers: 1}
	var syms *sympath.Symbolizer
	if f.Symbols != "" {
		sp, err := sympath.Parse(f.Symbols)
		if err != nil {
			return res, []ErrorRecord{errorRecord(name, err)}
		}
		syms = sympath.NewSymbolizer(ctx, &sympath.Resolver{Locator: &sympath.Locator{Path: sp}})
		topts.Symbolizer = syms
	}
	w, err := tables.NewWriter(tables.NumberParts(func(table string, part int) (io.WriteCloser, error) {
		p := filepath.Join(tdir, fmt.Sprintf("%03d-%s.parquet", len(written), table))
		written = append(written, localFile{p, table, part})
		return tables.CreateFile(p, table)
	}), topts)
	if err != nil {
		return res, []ErrorRecord{errorRecord(name, err)}
	}
	st, err := w.Add(name, files, f.dec.Clone())
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	var warned []ErrorRecord
	if syms != nil {
		// An image without its PDB costs its names only: said in errors.
		serrs, _ := syms.Errors()
		for _, e := range serrs {
			warned = append(warned, errorRecord(name, e))
		}
		if cerr := syms.Close(); cerr != nil {
			warned = append(warned, errorRecord(name, cerr))
		}
	}
	for _, e := range st.Errors {
		warned = append(warned, errorRecord(name, e))
	}
	for _, fl := range files {
		for _, e := range fl.IndexErrors() {
			warned = append(warned, errorRecord(name, e))
		}
	}
	if st.Aggregates != nil {
		res.Damaged = int(st.Aggregates.File.Damaged)
		if c := st.Aggregates.Computer; c != "" {
			res.Computer, res.Host = c, hostName(c)
		}
	}
	if err != nil {
		return res, append(warned, errorRecord(name, err))
	}
	res.Events = int(st.Events)
	base := outputBase(name)
	for _, lf := range written {
		dst := joinPath(f.Output, lf.table, "host="+res.Host, "date="+res.Date, tables.PartName(base, lf.part))
		if err := copyOut(ctx, lf.path, dst); err != nil {
			return res, append(warned, errorRecord(name, err))
		}
		if lf.table == "events" && res.Output == "" {
			res.Output = dst
		}
	}
	ag := st.Aggregates
	for i, write := range []func(io.Writer) error{
		func(w io.Writer) error { return tables.WriteParquet(w, ag.ProviderEvents) },
		func(w io.Writer) error { return tables.WriteParquet(w, ag.CPU) },
		func(w io.Writer) error { return tables.WriteParquet(w, ag.GC) },
		func(w io.Writer) error { return tables.WriteParquet(w, []tables.FileStatsRow{ag.File}) },
	} {
		p := filepath.Join(work, Aggregates[i]+".parquet")
		if err := writeFile(p, write); err != nil {
			return res, append(warned, errorRecord(name, err))
		}
		dst := joinPath(f.Output, Aggregates[i], "host="+res.Host, "date="+res.Date, base+".parquet")
		if err := copyOut(ctx, p, dst); err != nil {
			return res, append(warned, errorRecord(name, err))
		}
	}
	return res, warned
}

// writeFile writes the file p with write.
func writeFile(p string, write func(io.Writer) error) error {
	out, err := os.Create(p)
	if err != nil {
		return err
	}
	err = write(out)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// outputBase is the base name of an element's output files: the first
// file's name without .etl and a hash of its whole name, so that the
// files of two folders of one host do not meet.
func outputBase(name string) string {
	b := path.Base(filepath.ToSlash(localName(name)))
	b = strings.TrimSuffix(b, ".etl")
	h := fnv.New32a()
	h.Write([]byte(name))
	return fmt.Sprintf("%s-%08x", b, h.Sum32())
}

// hostName makes a computer name a partition value.
func hostName(c string) string {
	return strings.NewReplacer("=", "_", "/", "_", "\\", "_").Replace(c)
}

// HostOf is the host of a file whose trace names no computer (no
// SystemConfig events: the log-file header has no computer name): the
// name of its parent folder, "unknown" when it has none.
func HostOf(name string) string {
	p := localName(name)
	dir := path.Base(path.Dir(filepath.ToSlash(p)))
	if dir == "." || dir == "/" || dir == "" {
		return "unknown"
	}
	return hostName(dir)
}

func localName(name string) string {
	if i := strings.Index(name, "://"); i >= 0 {
		return name[i+3:]
	}
	return name
}

func joinPath(base string, elem ...string) string {
	return strings.TrimRight(base, "/") + "/" + strings.Join(elem, "/")
}

// fetch makes the members of the group local files: local paths are used as
// they are, others are copied through Beam's file system into work.
func fetch(ctx context.Context, group []string, work string) ([]string, int64, error) {
	var local []string
	var total int64
	for i, name := range group {
		if !strings.Contains(name, "://") {
			st, err := os.Stat(name)
			if err != nil {
				return nil, total, err
			}
			total += st.Size()
			local = append(local, name)
			continue
		}
		fs, err := filesystem.New(ctx, name)
		if err != nil {
			return nil, total, err
		}
		r, err := fs.OpenRead(ctx, name)
		if err != nil {
			fs.Close()
			return nil, total, err
		}
		dst := filepath.Join(work, fmt.Sprintf("%03d-%s", i, path.Base(localName(name))))
		w, err := os.Create(dst)
		if err == nil {
			var n int64
			n, err = io.Copy(w, r)
			total += n
			if cerr := w.Close(); err == nil {
				err = cerr
			}
		}
		r.Close()
		fs.Close()
		if err != nil {
			return nil, total, fmt.Errorf("copy %s: %w", name, err)
		}
		local = append(local, dst)
	}
	return local, total, nil
}

// copyOut copies a local file to dst on dst's file system (local folders
// are created).
func copyOut(ctx context.Context, src, dst string) error {
	if !strings.Contains(dst, "://") {
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
	}
	fs, err := filesystem.New(ctx, dst)
	if err != nil {
		return err
	}
	defer fs.Close()
	r, err := os.Open(src)
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := fs.OpenWrite(ctx, dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return fmt.Errorf("write %s: %w", dst, err)
	}
	return w.Close()
}
