package analysis_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// timeReproducers are the attack run's reproducers of extreme times
// (issue 29).
var timeReproducers = []string{"mytrace-evtime-min.etl", "mytrace-starttime-min.etl", "pktmon-159.etl"}

// FuzzModel runs the model and what is built on it over mutated traces:
// the model with its processes and GC statistics (the stats command),
// the folded, speedscope and pprof profiles of every event (the stacks
// command), the dumps' model (Options.AnnotationsOnly) and every event's
// annotation from it. No panic; the profiles write.
func FuzzModel(f *testing.F) {
	f.Add(etltest.Squeeze(exampleTraceBytes()))
	etltest.FuzzSeeds(f, 64<<10, timeReproducers...)
	base := decode.New()
	all := &analysis.CollectOptions{Select: func(*etl.Event, *decode.Result) bool { return true }}
	f.Fuzz(func(t *testing.T, b []byte) {
		b = etltest.Expand(b, 1<<20)
		file, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		files := []*etl.File{file}
		dec := base.Clone()
		m, _ := analysis.Build(files, dec, nil)
		for _, p := range m.Processes() {
			_ = p.String() + p.Start().String() + p.End().String()
		}
		prof, _, _ := m.Collect(files, dec, all)
		if err := prof.WriteFolded(io.Discard); err != nil {
			t.Fatal(err)
		}
		if err := prof.WriteSpeedscope(io.Discard, "fuzz"); err != nil {
			t.Fatal(err)
		}
		pp, _, _ := m.CollectPprof(files, dec, nil)
		writeAndParse(t, pp)
		// The dumps' model, every event annotated from it.
		dm, _ := analysis.Build(files, dec, &analysis.Options{AnnotationsOnly: true, NoImageIDs: true})
		_, _ = dm.EachSelected(files, dec, all, func(a *analysis.Annotation) error {
			_ = a.ProcessOf(a.PID)
			return nil
		})
	})
}
