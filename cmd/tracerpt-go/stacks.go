package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/atomicfile"
	"github.com/etwkit/etw/pipeline"
)

type analysisOptions struct {
	manifests []string
	verbose   bool
	symbols   symbolOptions
	syms      *pdbSymbolizer
}

// addAnalysisFlags registers the options the analysis commands share.
func addAnalysisFlags(cmd *cobra.Command, o *analysisOptions) {
	fl := cmd.Flags()
	fl.StringSliceVar(&o.manifests, "import", nil, "instrumentation manifest(s), or folders of them, to decode events with (as for the dump)")
	fl.StringSliceVar(&o.manifests, "manifest", nil, "same as -import")
	fl.BoolVarP(&o.verbose, "verbose", "v", false, "each schema import warning")
	addSymbolFlags(fl, &o.symbols)
}

// buildModel opens the inputs, checks the outputs and imports the schemas
// as t says (openTrace), then builds the analysis model in one pass. With
// prescan that pass also registers the schemas the trace carries, for a
// pass that follows and decodes every event. The files are returned for
// closing, on error too.
func (o *analysisOptions) buildModel(cmd *cobra.Command, args []string, t *traceOptions, prescan bool) ([]*etl.File, *decode.Decoder, *analysis.Model, error) {
	t.imports, t.verbose, t.prescan = o.manifests, o.verbose, false
	syms, err := o.symbols.symbolizer(cmd)
	if err != nil {
		return nil, nil, nil, err
	}
	files, dec, err := openTrace(cmd, args, t)
	if err != nil {
		return files, nil, nil, err
	}
	var m *analysis.Model
	if !prescan {
		var ao *analysis.Options
		if t.observe != nil {
			ao = &analysis.Options{Observe: func(ev *etl.Event) { t.observe(ev, dec) }}
		}
		var err error
		m, err = analysis.Build(files, dec, ao)
		warnList(cmd, err)
	} else {
		var readErr, prescanErr error
		m, readErr, prescanErr = pipeline.Prepare(files, dec)
		warnList(cmd, readErr)
		// The prescan's schema problems (not damage: an errors.Join), one
		// warning each, as this command has always printed them.
		if j, ok := prescanErr.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				warn(cmd, e)
			}
		} else {
			warnList(cmd, prescanErr)
		}
	}
	if syms != nil {
		o.syms = syms
		m.SetSymbolizer(syms)
	}
	return files, dec, m, nil
}

// createOutput opens the output of an analysis command: standard output
// for "" and "-", else a file written atomically (an existing regular file
// only with -y). commit finishes it; abort, safe to defer, removes it
// unless commit ran.
func createOutput(cmd *cobra.Command, path string, yes bool) (w io.Writer, commit func() error, abort func(), err error) {
	if path == "" || path == "-" {
		return cmd.OutOrStdout(), func() error { return nil }, func() {}, nil
	}
	if err := refuseExisting(path, yes); err != nil {
		return nil, nil, nil, err
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, nil, nil, err
	}
	return f.Writer(), f.Commit, f.Abort, nil
}

// stdoutIsTerminal reports whether the command's standard output is a
// terminal, where stacks does not write binary pprof data (a variable for
// the tests).
var stdoutIsTerminal = isTerminal

func newStacksCmd() *cobra.Command {
	var o analysisOptions
	var output, format, event, pids string
	var yes bool
	cmd := &cobra.Command{
		Use:   "stacks FILE... [-o OUT] [--format folded|speedscope|pprof] [--event PROVIDER/NAME] [--pid N,...] [-import FILE...]",
		Short: "Aggregate the call stacks of CPU samples (or other events) for flame graphs",
		Long: `stacks gives every event its process and call stack (stack extended items,
kernel StackWalk events and stack keys, .NET stack walks), resolves the frames
to modules and .NET methods, and aggregates the stacks of the selected events:
CPU samples (PerfInfo SampleProf, idle thread excluded) by default, or the
events of --event PROVIDER/NAME (a provider name or GUID, and an event name,
task name, Task/Opcode or event id).

--format folded (default) writes one line per distinct stack, "process;frame;
...;frame count", frames from the outermost to the innermost: the input of
FlameGraph's flamegraph.pl, inferno and speedscope. --format speedscope writes
speedscope's own JSON file format, one profile per process. The counts add up
to the number of events selected. Frames are named by module ("ntdll.dll")
or, for .NET code, "module!Type.Method"; "?" marks addresses outside any
known module. With a symbol path (--symbols PATH, else _NT_SYMBOL_PATH)
native code is named "module!Function" through the PDB of each image that
holds a frame of a selected event (see 'tracerpt-go pdb' and docs/cli.md).

--format pprof writes a gzip-compressed pprof profile (go tool pprof, and the
profilers that read pprof) with -o FILE (not to a terminal): one sample per
event selected, labels process, thread, pid and tid, one location per code
address with its image as the mapping (the PDB GUID and age as build id),
functions named after the .NET method, the PDB's function (with its file
and line) or "module!0xOFFSET". CPU samples have
the values samples/count and cpu/nanoseconds (the trace's sampling interval,
1 ms when it logs none); other events events/count.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(fmt.Errorf("stacks: no input file"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			format = strings.ToLower(format)
			if format != "folded" && format != "speedscope" && format != "pprof" {
				return usageError(fmt.Errorf("--format %q: want folded or speedscope (text) or pprof (binary)", format))
			}
			if format == "pprof" && (output == "" || output == "-") && stdoutIsTerminal(cmd.OutOrStdout()) {
				return usageError(fmt.Errorf("--format pprof writes binary (gzip) data: give -o FILE, or redirect standard output"))
			}
			copts := &analysis.CollectOptions{}
			if event != "" {
				f, err := analysis.MatchEvent(event)
				if err != nil {
					return usageError(err)
				}
				copts.Select, copts.NeedsSchema = f, true
			}
			if pids != "" {
				l, err := pipeline.ParseUint32List(pids)
				if err != nil {
					return usageError(fmt.Errorf("--pid: %w", err))
				}
				copts.PIDs = l
			}
			// The model, then the stacks of the events selected: the
			// inputs are read twice. --event decodes every event, so the
			// model's pass registers the schemas the trace carries too.
			t := traceOptions{outputs: []string{output}, yes: yes, passes: 2}
			files, dec, m, err := o.buildModel(cmd, args, &t, copts.NeedsSchema)
			defer closeAll(files)
			if t.endProgress != nil {
				defer t.endProgress() // on error; done below otherwise
			}
			if err != nil {
				return err
			}
			var write func(io.Writer) error
			var st analysis.CollectStats
			if format == "pprof" {
				pp, pst, err := m.CollectPprof(files, dec, &analysis.PprofOptions{CollectOptions: *copts})
				warnAgain(cmd, err)
				write, st = pp.Write, pst.CollectStats
			} else {
				prof, cst, err := m.Collect(files, dec, copts)
				warnAgain(cmd, err)
				st = cst
				write = prof.WriteFolded
				if format == "speedscope" {
					write = func(w io.Writer) error { return prof.WriteSpeedscope(w, filepath.Base(args[0])) }
				}
			}
			t.endProgress()
			o.syms.finish(cmd)
			if err := noteEmptyProfile(cmd, st, event, pids); err != nil {
				return err
			}
			w, commit, abort, err := createOutput(cmd, output, yes)
			if err != nil {
				return err
			}
			defer abort()
			bw := bufio.NewWriterSize(w, 256<<10)
			if err := write(bw); err != nil {
				return err
			}
			if err := bw.Flush(); err != nil {
				return err
			}
			return commit()
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&output, "o", "o", "", "output file (default: standard output)")
	fl.StringVar(&format, "format", "folded", "output format: folded (FlameGraph, inferno, speedscope), speedscope (speedscope's JSON) or pprof (gzip-compressed profile for go tool pprof; not to a terminal)")
	fl.StringVar(&event, "event", "", "aggregate the stacks of these events (PROVIDER/NAME) instead of CPU samples")
	fl.StringVar(&pids, "pid", "", "keep only the events of these process ids (comma-separated)")
	fl.BoolVarP(&yes, "y", "y", false, "overwrite an existing output file")
	addAnalysisFlags(cmd, &o)
	return cmd
}

// noteEmptyProfile returns why a profile came out empty, and what to do,
// with exit status 7 (nothing is written: an empty folded file is refused
// by flamegraph.pl); it warns when the events selected have no stacks
// (their profile, one frame each, is still written).
func noteEmptyProfile(cmd *cobra.Command, st analysis.CollectStats, event, pids string) error {
	switch {
	case st.Selected == 0 && event == "" && pids == "":
		return withCode(exitEmpty, errors.New("no CPU samples in the trace, nothing written (record them with xperf -on PROC_THREAD+LOADER+PROFILE -stackwalk Profile, or WPR's CPU profile); --event PROVIDER/NAME takes the stacks of other events"))
	case st.Selected == 0 && event == "":
		return withCode(exitEmpty, fmt.Errorf("no CPU samples of the processes --pid %s names, nothing written (tracerpt-go stats lists the processes and their samples)", pids))
	case st.Selected == 0:
		return withCode(exitEmpty, fmt.Errorf("no events match --event %s, nothing written (names are provider_name/event_name as the JSON dump writes them; tracerpt-go providers lists the providers)", event))
	case st.WithStack == 0:
		warn(cmd, fmt.Errorf("none of the %d events selected has a stack (record with stack walking: xperf -stackwalk, WPR, or PerfView's /KernelEvents=Default with stacks)", st.Selected))
	}
	return nil
}
