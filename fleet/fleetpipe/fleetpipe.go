// Package fleetpipe is the Apache Beam pipeline of etl-fleet: it lists the
// .etl files a glob names on any file system Beam's Go SDK has registered,
// keeps AutoLogger .etl.NNN sets together as one element, converts each
// element with the toolkit's driver (the same Parquet dump as
// tracerpt-go -of PARQUET), writes it under events/host=…/date=…, and
// reports per element what was read and what failed.
package fleetpipe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/driver"
	"github.com/etwkit/etw/etl"
)

func init() {
	register.DoFn3x1[context.Context, string, func([]string), error](&expandFn{})
	register.Emitter1[[]string]()
	register.DoFn4x1[context.Context, []string, func(string), func(string), error](&convertFn{})
	register.Emitter1[string]()
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
	Members int    `json:"members"`
	Host    string `json:"host"`
	Date    string `json:"date"`
	Bytes   int64  `json:"bytes"`
	Events  int    `json:"events"`
	Lost    uint32 `json:"events_lost"`
	Damaged int    `json:"damaged"`
	Output  string `json:"output,omitempty"`
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

// Build adds the pipeline to s: the files the globs name, converted under outDir,
// with the imports shipped. It returns the files and errors outputs (JSON
// lines, one per element and one per error).
func Build(s beam.Scope, globs []string, outDir string, imports []Import) (files, errs beam.PCollection) {
	s = s.Scope("etl-fleet")
	groups := beam.ParDo(s, &expandFn{}, beam.CreateList(s, globs))
	groups = beam.Reshuffle(s, groups)
	return beam.ParDo2(s, &convertFn{Output: outDir, Imports: imports}, groups)
}

type expandFn struct{}

var seqSuffix = regexp.MustCompile(`^(.*\.etl)\.(\d+)$`)

// ProcessElement lists the glob and emits one element per file, the members
// of an .etl.NNN set (and its .etl) together, sorted.
func (f *expandFn) ProcessElement(ctx context.Context, glob string, emit func([]string)) error {
	fs, err := filesystem.New(ctx, glob)
	if err != nil {
		return fmt.Errorf("file system of %s: %w", glob, err)
	}
	defer fs.Close()
	names, err := fs.List(ctx, glob)
	if err != nil {
		return fmt.Errorf("list %s: %w", glob, err)
	}
	for _, g := range GroupFiles(names) {
		emit(g)
	}
	return nil
}

// GroupFiles groups file names into elements: name.etl.NNN and name.etl are
// one element (members sorted by sequence number, the .etl first); other
// names, that do not look like traces, are their own elements.
func GroupFiles(names []string) [][]string {
	sets := map[string][]string{}
	var keys []string
	for _, n := range names {
		key := n
		if m := seqSuffix.FindStringSubmatch(n); m != nil {
			key = m[1]
		}
		if _, ok := sets[key]; !ok {
			keys = append(keys, key)
		}
		sets[key] = append(sets[key], n)
	}
	sort.Strings(keys)
	out := make([][]string, 0, len(keys))
	for _, k := range keys {
		g := sets[k]
		sort.Slice(g, func(i, j int) bool { return seqLess(g[i], g[j]) })
		out = append(out, g)
	}
	return out
}

func seqLess(a, b string) bool {
	na, nb := seqNum(a), seqNum(b)
	if na != nb {
		return na < nb
	}
	return a < b
}

func seqNum(n string) int {
	m := seqSuffix.FindStringSubmatch(n)
	if m == nil {
		return -1
	}
	v := 0
	for _, c := range m[2] {
		v = v*10 + int(c-'0')
		if v > 1<<30 {
			break
		}
	}
	return v
}

type convertFn struct {
	Output  string
	Imports []Import

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
func (f *convertFn) ProcessElement(ctx context.Context, group []string, emitFile, emitErr func(string)) error {
	filesCounter.Inc(ctx, 1)
	res, errs := f.convert(ctx, group)
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

func (f *convertFn) convert(ctx context.Context, group []string) (FileResult, []ErrorRecord) {
	name := group[0]
	res := FileResult{File: name, Members: len(group), Host: HostOf(name)}
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
	out := filepath.Join(work, "events.parquet")
	var warned []ErrorRecord
	r, err := driver.Dump(ctx, &driver.Options{
		Files:   files,
		Names:   group,
		Decoder: f.dec.Clone(),
		Workers: 1,
		Format:  driver.Parquet,
		Output:  out,
		Warn:    func(e error) {},
	})
	for _, e := range r.Errors {
		warned = append(warned, errorRecord(name, e))
	}
	for _, fl := range files {
		for _, e := range fl.IndexErrors() {
			warned = append(warned, errorRecord(name, e))
		}
	}
	res.Damaged = len(r.Errors)
	if err != nil {
		return res, append(warned, errorRecord(name, err))
	}
	res.Events = r.Written
	dst := joinPath(f.Output, "events", "host="+res.Host, "date="+res.Date, path.Base(localName(name))+".parquet")
	if err := copyOut(ctx, out, dst); err != nil {
		return res, append(warned, errorRecord(name, err))
	}
	res.Output = dst
	return res, warned
}

// HostOf is the host a file belongs to: the name of its parent folder
// (the trace header carries no computer name), "unknown" when it has none.
func HostOf(name string) string {
	p := localName(name)
	dir := path.Base(path.Dir(filepath.ToSlash(p)))
	if dir == "." || dir == "/" || dir == "" {
		return "unknown"
	}
	return strings.NewReplacer("=", "_", "/", "_").Replace(dir)
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
