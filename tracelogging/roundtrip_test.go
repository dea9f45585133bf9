package tracelogging

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// The round-trip tests describe fields with a model (tv), build them with
// the encoder, decode them with ParseEventMetadata → Compile → tdh, and
// compare every decoded property with the model through the tdh.Value
// accessors and tdh.AppendJSON.

type kind uint8

const (
	kUnicode kind = iota
	kAnsi
	kCU16
	kCA8
	kChars16
	kChars8
	kI8
	kU8
	kI16
	kU16
	kI32
	kU32
	kI64
	kU64
	kF32
	kF64
	kB32
	kB8
	kBin
	kCBin
	kGUID
	kFT
	kST
	kSID
	kH32
	kH64
	kIPtr
	kUPtr
	kHPtr
	kPort
	kIPv4
	kIPv6
	kCustom
	kStruct
	numKinds
)

// Arrays.
const (
	scalarField = iota
	varArray
	fixedArray
)

type tv struct {
	k       kind
	name    string
	s       string
	b       []byte
	n       uint64 // integer and float bits
	t       time.Time
	g       uuid.UUID
	ptr     int    // kIPtr, kUPtr, kHPtr: 4 or 8
	proto   uint8  // kCustom
	out     uint8  // out-type option (plain kinds only)
	tags    uint32 // tags option
	members []tv   // kStruct
	arr     int
	elems   []tv // arrays: the elements (no arr, no name)
}

// plainOut reports whether the kind takes a free out-type option.
func plainOut(k kind) bool {
	switch k {
	case kChars16, kChars8, kB8, kPort, kIPv4, kIPv6, kCustom, kStruct:
		return false
	}
	return true
}

func (m *tv) opts() []Option {
	var o []Option
	if m.out != 0 && plainOut(m.k) {
		o = append(o, WithOut(m.out))
	}
	if m.tags != 0 {
		o = append(o, WithTags(m.tags))
	}
	return o
}

// build makes the FieldValue of a model field.
func build(m tv) FieldValue {
	if m.arr != scalarField {
		elem := func(name string, e tv, _ ...Option) FieldValue {
			if reflect.ValueOf(e).IsZero() { // the shape of an empty array
				e = tv{k: m.k, ptr: 8}
			}
			e.name, e.out, e.tags = name, m.out, 0
			return build(e)
		}
		o := []Option{}
		if m.tags != 0 {
			o = append(o, WithTags(m.tags))
		}
		if m.arr == varArray {
			return Array(m.name, m.elems, elem, o...)
		}
		return FixedArray(m.name, m.elems, elem, o...)
	}
	o := m.opts()
	switch m.k {
	case kUnicode:
		return UnicodeString(m.name, m.s, o...)
	case kAnsi:
		return AnsiString(m.name, m.s, o...)
	case kCU16:
		return CountedUnicodeString(m.name, m.s, o...)
	case kCA8:
		return CountedAnsiString(m.name, m.s, o...)
	case kChars16:
		return Char16Array(m.name, m.s, o...)
	case kChars8:
		return Char8Array(m.name, m.s, o...)
	case kI8:
		return Int8(m.name, int8(m.n), o...)
	case kU8:
		return Uint8(m.name, uint8(m.n), o...)
	case kI16:
		return Int16(m.name, int16(m.n), o...)
	case kU16:
		return Uint16(m.name, uint16(m.n), o...)
	case kI32:
		return Int32(m.name, int32(m.n), o...)
	case kU32:
		return Uint32(m.name, uint32(m.n), o...)
	case kI64:
		return Int64(m.name, int64(m.n), o...)
	case kU64:
		return Uint64(m.name, m.n, o...)
	case kF32:
		return Float32(m.name, math.Float32frombits(uint32(m.n)), o...)
	case kF64:
		return Float64(m.name, math.Float64frombits(m.n), o...)
	case kB32:
		return Bool32(m.name, m.n != 0, o...)
	case kB8:
		return Bool8(m.name, m.n != 0, o...)
	case kBin:
		return Binary(m.name, m.b, o...)
	case kCBin:
		return CountedBinary(m.name, m.b, o...)
	case kGUID:
		return GUID(m.name, m.g, o...)
	case kFT:
		return FileTime(m.name, m.t, o...)
	case kST:
		return SystemTime(m.name, m.t, o...)
	case kSID:
		return SID(m.name, m.b, o...)
	case kH32:
		return HexInt32(m.name, uint32(m.n), o...)
	case kH64:
		return HexInt64(m.name, m.n, o...)
	case kIPtr:
		return IntPtr(m.name, int64(m.n), m.ptr, o...)
	case kUPtr:
		return UintPtr(m.name, m.n, m.ptr, o...)
	case kHPtr:
		return HexIntPtr(m.name, m.n, m.ptr, o...)
	case kPort:
		return Port(m.name, uint16(m.n), o...)
	case kIPv4, kIPv6:
		a, _ := netip.AddrFromSlice(m.b)
		return IPAddr(m.name, a, o...)
	case kCustom:
		return Custom(m.name, m.proto, []byte("schema"), m.b, o...)
	case kStruct:
		fs := make([]FieldValue, len(m.members))
		for i, x := range m.members {
			fs[i] = build(x)
		}
		return Struct(m.name, fs, o...)
	}
	panic("kind")
}

// intSize returns the byte size of integer kinds (0 for others).
func intSize(m *tv) int {
	switch m.k {
	case kI8, kU8, kB8:
		return 1
	case kI16, kU16, kPort:
		return 2
	case kI32, kU32, kB32, kH32, kF32:
		return 4
	case kI64, kU64, kH64, kF64:
		return 8
	case kIPtr, kUPtr, kHPtr:
		return m.ptr
	}
	return 0
}

func signed(k kind) bool { return k == kI8 || k == kI16 || k == kI32 || k == kI64 || k == kIPtr }

// hasSynth reports whether the compiled schema puts a hidden length or
// count property in front of the field.
func hasSynth(m *tv) bool {
	return m.arr == varArray || m.k == kBin || m.k == kIPv6 || m.k == kCustom || m.k == kChars16 || m.k == kChars8
}

// charString reports whether a var array compiles to one string.
func charString(m *tv) bool {
	return m.arr == varArray && m.out == OutString && (m.k == kU8 || m.k == kI8 || m.k == kU16)
}

func utf16Bytes(s string) []byte { return appendUTF16(nil, s) }

// upToNUL returns the text a renderer shows of s: up to the first NUL.
func upToNUL(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

type checker struct {
	t testing.TB
	d *tdh.Decoded
}

func (c *checker) errorf(path, format string, args ...any) {
	c.t.Helper()
	c.t.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
}

// level compares the values of one level (top, struct members) with the
// model fields.
func (c *checker) level(vals []tdh.Value, fields []tv, path string) {
	i := 0
	for k := range fields {
		f := &fields[k]
		p := joinPath(path, f.name)
		if hasSynth(f) {
			if i >= len(vals) || tdh.Printable(vals[i].Prop) {
				c.errorf(p, "no hidden length/count property in front")
				return
			}
			i++
		}
		if i >= len(vals) {
			c.errorf(p, "missing: %d values for %d fields", len(vals), len(fields))
			return
		}
		c.field(&vals[i], f, p)
		i++
	}
	if i != len(vals) {
		c.errorf(path, "%d values for %d fields", len(vals), i)
	}
}

func (c *checker) field(v *tdh.Value, f *tv, path string) {
	if v.Prop == nil {
		c.errorf(path, "not decoded")
		return
	}
	if v.Prop.Name != f.name {
		c.errorf(path, "property name %q", v.Prop.Name)
	}
	if v.Prop.Tags != f.tags {
		c.errorf(path, "tags %#x, want %#x", v.Prop.Tags, f.tags)
	}
	if f.arr != scalarField {
		if charString(f) {
			var want []byte
			for i := range f.elems {
				want = append(want, build(f.elems[i]).data...)
			}
			if v.Kind != tdh.Scalar || !bytes.Equal(v.Data, want) {
				c.errorf(path, "char array: kind %v data % x, want % x", v.Kind, v.Data, want)
			}
			return
		}
		if v.Kind != tdh.Array || int(v.N) != len(f.elems) {
			c.errorf(path, "kind %v with %d elements, want an array of %d", v.Kind, v.N, len(f.elems))
			return
		}
		kids := c.d.Children(v)
		for i := range f.elems {
			e := f.elems[i]
			e.name, e.out, e.tags = f.name, f.out, f.tags
			c.value(&kids[i], &e, fmt.Sprintf("%s[%d]", path, i))
		}
		return
	}
	c.value(v, f, path)
}

// value compares one scalar or struct value (an array element or a
// scalar field).
func (c *checker) value(v *tdh.Value, f *tv, path string) {
	if f.k == kStruct {
		if v.Kind != tdh.Struct {
			c.errorf(path, "kind %v, want a struct", v.Kind)
			return
		}
		c.level(c.d.Children(v), f.members, path)
		return
	}
	if v.Kind != tdh.Scalar {
		c.errorf(path, "kind %v, want a scalar", v.Kind)
		return
	}
	le := binary.LittleEndian
	wantData := func(want []byte) {
		if !bytes.Equal(v.Data, want) {
			c.errorf(path, "data % x, want % x", v.Data, want)
		}
	}
	if n := intSize(f); n > 0 {
		var raw uint64
		switch len(v.Data) {
		case 1:
			raw = uint64(v.Data[0])
		case 2:
			raw = uint64(le.Uint16(v.Data))
			if f.k == kPort {
				raw = uint64(binary.BigEndian.Uint16(v.Data))
			}
		case 4:
			raw = uint64(le.Uint32(v.Data))
		case 8:
			raw = le.Uint64(v.Data)
		}
		want := f.n
		if f.k == kB32 || f.k == kB8 {
			want = 0
			if f.n != 0 {
				want = 1
			}
		}
		if n < 8 {
			want &= 1<<(8*n) - 1
		}
		if len(v.Data) != n || raw != want {
			c.errorf(path, "%d bytes % x, want %d bytes of %#x", len(v.Data), v.Data, n, want)
			return
		}
		// The accessors agree with the bytes for the decoded in-type.
		if v.Prop.InType.IsInteger() && f.k != kPort {
			if u, ok := v.Uint(); !ok || u != raw {
				c.errorf(path, "Uint() = %#x, %v; want %#x", u, ok, raw)
			}
			if signed(f.k) && v.Prop.InType.IsSigned() {
				w := int64(want<<(64-8*n)) >> (64 - 8*n)
				if i, ok := v.Int(); !ok || i != w {
					c.errorf(path, "Int() = %d, %v; want %d", i, ok, w)
				}
			}
		}
		if f.k == kF32 || f.k == kF64 {
			got, ok := v.Float()
			w := math.Float64frombits(f.n)
			if f.k == kF32 {
				w = float64(math.Float32frombits(uint32(f.n)))
			}
			if !ok || got != w && !(math.IsNaN(got) && math.IsNaN(w)) {
				c.errorf(path, "Float() = %v, %v; want %v", got, ok, w)
			}
		}
		return
	}
	switch f.k {
	case kUnicode, kCU16, kChars16:
		wantData(utf16Bytes(f.s))
		if got, want := v.String(), upToNUL(string([]rune(f.s))); got != want {
			c.errorf(path, "String() = %q, want %q", got, want)
		}
	case kAnsi, kCA8, kChars8:
		wantData([]byte(f.s))
		if s := upToNUL(f.s); utf8.ValidString(s) && v.String() != s {
			c.errorf(path, "String() = %q, want %q", v.String(), s)
		}
	case kBin, kCBin, kCustom, kSID, kIPv4, kIPv6:
		wantData(f.b)
	case kGUID:
		if g, ok := v.GUID(); !ok || g != f.g {
			c.errorf(path, "GUID() = %v, %v; want %v", g, ok, f.g)
		}
	case kFT:
		ft, _ := ToFileTime(f.t)
		wantData(le.AppendUint64(nil, ft))
	case kST:
		wantData(build(*f).data)
		if len(v.Data) == 16 {
			if y := le.Uint16(v.Data); int(y) != f.t.Year() {
				c.errorf(path, "year %d", y)
			}
		}
	default:
		c.errorf(path, "kind %d not checked", f.k)
	}
}

// wantJSON returns the JSON value (as encoding/json with UseNumber reads
// it) that tdh.AppendJSON should give for a field, or ok false where the
// out-type makes the text something this test does not model.
func wantJSON(f *tv) (any, bool) {
	if f.arr != scalarField {
		if f.out == OutString && (f.k == kU8 || f.k == kI8 || f.k == kU16) {
			return nil, false // rendered as one string
		}
		out := []any{}
		for i := range f.elems {
			e := f.elems[i]
			e.out = f.out
			j, ok := wantJSON(&e)
			if !ok {
				return nil, false
			}
			out = append(out, j)
		}
		return out, true
	}
	if f.out != 0 && plainOut(f.k) {
		return nil, false
	}
	num := func(n int64, neg bool, mag uint64) any {
		if mag > 1<<53 {
			if neg {
				return strconv.FormatInt(n, 10)
			}
			return strconv.FormatUint(mag, 10)
		}
		if neg {
			return json.Number(strconv.FormatInt(n, 10))
		}
		return json.Number(strconv.FormatUint(mag, 10))
	}
	sz := intSize(f)
	switch f.k {
	case kUnicode, kCU16, kChars16:
		return upToNUL(string([]rune(f.s))), true
	case kAnsi, kCA8, kChars8:
		s := upToNUL(f.s)
		if !utf8.ValidString(s) {
			return nil, false
		}
		return s, true
	case kI8, kI16, kI32, kI64, kIPtr:
		n := int64(f.n<<(64-8*sz)) >> (64 - 8*sz)
		mag := uint64(n)
		if n < 0 {
			mag = -mag
		}
		return num(n, n < 0, mag), true
	case kU8, kU16, kU32, kU64, kUPtr, kPort:
		mag := f.n
		if sz < 8 {
			mag &= 1<<(8*sz) - 1
		}
		return num(0, false, mag), true
	case kH32, kH64, kHPtr:
		mag := f.n
		if sz < 8 {
			mag &= 1<<(8*sz) - 1
		}
		return "0x" + strings.ToUpper(strconv.FormatUint(mag, 16)), true
	case kF32, kF64:
		x := math.Float64frombits(f.n)
		bits := 64
		if f.k == kF32 {
			x, bits = float64(math.Float32frombits(uint32(f.n))), 32
		}
		switch {
		case math.IsNaN(x):
			return nil, false // sign of NaN: "nan" or "-nan"
		case math.IsInf(x, 1):
			return "inf", true
		case math.IsInf(x, -1):
			return "-inf", true
		}
		return json.Number(strconv.FormatFloat(x, 'g', -1, bits)), true
	case kB32, kB8:
		return f.n != 0, true
	case kBin, kCBin, kCustom:
		return strings.ToUpper(fmt.Sprintf("%x", f.b)), true
	case kGUID:
		return "{" + f.g.String() + "}", true
	case kFT:
		if f.t.IsZero() {
			return "1601-01-01T00:00:00.0000000Z", true
		}
		return f.t.UTC().Format("2006-01-02T15:04:05.0000000Z"), true
	case kST:
		return f.t.Format("2006-01-02T15:04:05.000Z"), true
	case kSID:
		s, _, err := etl.ParseSID(f.b)
		if err != nil || s.Authority >= 1<<32 {
			return nil, false
		}
		return s.String(), true
	case kIPv4, kIPv6:
		a, _ := netip.AddrFromSlice(f.b)
		if a.Is4In6() || f.k == kIPv6 && a.Unmap().Is4() {
			return nil, false // mixed forms ("::ffff:1.2.3.4")
		}
		return a.String(), true
	case kStruct:
		obj := map[string]any{}
		for i := range f.members {
			if f.members[i].out == OutNoPrint && plainOut(f.members[i].k) {
				continue // left out of struct objects
			}
			j, ok := wantJSON(&f.members[i])
			if !ok {
				return nil, false
			}
			key := string([]rune(f.members[i].name)) // invalid UTF-8 → U+FFFD
			if _, dup := obj[key]; dup {
				return nil, false
			}
			obj[key] = j
		}
		return obj, true
	}
	return nil, false
}

// roundTrip encodes fields, decodes them and compares. It returns the
// decoded event for further checks.
func roundTrip(t testing.TB, fields []tv) *tdh.Decoded {
	t.Helper()
	ev := Event{Name: "RoundTrip", Tags: 0x0123456, Fields: make([]FieldValue, len(fields))}
	for i := range fields {
		ev.Fields[i] = build(fields[i])
	}
	meta, payload, err := ev.Encode()
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	m, err := ParseEventMetadata(meta)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if m.Name != ev.Name || m.Tags != ev.Tags {
		t.Errorf("event %q tags %#x", m.Name, m.Tags)
	}
	s, err := Compile(m, "Prov", ProviderGUID("Prov"))
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	var dec tdh.Decoder
	d, err := dec.Decode(s, payload, 8)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if len(d.Extra) != 0 {
		t.Errorf("%d bytes left after the last property", len(d.Extra))
	}
	c := &checker{t: t, d: d}
	c.level(d.Top(), fields, "")
	// AppendJSON of every printable top-level value, and the whole object.
	top := d.Top()
	i := 0
	for k := range fields {
		f := &fields[k]
		if hasSynth(f) {
			i++
		}
		v := &top[i]
		i++
		js := tdh.AppendJSON(nil, d, v)
		if !json.Valid(js) {
			t.Errorf("%s: AppendJSON gives invalid JSON %s", f.name, js)
			continue
		}
		want, ok := wantJSON(f)
		if !ok {
			continue
		}
		dj := json.NewDecoder(bytes.NewReader(js))
		dj.UseNumber()
		var got any
		if err := dj.Decode(&got); err != nil {
			t.Errorf("%s: %v", f.name, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: AppendJSON = %s, want %#v", f.name, js, want)
		}
	}
	if all := tdh.AppendPropertiesJSON(nil, d); !json.Valid(all) {
		t.Errorf("AppendPropertiesJSON gives invalid JSON %s", all)
	}
	return d
}

// everyType is a model field of each kind, each array form and nested
// structs.
func everyType() []tv {
	pt := func(x, y int32) tv {
		return tv{k: kStruct, members: []tv{{k: kI32, name: "x", n: uint64(x)}, {k: kI32, name: "y", n: uint64(y)}}}
	}
	return []tv{
		{k: kUnicode, name: "u16", s: "héllo 😀"},
		{k: kAnsi, name: "a8", s: "plain"},
		{k: kCU16, name: "cu16", s: "counted"},
		{k: kCA8, name: "ca8", s: "c8"},
		{k: kChars16, name: "chars16", s: "Raw"},
		{k: kChars8, name: "chars8", s: "raw8"},
		{k: kI8, name: "i8", n: uint64(0xF8)},
		{k: kU8, name: "u8", n: 200},
		{k: kI16, name: "i16", n: uint64(0xF9C0)},
		{k: kU16, name: "u16n", n: 60000},
		{k: kI32, name: "i32", n: uint64(0xFFFFFFE0)},
		{k: kU32, name: "u32", n: 4000000000},
		{k: kI64, name: "i64", n: 1 << 63},
		{k: kU64, name: "u64", n: math.MaxUint64},
		{k: kF32, name: "f32", n: uint64(math.Float32bits(1.5))},
		{k: kF64, name: "f64", n: math.Float64bits(1e-7)},
		{k: kB32, name: "b32", n: 1},
		{k: kB8, name: "b8"},
		{k: kBin, name: "bin", b: []byte{1, 2, 0xAB}},
		{k: kCBin, name: "cbin", b: []byte{0xCD}},
		{k: kGUID, name: "g", g: uuid.MustParse("b16a7b93-dd65-561c-90f3-eeae62570a8b")},
		{k: kFT, name: "ft", t: time.Date(2020, 1, 29, 15, 44, 32, 795924300, time.UTC)},
		{k: kST, name: "st", t: time.Date(2021, 9, 9, 14, 59, 35, 799000000, time.UTC)},
		{k: kSID, name: "sid", b: []byte{1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0}},
		{k: kH32, name: "h32", n: 0xBEEF},
		{k: kH64, name: "h64", n: 0xDEADBEEF00},
		{k: kIPtr, name: "ip", n: ^uint64(4), ptr: 4},
		{k: kUPtr, name: "up", n: 5, ptr: 8},
		{k: kHPtr, name: "hp", n: 0x7FF0, ptr: 8},
		{k: kPort, name: "port", n: 443},
		{k: kIPv4, name: "v4", b: []byte{192, 168, 1, 2}},
		{k: kIPv6, name: "v6", b: netip.MustParseAddr("fe80::1").AsSlice()},
		{k: kU32, name: "pid", n: 1234, out: OutPID},
		{k: kU32, name: "hex", n: 255, out: OutHex},
		{k: kI32, name: "hr", n: 0x80070005, out: OutHResult},
		{k: kU32, name: "w32", n: 5, out: OutWin32Error},
		{k: kU32, name: "nt", n: 0xC0000034, out: OutNTStatus},
		{k: kU64, name: "ft64", n: 132247862727959243, out: OutFileTime},
		{k: kU32, name: "sgn", n: 0xFFFFFFFF, out: OutSigned},
		{k: kI16, name: "uns", n: 0xFFFF, out: OutUnsigned},
		{k: kI8, name: "chr", n: 'A', out: OutString},
		{k: kU16, name: "wchr", n: 'é', out: OutString},
		{k: kU8, name: "bool8", n: 2, out: OutBoolean},
		{k: kAnsi, name: "json", s: `{"a":1}`, out: OutJSON},
		{k: kUnicode, name: "xml", s: "<a/>", out: OutXML},
		{k: kAnsi, name: "utf8", s: "ü", out: OutUTF8},
		{k: kU64, name: "cp", n: 0x7FF612340000, out: OutCodePointer},
		{k: kU32, name: "ipv4", n: 0x0100007F, out: OutIPv4},
		{k: kU16, name: "port2", n: 0x5000, out: OutPort},
		{k: kCBin, name: "sa", b: []byte{2, 0, 0, 80, 10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}, out: OutSocketAddress},
		{k: kU32, name: "nop", n: 9, out: OutNoPrint},
		{k: kU32, name: "arr", arr: varArray, tags: 7, elems: []tv{{k: kU32, n: 1}, {k: kU32, n: 2}, {k: kU32, n: 3}}},
		{k: kI16, name: "fix", arr: fixedArray, elems: []tv{{k: kI16, n: 0xFFFF}, {k: kI16, n: 1}}},
		{k: kUnicode, name: "strs", arr: varArray, elems: []tv{{k: kUnicode, s: "a"}, {k: kUnicode, s: "bc"}}},
		{k: kAnsi, name: "empty", arr: varArray, elems: []tv{}},
		{k: kU16, name: "wchars", arr: varArray, out: OutString, elems: []tv{{k: kU16, n: 'h'}, {k: kU16, n: 'i'}}},
		{k: kU8, name: "cchars", arr: fixedArray, out: OutString, elems: []tv{{k: kU8, n: 'o'}, {k: kU8, n: 'k'}, {k: kU8}}},
		{k: kStruct, name: "pts", arr: varArray, elems: []tv{pt(1, 2), pt(3, 4)}},
		{k: kStruct, name: "s", tags: 3, members: []tv{
			{k: kAnsi, name: "name", s: "n"},
			{k: kStruct, name: "inner", arr: fixedArray, elems: []tv{pt(5, 6)}},
			{k: kBin, name: "blob", b: []byte{7}},
			{k: kChars16, name: "text", s: "deep"},
		}},
		{k: kCustom, name: "custom", proto: 2, b: []byte{0xEE, 0xFF}},
	}
}

func TestEncodeEveryType(t *testing.T) {
	d := roundTrip(t, everyType())
	want := `{"u16":"héllo 😀","a8":"plain","cu16":"counted","ca8":"c8","chars16":"Raw","chars8":"raw8","i8":-8,"u8":200,` +
		`"i16":-1600,"u16n":60000,"i32":-32,"u32":4000000000,"i64":"-9223372036854775808","u64":"18446744073709551615",` +
		`"f32":1.5,"f64":1e-07,"b32":true,"b8":false,"bin":"0102AB","cbin":"CD","g":"{b16a7b93-dd65-561c-90f3-eeae62570a8b}",` +
		`"ft":"2020-01-29T15:44:32.7959243Z","st":"2021-09-09T14:59:35.799Z","sid":"S-1-5-18","h32":"0xBEEF",` +
		`"h64":"0xDEADBEEF00","ip":-5,"up":5,"hp":"0x7FF0","port":443,"v4":"192.168.1.2","v6":"fe80::1","pid":1234,` +
		`"hex":"0xFF","hr":"Access is denied.","w32":"Access is denied.",` +
		`"nt":"Object Name not found.","ft64":"2020-01-29T15:44:32.7959243Z","sgn":-1,"uns":65535,"chr":"A","wchr":"é",` +
		`"bool8":true,"json":"{\"a\":1}","xml":"<a/>","utf8":"ü","cp":"0x7FF612340000","ipv4":"127.0.0.1","port2":80,` +
		`"sa":"10.0.0.1:80","arr":[1,2,3],"fix":[-1,1],"strs":["a","bc"],"empty":[],"wchars":"hi","cchars":"ok",` +
		`"pts":[{"x":1,"y":2},{"x":3,"y":4}],"s":{"name":"n","inner":[{"x":5,"y":6}],"blob":"07","text":"deep"},"custom":"EEFF"}`
	if got := string(tdh.AppendPropertiesJSON(nil, d)); got != want {
		t.Errorf("AppendPropertiesJSON:\n got %s\nwant %s", got, want)
	}
	// tracerpt-style text of a few values.
	text := map[string]string{}
	for i := range d.Top() {
		v := &d.Top()[i]
		if tdh.Printable(v.Prop) {
			text[v.Prop.Name] = string(tdh.AppendText(nil, d, v, nil))
		}
	}
	for name, w := range map[string]string{
		"bin": "0x0102AB", "ft": "2020-01-29T15:44:32.795924300Z", "st": "2021-09-09T14:59:35.799000000Z",
		"h32": "0xBEEF", "b32": "true", "arr": "[1, 2, 3]", "pts": "[{x: 1, y: 2}, {x: 3, y: 4}]", "chars16": "Raw",
	} {
		if text[name] != w {
			t.Errorf("AppendText(%s) = %q, want %q", name, text[name], w)
		}
	}
	if _, ok := text["nop"]; ok {
		t.Errorf("NoPrint field is printable")
	}
}

// fuzzReader hands out the fuzz input piece by piece (zeros once it runs
// out).
type fuzzReader struct{ b []byte }

func (r *fuzzReader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *fuzzReader) uint64() uint64 {
	var n uint64
	for range 8 {
		n = n<<8 | uint64(r.byte())
	}
	return n
}

func (r *fuzzReader) bytes(max int) []byte {
	n := int(r.byte()) % (max + 1)
	n = min(n, len(r.b))
	b := append([]byte{}, r.b[:n]...)
	r.b = r.b[n:]
	return b
}

func (r *fuzzReader) str(noNUL bool) string {
	b := r.bytes(24)
	if noNUL {
		b = bytes.ReplaceAll(b, []byte{0}, []byte{'0'})
	}
	return string(b)
}

// field returns a random model field; depth limits struct nesting.
func (r *fuzzReader) field(depth int) tv {
	c := r.byte()
	f := r.value(kind(c%byte(numKinds)), depth)
	f.name = r.str(true)
	if c&0x40 != 0 {
		f.out = r.byte() % 40
	}
	if r.byte()&3 == 0 {
		f.tags = uint32(r.uint64()) & maxTags
	}
	if c&0x80 != 0 && f.k != kBin && f.k != kIPv6 && f.k != kCustom && f.k != kChars16 && f.k != kChars8 {
		f.arr = varArray
		if r.byte()&1 != 0 {
			f.arr = fixedArray
		}
		n := int(r.byte() % 5)
		for range n {
			e := r.value(f.k, depth)
			if f.k == kStruct && len(f.elems) > 0 {
				e = r.like(f.elems[0])
			}
			if len(f.elems) > 0 {
				fitPtr(&e, f.elems[0].ptr) // one pointer size per array
			}
			f.elems = append(f.elems, e)
		}
		if f.k == kStruct && n == 0 {
			f.k = kU32 // an empty struct array would need a shape
		}
		if f.k == kStruct {
			f.out = 0
		}
		if len(f.elems) == 0 {
			f.elems = []tv{}
		}
	}
	return f
}

// like returns a struct value of the same shape as s with new values.
func (r *fuzzReader) like(s tv) tv {
	out := s
	out.members = make([]tv, len(s.members))
	for i, m := range s.members {
		if m.arr != scalarField {
			m.elems = append([]tv{}, m.elems...) // same count for fixed arrays
			for k := range m.elems {
				if m.k == kStruct {
					m.elems[k] = r.like(m.elems[k])
				} else {
					e := r.value(m.k, 0)
					fitPtr(&e, m.elems[k].ptr)
					m.elems[k] = e
				}
			}
		} else if m.k == kStruct {
			m = r.like(m)
		} else {
			nm := r.value(m.k, 0)
			nm.name, nm.out, nm.tags, nm.proto = m.name, m.out, m.tags, m.proto
			fitPtr(&nm, m.ptr)
			m = nm
		}
		out.members[i] = m
	}
	return out
}

// fitPtr gives a pointer-sized value the pointer size ptr, truncating it
// to fit.
func fitPtr(e *tv, ptr int) {
	if e.ptr == ptr {
		return
	}
	e.ptr = ptr
	switch {
	case ptr == 4 && e.k == kIPtr:
		e.n = uint64(int64(int32(e.n)))
	case ptr == 4:
		e.n = uint64(uint32(e.n))
	}
}

// value returns a random value of kind k (no name, no array).
func (r *fuzzReader) value(k kind, depth int) tv {
	f := tv{k: k}
	switch k {
	case kUnicode, kAnsi:
		f.s = r.str(true)
	case kCU16, kCA8, kChars16, kChars8:
		f.s = r.str(false)
	case kBin, kCBin, kCustom:
		f.b = r.bytes(40)
		f.proto = r.byte() & 0x1F
	case kGUID:
		copy(f.g[:], r.bytes(16))
	case kFT:
		ft := r.uint64() >> 2
		if ft != 0 {
			f.t = time.Unix(int64(ft/10_000_000)-filetimeUnixDifference, int64(ft%10_000_000)*100).UTC()
		}
	case kST:
		f.t = time.Date(1601+int(r.byte())*30, time.Month(r.byte()%12+1), int(r.byte()%28+1),
			int(r.byte()%24), int(r.byte()%60), int(r.byte()%60), int(r.byte())*1e6, time.UTC)
	case kSID:
		n := int(r.byte() % 6)
		f.b = []byte{1, byte(n), 0, 0, 0, 0, 0, r.byte()}
		for range n {
			f.b = binary.LittleEndian.AppendUint32(f.b, uint32(r.uint64()))
		}
	case kIPv4:
		f.b = append([]byte{}, r.bytes(4)...)
		f.b = append(f.b, make([]byte, 4-len(f.b))...)
	case kIPv6:
		f.b = append([]byte{}, r.bytes(16)...)
		f.b = append(f.b, make([]byte, 16-len(f.b))...)
	case kIPtr, kUPtr, kHPtr:
		f.ptr = 8
		if r.byte()&1 != 0 {
			f.ptr = 4
			f.n = uint64(uint32(r.uint64()))
			if k == kIPtr {
				f.n = uint64(int64(int32(f.n)))
			}
		} else {
			f.n = r.uint64()
		}
	case kStruct:
		n := int(r.byte()%4) + 1
		if depth <= 0 {
			f.k = kI32
			f.n = r.uint64()
			return f
		}
		for range n {
			f.members = append(f.members, r.field(depth-1))
		}
	default:
		f.n = r.uint64()
	}
	return f
}

// FuzzEncodeRoundTrip builds a random list of fields (every kind, arrays,
// nested structs, out-types and tags) from the input and checks that
// encode → parse → compile → decode gives back every value.
func FuzzEncodeRoundTrip(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x00\x05hello\x00\x01\x07\x41\x80\x02abcdefgh\x21\x01xyz\x02\x03"))
	f.Add(bytes.Repeat([]byte{0xA1, 3, 'a', 'b', 'c', 0x40, 2, 1, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 6))
	f.Add(bytes.Repeat([]byte{byte(kStruct) | 0x80, 2, 's', 't', 0, 3, 2, byte(kU16), 1, 'x', 1, 0, 0, 0}, 4))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := &fuzzReader{b: b}
		n := int(r.byte() % 12)
		var fields []tv
		for range n {
			fields = append(fields, r.field(3))
		}
		roundTrip(t, fields)
	})
}

func TestEncodeErrors(t *testing.T) {
	big := make([]byte, 70000)
	cases := []struct {
		f    FieldValue
		want string // in the error message
	}{
		{UnicodeString("nul", "a\x00b"), `field "nul": string contains a NUL`},
		{Binary("big", big), `field "big"`},
		{CountedAnsiString("bigs", string(big)), `field "bigs"`},
		{SID("sid", []byte{1, 2, 0, 0, 0, 0, 0, 5}), `field "sid"`},
		{IntPtr("p", 1<<40, 4), `field "p"`},
		{UintPtr("p", 1, 2), `field "p"`},
		{FileTime("old", time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC)), `field "old"`},
		{SystemTime("st", time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC)), `field "st"`},
		{Struct("empty", nil), `field "empty": struct has 0 members`},
		{Struct("outer", []FieldValue{Struct("inner", []FieldValue{AnsiString("bad", "\x00")})}), `field "outer.inner.bad"`},
		{Struct("s", []FieldValue{Uint8("x", 1)}, WithOut(OutHex)), `field "s": a struct takes no out-type`},
		{Array("bins", [][]byte{{1}}, Binary), `field "bins": TraceLogging binary`},
		{Array("nested", [][]uint8{{1}}, func(n string, v []uint8, _ ...Option) FieldValue { return Array(n, v, Uint8) }), `field "nested": array elements must be scalars`},
		{Array("mixed", []bool{false, true}, func(n string, v bool, _ ...Option) FieldValue {
			if v {
				return Uint16(n, 1)
			}
			return Uint8(n, 1)
		}), `field "mixed[1]": element metadata differs`},
		{Array("strs", []string{"ok", "n\x00"}, AnsiString), `field "strs[1]": string contains a NUL`},
		{Uint8("tags", 1, WithTags(1<<28)), `field "tags": tags`},
		{Uint8("out", 1, WithOut(200)), `field "out": out-type 200`},
		{Custom("c", 40, nil, nil), `field "c": custom protocol`},
		{FieldValue{}, `field "": unknown in-type 0`},
		{IPAddr("ip", netip.Addr{}), `field "ip": invalid IP address`},
	}
	for _, c := range cases {
		ev := Event{Name: "E", Fields: []FieldValue{Uint8("ok", 1), c.f}}
		_, _, err := ev.Encode()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.want, err, c.want)
		}
	}
	for _, ev := range []Event{{Name: "a\x00"}, {Name: "t", Tags: 1 << 28}} {
		if _, _, err := ev.Encode(); err == nil {
			t.Errorf("%+v: no error", ev)
		}
	}
	if _, _, err := (&Event{Name: "E"}).ETLData("p\x00"); err == nil {
		t.Errorf("provider name with NUL: no error")
	}
}

// TestETLData checks the extended items and payload an etl.Event gets,
// and that the Cache decodes such an event.
func TestETLData(t *testing.T) {
	ev := Event{Name: "Checkout", Fields: []FieldValue{UnicodeString("Item", "coffee"), Uint32("Quantity", 2)}}
	ext, payload, err := ev.ETLData("etwkit-shop")
	if err != nil {
		t.Fatal(err)
	}
	if len(ext) != 2 || ext[0].Type != etl.ExtProvTraits || ext[1].Type != etl.ExtEventSchemaTL {
		t.Fatalf("extended items %+v", ext)
	}
	e := &etl.Event{ProviderID: ProviderGUID("etwkit-shop"), Extended: ext, UserData: payload,
		Descriptor: etl.EventDescriptor{Channel: ChannelTraceLogging, Level: 5}}
	var c Cache
	s, ok, err := c.Schema(e)
	if !ok || err != nil {
		t.Fatalf("Schema: %v %v", ok, err)
	}
	if s.ProviderName != "etwkit-shop" || s.EventName != "Checkout" || !c.NameMatchesGUID(s) {
		t.Errorf("schema %s/%s, name matches GUID %v", s.ProviderName, s.EventName, c.NameMatchesGUID(s))
	}
	var dec tdh.Decoder
	d, err := dec.Decode(s, e.UserData, e.PointerSize())
	if err != nil {
		t.Fatal(err)
	}
	if got := string(tdh.AppendPropertiesJSON(nil, d)); got != `{"Item":"coffee","Quantity":2}` {
		t.Errorf("decoded %s", got)
	}
	// And through the record encoder and reader.
	rec, err := etl.AppendRecord(nil, &etl.Event{Header: etl.HeaderEvent64, ProviderID: e.ProviderID, Descriptor: e.Descriptor,
		ProcessID: 1, ThreadID: 2, Extended: ext, UserData: payload})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(rec, payload) || !bytes.Contains(rec, ext[1].Data) {
		t.Errorf("record % x lacks the payload or metadata", rec)
	}
}
