package pdb_test

import (
	"testing"

	"github.com/etwkit/etw/internal/symtest"
	"github.com/etwkit/etw/pdb"
)

// BenchmarkLookup resolves the start and middle of every function of
// CppCon.pdb (an MSVC-built x86 PDB) and an address in each public, after
// the indexes are built: the cost of naming one frame.
func BenchmarkLookup(b *testing.B) {
	f, err := pdb.Open(symtest.File(b, "perfview/CppCon.pdb"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	fns, err := f.Functions()
	if err != nil {
		b.Fatal(err)
	}
	pubs, err := f.Publics()
	if err != nil {
		b.Fatal(err)
	}
	var rvas []uint32
	for _, fn := range fns {
		rvas = append(rvas, fn.RVA, fn.RVA+fn.Size/2)
	}
	for _, p := range pubs {
		if p.IsFunction() {
			rvas = append(rvas, p.RVA+1)
		}
	}
	for _, r := range rvas { // build the indexes
		if _, _, err := f.Lookup(r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok, err := f.Lookup(rvas[i%len(rvas)]); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkOpenLookup opens CppCon.pdb and resolves one address: the cost
// of the first frame of an image.
func BenchmarkOpenLookup(b *testing.B) {
	path := symtest.File(b, "perfview/CppCon.pdb")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		f, err := pdb.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok, err := f.Lookup(0x1100); !ok || err != nil {
			b.Fatal(ok, err)
		}
		f.Close()
	}
}
