package main

import (
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
	strict    strictOption
	// noFrames is set by the commands that print no frames (stats): they
	// build no symbolizer, so --symbols and --offline change nothing, and
	// a model without .NET methods (analysis.Options.NoMethods) nor the
	// images' PDB identities (analysis.Options.NoImageIDs: the ImageID and
	// DbgID_RSDS events not decoded, ~5 % of stats' instructions on
	// net.4.5.2, all of them on the model pass's reading goroutine) nor
	// the stack keys' frames (analysis.Options.NoStackFrames).
	noFrames bool
	// quiet hides the progress bar a terminal shows.
	quiet bool
	// lateMethods: the pass that follows the model's waits for its .NET
	// methods itself (analysis.Options.LateMethods).
	lateMethods bool
}

// addAnalysisFlags registers the options the analysis commands share.
func addAnalysisFlags(cmd *cobra.Command, o *analysisOptions) {
	fl := cmd.Flags()
	listVar(fl, &o.manifests, "import", "instrumentation manifest(s), or folders of them, to decode events with (as for the dump)")
	listVar(fl, &o.manifests, "manifest", "same as -import")
	fl.BoolVarP(&o.verbose, "verbose", "v", false, "each schema import warning")
	addQuietFlag(fl, &o.quiet)
	o.strict.addFlag(fl)
	addSymbolFlags(fl, &o.symbols)
}

// buildModel opens the inputs, checks the outputs and imports the schemas
// as t says (openTrace), then builds the analysis model in one pass. With
// prescan that pass also registers the schemas the trace carries, for a
// pass that follows and decodes every event. The files are returned for
// closing, on error too; t.endProgress is set, on error too.
func (o *analysisOptions) buildModel(cmd *cobra.Command, args []string, t *traceOptions, prescan bool) ([]*etl.File, *decode.Decoder, *analysis.Model, error) {
	goal.SetMinGoal(analysisMinGoal)
	t.imports, t.verbose, t.prescan = o.manifests, o.verbose, false
	t.quiet = t.quiet || o.quiet
	t.endProgress = func() {}
	var syms *pdbSymbolizer
	if !o.noFrames {
		var err error
		if syms, err = o.symbols.symbolizer(cmd); err != nil {
			return nil, nil, nil, err
		}
	}
	files, dec, err := openTrace(cmd, args, t)
	if err != nil {
		return files, nil, nil, err
	}
	var m *analysis.Model
	if !prescan {
		ao := &analysis.Options{LateMethods: o.lateMethods, NoMethods: o.noFrames, NoImageIDs: o.noFrames, NoStackFrames: o.noFrames}
		if t.observe != nil {
			ao.Observe = func(ev *etl.Event) { t.observe(ev, dec) }
		}
		var err error
		m, err = analysis.Build(files, dec, ao)
		o.strict.warnList(cmd, err)
	} else {
		var readErr, prescanErr error
		m, readErr, prescanErr = pipeline.Prepare(files, dec)
		o.strict.warnList(cmd, readErr)
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
	if err := o.strict.check(); err != nil {
		m.WaitMethods() // a panic adding the .NET methods is reported, not lost
		return files, nil, nil, err
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
	diff := stacksDiff{weight: "samples"}
	cmd := &cobra.Command{
		Use:   "stacks FILE... [-o OUT] [--format folded|speedscope|pprof] [--weight samples|ms] [--event [PROVIDER/]NAME] [--pid N,...] [--baseline BEFORE.etl [--baseline-o BEFORE.pb.gz]] [-import FILE...]",
		Short: "Aggregate the call stacks of CPU samples (or other events) for flame graphs",
		Long: `stacks gives every event its process and call stack (stack extended items,
kernel StackWalk events and stack keys, .NET stack walks), resolves the frames
to modules and .NET methods, and aggregates the stacks of the selected events:
CPU samples (PerfInfo SampleProf, idle thread excluded) by default, or the
events of --event [PROVIDER/]NAME, the names the dump's --event-name and relog
take (a provider name or GUID; the manifest symbol with or without its _Vn
suffix, Task/Opcode as PerfView names events, a task or opcode name, or an event
id: GC/Start, Microsoft-Windows-DotNETRuntime/GC/Start, GCStart_V1 and GCStart
select the same events).

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
1 ms when it logs none); other events events/count.

--weight ms weighs each CPU sample by the sampling interval in effect at its
time, as the trace logs it (PerfInfo CollectionStart or SetInterval; a trace
that logs none is an error, nothing is assumed): the folded weights are then
milliseconds (up to 4 decimals, which flamegraph.pl reads), speedscope's unit
nanoseconds, so its views show times.

--baseline BEFORE.etl compares the trace with another (repeat it for a
baseline of several files). Processes are matched by image name, since pids
differ between traces: the root frame is the name without its pid, and the
processes of one name add up. --format folded then writes FlameGraph's
difffolded.pl lines, "stack before after" (flamegraph.pl draws them as a
differential flame graph: red grew, blue shrank); --weight ms weighs each CPU
sample by its trace's sampling interval instead of 1 (nothing is
normalised unless asked: traces sampled at different intervals are said to
be). --format pprof writes the trace's profile to -o and the baseline's to
--baseline-o, for go tool pprof -diff_base=BEFORE.pb.gz AFTER.pb.gz. --pid
does not go with --baseline (pids differ between traces).`,
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
			if len(diff.baseline) > 0 {
				return runStacksDiff(cmd, &o, args, &diff, output, format, event, copts, yes)
			}
			if diff.baseOut != "" {
				return usageError(errors.New("--baseline-o is for comparing with --baseline"))
			}
			if err := checkWeight(diff.weight, event, format); err != nil {
				return err
			}
			// The model, then the stacks of the events selected: the
			// inputs are read twice. --event decodes every event, so the
			// model's pass registers the schemas the trace carries too.
			t := traceOptions{outputs: []string{output}, yes: yes, passes: 2}
			// The .NET methods are added while the stacks' pass starts
			// reading (it waits for them before resolving frames).
			o.lateMethods = true
			var intervals analysis.SampleIntervals
			if diff.weight == "ms" {
				// The intervals, read in the model's pass, weigh the
				// samples of the pass that follows.
				t.observe = observeIntervals(&intervals)
			}
			files, dec, m, err := o.buildModel(cmd, args, &t, copts.NeedsSchema)
			defer closeAll(files)
			defer t.endProgress() // on error; done below otherwise
			if err != nil {
				return err
			}
			// The passes below wait for the .NET methods themselves; an
			// early return (--weight ms without intervals) waits here, so
			// that a panic adding them is reported, not lost.
			defer m.WaitMethods()
			var write func(io.Writer) error
			var st analysis.CollectStats
			if format == "pprof" {
				pp, pst, err := m.CollectPprof(files, dec, &analysis.PprofOptions{CollectOptions: *copts})
				warnAgain(cmd, err)
				write, st = pp.Write, pst.CollectStats
			} else {
				var weight func(a *analysis.Annotation) int64
				if diff.weight == "ms" {
					if intervals.From() == "default" {
						return fmt.Errorf("--weight ms: the trace logs no sampling interval (PerfInfo CollectionStart or SetInterval), so its samples have no time; leave --weight out for counts")
					}
					weight = func(a *analysis.Annotation) int64 { return int64(intervals.At(a.Time()) / 100) }
				}
				prof, cst, err := m.CollectWeighted(files, dec, copts, weight)
				warnAgain(cmd, err)
				st = cst
				write = prof.WriteFolded
				if format == "speedscope" {
					write = func(w io.Writer) error { return prof.WriteSpeedscope(w, filepath.Base(args[0])) }
				}
				if weight != nil {
					write = func(w io.Writer) error { return prof.WriteFoldedWith(w, analysis.AppendMS) }
					if format == "speedscope" {
						write = func(w io.Writer) error { return prof.WriteSpeedscopeTicks(w, filepath.Base(args[0])) }
					}
				}
			}
			t.endProgress()
			o.syms.finish(cmd)
			if err := noteEmptyProfile(cmd, st, event, pids); err != nil {
				return err
			}
			return writeOutput(cmd, output, yes, write)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&output, "o", "o", "", "output file (default: standard output)")
	fl.StringVar(&format, "format", "folded", "output format: folded (FlameGraph, inferno, speedscope), speedscope (speedscope's JSON) or pprof (gzip-compressed profile for go tool pprof; not to a terminal)")
	fl.StringVar(&event, "event", "", "aggregate the stacks of these events ([PROVIDER/]NAME, as --event-name names them) instead of CPU samples")
	fl.StringVar(&pids, "pid", "", "keep only the events of these process ids (comma-separated)")
	fl.BoolVarP(&yes, "y", "y", false, "overwrite an existing output file")
	fl.StringArrayVar(&diff.baseline, "baseline", nil, "compare with this trace (BEFORE; repeat for several files): folded pairs \"stack before after\" for flamegraph.pl, or with --format pprof two profiles for go tool pprof -diff_base")
	fl.StringVar(&diff.baseOut, "baseline-o", "", "with --baseline and --format pprof: the file of the baseline's profile (-o is the trace's)")
	fl.StringVar(&diff.weight, "weight", "samples", "weigh CPU samples in samples (counts), or in ms: each by the sampling interval its trace logs (folded: ms with up to 4 decimals; speedscope: unit nanoseconds; with --baseline the pairs)")
	addAnalysisFlags(cmd, &o)
	return cmd
}

// checkWeight returns the usage error of a --weight that does not apply.
func checkWeight(weight, event, format string) error {
	switch {
	case weight != "samples" && weight != "ms":
		return usageError(fmt.Errorf("--weight %q: want samples or ms", weight))
	case weight == "ms" && event != "":
		return usageError(errors.New("--weight ms weighs CPU samples by the sampling interval; --event selects other events"))
	case weight == "ms" && format == "pprof":
		return usageError(errors.New("--weight ms is for folded and speedscope: pprof profiles carry cpu/nanoseconds (go tool pprof -sample_index=cpu)"))
	}
	return nil
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
		return withCode(exitEmpty, fmt.Errorf("no events match --event %s, nothing written (names are [PROVIDER/]NAME: the JSON dump's event_name with or without _Vn, task_name/opcode_name, or the event id; tracerpt-go providers lists the providers)", event))
	case st.WithStack == 0:
		warn(cmd, fmt.Errorf("none of the %d events selected has a stack (record with stack walking: xperf -stackwalk, WPR, or PerfView's /KernelEvents=Default with stacks)", st.Selected))
	}
	return nil
}
