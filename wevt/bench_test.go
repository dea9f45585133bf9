package wevt

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/etwkit/etw/wevt/wevttest"
)

func BenchmarkReadPESynthetic(b *testing.B) {
	data := buildTestPE(b, wevttest.Options{}, true)
	r := bytes.NewReader(data)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ReadPE(r, int64(len(data))); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadPECalc(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(peDir(b), "calc.exe"))
	if err != nil {
		b.Fatal(err)
	}
	r := bytes.NewReader(data)
	for b.Loop() {
		if _, err := ReadPE(r, int64(len(data))); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseAndCompileCalc(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(peDir(b), "calc.exe"))
	if err != nil {
		b.Fatal(err)
	}
	m, err := ReadPE(bytes.NewReader(data), int64(len(data)))
	if err != nil || len(m.Providers) != 1 {
		b.Fatal(err)
	}
	for b.Loop() {
		m, err := ReadPE(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			b.Fatal(err)
		}
		if s, errs := m.Schemas(); len(s) != 27 || len(errs) != 0 {
			b.Fatal(len(s), errs)
		}
	}
}
