package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etlgen"
)

// TestCorpusRepeatedSameBytes: the report of net.4.5.2 written four times
// over (etlgen: four records of each process, alike in name, pid and
// counts) is the same bytes build after build. Its CPU utilisation series
// and disk I/O by process over time once followed the order of a map
// among those records.
func TestCorpusRepeatedSameBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a report of net.4.5.2 ×4 three times")
	}
	src, err := etl.Open(corpusFile(t, netRel))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	path := filepath.Join(t.TempDir(), "net4.etl")
	if _, err := etlgen.RepeatFile(path, src, &etlgen.Options{Rounds: 4}); err != nil {
		t.Fatal(err)
	}
	var first []byte
	for i := range 3 {
		f, err := etl.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		d := mustBuild(t, []*etl.File{f}, decode.New())
		f.Close()
		if d.CPUUtilization == nil || d.IO == nil {
			t.Fatal("no CPU utilisation or I/O in the report: nothing to order")
		}
		j, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = j
		} else if !bytes.Equal(j, first) {
			t.Fatalf("build %d differs from the first (%d and %d bytes)", i+1, len(j), len(first))
		}
	}
}
