package tracerpt_test

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/pipeline"
	"github.com/etwkit/etw/tracerpt"
)

// Benchmarks of the JSON dump of net.4.5.2.x64.etl (179,474 events:
// CPU samples, .NET rundown with messages, stack walks), the corpus's
// largest compressed file, in its parts (issue 24):
//
//	ETL_CORPUS=… go test ./tracerpt -run '^$' -bench 'JSONNet' -benchmem -cpu 1
//
// BenchmarkEncodeJSONNet is a worker's share: decoding and rendering
// events already in memory, with the annotations the model gave them
// (process names, stacks). BenchmarkDumpJSONNet is the pass after the
// model on one goroutine (reading, the enricher, decoding, rendering),
// output dropped; the model is built once, outside the timing.
// BenchmarkEncodeJSONNetHead is the keys from "time" to the schema's
// names alone (the encoder's appendHead), from results decoded once.

const netPath = "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl"

// netModel opens net.4.5.2 and builds its model with a decoder that has
// registered the trace's schemas.
func netModel(b *testing.B) ([]*etl.File, *decode.Decoder, *analysis.Model) {
	files := open(b, filepath.Join(corpus(b), netPath))
	dec := decode.New()
	m, _, err := pipeline.Prepare(files, dec)
	if err != nil {
		b.Fatal(err)
	}
	return files, dec, m
}

// annotated is a copy of an event and of its annotation.
type annotated struct {
	ev etl.Event
	a  analysis.Annotation
}

// netAnnotated returns copies of net.4.5.2's events as the dump writes
// them, each with its annotation. The copied stacks have no
// analysis.Annotation.StackID (a copy is not the slice the resolver
// gave), so the encoder renders them frame by frame, without the memo of
// whole stacks the dump uses: BenchmarkEncodeJSONNet measures that path;
// the dump's, stacks by identity included, is BenchmarkDumpJSONNet's
// (and cmd/tracerpt-go's BenchmarkCommandsNet/JSON).
func netAnnotated(b *testing.B, files []*etl.File, dec *decode.Decoder, m *analysis.Model) []annotated {
	var evs []annotated
	_, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{
		Files: files, Decoder: dec, Prescanned: true, Workers: 1, Analysis: m,
		Written: func(ev *etl.Event, a *analysis.Annotation) error {
			e := *ev
			e.UserData = append([]byte(nil), e.UserData...)
			var ext []etl.ExtendedItem
			for _, x := range e.Extended {
				ext = append(ext, etl.ExtendedItem{Type: x.Type, Data: append([]byte(nil), x.Data...)})
			}
			e.Extended, e.Raw = ext, nil
			c := *a
			c.Stack = append([]analysis.Frame(nil), a.Stack...)
			evs = append(evs, annotated{e, c})
			return nil
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	return evs
}

func BenchmarkEncodeJSONNet(b *testing.B) {
	files, dec, m := netModel(b)
	evs := netAnnotated(b, files, dec, m)
	enc := tracerpt.NewEncoder(tracerpt.JSON, files, nil)
	benchEvents(b, len(evs), func(buf []byte, k int) []byte {
		x := &evs[k]
		return enc.AppendEvent(buf, &x.ev, dec.Decode(&x.ev), &x.a)
	})
}

// benchEvents times b.N rounds of render over n events (render appends
// event k to buf), and reports the time per event and the output's size.
func benchEvents(b *testing.B, n int, render func(buf []byte, k int) []byte) {
	var buf []byte
	var bytesOut int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range n {
			buf = render(buf[:0], k)
			bytesOut += int64(len(buf))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/event")
	b.ReportMetric(float64(bytesOut)/float64(b.N)/1e6, "MB-out")
}

func BenchmarkDumpJSONNet(b *testing.B) {
	files, dec, m := netModel(b)
	cpu := etltest.ProcessCPU()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{
			Files: files, Decoder: dec, Prescanned: true, Workers: 1, Analysis: m,
			Encoder: tracerpt.NewEncoder(tracerpt.JSON, files, nil), Output: io.Discard,
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((etltest.ProcessCPU()-cpu).Seconds()*1e3/float64(b.N), "cpu-ms/op")
}

func BenchmarkEncodeJSONNetHead(b *testing.B) {
	files, dec, m := netModel(b)
	evs := netAnnotated(b, files, dec, m)
	res := make([]decode.Result, len(evs))
	for k := range evs {
		res[k] = *dec.Decode(&evs[k].ev)
		res[k].Decoded = nil // not read by the head, and not kept by Decode
	}
	enc := tracerpt.NewJSONEncoder(files, nil)
	benchEvents(b, len(evs), func(buf []byte, k int) []byte {
		x := &evs[k]
		return enc.AppendHead(buf, &x.ev, &res[k], &x.a)
	})
}
