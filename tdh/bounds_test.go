package tdh

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// emptyStruct is a struct property with no members, repeated count times.
func emptyStruct(name string, count uint16) Property {
	return Property{Name: name, IsArray: true, Count: count, LengthIndex: -1, CountIndex: -1, Members: []Property{}}
}

// TestZeroSizeArrays: a layout whose repeated items take no payload bytes
// (the attack run's es_emptystruct: a counted struct with no members
// inside another) is rejected by Validate, and the decoder, given such a
// schema anyway, stops at the first element with a DecodeError instead of
// decoding up to 65,535 × 65,535 empty values.
func TestZeroSizeArrays(t *testing.T) {
	outer := emptyStruct("S", 65535)
	outer.Members = []Property{emptyStruct("T", 65535)}
	lenField := prop("Len", InTypeUInt8)
	blob := prop("Blob", InTypeBinary)
	blob.IsArray, blob.Count, blob.LengthIndex = true, 65535, 0
	nullArr := prop("Nulls", InTypeNull)
	nullArr.IsArray, nullArr.CountIndex = true, 0
	countField := prop("N", InTypeUInt16)
	nested := Property{Name: "Outer", IsArray: true, Count: 1000, LengthIndex: -1, CountIndex: -1, Members: []Property{
		{Name: "Inner", IsArray: true, Count: 1000, LengthIndex: -1, CountIndex: -1, Members: []Property{prop("Nothing", InTypeNull)}},
	}}
	for _, tc := range []struct {
		name     string
		schema   *Event
		payload  []byte
		validate string // "" if Validate accepts the schema (the size depends on the payload)
	}{
		{"empty struct in empty struct", &Event{Properties: []Property{outer}}, nil, "S.T"},
		{"nested arrays of null", &Event{Properties: []Property{nested}}, []byte{1, 2, 3}, "Outer.Inner"},
		{"null array counted by the payload", &Event{Properties: []Property{countField, nullArr}}, []byte{0xFF, 0xFF}, "Nulls"},
		{"binaries of length 0 from the payload", &Event{Properties: []Property{lenField, blob}}, []byte{0}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.schema)
			var se *SchemaError
			switch {
			case tc.validate == "" && err != nil:
				t.Errorf("Validate: %v", err)
			case tc.validate != "" && (!errors.As(err, &se) || se.Property != tc.validate):
				t.Errorf("Validate: %v, want an error on %s", err, tc.validate)
			}
			var dec Decoder
			start := time.Now()
			d, err := dec.Decode(tc.schema, tc.payload, 8)
			if el := time.Since(start); el > 100*time.Millisecond {
				t.Errorf("decoding took %v", el)
			}
			var de *DecodeError
			if !errors.As(err, &de) || !strings.Contains(de.Msg, "takes no payload bytes") {
				t.Fatalf("Decode: %v, want a DecodeError for the zero-size element", err)
			}
			if len(d.Values) > 16 {
				t.Errorf("%d values decoded", len(d.Values))
			}
			// What decoded renders without touching the elements left out.
			AppendPropertiesJSON(nil, d)
			for i := range d.Top() {
				AppendText(nil, d, &d.Values[i], nil)
			}
		})
	}
	// An array of one empty item, or of none, costs nothing and is
	// accepted.
	one := emptyStruct("One", 1)
	none := emptyStruct("None", 0)
	ok := &Event{Properties: []Property{countField, one, none}}
	if err := Validate(ok); err != nil {
		t.Errorf("Validate: %v", err)
	}
	var dec Decoder
	if _, err := dec.Decode(ok, []byte{0, 0}, 8); err != nil {
		t.Errorf("Decode: %v", err)
	}
}

// deepStruct nests n structs (each an array of one when arrays is set)
// around one UInt8.
func deepStruct(n int, arrays bool) Property {
	p := prop("Leaf", InTypeUInt8)
	for i := 0; i < n; i++ {
		p = Property{Name: "S", LengthIndex: -1, CountIndex: -1, Members: []Property{p}}
		if arrays {
			p.IsArray, p.Count = true, 1
		}
	}
	return p
}

// TestNestingDepth: values nest at most MaxDepth levels; Validate and the
// decoder reject deeper layouts, so that rendering (whose depth bound is
// the same) never leaves values out silently.
func TestNestingDepth(t *testing.T) {
	for _, tc := range []struct {
		n      int
		arrays bool
		ok     bool
	}{
		{MaxDepth, false, true},
		{MaxDepth + 1, false, false},
		{MaxDepth / 2, true, true},
		{MaxDepth/2 + 1, true, false},
		{16000, false, false},
	} {
		ev := &Event{Properties: []Property{deepStruct(tc.n, tc.arrays)}}
		if err := Validate(ev); (err == nil) != tc.ok {
			t.Errorf("depth %d arrays %v: Validate %v", tc.n, tc.arrays, err)
		}
		var dec Decoder
		d, err := dec.Decode(ev, []byte{7}, 8)
		if (err == nil) != tc.ok {
			t.Errorf("depth %d arrays %v: Decode %v", tc.n, tc.arrays, err)
		}
		if err != nil {
			continue
		}
		out, rerr := AppendPropertiesJSONErr(nil, d)
		if rerr != nil || !json.Valid(out) || !strings.Contains(string(out), `"Leaf":7`) {
			t.Errorf("depth %d arrays %v: %v %.100s", tc.n, tc.arrays, rerr, out)
		}
		if txt := AppendText(nil, d, &d.Values[0], nil); !strings.Contains(string(txt), "Leaf: 7") || strings.HasSuffix(string(txt), TruncatedMarker) {
			t.Errorf("depth %d arrays %v: text %.100s", tc.n, tc.arrays, txt)
		}
	}
	// A value tree deeper than MaxDepth built by hand renders as null in
	// JSON, and the error says so.
	ev := &Event{Properties: []Property{deepStruct(MaxDepth+3, false)}}
	d := handDecode(ev, MaxDepth+3)
	out, err := AppendPropertiesJSONErr(nil, d)
	var re *RenderError
	if !errors.As(err, &re) || !re.Deep || !json.Valid(out) || !strings.Contains(string(out), "null") {
		t.Errorf("deep JSON: %v %s", err, out)
	}
	if txt := AppendText(nil, d, &d.Values[0], nil); !strings.HasSuffix(string(txt), TruncatedMarker) {
		t.Errorf("deep text %s", txt)
	}
}

// handDecode lays out the value tree of deepStruct(n, false) with a 7 at
// the leaf, as the decoder would without its depth bound.
func handDecode(ev *Event, n int) *Decoded {
	d := &Decoded{Schema: ev, PointerSize: 8, Payload: []byte{7}, present: 1}
	p := &ev.Properties[0]
	d.Values = append(d.Values, Value{Prop: p, Kind: Struct, First: 1, N: 1})
	for i := 0; i < n; i++ {
		p = &p.Members[0]
		v := Value{Prop: p, Kind: Struct, First: int32(len(d.Values) + 1), N: 1}
		if i == n-1 {
			v = Value{Prop: p, Kind: Scalar, Data: []byte{7}}
		}
		d.Values = append(d.Values, v)
	}
	return d
}

// TestRenderBounds: one value's text, an event's JSON properties and a
// message are bounded, and say where they were cut.
func TestRenderBounds(t *testing.T) {
	// An array of 60,000 structs whose member name is 1,000 bytes: 60 MB of
	// text from a 60 KB payload.
	long := strings.Repeat("N", 1000)
	arr := Property{Name: "A", IsArray: true, Count: 60000, LengthIndex: -1, CountIndex: -1, Members: []Property{prop(long, InTypeUInt8)}}
	ev := &Event{Properties: []Property{arr, prop("After", InTypeUInt8)}, Message: strings.Repeat("%1", 1000)}
	var dec Decoder
	d, err := dec.Decode(ev, make([]byte, 60001), 8)
	if err != nil {
		t.Fatal(err)
	}
	txt := AppendText(nil, d, &d.Values[0], nil)
	if len(txt) > MaxTextBytes+64<<10 || !strings.HasSuffix(string(txt), TruncatedMarker) {
		t.Errorf("text: %d bytes, ends %q", len(txt), txt[len(txt)-20:])
	}
	js, err := AppendPropertiesJSONErr(nil, d)
	var re *RenderError
	if !errors.As(err, &re) || !re.Truncated || !json.Valid(js) || len(js) > MaxTextBytes+64<<10 {
		t.Errorf("JSON: %d bytes, valid %v, error %v", len(js), json.Valid(js), err)
	}
	msg := AppendMessage(nil, ev.Message, d, nil)
	if len(msg) > MaxMessageBytes+len(TruncatedMarker) || !strings.HasSuffix(string(msg), TruncatedMarker) || !utf8.Valid(msg) {
		t.Errorf("message: %d bytes, ends %q", len(msg), msg[max(0, len(msg)-20):])
	}
	// A message cut inside a multi-byte character stays valid UTF-8.
	ev2 := &Event{Properties: []Property{prop("S", InTypeUnicodeString)}}
	var p payload
	p.wstr(strings.Repeat("é", 40000))
	d, err = dec.Decode(ev2, p.Bytes(), 8)
	if err != nil {
		t.Fatal(err)
	}
	msg = AppendMessage(nil, "x%1", d, nil)
	if !utf8.Valid(msg) || !strings.HasSuffix(string(msg), TruncatedMarker) || len(msg) > MaxMessageBytes+len(TruncatedMarker) {
		t.Errorf("cut message: %d bytes, valid %v", len(msg), utf8.Valid(msg))
	}
	// Below the bounds nothing changes.
	p.Reset()
	p.wstr("é")
	d, err = dec.Decode(ev2, p.Bytes(), 8)
	if err != nil {
		t.Fatal(err)
	}
	if msg = AppendMessage(nil, "a %1 b", d, nil); string(msg) != "a é b" {
		t.Errorf("short message changed: %q", msg)
	}
}
