package analysis

import (
	"path/filepath"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etlgen"
	"github.com/etwkit/etw/internal/etltest"
)

// TestCorpusRepeatedRundown: net.4.5.2 written 4 times over (each round
// logs the kernel's image and stack-key rundowns again) gives a model
// that holds each kernel image once, not once per round; the trace given twice
// as two inputs (each load and unload logged twice at the same instant)
// holds the images of one; a stack key defined again with the same
// frames is kept as one definition; each round's stacks find their
// events.
func TestCorpusRepeatedRundown(t *testing.T) {
	src := openCorpus(t, netFile)[0]
	path := filepath.Join(t.TempDir(), "x4.etl")
	if _, err := etlgen.RepeatFile(path, src, &etlgen.Options{Rounds: 4}); err != nil {
		t.Fatal(err)
	}
	build := func(f ...*etl.File) (*Model, int) {
		m, err := Build(f, decode.New(), nil)
		if err != nil {
			t.Fatal(err)
		}
		defs := 0
		for _, d := range m.keys {
			defs += len(d)
		}
		return m, defs
	}
	m1, defs1 := build(src)
	m4, defs4 := build(etltest.OpenFiles(t, path)[0])
	// The same trace twice as two inputs: the second rundown finds the
	// first's images alive.
	m2, _ := build(openCorpus(t, netFile)[0], openCorpus(t, netFile)[0])
	if k1, k2, k4 := len(m1.KernelImages()), len(m2.KernelImages()), len(m4.KernelImages()); k2 != k1 || k4 != k1 {
		t.Errorf("kernel images: %d at ×1, %d in two inputs, %d at ×4", k1, k2, k4)
	}
	if m4.StackKeys != 4*m1.StackKeys {
		t.Errorf("stack-key definitions observed: %d at ×1, %d at ×4", m1.StackKeys, m4.StackKeys)
	}
	images := func(m *Model) (n, started int) {
		for _, p := range m.Processes() {
			n += len(p.Images())
			if !p.Start().IsZero() {
				started += len(p.Images())
			}
		}
		return n, started
	}
	// Each further round starts its processes again, with their images
	// (3×31 at net.4.5.2; 105 more images measured at ×4, of 1,657): at
	// least those, at most a tenth more than ×1's. The rundowns' images
	// of the processes alive throughout must not come back.
	i1, started := images(m1)
	i2, _ := images(m2)
	i4, _ := images(m4)
	if i2 != i1 || i4-i1 < 3*started || i4-i1 > i1/10 {
		t.Errorf("process images: %d at ×1 (%d of processes started in the trace), %d in two inputs, %d at ×4", i1, started, i2, i4)
	}
	if defs4 >= 4*defs1 {
		t.Errorf("stack-key definitions kept: %d at ×1, %d at ×4", defs1, defs4)
	}
	// Each round's stacks belong to its own events: the enricher meets
	// four times the stack fragments and leaves four times the orphans.
	enrich := func(m *Model, f *etl.File) EnrichStats {
		e := m.NewEnricher(nil)
		r := etl.NewReader([]*etl.File{f}, nil)
		defer r.Close()
		dec := decode.New()
		for r.Next() {
			e.Push(r.Event(), dec.Decode(r.Event()))
			for _, ok := e.Next(); ok; _, ok = e.Next() {
			}
		}
		e.Flush()
		return e.Stats
	}
	s1, s4 := enrich(m1, src), enrich(m4, etltest.OpenFiles(t, path)[0])
	if s1.Stacks == 0 || s4.Stacks != 4*s1.Stacks || s4.Orphans != 4*s1.Orphans {
		t.Errorf("stack fragments %d at ×1, %d at ×4; orphans %d at ×1, %d at ×4", s1.Stacks, s4.Stacks, s1.Orphans, s4.Orphans)
	}
	t.Logf("kernel images %d/%d/%d, process images %d/%d/%d; stack-key definitions kept %d at ×1, %d at ×4", len(m1.KernelImages()), len(m2.KernelImages()), len(m4.KernelImages()), i1, i2, i4, defs1, defs4)
}
