package manifest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
	"github.com/google/uuid"
)

// schemaManifest exercises Schemas: many field types, shared maps, structs
// with arrays and sibling references, and each reason an event is skipped.
const schemaManifest = `<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events"
    xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <instrumentation><events>
    <provider name="Schema-Test" guid="{0a0b0c0d-1111-2222-3333-444455556666}" symbol="SCHEMA_TEST">
      <channels>
        <channel name="Schema-Test/Operational" chid="Op" type="Operational" message="$(string.ch.op)"/>
        <channel name="Schema-Test/Debug" type="Debug"/>
      </channels>
      <levels><level name="Loud" value="17"/></levels>
      <tasks>
        <task name="Work" value="7" message="$(string.task.work)">
          <opcodes><opcode name="Step" value="20" message="$(string.op.step)"/></opcodes>
        </task>
        <task name="Plain" value="8"/>
        <task name="Lost" value="9" message="$(string.nowhere)"/>
      </tasks>
      <opcodes><opcode name="Bare" value="30"/></opcodes>
      <keywords>
        <keyword name="Disk" mask="0x2" message="$(string.kw.disk)"/>
        <keyword name="Net" mask="0x1"/>
      </keywords>
      <maps>
        <valueMap name="Color">
          <map value="2" message="$(string.color.blue)"/>
          <map value="1" message="$(string.color.red)"/>
        </valueMap>
        <bitMap name="Flags">
          <map value="0x4" message="$(string.flag.c)"/>
          <map value="0x1" message="$(string.flag.a)"/>
        </bitMap>
      </maps>
      <templates>
        <template tid="Types">
          <data name="U8" inType="win:UInt8" map="Color"/>
          <data name="I16" inType="win:Int16"/>
          <data name="U32" inType="win:UInt32" outType="win:HexInt32" map="Flags"/>
          <data name="I64" inType="win:Int64"/>
          <data name="F" inType="win:Float"/>
          <data name="D" inType="win:Double"/>
          <data name="B" inType="win:Boolean"/>
          <data name="G" inType="win:GUID"/>
          <data name="P" inType="win:Pointer"/>
          <data name="FT" inType="win:FILETIME"/>
          <data name="ST" inType="win:SYSTEMTIME"/>
          <data name="Sid" inType="win:SID"/>
          <data name="H32" inType="win:HexInt32" outType="win:Win32Error"/>
          <data name="H64" inType="win:HexInt64"/>
          <data name="Len" inType="win:UInt16"/>
          <data name="Name" inType="win:UnicodeString" length="Len"/>
          <data name="Ansi" inType="win:AnsiString" outType="win:Utf8"/>
          <data name="Blob" inType="win:Binary" length="Len"/>
          <data name="Fixed" inType="win:Binary" length="4"/>
          <data name="CU" inType="win:CountedUnicodeString"/>
          <data name="CA" inType="win:CountedAnsiString"/>
          <data name="CB" inType="win:CountedBinary"/>
          <data name="V4" inType="win:IPAddrV4"/>
          <data name="V6" inType="win:IPAddrV6"/>
          <data name="Size" inType="win:SizeT"/>
          <data name="Ch" inType="win:WChar"/>
          <data name="Colors" inType="win:UInt8" map="Color" count="Len"/>
          <data name="Three" inType="win:UInt32" count="3"/>
        </template>
        <template tid="Structs">
          <data name="N" inType="win:UInt16"/>
          <struct name="Items" count="N">
            <data name="Len" inType="win:UInt8"/>
            <data name="Data" inType="win:Binary" length="Len"/>
            <data name="Tags" inType="win:UInt8" count="Len" map="Color"/>
            <struct name="Pair">
              <data name="A" inType="win:UInt8"/>
              <data name="K" inType="win:UInt8"/>
              <data name="Bs" inType="win:UInt16" count="K"/>
            </struct>
            <struct name="Empty"/>
          </struct>
          <data name="Tail" inType="win:UInt32" map="Flags"/>
        </template>
        <template tid="Outer">
          <data name="Size" inType="win:UInt32"/>
          <struct name="Items" count="Size">
            <data name="Back" inType="win:Binary" length="Size"/>
          </struct>
        </template>
        <template tid="OuterDeep">
          <data name="N" inType="win:UInt32"/>
          <struct name="S">
            <data name="M" inType="win:UInt16"/>
            <struct name="Inner">
              <data name="Arr" inType="win:UInt8" count="M"/>
            </struct>
          </struct>
        </template>
        <template tid="Artifact">
          <data name="Ok" inType="win:UInt32"/>
          <data name="Lost" inType="win:Struct"/>
        </template>
        <template tid="Raw">
          <data name="Start" inType="win:28"/>
        </template>
        <template tid="BadRef">
          <data name="S" inType="win:UnicodeString"/>
          <data name="D" inType="win:Binary" length="S"/>
        </template>
      </templates>
      <events>
        <event value="1" version="0" level="win:Informational" task="Work" opcode="win:Start"
               keywords="Net Disk win:ResponseTime" channel="Op" template="Types" symbol="TypesEvent"
               message="$(string.e1)"/>
        <event value="1" version="1" level="Loud" task="Work" opcode="Step" channel="Schema-Test/Debug"
               template="Types"/>
        <event value="2" task="Plain" opcode="Bare" template="Structs" symbol="StructsEvent"/>
        <event value="3" template="Outer" symbol="OuterEvent"/>
        <event value="4" template="Artifact"/>
        <event value="5" template="Missing"/>
        <event value="6" task="Lost" message="$(string.nowhere)"/>
        <event value="6" symbol="Again"/>
        <event value="7" template="BadRef"/>
        <event value="8" template="OuterDeep"/>
        <event value="9" template="Raw"/>
        <event value="10" level="win:ReservedLevel6" opcode="win:Receive" keywords="win:AuditFailure" channel="System"/>
      </events>
    </provider>
  </events></instrumentation>
  <localization><resources culture="en-US"><stringTable>
    <string id="ch.op" value="Operational channel"/>
    <string id="task.work" value="Working"/>
    <string id="op.step" value="Stepping"/>
    <string id="kw.disk" value="Disk I/O"/>
    <string id="color.red" value="Red"/>
    <string id="color.blue" value="Blue"/>
    <string id="flag.a" value="A"/>
    <string id="flag.c" value="C"/>
    <string id="e1" value="Types %1 and %2"/>
  </stringTable></resources></localization>
</instrumentationManifest>`

var schemaTestGUID = uuid.MustParse("0a0b0c0d-1111-2222-3333-444455556666")

func compileSchemaManifest(t *testing.T) (map[[2]int]*tdh.Event, map[[2]int]*SchemaError) {
	t.Helper()
	m := mustParse(t, schemaManifest, "schema.man")
	schemas, errs := m.Schemas()
	ok := map[[2]int]*tdh.Event{}
	for _, s := range schemas {
		k := [2]int{int(s.ID), int(s.Version)}
		if ok[k] != nil {
			t.Errorf("two schemas for %v", k)
		}
		ok[k] = s
	}
	bad := map[[2]int]*SchemaError{}
	for _, err := range errs {
		var se *SchemaError
		if !errors.As(err, &se) {
			t.Fatalf("error %v is not a *SchemaError", err)
		}
		bad[[2]int{int(se.ID), int(se.Version)}] = se
	}
	// Provider.Schemas gives the same as Manifest.Schemas for one provider.
	ps, perrs := m.Providers[0].Schemas()
	if len(ps) != len(schemas) || len(perrs) != len(errs) {
		t.Errorf("Provider.Schemas: %d/%d, Manifest.Schemas %d/%d", len(ps), len(perrs), len(schemas), len(errs))
	}
	return ok, bad
}

func TestSchemasNames(t *testing.T) {
	ok, _ := compileSchemaManifest(t)
	s := ok[[2]int{1, 0}]
	if s == nil {
		t.Fatal("event 1 v0 not compiled")
	}
	want := tdh.Event{Source: tdh.SourceManifest, ProviderName: "Schema-Test", ProviderGUID: schemaTestGUID, ID: 1,
		Version: 0, Level: 4, Opcode: 1, Task: 7, Keywords: 3 | 1<<48, Channel: 16, EventName: "TypesEvent",
		TaskName: "Working", OpcodeName: "Start", LevelName: "Information", ChannelName: "Operational channel",
		KeywordNames: []string{"Net", "Disk I/O", "Response Time"}, Message: "Types %1 and %2"}
	got := *s
	got.Properties = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("event 1 v0 =\n%+v\nwant\n%+v", got, want)
	}
	for _, c := range []struct {
		id, ver                                      int
		event, task, opcode, level, channel, message string
		keywords                                     []string
	}{
		// Task-local opcode with a message; provider level without one;
		// channel without a message: its name.
		{1, 1, "", "Working", "Stepping", "Loud", "Schema-Test/Debug", "", nil},
		// No message anywhere: the names as written.
		{2, 0, "StructsEvent", "Plain", "Bare", "", "", "", nil},
		// An unresolved task message falls back to the name; an unresolved
		// event message is dropped.
		{6, 0, "", "Lost", "", "", "", "", nil},
		// Predefined values: winmeta messages; reserved ones have none.
		{10, 0, "", "", "Receive", "win:ReservedLevel6", "System", "", []string{"Audit Failure"}},
	} {
		s := ok[[2]int{c.id, c.ver}]
		if s == nil {
			t.Errorf("event %d v%d not compiled", c.id, c.ver)
			continue
		}
		if s.EventName != c.event || s.TaskName != c.task || s.OpcodeName != c.opcode || s.LevelName != c.level ||
			s.ChannelName != c.channel || s.Message != c.message || !reflect.DeepEqual(s.KeywordNames, c.keywords) {
			t.Errorf("event %d v%d: %q %q %q %q %q %q %q, want %+v", c.id, c.ver, s.EventName, s.TaskName, s.OpcodeName,
				s.LevelName, s.ChannelName, s.Message, s.KeywordNames, c)
		}
	}
	if s := ok[[2]int{6, 0}]; s == nil || s.Properties != nil {
		t.Errorf("event 6 (no template) = %+v", s)
	}
}

func TestSchemasTypes(t *testing.T) {
	ok, _ := compileSchemaManifest(t)
	s := ok[[2]int{1, 0}]
	if s == nil {
		t.Fatal("event 1 v0 not compiled")
	}
	color := &tdh.Map{Name: "Color", Kind: tdh.ValueMap, Entries: []tdh.MapEntry{{Value: 1, Message: "Red"}, {Value: 2, Message: "Blue"}}}
	flags := &tdh.Map{Name: "Flags", Kind: tdh.BitMap, Entries: []tdh.MapEntry{{Value: 1, Message: "A"}, {Value: 4, Message: "C"}}}
	p := func(name string, in tdh.InType, out tdh.OutType) tdh.Property {
		return tdh.Property{Name: name, InType: in, OutType: out, LengthIndex: -1, CountIndex: -1}
	}
	with := func(pr tdh.Property, f func(*tdh.Property)) tdh.Property { f(&pr); return pr }
	want := []tdh.Property{
		with(p("U8", tdh.InTypeUInt8, 0), func(p *tdh.Property) { p.Map = color }),
		p("I16", tdh.InTypeInt16, 0),
		with(p("U32", tdh.InTypeUInt32, tdh.OutTypeHexInt32), func(p *tdh.Property) { p.Map = flags }),
		p("I64", tdh.InTypeInt64, 0),
		p("F", tdh.InTypeFloat, 0),
		p("D", tdh.InTypeDouble, 0),
		p("B", tdh.InTypeBoolean, 0),
		p("G", tdh.InTypeGUID, 0),
		p("P", tdh.InTypePointer, 0),
		p("FT", tdh.InTypeFileTime, 0),
		p("ST", tdh.InTypeSystemTime, 0),
		p("Sid", tdh.InTypeSID, 0),
		p("H32", tdh.InTypeHexInt32, tdh.OutTypeWin32Error),
		p("H64", tdh.InTypeHexInt64, 0),
		p("Len", tdh.InTypeUInt16, 0),
		with(p("Name", tdh.InTypeUnicodeString, 0), func(p *tdh.Property) { p.LengthIndex = 14 }),
		p("Ansi", tdh.InTypeAnsiString, tdh.OutTypeUTF8),
		with(p("Blob", tdh.InTypeBinary, 0), func(p *tdh.Property) { p.LengthIndex = 14 }),
		with(p("Fixed", tdh.InTypeBinary, 0), func(p *tdh.Property) { p.Length = 4 }),
		p("CU", tdh.InTypeCountedString, 0),
		p("CA", tdh.InTypeCountedAnsiString, 0),
		p("CB", tdh.InTypeCountedBinary, 0),
		p("V4", tdh.InTypeUInt32, tdh.OutTypeIPv4),
		with(p("V6", tdh.InTypeBinary, tdh.OutTypeIPv6), func(p *tdh.Property) { p.Length = 16 }),
		p("Size", tdh.InTypeSizeT, 0),
		p("Ch", tdh.InTypeUnicodeChar, 0),
		with(p("Colors", tdh.InTypeUInt8, 0), func(p *tdh.Property) { p.IsArray, p.CountIndex, p.Map = true, 14, color }),
		with(p("Three", tdh.InTypeUInt32, 0), func(p *tdh.Property) { p.IsArray, p.Count = true, 3 }),
	}
	if len(s.Properties) != len(want) {
		t.Fatalf("%d properties, want %d", len(s.Properties), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(s.Properties[i], want[i]) {
			t.Errorf("property %d =\n%+v\nwant\n%+v", i, s.Properties[i], want[i])
		}
	}
	// One *tdh.Map per manifest map, across properties, events and levels.
	s1, s2 := ok[[2]int{1, 1}], ok[[2]int{2, 0}]
	if s.Properties[0].Map != s.Properties[26].Map || s.Properties[0].Map != s1.Properties[0].Map ||
		s.Properties[0].Map != s2.Properties[1].Members[2].Map || s.Properties[2].Map != s2.Properties[2].Map {
		t.Error("maps are not shared")
	}
}

func TestSchemasStructs(t *testing.T) {
	ok, _ := compileSchemaManifest(t)
	s := ok[[2]int{2, 0}]
	if s == nil {
		t.Fatal("event 2 not compiled")
	}
	if len(s.Properties) != 3 {
		t.Fatalf("properties = %+v", s.Properties)
	}
	items := s.Properties[1]
	if !items.IsStruct() || items.Name != "Items" || !items.IsArray || items.CountIndex != 0 || len(items.Members) != 5 {
		t.Fatalf("Items = %+v", items)
	}
	m := items.Members
	// Sibling references are indexes among the members, not the flat TDH
	// indexes of the manifest model (Len is Properties[3] there).
	if m[1].Name != "Data" || m[1].LengthIndex != 0 || m[2].Name != "Tags" || !m[2].IsArray || m[2].CountIndex != 0 {
		t.Errorf("Data, Tags = %+v %+v", m[1], m[2])
	}
	pair := m[3]
	if !pair.IsStruct() || pair.IsArray || len(pair.Members) != 3 || pair.Members[2].CountIndex != 1 || pair.Members[2].LengthIndex != -1 {
		t.Errorf("Pair = %+v", pair)
	}
	if e := m[4]; e.Name != "Empty" || e.Members == nil || len(e.Members) != 0 || !e.IsStruct() {
		t.Errorf("Empty = %+v (members nil: %v)", e, e.Members == nil)
	}
	if tail := s.Properties[2]; tail.Name != "Tail" || tail.Map == nil || tail.Map.Kind != tdh.BitMap {
		t.Errorf("Tail = %+v", tail)
	}

	// The schema decodes: N=2 items.
	var b []byte
	le := binary.LittleEndian
	b = le.AppendUint16(b, 2)
	for i := range 2 {
		n := byte(i + 1)
		b = append(b, n)                                     // Len
		b = append(b, bytes.Repeat([]byte{0xAA}, int(n))...) // Data
		b = append(b, bytes.Repeat([]byte{2}, int(n))...)    // Tags
		b = append(b, 9, 2)                                  // Pair.A, Pair.K
		b = le.AppendUint16(b, 0x1111)
		b = le.AppendUint16(b, 0x2222) // Pair.Bs
	}
	b = le.AppendUint32(b, 5) // Tail
	var dec tdh.Decoder
	d, err := dec.Decode(s, b, 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Extra) != 0 {
		t.Errorf("extra %x", d.Extra)
	}
	top := d.Top()
	if v, _ := top[2].Uint(); v != 5 {
		t.Errorf("Tail = %d", v)
	}
	arr := d.Children(&top[1])
	if len(arr) != 2 {
		t.Fatalf("Items has %d elements", len(arr))
	}
	second := d.Children(&arr[1])
	if len(second[1].Data) != 2 {
		t.Errorf("second item = %+v", second)
	}
	if v, _ := d.Children(&second[2])[1].Uint(); v != 2 {
		t.Errorf("Tags[1] = %d", v)
	}
	if bs := d.Children(&d.Children(&second[3])[2]); len(bs) != 2 {
		t.Errorf("Pair.Bs = %+v", bs)
	} else if v, _ := bs[1].Uint(); v != 0x2222 {
		t.Errorf("Pair.Bs[1] = %#x", v)
	}
}

func TestSchemasSkipped(t *testing.T) {
	ok, bad := compileSchemaManifest(t)
	for _, c := range []struct {
		id    int
		err   error
		field string
		msg   string
	}{
		{3, tdh.ErrOuterReference, "Items.Back", "length of Back refers to outer field Size; not supported"},
		{8, tdh.ErrOuterReference, "S.Inner.Arr", "count of Arr refers to outer field M; not supported"},
		{4, ErrDumpArtifact, "Lost", `in-type "win:Struct" (24) is a dump artifact`},
		{9, ErrDumpArtifact, "Start", `in-type "win:28" (28) is a dump artifact`},
		{5, ErrMissingTemplate, "", `template "Missing" not defined`},
		{7, tdh.ErrBadReference, "D", "length of D refers to S, which is not a single integer"},
	} {
		se := bad[[2]int{c.id, 0}]
		if se == nil {
			t.Errorf("event %d: no error (schema %v)", c.id, ok[[2]int{c.id, 0}] != nil)
			continue
		}
		if ok[[2]int{c.id, 0}] != nil {
			t.Errorf("event %d both compiled and skipped", c.id)
		}
		if !errors.Is(se, c.err) || se.Field != c.field || !strings.HasPrefix(se.Msg, c.msg) ||
			se.Provider != "Schema-Test" || se.ProviderGUID != schemaTestGUID {
			t.Errorf("event %d: %+v, want %v %q %q", c.id, se, c.err, c.field, c.msg)
		}
	}
	// The second event 6 v0 is reported, the first compiled.
	if se := bad[[2]int{6, 0}]; se == nil || !errors.Is(se, ErrDuplicateEvent) || se.Symbol != "Again" || ok[[2]int{6, 0}] == nil {
		t.Errorf("duplicate 6: %+v", se)
	}
	if len(bad) != 7 || len(ok) != 5 {
		t.Errorf("%d compiled, %d skipped; want 5 and 7", len(ok), len(bad))
	}
	want := "provider Schema-Test event 3 version 0 (OuterEvent): field Items.Back: length of Back refers to outer field Size; not supported"
	if got := bad[[2]int{3, 0}].Error(); got != want {
		t.Errorf("Error() = %q\nwant      %q", got, want)
	}
	if got := bad[[2]int{5, 0}].Error(); got != `provider Schema-Test event 5 version 0: template "Missing" not defined` {
		t.Errorf("Error() = %q", got)
	}
}

// TestCorpusSchemas compiles every manifest of the schema corpus.
func TestCorpusSchemas(t *testing.T) {
	dir := schemasDir(t)
	paths := filesWithExt(t, dir, ".man", ".xml")
	sort.Strings(paths)
	var files, schemas, skipped, props int
	reasons := map[string]int{}
	filesBy := map[string]map[string]int{}
	var outer, other []string
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if root := sniffRoot(b); root != "instrumentationManifest" && root != "assembly" && !isWEPRoot(root) {
			continue
		}
		m, err := Parse(bytes.NewReader(b), p)
		if err != nil {
			continue // not well-formed; TestCorpus accounts for these
		}
		files++
		ss, errs := m.Schemas()
		schemas += len(ss)
		skipped += len(errs)
		for _, s := range ss {
			props += countProps(s.Properties)
			checkSchema(t, rel, s)
		}
		for _, err := range errs {
			var se *SchemaError
			if !errors.As(err, &se) || se.Err == nil {
				t.Errorf("%s: %v is not a *SchemaError with a reason", rel, err)
				continue
			}
			reasons[se.Err.Error()]++
			if filesBy[se.Err.Error()] == nil {
				filesBy[se.Err.Error()] = map[string]int{}
			}
			filesBy[se.Err.Error()][rel]++
			switch se.Err {
			case tdh.ErrOuterReference:
				outer = append(outer, rel+": "+err.Error())
			case ErrDumpArtifact, ErrDuplicateEvent:
			default:
				other = append(other, rel+": "+err.Error())
			}
		}
	}
	total := schemas + skipped
	t.Logf("manifests %d: events %d, schemas %d (%d properties), skipped %d", files, total, schemas, props, skipped)
	for r, n := range reasons {
		var fl []string
		for f, k := range filesBy[r] {
			fl = append(fl, f+" ("+strconv.Itoa(k)+")")
		}
		sort.Strings(fl)
		t.Logf("skipped: %s: %d events in %d files: %s", r, n, len(fl), strings.Join(fl, ", "))
	}
	t.Logf("struct members referring to an outer field: %d", len(outer))
	for _, s := range outer {
		t.Log("  " + s)
	}
	for _, s := range other {
		t.Log("  " + s)
	}
	if files < 650 || total < 40000 {
		t.Errorf("only %d manifests, %d events", files, total)
	}
	if schemas*100 < total*95 {
		t.Errorf("only %d of %d events compile (%.1f%%)", schemas, total, 100*float64(schemas)/float64(total))
	}

	// GCStart_V2 of the .NET runtime.
	m := parseCorpusFile(t, "authored/dotnet-runtime/ClrEtwAll.man")
	p := m.ProviderByName("Microsoft-Windows-DotNETRuntime")
	ss, errs := p.Schemas()
	for _, err := range errs {
		t.Errorf("DotNETRuntime: %v", err)
	}
	var gc *tdh.Event
	for _, s := range ss {
		if s.ID == 1 && s.Version == 2 {
			gc = s
		}
	}
	if gc == nil {
		t.Fatal("GCStart_V2 not compiled")
	}
	if gc.EventName != "GCStart_V2" || gc.TaskName != "GC" || gc.OpcodeName != "Start" || gc.LevelName != "Information" ||
		gc.Keywords != 1 || gc.ProviderGUID != uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4") ||
		!strings.HasPrefix(gc.Message, "Count=%1;%nDepth=%2;%nReason=%3") {
		t.Errorf("GCStart_V2 = %+v", gc)
	}
	wantGC := []struct {
		name string
		in   tdh.InType
	}{{"Count", tdh.InTypeUInt32}, {"Depth", tdh.InTypeUInt32}, {"Reason", tdh.InTypeUInt32}, {"Type", tdh.InTypeUInt32},
		{"ClrInstanceID", tdh.InTypeUInt16}, {"ClientSequenceNumber", tdh.InTypeUInt64}}
	if len(gc.Properties) != len(wantGC) {
		t.Fatalf("GCStart_V2 properties = %+v", gc.Properties)
	}
	for i, w := range wantGC {
		if pr := gc.Properties[i]; pr.Name != w.name || pr.InType != w.in {
			t.Errorf("GCStart_V2 property %d = %s %v, want %+v", i, pr.Name, pr.InType, w)
		}
	}
	if r := gc.Properties[2].Map; r == nil || r.Name != "GCReasonMap" {
		t.Errorf("Reason map = %+v", r)
	} else if s, _ := r.Lookup(1); s != "Induced" {
		t.Errorf("GCReasonMap[1] = %q", s)
	}
}

func countProps(ps []tdh.Property) int {
	n := len(ps)
	for i := range ps {
		n += countProps(ps[i].Members)
	}
	return n
}

// checkSchema asserts what tdh expects of a compiled schema: references
// to earlier same-level integers, structs with non-nil members.
func checkSchema(t *testing.T, rel string, s *tdh.Event) {
	var check func(ps []tdh.Property)
	check = func(ps []tdh.Property) {
		for i, p := range ps {
			for _, r := range []int{p.LengthIndex, p.CountIndex} {
				if r >= i || r < -1 || (r >= 0 && (ps[r].IsStruct() || ps[r].IsArray || !ps[r].InType.IsInteger())) {
					t.Errorf("%s: %s event %d v%d property %s: bad reference %d", rel, s.ProviderName, s.ID, s.Version, p.Name, r)
				}
			}
			if p.InType == tdh.InTypeNull && p.Members == nil {
				t.Errorf("%s: %s event %d v%d property %s: in-type 0 and no members", rel, s.ProviderName, s.ID, s.Version, p.Name)
			}
			check(p.Members)
		}
	}
	check(s.Properties)
}

// TestCorpusDecodeGCEvents decodes the .NET runtime events of PerfView's
// gcevents trace with the schemas compiled from ClrEtwAll.man and checks
// them against TraceEvent's baseline output.
func TestCorpusDecodeGCEvents(t *testing.T) {
	corpus := os.Getenv("ETL_CORPUS")
	if corpus == "" {
		t.Skip("ETL_CORPUS is not set: the gcevents trace of the corpus is needed")
	}
	inputs := filepath.Join(corpus, "microsoft+perfview", "src", "TraceEvent", "TraceEvent.Tests", "inputs")
	etlPath := filepath.Join(inputs, "gcevents.etl.zip.unzipped", "gcevents", "PerfViewData.etl")
	if _, err := os.Stat(etlPath); err != nil {
		t.Fatalf("ETL_CORPUS is set but %s is missing: %v", etlPath, err)
	}
	m := parseCorpusFile(t, "authored/dotnet-runtime/ClrEtwAll.man")
	reg := tdh.NewRegistry()
	ss, errs := m.Schemas()
	for _, err := range errs {
		t.Errorf("ClrEtwAll: %v", err)
	}
	reg.Add(ss...)
	runtime := m.ProviderByName("Microsoft-Windows-DotNETRuntime").GUID

	baseline := readBaseline(t, filepath.Join(inputs, "gcevents.baseline.txt"), "Microsoft-Windows-DotNETRuntime/")

	f, err := etl.Open(etlPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := etl.NewReader([]*etl.File{f}, nil)
	var dec tdh.Decoder
	var events, compared, mapped, named, lines, padded int
	seen := map[string]int{} // baseline name → occurrences so far
	for r.Next() {
		ev := r.Event()
		if ev.ProviderID != runtime {
			continue
		}
		events++
		id, ver := ev.Descriptor.ID, ev.Descriptor.Version
		s, ok := reg.Lookup(ev.ProviderID, id, ver)
		if !ok {
			t.Errorf("event %d v%d: no schema", id, ver)
			continue
		}
		d, err := dec.Decode(s, ev.UserData, ev.PointerSize())
		if err != nil {
			t.Errorf("%s (%d v%d): %v", s.EventName, id, ver, err)
			continue
		}
		if pad, ok := clrPadding[s.EventName]; ok {
			// The runtime writes these struct arrays as C structs, with
			// alignment padding the manifest does not describe: the
			// payload is longer than the schema by the padding of each
			// element (and the values after the first element's padding
			// are misplaced — nothing a schema compiler can fix).
			var n uint64
			for _, v := range d.Top() {
				if v.Prop.Name == "Count" {
					n, _ = v.Uint()
				}
			}
			if len(d.Extra) != pad*int(n) {
				t.Errorf("%s (%d v%d): %d bytes left over, want %d elements × %d bytes of padding", s.EventName, id, ver, len(d.Extra), n, pad)
			}
			padded++
		} else if len(d.Extra) != 0 {
			t.Errorf("%s (%d v%d): %d bytes left over", s.EventName, id, ver, len(d.Extra))
		}
		// TraceEvent names events Task/Opcode with the display names, but
		// for a few opcodes it has its own.
		name := s.TaskName + "/" + s.OpcodeName
		if n, ok := traceEventNames[name]; ok {
			name = n
		}
		k := seen[name]
		seen[name]++
		if name == "GC/Start" && k == 0 {
			// EVENT 11,607.432: …/GC/Start …; Count=1; Reason=Induced; Depth=1; …
			top := d.Top()
			count, _ := top[0].Uint()
			depth, _ := top[1].Uint()
			if s.ID != 1 || s.Version != 2 || count != 1 || depth != 1 || mapText(top[2]) != "Induced" {
				t.Errorf("first GC/Start: %d v%d Count=%d Depth=%d Reason=%q", s.ID, s.Version, count, depth, mapText(top[2]))
			}
		}
		bl := baseline[name]
		if k >= len(bl) {
			continue // the baseline shows the first few of each kind
		}
		line := bl[k]
		lines++
		if n, err := strconv.Atoi(line["DataLen"]); err != nil || n != len(ev.UserData) {
			t.Errorf("%s #%d: DataLen %q, payload %d bytes", name, k, line["DataLen"], len(ev.UserData))
		}
		for i, v := range d.Top() {
			want, ok := line[v.Prop.Name]
			if !ok || !v.Prop.InType.IsInteger() || v.Prop.InType == tdh.InTypeBoolean {
				continue
			}
			var got string
			if v.Prop.InType.IsSigned() {
				n, _ := v.Int()
				got = strconv.FormatInt(n, 10)
			} else {
				n, _ := v.Uint()
				got = strconv.FormatUint(n, 10)
			}
			w, isNum := baselineInt(want)
			switch {
			case isNum && got != w:
				t.Errorf("%s #%d: property %d %s = %s, baseline %s", name, k, i, v.Prop.Name, got, want)
			case isNum:
				compared++
			case v.Prop.Map != nil && mapText(v) == want:
				mapped++
			default:
				// TraceEvent renders some fields through enums of its own
				// (Reason=Induced where the manifest has no map,
				// PinnedObjectHeap where its map says PinnedHeap).
				named++
			}
		}
	}
	for _, err := range r.Errors() {
		t.Errorf("reading the trace: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Error(err)
	}
	t.Logf("%d DotNETRuntime events decoded (%d with undescribed struct padding); %d baseline lines matched, "+
		"%d integer values and %d value-map names compared, %d shown by TraceEvent as its own names not compared",
		events, padded, lines, compared, mapped, named)
	if events != 69 {
		t.Errorf("%d DotNETRuntime events, want 69", events)
	}
	var blLines int
	for _, l := range baseline {
		blLines += len(l)
	}
	if lines != blLines || compared < 100 {
		t.Errorf("matched %d of %d baseline lines, compared %d values", lines, blLines, compared)
	}
}

// mapText returns the value-map text of an integer value ("" if none).
func mapText(v tdh.Value) string {
	n, _ := v.Uint()
	if v.Prop.Map.Kind != tdh.ValueMap {
		return ""
	}
	s, _ := v.Prop.Map.Lookup(n)
	return s
}

// clrPadding lists the .NET runtime events whose struct array elements
// carry alignment padding the manifest does not declare (gcpriv.h:
// etw_loh_compact_info has 4 bytes after time_relocate, etw_bucket_info 2
// after index), with the padding bytes per element (64-bit process).
var clrPadding = map[string]int{"GCLOHCompact": 4, "GCFitBucketInfo": 2}

// traceEventNames maps the manifest's Task/Opcode display names to
// TraceEvent's where they differ.
var traceEventNames = map[string]string{
	"GC/Mark":            "GC/MarkWithType",
	"GC/GCLOHCompact":    "GC/LOHCompact",
	"GC/GCFitBucketInfo": "GC/FitBucketInfo",
}

// readBaseline reads the EVENT lines of a TraceEvent baseline whose event
// name starts with prefix: name (without prefix) → fields of each line,
// in order.
func readBaseline(t *testing.T, path, prefix string) map[string][]map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		// EVENT 11,607.432: Microsoft-Windows-DotNETRuntime/GC/Start PID=…; Count=1; …
		rest, ok := strings.CutPrefix(sc.Text(), "EVENT ")
		if !ok {
			continue
		}
		_, rest, _ = strings.Cut(rest, ": ")
		name, fields, _ := strings.Cut(rest, " ")
		name, ok = strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		kv := map[string]string{}
		for _, f := range strings.Split(fields, "; ") {
			if k, v, ok := strings.Cut(strings.TrimSpace(f), "="); ok {
				kv[k] = strings.TrimSuffix(v, ";")
			}
		}
		out[name] = append(out[name], kv)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// baselineInt turns TraceEvent's rendering of an integer (1,234 or
// 0x1b0f3000028) into decimal.
func baselineInt(s string) (string, bool) {
	s = strings.ReplaceAll(s, ",", "")
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		n, err := strconv.ParseUint(h, 16, 64)
		return strconv.FormatUint(n, 10), err == nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return strconv.FormatInt(n, 10), true
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return strconv.FormatUint(n, 10), err == nil
}
