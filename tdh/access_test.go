package tdh

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
)

func accessEvent(t *testing.T) *Decoded {
	t.Helper()
	pid := prop("ProcessID", InTypeUInt32)
	pid.OutType = OutTypeHexInt32
	state := prop("State", InTypeUInt32)
	state.Map = &Map{Kind: ValueMap, Entries: []MapEntry{{1, "Running"}, {2, "Stopped"}}}
	when := prop("When", InTypeUInt64)
	when.OutType = OutTypeDateTimeUTC
	list := prop("List", InTypeUInt16)
	list.IsArray, list.Count = true, 2
	ev := &Event{Source: SourceManifest, Properties: []Property{
		pid, prop("Name", InTypeUnicodeString), prop("Delta", InTypeInt32), state, prop("Id", InTypeGUID),
		prop("Start", InTypeFileTime), prop("Sys", InTypeSystemTime), when, prop("Ratio", InTypeDouble), list,
		prop("Ansi", InTypeAnsiString),
	}}
	var p payload
	p.u32(0xDE0)
	p.wstr("Test.x64.exe")
	p.u32(0xFFFFFFFE) // -2
	p.u32(2)
	p.Write([]byte{0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF})
	ft := uint64(133485408000000000 + 12345678) // 2024-01-01T00:00:01.2345678Z
	p.u64(ft)
	for _, v := range []uint16{2024, 1, 1, 1, 0, 0, 1, 500} { // Monday 2024-01-01 00:00:01.500
		p.u16(v)
	}
	p.u64(ft)
	p.u64(0x3FF8000000000000) // 1.5
	p.u16(7)
	p.u16(9)
	p.WriteString("caf\xe9\x00") // Windows-1252
	var dec Decoder
	d, err := dec.Decode(ev, p.Bytes(), 8)
	if err != nil || len(d.Extra) != 0 {
		t.Fatalf("decode: %v, %d extra", err, len(d.Extra))
	}
	return d
}

func TestAccessors(t *testing.T) {
	d := accessEvent(t)
	if v, ok := d.Uint("ProcessId"); !ok || v != 0xDE0 { // case-insensitive
		t.Errorf("Uint(ProcessId) = %d %v", v, ok)
	}
	if v, ok := d.Int("Delta"); !ok || v != -2 {
		t.Errorf("Int(Delta) = %d %v", v, ok)
	}
	if _, ok := d.Uint("Missing"); ok {
		t.Error("Uint(Missing) found")
	}
	if s, ok := d.String("Name"); !ok || s != "Test.x64.exe" {
		t.Errorf("String(Name) = %q %v", s, ok)
	}
	if s, ok := d.String("Ansi"); !ok || s != "café" {
		t.Errorf("String(Ansi) = %q %v", s, ok)
	}
	if _, ok := d.String("ProcessID"); ok {
		t.Error("String of an integer: want ok false (Text renders it)")
	}
	for name, want := range map[string]string{
		"ProcessID": "0xDE0", "State": "Stopped", "Delta": "-2", "Ratio": "1.5",
		"Id": "{00112233-4455-6677-8899-aabbccddeeff}", "List": "[7, 9]",
		"Start": "2024-01-01T00:00:01.234567800Z",
	} {
		if got, ok := d.Text(name); !ok || got != want {
			t.Errorf("Text(%s) = %q %v, want %q", name, got, ok, want)
		}
	}
	if g, ok := d.GUID("Id"); !ok || g != uuid.MustParse("00112233-4455-6677-8899-aabbccddeeff") {
		t.Errorf("GUID = %v %v", g, ok)
	}
	if f, ok := d.Float("Ratio"); !ok || f != 1.5 {
		t.Errorf("Float = %v %v", f, ok)
	}
	want := time.Date(2024, 1, 1, 0, 0, 1, 234567800, time.UTC)
	for _, name := range []string{"Start", "When"} {
		if tm, ok := d.Time(name); !ok || !tm.Equal(want) {
			t.Errorf("Time(%s) = %v %v, want %v", name, tm, ok, want)
		}
	}
	if tm, ok := d.Time("Sys"); !ok || !tm.Equal(time.Date(2024, 1, 1, 0, 0, 1, 500e6, time.UTC)) {
		t.Errorf("Time(Sys) = %v %v", tm, ok)
	}
	if _, ok := d.Time("Delta"); ok {
		t.Error("Time of an integer")
	}
	if el, ok := d.Elements("List"); !ok || len(el) != 2 {
		t.Errorf("Elements = %v %v", el, ok)
	}
	if b, ok := d.Bytes("ProcessID"); !ok || len(b) != 4 {
		t.Errorf("Bytes = %v %v", b, ok)
	}
	var nilD *Decoded
	if _, ok := nilD.Get("x"); ok {
		t.Error("Get on nil")
	}
}

// TestValueString: strings as before, other scalars as TDH renders them
// (a hex ProcessID used to come out as its raw bytes, "\xe0\r\x00\x00").
func TestValueString(t *testing.T) {
	d := accessEvent(t)
	for name, want := range map[string]string{
		"ProcessID": "0xDE0", "Name": "Test.x64.exe", "State": "Stopped", "Delta": "-2", "List": "",
	} {
		v, _ := d.Get(name)
		if got := v.String(); got != want {
			t.Errorf("%s: String() = %q, want %q", name, got, want)
		}
	}
}

func TestAccessDoesNotAllocate(t *testing.T) {
	d := accessEvent(t)
	n := testing.AllocsPerRun(100, func() {
		d.Uint("processid")
		d.Get("Ansi")
		d.Time("Start")
	})
	if n != 0 {
		t.Errorf("%v allocations per lookup", n)
	}
}

func TestIdentity(t *testing.T) {
	for _, c := range []struct {
		e    Event
		want string
	}{
		{Event{ProviderName: "Microsoft-Windows-DotNETRuntime", EventName: "GCStart_V2", TaskName: "GC", OpcodeName: "Start"}, "Microsoft-Windows-DotNETRuntime/GC/Start"},
		{Event{Source: SourceMOF, ProviderName: "MSNT_SystemTrace", EventName: "PerfInfo", OpcodeName: "SampleProf"}, "MSNT_SystemTrace/PerfInfo/SampleProf"},
		{Event{Source: SourceTraceLogging, ProviderName: "shop", EventName: "Checkout"}, "shop/Checkout"},
		{Event{ProviderName: "p"}, "p"},
	} {
		if got := c.e.Identity(); got != c.want {
			t.Errorf("Identity() = %q, want %q", got, c.want)
		}
	}
}

// Read a decoded payload by property name.
func ExampleDecoded_Uint() {
	pid := Property{Name: "ProcessId", InType: InTypeUInt32, OutType: OutTypeHexInt32, LengthIndex: -1, CountIndex: -1}
	name := Property{Name: "ImageFileName", InType: InTypeAnsiString, LengthIndex: -1, CountIndex: -1}
	schema := &Event{Source: SourceMOF, ProviderName: "MSNT_SystemTrace", EventName: "Process", OpcodeName: "Start",
		Properties: []Property{pid, name}}
	var dec Decoder
	d, err := dec.Decode(schema, []byte("\xe0\x0d\x00\x00Test.x64.exe\x00"), 8)
	if err != nil {
		panic(err)
	}
	n, _ := d.Uint("ProcessID") // names match without regard to case
	s, _ := d.String("ImageFileName")
	v, _ := d.Get("ProcessId")
	fmt.Println(schema.Identity(), n, s, v.String())
	// Output: MSNT_SystemTrace/Process/Start 3552 Test.x64.exe 0xDE0
}
