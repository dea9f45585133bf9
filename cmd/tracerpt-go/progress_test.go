package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
)

// TestPassProgress: the progress bar of each command that reads its
// inputs more than once counts every pass (etl.File.SetReadHook): at the
// end the bytes read equal the bar's total, passes × the inputs' buffers,
// so the bar neither stops short nor runs past its end; and the bar
// itself counts the input once, so that its rate is the input's bytes per
// second, not the passes' (a pass from memory once showed "136 GB/s").
func TestPassProgress(t *testing.T) {
	withFixedSchemas(t)
	var read, total, shown int64
	forceProgress, progressDone = true, func(r, tt, s int64) { read, total, shown = r, tt, s }
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
		read, total, shown = -1, -1, -1
		_, stderr, code := runCLI(t, c.args...)
		if code != 0 && !(c.name == "stacks" && code == exitEmpty) { // no CPU samples: read, nothing written
			t.Errorf("%s: exit %d: %s", c.name, code, stderr)
			continue
		}
		if total <= 0 || read != total {
			t.Errorf("%s: %d bytes read for a bar of %d", c.name, read, total)
		}
		if in := inputBufferBytes(t, c.args); shown != in {
			t.Errorf("%s: the bar counts %d bytes, the input has %d", c.name, shown, in)
		}
	}
}

// inputBufferBytes returns the bytes of the buffers of a command's input
// file: its first argument after the subcommand.
func inputBufferBytes(t *testing.T, args []string) int64 {
	in := args[0]
	if !strings.HasSuffix(in, ".etl") {
		in = args[1]
	}
	f, err := etl.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var n int64
	for _, b := range f.Buffers() {
		n += int64(b.Header.BufferSize)
	}
	return n
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

// TestQuietEverywhere: every command that shows a progress bar takes
// --quiet, and with it shows none (the bar is forced on as for a terminal).
func TestQuietEverywhere(t *testing.T) {
	withFixedSchemas(t)
	shown := false
	forceProgress, progressDone = true, func(int64, int64, int64) { shown = true }
	t.Cleanup(func() { forceProgress, progressDone = false, nil })
	out := t.TempDir()
	for _, args := range [][]string{
		{sample, "-of", "JSON", "-o", filepath.Join(out, "a.json")},
		{"stats", sample},
		{"stacks", sample, "-o", filepath.Join(out, "s.txt")},
		{"report", sample, "-o", filepath.Join(out, "r.html")},
		{"pcapng", sample, "-o", filepath.Join(out, "p.pcapng")},
		{"providers", sample},
		{"relog", sample, "-o", filepath.Join(out, "r.etl")},
		{"tables", sample, "-o", filepath.Join(out, "t")},
	} {
		shown = false
		_, stderr, code := runCLI(t, append(args, "--quiet")...)
		if code != 0 && code != exitEmpty {
			t.Errorf("%v --quiet: exit %d: %s", args, code, stderr)
			continue
		}
		if shown {
			t.Errorf("%v --quiet: a progress bar was shown", args)
		}
	}
}
