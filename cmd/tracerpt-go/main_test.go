package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/tracelogging"
	"github.com/etwkit/etw/tracerpt/tracerpttest"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

var sample, _ = filepath.Abs("../../testdata/etl/sample.etl")

// runCLI executes tracerpt-go with args and returns stdout, stderr and
// the exit status.
func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

// mustRun is runCLI that fails the test on a non-zero exit status.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("tracerpt-go %q: exit %d: %s", args, code, errs)
	}
	return out
}

// withFixedSchemas gives the CLI decode.New() keeping only the schemas
// of the EventTrace (log-file header) events, so that the sample goldens
// do not change when the decoder learns other classes.
func withFixedSchemas(t *testing.T) {
	old := newDecoder
	newDecoder = tracerpttest.HeaderOnlyDecoder
	t.Cleanup(func() { newDecoder = old })
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
	out := mustRun(t, sample, "-of", "JSON", "-o", "-")
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
	// Workers do not change a byte.
	if one := mustRun(t, sample, "-of", "JSON", "-o", "-", "--workers", "1"); one != out {
		t.Error("--workers 1 gives other output")
	}
}

// TestDumpGoldens covers the tracerpt formats of the sample fixture.
func TestDumpGoldens(t *testing.T) {
	withFixedSchemas(t)
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"sample.xml", []string{"-of", "XML"}},
		{"sample.tz.xml", []string{"-tz", "-05:00", "-culture", "en-CA", "-rts"}},
		{"sample.csv", []string{"-of", "CSV"}},
	} {
		out := mustRun(t, append([]string{sample, "-o", "-"}, c.args...)...)
		golden(t, c.golden, out)
		if one := mustRun(t, append([]string{sample, "-o", "-", "--workers", "1"}, c.args...)...); one != out {
			t.Errorf("%s: --workers 1 gives other output", c.golden)
		}
	}
	dir := t.TempDir()
	sum := filepath.Join(dir, "s.txt")
	mustRun(t, sample, "-summary", sum)
	b, _ := os.ReadFile(sum)
	golden(t, "sample.summary.txt", strings.Replace(string(b), sample, "sample.etl", 1))
}

func TestDefaultsAndOverwrite(t *testing.T) {
	t.Chdir(t.TempDir())
	if out := mustRun(t, sample); out != "" {
		t.Errorf("default dump wrote to stdout: %.100s", out)
	}
	b, err := os.ReadFile("dumpfile.xml")
	if err != nil || !bytes.HasPrefix(b, []byte("<Events>\n<Event xmlns=")) {
		t.Fatalf("dumpfile.xml: %v %.40q", err, b)
	}
	// No overwrite without -y.
	_, errs, code := runCLI(t, sample)
	if code != exitExists || !strings.Contains(errs, "dumpfile.xml already exists; add -y") {
		t.Errorf("existing dumpfile.xml: exit %d, %q", code, errs)
	}
	mustRun(t, sample, "-y")
	mustRun(t, sample, "-o", os.DevNull) // not a regular file: no -y needed
	// -summary alone writes only summary.txt.
	mustRun(t, sample, "-summary")
	if _, err := os.Stat("summary.txt"); err != nil {
		t.Error(err)
	}
	if _, _, code := runCLI(t, sample, "-summary"); code != exitExists {
		t.Errorf("existing summary.txt: exit %d", code)
	}
	// -of CSV / JSON name their default file by format; -o without a value
	// too.
	mustRun(t, sample, "-of", "CSV", "-o")
	mustRun(t, "-l", sample, "-of", "JSON", "-summary", "s2.txt", "-o")
	for _, f := range []string{"dumpfile.csv", "dumpfile.json", "s2.txt"} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
}

func TestTracerptStyleFlags(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"a.etl", "-of", "JSON", "-o", "x", "-Summary", "s.txt", "-import=m.man", "--workers", "2", "-lr"},
			[]string{"a.etl", "--of", "JSON", "--o=x", "--summary=s.txt", "--import=m.man", "--workers", "2", "--lr"}},
		{[]string{"a.etl", "-summary", "-o", "-", "-y"}, []string{"a.etl", "--summary=summary.txt", "--o=-", "-y"}},
		{[]string{"-summary", "b.etl", "-o"}, []string{"--summary=b.etl", "--o="}},
		{[]string{"a.etl", "-o", "out.etl", "-y"}, []string{"a.etl", "--o=out.etl", "-y"}},
		{[]string{"-import", "a.man", "b.man", "t.etl", "-tz", "-05:00", "-max-events", "3"},
			[]string{"--import=a.man", "--import=b.man", "t.etl", "--tz", "-05:00", "--max-events", "3"}},
		// With another input named, an .etl after -summary or -o is their
		// value (which the dump refuses), not one more input.
		{[]string{"x.etl", "--summary", "auto.etl.001", "--quiet"}, []string{"x.etl", "--summary=auto.etl.001", "--quiet"}},
		{[]string{"x.etl", "-o", "out.etl", "-y"}, []string{"x.etl", "--o=out.etl", "-y"}},
		{[]string{"x.etl", "--", "-o"}, []string{"x.etl", "--", "-o"}},
	} {
		if got := normalizeArgs(c.in, rootLongs); !reflect.DeepEqual(got, c.want) {
			t.Errorf("normalizeArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestErrorsAndExitCodes(t *testing.T) {
	t.Chdir(t.TempDir())
	notETL := filepath.Join(t.TempDir(), "x.etl")
	os.WriteFile(notETL, bytes.Repeat([]byte("not an etl file "), 100), 0o644)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{sample, "-of", "EVTX"}, exitUsage, "not supported"},
		{[]string{sample, "--no-such-option"}, exitUsage, "unknown flag"},
		{[]string{}, exitUsage, "no input file"},
		{[]string{"info"}, exitUsage, "no input file"},
		{[]string{"info", "--bogus", sample}, exitUsage, "unknown flag"},
		{[]string{sample, "-tz", "+99:00"}, exitUsage, "time zone"},
		{[]string{sample, "--level", "loud"}, exitUsage, "or a name (always 0, critical 1, error 2, warning 3, info 4, verbose 5)"},
		{[]string{sample, "--start", "yesterday"}, exitUsage, "--start"},
		{[]string{sample, "-export"}, exitUsage, "not supported"},
		{[]string{"no-such-file.etl"}, exitInput, "no-such-file.etl"},
		{[]string{"nothing-*.etl"}, exitInput, "no file matches"},
		{[]string{notETL, "-of", "JSON"}, exitInput, "not an ETL file"},
	} {
		_, errs, code := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.msg) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want exit %d with %q on one line", c.args, code, errs, c.code, c.msg)
		}
	}
	if _, errs, code := runCLI(t, "info", "--json", notETL, sample); code != exitInput || !strings.Contains(errs, "not an ETL file") {
		t.Errorf("info with a bad file: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat("dumpfile.xml"); err == nil {
		t.Error("a failed run left dumpfile.xml")
	}
}

func TestHelpDocumentsEveryOption(t *testing.T) {
	out := mustRun(t, "--help")
	for _, opt := range []string{"-l", "-o", "--of", "--summary", "--import", "--lr", "-y", "--tz", "--culture", "--rts", "--en",
		"--provider", "--exclude-provider", "--event-id", "--level", "--keywords", "--keywords-all", "--pid", "--tid",
		"--start", "--end", "--max-events", "--file-order", "--workers", "--quiet", "--strict", "Exit status",
		"-gmt", "-f HTML", "-tmf", "-tp"} { // tracerpt's aliases too
		if !strings.Contains(out, opt) {
			t.Errorf("--help does not mention %s", opt)
		}
	}
}

func TestFilters(t *testing.T) {
	count := func(args ...string) int {
		out := mustRun(t, append([]string{sample, "-of", "JSON", "-o", "-"}, args...)...)
		return strings.Count(out, "\n")
	}
	for _, c := range []struct {
		args []string
		want int
	}{
		{nil, 11},
		{[]string{"--max-events", "3"}, 3},
		{[]string{"--provider", "{3f4a7f2e-5c1d-4b8e-9a61-0c2d3e4f5a6b}"}, 5},
		{[]string{"--provider", "etwkit-shop"}, 1},
		{[]string{"--provider", "etwkit-shop,MSNT_SystemTrace"}, 5},
		{[]string{"--exclude-provider", "msnt_systemtrace"}, 7},
		{[]string{"--event-id", "1-2"}, 3},
		{[]string{"--level", "error-warning"}, 2},
		{[]string{"--keywords", "0x1"}, 4},
		{[]string{"--keywords-all", "0x8000000000000001"}, 4},
		{[]string{"--pid", "836", "--tid", "8208"}, 5},
		{[]string{"--start", "+100us"}, 9},
		{[]string{"--start", "2020-01-29T15:44:23.8612Z", "--end", "+400us"}, 2},
		{[]string{"--workers", "1", "--max-events", "2", "--level", "4"}, 2},
	} {
		if got := count(c.args...); got != c.want {
			t.Errorf("%q: %d events, want %d", c.args, got, c.want)
		}
	}
}

// brokenPipe fails like a closed pipe after n bytes.
type brokenPipe struct{ n int }

func (b *brokenPipe) Write(p []byte) (int, error) {
	if b.n <= 0 {
		return 0, syscall.EPIPE
	}
	b.n -= len(p)
	return len(p), nil
}

func TestClosedStdoutEndsQuietly(t *testing.T) {
	var errb bytes.Buffer
	if code := run([]string{sample, "-of", "JSON", "-o", "-"}, &brokenPipe{}, &errb); code != 0 || errb.Len() != 0 {
		t.Errorf("closed stdout: exit %d, stderr %q", code, errb.String())
	}
}

// damaged returns a file whose second buffer holds a good record then a
// bad one.
func damaged(t *testing.T) string {
	tf := etltest.NewFile(1024, true)
	good := etltest.Event(etl.HeaderEvent64, 0, 1, 2, tf.TLH.HeaderTimestamp+10, etltest.SampleProvider, etl.EventDescriptor{ID: 1}, uuid.Nil, nil, []byte{1})
	bad := bytes.Repeat([]byte{0xFF}, 16)
	bad[2], bad[3] = 0x13, 0xC0 // an EVENT_HEADER64 marker with a size of 0xFFFF
	tf.AddBuffer(0, tf.TLH.HeaderTimestamp+20, good, bad)
	p := filepath.Join(t.TempDir(), "damaged.etl")
	if err := os.WriteFile(p, tf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDamagedInput(t *testing.T) {
	p := damaged(t)
	out, errs, code := runCLI(t, p, "-of", "JSON", "-o", "-")
	if code != 0 || !strings.Contains(errs, "warning: ") || !strings.Contains(errs, "offset 0x") || !strings.Contains(errs, "damaged.etl") {
		t.Errorf("damaged input: exit %d, stderr %q", code, errs)
	}
	if strings.Count(out, "\n") != 3 {
		t.Errorf("damaged input: %d events, want the 3 before the damage", strings.Count(out, "\n"))
	}
	if _, errs, code := runCLI(t, p, "-of", "JSON", "-o", "-", "--strict"); code != exitCorrupt || !strings.Contains(errs, "corrupt input") {
		t.Errorf("--strict: exit %d, stderr %q", code, errs)
	}
	sum := filepath.Join(t.TempDir(), "s.txt")
	mustRun(t, p, "-summary", sum)
	if b, _ := os.ReadFile(sum); !bytes.Contains(b, []byte("Corrupt Buffers         1\n")) {
		t.Errorf("summary lacks the corrupt count:\n%s", b)
	}
}

func TestInfoGolden(t *testing.T) {
	out := mustRun(t, "info", "--json", sample)
	golden(t, "sample.info.jsonl", strings.ReplaceAll(out, sample, "../../testdata/etl/sample.etl"))
	table := mustRun(t, "info", sample)
	for _, want := range []string{"etwkit sample", "qpc (10000000 Hz)", "system64", "wpp", "2020-01-29T15:44:23.8609634Z"} {
		if !strings.Contains(table, want) {
			t.Errorf("info table lacks %q:\n%s", want, table)
		}
	}
}

// TestCorpusMytrace runs the command line of the golden pair: tracerpt's
// XML and CSV of mytrace.etl on an en-CA machine at UTC-05:00, with the
// command's own decoder (decode.New(), nothing added): the EventTrace
// header events come from its built-in kernel schemas.
func TestCorpusMytrace(t *testing.T) {
	dir := filepath.Join(etltest.CorpusDir(t), "Marissa1999+Tracing-Application")
	out := t.TempDir()
	for _, f := range []string{"XML", "CSV"} {
		o := filepath.Join(out, "mytrace."+f)
		mustRun(t, filepath.Join(dir, "mytrace.etl"), "-of", f, "-o", o, "-tz", "-05:00", "-culture", "en-CA")
		got, err := os.ReadFile(o)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(dir, "mytrace."+strings.ToLower(f)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from mytrace.%s:\n%s", f, strings.ToLower(f), firstLineDiff(got, want))
		}
	}
}

// firstLineDiff shows the first line where got and want differ.
func firstLineDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got: %q\nwant: %q", i+1, gl, wl)
		}
	}
	return "(same lines)"
}

// TestCorpusPktMonSummary runs "tracerpt PktMon.etl -summary" where the
// capture is, as its author did, and compares with their summary.txt.
func TestCorpusPktMonSummary(t *testing.T) {
	root := etltest.CorpusDir(t)
	old := newDecoder
	newDecoder = tracerpttest.StockWindowsDecoder // as on a Windows machine without xperf's classes
	t.Cleanup(func() { newDecoder = old })
	schema := filepath.Join(root, "..", "schemas/dumped/nasbench-EVTX-ETW-Resources-W11-22H2/Microsoft-Windows-PktMon.xml")
	sum := filepath.Join(t.TempDir(), "summary.txt")
	t.Chdir(filepath.Join(root, "nathaniel-security+microsoft-pktmon-VPN-capture-traffic/history/508f5bc135c8effceef0879693c6de45f2a92012"))
	_, stderr, code := runCLI(t, "PktMon.etl", "-summary", sum, "-import", schema, "-tz", "+05:30", "-culture", "en-US")
	if code != 0 || strings.Contains(stderr, "skipped") || strings.Contains(stderr, "warning") {
		t.Fatalf("exit %d, stderr %q: the PktMon schema must import cleanly", code, stderr)
	}
	got, err := os.ReadFile(sum)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("summary.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("summary differs from summary.txt:\n%s", got)
	}
}

// TestCorpusDecodeWithManifest runs the dump with -import on the CLR GC
// trace: every DotNETRuntime event gets properties.
func TestCorpusDecodeWithManifest(t *testing.T) {
	dir := etltest.CorpusDir(t)
	etlPath := filepath.Join(dir, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/gcevents.etl.zip.unzipped/gcevents/PerfViewData.etl")
	man := filepath.Join(dir, "..", "schemas", "authored/dotnet-runtime/ClrEtwAll.man")
	out := mustRun(t, etlPath, "-of", "JSON", "-o", "-", "-import", man)
	n, starts := 0, 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev struct {
			Provider   string            `json:"provider_name"`
			Properties map[string]any    `json:"properties"`
			Maps       map[string]string `json:"maps"`
			Error      string            `json:"decode_error"`
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
			if ev.Maps["Reason"] != "Induced" || ev.Properties["Reason"] != float64(1) || ev.Properties["Count"] != float64(starts) {
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
	files := etltest.CorpusTraces(t)
	for _, p := range files {
		out := mustRun(t, "info", "--json", p)
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
		dump := mustRun(t, p, "-of", "JSON", "-o", "-")
		sc := bufio.NewScanner(strings.NewReader(dump))
		sc.Buffer(nil, 1<<20)
		n, last := 0, int64(0)
		for sc.Scan() {
			var ev struct {
				Filetime json.Number `json:"filetime"` // a number or a decimal string
			}
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Fatalf("%s line %d: %v", p, n+1, err)
			}
			ft, err := ev.Filetime.Int64()
			if err != nil {
				t.Fatalf("%s line %d: filetime %v", p, n+1, err)
			}
			if ft < last {
				t.Errorf("%s line %d goes back in time", p, n+1)
			}
			last = ft
			n++
		}
		if n != fi.Events {
			t.Errorf("%s: %d JSON lines, info says %d events", p, n, fi.Events)
		}
	}
}

// TestRelog writes a filtered, compressed file and reads it back.
func TestRelog(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.etl")
	if _, stderr, code := runCLI(t, "relog", sample, "-o", out, "--provider", "etwkit-shop,{3f4a7f2e-5c1d-4b8e-9a61-0c2d3e4f5a6b}", "--compress"); code != 0 {
		t.Fatalf("relog: exit %d: %s", code, stderr)
	}
	var fi fileInfo
	if err := json.Unmarshal([]byte(mustRun(t, "info", "--json", out)), &fi); err != nil {
		t.Fatal(err)
	}
	// The sample provider's 3 event64, 1 event32 and 1 classic event, the
	// TraceLogging event, and the output's 2 header events.
	ht := fi.HeaderTypes
	if fi.Events != 8 || ht["event64"] != 4 || ht["event32"] != 1 || ht["classic64"] != 1 || ht["system64"] != 2 || fi.CompressedBuffers == 0 || len(fi.Errors) != 0 {
		t.Errorf("relogged file: %+v", fi)
	}
	if _, _, code := runCLI(t, "relog", sample, "-o", out); code != exitExists {
		t.Errorf("relog over an existing file without -y: exit %d", code)
	}
	if _, _, code := runCLI(t, "relog", sample); code != exitUsage {
		t.Errorf("relog without -o: exit %d", code)
	}
}

// TestCorpusRelogKeepsInput: relog of a whole file keeps what it had: its
// buffer size, compression when it was compressed, its header events, so
// that the output is about the input's size (a 117 KB PktMon capture in
// 16 MiB buffers once became 80 MiB) and info counts the same records.
func TestCorpusRelogKeepsInput(t *testing.T) {
	for _, rel := range []string{
		"nathaniel-security+microsoft-pktmon-VPN-capture-traffic/history/508f5bc135c8effceef0879693c6de45f2a92012/PktMon.etl",
		"microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl",
		"airbus-cert+etl-parser/tests/example/ShutdownPerfDiagLogger.etl",
	} {
		in := etltest.CorpusFile(t, rel)
		out := filepath.Join(t.TempDir(), "out.etl")
		if _, stderr, code := runCLI(t, "relog", in, "-o", out); code != 0 {
			t.Fatalf("relog %s: exit %d: %s", rel, code, stderr)
		}
		info := func(p string) (fi fileInfo) {
			if err := json.Unmarshal([]byte(mustRun(t, "info", "--json", p)), &fi); err != nil {
				t.Fatal(err)
			}
			return fi
		}
		a, b := info(in), info(out)
		if b.Size > a.Size*5/4 {
			t.Errorf("%s: relogged into %d bytes, input %d", rel, b.Size, a.Size)
		}
		if (a.CompressedBuffers > 0) != (b.CompressedBuffers > 0) || b.BufferSize != a.BufferSize {
			t.Errorf("%s: input %d compressed buffers of %d bytes, output %d of %d", rel, a.CompressedBuffers, a.BufferSize, b.CompressedBuffers, b.BufferSize)
		}
		if b.Events != a.Events || !maps.Equal(a.HeaderTypes, b.HeaderTypes) || len(b.Errors) != 0 {
			t.Errorf("%s: input %d events %v, output %d %v (errors %v)", rel, a.Events, a.HeaderTypes, b.Events, b.HeaderTypes, b.Errors)
		}
		if a.CompressedBuffers > 0 {
			if _, stderr, code := runCLI(t, "relog", in, "-o", out, "-y", "--no-compress"); code != 0 {
				t.Fatalf("relog --no-compress %s: exit %d: %s", rel, code, stderr)
			}
			if c := info(out); c.CompressedBuffers != 0 || c.Events != a.Events {
				t.Errorf("%s --no-compress: %d compressed buffers, %d events", rel, c.CompressedBuffers, c.Events)
			}
		}
	}
}

// TestCorpusRelogCLI merges two real files into one and checks every event.
func TestCorpusRelogCLI(t *testing.T) {
	dir := etltest.CorpusDir(t)
	a := filepath.Join(dir, "Marissa1999+Tracing-Application/mytrace.etl")
	b := filepath.Join(dir, "airbus-cert+etl-parser/tests/example/AMSITrace.etl")
	out := filepath.Join(t.TempDir(), "merged.etl")
	if _, stderr, code := runCLI(t, "relog", a, b, "-o", out); code != 0 {
		t.Fatalf("relog: exit %d: %s", code, stderr)
	}
	src := mustRun(t, a, b, "-of", "JSON", "-o", "-")
	got := mustRun(t, out, "-of", "JSON", "-o", "-")
	// Same events in the same order with the same UTC times and values,
	// minus each input's header events (the output has its own).
	pick := func(s string) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			var ev map[string]any
			if err := json.Unmarshal([]byte(l), &ev); err != nil {
				t.Fatal(err)
			}
			if ev["provider_guid"] == "{68fdd900-4a3e-11d1-84f4-0000f80464e3}" {
				continue
			}
			b, _ := json.Marshal(map[string]any{"t": ev["filetime"], "p": ev["provider_guid"], "id": ev["event_id"], "props": ev["properties"], "pid": ev["pid"], "cpu": ev["cpu"]})
			out = append(out, string(b))
		}
		return out
	}
	ws, gs := pick(src), pick(got)
	if len(ws) != 27 || len(ws) != len(gs) {
		t.Fatalf("%d events relogged, %d in the sources (want 8 + 19)", len(gs), len(ws))
	}
	for i := range ws {
		if ws[i] != gs[i] {
			t.Errorf("event %d:\n got %s\nwant %s", i, gs[i], ws[i])
		}
	}
}

// TestSynthRoundTrip: ETL → JSON → ETL → JSON reaches a fixpoint, and the
// synthesized file keeps every event of the original. Subtest "sample"
// covers the committed fixture (synthetic records of every kind) and runs
// always; the "corpus/…" subtests cover four Windows-made files and are
// skipped, each by name, without ETL_CORPUS. With ETL_CORPUS set, a
// missing file fails.
func TestSynthRoundTrip(t *testing.T) {
	check := func(t *testing.T, src string) {
		dir := t.TempDir()
		j1 := mustRun(t, src, "-of", "JSON", "--raw", "-o", "-")
		in1 := filepath.Join(dir, "1.jsonl")
		if err := os.WriteFile(in1, []byte(j1), 0o644); err != nil {
			t.Fatal(err)
		}
		etl2 := filepath.Join(dir, "2.etl")
		if _, stderr, code := runCLI(t, "synth", in1, "-o", etl2); code != 0 {
			t.Fatalf("synth: exit %d: %s", code, stderr)
		}
		j2 := mustRun(t, etl2, "-of", "JSON", "--raw", "-o", "-")
		in2 := filepath.Join(dir, "2.jsonl")
		if err := os.WriteFile(in2, []byte(j2), 0o644); err != nil {
			t.Fatal(err)
		}
		etl3 := filepath.Join(dir, "3.etl")
		if _, stderr, code := runCLI(t, "synth", in2, "-o", etl3, "--compress"); code != 0 {
			t.Fatalf("synth: exit %d: %s", code, stderr)
		}
		j3 := mustRun(t, etl3, "-of", "JSON", "--raw", "-o", "-")
		// Only the log-file header event may differ (the new file's
		// buffer count, end time, compression bit and layout version).
		// Against Windows' file, the processor-index flag (0x200) may
		// differ too: the writer always writes processor-index buffers,
		// Windows' relogger leaves it off its header buffer.
		noProcIndex := regexp.MustCompile(`"flags":[0-9]+`)
		mask := func(s string) string {
			return noProcIndex.ReplaceAllStringFunc(s, func(m string) string {
				v, _ := strconv.ParseUint(m[8:], 10, 16)
				return fmt.Sprintf(`"flags":%d`, v&^0x200)
			})
		}
		for _, pair := range [][2]string{{mask(j1), mask(j2)}, {j2, j3}} {
			a, b := strings.Split(pair[0], "\n"), strings.Split(pair[1], "\n")
			if len(a) != len(b) {
				t.Fatalf("%s: %d events, before %d", src, len(b), len(a))
			}
			for i := 1; i < len(a); i++ {
				if a[i] != b[i] {
					t.Errorf("%s line %d:\n got %.300s\nwant %.300s", src, i+1, b[i], a[i])
				}
			}
		}
	}
	t.Run("sample", func(t *testing.T) { check(t, sample) })
	for _, rel := range []string{
		"Marissa1999+Tracing-Application/mytrace.etl",
		"airbus-cert+etl-parser/tests/example/ShutdownPerfDiagLogger.etl",
		"jtmoon79+super-speedy-syslog-searcher/logs/programs/OneDrive/Local/Microsoft/OneDrive/logs/Personal/gunzipped/CldFlt0-2025-12-21-121418.etl",
		"nathaniel-security+microsoft-pktmon-VPN-capture-traffic/history/508f5bc135c8effceef0879693c6de45f2a92012/PktMon.etl",
	} {
		t.Run("corpus/"+filepath.Base(rel), func(t *testing.T) {
			check(t, etltest.CorpusFile(t, rel))
		})
	}
}

// TestSynthFromForeignJSON turns events from elsewhere into TraceLogging.
func TestSynthFromForeignJSON(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "app.jsonl")
	os.WriteFile(in, []byte(`{"time":"2024-05-01T10:00:00Z","provider_name":"MyApp","event_name":"Login","level":4,"pid":42,"properties":{"user":"ann","ok":true,"tries":3,"latency":0.25,"roles":["admin","dev"],"client":{"ip":"10.0.0.1","port":443}}}
{"time":"2024-05-01T10:00:01.5Z","provider_name":"MyApp","event_name":"Logout","properties":{"user":"ann"}}
`), 0o644)
	out := filepath.Join(dir, "app.etl")
	if _, stderr, code := runCLI(t, "synth", in, "-o", out); code != 0 {
		t.Fatalf("synth: exit %d: %s", code, stderr)
	}
	got := mustRun(t, out, "-of", "JSON", "-o", "-")
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d events:\n%s", len(lines), got)
	}
	var ev struct {
		Time       string         `json:"time"`
		Provider   string         `json:"provider_name"`
		GUID       string         `json:"provider_guid"`
		Name       string         `json:"event_name"`
		PID        uint32         `json:"pid"`
		Level      int            `json:"level"`
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal([]byte(lines[2]), &ev); err != nil {
		t.Fatal(err)
	}
	want := `{"client":{"ip":"10.0.0.1","port":443},"latency":0.25,"ok":true,"roles":["admin","dev"],"tries":3,"user":"ann"}`
	props, _ := json.Marshal(ev.Properties)
	if ev.Time != "2024-05-01T10:00:00.0000000Z" || ev.Provider != "MyApp" || ev.Name != "Login" || ev.PID != 42 || ev.Level != 4 || string(props) != want {
		t.Errorf("event: %+v\nproperties %s", ev, props)
	}
	// The provider GUID is EventSource's name hash.
	if ev.GUID != "{"+tracelogging.ProviderGUID("MyApp").String()+"}" {
		t.Errorf("provider GUID %s", ev.GUID)
	}
	os.WriteFile(in, []byte(`{"time":"2024-05-01T10:00:00Z","event_name":"x"}`+"\n"), 0o644)
	if _, stderr, code := runCLI(t, "synth", in, "-o", out, "-y"); code != exitMalformed || !strings.Contains(stderr, "app.jsonl:1") {
		t.Errorf("event without payload: exit %d, %s", code, stderr)
	}
}

// An output named like a trace is a usage error that points at relog; it is
// neither read as an input nor replaced, and no default dump file appears.
func TestETLOutputIsUsageError(t *testing.T) {
	t.Chdir(t.TempDir())
	orig, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile("out.etl", orig, 0o644)
	for _, args := range [][]string{
		{sample, "-of", "JSON", "-o", "out.etl", "-y"},
		{sample, "-o", "new.etl"},
		{sample, "-summary", "x.etl"},
		{sample, "-report", "r.etl"},
	} {
		_, stderr, code := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "relog") {
			t.Errorf("%q: exit %d, %q; want exit %d naming relog", args, code, stderr, exitUsage)
		}
	}
	if got, _ := os.ReadFile("out.etl"); !bytes.Equal(got, orig) {
		t.Error("out.etl changed")
	}
	for _, pat := range []string{"dumpfile.*", "summary.txt", "new.etl", "x.etl", "r.etl", "workload.html"} {
		if m, _ := filepath.Glob(pat); len(m) > 0 {
			t.Errorf("%s written", m)
		}
	}
}

// tracerpt's aliases -gmt and -f are named in --help.
func TestHelpNamesTracerptAliases(t *testing.T) {
	out := mustRun(t, "--help")
	for _, want := range []string{"-gmt is -tz UTC", "-f FORMAT"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help does not say %q", want)
		}
	}
}
