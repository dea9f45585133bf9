package decode

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/tdh"
)

func corpusDirs(t testing.TB) (corpus, schemas string) {
	dir := etltest.CorpusDir(t)
	return dir, filepath.Join(dir, "..", "schemas")
}

type fileStats struct {
	events, withSchema, decoded, extra int
	byProvider                         map[string][3]int // events, with schema, decoded
	errors                             []string
	extraByKey                         map[string]int // events decoded with bytes left over, by eventKey
	undecoded                          map[string]int // events without a schema or with an error, by provider GUID
	bySource                           [5]int         // decoded events by source: import, trace, eventsource, built-in, tracelogging
}

// eventKey names an event for the tables of known gaps: provider (or
// class) GUID and event id (or, for classic events, the type).
func eventKey(ev *etl.Event) string {
	id := ev.Descriptor.ID
	if ev.Flags&etl.FlagClassicHeader != 0 {
		id = uint16(ev.Descriptor.Opcode)
	}
	return fmt.Sprintf("%s/%d", ev.ProviderID, id)
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
	rep, err := d.ImportFiles(imports...)
	if err != nil || len(rep.Warnings) > 0 {
		t.Fatalf("import %v: %v %v", imports, err, rep.Warnings)
	}
	if err := d.Prescan([]*etl.File{f}); err != nil {
		t.Fatal(err)
	}
	st := fileStats{byProvider: map[string][3]int{}, extraByKey: map[string]int{}, undecoded: map[string]int{}}
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
					st.extraByKey[eventKey(ev)]++
				}
				st.bySource[sourceIndex(res.Origin.Kind)]++
			} else if len(st.errors) < 5 {
				st.errors = append(st.errors, fmt.Sprintf("%s id %d v%d: %v", res.Schema.ProviderName, ev.Descriptor.ID, ev.Descriptor.Version, res.Err))
			}
		}
		if res.Schema == nil || res.Err != nil {
			st.undecoded[name]++
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
		}
		st := decodeFile(t, filepath.Join(corpus, c.file), imports...)
		got := st.byProvider[c.provider]
		if got[0] != c.events || got[1] != c.events || got[2] != c.events {
			t.Errorf("%s: provider %s: %d events, %d with schema, %d decoded; want all %d. Errors: %v", c.file, c.provider, got[0], got[1], got[2], c.events, st.errors)
		}
		for k, n := range st.extraByKey {
			if strings.HasPrefix(k, c.provider+"/") && knownLeftovers[k] == "" {
				t.Errorf("%s: %d events %s decoded with bytes left over, which no known gap explains", c.file, n, k)
			}
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

func sourceIndex(kind string) int {
	switch kind {
	case "import":
		return 0
	case "trace":
		return 1
	case "eventsource":
		return 2
	case "built-in":
		return 3
	}
	return 4
}

// notDecodable lists, by provider (or class) GUID, the corpus events
// that nothing decodes without -import, and why.
var notDecodable = map[string]string{
	"a0c1853b-5c40-4b15-8766-3cf1c58f985a": "Microsoft-Windows-PowerShell (powershell.etl, 112 events): the trace carries no metadata and the schema is Windows' own registration; the public dumps of it (repnz, jdu2600) carry no licence, so it is not built in: -import one",
	"393da8c0-dbed-11d2-895b-00c04f79ab69": "Active Directory: NetLogon (classic, 200 events): no MOF is public; a field list dumped from Windows (jdu2600, no licence) lets a user write one (mof/netlogon_test.go does)",
	"2818ef08-6a54-396f-2244-5a6ea4a98cf0": "cldflt.sys WPP messages (13): WPP needs the driver's TMF, which is not public",
	"9b79ee91-b5fd-41c0-a243-4248e266e9d0": "KernelTraceControl SysConfig type 37 (6 events, 16 bytes): no layout is public (mof/ktc_test.go)",
	"231cf54b-22a0-49e4-a59a-47052a30ffed": "UIforETW Multi-Main event 103 (user.etl, 1 event): not built in; UIforETW's authored etwproviders.man (Apache-2.0) decodes it with -import",
}

// knownLeftovers lists the events that decode with bytes left over after
// the last property, and why (docs/decoding.md).
var knownLeftovers = map[string]string{
	"e13c0d23-ccbc-4e12-931b-d9cc2eee27e4/82":  "CLRStackWalk: the manifest (and the trace's metadata) declare Stack with count 2; the runtime logs FrameCount frames",
	"763fd754-7086-4dfe-95eb-c01a46faf4ca/4":   "GCPerHeapHistory v2 (private provider): 433 bytes longer than the newest manifest's template",
	"e13c0d23-ccbc-4e12-931b-d9cc2eee27e4/208": "GCLOHCompact: C struct padding the manifest does not describe",
	"e13c0d23-ccbc-4e12-931b-d9cc2eee27e4/209": "GCFitBucketInfo: C struct padding the manifest does not describe",
	"a8a71ac1-040f-54a2-07ca-00a89b5ab761/13":  "PerfView's own EventSource event 13: the payload is longer than the manifest PerfView logged",
	"2cb15d1d-5fc1-11d2-abe1-00a0c911f518/2":   "syzygy test files: 64-bit payloads in 32-bit records (mof.Decoder Lenient repairs them)",
	"2cb15d1d-5fc1-11d2-abe1-00a0c911f518/3":   "syzygy test files: 64-bit payloads in 32-bit records",
	"2cb15d1d-5fc1-11d2-abe1-00a0c911f518/10":  "syzygy test files: 64-bit payloads in 32-bit records",
	"3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c/1":   "syzygy test files: zeroed TOKEN_USER before the SID, 64-bit payloads in 32-bit records",
	"3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c/2":   "syzygy test files: zeroed TOKEN_USER before the SID",
	"3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c/3":   "syzygy test files: zeroed TOKEN_USER before the SID",
	"3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c/4":   "syzygy test files: zeroed TOKEN_USER before the SID",
}

// TestCorpusDecodeRates decodes every corpus file with nothing imported,
// as tracerpt-go does by default, and prints the per-file table of
// docs/decoding.md. Every event decodes (with no error) except those
// notDecodable lists; bytes left over come only from knownLeftovers; and
// at least 99.5 % of all records decode.
func TestCorpusDecodeRates(t *testing.T) {
	corpus, _ := corpusDirs(t)
	files := etltest.CorpusTraces(t)
	if len(files) < 32 {
		t.Fatalf("%d .etl files under %s, want the 32 of the corpus", len(files), corpus)
	}
	var out strings.Builder
	out.WriteString("| file | events | decoded | rate | import | trace | eventsource | built-in | tracelogging | left over |\n|---|---|---|---|---|---|---|---|---|---|\n")
	total, decoded := 0, 0
	undecoded := map[string]int{}
	for _, p := range files {
		st := decodeFile(t, p)
		rel, _ := filepath.Rel(corpus, p)
		total += st.events
		decoded += st.decoded
		fmt.Fprintf(&out, "| `%s` | %d | %d | %.1f %% | %d | %d | %d | %d | %d | %d |\n", shortName(rel), st.events, st.decoded,
			100*float64(st.decoded)/float64(st.events), st.bySource[0], st.bySource[1], st.bySource[2], st.bySource[3], st.bySource[4], st.extra)
		for g, n := range st.undecoded {
			undecoded[g] += n
			if notDecodable[g] == "" {
				t.Errorf("%s: %d events of %s do not decode (%v)", rel, n, g, st.errors)
			}
		}
		for k, n := range st.extraByKey {
			if knownLeftovers[k] == "" {
				t.Errorf("%s: %d events %s decode with bytes left over, which no known gap explains", rel, n, k)
			}
		}
	}
	rate := 100 * float64(decoded) / float64(total)
	fmt.Fprintf(&out, "| **all %d files** | %d | %d | %.2f %% | | | | | | |\n", len(files), total, decoded, rate)
	if rate < 99.5 {
		t.Errorf("%.2f %% of the corpus decodes with nothing imported, want ≥ 99.5 %%", rate)
	}
	out.WriteString("\nNot decoded:\n")
	guids := make([]string, 0, len(undecoded))
	for g := range undecoded {
		guids = append(guids, g)
	}
	sort.Slice(guids, func(i, j int) bool { return undecoded[guids[i]] > undecoded[guids[j]] })
	for _, g := range guids {
		fmt.Fprintf(&out, "- %d: %s\n", undecoded[g], notDecodable[g])
	}
	t.Logf("\n%s", out.String())
}

// shortName shortens a corpus path for the table.
func shortName(rel string) string {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) <= 2 {
		return rel
	}
	return parts[0] + "/…/" + parts[len(parts)-1]
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
// event of net.4.5.2.x64 that the built-in schemas or the trace's own
// decode: a folder fills gaps, it does not override.
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
		if a.Schema == nil || a.Err != nil {
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
	if compared != 179473 {
		t.Errorf("compared %d events, want the 179,473 the file decodes with nothing imported", compared)
	}
	if differ > 0 {
		t.Errorf("%d of %d events changed when the schema folder was imported", differ, compared)
	}
}

// TestCorpusTraceSchemas: with nothing imported, the events that relogged
// traces describe in their own TDH metadata decode exactly as with the
// authored schema files. net.4.5.2.x64: every CLR event has the property
// names and values of -import ClrEtwAll.man. Every PktMon capture: every
// PktMon event decodes from the trace's metadata with no error and no
// bytes left over, into the same properties at the same payload offsets
// as with the WEPExplorer export (which lacks the maps the trace carries,
// so the rendering of mapped values differs; the raw values do not).
func TestCorpusTraceSchemas(t *testing.T) {
	corpus, schemas := corpusDirs(t)
	net452 := filepath.Join(corpus, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl")
	n, fromTrace := compareWithImport(t, net452, filepath.Join(schemas, "authored/dotnet-runtime/ClrEtwAll.man"), true)
	if n != 67368 || fromTrace < 65000 {
		t.Errorf("net.4.5.2: compared %d CLR events (%d from the trace's metadata), want 67,368 (65,741)", n, fromTrace)
	}
	export := filepath.Join(schemas, "dumped/nasbench-EVTX-ETW-Resources-W11-22H2/Microsoft-Windows-PktMon.xml")
	captures := map[string]int{
		"Kesiya24+final-project/PktMon.etl": 657,
		"NeoChenjf+Finguard/PktMon.etl":     1314,
		"nathaniel-security+microsoft-pktmon-VPN-capture-traffic/history/508f5bc135c8effceef0879693c6de45f2a92012/PktMon.etl": 4514,
	}
	for file, want := range captures {
		n, fromTrace := compareWithImport(t, filepath.Join(corpus, file), export, false)
		if n != want || fromTrace != want {
			t.Errorf("%s: %d PktMon events compared, %d from the trace; want %d", file, n, fromTrace, want)
		}
	}
}

// compareWithImport decodes path with nothing imported and with schema
// imported, and compares every event the import decodes: the JSON of
// their properties (exact), or their layout (names, offsets and sizes
// of every value). It returns the number compared and how many of them
// decoded from the trace's own metadata without the import.
func compareWithImport(t *testing.T, path, schema string, exact bool) (compared, fromTrace int) {
	t.Helper()
	f, err := etl.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	plain, imp := New(), New()
	if _, err := imp.ImportFiles(schema); err != nil {
		t.Fatal(err)
	}
	for _, d := range []*Decoder{plain, imp} {
		if err := d.Prescan([]*etl.File{f}); err != nil {
			t.Fatal(err)
		}
	}
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	bad := 0
	for r.Next() {
		ev := r.Event()
		b := imp.Decode(ev)
		if b.Origin.Kind != "import" || b.Err != nil {
			continue
		}
		jb, lb := string(tdh.AppendPropertiesJSON(nil, b.Decoded)), layout(b.Decoded)
		a := plain.Decode(ev)
		compared++
		if a.Origin.Kind == "trace" {
			fromTrace++
		}
		same := a.Err == nil && a.Schema != nil && layout(a.Decoded) == lb && len(a.Decoded.Extra) == len(b.Decoded.Extra)
		if exact {
			same = same && string(tdh.AppendPropertiesJSON(nil, a.Decoded)) == jb
		}
		if !same {
			if bad++; bad <= 5 {
				t.Errorf("%s: %v id %d v%d: from %v %s (err %v); with the import %s", filepath.Base(path), ev.ProviderID, ev.Descriptor.ID,
					ev.Descriptor.Version, a.Origin, layout(a.Decoded), a.Err, lb)
			}
		}
	}
	return compared, fromTrace
}

// layout describes the values of a decoded payload: name, offset and size.
func layout(d *tdh.Decoded) string {
	if d == nil {
		return "<nil>"
	}
	var b strings.Builder
	for _, v := range d.Values {
		name := ""
		if v.Prop != nil {
			name = v.Prop.Name
		}
		fmt.Fprintf(&b, "%s@%d+%d ", name, v.Offset, len(v.Data))
	}
	return b.String()
}

// TestCorpusPktMonEtl2txt: with nothing imported, every PktMon event of
// the capture that comes with pktmon's own text output renders the line
// pktmon etl2txt printed: the message and maps of the trace's own
// metadata, values inserted as TDH formats them. TDH's map texts end with
// a space ("Direction Rx , Type WiFi ,"), which eventinfo trims as it
// does for every TDH string; that space is the only difference allowed.
func TestCorpusPktMonEtl2txt(t *testing.T) {
	corpus, _ := corpusDirs(t)
	dir := filepath.Join(corpus, "nathaniel-security+microsoft-pktmon-VPN-capture-traffic/history/508f5bc135c8effceef0879693c6de45f2a92012")
	want := readEtl2txt(t, filepath.Join(dir, "PktMon.txt"))
	f, err := etl.Open(filepath.Join(dir, "PktMon.etl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := New()
	if err := d.Prescan([]*etl.File{f}); err != nil {
		t.Fatal(err)
	}
	pktmon := "4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac"
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	n, equal := 0, 0
	for r.Next() {
		ev := r.Event()
		if ev.ProviderID.String() != pktmon {
			continue
		}
		res := d.Decode(ev)
		if res.Err != nil || res.Schema == nil || res.Origin.Kind != "trace" {
			t.Fatalf("event %d: %v from %v", ev.Descriptor.ID, res.Err, res.Origin)
		}
		got := tdh.FormatMessage(res.Schema.Message, res.Decoded, nil)
		if n < len(want) && got == trimMapSpaces(want[n]) {
			equal++
		} else if n-equal < 5 && n < len(want) {
			t.Errorf("event #%d (id %d):\n got %q\nwant %q", n, ev.Descriptor.ID, got, want[n])
		}
		n++
	}
	t.Logf("%d of %d PktMon events render etl2txt's line exactly", equal, n)
	if n != len(want) || equal != n {
		t.Errorf("%d events (etl2txt: %d), %d lines equal", n, len(want), equal)
	}
}

// readEtl2txt returns the message of every Microsoft-Windows-PktMon
// event in a pktmon etl2txt output file, in file order.
func readEtl2txt(t *testing.T, path string) []string {
	t.Helper()
	out, err := etltest.PktmonMessages(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no PktMon events", path)
	}
	return out
}

// trimMapSpaces removes the space TDH leaves at the end of map texts.
func trimMapSpaces(s string) string {
	s = strings.ReplaceAll(s, " , ", ", ")
	s = strings.ReplaceAll(s, "  ", " ")
	return strings.TrimSuffix(s, " ")
}
