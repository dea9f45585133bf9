package analysis

import (
	"bytes"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// collectReference is Model.CollectWeighted as a plain loop over the
// public Enricher, every stack resolved: the oracle of
// TestCollectMatchesEnricher.
func collectReference(files []*etl.File, dec *decode.Decoder, m *Model, pids []uint32, sel EventFilter, weight func(*Annotation) int64) (*Profile, CollectStats) {
	prof := NewProfile()
	var st CollectStats
	e := m.NewEnricher(nil)
	r := etl.NewReader(files, nil)
	defer r.Close()
	selected := map[int64]bool{}
	drain := func() {
		for a, ok := e.Next(); ok; a, ok = e.Next() {
			if !selected[a.Seq] {
				continue
			}
			st.count(a)
			w := int64(1)
			if weight != nil {
				w = weight(a)
			}
			prof.Add(a.Process, a.PID, a.Stack, w)
		}
	}
	for r.Next() {
		ev := r.Event()
		var res *decode.Result
		if e.NeedsDecode(ev) {
			res = dec.Decode(ev)
		}
		a := e.Push(ev, res)
		if (len(pids) == 0 || containsPID(pids, a.PID)) && sel(ev, res) {
			selected[a.Seq] = true
		}
		drain()
	}
	e.Flush()
	drain()
	st.Enrich = e.Stats
	return prof, st
}

// eachCorpusTrace runs test on every .etl file of the corpus, opened, in
// a subtest named by its path.
func eachCorpusTrace(t *testing.T, test func(t *testing.T, files []*etl.File)) {
	dir := etltest.CorpusDir(t)
	paths := etltest.CorpusTraces(t)
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		t.Run(rel, func(t *testing.T) {
			f, err := etl.Open(p)
			if err != nil {
				t.Skip(err)
			}
			defer f.Close()
			test(t, []*etl.File{f})
		})
	}
}

// atOneAndTwoProcs runs test at GOMAXPROCS 1 and 2, as subtests cpu1 and
// cpu2: the model pass decodes ahead, and adds the .NET methods on a
// goroutine of its own, only with more than one.
func atOneAndTwoProcs(t *testing.T, test func(t *testing.T)) {
	for _, procs := range []int{1, 2} {
		t.Run("cpu"+strconv.Itoa(procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			test(t)
		})
	}
}

// TestCollectMatchesEnricher checks, on every corpus trace, that the
// profile and the counts of CollectWeighted (which resolves only the
// selected events' stacks, and with more than one processor resolves
// and adds them on a goroutine of its own) equal those of the public
// Enricher with every stack resolved: for the CPU samples, and for every
// other event (so that selected and skipped stacks alternate), and for
// every other event of process 4 (the PIDs filter, which the reading
// goroutine applies), at GOMAXPROCS 1 and 2.
func TestCollectMatchesEnricher(t *testing.T) {
	dec := clrDecoder(t)
	stacks, pidSelected := 0, 0
	eachCorpusTrace(t, func(t *testing.T, files []*etl.File) {
		m, _ := Build(files, dec, nil)
		var n int64
		odd := func(*etl.Event, *decode.Result) bool { n++; return n%2 == 1 }
		weight := func(a *Annotation) int64 { return 1 + int64(len(a.Stack)) + a.ft%7 }
		for _, c := range []struct {
			name   string
			sel    EventFilter
			weight func(*Annotation) int64
			pids   []uint32
		}{{"samples", nil, nil, nil}, {"odd", odd, weight, nil}, {"odd of pid 4", odd, weight, []uint32{4}}} {
			sel := c.sel
			if sel == nil {
				sel = IsCPUSample
			}
			n = 0
			want, wst := collectReference(files, dec, m, c.pids, sel, c.weight)
			var wb bytes.Buffer
			if err := want.WriteFolded(&wb); err != nil {
				t.Fatal(err)
			}
			stacks += wst.WithStack
			if c.pids != nil {
				pidSelected += wst.Selected
			}
			for _, procs := range []int{1, 2} {
				prev := runtime.GOMAXPROCS(procs)
				n = 0
				got, gst, _ := m.CollectWeighted(files, dec, &CollectOptions{Select: c.sel, PIDs: c.pids}, c.weight)
				runtime.GOMAXPROCS(prev)
				var gb bytes.Buffer
				if err := got.WriteFolded(&gb); err != nil {
					t.Fatal(err)
				}
				if gst != wst {
					t.Errorf("%s, GOMAXPROCS %d: stats %+v, want %+v", c.name, procs, gst, wst)
				}
				if !bytes.Equal(gb.Bytes(), wb.Bytes()) || got.Total != want.Total {
					t.Errorf("%s, GOMAXPROCS %d: folded profile differs (%d bytes, total %d; want %d bytes, total %d)",
						c.name, procs, gb.Len(), got.Total, wb.Len(), want.Total)
				}
			}
		}
	})
	if stacks == 0 {
		t.Error("no selected event had a stack: the test compared nothing")
	}
	if pidSelected == 0 {
		t.Error("no trace had an event of process 4: the PIDs filter was not compared")
	}
}
