package tdh

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/google/uuid"
)

func prop(name string, t InType) Property {
	return Property{Name: name, InType: t, LengthIndex: -1, CountIndex: -1}
}

type payload struct{ bytes.Buffer }

func (p *payload) u8(v uint8)   { p.WriteByte(v) }
func (p *payload) u16(v uint16) { binary.Write(p, binary.LittleEndian, v) }
func (p *payload) u32(v uint32) { binary.Write(p, binary.LittleEndian, v) }
func (p *payload) u64(v uint64) { binary.Write(p, binary.LittleEndian, v) }
func (p *payload) wstr(s string) {
	for _, r := range s {
		p.u16(uint16(r))
	}
	p.u16(0)
}

func TestDecodeLayout(t *testing.T) {
	count := prop("Count", InTypeUInt16)
	items := prop("Items", InTypeUInt32)
	items.IsArray, items.CountIndex = true, 0
	blobLen := prop("BlobLen", InTypeUInt8)
	blob := prop("Blob", InTypeBinary)
	blob.LengthIndex = 3
	pair := Property{Name: "Pairs", IsArray: true, Count: 2, LengthIndex: -1, CountIndex: -1, Members: []Property{
		prop("Key", InTypeAnsiString), prop("Val", InTypeInt8),
	}}
	fixed := prop("Fixed", InTypeUnicodeString)
	fixed.Length = 3
	ev := &Event{Properties: []Property{
		count, items, prop("Name", InTypeUnicodeString), blobLen, blob, pair, prop("Ptr", InTypePointer),
		prop("Sid", InTypeSID), prop("Counted", InTypeCountedString), fixed, prop("Flag", InTypeBoolean),
	}}
	var p payload
	p.u16(3)
	p.u32(10)
	p.u32(20)
	p.u32(30)
	p.wstr("héllo")
	p.u8(2)
	p.Write([]byte{0xAB, 0xCD})
	p.WriteString("a\x00")
	p.u8(0xFF)
	p.WriteString("bc\x00")
	p.u8(5)
	p.u32(0xDEADBEEF)
	p.Write([]byte{1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0})
	p.u16(4)
	p.Write([]byte{'o', 0, 'k', 0})
	p.Write([]byte{'x', 0, 'y', 0, 0, 0})
	p.u32(1)
	p.Write([]byte{9, 9})

	var dec Decoder
	d, err := dec.Decode(ev, p.Bytes(), 4)
	if err != nil {
		t.Fatal(err)
	}
	top := d.Top()
	if n, _ := top[0].Uint(); n != 3 {
		t.Errorf("Count = %d", n)
	}
	if top[1].Kind != Array || top[1].N != 3 {
		t.Fatalf("Items: %+v", top[1])
	}
	for i, want := range []uint64{10, 20, 30} {
		if got, _ := d.Children(&top[1])[i].Uint(); got != want {
			t.Errorf("Items[%d] = %d", i, got)
		}
	}
	if s := top[2].String(); s != "héllo" {
		t.Errorf("Name = %q", s)
	}
	if !bytes.Equal(top[4].Data, []byte{0xAB, 0xCD}) {
		t.Errorf("Blob = %x", top[4].Data)
	}
	pairs := d.Children(&top[5])
	if len(pairs) != 2 || pairs[1].Kind != Struct {
		t.Fatalf("Pairs: %+v", pairs)
	}
	m := d.Children(&pairs[1])
	if k, v := m[0].String(), m[1]; k != "bc" {
		t.Errorf("Pairs[1].Key = %q", k)
	} else if n, _ := v.Int(); n != 5 {
		t.Errorf("Pairs[1].Val = %d", n)
	}
	if n, _ := d.Children(&pairs[0])[1].Int(); n != -1 {
		t.Errorf("Pairs[0].Val = %d, want -1", n)
	}
	if n, _ := top[6].Uint(); n != 0xDEADBEEF || len(top[6].Data) != 4 {
		t.Errorf("Ptr = %#x (%d bytes)", n, len(top[6].Data))
	}
	if len(top[7].Data) != 12 {
		t.Errorf("Sid: %d bytes", len(top[7].Data))
	}
	if s := top[8].String(); s != "ok" {
		t.Errorf("Counted = %q", s)
	}
	if s := top[9].String(); s != "xy" {
		t.Errorf("Fixed = %q", s)
	}
	if n, _ := top[10].Uint(); n != 1 || len(top[10].Data) != 4 {
		t.Errorf("Flag = %d (%d bytes): Boolean is 4 bytes", n, len(top[10].Data))
	}
	if !bytes.Equal(d.Extra, []byte{9, 9}) {
		t.Errorf("Extra = %x", d.Extra)
	}
}

func TestDecodeErrors(t *testing.T) {
	n := prop("N", InTypeUInt32)
	s := prop("S", InTypeUnicodeString)
	arr := prop("A", InTypeUInt64)
	arr.IsArray, arr.CountIndex = true, 0
	cases := []struct {
		props   []Property
		payload []byte
		path    string
	}{
		{[]Property{n}, []byte{1, 2}, "N"},
		{[]Property{n, s}, []byte{1, 0, 0, 0, 'a', 0, 'b'}, "S"}, // half a character
		{[]Property{s, n}, []byte{'a', 0}, "N"},                  // the string took the rest
		{[]Property{n, arr}, []byte{2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}, "A[1]"},
		{[]Property{{Name: "St", LengthIndex: -1, CountIndex: -1, Members: []Property{n, s}}}, []byte{0, 0, 0}, "St.N"},
		{[]Property{func() Property { b := prop("B", InTypeBinary); return b }()}, []byte{1}, "B"},
	}
	var dec Decoder
	for _, c := range cases {
		_, err := dec.Decode(&Event{Properties: c.props}, c.payload, 8)
		var de *DecodeError
		if !errors.As(err, &de) || de.Property != c.path {
			t.Errorf("%v: err = %v, want a DecodeError for %s", c.props, err, c.path)
		}
	}
}

// A NUL-terminated string that reaches the end of the payload without its
// NUL runs to the end, as TDH renders it (PktMon event 73's last string).
func TestDecodeStringWithoutNUL(t *testing.T) {
	n := prop("N", InTypeUInt32)
	for _, c := range []struct {
		typ     InType
		payload []byte
	}{
		{InTypeUnicodeString, []byte{7, 0, 0, 0, 'a', 0, 'b', 0}},
		{InTypeAnsiString, []byte{7, 0, 0, 0, 'a', 'b'}},
	} {
		var dec Decoder
		d, err := dec.Decode(&Event{Properties: []Property{n, prop("S", c.typ)}}, c.payload, 8)
		if err != nil {
			t.Fatalf("%v: %v", c.typ, err)
		}
		if got := d.Top()[1].String(); got != "ab" {
			t.Errorf("%v: S = %q, want \"ab\"", c.typ, got)
		}
		if len(d.Extra) != 0 {
			t.Errorf("%v: %d bytes left over", c.typ, len(d.Extra))
		}
	}
}

func TestDecodeBoundsHugeCounts(t *testing.T) {
	n := prop("N", InTypeUInt16)
	inner := Property{Name: "In", IsArray: true, CountIndex: 0, LengthIndex: -1, Members: []Property{}}
	outer := Property{Name: "Out", IsArray: true, CountIndex: 0, LengthIndex: -1, Members: []Property{n, inner}}
	ev := &Event{Properties: []Property{n, outer}}
	payload := bytes.Repeat([]byte{0xFF}, 64)
	var dec Decoder
	if _, err := dec.Decode(ev, payload, 8); err == nil {
		t.Error("nested 65535×65535 arrays decoded without hitting the value limit")
	}
}

func TestDecodeDoesNotAllocate(t *testing.T) {
	ev := &Event{Properties: []Property{prop("A", InTypeUInt32), prop("B", InTypeUnicodeString), prop("C", InTypeGUID), prop("D", InTypeFileTime)}}
	var p payload
	p.u32(7)
	p.wstr("text")
	p.Write(make([]byte, 24))
	var dec Decoder
	dec.Decode(ev, p.Bytes(), 8)
	if a := testing.AllocsPerRun(100, func() { dec.Decode(ev, p.Bytes(), 8) }); a != 0 {
		t.Errorf("%v allocations per decode", a)
	}
}

func TestRegistry(t *testing.T) {
	g := uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")
	r := NewRegistry()
	r.Add(&Event{ProviderGUID: g, ID: 1, Version: 0, EventName: "v0"}, &Event{ProviderGUID: g, ID: 1, Version: 2, EventName: "v2"})
	if e, ok := r.Lookup(g, 1, 2); !ok || e.EventName != "v2" {
		t.Errorf("exact lookup: %v %v", e, ok)
	}
	if _, ok := r.Lookup(g, 1, 1); ok {
		t.Error("Lookup(1) found a schema; TDH needs the exact version")
	}
	for v, want := range map[uint8]string{1: "v0", 3: "v2", 2: "v2"} {
		e, exact := r.LookupNearest(g, 1, v)
		if e == nil || e.EventName != want || exact != (v == 2) {
			t.Errorf("LookupNearest(%d) = %v exact=%v, want %s", v, e, exact, want)
		}
	}
	if a := testing.AllocsPerRun(100, func() { r.Lookup(g, 1, 2) }); a != 0 {
		t.Errorf("%v allocations per lookup", a)
	}
	if r.Len() != 2 || len(r.Providers()) != 1 {
		t.Errorf("Len %d Providers %v", r.Len(), r.Providers())
	}
}

func TestDecodeOptionalToEndAlternates(t *testing.T) {
	var dec Decoder
	// Optional trailing properties: the payload may stop before them.
	a, b, c := prop("A", InTypeUInt32), prop("B", InTypeUInt32), prop("C", InTypeUInt32)
	b.Optional, c.Optional = true, true
	opt := &Event{Properties: []Property{a, b, c}}
	for n, wantTop := range map[int]int{4: 1, 8: 2, 12: 3} {
		d, err := dec.Decode(opt, make([]byte, n), 8)
		if err != nil || len(d.Top()) != wantTop || len(d.Extra) != 0 {
			t.Errorf("%d bytes: %d properties, extra %d, %v; want %d", n, len(d.Top()), len(d.Extra), err, wantTop)
		}
	}
	if _, err := dec.Decode(opt, make([]byte, 6), 8); err == nil {
		t.Error("a payload ending inside an optional property decoded without error")
	}
	// An array to the end of the payload.
	frames := prop("Frames", InTypePointer)
	frames.IsArray, frames.ToEnd = true, true
	rest := &Event{Properties: []Property{prop("Key", InTypeUInt64), frames}}
	d, err := dec.Decode(rest, make([]byte, 8+3*4+2), 4)
	if err != nil || d.Top()[1].N != 3 || len(d.Extra) != 2 {
		t.Errorf("to-end array: %d elements, extra %d, %v", d.Top()[1].N, len(d.Extra), err)
	}
	// Alternates: the first layout that fits exactly wins.
	v1 := &Event{EventName: "guid", Properties: []Property{prop("Id", InTypeGUID)}}
	v2 := &Event{EventName: "string", Properties: []Property{prop("Id", InTypeUnicodeString)}}
	v1.Alternates = []*Event{v2}
	d, err = dec.Decode(v1, []byte{'a', 0, 'b', 0, 0, 0}, 8)
	if err != nil || d.Schema != v2 || d.Top()[0].String() != "ab" {
		t.Errorf("alternate: schema %v, %v", d.Schema.EventName, err)
	}
	d, err = dec.Decode(v1, make([]byte, 16), 8)
	if err != nil || d.Schema != v1 {
		t.Errorf("primary: schema %v, %v", d.Schema.EventName, err)
	}
	// Neither fits: the primary's result and error.
	d, err = dec.Decode(v1, []byte{1, 2, 3}, 8)
	if err == nil || d.Schema != v1 {
		t.Errorf("no fit: schema %v, err %v", d.Schema.EventName, err)
	}
}

func TestAppendJSONTextNonASCIINoAlloc(t *testing.T) {
	buf := make([]byte, 0, 64)
	b := []byte("h\xc3\xa9llo \xe2\x82\xac \xff")
	if got := string(appendJSONBytes(buf[:0], b)); got != `"héllo € \ufffd"` {
		t.Errorf("appendJSONBytes = %s", got)
	}
	if got := string(appendJSONString(buf[:0], string(b))); got != `"héllo € \ufffd"` {
		t.Errorf("appendJSONString = %s", got)
	}
	if a := testing.AllocsPerRun(100, func() { appendJSONBytes(buf[:0], b) }); a != 0 {
		t.Errorf("%v allocations for non-ASCII bytes", a)
	}
}

func TestAppendMessageNoAlloc(t *testing.T) {
	ev := &Event{Properties: []Property{prop("Count", InTypeUInt32), prop("Name", InTypeUnicodeString)}}
	var p payload
	p.u32(3)
	p.wstr("job")
	var dec Decoder
	d, err := dec.Decode(ev, p.Bytes(), 8)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 128)
	if got := string(AppendMessage(buf, "Work %2 started with %1 items%n", d, nil)); got != "Work job started with 3 items\r\n" {
		t.Errorf("AppendMessage = %q", got)
	}
	if a := testing.AllocsPerRun(100, func() { AppendMessage(buf[:0], "Work %2 started with %1!u! items", d, nil) }); a != 0 {
		t.Errorf("%v allocations per message", a)
	}
}
