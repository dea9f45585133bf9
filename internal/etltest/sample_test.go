package etltest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/etl fixtures")

// TestSampleFixture keeps testdata/etl/sample.etl equal to what Sample
// builds. Run with -update after changing Sample.
func TestSampleFixture(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "etl", "sample.etl")
	want := Sample()
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from Sample(); run go test ./internal/etltest -update", path)
	}
}
