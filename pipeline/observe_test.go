package pipeline_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/pipeline"
)

// openObserved opens the trace the observer tests read.
func openObserved(t *testing.T) *etl.File {
	t.Helper()
	f, err := etl.Open(etltest.CorpusFile(t, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// Observe sees every event read, in time order, decoded when asked;
// Written sees every event written, in output order, each just before its
// rendering, with its annotation (Seq: its number in read order). Neither
// depends on the number of workers.
func TestObservers(t *testing.T) {
	f := openObserved(t)
	files := []*etl.File{f}
	dec := decode.New()
	m, _, _ := pipeline.Prepare(files, dec)
	type obs struct {
		read    []int64 // time of each event observed
		decoded int
		seqs    []int64 // Seq of each event written
		late    bool    // an event's row was written before its Written call
	}
	run := func(workers int, filter *pipeline.Filter) obs {
		var o obs
		out := &rows{}
		_, err := pipeline.Run(context.Background(), &pipeline.Config[row]{
			Files: files, Decoder: dec, Prescanned: true, Workers: workers, Analysis: m, Filter: filter,
			Encoder: rowEncoder{clones: &atomic.Int32{}}, Output: out,
			ObserveDecode: func(ev *etl.Event) bool { return ev.Descriptor.Opcode == 46 },
			Observe: func(ev *etl.Event, res *decode.Result) error {
				o.read = append(o.read, ev.Time)
				if ev.Descriptor.Opcode == 46 && res != nil && res.Decoded != nil {
					o.decoded++
				}
				return nil
			},
			Written: func(ev *etl.Event, a *analysis.Annotation) error {
				// Begin's row and those of the events before it.
				o.late = o.late || len(out.got) > 1+len(o.seqs)
				o.seqs = append(o.seqs, a.Seq)
				return nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		if o.late {
			t.Errorf("%d workers: a row written before its Written call", workers)
		}
		if len(o.seqs) != len(out.got)-2 { // Begin's and End's rows
			t.Errorf("%d workers: Written %d times, %d rows written", workers, len(o.seqs), len(out.got)-2)
		}
		return o
	}
	one := run(1, nil)
	if n := int(f.Scan().Events); len(one.read) != n || len(one.seqs) != n || one.decoded == 0 {
		t.Fatalf("observed %d, written %d (%d decoded), want %d", len(one.read), len(one.seqs), one.decoded, n)
	}
	if !slices.IsSorted(one.read) {
		t.Error("Observe: events not in time order")
	}
	for i, s := range one.seqs {
		if s != int64(i) {
			t.Fatalf("Written: event %d has Seq %d", i, s)
		}
	}
	two := run(2, nil)
	if !slices.Equal(one.read, two.read) || !slices.Equal(one.seqs, two.seqs) || one.decoded != two.decoded {
		t.Error("the observers' calls depend on the number of workers")
	}
	// With a filter, Written sees only the events written, Observe all.
	kept := run(2, &pipeline.Filter{MaxEvents: 1000})
	if len(kept.seqs) != 1000 || len(kept.read) < 1000 || !slices.Equal(kept.seqs, one.seqs[:1000]) {
		t.Errorf("MaxEvents 1000: %d written, %d observed", len(kept.seqs), len(kept.read))
	}
}

// One worker and no analysis (the sequential run): Observe sees every
// event read, decoded when asked, and the dump is the one a run without
// observers writes, the events decoded for Observe rendered from that
// decoding.
func TestObserveSequential(t *testing.T) {
	f := openObserved(t)
	files := []*etl.File{f}
	run := func(decodeAll, observe bool) (got []row, read, decoded int) {
		out := &rows{}
		c := &pipeline.Config[row]{Files: files, Workers: 1, Encoder: rowEncoder{clones: &atomic.Int32{}}, Output: out}
		asked := 0
		if observe {
			c.ObserveDecode = func(ev *etl.Event) bool { asked++; return decodeAll || ev.Descriptor.Opcode == 46 }
			c.Observe = func(ev *etl.Event, res *decode.Result) error {
				read++
				if res != nil && res.Schema != nil {
					decoded++
				}
				return nil
			}
		}
		if _, err := pipeline.Run(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		if asked != read {
			t.Errorf("decode all %v: ObserveDecode asked %d times for %d events observed", decodeAll, asked, read)
		}
		return out.got, read, decoded
	}
	want, _, _ := run(false, false)
	n := int(f.Scan().Events)
	for _, all := range []bool{false, true} {
		got, read, decoded := run(all, true)
		if read != n || decoded == 0 {
			t.Errorf("decode all %v: observed %d (%d decoded), want %d", all, read, decoded, n)
		}
		if !slices.Equal(got, want) {
			t.Errorf("decode all %v: %d rows, %d without observers, or other rows", all, len(got), len(want))
		}
	}
}
