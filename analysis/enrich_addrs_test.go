package analysis_test

import (
	"slices"
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// TestNextAddrsResolves: on net.4.5.2 (kernel stacks, stack keys, .NET
// stack walks), two enrichers fed the same events hand out the same
// annotations, one through Next, the other through NextAddrs and two
// StackResolvers taking turns by 512 events (as the pipeline's workers
// take batches), stacks included; a StackID names one stack's frames
// whichever resolver gave it, and most stacks have one. A third, through
// NextBrief, gives the addresses NextAddrs gives and briefs that expand
// to its annotations.
func TestNextAddrsResolves(t *testing.T) {
	files := etltest.OpenFiles(t, etltest.CorpusFile(t, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl"))
	m, err := analysis.Build(files, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	dec := decode.New()
	e1, e2, e3 := m.NewEnricher(nil), m.NewEnricher(nil), m.NewEnricher(nil)
	var rs [2]analysis.StackResolver
	byID := map[uint64][]analysis.Frame{}
	found := 0 // stacks whose StackID was seen before
	var addrs, addrs3 []uint64
	var a3 analysis.Annotation
	var frames []analysis.Frame
	n, stacks := 0, 0
	check := func() {
		for {
			a1, ok1 := e1.Next()
			a2, got, ok2 := e2.NextAddrs(addrs[:0])
			addrs = got
			var b3 analysis.Brief
			got3, ok3 := e3.NextBrief(&b3, addrs3[:0])
			addrs3 = got3
			if ok1 != ok2 || ok1 != ok3 {
				t.Fatalf("event %d: Next %v, NextAddrs %v, NextBrief %v", n, ok1, ok2, ok3)
			}
			if !ok1 {
				return
			}
			a3.Stack = frames // Expand must clear it
			b3.Expand(&a3)
			if a3.Seq != a2.Seq || a3.PID != a2.PID || a3.TID != a2.TID || a3.Process != a2.Process || a3.Stack != nil ||
				!a3.Time().Equal(a2.Time()) || !slices.Equal(addrs, addrs3) {
				t.Fatalf("event %d: NextAddrs %+v %v, NextBrief expanded %+v %v", n, *a2, addrs, a3, addrs3)
			}
			if a2.Stack != nil {
				t.Fatalf("event %d: NextAddrs set the stack", n)
			}
			frames = rs[n/512%2].Resolve(a2, addrs, frames[:0])
			if a1.Seq != a2.Seq || a1.PID != a2.PID || a1.TID != a2.TID || a1.Process != a2.Process || !slices.Equal(a1.Stack, frames) {
				t.Fatalf("event %d: Next %+v, NextAddrs %+v with frames %v", n, *a1, *a2, frames)
			}
			if len(frames) > 0 {
				stacks++
				a2.Stack = frames
				if id := a2.StackID(); id != 0 {
					if old, ok := byID[id]; !ok {
						byID[id] = slices.Clone(frames)
					} else if found++; !slices.Equal(old, frames) {
						t.Fatalf("event %d: StackID %d named %v, now %v", n, id, old, frames)
					}
				}
			}
			n++
		}
	}
	r0 := etl.NewReader(files, nil)
	defer r0.Close()
	for r0.Next() {
		ev := r0.Event()
		var res *decode.Result
		if e1.NeedsDecode(ev) {
			res = dec.Decode(ev)
		}
		e1.Push(ev, res)
		e2.Push(ev, res)
		e3.Push(ev, res)
		check()
	}
	e1.Flush()
	e2.Flush()
	e3.Flush()
	check()
	if stacks < 20000 {
		t.Errorf("%d of %d events with a stack: want net.4.5.2's 23,000 or so", stacks, n)
	}
	// 87 % of the stacks are repeats, 73 % are found in a memo (session 12).
	if found < stacks*6/10 {
		t.Errorf("%d of %d stacks found again by StackID: want 70 %% or so", found, stacks)
	}
}
