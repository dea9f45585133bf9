package tracelogging

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/tdh"
)

func TestTags(t *testing.T) {
	for tags, want := range map[uint32][]byte{
		0:          {0x00},
		1:          {0x80, 0x80, 0x80, 0x01},
		0x0FE00000: {0x7F},
		0x00200000: {0x01},
		0x0FFFFFFF: {0xFF, 0xFF, 0xFF, 0x7F},
	} {
		got := AppendTags(nil, tags)
		if !bytes.Equal(got, want) {
			t.Errorf("AppendTags(%#x) = % x, want % x", tags, got, want)
		}
		p := &parser{b: got}
		if back, err := p.tags(); err != nil || back != tags {
			t.Errorf("tags(% x) = %#x, %v", got, back, err)
		}
	}
}

// sample metadata covering every arity, a nested struct and tags.
func sampleMeta() *EventMetadata {
	return &EventMetadata{Name: "Sample", Tags: 0x1234, Fields: []Field{
		{Name: "s", InType: 1},
		{Name: "n", InType: 8, OutType: OutHex},
		{Name: "fixed", InType: 4, Arity: ArityCCount, Count: 3},
		{Name: "var", InType: 10, Arity: ArityVCount},
		{Name: "chars", InType: 6, Arity: ArityVCount, OutType: OutString},
		{Name: "bin", InType: InBinary, OutType: OutIPv6},
		{Name: "st", InType: InStruct, Tags: 5, Fields: []Field{
			{Name: "a", InType: 3},
			{Name: "inner", InType: InStruct, Arity: ArityCCount, Count: 2, Fields: []Field{{Name: "b", InType: 13}}},
		}},
		{Name: "ft", InType: 9, OutType: OutFileTime},
		{Name: "custom", InType: 1, Arity: ArityCustom, Schema: []byte{1, 2, 3}},
	}}
}

func TestMetadataRoundTrip(t *testing.T) {
	m := sampleMeta()
	b, err := EncodeEventMetadata(m)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseEventMetadata(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, m) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, m)
	}
}

func TestCompileAndDecode(t *testing.T) {
	s, err := Compile(sampleMeta(), "Prov", uuid.Nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range s.Properties {
		names = append(names, p.Name)
	}
	want := []string{"s", "n", "fixed", "var.Count", "var", "chars.Length", "chars", "bin.Length", "bin", "st", "ft", "custom.Length", "custom"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("properties %v, want %v", names, want)
	}
	if p := s.Properties[6]; p.InType != tdh.InTypeUnicodeString || p.LengthIndex != 5 {
		t.Errorf("vcount UInt16 shown as string: %+v", p)
	}
	if p := s.Properties[10]; p.InType != tdh.InTypeFileTime || p.OutType != tdh.OutTypeDateTime {
		t.Errorf("Int64 with FileTime out-type: %+v", p)
	}
	if p := s.Properties[1]; p.OutType != tdh.OutTypeHexInt32 {
		t.Errorf("UInt32 hex: %+v", p)
	}
	le := binary.LittleEndian
	var pl []byte
	pl = append(pl, 'h', 0, 'i', 0, 0, 0)
	pl = le.AppendUint32(pl, 0xAB)
	pl = append(pl, 1, 2, 3)
	pl = le.AppendUint16(pl, 2)
	pl = le.AppendUint64(pl, 7)
	pl = le.AppendUint64(pl, 8)
	pl = le.AppendUint16(pl, 2)
	pl = append(pl, 'o', 0, 'k', 0)
	pl = le.AppendUint16(pl, 16)
	pl = append(pl, make([]byte, 16)...)
	pl = append(pl, 0xFE)
	pl = le.AppendUint32(pl, 1)
	pl = le.AppendUint32(pl, 0)
	pl = le.AppendUint64(pl, 132247862638609634)
	pl = le.AppendUint16(pl, 2)
	pl = append(pl, 0xC0, 0xDE)
	var dec tdh.Decoder
	d, err := dec.Decode(s, pl, 8)
	if err != nil {
		t.Fatal(err)
	}
	top := d.Top()
	if top[0].String() != "hi" || top[6].String() != "ok" || len(top[8].Data) != 16 || !bytes.Equal(top[12].Data, []byte{0xC0, 0xDE}) || len(d.Extra) != 0 {
		t.Errorf("decoded %+v, extra %x", top, d.Extra)
	}
	if vs := d.Children(&top[4]); len(vs) != 2 {
		t.Errorf("var: %d elements", len(vs))
	} else if n, _ := vs[1].Uint(); n != 8 {
		t.Errorf("var[1] = %d", n)
	}
	st := d.Children(&top[9])
	if n, _ := st[0].Int(); n != -2 {
		t.Errorf("st.a = %d", n)
	}
	if inner := d.Children(&st[1]); len(inner) != 2 {
		t.Errorf("st.inner has %d elements", len(inner))
	}
}

func TestMetadataErrors(t *testing.T) {
	bad := []struct {
		name string
		b    []byte
	}{
		{"size beyond item", []byte{0xFF, 0x00, 0x00, 'e', 0}},
		{"unterminated name", []byte{0x05, 0x00, 0x00, 'e', 'v'}},
		{"struct without members", []byte{0x09, 0x00, 0x00, 'e', 0, 'f', 0, 0x98, 0x03}},
		{"missing out-type", []byte{0x07, 0x00, 0x00, 'e', 0, 'f', 0, 0x81}},
	}
	for _, c := range bad {
		if c.name != "size beyond item" {
			binary.LittleEndian.PutUint16(c.b, uint16(len(c.b)))
		}
		if _, err := ParseEventMetadata(c.b); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func FuzzParseEventMetadata(f *testing.F) {
	good, _ := EncodeEventMetadata(sampleMeta())
	f.Add(good)
	f.Add([]byte{0x2b, 0x00, 0x00, 'A', 0, 'E', 0, 0x01, 'R', 0, 0xc6, 0x02})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseEventMetadata(b)
		if err != nil {
			return
		}
		s, err := Compile(m, "p", uuid.Nil)
		if err != nil {
			return
		}
		var dec tdh.Decoder
		dec.Decode(s, b, 8) // any payload: must not panic
		if enc, err := EncodeEventMetadata(m); err == nil {
			back, err := ParseEventMetadata(enc)
			if err != nil || !reflect.DeepEqual(back, m) {
				t.Fatalf("re-encoding changed the metadata: %v", err)
			}
		}
	})
}
