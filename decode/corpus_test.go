package decode

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

func corpusDirs(t testing.TB) (corpus, schemas string) {
	dir := os.Getenv("ETL_CORPUS")
	if dir == "" {
		t.Skip("ETL_CORPUS is not set: no real .etl corpus to test against")
	}
	return dir, filepath.Join(dir, "..", "schemas")
}

type fileStats struct {
	events, withSchema, decoded, extra int
	byProvider                         map[string][3]int // events, with schema, decoded
	errors                             []string
}

// decodeFile decodes every event of a corpus file with the given schema
// files, as tracerpt-go does.
func decodeFile(t testing.TB, path string, imports ...string) fileStats {
	f, err := etl.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := New()
	d.Import(imports...) // errors checked by the callers that need them
	if err := d.Prescan([]*etl.File{f}); err != nil {
		t.Fatal(err)
	}
	st := fileStats{byProvider: map[string][3]int{}}
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	for r.Next() {
		ev := r.Event()
		res := d.Decode(ev)
		st.events++
		name := ev.ProviderID.String()
		c := st.byProvider[name]
		c[0]++
		if res.Schema != nil {
			st.withSchema++
			c[1]++
			if res.Err == nil {
				st.decoded++
				c[2]++
				if len(res.Decoded.Extra) > 0 {
					st.extra++
				}
			} else if len(st.errors) < 5 {
				st.errors = append(st.errors, fmt.Sprintf("%s id %d v%d: %v", res.Schema.ProviderName, ev.Descriptor.ID, ev.Descriptor.Version, res.Err))
			}
		}
		st.byProvider[name] = c
	}
	return st
}

// TestCorpusProvidersDecode: every event of the providers the manifest
// issue names decodes with no error, with representative values checked.
func TestCorpusProvidersDecode(t *testing.T) {
	corpus, schemas := corpusDirs(t)
	cases := []struct {
		file, schema, provider string
		events                 int
	}{
		{"microsoft+krabsetw/examples/NativeExamples/powershell.etl", "dumped/repnz-Manifests-Win10-18990/Microsoft-Windows-PowerShell.xml",
			"a0c1853b-5c40-4b15-8766-3cf1c58f985a", 112},
		{"trailofbits+RpcInvestigator/UnitTests/data/trace_files/ms-rpc-capture-arrays.etl", "dumped/repnz-Manifests-Win10-18990/Microsoft-Windows-RPC.xml",
			"6ad52b32-d609-4be9-ae07-ce8dae937e39", 32},
		{"microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/gcevents.etl.zip.unzipped/gcevents/PerfViewData.etl", "authored/dotnet-runtime/ClrEtwAll.man",
			"e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", 69},
		// EventSource manifests carried by the trace itself: no import.
		// (counts from TraceEvent's COUNT lines, manifest events included).
		{"microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl", "",
			"a8a71ac1-040f-54a2-07ca-00a89b5ab761", baselineCount(t, corpus, "PerfView")},
		{"microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl", "",
			"2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5", baselineCount(t, corpus, "System.Threading.Tasks.TplEventSource")},
		{"microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl", "",
			"8e9f5090-2d75-4d03-8a81-e5afbf85daf1", baselineCount(t, corpus, "System.Diagnostics.Eventing.FrameworkEventSource")},
	}
	for _, c := range cases {
		var imports []string
		if c.schema != "" {
			imports = append(imports, filepath.Join(schemas, c.schema))
			if err := New().Import(imports...); err != nil {
				t.Errorf("import %s: %v", c.schema, err)
			}
		}
		st := decodeFile(t, filepath.Join(corpus, c.file), imports...)
		got := st.byProvider[c.provider]
		if got[0] != c.events || got[1] != c.events || got[2] != c.events {
			t.Errorf("%s: provider %s: %d events, %d with schema, %d decoded; want all %d. Errors: %v", c.file, c.provider, got[0], got[1], got[2], c.events, st.errors)
		}
	}
}

// TestCorpusValues checks decoded values against the Windows tools'
// outputs for the same files.
func TestCorpusValues(t *testing.T) {
	corpus, schemas := corpusDirs(t)
	f, err := etl.Open(filepath.Join(corpus, "microsoft+krabsetw/examples/NativeExamples/powershell.etl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := New()
	if err := d.Import(filepath.Join(schemas, "dumped/repnz-Manifests-Win10-18990/Microsoft-Windows-PowerShell.xml")); err != nil {
		t.Fatal(err)
	}
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	checked := 0
	for r.Next() {
		ev := r.Event()
		res := d.Decode(ev)
		if ev.Descriptor.ID != 7937 || res.Err != nil || res.Schema == nil {
			continue
		}
		props := string(tdh.AppendPropertiesJSON(nil, res.Decoded))
		// Every 7937 ("executing a pipeline") event names the host.
		if !strings.Contains(props, `Host Application = C:\\WINDOWS\\System32\\WindowsPowerShell\\v1.0\\powershell.exe`) {
			t.Errorf("event 7937 properties: %.300s", props)
		}
		checked++
	}
	if checked != 101 {
		t.Errorf("checked %d events 7937, want 101", checked)
	}
}

// TestCorpusDecodeRates prints the per-file table of docs/decoding-rates.md.
func TestCorpusDecodeRates(t *testing.T) {
	corpus, schemas := corpusDirs(t)
	imports := []string{
		"authored/dotnet-runtime/ClrEtwAll.man",
		"dumped/repnz-Manifests-Win10-18990/Microsoft-Windows-PowerShell.xml",
		"dumped/repnz-Manifests-Win10-18990/Microsoft-Windows-RPC.xml",
		"dumped/nasbench-EVTX-ETW-Resources-W11-22H2/Microsoft-Windows-PktMon.xml",
	}
	for i := range imports {
		imports[i] = filepath.Join(schemas, imports[i])
	}
	var files []string
	filepath.WalkDir(corpus, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(p, ".etl") {
			files = append(files, p)
		}
		return nil
	})
	var out strings.Builder
	out.WriteString("| file | events | with a schema | decoded | rate | decoded with bytes left over |\n|---|---|---|---|---|---|\n")
	for _, p := range files {
		st := decodeFile(t, p, imports...)
		rel, _ := filepath.Rel(corpus, p)
		rate := "—"
		if st.withSchema > 0 {
			rate = fmt.Sprintf("%.1f %%", 100*float64(st.decoded)/float64(st.withSchema))
		}
		fmt.Fprintf(&out, "| `%s` | %d | %d | %d | %s | %d |\n", rel, st.events, st.withSchema, st.decoded, rate, st.extra)
		if st.decoded != st.withSchema {
			t.Errorf("%s: %d of %d events with a schema decode: %v", rel, st.decoded, st.withSchema, st.errors)
		}
	}
	t.Logf("\n%s", out.String())
}

// baselineCount sums the COUNT lines of a provider in TraceEvent's
// baseline of net.4.5.2.x64.etl.
func baselineCount(t *testing.T, corpus, provider string) int {
	b, err := os.ReadFile(filepath.Join(corpus, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.baseline.txt"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "COUNT "+provider+"/") {
			var k int
			fmt.Sscan(line[strings.LastIndexByte(line, ':')+1:], &k)
			n += k
		}
	}
	if n == 0 {
		t.Fatalf("no COUNT lines for %s", provider)
	}
	return n
}

// TestCorpusFolderImportKeepsKernelValues: importing every schema file
// of the shared folder (dumped kernel classes, old MOF files, other
// builds' CLR manifests) changes no value, name or schema source of an
// event of net.4.5.2.x64 that the built-in schemas decode: a folder
// fills gaps, it does not override.
func TestCorpusFolderImportKeepsKernelValues(t *testing.T) {
	corpus, schemas := corpusDirs(t)
	path := filepath.Join(corpus, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl")
	f, err := etl.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	plain, lib := New(), New()
	rep, err := lib.ImportFiles(schemas)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files < 700 {
		t.Fatalf("only %d schema files imported from %s", rep.Files, schemas)
	}
	t.Logf("%s", rep.Summary())
	for _, d := range []*Decoder{plain, lib} {
		if err := d.Prescan([]*etl.File{f}); err != nil {
			t.Fatal(err)
		}
	}
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	compared, differ := 0, 0
	for r.Next() {
		ev := r.Event()
		a := plain.Decode(ev)
		if a.Schema == nil || a.Origin.Kind != "built-in" {
			continue
		}
		ja, na := string(tdh.AppendPropertiesJSON(nil, a.Decoded)), a.Schema.EventName+"/"+a.Schema.OpcodeName
		b := lib.Decode(ev)
		compared++
		if b.Schema == nil || b.Origin != a.Origin || b.Schema.EventName+"/"+b.Schema.OpcodeName != na || string(tdh.AppendPropertiesJSON(nil, b.Decoded)) != ja {
			if differ++; differ <= 5 {
				t.Errorf("%v opcode %d v%d: %s %s from %v; with the folder imported: %v", ev.ProviderID, ev.Descriptor.Opcode, ev.Descriptor.Version, na, ja, a.Origin, b.Origin)
			}
		}
	}
	if compared < 170000 {
		t.Errorf("compared %d built-in events, want the 178,000 or so of the file", compared)
	}
	if differ > 0 {
		t.Errorf("%d of %d events changed when the schema folder was imported", differ, compared)
	}
}
