package main

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/texttable"

	"github.com/spf13/cobra"
)

// statsJSON is the output of "stats --json" (docs/cli.md).
type statsJSON struct {
	Processes []processJSON `json:"processes"`
}

type processJSON struct {
	PID         uint32  `json:"pid"`
	Name        string  `json:"name"`
	CommandLine string  `json:"command_line"`
	Start       *string `json:"start"`
	End         *string `json:"end"`
	Events      int     `json:"events"`
	CPUSamples  int     `json:"cpu_samples"`
	// CPUPercent is the share of the trace's non-idle CPU samples (those
	// of other threads than the idle thread, and the idle thread's in DPCs
	// and interrupts: analysis.IsCPUSample, as the report counts them);
	// absent for the idle process and when the trace has no such sample.
	CPUPercent *float64 `json:"cpu_percent,omitempty"`
	// CPUMS is CPUSamples times the sampling interval the trace logs;
	// absent when it logs none or the interval changes.
	CPUMS *float64 `json:"cpu_ms,omitempty"`
	// CPUPreciseMS is the running time of the process's threads from the
	// kernel's context switches; absent without them.
	CPUPreciseMS *float64 `json:"cpu_precise_ms,omitempty"`
	GC           *gcJSON  `json:"gc,omitempty"`
}

type gcJSON struct {
	Count        int     `json:"count"`
	PauseMSTotal float64 `json:"pause_ms_total"`
	PauseMSMax   float64 `json:"pause_ms_max"`
}

func newStatsCmd() *cobra.Command {
	var o analysisOptions
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stats [--json] [-import FILE...] FILE...",
		Short: "Per-process statistics: events, CPU samples, lifetime, .NET GC pauses",
		Long: `stats reads the files once and prints, for every process the trace names or
that events belong to: its pid, image name and command line, when it started
and ended (empty when before or after the trace), the events attributed to it
(events without a process id in their header take the process of their
thread), its CPU samples, and for .NET processes the number of garbage
collections with the total and longest pause (from the suspension of the
managed threads to their restart, as TraceEvent's GCStats measures pauses).
With --json it writes one object: {"processes": [{"pid", "name",
"command_line", "start", "end", "events", "cpu_samples", "cpu_percent",
"cpu_ms", "gc": {"count", "pause_ms_total", "pause_ms_max"}}]}. CPU % is the
share of the trace's non-idle samples (other threads' and the idle thread's
in DPCs and interrupts, as the report counts them; none for Idle); CPU ms weighs each
sample by the sampling interval the trace logs (PerfInfo CollectionStart or
SetInterval), left out when it logs none or the interval changes (then
"stacks --format pprof" weighs each sample by its own). Traces with kernel context switches
(CSwitch) add each process's precise CPU ("CPU precise ms", "cpu_precise_ms"
after "cpu_ms"): its threads' time from switch-in to switch-out.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(fmt.Errorf("stats: no input file"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			warnNoFrames(cmd)
			o.noFrames = true
			// One pass (the model): no buffer is read twice.
			t := traceOptions{passes: 1}
			tt := analysis.NewThreadTime(nil, 1)
			var intervals analysis.SampleIntervals
			t.observe = func(ev *etl.Event, dec *decode.Decoder) {
				// Both read kernel classes only (CSwitch and ReadyThread;
				// PerfInfo's interval events): the header's flag spares
				// the other events the two tests (a call each, on the
				// model pass's reading goroutine).
				if ev.Flags&etl.FlagClassicHeader == 0 {
					return
				}
				if tt.Wants(ev) {
					tt.Observe(ev, dec.Decode(ev))
				}
				if intervals.NeedsDecode(ev) { // observeIntervals'
					intervals.Observe(ev, dec.Decode(ev))
				}
			}
			files, _, m, err := o.buildModel(cmd, args, &t, false)
			defer closeAll(files)
			t.endProgress()
			if err != nil {
				return err
			}
			out := statsJSON{Processes: []processJSON{}}
			tt.SetModel(m)
			precise := map[uint32]float64{}
			switches, _ := tt.Switches()
			if switches > 0 {
				for _, p := range tt.Processes() {
					precise[p.PID] = float64(p.Running) / 1e4
				}
			}
			nonIdle := m.CPUSamples
			interval, constant := intervals.Constant()
			if !constant && nonIdle > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "tracerpt-go: stats: no CPU ms: %s (use 'tracerpt-go stacks --format pprof' for samples weighed each by its interval)\n", intervalNote(&intervals))
			}
			for _, p := range m.Processes() {
				if p.Events == 0 && p.ImageFileName == "" {
					continue // a placeholder no event ended up in
				}
				pj := processJSON{PID: p.PID, Name: p.ImageFileName, CommandLine: p.CommandLine,
					Start: jsonTime(p.Start()), End: jsonTime(p.End()), Events: p.Events, CPUSamples: p.CPUSamples}
				if p.PID != 0 && nonIdle > 0 {
					v := math.Round(1000*float64(p.CPUSamples)/float64(nonIdle)) / 10
					pj.CPUPercent = &v
				}
				if constant {
					v := float64(p.CPUSamples) * ms(interval)
					pj.CPUMS = &v
				}
				if switches > 0 && p.PID != 0 {
					v := precise[p.PID]
					pj.CPUPreciseMS = &v
				}
				if p.CLR {
					pj.GC = &gcJSON{}
					if g := p.GC; g != nil {
						pj.GC = &gcJSON{g.Count, ms(g.PauseTotal), ms(g.PauseMax)}
					}
				}
				out.Processes = append(out.Processes, pj)
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return json.NewEncoder(w).Encode(out)
			}
			start := m.Start()
			rel := func(s *string) string {
				if s == nil {
					return ""
				}
				t, _ := time.Parse(time.RFC3339Nano, *s)
				return fmt.Sprintf("%+.3fs", t.Sub(start).Seconds())
			}
			// "CPU  %": two spaces, as the table has shown it since
			// tablewriter drew it (its header formatting set '%' apart).
			header := []string{"PID", "Name", "Start", "End", "Events", "CPU samples", "CPU  %", "CPU ms", "GC count", "GC pause total ms", "GC pause max ms", "Command line"}
			if switches > 0 {
				header = slices.Insert(header, 8, "CPU precise ms")
			}
			rows := make([][]string, 0, len(out.Processes))
			for _, p := range out.Processes {
				gcs, total, longest := "", "", ""
				if p.GC != nil {
					gcs = strconv.Itoa(p.GC.Count)
					total = strconv.FormatFloat(p.GC.PauseMSTotal, 'f', 3, 64)
					longest = strconv.FormatFloat(p.GC.PauseMSMax, 'f', 3, 64)
				}
				row := []string{strconv.FormatUint(uint64(p.PID), 10), p.Name, rel(p.Start), rel(p.End),
					strconv.Itoa(p.Events), strconv.Itoa(p.CPUSamples), optFloat(p.CPUPercent, 1), optFloat(p.CPUMS, 3), gcs, total, longest, p.CommandLine}
				if switches > 0 {
					row = slices.Insert(row, 8, optFloat(p.CPUPreciseMS, 3))
				}
				rows = append(rows, row)
			}
			return texttable.Write(w, header, rows)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "write one JSON object")
	addAnalysisFlags(cmd, &o)
	return cmd
}

// warnNoFrames reports --symbols and --offline (tracerpt's -pdb too) when
// given to stats: they name native frames, and stats prints none. The
// command line keeps accepting them, so scripts that pass them on to every
// command still run.
func warnNoFrames(cmd *cobra.Command) {
	for _, name := range []string{"symbols", "offline"} {
		if cmd.Flags().Changed(name) {
			warn(cmd, fmt.Errorf("--%s names native frames through PDBs; stats prints no frames (ignored)", name))
		}
	}
}

func jsonTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format("2006-01-02T15:04:05.0000000Z")
	return &s
}

// optFloat formats an optional number with prec decimals ("" when absent).
func optFloat(v *float64, prec int) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', prec, 64)
}

// intervalNote says why a trace's samples have no one interval.
func intervalNote(s *analysis.SampleIntervals) string {
	if s.From() == "default" {
		return "the trace logs no sampling interval (PerfInfo CollectionStart or SetInterval)"
	}
	return "the sampling interval changes during the trace"
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
