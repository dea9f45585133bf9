package main

import (
	"bytes"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/internal/memgoal"
)

// BenchmarkCommandsNet runs the analysis commands and the dumps of
// net.4.5.2.x64 in-process as the command line does (the model pass, and
// for stacks, report, tables and the dumps the pass after it), output to a
// temporary folder or a buffer. Besides the wall time it reports the CPU
// time per run (user + system, every goroutine), so that -cpu 1,2 shows
// what a second core gives (docs/performance.md):
//
//	ETL_CORPUS=… go test ./cmd/tracerpt-go -run '^$' -bench CommandsNet -benchtime 10x -cpu 1,2
func BenchmarkCommandsNet(b *testing.B) {
	trace := etltest.CorpusFile(b, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl")
	for _, c := range netCommands(trace, b.TempDir()) {
		b.Run(c.name, func(b *testing.B) {
			// As main does: the collector's pace is the command's (and a
			// text dump's lower target stays its own).
			goal = memgoal.Start(memTarget)
			defer func() { goal.Stop(); goal = nil }()
			var out bytes.Buffer
			cpu := etltest.ProcessCPU()
			for b.Loop() {
				out.Reset()
				if code := run(c.args, &out, io.Discard); code != 0 {
					b.Fatalf("%v: exit %d", c.args, code)
				}
			}
			cpu = etltest.ProcessCPU() - cpu
			b.ReportMetric(cpu.Seconds()*1e3/float64(b.N), "cpu-ms/op")
		})
	}
}

// netCommand is a command line BenchmarkCommandsNet runs.
type netCommand struct {
	name string
	args []string
}

// netCommands returns the command lines of the benchmarks over trace,
// output in dir: the analysis commands first.
func netCommands(trace, dir string) []netCommand {
	return []netCommand{
		{"stats", []string{"stats", trace}},
		{"stacks", []string{"stacks", trace}},
		{"report", []string{"report", trace, "-o", filepath.Join(dir, "report.html"), "-y"}},
		{"JSON", []string{trace, "-of", "JSON", "-o", filepath.Join(dir, "dump.json"), "-y", "--quiet"}},
		{"PARQUET", []string{trace, "-of", "PARQUET", "-o", filepath.Join(dir, "dump.parquet"), "-y", "--quiet"}},
		{"tables", []string{"tables", trace, "-o", filepath.Join(dir, "tables"), "-y", "--quiet"}},
	}
}

// BenchmarkSecondCoreNet measures what a second core gives the analysis
// commands on net.4.5.2.x64 (issue 24: at least 1.4× for stats, stacks
// and report). Each round runs the command once with GOMAXPROCS 1 and
// once with 2, back to back and in alternating order, so that a shared
// host whose speed drifts from minute to minute slows both runs of a
// round alike; the ratio reported is the median over the rounds of the
// one-core wall time over the two-core one, with the median times:
//
//	ETL_CORPUS=… go test ./cmd/tracerpt-go -run '^$' -bench SecondCoreNet -benchtime 40x
//
// It needs at least two processors (GOMAXPROCS ≥ 2).
func BenchmarkSecondCoreNet(b *testing.B) {
	trace := etltest.CorpusFile(b, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl")
	procs := runtime.GOMAXPROCS(0)
	if procs < 2 {
		b.Skipf("GOMAXPROCS %d: no second core to measure", procs)
	}
	defer runtime.GOMAXPROCS(procs)
	for _, c := range netCommands(trace, b.TempDir()) {
		if c.name != "stats" && c.name != "stacks" && c.name != "report" {
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			goal = memgoal.Start(memTarget)
			defer func() { goal.Stop(); goal = nil }()
			var out bytes.Buffer
			once := func(n int) time.Duration {
				runtime.GOMAXPROCS(n)
				out.Reset()
				start := time.Now()
				if code := run(c.args, &out, io.Discard); code != 0 {
					b.Fatalf("%v: exit %d", c.args, code)
				}
				return time.Since(start)
			}
			once(1) // caches warm at both settings
			once(2)
			var one, two, ratio []float64
			round := 0
			for b.Loop() {
				var d1, d2 time.Duration
				if round%2 == 0 {
					d1, d2 = once(1), once(2)
				} else {
					d2, d1 = once(2), once(1)
				}
				round++
				one = append(one, d1.Seconds()*1e3)
				two = append(two, d2.Seconds()*1e3)
				ratio = append(ratio, d1.Seconds()/d2.Seconds())
			}
			b.ReportMetric(median(ratio), "x-second-core")
			b.ReportMetric(median(one), "ms-1core")
			b.ReportMetric(median(two), "ms-2core")
		})
	}
}

// median returns the median of v (sorted in place).
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}
