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
		p := im.PDB
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
