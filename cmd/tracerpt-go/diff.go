package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/report"
)

// stacksDiff is "stacks --baseline": the options of the comparison.
type stacksDiff struct {
	baseline []string // the BEFORE inputs
	baseOut  string   // --baseline-o: the baseline's pprof profile
	weight   string   // samples or ms
}

// diffSide is one trace of a comparison, read for stacks.
type diffSide struct {
	label string // "baseline" or "trace"
	iv    analysis.SampleIntervals
	prof  *analysis.Profile
	st    analysis.CollectStats
	pp    interface{ Write(io.Writer) error }
	ppst  analysis.PprofStats
}

// interval is the side's sampling interval at the start of its trace
// and where it comes from ("default": the trace logs none).
func (s *diffSide) interval(start time.Time) (time.Duration, string) {
	if s.pp != nil {
		return s.ppst.Interval, s.ppst.IntervalFrom
	}
	return s.iv.At(start), s.iv.From()
}

// runStacksDiff writes the comparison of the stacks of d.baseline
// (before) and args (after): difffolded.pl's lines, or two pprof
// profiles for go tool pprof -diff_base.
func runStacksDiff(cmd *cobra.Command, o *analysisOptions, args []string, d *stacksDiff, output, format, event string, copts *analysis.CollectOptions, yes bool) error {
	if err := checkWeight(d.weight, event, format); err != nil {
		return err
	}
	switch {
	case len(copts.PIDs) > 0:
		return usageError(errors.New("--pid selects processes of one trace, and pids differ between traces: compare the whole traces (the stacks' roots are image names: grep keeps a program's)"))
	case format == "speedscope":
		return usageError(errors.New("--baseline: speedscope's format has no comparison; use --format folded (flamegraph.pl) or pprof (go tool pprof -diff_base)"))
	case format == "pprof" && (d.baseOut == "" || d.baseOut == "-"):
		return usageError(errors.New("--baseline with --format pprof writes two profiles: give --baseline-o FILE for the baseline's (then go tool pprof -diff_base=FILE OUT)"))
	case format != "pprof" && d.baseOut != "":
		return usageError(errors.New("--baseline-o is for --format pprof"))
	}
	sides := []*diffSide{{label: "baseline"}, {label: "trace"}}
	inputs := [][]string{d.baseline, args}
	outs := []string{d.baseOut, output}
	var starts [2]time.Time
	for i, s := range sides {
		t := traceOptions{outputs: []string{output}, yes: yes, passes: 2}
		if d.baseOut != "" {
			t.outputs = append(t.outputs, d.baseOut)
		}
		if format != "pprof" && !copts.NeedsSchema {
			// The intervals, read in the model's pass, weigh the
			// samples of the pass that follows.
			t.observe = observeIntervals(&s.iv)
		}
		files, dec, m, err := o.buildModel(cmd, inputs[i], &t, copts.NeedsSchema)
		defer closeAll(files)
		defer t.endProgress()
		if err != nil {
			return err
		}
		starts[i] = m.Start()
		if format == "pprof" {
			pp, pst, err := m.CollectPprof(files, dec, &analysis.PprofOptions{CollectOptions: *copts})
			warnAgain(cmd, err)
			s.pp, s.ppst, s.st = pp, pst, pst.CollectStats
		} else {
			var weight func(a *analysis.Annotation) int64
			if d.weight == "ms" {
				weight = func(a *analysis.Annotation) int64 { return int64(s.iv.At(a.Time()) / 100) }
			}
			prof, st, err := m.CollectWeighted(files, dec, copts, weight)
			warnAgain(cmd, err)
			s.prof, s.st = prof, st
		}
		t.endProgress()
		o.syms.finish(cmd)
	}
	if sides[0].st.Selected == 0 && sides[1].st.Selected == 0 {
		what := "CPU samples (record them with xperf -on PROC_THREAD+LOADER+PROFILE -stackwalk Profile, or WPR's CPU profile)"
		if event != "" {
			what = "events matching --event " + event
		}
		return withCode(exitEmpty, fmt.Errorf("neither the baseline nor the trace has %s, nothing written", what))
	}
	for _, s := range sides {
		if s.st.Selected == 0 {
			warn(cmd, fmt.Errorf("the %s has no events selected: all of the other's weight is a change", s.label))
		}
	}
	if event == "" {
		noteIntervals(cmd, sides, starts, format, d.weight)
	}
	for _, s := range sides {
		if d.weight == "ms" && s.st.Selected > 0 && s.iv.From() == "default" {
			return fmt.Errorf("--weight ms: the %s logs no sampling interval (PerfInfo CollectionStart or SetInterval), so its samples have no time; leave --weight out for counts", s.label)
		}
	}
	for i, s := range sides {
		if format != "pprof" && i == 0 {
			continue // one folded file: the pairs
		}
		write := func(w io.Writer) error { return s.pp.Write(w) }
		if format != "pprof" {
			var appendWeight func([]byte, int64) []byte
			if d.weight == "ms" {
				appendWeight = analysis.AppendMS
			}
			diff := analysis.DiffProfiles(sides[0].prof, sides[1].prof)
			write = func(w io.Writer) error { return diff.WriteFolded(w, appendWeight) }
		}
		if err := writeOutput(cmd, outs[i], yes, write); err != nil {
			return err
		}
	}
	return nil
}

// noteIntervals says when the two traces sample at different intervals:
// their sample counts then do not compare, and nothing is normalised
// unless asked.
func noteIntervals(cmd *cobra.Command, sides []*diffSide, starts [2]time.Time, format, weight string) {
	var desc [2]string
	var iv [2]time.Duration
	for i, s := range sides {
		d, from := s.interval(starts[i])
		iv[i] = d
		desc[i] = fmt.Sprintf("%s every %s (%s)", s.label, d, from)
		if from == "default" {
			desc[i] = fmt.Sprintf("%s: no interval logged, %s assumed", s.label, d)
		}
	}
	if iv[0] == iv[1] {
		return
	}
	how := "--weight ms weighs each sample by its interval"
	if format == "pprof" {
		how = "compare the cpu values (go tool pprof -sample_index=cpu), which are the samples weighed by their interval"
	} else if weight == "ms" {
		how = "the weights are in ms, each sample weighed by its interval"
	}
	warn(cmd, fmt.Errorf("the traces sample at different intervals (%s; %s): their sample counts do not compare as they are; %s", desc[0], desc[1], how))
}

// writeOutput writes an analysis command's output to path (see
// createOutput) through write.
func writeOutput(cmd *cobra.Command, path string, yes bool, write func(io.Writer) error) error {
	w, commit, abort, err := createOutput(cmd, path, yes)
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
}

// openBaseline opens the inputs of "report --baseline" as the report's
// are (a decoder of their own with the same imports; the output checked
// against them). The files are returned for closing, on error too.
func openBaseline(cmd *cobra.Command, o *reportOptions) (*report.Baseline, error) {
	t := &traceOptions{imports: o.imports, verbose: o.verbose, outputs: []string{o.output}, yes: o.yes}
	files, dec, err := openTrace(cmd, o.baseline, t)
	return &report.Baseline{Files: files, Decoder: dec, Names: inputPaths(files)}, err
}
