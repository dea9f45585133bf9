package main

import (
	"bufio"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/etwkit/etw/report"
)

// reportOptions are the options of "report" and of the dump's -report.
type reportOptions struct {
	output  string
	asJSON  bool
	yes     bool
	imports []string
	verbose bool
	symbols symbolOptions
	// baseline are the inputs of --baseline: the report compares with them.
	baseline []string
	strict   strictOption
	quiet    bool
}

func newReportCmd() *cobra.Command {
	var o reportOptions
	cmd := &cobra.Command{
		Use:   "report FILE... [-o report.html] [--json] [-y] [--baseline BEFORE.etl] [-import FILE...] [-v] [--strict]",
		Short: "Write a trace report to read in a browser (one HTML file), or its data as JSON",
		Long: `report reads the files and writes one self-contained HTML page (no network
access, opens from file://): the files' header facts, decode coverage and
damaged buffers; events per second over the trace by provider, with the
moments events were lost; process lifetimes, events and CPU samples; a flame
graph of the sampled CPU stacks (click to zoom, search, per process), a call
tree and the callers and callees of any function; .NET garbage collections,
allocations and JIT activity; disk and file I/O by process and file; the
providers table. A time range selected on any time chart narrows every view
with times to it: the processes' events and CPU samples, the flame graph and
call tree, the .NET GCs, allocations and JIT, the disk and file I/O, the
events table. Sections without data are left out. With --json it writes the same data as one JSON object.

--baseline BEFORE.etl (repeat it for a baseline of several files) compares
the trace with another: a Diff tab, first, with the changes of each
process's CPU samples, .NET GCs and disk and file I/O (processes matched by
image name, since pids differ between traces), a differential flame graph of
the CPU stacks (red grew, blue shrank, as FlameGraph draws them) and the
frames that changed most; the JSON gains "diff". Nothing is normalised:
traces sampled at different intervals are said to be, with the changes in
ms beside the samples.

-o defaults to report.html (report.json with --json); "-o -" writes to
standard output. An existing file is overwritten only with -y, and never
when it is one of the inputs or of the -import paths.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(fmt.Errorf("report: no input file"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.output == "" {
				o.output = "report.html"
				if o.asJSON {
					o.output = "report.json"
				}
			}
			return writeReport(cmd, args, &o)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&o.output, "o", "o", "", "output file (default report.html, report.json with --json; - for standard output)")
	fl.BoolVar(&o.asJSON, "json", false, "write the report's data as JSON instead of HTML")
	fl.BoolVarP(&o.yes, "y", "y", false, "overwrite an existing output file")
	listVar(fl, &o.imports, "import", "schema files or folders to decode with, as for the dump")
	listVar(fl, &o.imports, "manifest", "same as -import")
	fl.BoolVarP(&o.verbose, "verbose", "v", false, "each schema import warning")
	addQuietFlag(fl, &o.quiet)
	fl.StringArrayVar(&o.baseline, "baseline", nil, "compare with this trace (BEFORE; repeat for several files): a Diff tab with a differential flame graph and per-process CPU, GC and I/O changes, \"diff\" in the JSON")
	o.strict.addFlag(fl)
	addSymbolFlags(fl, &o.symbols)
	return cmd
}

// writeReport builds the report of the inputs args and writes it to
// o.output.
func writeReport(cmd *cobra.Command, args []string, o *reportOptions) error {
	goal.SetMinGoal(analysisMinGoal)
	// report.Build reads the inputs report.Passes() times: the analysis
	// model (which is the prescan too), then every event.
	t := &traceOptions{
		imports: o.imports, verbose: o.verbose,
		outputs: []string{o.output}, yes: o.yes,
		passes: report.Passes(), quiet: o.quiet || o.output == "-" && isTerminal(cmd.OutOrStdout()),
	}
	syms, err := o.symbols.symbolizer(cmd)
	if err != nil {
		return err
	}
	files, dec, err := openTrace(cmd, args, t)
	defer closeAll(files)
	defer t.endProgress()
	if err != nil {
		return err
	}
	var base *report.Baseline
	if len(o.baseline) > 0 {
		base, err = openBaseline(cmd, o)
		defer closeAll(base.Files)
		if err != nil {
			return err
		}
	}
	w, commit, abort, err := createOutput(cmd, o.output, o.yes)
	if err != nil {
		return err
	}
	defer abort()
	ro := &report.Options{Names: inputPaths(files)}
	if syms != nil {
		ro.Symbolizer = syms
	}
	var d *report.Data
	if base != nil {
		d, err = report.BuildDiff(files, dec, ro, base)
	} else {
		d, err = report.Build(files, dec, ro)
	}
	t.endProgress()
	syms.finish(cmd)
	o.strict.warnList(cmd, err)
	if err := o.strict.check(); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	if o.asJSON {
		err = json.NewEncoder(bw).Encode(d)
	} else {
		err = d.WriteHTML(bw)
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return err
	}
	return commit()
}
