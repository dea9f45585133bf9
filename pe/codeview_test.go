package pe_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/internal/symtest"
	"github.com/etwkit/etw/pdb"
	"github.com/etwkit/etw/pe"
	"github.com/etwkit/etw/pe/petest"
)

func TestCodeView(t *testing.T) {
	for _, target := range []string{"x86_64-pc-windows-msvc", "i686-pc-windows-msvc"} {
		t.Run(strings.Split(target, "-")[0], func(t *testing.T) {
			exe, pdbPath := symtest.Build(t, t.TempDir(), target, "hello", symtest.Source{Path: filepath.Join("testdata", "hello.c"), Debug: true})
			f, err := pe.Open(exe)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cv, err := f.CodeView()
			if err != nil {
				t.Fatal(err)
			}
			p, err := pdb.Open(pdbPath)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if pdb.GUID(cv.GUID) != p.GUID || cv.Age != p.Age || cv.PDBPath != pdbPath || f.DebugRVA == 0 {
				t.Errorf("CodeView %s age %d %q; PDB %s age %d %q", pdb.GUID(cv.GUID), cv.Age, cv.PDBPath, p.GUID, p.Age, pdbPath)
			}
		})
	}
}

func TestCodeViewNone(t *testing.T) {
	b := petest.Build(petest.Options{}, nil)
	f, err := pe.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.CodeView(); !errors.Is(err, pe.ErrNoCodeView) {
		t.Errorf("CodeView of an image without a debug directory: %v", err)
	}
}
