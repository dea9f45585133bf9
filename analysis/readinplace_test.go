package analysis

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// TestCorpusModelReadInPlace: on every corpus trace, the model Build
// makes on one core (which reads CPU samples' ids in place on the
// reading goroutine) and on two (whose loaders decode ahead, and read
// samples in place) is the model of a Builder that decodes every event
// it reads (Builder.Observe): the same events and CPU samples counted for
// each process, the same processes and threads over the same times.
func TestCorpusModelReadInPlace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the model of every corpus trace three times")
	}
	traces, samples := 0, 0
	etltest.EachOpened(etltest.CorpusTraces(t), func(p string, f *etl.File) {
		files := []*etl.File{f}
		dec := decode.New()
		b := NewBuilder(nil)
		r := etl.NewReader(files, nil)
		for r.Next() {
			ev := r.Event()
			var res *decode.Result
			if b.NeedsDecode(ev) {
				res = dec.Decode(ev)
			}
			b.Observe(ev, res)
		}
		r.Close()
		want := b.Model()
		samples += want.CPUSamples
		wantSum := append(modelSummary(want), threadSummary(want)...)
		for _, procs := range []int{1, 2} {
			prev := runtime.GOMAXPROCS(procs)
			// A damaged trace's model is what could be read: compared
			// as well.
			m, _ := Build(files, nil, nil)
			runtime.GOMAXPROCS(prev)
			got := append(modelSummary(m), threadSummary(m)...)
			if i := firstDiffAt(got, wantSum); i >= 0 {
				t.Errorf("%s, GOMAXPROCS %d: the model differs at line %d: %s, decoding every event %s", filepath.Base(p), procs, i, at(got, i), at(wantSum, i))
			}
		}
		traces++
	})
	t.Logf("%d traces, %d CPU samples", traces, samples)
	if samples < 6000 {
		t.Errorf("%d CPU samples in the models: want net.4.5.2's 6,000 or more", samples)
	}
}

// threadSummary lists each process's threads with their times.
func threadSummary(m *Model) []string {
	var out []string
	for _, p := range m.Processes() {
		for _, th := range p.Threads() {
			out = append(out, fmt.Sprintf("%d/%d %q %v %v", th.PID, th.TID, th.Name, th.Start(), th.End()))
		}
	}
	return out
}
