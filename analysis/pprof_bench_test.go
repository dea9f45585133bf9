package analysis

import (
	"io"
	"testing"
)

// BenchmarkPprofNet is `stacks --format pprof` after the model: the
// second pass over net.4.5.2.x64.etl collecting its 6,320 CPU samples as
// a pprof profile, and the profile written (gzip-compressed).
func BenchmarkPprofNet(b *testing.B) {
	files := openCorpus(b, netFile)
	dec := clrDecoder(b)
	m, _ := Build(files, dec, nil)
	b.ReportAllocs()
	for b.Loop() {
		p, _, err := m.CollectPprof(files, dec, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := p.Write(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFoldedNet is the same for the folded output, for comparison.
func BenchmarkFoldedNet(b *testing.B) {
	files := openCorpus(b, netFile)
	dec := clrDecoder(b)
	m, _ := Build(files, dec, nil)
	b.ReportAllocs()
	for b.Loop() {
		p, _, err := m.Collect(files, dec, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := p.WriteFolded(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
