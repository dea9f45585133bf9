package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/symtest"
	"github.com/etwkit/etw/pdb"
)

// BenchmarkStacksSymbols measures what naming frames costs `stacks` on
// net.4.5.2.x64 (126k frames): "none" without a symbol path, "pdb" with a
// store holding a PDB of every identity the trace logs (symtest.SynthPDB
// of that GUID and age: real files found, opened and looked up through
// sympath and pdb, though smaller than the images' real PDBs).
func BenchmarkStacksSymbols(b *testing.B) {
	corpus := os.Getenv("ETL_CORPUS")
	if corpus == "" {
		b.Skip("ETL_CORPUS not set")
	}
	trace := filepath.Join(corpus, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl")
	f, err := etl.Open(trace)
	if err != nil {
		b.Skip(err)
	}
	m, err := analysis.Build([]*etl.File{f}, decode.New(), nil)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	store := b.TempDir()
	ids := map[string]bool{}
	add := func(im *analysis.Image) {
		p := im.PDB()
		if p.Name == "" {
			return
		}
		u := p.GUID
		g := pdb.GUID{u[3], u[2], u[1], u[0], u[5], u[4], u[7], u[6], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]}
		name := filepath.Base(strings.ReplaceAll(p.Name, `\`, "/"))
		dir := filepath.Join(store, name, fmt.Sprintf("%s%X", g.Hex(), p.Age))
		if ids[dir] {
			return
		}
		ids[dir] = true
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), symtest.SynthPDB(g, p.Age), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, p := range m.Processes() {
		for _, im := range p.Images() {
			add(im)
		}
	}
	for _, im := range m.KernelImages() {
		add(im)
	}
	b.Setenv("_NT_SYMBOL_PATH", "")
	b.Run("collect", func(b *testing.B) { benchCollectSymbols(b, trace) })
	for _, c := range []struct {
		name string
		args []string
	}{{"none", nil}, {"pdb", []string{"--symbols", store}}} {
		b.Run(c.name, func(b *testing.B) {
			var out bytes.Buffer
			for b.Loop() {
				out.Reset()
				if code := run(append([]string{"stacks", trace}, c.args...), &out, io.Discard); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
			b.ReportMetric(float64(strings.Count(out.String(), "!")), "named-frames")
			b.ReportMetric(float64(len(ids)), "pdbs")
		})
	}
}

// realLookups names every frame of every image through CppCon.pdb (an
// MSVC-built PDB): each address is mapped into CppCon's code and looked
// up there, so each call costs what a real PDB lookup costs, and most
// find a function with a file and line.
type realLookups struct {
	f      *pdb.File
	lo, hi uint32
}

func (r *realLookups) Symbolize(im analysis.ImageID, rva uint64) (analysis.Symbol, bool) {
	sym, ok, err := r.f.Lookup(r.lo + uint32(rva)%(r.hi-r.lo))
	if err != nil || !ok {
		return analysis.Symbol{}, false
	}
	return analysis.Symbol{Function: sym.Name, Offset: uint64(sym.Offset), File: sym.File, Line: int(sym.Line)}, true
}

// benchCollectSymbols measures the stacks pass (Model.Collect, the one
// that resolves frames) without a symbolizer and with realLookups.
func benchCollectSymbols(b *testing.B, trace string) {
	f, err := etl.Open(trace)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	files, dec := []*etl.File{f}, decode.New()
	m, err := analysis.Build(files, dec, nil)
	if err != nil {
		b.Fatal(err)
	}
	p, err := pdb.Open(symtest.File(b, "perfview/CppCon.pdb"))
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	fns, err := p.Functions()
	if err != nil {
		b.Fatal(err)
	}
	r := &realLookups{f: p, lo: ^uint32(0)}
	for _, fn := range fns {
		if fn.HasRVA {
			r.lo, r.hi = min(r.lo, fn.RVA), max(r.hi, fn.RVA+fn.Size)
		}
	}
	for _, c := range []struct {
		name string
		s    analysis.Symbolizer
	}{{"none", nil}, {"cppcon", r}} {
		b.Run(c.name, func(b *testing.B) {
			m.SetSymbolizer(c.s)
			var prof *analysis.Profile
			var st analysis.CollectStats
			for b.Loop() {
				if prof, st, err = m.Collect(files, dec, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(st.Frames), "frames")
			var out bytes.Buffer
			if err := prof.WriteFolded(&out); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(strings.Count(out.String(), "!")), "named")
		})
	}
	m.SetSymbolizer(nil)
}
