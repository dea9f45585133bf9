package main

import (
	"path/filepath"
	"slices"
	"testing"
)

// tableParts finds a previous run's NAME-N.parquet (N ≥ 2) in a folder
// whose name has glob characters, and no other file: not NAME.parquet,
// NAME-1, NAME-02 or NAME-x, nor the parts of a folder the unescaped
// name would match.
func TestTablePartsGlobFolder(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "out[1]*")
	other := filepath.Join(root, "out1x")
	files := map[string][]string{
		dir:   {"events.parquet", "events-2.parquet", "events-1.parquet", "events-02.parquet", "events-x.parquet", "disk_io-3.parquet"},
		other: {"events-2.parquet", "stacks-2.parquet"},
	}
	for d, names := range files {
		for _, n := range names {
			writeFile(t, filepath.Join(d, n), nil)
		}
	}
	got := tableParts(dir)
	slices.Sort(got)
	want := []string{filepath.Join(dir, "disk_io-3.parquet"), filepath.Join(dir, "events-2.parquet")}
	if !slices.Equal(got, want) {
		t.Errorf("tableParts(%q) = %q, want %q", dir, got, want)
	}
}
