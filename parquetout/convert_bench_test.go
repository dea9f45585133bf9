package parquetout_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/parquetout"
	"github.com/etwkit/etw/pipeline"
)

// BenchmarkWriterNet is the Writer's half of the Parquet dump of
// net.4.5.2.x64.etl alone: the Encoder's records, rendered once before
// the benchmark, written to a Writer (their conversion into column
// values, the pages' encoding and compression on its encoders) with the
// file dropped. It reports the CPU time per file (user + system, every
// goroutine); "extended" is the Writer of package tables' events table
// (three columns more, pages of 32 KiB), "extended-256k" the same with
// the default pages:
//
//	ETL_CORPUS=… go test ./parquetout -run '^$' -bench WriterNet -count 6
func BenchmarkWriterNet(b *testing.B) {
	files := open(b, etltest.CorpusFile(b, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl"))
	dec := decode.New()
	ps := dec.NewPrescanner()
	m, _ := analysis.Build(files, dec, &analysis.Options{Observe: ps.Observe})
	if err := ps.Finish(); err != nil {
		b.Fatal(err)
	}
	enc := parquetout.NewEncoder(files, false)
	var records bytes.Buffer
	if _, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{Files: files, Decoder: dec, Encoder: enc, Output: &records, Analysis: m, Prescanned: true}); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		extended bool
		page     int
	}{{"plain", false, 0}, {"extended", true, 32 << 10}, {"extended-256k", true, 0}} {
		extended := c.extended
		b.Run(c.name, func(b *testing.B) {
			cpu := etltest.ProcessCPU()
			for b.Loop() {
				var w *parquetout.Writer
				if extended {
					var n int64
					x := &parquetout.Extension{
						Columns: []parquetout.Column{{Name: "trace", Bits: 32}, {Name: "utid", Bits: 64, Optional: true}, {Name: "stack_id", Bits: 64, Optional: true}},
						Values: func(dst []int64) {
							n++
							dst[0], dst[1], dst[2] = 1, n%7, n%5
						},
					}
					var err error
					if w, err = parquetout.NewExtendedWriter(io.Discard, &parquetout.Options{PageBufferSize: c.page}, x); err != nil {
						b.Fatal(err)
					}
					w.SetEncoder(enc)
				} else {
					w = parquetout.NewWriter(io.Discard, enc, nil)
				}
				// The pipeline writes its batches' output a slab at a time.
				p := records.Bytes()
				for len(p) > 0 {
					n := min(len(p), 256<<10)
					if _, err := w.Write(p[:n]); err != nil {
						b.Fatal(err)
					}
					p = p[n:]
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			cpu = etltest.ProcessCPU() - cpu
			b.ReportMetric(cpu.Seconds()*1e3/float64(b.N), "cpu-ms/op")
		})
	}
}
