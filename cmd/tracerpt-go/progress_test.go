package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPassProgress: the progress bar of each command that reads its
// inputs more than once counts every pass (etl.File.SetReadHook): at the
// end the bytes read equal the bar's total, passes × the inputs' buffers,
// so the bar neither stops short nor runs past its end.
func TestPassProgress(t *testing.T) {
	withFixedSchemas(t)
	var read, total int64
	forceProgress, progressDone = true, func(r, tt int64) { read, total = r, tt }
	t.Cleanup(func() { forceProgress, progressDone = false, nil })
	out := t.TempDir()
	pktmon := filepath.Join("..", "..", "testdata", "etl", "compressed.etl")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"dump JSON (model + dump)", []string{sample, "-of", "JSON", "-o", filepath.Join(out, "a.json")}},
		{"dump XML (prescan + dump)", []string{sample, "-of", "XML", "-o", filepath.Join(out, "a.xml")}},
		{"dump compressed", []string{pktmon, "-of", "JSON", "-o", filepath.Join(out, "b.json")}},
		{"stats", []string{"stats", sample}},
		{"stacks", []string{"stacks", sample, "-o", filepath.Join(out, "s.txt")}},
		{"stacks --event", []string{"stacks", sample, "--event", "etwkit-shop/Checkout", "-o", filepath.Join(out, "e.txt")}},
		{"report", []string{"report", sample, "-o", filepath.Join(out, "r.html")}},
		{"pcapng", []string{"pcapng", sample, "-o", filepath.Join(out, "p.pcapng")}},
		{"providers", []string{"providers", sample}},
		{"relog", []string{"relog", sample, "-o", filepath.Join(out, "r1.etl")}},
		{"relog --event-name (prescan + relog)", []string{"relog", sample, "--event-name", "Checkout", "-o", filepath.Join(out, "r2.etl")}},
		{"pcapng with packets (corpus)", corpusArgs("NeoChenjf+Finguard/PktMon.etl", "pcapng", "-o", filepath.Join(out, "q.pcapng"))},
		{"JSON of net.4.5.2 (corpus, compressed)", corpusArgs("microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl", "-of", "JSON", "-o", filepath.Join(out, "n.json"))},
	} {
		if c.args == nil {
			continue
		}
		read, total = -1, -1
		_, stderr, code := runCLI(t, c.args...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", c.name, code, stderr)
			continue
		}
		if total <= 0 || read != total {
			t.Errorf("%s: %d bytes read for a bar of %d", c.name, read, total)
		}
	}
}

// corpusArgs returns the arguments of a command on a corpus file (first
// after the subcommand, if any), or nil without ETL_CORPUS.
func corpusArgs(rel string, args ...string) []string {
	dir := os.Getenv("ETL_CORPUS")
	if dir == "" {
		return nil
	}
	path := filepath.Join(dir, rel)
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return append([]string{args[0], path}, args[1:]...)
	}
	return append([]string{path}, args...)
}
