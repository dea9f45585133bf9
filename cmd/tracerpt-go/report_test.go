package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/internal/etltest"
)

// TestReportCommand: "report" writes the HTML page or its JSON, keeps
// existing files without -y, never writes over an input, and tracerpt's
// -report writes the page (and the dump only when asked for).
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	out := filepath.Join(dir, "r.html")
	mustRun(t, "report", sample, "-o", out)
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"<!DOCTYPE html>", `<section id="overview"`, `<section id="timeline"`, `<section id="providers"`, "sample.etl"} {
		if !strings.Contains(string(page), s) {
			t.Errorf("report lacks %q", s)
		}
	}
	if _, errs, code := runCLI(t, "report", sample, "-o", out); code != exitExists || !strings.Contains(errs, "already exists") {
		t.Errorf("existing output: exit %d, %q", code, errs)
	}
	mustRun(t, "report", sample, "-o", out, "-y")

	// Never over an input, -y or not.
	b, _ := os.ReadFile(sample)
	for _, c := range []struct{ in, o string }{{"in.etl", "-o in.etl"}, {"in2.etl", "--o=in2.etl"}, {"in.trace", "-o in.trace"}} {
		in := filepath.Join(dir, c.in)
		os.WriteFile(in, b, 0o644)
		args := append([]string{"report", in}, strings.Fields(c.o)...)
		if _, errs, code := runCLI(t, append(args, "-y")...); code != exitUsage || !strings.Contains(errs, "refusing to write over an input") {
			t.Errorf("%q: exit %d, %q", args, code, errs)
		}
		if got, _ := os.ReadFile(in); string(got) != string(b) {
			t.Errorf("%q: the input was written over", args)
		}
	}

	// JSON, to standard output.
	js := mustRun(t, "report", sample, "--json", "-o", "-")
	var d struct {
		Title    string `json:"title"`
		Overview struct {
			Events int `json:"events"`
			Files  []struct {
				File string `json:"file"`
			} `json:"files"`
		} `json:"overview"`
		Timeline struct {
			Series []struct {
				Events int `json:"events"`
			} `json:"series"`
		} `json:"timeline"`
		Providers []json.RawMessage `json:"providers"`
	}
	if err := json.Unmarshal([]byte(js), &d); err != nil {
		t.Fatal(err)
	}
	if d.Title != "sample.etl" || d.Overview.Events == 0 || len(d.Overview.Files) != 1 || d.Overview.Files[0].File != sample || len(d.Providers) == 0 {
		t.Errorf("JSON: %+v", d)
	}
	// --json without -o writes report.json.
	mustRun(t, "report", sample, "--json")
	if _, err := os.Stat("report.json"); err != nil {
		t.Error(err)
	}

	// tracerpt's -report: the page only, under the name given or
	// workload.html.
	mustRun(t, sample, "-report", "w.html")
	if b, err := os.ReadFile("w.html"); err != nil || !strings.Contains(string(b), `<section id="overview"`) {
		t.Errorf("-report w.html: %v", err)
	}
	if _, err := os.Stat("dumpfile.xml"); err == nil {
		t.Error("-report alone wrote dumpfile.xml")
	}
	mustRun(t, sample, "-report")
	if _, err := os.Stat("workload.html"); err != nil {
		t.Error(err)
	}
	// With -o, the dump too.
	mustRun(t, sample, "-report", "w2.html", "-o", "d.xml")
	for _, p := range []string{"w2.html", "d.xml"} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	if _, errs, code := runCLI(t, sample, "-report", "w.html"); code != exitExists || !strings.Contains(errs, "already exists") {
		t.Errorf("-report over an existing file: exit %d, %q", code, errs)
	}
	if _, errs, code := runCLI(t, "report"); code != exitUsage || !strings.Contains(errs, "no input file") {
		t.Errorf("no input: exit %d, %q", code, errs)
	}
	if _, errs, code := runCLI(t, "report", "nothing-here.etl"); code != exitInput {
		t.Errorf("missing input: exit %d, %q", code, errs)
	}
}

// TestReportCorpus runs the command on net.4.5.2.x64.etl: every section,
// a page of a few hundred KB.
func TestReportCorpus(t *testing.T) {
	p := filepath.Join(etltest.CorpusDir(t), "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl")
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "net.html")
	mustRun(t, "report", p, "-o", out)
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"overview", "timeline", "processes", "cpu", "dotnet", "io", "providers"} {
		if !strings.Contains(string(page), `<section id="`+id+`"`) {
			t.Errorf("no %s section", id)
		}
	}
	if len(page) > 3<<20 {
		t.Errorf("%d bytes", len(page))
	}
}
