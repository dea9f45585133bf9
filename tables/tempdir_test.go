package tables

import (
	"bytes"
	"os"
	"testing"

	"github.com/etwkit/etw/internal/etltest"
)

// The events table's pages waiting in a temporary file (Options.TempDir)
// give the same bytes as pages kept in memory, and the file is gone
// after Close.
func TestTempDirSameBytes(t *testing.T) {
	in := etltest.CorpusFile(t, netRel)
	_, mem := writeMem(t, &Options{}, in)
	dir := t.TempDir()
	_, spilled := writeMem(t, &Options{TempDir: dir}, in)
	for name, f := range mem {
		g := spilled[name]
		if g == nil || !bytes.Equal(f.Bytes(), g.Bytes()) {
			t.Errorf("%s: %d bytes with the pages in memory, different with them in %s", name, f.Len(), dir)
		}
	}
	if len(mem["events"].Bytes()) < 1<<20 {
		t.Fatalf("events: %d bytes: too few for a row group's pages to wait anywhere", mem["events"].Len())
	}
	left, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("%s left in the temporary folder", e.Name())
	}
}
