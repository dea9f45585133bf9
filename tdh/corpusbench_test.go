package tdh_test

import (
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/tdh"
)

// benchNet452 is the corpus trace the JSON dump's CPU is measured on
// (issue 24).
const benchNet452 = "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl"

// corpusPayload is one event of a trace that decodes with a schema: the
// schema, a copy of its payload and its pointer size.
type corpusPayload struct {
	schema  *tdh.Event
	payload []byte
	ptr     int
}

// corpusPayloads returns the events of trace path that decode with a
// schema, as the JSON dump meets them.
func corpusPayloads(tb testing.TB, path string) []corpusPayload {
	files := etltest.OpenFiles(tb, path)
	dec := decode.New()
	_ = dec.Prescan(files)
	r := etl.NewReader(files, nil)
	defer r.Close()
	var out []corpusPayload
	for r.Next() {
		res := dec.Decode(r.Event())
		if res.Schema == nil || res.Decoded == nil || res.Err != nil {
			continue
		}
		d := res.Decoded
		out = append(out, corpusPayload{res.Schema, append([]byte(nil), d.Payload...), d.PointerSize})
	}
	if len(out) == 0 {
		tb.Fatalf("%s: no event decodes", path)
	}
	return out
}

// BenchmarkCorpusJSON decodes the events of net.4.5.2 and renders what
// the JSON dump writes of them through plans: properties, maps and the
// message (an op is the whole trace).
func BenchmarkCorpusJSON(b *testing.B) {
	evs := corpusPayloads(b, etltest.CorpusFile(b, benchNet452))
	var dec tdh.Decoder
	var plans tdh.PlanCache
	buf, scratch := make([]byte, 0, 1<<16), make([]byte, 0, 1<<12)
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = 0
		for i := range evs {
			e := &evs[i]
			d, err := dec.Decode(e.schema, e.payload, e.ptr)
			if err != nil {
				b.Fatal(err)
			}
			pl := plans.Plan(d.Schema)
			buf, _ = pl.AppendDataJSONErr(buf[:0], d)
			buf, _ = pl.AppendMapsJSON(buf, d)
			if e.schema.Message != "" {
				if e.schema != d.Schema {
					pl = plans.Plan(e.schema)
				}
				buf, scratch = pl.AppendMessageJSON(buf, scratch, e.schema.Message, d)
			}
			n += len(buf)
		}
	}
	b.ReportMetric(float64(n), "bytes/op")
	b.ReportMetric(float64(len(evs)), "events/op")
}

// BenchmarkCorpusDecode decodes the events of net.4.5.2 (an op is the
// whole trace).
func BenchmarkCorpusDecode(b *testing.B) {
	evs := corpusPayloads(b, etltest.CorpusFile(b, benchNet452))
	var dec tdh.Decoder
	b.ReportAllocs()
	for b.Loop() {
		for i := range evs {
			e := &evs[i]
			if _, err := dec.Decode(e.schema, e.payload, e.ptr); err != nil {
				b.Fatal(err)
			}
		}
	}
}
