package tdh_test

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// fuzzInTypes and fuzzOutTypes are the types a fuzz input picks from.
var fuzzInTypes = []tdh.InType{
	tdh.InTypeNull, tdh.InTypeUnicodeString, tdh.InTypeAnsiString, tdh.InTypeInt8, tdh.InTypeUInt8, tdh.InTypeInt16,
	tdh.InTypeUInt16, tdh.InTypeInt32, tdh.InTypeUInt32, tdh.InTypeInt64, tdh.InTypeUInt64, tdh.InTypeFloat,
	tdh.InTypeDouble, tdh.InTypeBoolean, tdh.InTypeBinary, tdh.InTypeGUID, tdh.InTypePointer, tdh.InTypeFileTime,
	tdh.InTypeSystemTime, tdh.InTypeSID, tdh.InTypeHexInt32, tdh.InTypeHexInt64, tdh.InTypeCountedString,
	tdh.InTypeCountedAnsiString, tdh.InTypeCountedBinary, tdh.InTypeMOFCountedString, tdh.InTypeMOFCountedAnsiString,
	tdh.InTypeReversedCountedString, tdh.InTypeReversedCountedAnsiString, tdh.InTypeNonNullTerminatedString,
	tdh.InTypeNonNullTerminatedAnsi, tdh.InTypeUnicodeChar, tdh.InTypeAnsiChar, tdh.InTypeSizeT, tdh.InTypeHexDump,
	tdh.InTypeWBEMSID, tdh.InType(24), tdh.InType(999),
}

var fuzzOutTypes = func() []tdh.OutType {
	var ts []tdh.OutType
	for t := tdh.OutTypeNull; t <= tdh.OutTypeDateTimeUTC; t++ {
		ts = append(ts, t)
	}
	return append(ts, tdh.OutTypeReducedString, tdh.OutTypeNoPrint, tdh.OutType(77))
}()

// fuzzReader hands out input bytes, zeros once they run out.
type fuzzReader struct{ b []byte }

func (r *fuzzReader) next() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// fuzzProp builds property i of a level from four input bytes: in-type,
// out-type, flags, parameter.
func fuzzProp(r *fuzzReader, i, depth int) tdh.Property {
	in, out, flags, param := r.next(), r.next(), r.next(), r.next()
	p := tdh.Property{
		Name:        fmt.Sprintf("P%d\"\x01é", i),
		InType:      fuzzInTypes[int(in)%len(fuzzInTypes)],
		LengthIndex: -1,
		CountIndex:  -1,
	}
	if flags&0x80 != 0 {
		p.OutType = fuzzOutTypes[int(out)%len(fuzzOutTypes)]
	}
	if flags&1 != 0 {
		p.IsArray, p.Count = true, uint16(param%5)
		if flags&2 != 0 && i > 0 {
			p.CountIndex = int(param) % i
		}
	}
	if flags&4 != 0 {
		p.Length = uint16(param % 24)
	}
	if flags&8 != 0 && i > 0 {
		p.LengthIndex = int(out) % i
	}
	if k := flags >> 4 & 3; k != 0 {
		m := &tdh.Map{Name: "m", Kind: tdh.MapKind(param % 4)}
		for j := 0; j < int(k)+1; j++ {
			v := uint64(r.next())
			if m.Kind == tdh.BitMap {
				v = 1 << (v % 40)
			}
			m.Entries = append(m.Entries, tdh.MapEntry{Value: v, Message: fmt.Sprintf("E%d\t", v)})
		}
		m.Sort()
		p.Map = m
	}
	if flags&0x40 != 0 && depth < 2 {
		p.InType, p.OutType = tdh.InTypeNull, 0
		n := 1 + int(param)%3
		p.Members = make([]tdh.Property, n)
		for j := range p.Members {
			p.Members[j] = fuzzProp(r, j, depth+1)
		}
	}
	return p
}

// fuzzSchema builds an event schema from the start of data and returns it
// with the rest of data as the payload.
func fuzzSchema(data []byte) (*tdh.Event, []byte) {
	r := &fuzzReader{b: data}
	head := r.next()
	e := &tdh.Event{Source: tdh.Source(head >> 4 % 4)}
	n := 1 + int(head)%6
	for i := 0; i < n; i++ {
		e.Properties = append(e.Properties, fuzzProp(r, i, 0))
	}
	return e, r.b
}

func checkRender(t *testing.T, d *tdh.Decoded) {
	t.Helper()
	opts := []*tdh.RenderOptions{nil, {MOFPadding: true}}
	for i := range d.Values {
		v := &d.Values[i]
		for _, o := range opts {
			_ = tdh.AppendText(nil, d, v, o)
		}
		if js := tdh.AppendJSON(make([]byte, 0, 4), d, v); !json.Valid(js) {
			t.Fatalf("value %d (%v/%v): invalid JSON %q", i, propIn(v), propOut(v), js)
		}
	}
	if js := tdh.AppendPropertiesJSON(nil, d); !json.Valid(js) {
		t.Fatalf("invalid properties JSON %q", js)
	}
	_ = tdh.FormatMessage("%1 %2!d! %3!08X! %4!-5s! %5!I64u! %6!c! %%7 %n%0", d, opts[1])
}

func propIn(v *tdh.Value) tdh.InType {
	if v.Prop == nil {
		return 0
	}
	return v.Prop.InType
}

func propOut(v *tdh.Value) tdh.OutType {
	if v.Prop == nil {
		return 0
	}
	return v.Prop.OutType
}

// FuzzRender decodes fuzz-built schemas and payloads and renders every
// value: nothing may panic and all JSON must be valid.
func FuzzRender(f *testing.F) {
	f.Add([]byte{0x05, 1, 0, 0, 0, 8, 18, 0x80, 0, 'a', 0, 0, 0, 1, 2, 3, 4})
	f.Add([]byte{0x12, 14, 25, 0x84, 16, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0x21, 8, 0, 0x31, 3, 1, 2, 3, 7, 0, 0, 0})
	f.Add([]byte{0x02, 5, 0, 0x01, 3, 6, 1, 0x83, 0, 'h', 0, 'i', 0, 0, 0})
	f.Add([]byte{0x01, 0, 0, 0x40, 2, 4, 0, 0, 0, 1, 0, 0, 0, 1, 2, 'x', 0})
	f.Add([]byte{0x13, 18, 0, 0, 0, 17, 0, 0, 0, 0xE3, 7, 2, 0, 5, 0, 29, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{0x00, 19, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		e, payload := fuzzSchema(data)
		var dec tdh.Decoder
		for _, ptr := range []int{4, 8} {
			d, _ := dec.Decode(e, payload, ptr)
			checkRender(t, d)
		}
	})
}

// typicalRenderEvent is a 10-field event: ints, hex, a GUID, a string and
// a FILETIME.
func typicalRenderEvent() (*tdh.Event, []byte) {
	p := func(name string, in tdh.InType, out tdh.OutType) tdh.Property {
		return tdh.Property{Name: name, InType: in, OutType: out, LengthIndex: -1, CountIndex: -1}
	}
	e := &tdh.Event{Properties: []tdh.Property{
		p("ProcessId", tdh.InTypeUInt32, tdh.OutTypePID),
		p("ThreadId", tdh.InTypeUInt32, tdh.OutTypeTID),
		p("Offset", tdh.InTypeInt64, 0),
		p("Address", tdh.InTypePointer, 0),
		p("ActivityId", tdh.InTypeGUID, 0),
		p("FileName", tdh.InTypeUnicodeString, 0),
		p("CreateTime", tdh.InTypeFileTime, 0),
		p("Flags", tdh.InTypeHexInt32, 0),
		p("Priority", tdh.InTypeUInt16, 0),
		p("Success", tdh.InTypeBoolean, 0),
	}}
	le := binary.LittleEndian
	var b []byte
	b = le.AppendUint32(b, 4242)
	b = le.AppendUint32(b, 17)
	b = le.AppendUint64(b, uint64(1<<40+12345))
	b = le.AppendUint64(b, 0xFFFFF800AC08A9C0)
	b = append(b, 0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF)
	for _, c := range utf16.Encode([]rune(`C:\Windows\System32\notepad.exe`)) {
		b = le.AppendUint16(b, c)
	}
	b = le.AppendUint16(b, 0)
	b = le.AppendUint64(b, 132247862638609634)
	b = le.AppendUint32(b, 0x1F)
	b = le.AppendUint16(b, 8)
	b = le.AppendUint32(b, 1)
	return e, b
}

func BenchmarkAppendText(b *testing.B) {
	e, payload := typicalRenderEvent()
	var dec tdh.Decoder
	d, err := dec.Decode(e, payload, 8)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		buf = buf[:0]
		for i := range d.Top() {
			buf = tdh.AppendText(buf, d, &d.Values[i], nil)
		}
	}
	b.SetBytes(int64(len(payload)))
}

func BenchmarkAppendJSON(b *testing.B) {
	e, payload := typicalRenderEvent()
	var dec tdh.Decoder
	d, err := dec.Decode(e, payload, 8)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		buf = tdh.AppendPropertiesJSON(buf[:0], d)
	}
	b.SetBytes(int64(len(payload)))
}

func TestRenderDoesNotAllocate(t *testing.T) {
	e, payload := typicalRenderEvent()
	var dec tdh.Decoder
	d, err := dec.Decode(e, payload, 8)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 1024)
	if n := testing.AllocsPerRun(100, func() {
		buf = buf[:0]
		for i := range d.Top() {
			buf = tdh.AppendText(buf, d, &d.Values[i], nil)
		}
		buf = tdh.AppendPropertiesJSON(buf, d)
	}); n != 0 {
		t.Errorf("%v allocations per event", n)
	}
}

func ExampleAppendText() {
	e := &tdh.Event{Properties: []tdh.Property{
		{Name: "Pid", InType: tdh.InTypeUInt32, OutType: tdh.OutTypePID, LengthIndex: -1, CountIndex: -1},
		{Name: "Status", InType: tdh.InTypeUInt32, OutType: tdh.OutTypeNTStatus, LengthIndex: -1, CountIndex: -1},
		{Name: "Addr", InType: tdh.InTypeBinary, OutType: tdh.OutTypeIPv6, LengthIndex: -1, CountIndex: -1},
	}}
	payload := []byte{
		0x10, 0x27, 0, 0, // 10000
		0x22, 0, 0, 0xC0, // STATUS_ACCESS_DENIED
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	}
	var dec tdh.Decoder
	d, err := dec.Decode(e, payload, 8)
	if err != nil {
		panic(err)
	}
	for i := range d.Top() {
		fmt.Printf("%s: %s\n", e.Properties[i].Name, tdh.AppendText(nil, d, &d.Values[i], nil))
	}
	fmt.Printf("%s\n", tdh.AppendPropertiesJSON(nil, d))
	fmt.Println(tdh.FormatMessage("Process %1 got %2!#x!.", d, nil))
	// Output:
	// Pid: 10000
	// Status: {Access Denied} A process has requested access to an object, but has not been granted those access rights.
	// Addr: 2001:db8::1
	// {"Pid":10000,"Status":"{Access Denied} A process has requested access to an object, but has not been granted those access rights.","Addr":"2001:db8::1"}
	// Process 10000 got 0xc0000022.
}

// TestRenderCorpusMytrace decodes the TraceLogging events of a real trace
// with a hand-made schema and checks the text against the User Data column
// of tracerpt's CSV of the same trace. The payload is not a NUL-terminated
// string: the events' TraceLogging metadata (ext item 11) declares field
// "Info" with in-type 0x16, a u16 byte count followed by UTF-16
// (EventSource's string encoding), so the schema is {Info:
// CountedUnicodeString}.
func TestRenderCorpusMytrace(t *testing.T) {
	dir := os.Getenv("ETL_CORPUS")
	if dir == "" {
		t.Skip("ETL_CORPUS is not set: no real .etl corpus to test against")
	}
	base := filepath.Join(dir, "Marissa1999+Tracing-Application")
	csv, err := os.ReadFile(filepath.Join(base, "mytrace.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// tracerpt's rows for the TraceLogging events end with the quoted
	// string; the kernel EventTrace rows come first.
	var want []string
	for _, line := range strings.Split(strings.ReplaceAll(string(csv), "\r\n", "\n"), "\n")[1:] {
		if strings.HasPrefix(strings.TrimSpace(line), "EventTrace,") || strings.TrimSpace(line) == "" {
			continue
		}
		i, j := strings.Index(line, `"`), strings.LastIndex(line, `"`)
		if i < 0 || j <= i {
			t.Fatalf("CSV row without a quoted User Data: %q", line)
		}
		want = append(want, line[i+1:j])
	}
	if len(want) != 8 {
		t.Fatalf("%d TraceLogging rows in mytrace.csv, want 8", len(want))
	}

	f, err := etl.Open(filepath.Join(base, "mytrace.etl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	schema := &tdh.Event{Source: tdh.SourceTraceLogging, EventName: "Info", Properties: []tdh.Property{
		{Name: "Info", InType: tdh.InTypeCountedString, LengthIndex: -1, CountIndex: -1},
	}}
	var dec tdh.Decoder
	var got []string
	for r.Next() {
		ev := r.Event()
		if ev.Header != etl.HeaderEvent32 {
			continue
		}
		schemaTL := false
		for _, x := range ev.Extended {
			if x.Type == etl.ExtEventSchemaTL && strings.HasSuffix(string(x.Data), "\x00Info\x00\x16") {
				schemaTL = true
			}
		}
		if !schemaTL {
			t.Errorf("event %d: no TraceLogging metadata declaring Info as in-type 22", ev.Descriptor.ID)
		}
		d, err := dec.Decode(schema, ev.UserData, ev.PointerSize())
		if err != nil {
			t.Fatalf("event %d: %v", ev.Descriptor.ID, err)
		}
		if len(d.Extra) != 0 {
			t.Errorf("event %d: %d bytes after the string", ev.Descriptor.ID, len(d.Extra))
		}
		got = append(got, string(tdh.AppendText(nil, d, &d.Values[0], nil)))
		if js := tdh.AppendPropertiesJSON(nil, d); !json.Valid(js) {
			t.Errorf("invalid JSON %s", js)
		}
		if ev.ProviderID == uuid.Nil {
			t.Errorf("event %d has no provider", ev.Descriptor.ID)
		}
	}
	if errs := r.Errors(); len(errs) != 0 {
		t.Errorf("reader errors: %v", errs)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("texts:\n%q\nwant (mytrace.csv):\n%q", got, want)
	}
}
