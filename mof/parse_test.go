package mof

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/etwkit/etw/tdh"
	"github.com/google/uuid"
)

// sampleMOF exercises the syntax and the qualifiers the compiler reads.
const sampleMOF = `#pragma namespace("\\\\.\\root\\wmi")
#pragma classflags("forceupdate") // comment after a pragma
#pragma autorecover

/* A block
   comment. */
[abstract]
class EventTrace
{
};

[Dynamic,
 Description("Sample provider") : amended,
 Guid("{11111111-2222-3333-4444-555555555555}")
]
class SampleProvider : EventTrace
{
    [Description ("Enable Flags") : amended,
        ValueDescriptions{"a", "b"},
        Values{"x", "y"}
    ] uint32 Flags;
};

[Dynamic,
 Guid("{6a6b6c6d-0001-0002-0003-000000000004}"),
 EventVersion(2),
 DisplayName("Sample") : amended
]
class Sample_V2 : SampleProvider
{
};

[Dynamic,
 Description("Start and stop") : amended,
 EventType{1, 2, 3},
 EventTypeName{"Start", "Stop"} : amended ToSubclass
]
class Sample_V2_TypeGroup1 : Sample_V2
{
    [WmiDataId(2), pointer, read] uint32 Object;
    [WmiDataId(1), format("x"), read] uint32 ProcessId;
    [WmiDataId(3), extension("Sid"), read] object UserSID;
    [WmiDataId(4), StringTermination("NullTerminated"), read] string Image;
    [WmiDataId(5), StringTermination("NullTerminated"), format("w"), read] string CommandLine;
    [WmiDataId(6), extension("SizeT")] object Size;
    [WmiDataId(7), extension("Guid")] object Id;
    [WmiDataId(8), extension("IPAddr")] object Addr;
    [WmiDataId(9), extension("IPAddrV6")] object Addr6;
    [WmiDataId(10), extension("Port")] object Port;
    [WmiDataId(11), extension("WmiTime")] object When;
    [WmiDataId(12), extension("Variant")] object Blob;
    [WmiDataId(13), extension("NoPrint")] uint8 Hidden[4];
    [WmiDataId(14), format("c")] uint8 Letter;
    [WmiDataId(15)] char16 Wide[8];
    [WmiDataId(16), StringTermination("Counted"), format("w")] string CountedW;
    [WmiDataId(17), StringTermination("ReverseCounted")] string RevA;
    [WmiDataId(18), PointerType] uint64 Old;
    [WmiDataId(19)] uint32 N;
    [WmiDataId(20), WmiSizeIs("N")] uint16 Items[];
    [WmiDataId(21), MAX(3)] uint32 Three[];
    [WmiDataId(22), ValueMap{"0", "0x10", "32"}, Values{"Zero", "Sixteen", "ThirtyTwo"}] uint32 Mapped;
    [WmiDataId(23), Values{"First", "Second"}, ValueType("index")] uint8 Indexed;
    [WmiDataId(24), BitMap{"0", "2"}, BitValues{"Bit0", "Bit2"}] uint32 Bits;
    [WmiDataId(25), Values{"One", "Two"}, ValueType("flag")] uint8 Flags;
    [WmiDataId(26)] Inner Pair;
    [WmiDataId(27)] boolean B;
    [WmiDataId(28)] real64 D;
    [WmiDataId(29), extension("RWString")] string R;
    [WmiDataId(30), StringTermination("NotCounted")] string Rest;
    [read] string NotInPayload;
    uint32 Method([in] uint32 a, [out] uint32 b);
};

class Inner
{
    [WmiDataId(1)] uint16 A;
    [WmiDataId(2)] uint16 B;
};

instance of __Win32Provider as $P
{
    Name = "WMIProv";
    ClsId = "{1}";
};

qualifier Foo : boolean = false, scope(class);

[Dynamic, Guid("{6a6b6c6d-0001-0002-0003-000000000004}"), DisplayName("Sample")]
class Sample : SampleProvider
{
};

[EventType(10), EventTypeName("Latest")]
class Sample_TypeGroup : Sample
{
    [WmiDataId(1)] sint64 X = -5;
};
`

func mustParse(t *testing.T, src string) *File {
	t.Helper()
	f, err := Parse(strings.NewReader(src), "sample.mof")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestParseSyntax(t *testing.T) {
	f := mustParse(t, sampleMOF)
	if len(f.Pragmas) != 3 || f.Pragmas[0].Name != "namespace" || f.Pragmas[0].Args[0] != `\\.\root\wmi` {
		t.Errorf("pragmas = %+v", f.Pragmas)
	}
	if f.Pragmas[1].Name != "classflags" || f.Pragmas[1].Args[0] != "forceupdate" {
		t.Errorf("pragma 2 = %+v", f.Pragmas[1])
	}
	names := []string{}
	for _, c := range f.Classes {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != "EventTrace,SampleProvider,Sample_V2,Sample_V2_TypeGroup1,Inner,Sample,Sample_TypeGroup" {
		t.Errorf("classes = %s", got)
	}
	tg := f.Class("sample_v2_typegroup1")
	if tg == nil || tg.Super != "Sample_V2" {
		t.Fatalf("class lookup: %+v", tg)
	}
	q := tg.Qualifier("EventTypeName")
	if !q.List || len(q.Values) != 2 || q.Values[1].Text != "Stop" || strings.Join(q.Flavors, " ") != "amended ToSubclass" {
		t.Errorf("EventTypeName = %+v", q)
	}
	if n, ok := tg.Qualifier("EventType").Values[2].Integer(); !ok || n != 3 {
		t.Errorf("EventType[2] = %d %v", n, ok)
	}
	if len(tg.Properties) != 31 {
		t.Errorf("%d properties (the method must be left out)", len(tg.Properties))
	}
	p := tg.Properties[12]
	if p.Name != "Hidden" || !p.Array || p.ArraySize != 4 || p.Type != "uint8" {
		t.Errorf("Hidden = %+v", p)
	}
	if d := f.Class("SampleProvider").Qualifier("description"); d.String() != "Sample provider" {
		t.Errorf("Description = %q", d.String())
	}
}

func TestParseStrings(t *testing.T) {
	f := mustParse(t, `[A("one" "two"), B("tab\there\\x\"q\""), C('c'), D(-0x10), E(1.5), F(true), G(null), H(ident), I("line\
continued")] class X { };`)
	c := f.Classes[0]
	want := map[string]string{"A": "onetwo", "B": "tab\there\\x\"q\"", "C": "c", "D": "-0x10", "E": "1.5", "F": "true", "G": "null", "H": "ident", "I": "linecontinued"}
	for k, v := range want {
		if got := c.Qualifier(k).String(); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if n, ok := c.Qualifier("D").Int(); !ok || n != -16 {
		t.Errorf("D = %d %v", n, ok)
	}
}

func utf16Bytes(s string, bom bool, big bool) []byte {
	var b bytes.Buffer
	var order binary.ByteOrder = binary.LittleEndian
	if big {
		order = binary.BigEndian
	}
	if bom {
		binary.Write(&b, order, uint16(0xFEFF))
	}
	for _, u := range utf16.Encode([]rune(s)) {
		binary.Write(&b, order, u)
	}
	return b.Bytes()
}

func TestParseEncodings(t *testing.T) {
	src := "[Guid(\"{6a6b6c6d-0001-0002-0003-000000000004}\"), DisplayName(\"Ünïcode\")]\r\nclass A { };\r\n"
	for name, b := range map[string][]byte{
		"utf8":         []byte(src),
		"utf8-bom":     append([]byte{0xEF, 0xBB, 0xBF}, src...),
		"utf16le-bom":  utf16Bytes(src, true, false),
		"utf16be-bom":  utf16Bytes(src, true, true),
		"utf16le-bare": utf16Bytes(src, false, false),
	} {
		f, err := Parse(bytes.NewReader(b), name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(f.Classes) != 1 || f.Classes[0].Qualifier("DisplayName").String() != "Ünïcode" || f.Classes[0].Line != 2 {
			t.Errorf("%s: classes %+v", name, f.Classes)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"class A {", "x.mof:1:10: class A (line 1) not closed"},
		{"class A { uint32 X }", "x.mof:1:20: expected \";\" after property X of class A"},
		{"\n\n[Guid(\"x\"] class A {};", "x.mof:3:10: expected \")\", found \"]\""},
		{"/* open", "x.mof:1:1: unterminated /* comment"},
		{"[A(\"open)] class A {};", "x.mof:1:4: unterminated string"},
		{"[A(\"open)]\nclass A {};", "x.mof:1:4: string not terminated before the end of the line"},
		{"class { };", "x.mof:1:7: expected class name"},
		{"frob A;", "x.mof:1:1: expected class, instance or qualifier declaration"},
		{"class A { uint32 X[3; };", "x.mof:1:21: expected \"]\""},
		{"[A(99999999999999999999)] class A {};", "x.mof:1:4: integer 99999999999999999999 out of range"},
		{"class A { uint32 X; } @", "x.mof:1:23: unexpected character '@'"},
	} {
		_, err := Parse(strings.NewReader(tc.src), "x.mof")
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want prefix %q", tc.src, err, tc.want)
		}
	}
}

func TestSchemas(t *testing.T) {
	f := mustParse(t, sampleMOF)
	evs, errs := f.Schemas()
	for _, err := range errs {
		t.Error(err)
	}
	if len(evs) != 4 {
		t.Fatalf("%d schemas, want 4", len(evs))
	}
	guid := uuid.MustParse("6a6b6c6d-0001-0002-0003-000000000004")
	for i, want := range []struct {
		id      uint16
		version uint8
		opcode  string
	}{{1, 2, "Start"}, {2, 2, "Stop"}, {3, 2, ""}, {10, 3, "Latest"}} {
		e := evs[i]
		if e.ProviderGUID != guid || e.ID != want.id || e.Opcode != uint8(want.id) || e.Version != want.version ||
			e.OpcodeName != want.opcode || e.EventName != "Sample" || e.ProviderName != "SampleProvider" || e.Source != tdh.SourceMOF {
			t.Errorf("schema %d = %+v", i, e)
		}
	}
	props := evs[0].Properties
	type want struct {
		name   string
		in     tdh.InType
		out    tdh.OutType
		length uint16
		array  bool
		count  uint16
		cidx   int
	}
	wants := []want{
		{"ProcessId", tdh.InTypeUInt32, tdh.OutTypeHexInt32, 0, false, 0, -1},
		{"Object", tdh.InTypePointer, 0, 0, false, 0, -1},
		{"UserSID", tdh.InTypeWBEMSID, 0, 0, false, 0, -1},
		{"Image", tdh.InTypeAnsiString, 0, 0, false, 0, -1},
		{"CommandLine", tdh.InTypeUnicodeString, 0, 0, false, 0, -1},
		{"Size", tdh.InTypeSizeT, 0, 0, false, 0, -1},
		{"Id", tdh.InTypeGUID, 0, 0, false, 0, -1},
		{"Addr", tdh.InTypeUInt32, tdh.OutTypeIPv4, 0, false, 0, -1},
		{"Addr6", tdh.InTypeBinary, tdh.OutTypeIPv6, 16, false, 0, -1},
		{"Port", tdh.InTypeUInt16, tdh.OutTypePort, 0, false, 0, -1},
		{"When", tdh.InTypeUInt64, tdh.OutTypeETWTime, 0, false, 0, -1},
		{"Blob", tdh.InTypeHexDump, 0, 0, false, 0, -1},
		{"Hidden", tdh.InTypeUInt8, tdh.OutTypeNoPrint, 0, true, 4, -1},
		{"Letter", tdh.InTypeAnsiChar, 0, 0, false, 0, -1},
		{"Wide", tdh.InTypeUnicodeChar, 0, 0, true, 8, -1},
		{"CountedW", tdh.InTypeMOFCountedString, 0, 0, false, 0, -1},
		{"RevA", tdh.InTypeReversedCountedAnsiString, 0, 0, false, 0, -1},
		{"Old", tdh.InTypePointer, 0, 0, false, 0, -1},
		{"N", tdh.InTypeUInt32, 0, 0, false, 0, -1},
		{"Items", tdh.InTypeUInt16, 0, 0, true, 0, 18},
		{"Three", tdh.InTypeUInt32, 0, 0, true, 3, -1},
		{"Mapped", tdh.InTypeUInt32, 0, 0, false, 0, -1},
		{"Indexed", tdh.InTypeUInt8, 0, 0, false, 0, -1},
		{"Bits", tdh.InTypeUInt32, 0, 0, false, 0, -1},
		{"Flags", tdh.InTypeUInt8, 0, 0, false, 0, -1},
		{"Pair", tdh.InTypeNull, 0, 0, false, 0, -1},
		{"B", tdh.InTypeBoolean, 0, 0, false, 0, -1},
		{"D", tdh.InTypeDouble, 0, 0, false, 0, -1},
		{"R", tdh.InTypeUnicodeString, tdh.OutTypeReducedString, 0, false, 0, -1},
		{"Rest", tdh.InTypeNonNullTerminatedAnsi, 0, 0, false, 0, -1},
	}
	if len(props) != len(wants) {
		t.Fatalf("%d properties, want %d", len(props), len(wants))
	}
	for i, w := range wants {
		p := props[i]
		if p.Name != w.name || p.InType != w.in || p.OutType != w.out || p.Length != w.length || p.IsArray != w.array ||
			p.Count != w.count || p.CountIndex != w.cidx || p.LengthIndex != -1 {
			t.Errorf("property %d = %+v, want %+v", i, p, w)
		}
	}
	if m := props[21].Map; m == nil || m.Kind != tdh.ValueMap || len(m.Entries) != 3 || m.Entries[1] != (tdh.MapEntry{Value: 16, Message: "Sixteen"}) {
		t.Errorf("Mapped map = %+v", m)
	}
	if m := props[22].Map; m == nil || m.Kind != tdh.IndexMap || m.Entries[1] != (tdh.MapEntry{Value: 1, Message: "Second"}) {
		t.Errorf("Indexed map = %+v", m)
	}
	if m := props[23].Map; m == nil || m.Kind != tdh.BitMap || m.Entries[1] != (tdh.MapEntry{Value: 4, Message: "Bit2"}) {
		t.Errorf("Bits map = %+v", m)
	}
	if m := props[24].Map; m == nil || m.Kind != tdh.FlagMap || m.Entries[0] != (tdh.MapEntry{Value: 1, Message: "One"}) {
		t.Errorf("Flags map = %+v", m)
	}
	if pair := props[25]; !pair.IsStruct() || len(pair.Members) != 2 || pair.Members[1].Name != "B" || pair.Members[1].InType != tdh.InTypeUInt16 {
		t.Errorf("Pair = %+v", pair)
	}
	if p := evs[3].Properties; len(p) != 1 || p[0].InType != tdh.InTypeInt64 {
		t.Errorf("latest class properties = %+v", p)
	}
}

// TestSchemasDecode decodes a payload built for the sample class.
func TestSchemasDecode(t *testing.T) {
	f := mustParse(t, `
[Guid("{6a6b6c6d-0001-0002-0003-000000000004}"), EventVersion(1), DisplayName("Demo")] class Demo { };
[EventType(7), EventTypeName("Thing")] class Demo_Thing : Demo {
  [WmiDataId(1), pointer] uint32 Key;
  [WmiDataId(2)] uint32 Count;
  [WmiDataId(3), WmiSizeIs("Count"), format("x")] uint16 Values[];
  [WmiDataId(4), format("w")] string Name;
  [WmiDataId(5), extension("Port")] object Port;
  [WmiDataId(6), ValueMap{"1", "2"}, Values{"One", "Two"}] uint32 Kind;
};`)
	evs, errs := f.Schemas()
	if len(errs) != 0 || len(evs) != 1 {
		t.Fatal(evs, errs)
	}
	var p []byte
	p = binary.LittleEndian.AppendUint64(p, 0xFFFFF80012345678)
	p = binary.LittleEndian.AppendUint32(p, 2)
	p = binary.LittleEndian.AppendUint16(p, 0xAB)
	p = binary.LittleEndian.AppendUint16(p, 0xCD)
	for _, u := range utf16.Encode([]rune("héllo")) {
		p = binary.LittleEndian.AppendUint16(p, u)
	}
	p = append(p, 0, 0, 0x01, 0xBB) // NUL, port 443
	p = binary.LittleEndian.AppendUint32(p, 2)
	var dec tdh.Decoder
	d, err := dec.Decode(evs[0], p, 8)
	if err != nil || len(d.Extra) != 0 {
		t.Fatal(err, d.Extra)
	}
	var got []string
	for i := range d.Top() {
		got = append(got, evs[0].Properties[i].Name+"="+string(tdh.AppendText(nil, d, &d.Values[i], nil)))
	}
	if s := strings.Join(got, "; "); s != "Key=0xFFFFF80012345678; Count=2; Values=[0xAB, 0xCD]; Name=héllo; Port=443; Kind=Two" {
		t.Errorf("decoded %s", s)
	}
}

func TestSchemaErrors(t *testing.T) {
	f := mustParse(t, `
[EventType(1)] class NoGuid { [WmiDataId(1)] uint32 A; };
[Guid("{6a6b6c6d-0001-0002-0003-000000000004}")] class E { };
[EventType(1)] class BadType : E { [WmiDataId(1)] object O; };
[EventType(2)] class BadRef : E { [WmiDataId(1)] uint32 A; [WmiDataId(2), WmiSizeIs("Later")] uint8 B[]; [WmiDataId(3)] uint32 Later; };
[EventType(3)] class Good : E { [WmiDataId(1)] uint32 A; };
[EventType(3)] class Dup : E { [WmiDataId(1)] uint32 A; };
[EventType(300)] class BigType : E { };
[Guid("{not-a-guid}")] class BadGuid { };
[EventType(4)] class UnderBadGuid : BadGuid { };
class Loop { [WmiDataId(1)] Loop A; [WmiDataId(2)] Loop B; };
[EventType(5)] class SelfEmbed : E { [WmiDataId(1)] Loop L; };
`)
	evs, errs := f.Schemas()
	if len(evs) != 1 || evs[0].ID != 3 {
		t.Errorf("schemas %+v", evs)
	}
	wantErrs := []struct {
		err   error
		class string
	}{
		{ErrNoGUID, "NoGuid"}, {ErrUnsupportedType, "BadType"}, {tdh.ErrBadReference, "BadRef"},
		{ErrDuplicateEvent, "Dup"}, {ErrBadQualifier, "BigType"}, {ErrBadQualifier, "UnderBadGuid"},
		{ErrUnsupportedType, "Loop"},
	}
	if len(errs) != len(wantErrs) {
		t.Fatalf("errors %v", errs)
	}
	for i, w := range wantErrs {
		var se *SchemaError
		if !errors.Is(errs[i], w.err) || !errors.As(errs[i], &se) || se.Class != w.class || se.File != "sample.mof" || se.Line == 0 {
			t.Errorf("error %d = %v, want %v for %s", i, errs[i], w.err, w.class)
		}
	}
	if s := errs[2].Error(); !strings.Contains(s, "sample.mof:5: class BadRef: property B: WmiSizeIs(\"Later\") names no earlier property") {
		t.Errorf("message %q", s)
	}
}

// TestVersionRules checks the EventVersion rules: nearest qualifier in
// the chain (an event type class may override), and the latest class of
// a GUID without the qualifier getting one more than the highest.
func TestVersionRules(t *testing.T) {
	f := mustParse(t, `
[Guid("{6a6b6c6d-0001-0002-0003-000000000004}"), EventVersion(0)] class T_V0 { };
[EventType(1)] class T_V0_A : T_V0 { };
[EventType(2), EventVersion(5)] class T_V0_B : T_V0 { };
[Guid("{6a6b6c6d-0001-0002-0003-000000000004}")] class T { };
[EventType(1)] class T_A : T { };
`)
	evs, errs := f.Schemas()
	if len(errs) != 0 || len(evs) != 3 {
		t.Fatal(evs, errs)
	}
	for i, v := range []uint8{0, 5, 1} {
		if evs[i].Version != v {
			t.Errorf("schema %d (type %d) version %d, want %d", i, evs[i].ID, evs[i].Version, v)
		}
	}
}
