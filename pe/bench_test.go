package pe_test

import (
	"bytes"
	"testing"

	"github.com/etwkit/etw/pe"
	"github.com/etwkit/etw/pe/petest"
)

func BenchmarkHasResourceType(b *testing.B) {
	data := petest.Build(petest.Options{}, testResources())
	r := bytes.NewReader(data)
	for b.Loop() {
		if ok, err := pe.HasResourceType(r, int64(len(data)), pe.WEVTTemplate); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkResourcesAndMessages(b *testing.B) {
	data := petest.Build(petest.Options{}, testResources())
	r := bytes.NewReader(data)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		f, err := pe.NewFile(r, int64(len(data)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.ResourceData(pe.TypeWEVTTemplate); err != nil {
			b.Fatal(err)
		}
		if _, err := f.MessageTable(); err != nil {
			b.Fatal(err)
		}
	}
}
