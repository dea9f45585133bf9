package etlcorpus

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestTracesAnyCase lists a folder whose traces end in .etl, .ETL and
// .Etl, one in a subfolder, beside files that only look like traces:
// every trace is listed, whatever the case of its extension, and nothing
// else; Traces lists ETL_CORPUS the same way.
func TestTracesAnyCase(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.etl", "B.ETL", "c.Etl", "sub/d.eTl", "e.etl.txt", "f.txt", "etl", "g.etlx"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "h.ETL"), 0o755); err != nil { // a folder, not a trace
		t.Fatal(err)
	}
	var want []string
	for _, name := range []string{"B.ETL", "a.etl", "c.Etl", "sub/d.eTl"} {
		want = append(want, filepath.Join(dir, filepath.FromSlash(name)))
	}
	if got := TracesIn(t, dir, "the test folder"); !slices.Equal(got, want) {
		t.Errorf("TracesIn:\n got %q\nwant %q", got, want)
	}
	t.Setenv("ETL_CORPUS", dir)
	if got := Traces(t); !slices.Equal(got, want) {
		t.Errorf("Traces:\n got %q\nwant %q", got, want)
	}
}
