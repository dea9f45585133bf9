package main

import (
	"bytes"
	"io"
	"path/filepath"
	"testing"

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
	dir := b.TempDir()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"stats", []string{"stats", trace}},
		{"stacks", []string{"stacks", trace}},
		{"report", []string{"report", trace, "-o", filepath.Join(dir, "report.html"), "-y"}},
		{"JSON", []string{trace, "-of", "JSON", "-o", filepath.Join(dir, "dump.json"), "-y", "--quiet"}},
		{"PARQUET", []string{trace, "-of", "PARQUET", "-o", filepath.Join(dir, "dump.parquet"), "-y", "--quiet"}},
		{"tables", []string{"tables", trace, "-o", filepath.Join(dir, "tables"), "-y", "--quiet"}},
	} {
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
