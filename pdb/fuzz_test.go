package pdb_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/etwkit/etw/internal/symtest"
	"github.com/etwkit/etw/pdb"
)

// FuzzFile opens arbitrary bytes as a PDB and calls every accessor and a
// few lookups: nothing may panic, every error must be a *FormatError, and
// no list may hold more entries than its bytes can describe.
func FuzzFile(f *testing.F) {
	f.Add(symtest.SynthPDB(symtest.SynthGUID, 3))
	f.Add(symtest.SynthOMAPPDB(symtest.SynthGUID, 3))
	if dir := os.Getenv("ETL_SYMBOLS"); dir != "" {
		if b, err := os.ReadFile(filepath.Join(dir, "perfview", "CsDesktopProj.pdb")); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(fuzzFile)
}

func fuzzFile(t *testing.T, data []byte) {
	{
		file, err := pdb.NewFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			mustFormat(t, "NewFile", err)
			return
		}
		_ = file.ID()
		secs, err := file.Sections()
		mustFormat(t, "Sections", err)
		if len(secs) > len(data)/40 {
			t.Fatalf("%d sections from %d bytes", len(secs), len(data))
		}
		pubs, err := file.Publics()
		mustFormat(t, "Publics", err)
		if len(pubs) > len(data)/12 {
			t.Fatalf("%d publics from %d bytes", len(pubs), len(data))
		}
		for _, p := range pubs {
			_ = p.Undecorated()
		}
		mods, err := file.Modules()
		mustFormat(t, "Modules", err)
		if len(mods) > len(data)/64 {
			t.Fatalf("%d modules from %d bytes", len(mods), len(data))
		}
		fns, err := file.Functions()
		mustFormat(t, "Functions", err)
		for i := range mods {
			_, err := file.Lines(i)
			mustFormat(t, "Lines", err)
		}
		_, err = file.Annotations()
		mustFormat(t, "Annotations", err)
		rvas := []uint32{0, 0x1000, 0x1010, 0xFFFFFFFF}
		for i, fn := range fns {
			if i == 16 {
				break
			}
			rvas = append(rvas, fn.RVA, fn.RVA+fn.Size)
		}
		for i, p := range pubs {
			if i == 16 {
				break
			}
			rvas = append(rvas, p.RVA+1)
		}
		for _, r := range rvas {
			_, _, err := file.Lookup(r)
			mustFormat(t, "Lookup", err)
			_, _, _, err = file.LineAt(r)
			mustFormat(t, "LineAt", err)
		}
		for i := 0; i < file.StreamCount() && i < 8; i++ {
			if _, err := file.Stream(i); err != nil {
				t.Fatalf("Stream(%d): %v", i, err)
			}
		}
	}
}

func mustFormat(t *testing.T, what string, err error) {
	t.Helper()
	var fe *pdb.FormatError
	if err != nil && !errors.As(err, &fe) {
		t.Fatalf("%s: %T %v", what, err, err)
	}
}
