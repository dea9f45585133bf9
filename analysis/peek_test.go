package analysis_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// TestPushPeekingMatches: on every corpus trace, an enricher fed through
// PushPeeking (which reads a CPU sample's thread in place) gives every
// event the annotation one fed through PushDecoding gives, stack
// included, and PushPeeking decodes no sample it can read in place. A
// third, fed through PushIDs with peek (the pipeline's), decodes the
// events PushPeeking decodes and gives the process and thread of
// PushPeeking's annotation.
func TestPushPeekingMatches(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the model of every corpus trace")
	}
	peeked, traces := 0, 0
	paths := etltest.CorpusTraces(t)
	etltest.EachOpened(paths, func(p string, f *etl.File) {
		files := []*etl.File{f}
		// A damaged trace's model is built from what could be read
		// (the error lists the damage): it is compared as well.
		m, _ := analysis.Build(files, nil, nil)
		traces++
		d1, d2, d3 := decode.New(), decode.New(), decode.New()
		e1, e2, e3 := m.NewEnricher(nil), m.NewEnricher(nil), m.NewEnricher(nil)
		n := 0
		check := func() {
			for {
				a1, ok1 := e1.Next()
				a2, ok2 := e2.Next()
				if ok1 != ok2 {
					t.Fatalf("%s: event %d: PushDecoding's %v, PushPeeking's %v", filepath.Base(p), n, ok1, ok2)
				}
				if !ok1 {
					return
				}
				if a1.Seq != a2.Seq || a1.PID != a2.PID || a1.TID != a2.TID || a1.Process != a2.Process || !slices.Equal(a1.Stack, a2.Stack) {
					t.Fatalf("%s: event %d: PushDecoding %+v, PushPeeking %+v", filepath.Base(p), n, *a1, *a2)
				}
				n++
			}
		}
		r := etl.NewReader(files, nil)
		for r.Next() {
			ev := r.Event()
			res1, _ := e1.PushDecoding(ev, d1)
			res2, a2 := e2.PushPeeking(ev, d2)
			res3, pid, tid := e3.PushIDs(ev, d3, true)
			if (res2 == nil) != (res3 == nil) || pid != a2.PID || tid != a2.TID {
				t.Fatalf("%s: event %d: PushPeeking decoded %v, PID %d, TID %d; PushIDs decoded %v, PID %d, TID %d",
					filepath.Base(p), n, res2 != nil, a2.PID, a2.TID, res3 != nil, pid, tid)
			}
			if res1 != nil && res2 == nil {
				peeked++
			}
			check()
		}
		r.Close()
		e1.Flush()
		e2.Flush()
		check()
	})
	t.Logf("%d traces compared, %d events read in place", traces, peeked)
	if traces < len(paths)-2 {
		t.Errorf("%d of %d traces compared: want every one that opens", traces, len(paths))
	}
	if peeked < 79000 {
		t.Errorf("%d events read in place: want net.4.5.2's 79,528 samples at least", peeked)
	}
}
