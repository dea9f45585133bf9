package eventinfo_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/eventinfo"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/tdh"
)

// The corpus tests read the real traces from ETL_CORPUS and skip when it is
// unset. Schema files come from ETL_SCHEMAS, by default ETL_CORPUS/../schemas.
// A file missing from a corpus that is set is a failure, not a skip.

func corpusDirs(t *testing.T) (corpus, schemas string) {
	t.Helper()
	corpus = etltest.CorpusDir(t)
	schemas = os.Getenv("ETL_SCHEMAS")
	if schemas == "" {
		schemas = filepath.Join(corpus, "..", "schemas")
	}
	return corpus, schemas
}

func mustExist(t *testing.T, path string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("corpus file missing: %v", err)
	}
	return path
}

const (
	netTrace      = "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl"
	rpcManifest   = "dumped/repnz-Manifests-Win10-18990/Microsoft-Windows-RPC.xml"
	rpcTrace      = "trailofbits+RpcInvestigator/UnitTests/data/trace_files/ms-rpc-capture-arrays.etl"
	clrManifest   = "authored/dotnet-runtime/ClrEtwAll.man"
	pktMonExport  = "dumped/nasbench-EVTX-ETW-Resources-W11-22H2/Microsoft-Windows-PktMon.xml"
	pktMonCapture = "PktMon.etl"
)

var (
	clrRuntime = uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")
	clrRundown = uuid.MustParse("a669021c-c450-4609-a035-5af59af4df18")
	rpc        = uuid.MustParse("6ad52b32-d609-4be9-ae07-ce8dae937e39")
	pktMon     = uuid.MustParse("4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac")
)

// inserts returns the %N inserts of a message, sorted.
func inserts(msg string) []string {
	ins := regexp.MustCompile(`%[0-9]+`).FindAllString(msg, -1)
	slices.Sort(ins)
	return ins
}

// localized marks the captures whose messages are not in English.
var localized = map[string]bool{"NeoChenjf+Finguard/PktMon.etl": true}

var pktMonCaptures = []string{
	"Kesiya24+final-project/PktMon.etl",
	"NeoChenjf+Finguard/PktMon.etl",
	"nathaniel-security+microsoft-pktmon-VPN-capture-traffic/history/508f5bc135c8effceef0879693c6de45f2a92012/PktMon.etl",
}

// pktMonCounts are the PktMon events and carried schemas of each capture.
var pktMonCounts = map[string][2]int{
	"Kesiya24+final-project/PktMon.etl": {657, 9},
	"NeoChenjf+Finguard/PktMon.etl":     {1314, 11},
	"nathaniel-security+microsoft-pktmon-VPN-capture-traffic/history/508f5bc135c8effceef0879693c6de45f2a92012/PktMon.etl": {4514, 11},
}

// carried is what a trace carries about its own events.
type carried struct {
	eventInfos, mapInfos int // MetaData events
	schemas              []*tdh.Event
	problems             []error
	reg                  *tdh.Registry
}

// readCarried collects the MetaData events of a trace into a Set, and
// checks that each of them parses and decodes with MetaSchemas exactly.
func readCarried(t *testing.T, path string) carried {
	t.Helper()
	f, err := etl.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	meta := tdh.NewRegistry()
	meta.Add(eventinfo.MetaSchemas()...)
	var c carried
	s := eventinfo.NewSet()
	var dec tdh.Decoder
	r := etl.NewReader([]*etl.File{f}, &etl.ReaderOptions{Order: etl.FileOrder})
	defer r.Close()
	for r.Next() {
		ev := r.Event()
		ok, err := s.AddEvent(ev)
		if !ok {
			continue
		}
		if err != nil {
			t.Errorf("%s: MetaData event at buffer %d record %d: %v", filepath.Base(path), ev.BufferIndex, ev.RecordOffset, err)
		}
		if ev.Descriptor.Opcode == eventinfo.OpcodeEventInfo {
			c.eventInfos++
		} else {
			c.mapInfos++
		}
		ms, ok := meta.Lookup(ev.ProviderID, uint16(ev.Descriptor.Opcode), ev.Descriptor.Version)
		if !ok {
			t.Fatalf("no MetaSchema for opcode %d version %d", ev.Descriptor.Opcode, ev.Descriptor.Version)
		}
		d, err := dec.Decode(ms, ev.UserData, ev.PointerSize())
		if err != nil || len(d.Extra) != 0 {
			t.Errorf("MetaSchema opcode %d: %v, %d bytes left", ev.Descriptor.Opcode, err, len(d.Extra))
			continue
		}
		if g, _ := d.Values[0].GUID(); g != etl.GUIDFromWindows(ev.UserData) {
			t.Errorf("MetaSchema ProviderGuid %v", g)
		}
	}
	if errs := r.Errors(); len(errs) > 0 {
		t.Fatalf("%s: %v", path, errs)
	}
	c.schemas, c.problems = s.Schemas()
	c.reg = tdh.NewRegistry()
	c.reg.Add(c.schemas...)
	return c
}

// forEachEvent calls fn for every event of a trace.
func forEachEvent(t *testing.T, path string, fn func(*etl.Event)) {
	t.Helper()
	f, err := etl.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := etl.NewReader([]*etl.File{f}, &etl.ReaderOptions{Order: etl.FileOrder})
	defer r.Close()
	for r.Next() {
		fn(r.Event())
	}
}

// importSchemas compiles a manifest (or WEPExplorer export) file.
func importSchemas(t *testing.T, path string) *tdh.Registry {
	t.Helper()
	m, err := manifest.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	schemas, errs := m.Schemas()
	for _, err := range errs {
		t.Logf("%s: %v", filepath.Base(path), err)
	}
	reg := tdh.NewRegistry()
	reg.Add(schemas...)
	return reg
}

// shapeDiff lists how two property lists differ in layout: names, in- and
// out-types, counts, lengths and their references, struct shapes. Map
// names are not compared (maps are compared through decoded values).
func shapeDiff(path string, a, b []tdh.Property) []string {
	var d []string
	if len(a) != len(b) {
		return []string{fmt.Sprintf("%s: %d properties vs %d", path, len(a), len(b))}
	}
	for i := range a {
		p, q := &a[i], &b[i]
		name := path + p.Name
		if p.Name != q.Name {
			d = append(d, fmt.Sprintf("%s: name %q vs %q", name, p.Name, q.Name))
		}
		if p.IsStruct() != q.IsStruct() {
			d = append(d, fmt.Sprintf("%s: struct %v vs %v", name, p.IsStruct(), q.IsStruct()))
			continue
		}
		if p.IsStruct() {
			d = append(d, shapeDiff(name+".", p.Members, q.Members)...)
		} else {
			if p.InType != q.InType {
				d = append(d, fmt.Sprintf("%s: in-type %v vs %v", name, p.InType, q.InType))
			}
			if p.EffectiveOutType() != q.EffectiveOutType() {
				d = append(d, fmt.Sprintf("%s: out-type %v vs %v", name, p.EffectiveOutType(), q.EffectiveOutType()))
			}
			if (p.Map != nil) != (q.Map != nil) {
				d = append(d, fmt.Sprintf("%s: map %v vs %v", name, p.Map != nil, q.Map != nil))
			}
		}
		if p.IsArray != q.IsArray || p.Count != q.Count || p.CountIndex != q.CountIndex {
			d = append(d, fmt.Sprintf("%s: array %v count %d index %d vs array %v count %d index %d",
				name, p.IsArray, p.Count, p.CountIndex, q.IsArray, q.Count, q.CountIndex))
		}
		if p.Length != q.Length || p.LengthIndex != q.LengthIndex {
			d = append(d, fmt.Sprintf("%s: length %d index %d vs length %d index %d", name, p.Length, p.LengthIndex, q.Length, q.LengthIndex))
		}
	}
	return d
}

// walkPairs calls fn on the properties of a and b pairwise, struct members
// included, as far as both have them.
func walkPairs(a, b []tdh.Property, fn func(p, q *tdh.Property)) {
	for i := 0; i < len(a) && i < len(b); i++ {
		fn(&a[i], &b[i])
		walkPairs(a[i].Members, b[i].Members, fn)
	}
}

func key(e *tdh.Event) string { return fmt.Sprintf("%s/%d/v%d", e.ProviderName, e.ID, e.Version) }

// TestCorpusCLR compiles the schemas net.4.5.2.x64.etl carries and
// compares those of the CLR providers with ClrEtwAll.man: layouts, then
// the decoded values of every CLR event of the trace.
func TestCorpusCLR(t *testing.T) {
	corpus, schemaDir := corpusDirs(t)
	path := mustExist(t, filepath.Join(corpus, netTrace))
	c := readCarried(t, path)
	for _, p := range c.problems {
		t.Errorf("problem: %v", p)
	}
	byProvider := map[string]int{}
	for _, s := range c.schemas {
		byProvider[s.ProviderName]++
	}
	t.Logf("%d EventInfo and %d EventMapInfo events; %d schemas: %v", c.eventInfos, c.mapInfos, len(c.schemas), byProvider)
	if c.eventInfos != 61 || c.mapInfos != 24 || len(c.schemas) != 61 {
		t.Errorf("%d EventInfo, %d EventMapInfo events, %d schemas; want 61, 24, 61", c.eventInfos, c.mapInfos, len(c.schemas))
	}
	if byProvider["Microsoft-Windows-DotNETRuntime"] != 41 || byProvider["Microsoft-Windows-DotNETRuntimeRundown"] != 9 {
		t.Errorf("CLR schemas: %v, want 41 runtime and 9 rundown", byProvider)
	}

	man := importSchemas(t, mustExist(t, filepath.Join(schemaDir, clrManifest)))
	clr := map[string]*tdh.Event{}
	var diffs, mapNameDiffs, mapDiffs []string
	mapped := 0
	for _, s := range c.schemas {
		if s.ProviderGUID != clrRuntime && s.ProviderGUID != clrRundown {
			continue
		}
		ms, ok := man.Lookup(s.ProviderGUID, s.ID, s.Version)
		if !ok {
			t.Errorf("%s: not in %s", key(s), clrManifest)
			continue
		}
		clr[key(s)] = s
		for _, d := range shapeDiff("", s.Properties, ms.Properties) {
			diffs = append(diffs, key(s)+": "+d)
		}
		walkPairs(s.Properties, ms.Properties, func(p, q *tdh.Property) {
			if p.Map == nil || q.Map == nil {
				return
			}
			mapped++
			if p.Map.Name != q.Map.Name {
				mapNameDiffs = append(mapNameDiffs, fmt.Sprintf("%s.%s: %s vs %s", key(s), p.Name, p.Map.Name, q.Map.Name))
			}
			if p.Map.Kind != q.Map.Kind || !slices.Equal(p.Map.Entries, q.Map.Entries) {
				mapDiffs = append(mapDiffs, fmt.Sprintf("%s.%s (%s): kind %d %v vs kind %d %v", key(s), p.Name, p.Map.Name, p.Map.Kind, p.Map.Entries, q.Map.Kind, q.Map.Entries))
				// The newer manifest may only add entries.
				for _, e := range p.Map.Entries {
					if txt, ok := q.Map.Lookup(e.Value); !ok || txt != e.Message || p.Map.Kind != q.Map.Kind {
						t.Errorf("%s.%s: carried map entry %d %q is not in the manifest's map", key(s), p.Name, e.Value, e.Message)
					}
				}
			}
		})
	}
	t.Logf("%d CLR schemas compared with %s: %d mapped properties, %d map names differ %v, %d maps differ in entries",
		len(clr), clrManifest, mapped, len(mapNameDiffs), mapNameDiffs, len(mapDiffs))
	for _, d := range mapDiffs {
		t.Logf("map difference (carried vs manifest): %s", d)
	}
	if len(clr) != 50 || mapped == 0 {
		t.Errorf("%d CLR schemas compared, %d mapped properties", len(clr), mapped)
	}
	slices.Sort(diffs)
	for _, d := range diffs {
		t.Logf("layout difference (carried vs manifest): %s", d)
	}
	if len(diffs) != 0 {
		t.Errorf("%d layout differences", len(diffs))
	}

	// Decode every CLR event with both schemas.
	var carriedDec, manDec tdh.Decoder
	var compared, without, mismatched, failed int
	perEvent, left := map[string]int{}, map[string]int{}
	var others, othersLeft int
	otherTypes := map[string]int{}
	forEachEvent(t, path, func(ev *etl.Event) {
		if ev.ProviderID != clrRuntime && ev.ProviderID != clrRundown {
			// The other providers' events decode with their carried schemas.
			if s, ok := c.reg.Lookup(ev.ProviderID, ev.Descriptor.ID, ev.Descriptor.Version); ok && !eventinfo.IsMetadata(ev) {
				d, err := carriedDec.Decode(s, ev.UserData, ev.PointerSize())
				if err != nil {
					t.Errorf("%s: %v", key(s), err)
				}
				others++
				otherTypes[key(s)]++
				if len(d.Extra) > 0 {
					othersLeft++
				}
			}
			return
		}
		cs, ok := c.reg.Lookup(ev.ProviderID, ev.Descriptor.ID, ev.Descriptor.Version)
		if !ok {
			without++
			return
		}
		ms, ok := man.Lookup(ev.ProviderID, ev.Descriptor.ID, ev.Descriptor.Version)
		if !ok {
			return // reported above
		}
		cd, cerr := carriedDec.Decode(cs, ev.UserData, ev.PointerSize())
		md, merr := manDec.Decode(ms, ev.UserData, ev.PointerSize())
		compared++
		perEvent[key(cs)]++
		if cerr != nil {
			failed++
		}
		if len(cd.Extra) > 0 {
			left[key(cs)]++
		}
		cj, mj := string(tdh.AppendPropertiesJSON(nil, cd)), string(tdh.AppendPropertiesJSON(nil, md))
		if (cerr == nil) != (merr == nil) || cj != mj || len(cd.Extra) != len(md.Extra) {
			mismatched++
			if mismatched <= 10 {
				t.Errorf("%s: carried %v (%d left) %s\nmanifest %v (%d left) %s", key(cs), cerr, len(cd.Extra), cj, merr, len(md.Extra), mj)
			}
		}
	})
	t.Logf("%d CLR events decoded with both schemas (%d event types), %d without a carried schema, %d different; "+
		"%d decode errors, bytes left (with both schemas alike) %v", compared, len(perEvent), without, mismatched, failed, left)
	t.Logf("other providers: %d events of %d types decoded with their carried schemas, no error, %d with bytes left: %v",
		others, len(otherTypes), othersLeft, otherTypes)
	if others != 653 || len(otherTypes) != 11 || othersLeft != 0 {
		t.Errorf("other providers: %d events of %d types, %d with bytes left; want 653, 11, 0", others, len(otherTypes), othersLeft)
	}
	if failed != 0 {
		t.Errorf("%d CLR events do not decode", failed)
	}
	if compared != 65741 || len(perEvent) != 50 || mismatched != 0 {
		t.Errorf("%d events compared, %d different", compared, mismatched)
	}
}

// TestCorpusPktMon decodes every PktMon event of every PktMon capture with
// the schemas the capture carries: no error, no byte left, and the values
// of the WEPExplorer export's schemas (which have no maps: mapped values
// are compared as numbers, and must also render as map text).
func TestCorpusPktMon(t *testing.T) {
	corpus, schemaDir := corpusDirs(t)
	export := importSchemas(t, mustExist(t, filepath.Join(schemaDir, pktMonExport)))
	for _, rel := range pktMonCaptures {
		path := mustExist(t, filepath.Join(corpus, rel))
		t.Run(strings.Split(rel, "/")[0], func(t *testing.T) {
			c := readCarried(t, path)
			for _, p := range c.problems {
				t.Errorf("problem: %v", p)
			}
			// The same schemas without maps, to compare with the export.
			plain := tdh.NewRegistry()
			var maps int
			for _, s := range c.schemas {
				if s.ProviderGUID != pktMon {
					t.Errorf("schema of another provider: %s", key(s))
				}
				cp := *s
				cp.Properties = slices.Clone(s.Properties)
				for i := range cp.Properties {
					if cp.Properties[i].Map != nil {
						if len(cp.Properties[i].Map.Entries) == 0 {
							t.Errorf("%s: map %s unbound", key(s), cp.Properties[i].Map.Name)
						}
						maps++
						cp.Properties[i].Map = nil
					}
					if cp.Properties[i].Members != nil {
						t.Errorf("%s: unexpected struct", key(s))
					}
				}
				plain.Add(&cp)
				es, ok := export.Lookup(s.ProviderGUID, s.ID, s.Version)
				if !ok {
					t.Errorf("%s: not in the export", key(s))
					continue
				}
				for _, d := range shapeDiff("", cp.Properties, es.Properties) {
					if strings.Contains(d, ": map ") {
						continue
					}
					t.Errorf("%s: layout differs from the export: %s", key(s), d)
				}
				// The NeoChenjf capture was made on a zh-CN system: its
				// messages are translated, with the same inserts.
				if s.Message != es.Message && (!localized[rel] || !slices.Equal(inserts(s.Message), inserts(es.Message))) {
					t.Errorf("%s: message %q, the export has %q", key(s), s.Message, es.Message)
				}
			}
			var dec, plainDec, exportDec tdh.Decoder
			var events, mapped, mappedText int
			perID := map[uint16]int{}
			forEachEvent(t, path, func(ev *etl.Event) {
				if ev.ProviderID != pktMon {
					return
				}
				events++
				s, ok := c.reg.Lookup(ev.ProviderID, ev.Descriptor.ID, ev.Descriptor.Version)
				if !ok {
					t.Errorf("PktMon event %d v%d: no carried schema", ev.Descriptor.ID, ev.Descriptor.Version)
					return
				}
				perID[ev.Descriptor.ID]++
				d, err := dec.Decode(s, ev.UserData, ev.PointerSize())
				if err != nil || len(d.Extra) != 0 {
					t.Errorf("%s: %v, %d bytes left", key(s), err, len(d.Extra))
					return
				}
				ps, _ := plain.Lookup(ev.ProviderID, ev.Descriptor.ID, ev.Descriptor.Version)
				pd, _ := plainDec.Decode(ps, ev.UserData, ev.PointerSize())
				es, ok := export.Lookup(ev.ProviderID, ev.Descriptor.ID, ev.Descriptor.Version)
				if !ok {
					return // reported above
				}
				ed, err := exportDec.Decode(es, ev.UserData, ev.PointerSize())
				if err != nil || len(ed.Extra) != 0 {
					t.Errorf("%s with the export: %v, %d bytes left", key(s), err, len(ed.Extra))
					return
				}
				if pj, ej := string(tdh.AppendPropertiesJSON(nil, pd)), string(tdh.AppendPropertiesJSON(nil, ed)); pj != ej {
					t.Errorf("%s:\ncarried %s\n export %s", key(s), pj, ej)
				}
				for i := range s.Properties {
					if m := s.Properties[i].Map; m != nil {
						mapped++
						n, _ := d.Values[i].Uint()
						want, ok := m.Lookup(n)
						if !ok && m.Kind == tdh.ValueMap {
							continue // a value the map does not name renders as a number
						}
						got := string(tdh.AppendText(nil, d, &d.Values[i], nil))
						if ok && got != want {
							t.Errorf("%s.%s = %d renders %q, map says %q", key(s), s.Properties[i].Name, n, got, want)
						}
						mappedText++
					}
				}
			})
			t.Logf("%d EventInfo and %d EventMapInfo events: %d schemas (%d mapped properties); %d PktMon events decoded, 0 errors, 0 bytes left, equal to the export's values %v; %d mapped values, %d rendered as map text",
				c.eventInfos, c.mapInfos, len(c.schemas), maps, events, perID, mapped, mappedText)
			if want := pktMonCounts[rel]; events != want[0] || len(c.schemas) != want[1] || mappedText == 0 {
				t.Errorf("%d events, %d schemas, %d mapped values shown as text; want %d events, %d schemas", events, len(c.schemas), mappedText, want[0], want[1])
			}
		})
	}
}

// TestCorpusRPC decodes the events of ms-rpc-capture-arrays.etl with the
// schemas it carries (PerfView's EventSource and Microsoft-Windows-RPC):
// RpcClientCallStop v1 declares Params as an array of structs counted by
// NumberOfParameters, which the regenerated manifest (repnz) reduces to
// UInt64 values, leaving bytes over.
func TestCorpusRPC(t *testing.T) {
	corpus, schemaDir := corpusDirs(t)
	path := mustExist(t, filepath.Join(corpus, rpcTrace))
	c := readCarried(t, path)
	for _, p := range c.problems {
		t.Errorf("problem: %v", p)
	}
	if c.eventInfos != 15 || c.mapInfos != 2 || len(c.schemas) != 15 {
		t.Errorf("%d EventInfo, %d EventMapInfo events, %d schemas; want 15, 2, 15", c.eventInfos, c.mapInfos, len(c.schemas))
	}
	s, ok := c.reg.Lookup(rpc, 1, 1)
	if !ok {
		t.Fatal("no carried schema for Microsoft-Windows-RPC 1 v1")
	}
	if p := s.Properties[9]; p.Name != "Params" || !p.IsStruct() || !p.IsArray || p.CountIndex != 8 || len(p.Members) != 5 {
		t.Errorf("Params: %+v", p)
	}
	man := importSchemas(t, mustExist(t, filepath.Join(schemaDir, rpcManifest)))
	var dec, manDec tdh.Decoder
	var decoded, rpcEvents, manLeft int
	forEachEvent(t, path, func(ev *etl.Event) {
		s, ok := c.reg.Lookup(ev.ProviderID, ev.Descriptor.ID, ev.Descriptor.Version)
		if !ok || eventinfo.IsMetadata(ev) {
			return
		}
		d, err := dec.Decode(s, ev.UserData, ev.PointerSize())
		if err != nil || len(d.Extra) != 0 {
			t.Errorf("%s: %v, %d bytes left", key(s), err, len(d.Extra))
		}
		decoded++
		if ev.ProviderID != rpc {
			return
		}
		rpcEvents++
		if ms, ok := man.Lookup(ev.ProviderID, ev.Descriptor.ID, ev.Descriptor.Version); ok {
			if md, err := manDec.Decode(ms, ev.UserData, ev.PointerSize()); err == nil && len(md.Extra) > 0 {
				manLeft++
			}
		}
	})
	t.Logf("%d events decoded with the carried schemas, 0 errors, 0 bytes left; %d of %d RPC events leave bytes over with %s",
		decoded, manLeft, rpcEvents, filepath.Base(rpcManifest))
	if rpcEvents != 32 || decoded < rpcEvents {
		t.Errorf("%d events decoded, %d RPC events", decoded, rpcEvents)
	}
}
