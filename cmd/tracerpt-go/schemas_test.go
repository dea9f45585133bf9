package main

import (
	"encoding/json"
	"github.com/etwkit/etw/report"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var fixtureDir = filepath.Join("..", "..", "testdata", "etl")

func TestProvidersCommand(t *testing.T) {
	path := filepath.Join(fixtureDir, "manifest-types.etl")
	man := filepath.Join(fixtureDir, "manifest-types.man")
	// Without the manifest its provider is counted but not decoded.
	var before, after map[string]report.Provider
	for i, args := range [][]string{{"providers", "--json", path}, {"providers", "--json", "-import", man, path}} {
		got := map[string]report.Provider{}
		for _, line := range strings.Split(strings.TrimSpace(mustRun(t, args...)), "\n") {
			var p report.Provider
			if err := json.Unmarshal([]byte(line), &p); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			if p.Decoded > p.Events || p.Events == 0 {
				t.Errorf("%+v", p)
			}
			got[p.GUID] = p
		}
		if i == 0 {
			before = got
		} else {
			after = got
		}
	}
	imported := 0
	for g, p := range after {
		if strings.HasPrefix(p.Source, "import:") {
			imported++
			// Without the manifest only the string-only event decodes.
			if p.Decoded != p.Events || before[g].Decoded != 1 || before[g].Source != "built-in" || before[g].Events != p.Events {
				t.Errorf("provider %s: without import %+v, with %+v", g, before[g], p)
			}
			if !strings.HasPrefix(p.Source, "import:") || !strings.Contains(p.Source, "manifest-types.man") {
				t.Errorf("source %q does not name the file", p.Source)
			}
		}
	}
	if imported == 0 {
		t.Errorf("no provider decoded from the imported manifest: %+v", after)
	}
	table := mustRun(t, "providers", path)
	if !strings.Contains(table, "SOURCE") || !strings.Contains(table, "(unknown)") {
		t.Errorf("table:\n%s", table)
	}
	if _, stderr, code := runCLI(t, "providers", "-import", filepath.Join(t.TempDir(), "missing.man"), path); code != exitInput || !strings.Contains(stderr, "missing.man") {
		t.Errorf("missing -import: exit %d, %q", code, stderr)
	}
}

func TestSchemasCommand(t *testing.T) {
	man := filepath.Join(fixtureDir, "manifest-types.man")
	out := mustRun(t, "schemas", "--json", man)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	keys := []string{"provider_guid", "provider_name", "event_id", "version", "task", "opcode", "level", "keywords",
		"event_name", "task_name", "opcode_name", "properties"}
	for _, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				t.Errorf("no %q in %s", k, line)
			}
		}
		for _, p := range m["properties"].([]any) {
			prop := p.(map[string]any)
			if prop["name"] == "" || prop["in_type"] == "" {
				t.Errorf("property %v", prop)
			}
		}
	}
	text := mustRun(t, "schemas", man)
	if n := strings.Count(text, "\n  event "); n != len(lines) {
		t.Errorf("text lists %d events, JSON %d", n, len(lines))
	}
	if _, _, code := runCLI(t, "schemas", filepath.Join(fixtureDir, "sample.etl")); code != 0 {
		t.Errorf("schemas of an .etl carrying none: exit %d", code)
	}
	if _, stderr, code := runCLI(t, "schemas", filepath.Join(t.TempDir(), "nope.man")); code != exitInput {
		t.Errorf("missing source: exit %d %s", code, stderr)
	}
}

// schemas --export writes manifests that list (and so import) as the
// source did.
func TestSchemasExportRoundTrip(t *testing.T) {
	sources := []string{filepath.Join(fixtureDir, "manifest-types.man")}
	if dir := os.Getenv("ETL_CORPUS"); dir != "" {
		calc := filepath.Join(dir, "..", "pe", "calc.exe")
		if _, err := os.Stat(calc); err != nil {
			t.Fatalf("ETL_CORPUS is set but %s is missing", calc)
		}
		sources = append(sources, calc)
	}
	for _, src := range sources {
		out := t.TempDir()
		listing := mustRun(t, "schemas", src, "--export", out)
		files, _ := filepath.Glob(filepath.Join(out, "*.man"))
		if len(files) == 0 || !strings.Contains(listing, files[0]) {
			t.Fatalf("%s: --export wrote %v, said %q", src, files, listing)
		}
		want := mustRun(t, "schemas", "--json", src)
		got := mustRun(t, append([]string{"schemas", "--json"}, files...)...)
		if got != want {
			t.Errorf("%s: the exported manifests list differently:\n got %.400s\nwant %.400s", src, got, want)
		}
		if _, _, code := runCLI(t, "schemas", src, "--export", out); code != exitExists {
			t.Errorf("%s: a second export without -y: exit %d, want %d", src, code, exitExists)
		}
	}
}
