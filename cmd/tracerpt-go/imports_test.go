package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/wevt/wevttest"
)

// damagedPEFile writes a PE whose WEVT_TEMPLATE claims more bytes than it
// has (the attack run's mutated binaries) and returns its path.
func damagedPEFile(t *testing.T) string {
	t.Helper()
	m, err := manifest.ParseFile(filepath.Join(fixtureDir, "manifest-types.man"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := wevttest.PE(m, wevttest.Options{Damaged: true}, false)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "damaged.dll")
	if err := os.WriteFile(path, img, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestImportDamagedBinary: a damaged binary given to -import beside
// other sources is a warning and the dump goes on (it ended the dump
// with exit 3); named alone it stops the command, with the same code in
// the dump and in schemas (schemas exited 2 where -import exited 3).
func TestImportDamagedBinary(t *testing.T) {
	bad := damagedPEFile(t)
	man := filepath.Join(fixtureDir, "manifest-types.man")
	trace := filepath.Join(fixtureDir, "manifest-types.etl")
	out := filepath.Join(t.TempDir(), "out.csv")
	_, stderr, code := runCLI(t, trace, "-of", "CSV", "-o", out, "-y", "-import", bad, man)
	if code != exitOK || !strings.Contains(stderr, "warning: "+bad) {
		t.Errorf("dump with a damaged and a good import: exit %d, %q", code, stderr)
	}
	if st, err := os.Stat(out); err != nil || st.Size() == 0 {
		t.Errorf("no dump written: %v", err)
	}
	_, stderr, code = runCLI(t, "schemas", bad, man)
	if code != exitOK || !strings.Contains(stderr, "warning: "+bad) {
		t.Errorf("schemas of a damaged and a good file: exit %d, %q", code, stderr)
	}
	notSchema := filepath.Join(t.TempDir(), "other.xml")
	if err := os.WriteFile(notSchema, []byte("<root/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A file that is read but is no schema file, or a damaged one, is
	// exitMalformed (it was 3, the code for a missing or non-ETL input); a
	// missing file is exitInput, as a missing trace.
	for f, want := range map[string]int{bad: exitMalformed, notSchema: exitMalformed, filepath.Join(t.TempDir(), "missing.man"): exitInput} {
		_, e1, dump := runCLI(t, trace, "-of", "CSV", "-o", out, "-y", "-import", f)
		_, e2, schemas := runCLI(t, "schemas", f)
		if dump != want || schemas != want || !strings.Contains(e1, f) || !strings.Contains(e2, f) {
			t.Errorf("%s alone: -import exit %d (%q), schemas exit %d (%q): want %d in both", filepath.Base(f), dump, e1, schemas, e2, want)
		}
	}
}
