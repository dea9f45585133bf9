package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestJobs: --jobs N writes one output per input under -o DIR, the same
// bytes as a dump of that input alone, whatever N; names met twice get a
// suffix; a bad input fails alone.
func TestJobs(t *testing.T) {
	withFixedSchemas(t)
	fixtures, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "etl", "*.etl"))
	if len(fixtures) < 10 {
		t.Fatalf("%d fixtures", len(fixtures))
	}
	// sample.etl twice, from two folders.
	tmp := t.TempDir()
	other := filepath.Join(tmp, "other")
	os.MkdirAll(other, 0o755)
	b, _ := os.ReadFile(sample)
	os.WriteFile(filepath.Join(other, "sample.etl"), b, 0o644)
	inputs := append(fixtures, filepath.Join(other, "sample.etl"))

	for _, c := range []struct {
		format, ext string
		jobs        string
	}{{"JSON", ".json", "3"}, {"PARQUET", ".parquet", "2"}, {"XML", ".xml", "0"}, {"CSV", ".csv", "1"}} {
		dir := filepath.Join(tmp, c.format)
		mustRun(t, append(append([]string{}, inputs...), "--jobs", c.jobs, "-o", dir, "-of", c.format)...)
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		if len(names) != len(inputs) || !contains(names, "sample"+c.ext) || !contains(names, "sample-2"+c.ext) {
			t.Fatalf("%s: outputs %v", c.format, names)
		}
		for _, in := range inputs {
			name := strings.TrimSuffix(filepath.Base(in), ".etl")
			if strings.HasPrefix(in, other) {
				name += "-2"
			}
			got, err := os.ReadFile(filepath.Join(dir, name+c.ext))
			if err != nil {
				t.Fatal(err)
			}
			want := mustRun(t, in, "-of", c.format, "-o", "-")
			if string(got) != want {
				t.Errorf("%s %s: not the bytes of a dump of that input alone", c.format, name)
			}
		}
	}

	// Split tables, a directory per input.
	tables := filepath.Join(tmp, "tables")
	mustRun(t, sample, fixtures[0], "--jobs", "2", "--split-by-event", tables)
	if _, err := os.Stat(filepath.Join(tables, "sample", "etwkit-shop", "Checkout.parquet")); err != nil {
		t.Errorf("split tables: %v", err)
	}

	// A missing input fails alone: the others are written, exit status 3.
	dir := filepath.Join(tmp, "partial")
	_, stderr, code := runCLI(t, sample, filepath.Join(tmp, "missing.etl"), fixtures[0], "--jobs", "2", "-o", dir, "-of", "JSON")
	if code != exitInput || !strings.Contains(stderr, "missing.etl") || !strings.Contains(stderr, "1 of 3 inputs failed") {
		t.Errorf("missing input: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "sample.json")); err != nil {
		t.Errorf("the good inputs were not converted: %v", err)
	}
	// Existing outputs need -y.
	if _, _, code := runCLI(t, sample, "--jobs", "1", "-o", dir, "-of", "JSON"); code != exitExists {
		t.Errorf("existing output: exit %d", code)
	}
	mustRun(t, sample, "--jobs", "1", "-o", dir, "-of", "JSON", "-y")
	for _, args := range [][]string{
		{"--jobs", "2", "-of", "JSON"},
		{"--jobs", "2", "-o", "-"},
		{"--jobs", "-1", "-o", dir},
		{"--jobs", "2", "-o", dir, "-summary", filepath.Join(tmp, "s.txt")},
		{"--jobs", "2", "-o", sample},
	} {
		if _, stderr, code := runCLI(t, append([]string{sample}, args...)...); code != exitUsage {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}

// TestJobsImportOnce: with -import, --jobs reads the schemas once and
// each job decodes with them (a fork of the imports), giving the bytes of
// a dump of that input alone with the same -import.
func TestJobsImportOnce(t *testing.T) {
	withFixedSchemas(t)
	dir := filepath.Join("..", "..", "testdata", "etl")
	man := filepath.Join(dir, "manifest-types.man")
	inputs := []string{filepath.Join(dir, "manifest-types.etl"), sample}
	out := filepath.Join(t.TempDir(), "out")
	mustRun(t, append(append([]string{}, inputs...), "--jobs", "2", "-import", man, "-o", out, "-of", "JSON")...)
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".etl") + ".json"
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if want := mustRun(t, in, "-import", man, "-of", "JSON", "-o", "-"); string(got) != want {
			t.Errorf("%s: not the bytes of a dump of that input alone with -import", name)
		}
	}
	// The import mattered: without it manifest-types.etl does not decode.
	got, _ := os.ReadFile(filepath.Join(out, "manifest-types.json"))
	if without := mustRun(t, inputs[0], "-of", "JSON", "-o", "-"); string(got) == without {
		t.Error("manifest-types.etl: the same output without -import; the test proves nothing")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
