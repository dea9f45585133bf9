package main

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/etwkit/etw/internal/symtest"
	"github.com/etwkit/etw/tables"
)

// TestTablesSymbols: tables --symbols names the frames table's native
// frames (function, file, line) through the symbol path; without one the
// frames are named by module only.
func TestTablesSymbols(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, filepath.Join(dir, "t.etl"), symTraceBytes(t, symtest.SynthGUID, 3))
	flat := filepath.Join(dir, "flat")
	writeFile(t, filepath.Join(flat, "app.pdb"), symtest.SynthPDB(symtest.SynthGUID, 3))
	t.Setenv("_NT_SYMBOL_PATH", "")
	functions := func(sym ...string) string {
		t.Helper()
		out := filepath.Join(t.TempDir(), "t")
		mustRun(t, append([]string{"tables", trace, "-o", out, "--quiet"}, sym...)...)
		rows, err := parquet.ReadFile[tables.FrameRow](filepath.Join(out, "frames.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rows {
			if r.Function != "" {
				got = append(got, r.Function+" "+r.File)
			}
		}
		sort.Strings(got)
		return strings.Join(got, ", ")
	}
	if got := functions(); got != "" {
		t.Errorf("without symbols, frames named: %s", got)
	}
	if got := functions("--symbols", flat); !strings.Contains(got, `work c:\src\work.c`) {
		t.Errorf("with --symbols, the frames' functions: %q", got)
	}
}
