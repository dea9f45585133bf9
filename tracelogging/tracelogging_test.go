package tracelogging

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etlcorpus"
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
		if back, err := p.tags(nil); err != nil || back != tags {
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

// meta builds a metadata blob from its parts, with the size word set.
func meta(parts ...any) []byte {
	b := []byte{0, 0}
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			b = append(append(b, p...), 0)
		case []byte:
			b = append(b, p...)
		case int:
			b = append(b, byte(p))
		}
	}
	binary.LittleEndian.PutUint16(b, uint16(len(b)))
	return b
}

func TestMetadataErrors(t *testing.T) {
	bad := []struct {
		name string
		b    []byte
		want string // in the message
	}{
		{"short", []byte{1}, "too short"},
		{"size beyond item", []byte{0xFF, 0x00, 0x00, 'e', 0}, "size 255 outside the 5-byte item"},
		{"unterminated event name", meta(0, []byte("ev")), `event name "ev" is not NUL-terminated`},
		{"tiny size", []byte{3, 0, 0}, "below the 4-byte minimum"},
		{"unterminated tags", meta(0x80, 0x80), "metadata ends before the end of the tags"},
		{"truncated field name", meta(0, "E", []byte("Scri")), `event "E": field "Scri": field name is not NUL-terminated`},
		{"no in-type", meta(0, "E", "Engine"), `field "Engine": metadata ends before the in-type`},
		{"missing out-type", meta(0, "e", "f", 0x81), `field "f": metadata ends before the out-type`},
		{"truncated field tags", meta(0, "e", "f", 0x81, 0x80), `field "f": metadata ends before the end of the tags`},
		{"truncated count", meta(0, "e", "arr", 0x28, 1), `field "arr": metadata ends before the array count`},
		{"truncated schema size", meta(0, "e", "c", 0x61), `field "c": metadata ends before the custom schema size`},
		{"schema past the blob", meta(0, "e", "c", 0x61, 9, 0, 1, 2), `field "c": custom schema of 9 bytes runs past`},
		{"struct without members", meta(0, "e", "f", 0x98, 0x00), `field "f": struct has no members`},
		{"struct count past the blob", meta(0, "e", "st", 0x98, 5, "a", 4, "b", 4), `field "st": struct declares 5 members but the metadata ends after 2`},
		{"nested count past the blob", meta(0, "e", "st", 0x98, 2, "a", 4, "in", 0x98, 3, "b", 4), `field "st.in": struct declares 3 members but the metadata ends after 1`},
		{"unknown in-type", meta(0, "e", "ok", 4, "bad", 27), `field "bad": unknown in-type 27`},
		{"pointer in-type", meta(0, "e", "p", 16), `field "p": unknown in-type 16`},
		{"null in-type", meta(0, "e", "n", 0), `field "n": unknown in-type 0`},
		{"unknown nested in-type", meta(0, "e", "st", 0x98, 1, "in", 0x98, 1, "x", 0x1F), `field "st.in.x": unknown in-type 31`},
	}
	for _, c := range bad {
		_, err := ParseEventMetadata(c.b)
		var me *MetadataError
		switch {
		case err == nil:
			t.Errorf("%s: no error", c.name)
		case !errors.As(err, &me) || !bytes.Equal(me.Meta, c.b):
			t.Errorf("%s: %T %v does not keep the blob", c.name, err, err)
		case !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: %q, want it to contain %q", c.name, err, c.want)
		}
	}
	// Compile errors name the field too.
	m, err := ParseEventMetadata(meta(0, "E", "st", 0x98, 1, "bins", 0x4E))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compile(m, "p", uuid.Nil); err == nil || !strings.Contains(err.Error(), `event "E": field "st.bins": arrays of TraceLogging binary`) {
		t.Errorf("binary array: %v", err)
	}
}

// TestMetadataTruncations cuts a valid blob at every length: each prefix
// parses or fails with an error naming a field of the blob, never panics.
func TestMetadataTruncations(t *testing.T) {
	good, err := EncodeEventMetadata(sampleMeta())
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	var walk func(fs []Field, path string)
	walk = func(fs []Field, path string) {
		for _, f := range fs {
			names[joinPath(path, f.Name)] = true
			walk(f.Fields, joinPath(path, f.Name))
		}
	}
	walk(sampleMeta().Fields, "")
	for n := 4; n < len(good); n++ {
		b := append([]byte{}, good[:n]...)
		binary.LittleEndian.PutUint16(b, uint16(n))
		_, err := ParseEventMetadata(b)
		if err == nil {
			continue // a field boundary
		}
		var me *MetadataError
		if !errors.As(err, &me) {
			t.Fatalf("%d bytes: %T %v", n, err, err)
		}
		if me.Field == "" && !strings.Contains(me.Msg, "event name") && !strings.Contains(me.Msg, "tags") {
			t.Errorf("%d bytes: no field named: %v", n, err)
		}
		if me.Field != "" && !names[me.Field] {
			// a name cut short is reported as far as it goes
			ok := false
			for full := range names {
				ok = ok || strings.HasPrefix(full, me.Field)
			}
			if !ok {
				t.Errorf("%d bytes: field %q is not in the blob: %v", n, me.Field, err)
			}
		}
	}
}

// TestCacheKeepsErrors checks that a corrupt blob gives the same error,
// with the raw bytes, for every event carrying it, without re-parsing.
func TestCacheKeepsErrors(t *testing.T) {
	blob := meta(0, "E", "st", 0x98, 5, "a", 4)
	ev := &etl.Event{Extended: []etl.ExtendedItem{{Type: etl.ExtEventSchemaTL, Data: blob}}}
	var c Cache
	_, ok, err1 := c.Schema(ev)
	_, _, err2 := c.Schema(ev)
	var me *MetadataError
	if !ok || err1 == nil || err1 != err2 || !errors.As(err1, &me) || !bytes.Equal(me.Meta, blob) || me.Field != "st" {
		t.Errorf("errors %v / %v, ok %v", err1, err2, ok)
	}
	blob[5] = 'X' // the event's buffer is reused: the error keeps its own copy
	if me.Meta[5] == 'X' {
		t.Errorf("the error's raw bytes alias the event's")
	}
	ev.Extended = append(ev.Extended, etl.ExtendedItem{Type: etl.ExtProvTraits, Data: []byte{9, 0, 'x'}})
	if _, _, err := c.Schema(ev); err == nil {
		t.Errorf("corrupt provider traits: no error")
	}
}

func FuzzParseEventMetadata(f *testing.F) {
	good, _ := EncodeEventMetadata(sampleMeta())
	f.Add(good)
	f.Add([]byte{0x2b, 0x00, 0x00, 'A', 0, 'E', 0, 0x01, 'R', 0, 0xc6, 0x02})
	if os.Getenv("ETL_CORPUS") != "" {
		seen := map[string]bool{}
		for _, p := range etlcorpus.Traces(f) {
			eachEvent(f, p, func(ev *etl.Event) {
				if m, _ := Items(ev); m != nil && !seen[string(m)] {
					seen[string(m)] = true
					f.Add(append([]byte{}, m...))
				}
			})
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseEventMetadata(b)
		if err != nil {
			var me *MetadataError
			if !errors.As(err, &me) {
				t.Fatalf("%T %v", err, err)
			}
			return
		}
		s, err := Compile(m, "p", uuid.Nil)
		if err != nil {
			return
		}
		var dec tdh.Decoder
		if d, err := dec.Decode(s, b, 8); err == nil {
			tdh.AppendPropertiesJSON(nil, d) // any payload: must not panic
		}
		if enc, err := EncodeEventMetadata(m); err == nil {
			back, err := ParseEventMetadata(enc)
			if err != nil || !reflect.DeepEqual(back, m) {
				t.Fatalf("re-encoding changed the metadata: %v", err)
			}
		} else {
			t.Fatalf("parsed metadata does not re-encode: %v", err)
		}
	})
}
