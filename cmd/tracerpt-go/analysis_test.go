package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/etwkit/etw/internal/etltest"
)

const (
	netRel      = "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl"
	clrManifest = "authored/dotnet-runtime/ClrEtwAll.man"
)

// netCorpus returns net.4.5.2.x64.etl and the .NET runtime's manifest:
// skipped without ETL_CORPUS, failed when a file is missing.
func netCorpus(t *testing.T) (etlPath, manifest string) {
	t.Helper()
	dir := etltest.CorpusDir(t)
	schemas := os.Getenv("ETL_SCHEMAS")
	if schemas == "" {
		schemas = filepath.Join(dir, "..", "schemas")
	}
	etlPath, manifest = filepath.Join(dir, netRel), filepath.Join(schemas, clrManifest)
	for _, p := range []string{etlPath, manifest} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("missing: %v", err)
		}
	}
	return etlPath, manifest
}

// foldedTotal checks folded lines and returns the sum of their counts.
func foldedTotal(t *testing.T, out string) int {
	t.Helper()
	total := 0
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		i := strings.LastIndexByte(line, ' ')
		n, err := strconv.Atoi(line[i+1:])
		if i <= 0 || err != nil || n <= 0 {
			t.Fatalf("folded line %q", line)
		}
		total += n
	}
	return total
}

func TestAnalysisCommandErrors(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "out.folded")
	os.WriteFile(existing, []byte("x"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"stacks"}, exitUsage, "no input file"},
		{[]string{"stats"}, exitUsage, "no input file"},
		{[]string{"stacks", sample, "--format", "svg"}, exitUsage, "want folded or speedscope"},
		{[]string{"stacks", sample, "--event", "NoProvider/"}, exitUsage, "PROVIDER/NAME"},
		{[]string{"stacks", sample, "--pid", "x"}, exitUsage, "--pid"},
		{[]string{"stats", sample, "--bogus"}, exitUsage, "unknown flag"},
		{[]string{"stacks", filepath.Join(dir, "missing.etl")}, exitInput, "missing.etl"},
		{[]string{"stats", filepath.Join(dir, "missing.etl")}, exitInput, "missing.etl"},
		{[]string{"stacks", sample, "-o", existing}, exitExists, "add -y"},
	} {
		_, stderr, code := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%q: exit %d (%q), want %d with %q", c.args, code, stderr, c.code, c.msg)
		}
	}
	if _, _, code := runCLI(t, "stacks", sample, "-o", existing, "-y"); code != 0 {
		t.Errorf("-y: exit %d", code)
	}
	if b, _ := os.ReadFile(existing); string(b) != "notepad (836) 1\n" {
		t.Errorf("-o file: %q", b)
	}
}

// The bundled fixture has one CPU sample, of a thread that no Thread event
// introduces: its process comes from the thread's other events.
func TestStacksAndStatsOnFixture(t *testing.T) {
	if out := mustRun(t, "stacks", sample); out != "notepad (836) 1\n" {
		t.Errorf("stacks: %q", out)
	}
	var st struct {
		Processes []map[string]any `json:"processes"`
	}
	out := mustRun(t, "stats", sample, "--json")
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("stats --json: %v: %s", err, out)
	}
	var np map[string]any
	for _, p := range st.Processes {
		if p["pid"] == float64(836) {
			np = p
		}
	}
	if np == nil || np["name"] != "notepad.exe" || np["command_line"] != `notepad.exe C:\notes.txt` || np["cpu_samples"] != float64(1) ||
		np["start"] != "2020-01-29T15:44:23.8610634Z" || np["end"] != nil || np["events"] != float64(9) {
		t.Errorf("notepad: %v", np)
	}
	if _, ok := np["gc"]; ok {
		t.Error("gc for a process without a .NET runtime")
	}
	// Keys in the documented order.
	if i := strings.Index(out, `"pid":836,"name":"notepad.exe","command_line":`); i < 0 || !strings.Contains(out[i:], `"start":"2020-01-29T15:44:23.8610634Z","end":null,"events":9,"cpu_samples":1,"cpu_percent":100}`) {
		t.Errorf("key order: %s", out)
	}
	if table := mustRun(t, "stats", sample); !strings.Contains(table, "notepad.exe") || !strings.Contains(table, "CPU SAMPLES") {
		t.Errorf("stats table:\n%s", table)
	}
}

// TestDumpJSONAnalysis: the JSON dump gives header-less events a process,
// names processes and carries stacks, the same with one worker or two and
// whatever the filters keep.
func TestDumpJSONAnalysis(t *testing.T) {
	out := mustRun(t, sample, "-of", "JSON", "-o", "-")
	if !strings.Contains(out, `"pid":836,"tid":4660,"process_name":"notepad.exe","header":"perfinfo64"`) {
		t.Errorf("the CPU sample has no process:\n%s", out)
	}
	plain := mustRun(t, sample, "-of", "JSON", "-o", "-", "--no-analysis")
	if strings.Contains(plain, "process_name") || !strings.Contains(plain, `"pid":4294967295,"tid":4294967295,"header":"perfinfo64"`) {
		t.Errorf("--no-analysis:\n%s", plain)
	}
	netETL, manifest := netCorpus(t)
	perfInfo := "{ce1dbfb4-137e-4da6-87b0-3f59aa102cbc}"
	one := mustRun(t, netETL, "-of", "JSON", "-o", "-", "--provider", perfInfo, "--workers", "1", "-import", manifest)
	two := mustRun(t, netETL, "-of", "JSON", "-o", "-", "--provider", perfInfo, "--workers", "2", "-import", manifest)
	if one != two {
		t.Error("one worker and two give different dumps")
	}
	lines := strings.Split(strings.TrimSuffix(one, "\n"), "\n")
	samples, withStack, test := 0, 0, 0
	for _, l := range lines {
		var ev struct {
			PID    uint32 `json:"pid"`
			Opcode int    `json:"opcode"`
			Name   string `json:"process_name"`
			Props  struct{ ThreadId uint32 }
			Stack  []struct {
				Address json.Number `json:"address"` // a string above 2^53 (kernel addresses)
				Module  string      `json:"module"`
				Offset  *uint64
				Method  string `json:"method"`
			} `json:"stack"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("%v: %.200s", err, l)
		}
		if ev.Opcode != 46 {
			continue
		}
		if ev.PID == 4294967295 {
			t.Errorf("sample without a process: %.300s", l)
		}
		samples++
		if ev.Stack != nil {
			withStack++
		}
		if ev.PID == 3676 {
			test++
			if ev.Name != "Test.x64.exe" {
				t.Errorf("pid 3676 named %q", ev.Name)
			}
		}
		for _, f := range ev.Stack {
			addr, err := strconv.ParseUint(f.Address.String(), 10, 64)
			if err != nil {
				t.Errorf("frame address %q: %v", f.Address, err)
			}
			if f.Module != "" && (f.Offset == nil || *f.Offset > addr) {
				t.Errorf("frame %+v", f)
			}
		}
	}
	if samples != 79528 || withStack < 6318 || test != 5129 {
		t.Errorf("%d samples, %d with a stack, %d of Test.x64", samples, withStack, test)
	}
	if !strings.Contains(one, `"method":"System.DateTime.get_Now"`) {
		t.Error("no managed frame named System.DateTime.get_Now")
	}
}

func TestCorpusStacksAndStats(t *testing.T) {
	netETL, manifest := netCorpus(t)
	folded := mustRun(t, "stacks", netETL, "-import", manifest)
	if n := foldedTotal(t, folded); n != 6320 {
		t.Errorf("folded counts add up to %d, want the 6320 samples (6215 of non-idle threads, 105 in DPCs and interrupts)", n)
	}
	if !strings.Contains(folded, "Test.x64 (3676);ntdll.dll;kernel32.dll;mscoree.dll;mscoreei.dll;clr.dll;Test.Program.Main;System.DateTime.get_Now;") {
		t.Error("Test.x64's main stack is missing")
	}
	test := mustRun(t, "stacks", netETL, "--pid", "3676", "-import", manifest)
	if n := foldedTotal(t, test); n != 5129 {
		t.Errorf("--pid 3676: %d samples, want 5129", n)
	}
	for _, l := range strings.Split(strings.TrimSpace(test), "\n") {
		if !strings.HasPrefix(l, "Test.x64 (3676)") {
			t.Fatalf("--pid 3676 gives %q", l)
		}
	}
	alloc := mustRun(t, "stacks", netETL, "--event", "Microsoft-Windows-DotNETRuntime/GC/AllocationTick", "-import", manifest)
	if n := foldedTotal(t, alloc); n != 10382 || !strings.Contains(alloc, "System.DateTime.get_Now") {
		t.Errorf("allocation ticks: %d", n)
	}
	ss := mustRun(t, "stacks", netETL, "--format", "speedscope", "-import", manifest)
	var f struct {
		Schema string `json:"$schema"`
		Shared struct {
			Frames []struct{ Name string } `json:"frames"`
		} `json:"shared"`
		Profiles []struct {
			Type     string    `json:"type"`
			Name     string    `json:"name"`
			EndValue int       `json:"endValue"`
			Samples  [][]int   `json:"samples"`
			Weights  []float64 `json:"weights"`
		} `json:"profiles"`
	}
	if err := json.Unmarshal([]byte(ss), &f); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, p := range f.Profiles {
		if p.Type != "sampled" || len(p.Samples) != len(p.Weights) {
			t.Errorf("profile %s: %s, %d samples %d weights", p.Name, p.Type, len(p.Samples), len(p.Weights))
		}
		for _, s := range p.Samples {
			for _, i := range s {
				if i < 0 || i >= len(f.Shared.Frames) {
					t.Fatalf("frame index %d of %d", i, len(f.Shared.Frames))
				}
			}
		}
		total += p.EndValue
	}
	if f.Schema != "https://www.speedscope.app/file-format-schema.json" || total != 6320 || f.Profiles[0].Name != "Test.x64 (3676)" {
		t.Errorf("speedscope: %s, total %d, first %s", f.Schema, total, f.Profiles[0].Name)
	}

	var st struct {
		Processes []struct {
			PID        uint32 `json:"pid"`
			Name       string `json:"name"`
			Start, End *string
			CPUSamples int `json:"cpu_samples"`
			GC         *struct {
				Count int     `json:"count"`
				Total float64 `json:"pause_ms_total"`
				Max   float64 `json:"pause_ms_max"`
			} `json:"gc"`
		} `json:"processes"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "stats", netETL, "--json", "-import", manifest)), &st); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range st.Processes {
		if p.PID != 3676 {
			if p.GC != nil && p.PID != 3988 {
				t.Errorf("pid %d (%s) has GC statistics", p.PID, p.Name)
			}
			continue
		}
		found = true
		if p.Name != "Test.x64.exe" || p.GC == nil || p.GC.Count != 263 || p.Start == nil || p.End == nil || p.CPUSamples != 5129 {
			t.Errorf("Test.x64: %+v %+v", p, p.GC)
		}
		// TestCorpusNetGC in package analysis checks the pauses against
		// the raw events; here the CLI's rounding of them.
		if p.GC.Total != 28.9706 || p.GC.Max != 1.4177 {
			t.Errorf("pauses %v ms in all, %v ms at most", p.GC.Total, p.GC.Max)
		}
	}
	if !found {
		t.Error("no pid 3676")
	}
	// The .NET runtime's schemas are built in: the same without -import.
	if out := mustRun(t, "stats", netETL, "--json"); !strings.Contains(out, `"pid":3676,"name":"Test.x64.exe","command_line":"Test.x64.exe","start":"2020-07-29T00:07:03.3567925Z","end":"2020-07-29T00:07:08.8259013Z","events":47217,"cpu_samples":5129,"cpu_percent":81.2,"cpu_ms":5129,"gc":{"count":263,"pause_ms_total":28.9706,"pause_ms_max":1.4177}}`) {
		t.Errorf("stats without -import: %.500s", out)
	}
	// 5,129 of the trace's 6,320 CPU samples (the idle thread's left out
	// but in DPCs and interrupts, as the report counts them) at the 1 ms
	// the trace's PerfInfo CollectionStart logs.
	if table := mustRun(t, "stats", netETL); !regexp.MustCompile(`│ 3676 +│ Test\.x64\.exe .*│ 5129 +│ 81\.2 +│ 5129\.000 +│`).MatchString(table) {
		t.Errorf("stats table: no CPU %% and ms for Test.x64:\n%s", table)
	}
}

// TestCorpusAttributionAsTraceEvent: in the JSON dump, events that
// describe a process or thread belong to the one they describe, as
// TraceEvent attributes them (its net.4.5.2 baseline says PID=4 for a
// System thread's Thread/Start that PerfView.exe's context logged): the
// payload's ProcessId is "pid", the process is named after it, and the
// header's pid stays as "header_pid" where it differs.
func TestCorpusAttributionAsTraceEvent(t *testing.T) {
	in := etltest.CorpusFile(t, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl")
	out := mustRun(t, in, "-of", "JSON", "-o", "-", "--provider", "MSNT_SystemTrace")
	checked, moved := 0, 0
	names := map[float64]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev struct {
			PID        float64        `json:"pid"`
			HeaderPID  *float64       `json:"header_pid"`
			Name       string         `json:"process_name"`
			Event      string         `json:"event_name"`
			Opcode     string         `json:"opcode_name"`
			Properties map[string]any `json:"properties"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Event == "Process" && (ev.Opcode == "Start" || ev.Opcode == "DCStart") {
			names[ev.Properties["ProcessId"].(float64)] = ev.Properties["ImageFileName"].(string)
		}
		switch {
		case ev.Event == "Thread" || ev.Event == "Process" || ev.Event == "SystemConfig" && ev.Opcode == "Services":
		default:
			continue
		}
		want, ok := ev.Properties["ProcessId"].(float64)
		if !ok {
			continue
		}
		checked++
		if ev.PID != want {
			t.Errorf("%s/%s of pid %v: \"pid\" %v", ev.Event, ev.Opcode, want, ev.PID)
		}
		if ev.HeaderPID != nil {
			moved++
			if *ev.HeaderPID == ev.PID {
				t.Errorf("%s/%s: header_pid %v equals pid", ev.Event, ev.Opcode, ev.PID)
			}
		}
		if n, ok := names[want]; ok && ev.Name != "" && !strings.EqualFold(ev.Name, n) {
			t.Errorf("%s/%s of pid %v: process_name %q, the process is %q", ev.Event, ev.Opcode, want, ev.Name, n)
		}
	}
	if checked < 100 || moved == 0 {
		t.Errorf("%d events checked, %d with another header pid", checked, moved)
	}
	t.Logf("%d process, thread and service events checked; %d logged from another process's context", checked, moved)
}

// TestCorpusStacksWeightMS: --weight ms weighs net.4.5.2's samples by the
// 1 ms its PerfInfo CollectionStart logs (the folded lines are the
// counts'; speedscope's unit nanoseconds, 10^6 a sample); a trace that
// logs no interval is refused rather than assumed.
func TestCorpusStacksWeightMS(t *testing.T) {
	netETL, _ := netCorpus(t)
	if ms, counts := mustRun(t, "stacks", netETL, "--weight", "ms"), mustRun(t, "stacks", netETL); ms != counts {
		t.Error("folded in ms at 1 ms a sample differs from the counts")
	}
	var f struct {
		Profiles []struct {
			Unit     string
			EndValue int64
		}
	}
	if err := json.Unmarshal([]byte(mustRun(t, "stacks", netETL, "--weight", "ms", "--format", "speedscope")), &f); err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, p := range f.Profiles {
		if p.Unit != "nanoseconds" {
			t.Errorf("unit %q", p.Unit)
		}
		sum += p.EndValue
	}
	if sum != 6320*1e6 {
		t.Errorf("speedscope: %d ns in all, want 6,320 samples of 1 ms", sum)
	}
	_, errs, code := runCLI(t, "stacks", filepath.Join("..", "..", "testdata", "etl", "sample.etl"), "--weight", "ms")
	if code != 1 || !strings.Contains(errs, "logs no sampling interval") {
		t.Errorf("--weight ms without an interval: exit %d, %s", code, errs)
	}
	_, errs, code = runCLI(t, "stacks", "--baseline", filepath.Join("..", "..", "testdata", "etl", "sample.etl"), netETL, "--weight", "ms")
	if code != 1 || !strings.Contains(errs, "the baseline logs no sampling interval") {
		t.Errorf("--baseline --weight ms, a baseline without an interval: exit %d, %s", code, errs)
	}
	if _, _, code := runCLI(t, "stacks", netETL, "--weight", "ms", "--format", "pprof", "-o", filepath.Join(t.TempDir(), "p.pb.gz")); code != exitUsage {
		t.Errorf("--weight ms with pprof: exit %d", code)
	}
}
