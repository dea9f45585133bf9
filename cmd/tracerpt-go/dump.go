package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/etwkit/etw/cmd/tracerpt-go/internal/cmdline"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/driver"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/parquetout"
	"github.com/etwkit/etw/pipeline"
	"github.com/etwkit/etw/tracerpt"
)

type dumpOptions struct {
	symbols   symbolOptions
	output    string
	outputs   []string // every -o given (one is allowed)
	format    string
	summary   string
	report    string
	reportFmt string // tracerpt's -f: the -report format
	export    string
	config    string
	yes       bool
	inputs    bool // -l: tracerpt's "input files follow" marker
	manifests []string
	lr        bool
	tz        string
	culture   string
	rts       bool
	encoding  string

	fileOrder bool
	workers   int
	nearest   bool
	raw       bool
	noAnalyze bool
	quiet     bool
	strict    bool
	verbose   bool

	splitDir    string // --split-by-event: Parquet tables per event type
	compression string // Parquet codec
	jobs        int    // --jobs: one output per input, this many at a time
	// base, for the jobs of --jobs, is a decoder holding the imports,
	// which each job forks instead of importing them again.
	base *decode.Decoder

	providers, excludeProviders []string
	eventNames, processes       []string
	eventIDs, levels            string
	keywordsAny, keywordsAll    string
	pids, tids                  string
	start, end                  string
	maxEvents                   int
}

// newDecoder makes the decoder of a dump; tests replace it.
var newDecoder = decode.New

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	var o dumpOptions
	root := &cobra.Command{
		Use:   "tracerpt-go [-l] FILE... [-o [FILE]] [-of XML|CSV|JSON] [-summary [FILE]] [-import FILE...] [-lr] [-y] [options]",
		Short: "Read Windows ETW trace files (.etl) as tracerpt does",
		Long: `tracerpt-go reads Windows ETW trace files (.etl) on Linux, macOS and Windows
and writes what Windows' tracerpt writes: an XML or CSV dump of every event
(default dumpfile.xml) and a summary file (-summary, default summary.txt).
It also writes JSON Lines (-of JSON), filters events while reading, and merges
several files, globs ("logs/*.etl") and AutoLogger sequences (trace.etl.001,
trace.etl.002, …; name "trace.etl" to take them all) into one time-ordered
stream.

Options may be written tracerpt-style with one dash (-of, -summary, -lr,
-tz) or GNU-style with two (--of). "-o -" writes the dump to standard output.
Existing output files are kept unless -y is given. tracerpt's other options
are understood too: -gmt (= --tz UTC), -f HTML (= --report-format, the -report
format), -tmf FILE and -tp DIR (= -import), -? (= --help).

Exit status: 0 success; 1 failure while processing; 2 bad command line;
3 an input file is missing or not an ETL file; 4 an output file exists and -y
was not given; 5 damaged input with --strict; 6 a schema file cannot be used;
7 stacks found nothing to profile (no file written);
130 interrupted (outputs being written are removed, existing ones kept).`,
		Example: `  tracerpt-go trace.etl -o trace.xml -of XML -y
  tracerpt-go trace.etl -of CSV -o trace.csv -tz -05:00 -culture en-CA
  tracerpt-go trace.etl -summary summary.txt
  tracerpt-go 'logs/*.etl' -of JSON -o - --provider Microsoft-Windows-PktMon --max-events 100
  tracerpt-go info trace.etl`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(fmt.Errorf("no input file (run '%s --help' for usage)", cmd.CommandPath()))
			}
			return nil
		},
		SilenceUsage:          true,
		SilenceErrors:         true,
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDump(cmd, args, &o)
		},
	}
	// cobra's completion command: tracerpt-go completion bash|zsh|fish|powershell.
	root.SetOut(stdout)
	root.SetErr(stderr)
	fl := root.Flags()
	fl.SortFlags = false
	// tracerpt's options.
	fl.BoolVarP(&o.inputs, "l", "l", false, "the arguments that follow are input files (tracerpt's -l; optional)")
	fl.VarP(&onceValue{&o.output, &o.outputs}, "o", "o", "dump file; without a value dumpfile.xml (.csv, .json by format); - for standard output")
	fl.StringVar(&o.format, "of", "XML", "dump format: XML (tracerpt's XML), CSV (tracerpt's CSV), JSON (JSON Lines) or PARQUET")
	fl.StringVar(&o.summary, "summary", "", "write tracerpt's summary file; without a value summary.txt (only the summary is written unless -o is given too)")
	listVar(fl, &o.manifests, "import", "instrumentation manifest(s), or folders of them, to decode events with (-import a.man b.man)")
	fl.BoolVar(&o.lr, "lr", false, "less restrictive: show the properties that decoded for events that do not fit their schema")
	fl.BoolVarP(&o.yes, "y", "y", false, "overwrite existing output files")
	fl.BoolVarP(&o.verbose, "verbose", "v", false, "say more: each schema import warning")
	fl.StringVar(&o.tz, "tz", "UTC", "time zone of XML TimeCreated and summary dates: UTC, local, an offset (-05:00) or an IANA name (tracerpt's -gmt is -tz UTC)")
	fl.StringVar(&o.culture, "culture", tracerpt.DefaultCulture, "culture of RenderingInfo and of the summary's dates (en-US, en-CA, en-GB, de-DE, …)")
	fl.BoolVar(&o.rts, "rts", false, "add the raw timestamp (TimeCreated RawTime) to the XML dump")
	fl.StringVar(&o.encoding, "en", "ANSI", "CSV encoding: ANSI (Windows-1252), Unicode (UTF-16LE with BOM) or UTF8")
	fl.StringVar(&o.report, "report", "", "write the trace report (HTML, as the report command); without a value workload.html; only the report unless -o or -summary is given too")
	fl.StringVar(&o.reportFmt, "report-format", "", "the -report format, HTML (the only one); tracerpt's -f FORMAT")
	fl.StringVar(&o.export, "export", "", "tracerpt's schema export: not supported")
	fl.StringVar(&o.config, "config", "", "tracerpt's settings file: not supported")
	addFilterFlags(fl, &o)
	listVar(fl, &o.processes, "process", "keep only events of processes with these image names (notepad.exe or notepad; comma-separated)")
	// Reading.
	fl.BoolVar(&o.fileOrder, "file-order", false, "deliver events in file order instead of time order")
	fl.IntVar(&o.workers, "workers", 0, "goroutines that read, decode and render (0: one per CPU)")
	fl.BoolVar(&o.nearest, "nearest-version", false, "decode an event whose exact version has no schema with the nearest version")
	fl.BoolVar(&o.raw, "raw", false, "JSON: include user_data (hex) even for decoded events")
	addSymbolFlags(fl, &o.symbols)
	fl.BoolVar(&o.noAnalyze, "no-analysis", false, "JSON: no process_name or stack, header ids only (skips the pass over the input that builds the analysis model)")
	fl.StringVar(&o.splitDir, "split-by-event", "", "Parquet: one table per provider and event name under this directory, a typed column per property")
	fl.StringVar(&o.compression, "compression", "snappy", "Parquet: compression codec, snappy, zstd or none")
	fl.IntVar(&o.jobs, "jobs", 0, "convert each input on its own, to its own file under the -o directory, this many at a time (0: one per CPU)")
	addQuietFlag(fl, &o.quiet)
	fl.BoolVar(&o.strict, "strict", false, "stop with exit status 5 at the first damaged buffer or record (default: warn and go on)")
	listVar(fl, &o.manifests, "manifest", "same as -import")
	setFlagErrors(root)
	return root
}

// subcommands are the commands below the root, each made when it is
// added (addSubcommands).
var subcommands = []struct {
	name string
	make func() *cobra.Command
}{
	{"info", newInfoCmd}, {"providers", newProvidersCmd}, {"schemas", newSchemasCmd}, {"relog", newRelogCmd},
	{"synth", newSynthCmd}, {"stacks", newStacksCmd}, {"stats", newStatsCmd}, {"report", newReportCmd},
	{"pcapng", newPcapngCmd}, {"pdb", newPDBCmd}, {"tables", newTablesCmd},
}

// addSubcommands adds the subcommands to root, as args (normalized)
// need them: only the one args name first (tracerpt-go stats trace.etl),
// none for a dump (tracerpt-go trace.etl -of JSON: a first argument that
// is neither a command nor an option), else all of them (help, help
// options, completion, options before the command's name, no
// arguments). The root's flag error function (setFlagErrors) is theirs
// too: cobra looks for one up the tree. Making every command and its
// options took ~0.3 ms of each start, and cobra's completion command
// ~0.06 ms more, which only a run of the completion command or of the
// full tree needs (docs/performance.md, "Session 32").
func addSubcommands(root *cobra.Command, args []string) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") && !cmdline.TreeCommand(args[0]) && !cmdline.AsksHelp(args) {
		root.CompletionOptions.DisableDefaultCmd = true
		for _, sc := range subcommands {
			if sc.name == args[0] {
				root.AddCommand(sc.make())
				return
			}
		}
		return // a dump: no command below the root is run
	}
	for _, sc := range subcommands {
		root.AddCommand(sc.make())
	}
}

// addFilterFlags registers the event filters (shared by the dump and relog).
func addFilterFlags(fl *pflag.FlagSet, o *dumpOptions) {
	listVar(fl, &o.providers, "provider", "keep only events of these providers, by name or GUID (repeatable, comma-separated)")
	listVar(fl, &o.excludeProviders, "exclude-provider", "drop events of these providers, by name or GUID (repeatable, comma-separated)")
	listVar(fl, &o.eventNames, "event-name", "keep only events with these names: [PROVIDER/]NAME, NAME a symbol with or without _Vn, Task/Opcode, a task or opcode name, an event id (GC/Start, Microsoft-Windows-DotNETRuntime/GC/Start, GCStart_V1, GCStart)")
	fl.StringVar(&o.eventIDs, "event-id", "", "keep only these event ids: a list of numbers and ranges (1,5-9)")
	fl.StringVar(&o.levels, "level", "", "keep only these levels: numbers, ranges or names (1-3, error, warning, info, verbose)")
	fl.StringVar(&o.keywordsAny, "keywords", "", "keep only events with at least one of these keyword bits (0x10)")
	fl.StringVar(&o.keywordsAll, "keywords-all", "", "keep only events with all of these keyword bits")
	fl.StringVar(&o.pids, "pid", "", "keep only events of these process ids (comma-separated)")
	fl.StringVar(&o.tids, "tid", "", "keep only events of these thread ids (comma-separated)")
	fl.StringVar(&o.start, "start", "", "keep only events at or after this time: RFC 3339 (2021-06-01T16:11:00Z) or a duration from the trace start (+30s)")
	fl.StringVar(&o.end, "end", "", "keep only events before this time (same forms as --start)")
	fl.IntVar(&o.maxEvents, "max-events", 0, "stop after writing this many events (0: no limit)")
}

// openFiltered parses the filter options, opens the inputs and resolves the
// filter's time bounds against them. The files are returned for closing,
// on error too.
func (o *dumpOptions) openFiltered(args []string) ([]*etl.File, *filterOptions, error) {
	filter, err := o.filter()
	if err != nil {
		return nil, nil, usageError(err)
	}
	files, err := openInputs(args)
	if err != nil {
		return files, nil, err
	}
	if err := filter.resolveTimes(files); err != nil {
		return files, nil, usageError(err)
	}
	return files, filter, nil
}

func closeAll(files []*etl.File) {
	for _, f := range files {
		f.Close()
	}
}

// openInputs expands globs and .etl.NNN sequences and opens the files.
// On error the files opened so far are returned for closing.
func openInputs(args []string) ([]*etl.File, error) {
	files, err := driver.Open(args)
	var oe *driver.OpenError
	if errors.As(err, &oe) {
		return files, withCode(exitInput, explainNotETL(oe.Path, oe.Err))
	}
	if err != nil {
		return files, withCode(exitInput, err)
	}
	return files, nil
}

// checkNotETLOutputs rejects a dump, summary or report file named like a
// trace: the dump writes text, JSON or Parquet, and an .etl name is almost
// always an input misplaced after -o (which would otherwise be read as an
// input, or overwritten).
func checkNotETLOutputs(o *dumpOptions) error {
	for _, c := range []struct{ opt, name string }{{"-o", o.output}, {"-summary", o.summary}, {"-report", o.report}} {
		if c.name != "" && c.name != "-" && looksLikeTrace(c.name) {
			return usageError(fmt.Errorf("%s %s: the dump does not write ETL files; 'tracerpt-go relog IN.etl -o %s' writes one (the inputs come before -o)", c.opt, c.name, c.name))
		}
	}
	return nil
}

// warn prints a warning on standard error.
func warn(cmd *cobra.Command, err error) {
	fmt.Fprintf(cmd.ErrOrStderr(), "tracerpt-go: warning: %v\n", err)
}

func runDump(cmd *cobra.Command, args []string, o *dumpOptions) error {
	fl := cmd.Flags()
	if len(o.outputs) > 1 {
		return usageError(fmt.Errorf("-o given %d times (%s): one dump file per run (-summary FILE names the summary)", len(o.outputs), strings.Join(o.outputs, ", ")))
	}
	if err := checkNotETLOutputs(o); err != nil {
		return err
	}
	if !fl.Changed("jobs") {
		inferFormat(cmd, o, fl.Changed("of"))
	}
	format, err := parseDumpFormat(o, fl.Changed("of"))
	if err != nil {
		return usageError(err)
	}
	warnInapplicable(cmd, o, format)
	if o.export != "" {
		return usageError(errors.New("-export is not supported; 'tracerpt-go schemas FILE --export DIR' exports schemas as manifests"))
	}
	if o.config != "" {
		return usageError(errors.New("-config is not supported; write the options on the command line"))
	}
	if o.reportFmt != "" {
		switch {
		case o.report == "":
			return usageError(fmt.Errorf("-f %s sets the format of -report; add -report [FILE]", o.reportFmt))
		case strings.EqualFold(o.reportFmt, "XML"):
			return usageError(errors.New("-f XML: the report is HTML here (-f HTML); its data as JSON: tracerpt-go report --json"))
		case !strings.EqualFold(o.reportFmt, "HTML"):
			return usageError(fmt.Errorf("-f %s: want HTML", o.reportFmt))
		}
	}
	if o.report != "" {
		// tracerpt's -report: the HTML report; the dump too only if asked for.
		ro := &reportOptions{output: o.report, yes: o.yes, imports: o.manifests, verbose: o.verbose, strict: strictOption{strict: o.strict}}
		if err := writeReport(cmd, args, ro); err != nil || !fl.Changed("o") && !fl.Changed("summary") {
			return err
		}
	}
	ropts := &tracerpt.Options{LessRestrictive: o.lr, RawTimestamp: o.rts, Raw: o.raw}
	if ropts.Zone, err = tracerpt.ParseZone(o.tz); err != nil {
		return usageError(err)
	}
	culture, known, err := tracerpt.ParseCulture(o.culture)
	if err != nil {
		return usageError(err)
	}
	if !known && fl.Changed("summary") {
		warn(cmd, fmt.Errorf("culture %s: no date format known, summary dates use the invariant culture's", o.culture))
	}
	ropts.Culture = culture
	switch {
	case strings.EqualFold(o.encoding, "ANSI"):
		ropts.Encoding = tracerpt.ANSI
	case strings.EqualFold(o.encoding, "Unicode"):
		ropts.Encoding = tracerpt.Unicode
	case strings.EqualFold(o.encoding, "UTF8"), strings.EqualFold(o.encoding, "UTF-8"):
		ropts.Encoding = tracerpt.UTF8
	default:
		return usageError(fmt.Errorf("encoding %q: want ANSI, Unicode or UTF8", o.encoding))
	}
	if fl.Changed("jobs") {
		return runJobs(cmd, args, o, format, ropts)
	}
	return dumpInputs(cmd, args, o, format, ropts)
}

// dumpInputs dumps the events of the inputs args, merged, to the outputs
// o names.
func dumpInputs(cmd *cobra.Command, args []string, o *dumpOptions, format driver.Format, ropts *tracerpt.Options) error {
	fl := cmd.Flags()
	filter, err := o.filter()
	if err != nil {
		return usageError(err)
	}
	// Outputs: the dump unless only -summary was asked for.
	dump := fl.Changed("o") || !fl.Changed("summary") || o.splitDir != ""
	dumpPath := o.output
	if dumpPath == "" {
		dumpPath = defaultDumpPath(format, o)
	}
	summaryPath := o.summary
	if dump && summaryPath != "" && summaryPath == dumpPath {
		if dumpPath == "-" {
			return usageError(errors.New("the dump and the summary cannot both go to standard output (-summary - alone, or -o FILE)"))
		}
		return usageError(fmt.Errorf("the dump and the summary cannot both be %s", dumpPath))
	}
	toTerminal := dump && dumpPath == "-" && isTerminal(cmd.OutOrStdout())
	if format == driver.Parquet && toTerminal && o.splitDir == "" {
		return usageError(errors.New("a Parquet dump is binary: it is not written to a terminal (give -o FILE or redirect)"))
	}
	// The inputs, read twice (the prescan or the analysis model, then the
	// dump; a compressed buffer is decompressed in each pass: no buffer
	// cache is kept between them), with a progress bar
	// over both passes unless the dump itself goes to the terminal.
	t := &traceOptions{imports: o.manifests, verbose: o.verbose, outputs: []string{summaryPath}, yes: o.yes,
		passes: 2, quiet: o.quiet || toTerminal, base: o.base}
	if dump {
		t.outputs = append(t.outputs, dumpPath)
	}
	files, dec, err := openTrace(cmd, args, t)
	defer closeAll(files)
	defer t.endProgress()
	if err != nil {
		return err
	}
	if err := filter.resolveTimes(files); err != nil {
		return usageError(err)
	}
	if dump && o.splitDir != "" {
		if err := checkSplitDir(o.splitDir, o.yes); err != nil {
			return err
		}
	}
	dec.Nearest = o.nearest
	syms, err := o.symbols.symbolizer(cmd)
	if err != nil {
		return err
	}

	d := &driver.Options{
		Files:      files,
		Order:      etl.TimeOrder,
		Decoder:    dec,
		Workers:    o.workers,
		Strict:     o.strict,
		Warn:       func(err error) { warn(cmd, err) },
		Filter:     filter.Filter,
		Processes:  o.processes,
		NoAnalysis: o.noAnalyze,
		NoProcess: func(names, known []string) {
			fmt.Fprintf(cmd.ErrOrStderr(), "tracerpt-go: no event matched: no process named %s in this trace; known: %s\n", strings.Join(names, ", "), strings.Join(known, ", "))
		},
		Format:  format,
		Stdout:  cmd.OutOrStdout(),
		Render:  *ropts,
		Summary: summaryPath,
	}
	if o.fileOrder {
		d.Order = etl.FileOrder
	}
	if dump {
		d.Output, d.SplitDir = dumpPath, o.splitDir
		if o.splitDir != "" {
			d.Output = ""
		}
	}
	if syms != nil {
		d.Symbolizer = syms
	}
	d.Compression, _ = parquetout.ParseCompression(o.compression)
	if dump && format != driver.Parquet {
		goal.SetTarget(textDumpTarget)
	}
	res, err := driver.Dump(context.Background(), d)
	t.endProgress()
	syms.finish(cmd)
	if err != nil {
		var ce *pipeline.CorruptError
		if errors.As(err, &ce) {
			return withCode(exitCorrupt, err)
		}
		return err
	}
	if res.Written == 0 && o.filtered() && !res.NoProcess {
		reportNoMatch(cmd, dec, files, &filter.Filter)
	}
	return nil
}

// onceValue is -o: a string that remembers each time it was given, so
// that two -o are an error instead of the last one winning.
type onceValue struct {
	p    *string
	seen *[]string
}

func (v *onceValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}
func (v *onceValue) Set(s string) error { *v.p = s; *v.seen = append(*v.seen, s); return nil }
func (v *onceValue) Type() string       { return "string" }

// formatByExt is the dump format an -o file's extension implies.
var formatByExt = map[string]string{".json": "JSON", ".jsonl": "JSON", ".ndjson": "JSON", ".csv": "CSV", ".xml": "XML", ".parquet": "PARQUET"}

// inferFormat takes the dump format from -o's extension when -of is not
// given (-o out.json writes JSON Lines), and says so when -of and the
// extension disagree or the extension names no format.
func inferFormat(cmd *cobra.Command, o *dumpOptions, ofGiven bool) {
	if o.output == "" || o.output == "-" || o.splitDir != "" {
		return
	}
	ext := strings.ToLower(filepath.Ext(o.output))
	want, known := formatByExt[ext]
	switch {
	case !ofGiven && known:
		o.format = want
	case !ofGiven && ext != "":
		warn(cmd, fmt.Errorf("-o %s: %s names no dump format; writing XML (-of XML|CSV|JSON|PARQUET sets it)", o.output, ext))
	case ofGiven && known && !strings.EqualFold(want, o.format):
		warn(cmd, fmt.Errorf("-o %s: writing %s as -of says, not %s", o.output, strings.ToUpper(o.format), want))
	}
}

// warnInapplicable reports the options given that do not apply to the
// dump format (they change nothing).
func warnInapplicable(cmd *cobra.Command, o *dumpOptions, format driver.Format) {
	fl := cmd.Flags()
	name := strings.ToUpper(o.format)
	if fl.Changed("raw") && !format.Annotates() {
		warn(cmd, fmt.Errorf("--raw adds user_data to JSON and Parquet; -of %s has no such field", name))
	}
	if fl.Changed("rts") && format != driver.XML {
		warn(cmd, fmt.Errorf("-rts adds RawTime to the XML dump; -of %s has no such field", name))
	}
	if fl.Changed("en") && format != driver.CSV {
		warn(cmd, fmt.Errorf("-en sets the CSV encoding; -of %s is always UTF-8", name))
	}
	if fl.Changed("summary") && !fl.Changed("o") && fl.Changed("of") && o.splitDir == "" {
		warn(cmd, fmt.Errorf("-of %s: -summary without -o writes only the summary; add -o FILE for the dump", name))
	}
}

// filterOptions is a pipeline.Filter with its time bounds still as text
// (relative bounds need the trace start).
type filterOptions struct {
	pipeline.Filter
	start, end string
}

func (o *dumpOptions) filter() (*filterOptions, error) {
	f := &filterOptions{start: o.start, end: o.end}
	f.MaxEvents = o.maxEvents
	if o.maxEvents < 0 {
		return nil, fmt.Errorf("--max-events %d: want 0 or more", o.maxEvents)
	}
	if o.workers < 0 || o.workers > etl.MaxWorkers {
		return nil, fmt.Errorf("--workers %d: want 0 (one per CPU) to %d", o.workers, etl.MaxWorkers)
	}
	for _, list := range []struct {
		in  []string
		out *[]pipeline.Provider
	}{{o.providers, &f.Providers}, {o.excludeProviders, &f.ExcludeProviders}} {
		for _, s := range list.in {
			p, err := pipeline.ParseProvider(s)
			if err != nil {
				return nil, err
			}
			*list.out = append(*list.out, p)
		}
	}
	for _, s := range o.eventNames {
		n, err := pipeline.ParseEventName(s)
		if err != nil {
			return nil, fmt.Errorf("--event-name: %w", err)
		}
		f.EventNames = append(f.EventNames, n)
	}
	var err error
	if o.eventIDs != "" {
		if f.EventIDs, err = pipeline.ParseRanges(o.eventIDs, 65535); err != nil {
			return nil, fmt.Errorf("--event-id: %w", err)
		}
	}
	if o.levels != "" {
		if f.Levels, err = pipeline.ParseLevels(o.levels); err != nil {
			return nil, fmt.Errorf("--level: %w", err)
		}
	}
	for _, k := range []struct {
		s   string
		out *uint64
		n   string
	}{{o.keywordsAny, &f.KeywordsAny, "--keywords"}, {o.keywordsAll, &f.KeywordsAll, "--keywords-all"}} {
		if k.s == "" {
			continue
		}
		r, err := pipeline.ParseRanges(k.s, ^uint64(0))
		if err != nil || len(r) != 1 || r[0].Lo != r[0].Hi {
			return nil, fmt.Errorf("%s %q: want one number such as 0x10", k.n, k.s)
		}
		*k.out = r[0].Lo
	}
	if o.pids != "" {
		if f.PIDs, err = pipeline.ParseUint32List(o.pids); err != nil {
			return nil, fmt.Errorf("--pid: %w", err)
		}
	}
	if o.tids != "" {
		if f.TIDs, err = pipeline.ParseUint32List(o.tids); err != nil {
			return nil, fmt.Errorf("--tid: %w", err)
		}
	}
	return f, nil
}

// resolveTimes turns --start and --end into FILETIMEs; relative bounds
// count from the earliest start of the files.
func (f *filterOptions) resolveTimes(files []*etl.File) error {
	var start int64
	for _, fl := range files {
		if st := fl.Header.StartTime; st != 0 && (start == 0 || st < start) {
			start = st
		}
	}
	var err error
	if f.start != "" {
		if f.Start, err = pipeline.ParseTime(f.start, start); err != nil {
			return fmt.Errorf("--start: %w", err)
		}
		f.HasStart = true // 0 is the FILETIME epoch, not "no bound"
	}
	if f.end != "" {
		if f.End, err = pipeline.ParseTime(f.end, start); err != nil {
			return fmt.Errorf("--end: %w", err)
		}
		f.HasEnd = true
	}
	if f.HasStart && f.HasEnd && f.Start >= f.End {
		return fmt.Errorf("--start %s is not before --end %s: no event can match", f.start, f.end)
	}
	return nil
}
