package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

const sample = "../../testdata/etl/sample.etl"

// run executes tracerpt-go with args and returns stdout, stderr and the error.
func run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := newRootCmd(&out, &errb)
	cmd.SetArgs(normalizeArgs(args))
	err := cmd.Execute()
	return out.String(), errb.String(), err
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/tracerpt-go -update)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s:\n got: %s\nwant: %s", path, got, want)
	}
}

func TestDumpJSONGolden(t *testing.T) {
	out, _, err := run(t, sample, "-of", "JSON", "-o", "-")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "sample.jsonl", out)
	// Every line is a JSON object with the documented keys.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 11 {
		t.Fatalf("%d lines, want 11", len(lines))
	}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		for _, k := range []string{"time", "filetime", "raw_timestamp", "cpu", "pid", "tid", "header", "provider_guid", "event_id", "version", "channel", "level", "opcode", "task", "keywords"} {
			if _, ok := m[k]; !ok {
				t.Errorf("line %d lacks %q", i+1, k)
			}
		}
		_, raw := m["user_data"]
		_, props := m["properties"]
		if raw == props {
			t.Errorf("line %d: user_data %v, properties %v: want exactly one", i+1, raw, props)
		}
	}
}

func TestInfoGolden(t *testing.T) {
	out, _, err := run(t, "info", "--json", sample)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "sample.info.jsonl", out)
	table, _, err := run(t, "info", sample)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"etwkit sample", "qpc (10000000 Hz)", "system64", "wpp", "2020-01-29T15:44:23.8609634Z"} {
		if !strings.Contains(table, want) {
			t.Errorf("info table lacks %q:\n%s", want, table)
		}
	}
}

func TestTracerptStyleFlags(t *testing.T) {
	got := normalizeArgs([]string{"a.etl", "-of", "JSON", "-o", "x", "-Summary", "s.txt", "-import=m.man", "--workers", "2", "-lr"})
	want := []string{"a.etl", "--of", "JSON", "-o", "x", "--summary", "s.txt", "--import=m.man", "--workers", "2", "--lr"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("normalizeArgs = %q, want %q", got, want)
	}
}

func TestErrors(t *testing.T) {
	if _, _, err := run(t, sample, "-of", "EVTX"); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("unsupported format: err = %v", err)
	}
	if _, _, err := run(t, "no-such-file.etl"); err == nil {
		t.Error("missing file: no error")
	}
	notETL := filepath.Join(t.TempDir(), "x.etl")
	os.WriteFile(notETL, bytes.Repeat([]byte("not an etl file "), 100), 0o644)
	if _, _, err := run(t, notETL, "-of", "JSON"); err == nil || !strings.Contains(err.Error(), "not an ETL file") {
		t.Errorf("not ETL: err = %v", err)
	}
	if _, stderr, err := run(t, "info", "--json", notETL, sample); err == nil || !strings.Contains(stderr, "not an ETL file") {
		t.Errorf("info with a bad file: err = %v, stderr %q", err, stderr)
	}
}

// TestCorpusDecodeWithManifest runs the dump with -import on the CLR GC
// trace: every DotNETRuntime event gets properties.
func TestCorpusDecodeWithManifest(t *testing.T) {
	dir := os.Getenv("ETL_CORPUS")
	if dir == "" {
		t.Skip("ETL_CORPUS is not set: no real .etl corpus to test against")
	}
	etlPath := filepath.Join(dir, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/gcevents.etl.zip.unzipped/gcevents/PerfViewData.etl")
	man := filepath.Join(dir, "..", "schemas", "authored/dotnet-runtime/ClrEtwAll.man")
	out, _, err := run(t, etlPath, "-of", "JSON", "-import", man)
	if err != nil {
		t.Fatal(err)
	}
	n, starts := 0, 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev struct {
			Provider   string         `json:"provider_name"`
			Properties map[string]any `json:"properties"`
			Error      string         `json:"decode_error"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Provider != "Microsoft-Windows-DotNETRuntime" {
			continue
		}
		n++
		if ev.Properties == nil || ev.Error != "" {
			t.Errorf("undecoded CLR event: %.300s", l)
		}
		if strings.Contains(l, `"event_name":"GCStart_V2"`) {
			// TraceEvent's baseline: the first GC/Start has Count=1,
			// Depth=1, Reason=Induced; the second Count=2.
			starts++
			if ev.Properties["Reason"] != "Induced" || ev.Properties["Count"] != float64(starts) {
				t.Errorf("GCStart_V2 #%d: %v", starts, ev.Properties)
			}
		}
	}
	if n != 69 || starts != 2 {
		t.Errorf("%d DotNETRuntime events, TraceEvent counts 69", n)
	}
}

// TestCorpusInfoAndDump runs info and the JSON dump on every real file:
// info reports no errors and consistent counts, and the dump emits one
// valid JSON object per event in time order.
func TestCorpusInfoAndDump(t *testing.T) {
	dir := os.Getenv("ETL_CORPUS")
	if dir == "" {
		t.Skip("ETL_CORPUS is not set: no real .etl corpus to test against")
	}
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".etl") {
			files = append(files, p)
		}
		return nil
	})
	for _, p := range files {
		out, _, err := run(t, "info", "--json", p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		var fi fileInfo
		if err := json.Unmarshal([]byte(out), &fi); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		sum := 0
		for _, n := range fi.HeaderTypes {
			sum += n
		}
		if len(fi.Errors) != 0 || sum != fi.Events || fi.Buffers == 0 || len(fi.HeaderTypes) != 14 {
			t.Errorf("%s: %+v", p, fi)
		}
		dump, _, err := run(t, p, "-of", "JSON", "-o", "-")
		if err != nil {
			t.Errorf("%s: dump: %v", p, err)
			continue
		}
		sc := bufio.NewScanner(strings.NewReader(dump))
		sc.Buffer(nil, 1<<20)
		n, last := 0, int64(0)
		for sc.Scan() {
			var ev struct {
				Filetime int64 `json:"filetime"`
			}
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Fatalf("%s line %d: %v", p, n+1, err)
			}
			if ev.Filetime < last {
				t.Errorf("%s line %d goes back in time", p, n+1)
			}
			last = ev.Filetime
			n++
		}
		if n != fi.Events {
			t.Errorf("%s: %d JSON lines, info says %d events", p, n, fi.Events)
		}
	}
}
