package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func parquetRows(t *testing.T, b []byte) int64 {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := f.Lookup("etwkit.schema"); v != "etwkit.event/2" {
		t.Errorf("etwkit.schema metadata %q", v)
	}
	return f.NumRows()
}

// TestDumpParquet: -of PARQUET to a file, to standard output and by
// default to dumpfile.parquet; --split-by-event; the errors.
func TestDumpParquet(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "events.parquet")
	mustRun(t, sample, "-of", "parquet", "-o", out, "--compression", "zstd")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := parquetRows(t, b); n != 11 {
		t.Errorf("%d rows, want 11", n)
	}
	// The same bytes to standard output, whatever the workers.
	stdout := mustRun(t, sample, "-of", "PARQUET", "-o", "-", "--compression", "zstd", "--workers", "1")
	if stdout != string(b) {
		t.Error("-o - gives other bytes")
	}
	if _, _, code := runCLI(t, sample, "-of", "PARQUET", "-o", out); code != exitExists {
		t.Errorf("existing output without -y: exit %d", code)
	}
	t.Chdir(dir)
	mustRun(t, sample, "-of", "PARQUET")
	if _, err := os.Stat("dumpfile.parquet"); err != nil {
		t.Errorf("no default output: %v", err)
	}

	tables := filepath.Join(dir, "tables")
	mustRun(t, sample, "--split-by-event", tables, "-summary", filepath.Join(dir, "s.txt"))
	var names []string
	var rows int64
	filepath.WalkDir(tables, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(tables, p)
			names = append(names, filepath.ToSlash(rel))
			b, _ := os.ReadFile(p)
			rows += parquetRows(t, b)
		}
		return nil
	})
	want := "MSNT_SystemTrace/EventTrace.2.parquet MSNT_SystemTrace/EventTrace.parquet MSNT_SystemTrace/PerfInfo.parquet MSNT_SystemTrace/Process.parquet _undecoded.parquet etwkit-shop/Checkout.parquet"
	if strings.Join(names, " ") != want || rows != 11 {
		t.Errorf("tables %v (%d rows), want %s", names, rows, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "s.txt")); err != nil {
		t.Errorf("no summary beside the tables: %v", err)
	}
	if _, _, code := runCLI(t, sample, "--split-by-event", tables); code != exitExists {
		t.Errorf("tables over tables without -y: exit %d", code)
	}
	mustRun(t, sample, "--split-by-event", tables, "-y")
	for _, args := range [][]string{
		{"--split-by-event", tables, "-of", "XML", "-y"},
		{"-of", "PARQUET", "--compression", "lzma"},
		{"-of", "ORC"},
	} {
		if _, stderr, code := runCLI(t, append([]string{sample}, args...)...); code != exitUsage {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}
