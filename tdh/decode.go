package tdh

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/etwkit/etw/internal/prefault"
)

// Kind tells scalars, arrays and structs apart in a [Decoded] event.
type Kind uint8

// Value kinds.
const (
	Scalar Kind = iota
	Array
	Struct
)

// Value is one decoded item: a scalar (Data holds its bytes), an array or a
// struct (First and N locate its elements or members in [Decoded.Values]).
//
// For strings Data is the string's bytes without length prefix or
// terminator; for counted and length-prefixed types, without the prefix.
type Value struct {
	Prop   *Property
	Kind   Kind
	Data   []byte
	Offset int   // offset of the item in the payload
	First  int32 // Array, Struct: index of the first element or member
	N      int32 // Array, Struct: number of elements or members
}

// Decoded is an event payload laid out by its schema. Values[:len(
// Schema.Properties)] are the top-level properties; arrays and structs
// refer to later entries.
//
// Looking a property up by name ([Decoded.Get] and the accessors built on
// it) updates a cache its [Decoder] keeps: like the Decoder, a Decoded is
// for one goroutine at a time.
type Decoded struct {
	Schema      *Event
	PointerSize int
	Payload     []byte
	Values      []Value
	// Extra is what the payload holds after the last property. TDH treats
	// a MOF payload with extra bytes as a layout error; manifest and
	// TraceLogging events may legitimately carry more (newer versions).
	Extra []byte
	// present is the number of top-level properties the payload holds
	// (fewer than the schema's when it ends before optional ones).
	present int
	// names is the Decoder's cache of lookups by name (nil for a Decoded
	// made otherwise: Get then scans).
	names *nameCache
	// own is the Decoder's own storage of values while Values is a
	// large one (see largeValues); nil otherwise.
	own []Value
}

// Top returns the top-level values the payload holds.
func (d *Decoded) Top() []Value { return d.Values[:d.present] }

// Children returns the elements of an array or the members of a struct.
func (d *Decoded) Children(v *Value) []Value { return d.Values[v.First : v.First+v.N] }

// DecodeError reports a payload that does not fit its schema.
type DecodeError struct {
	Property string // dotted path of the property, e.g. "Values[3].Name"
	Offset   int    // payload offset where decoding stopped
	Msg      string
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("property %s at payload offset %d: %s", e.Property, e.Offset, e.Msg)
}

// maxValues bounds the values one event may decode into, so that nested
// arrays cannot exhaust memory.
const maxValues = 1 << 20

// MaxDepth bounds the nesting of a decoded event's values: top-level
// properties are at depth 0, the elements of an array and the members of a
// struct one level below their parent (so an array of structs puts the
// structs' members two levels down). A payload whose schema nests deeper
// is a [DecodeError]; [Validate] rejects such schemas beforehand.
const MaxDepth = 64

// Decoder lays out payloads. Its storage is reused from one call to the
// next, so decoding allocates nothing once warm. A Decoder is not safe for
// concurrent use; use one per goroutine.
type Decoder struct {
	out     Decoded
	names   nameCache   // out's lookups by name (and Peek's)
	layouts layoutCache // the schemas' leading fixed-size runs (and Peek's)
	peeks   *peekMemo   // Peek's answers from those two, made at the first Peek
}

// Decode lays out payload according to schema. ptrSize (4 or 8) sizes
// pointer-sized types. The result is valid until the next call. On error
// the result holds what was decoded before the failing property, and the
// error is a [*DecodeError].
//
// When the payload does not fit the schema exactly (an error, or bytes left
// over) and the schema has Alternates, each is tried in turn; the first
// that fits exactly is the result, else the schema's own.
func (dec *Decoder) Decode(schema *Event, payload []byte, ptrSize int) (*Decoded, error) {
	d, err := dec.decode(schema, payload, ptrSize)
	if (err == nil && len(d.Extra) == 0) || len(schema.Alternates) == 0 {
		return d, err
	}
	for _, alt := range schema.Alternates {
		if d, err := dec.decode(alt, payload, ptrSize); err == nil && len(d.Extra) == 0 {
			return d, nil
		}
	}
	return dec.decode(schema, payload, ptrSize)
}

func (dec *Decoder) decode(schema *Event, payload []byte, ptrSize int) (*Decoded, error) {
	if ptrSize != 4 {
		ptrSize = 8
	}
	d := &dec.out
	if d.own != nil {
		// The last event was large: its storage goes back to the
		// Decoders' spare.
		putLarge(d.Values)
		d.Values, d.own = d.own, nil
	}
	d.Schema, d.PointerSize, d.Payload, d.Extra, d.names = schema, ptrSize, payload, nil, &dec.names
	n := len(schema.Properties)
	d.present = n
	if cap(d.Values) < n {
		d.Values = make([]Value, n, n+16)
	}
	d.Values = d.Values[:n]
	from, pos := 0, 0
	if ends := dec.layouts.fixedRun(schema.Properties, ptrSize); len(ends) > 0 && int(ends[len(ends)-1]) <= len(payload) {
		// The leading fixed-size scalars, all there: at the schema's
		// offsets.
		d.layRun(schema.Properties, ends)
		from, pos = len(ends), int(ends[len(ends)-1])
	}
	if from < n {
		clear(d.Values[from:])
	}
	pos, err := d.level(schema.Properties, 0, from, pos, "", 0)
	if err != nil {
		return d, err
	}
	d.Extra = payload[pos:]
	return d, nil
}

// level decodes props[from:] into d.Values[base+from:base+len(props)]
// starting at pos (props[:from] are decoded); the values are at nesting
// depth depth.
func (d *Decoded) level(props []Property, base, from, pos int, path string, depth int) (int, error) {
	for i := from; i < len(props); i++ {
		p := &props[i]
		if !p.IsArray && pos < len(d.Payload) {
			// A fixed-size scalar the payload holds, the bulk of most
			// templates: what scalar's fast path gives, without the call.
			if n := p.scalarSize(d.PointerSize); n > 0 && n <= len(d.Payload)-pos {
				v := &d.Values[base+i]
				v.Prop, v.Offset, v.Data = p, pos, d.Payload[pos:pos+n]
				pos += n
				continue
			}
		}
		if p.Optional && pos >= len(d.Payload) {
			// The payload ends before this optional property.
			if base == 0 {
				d.present = i
			}
			return pos, nil
		}
		v := &d.Values[base+i]
		v.Prop, v.Offset = p, pos
		if !p.IsArray {
			var err error
			if p.IsStruct() {
				pos, err = d.structAt(base+i, pos, path, depth)
			} else {
				pos, err = d.scalar(v, base, pos, path, -1)
			}
			if err != nil {
				return pos, err
			}
			continue
		}
		count, err := d.count(p, base, pos)
		if err != nil {
			return pos, d.errorf(path, p, -1, pos, "%v", err)
		}
		if depth+1 > MaxDepth {
			return pos, d.errorf(path, p, -1, pos, "array nested deeper than %d levels", MaxDepth)
		}
		if count > 1 && count > len(d.Payload)-pos {
			// Past the first, every element takes a byte at least (see
			// below): the payload cannot hold them. Decode the first to
			// say why, without reserving values for all.
			return d.shortArray(p, base, base+i, pos, path, depth, count)
		}
		first := len(d.Values)
		if first+count > maxValues {
			return pos, d.errorf(path, p, -1, pos, "array of %d elements exceeds the %d-value limit", count, maxValues)
		}
		d.grow(count)
		v = &d.Values[base+i] // grow may have moved the slice
		v.Kind, v.First, v.N = Array, int32(first), int32(count)
		if n := p.scalarSize(d.PointerSize); n > 0 && count <= (len(d.Payload)-pos)/n {
			// Fixed-size scalars that the payload holds: what scalar's
			// fast path gives each, in one loop.
			elems := d.Values[first : first+count]
			for k := range elems {
				e := &elems[k]
				e.Prop, e.Offset, e.Data = p, pos, d.Payload[pos:pos+n]
				pos += n
			}
			continue
		}
		for k := 0; k < count; k++ {
			e := &d.Values[first+k]
			e.Prop, e.Offset = p, pos
			start := pos
			if p.IsStruct() {
				pos, err = d.structAt(first+k, pos, path, depth+1)
			} else {
				pos, err = d.scalar(e, base, pos, path, k)
			}
			if err != nil {
				return pos, err
			}
			if pos == start && count > 1 {
				// Every element would decode the same way from the same
				// position: a layout that repeats zero-size items costs
				// work without reading the payload.
				d.Values[base+i].N = int32(k + 1)
				return pos, d.errorf(path, p, k, pos, "array element takes no payload bytes (%d elements)", count)
			}
		}
	}
	return pos, nil
}

// shortArray reports an array of count elements (count > 1) at pos that
// the rest of the payload cannot hold: the first element takes no bytes,
// or fails, or there are fewer bytes left than elements.
func (d *Decoded) shortArray(p *Property, base, idx, pos int, path string, depth, count int) (int, error) {
	first := len(d.Values)
	d.grow(1)
	d.Values[first] = Value{Prop: p, Offset: pos}
	v := &d.Values[idx]
	v.Kind, v.First, v.N = Array, int32(first), 1
	start := pos
	var err error
	if p.IsStruct() {
		pos, err = d.structAt(first, pos, path, depth+1)
	} else {
		pos, err = d.scalar(&d.Values[first], base, pos, path, 0)
	}
	switch {
	case err != nil:
		return pos, err
	case pos == start:
		return pos, d.errorf(path, p, 0, pos, "array element takes no payload bytes (%d elements)", count)
	}
	return pos, d.errorf(path, p, -1, start, "array of %d elements does not fit in the %d bytes left", count, len(d.Payload)-start)
}

// Storage for the values of large events. A Decoder keeps its values'
// storage from one call to the next, grown to the largest event it
// decoded; events of more than largeValues values are rare (9 of
// net.4.5.2's 179,474 decodings, the largest over 8,192 values: 0.9 MB)
// but come in runs (the same large event in each of 16 inputs, in time
// order), and each Decoder that met one (the dumps' workers, the writer's,
// the enricher's) held it to the end of the run. Storage past largeValues
// is instead shared by the process's Decoders: a Decoder takes the spare
// when an event needs it, and gives it back at its next call, so that
// after a run of large events one such storage is held, not one per
// Decoder, and none is made again.
const (
	// largeValues is the most values a Decoder keeps of its own (56 KiB;
	// 4,096 kept 0.5 MB more over the Parquet dump's four Decoders).
	largeValues = 1024
	// maxSpareValues bounds the spare storage (3.5 MiB): larger storage
	// (an event of up to maxValues values) is left to the collector.
	maxSpareValues = 1 << 16
)

// spare is the Decoders' shared storage for large events (see
// largeValues), nil while a Decoder holds it.
var spare struct {
	sync.Mutex
	v []Value
}

// takeLarge returns the spare storage if it has room for n values
// (emptied), or nil.
func takeLarge(n int) []Value {
	spare.Lock()
	defer spare.Unlock()
	v := spare.v
	if cap(v) < n {
		return nil
	}
	spare.v = nil
	return v[:0]
}

// putLarge makes v, a Decoder's large storage it no longer uses, the
// spare, unless the spare is as large or v is over maxSpareValues. Its
// values are cleared first: they point into the payload of the event
// decoded last.
func putLarge(v []Value) {
	if cap(v) > maxSpareValues {
		return
	}
	clear(v[:cap(v)])
	spare.Lock()
	if cap(v) > cap(spare.v) {
		spare.v = v
	}
	spare.Unlock()
}

// grow lengthens d.Values by n zero values. A Decoder's values past
// largeValues go to the shared spare storage (see largeValues); d is a
// Decoder's when d.names is set (decode sets it, a Decoded made
// otherwise has none).
func (d *Decoded) grow(n int) {
	k := len(d.Values)
	if k+n > cap(d.Values) && k+n > largeValues && d.names != nil {
		if d.own == nil {
			d.own = d.Values[:0]
		}
		if v := takeLarge(k + n); v != nil {
			d.Values = append(v, d.Values...)
		}
	}
	if k+n > cap(d.Values) {
		// At least double: append grows a large slice by a quarter,
		// and an array of structs grows it a struct at a time, each
		// step new memory (first touched, then copied): the decodings
		// of net.4.5.2's largest events (over 8,192 values) were 12 %
		// of the JSON dump's page faults. Not past largeValues while
		// the values fit in it (the storage a Decoder keeps), nor past
		// maxValues (a decoding's bound).
		c := max(k+n, min(2*cap(d.Values), maxValues))
		if k+n <= largeValues {
			c = min(c, largeValues)
		}
		// Written once before the copy: the copy and the zero values
		// below go through the write barrier while the collector marks,
		// which reads what they overwrite (see package prefault).
		v := prefault.Make[Value](c)[:k]
		copy(v, d.Values)
		d.Values = v
	}
	d.Values = append(d.Values, make([]Value, n)...)
}

// structAt decodes the struct value d.Values[idx], at nesting depth depth,
// whose members start at pos.
func (d *Decoded) structAt(idx, pos int, path string, depth int) (int, error) {
	p := d.Values[idx].Prop
	if depth+1 > MaxDepth {
		return pos, d.errorf(path, p, -1, pos, "struct nested deeper than %d levels", MaxDepth)
	}
	first := len(d.Values)
	if first+len(p.Members) > maxValues {
		return pos, d.errorf(path, p, -1, pos, "struct exceeds the %d-value limit", maxValues)
	}
	d.grow(len(p.Members))
	v := &d.Values[idx]
	v.Kind, v.First, v.N, v.Offset = Struct, int32(first), int32(len(p.Members)), pos
	return d.level(p.Members, first, 0, pos, joinPath(path, p.Name), depth+1)
}

// count returns the element count of an array property (1 otherwise)
// that starts at pos.
func (d *Decoded) count(p *Property, base, pos int) (int, error) {
	if !p.IsArray {
		return 1, nil
	}
	if p.ToEnd {
		size := p.ElemSize(d.PointerSize)
		if size <= 0 {
			return 0, fmt.Errorf("array to the end of the payload needs fixed-size elements")
		}
		return min((len(d.Payload)-pos)/size, 0xFFFF), nil
	}
	if p.CountIndex >= 0 {
		n, err := d.ref(p.CountIndex, base, "count")
		return int(n), err
	}
	return int(p.Count), nil
}

// ref reads the integer value of the same-level property at index i.
func (d *Decoded) ref(i, base int, what string) (uint64, error) {
	if base+i >= len(d.Values) || i < 0 {
		return 0, fmt.Errorf("%s refers to property index %d, which does not exist", what, i)
	}
	r := &d.Values[base+i]
	n, ok := r.Uint()
	if !ok {
		name := "?"
		if r.Prop != nil {
			name = r.Prop.Name
		}
		return 0, fmt.Errorf("%s refers to %s, which has no integer value", what, name)
	}
	if n > 0xFFFF {
		return 0, fmt.Errorf("%s from %s is %d, above the 65535 limit", what, r.Prop.Name, n)
	}
	return n, nil
}

func (d *Decoded) errorf(path string, p *Property, elem, pos int, format string, args ...any) *DecodeError {
	name := joinPath(path, p.Name)
	if elem >= 0 {
		name = fmt.Sprintf("%s[%d]", name, elem)
	}
	return &DecodeError{Property: name, Offset: pos, Msg: fmt.Sprintf(format, args...)}
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// scalarSize returns the size of a value of scalar property p when it is
// fixed by its in-type alone (no length), else 0 (a struct's in-type, Null,
// has no fixed size).
func (p *Property) scalarSize(ptrSize int) int {
	if p.LengthIndex >= 0 || p.Length != 0 {
		return 0
	}
	return p.InType.FixedSize(ptrSize)
}

// scalar sizes one scalar value at pos and returns the position after it.
func (d *Decoded) scalar(v *Value, base, pos int, path string, elem int) (int, error) {
	p := v.Prop
	b := d.Payload[pos:]
	if p.LengthIndex < 0 && p.Length == 0 {
		// Fast path: fixed-size scalars, the bulk of most templates.
		if n := p.InType.FixedSize(d.PointerSize); n > 0 && n <= len(b) {
			v.Data = b[:n]
			return pos + n, nil
		}
	}
	short := func(need int) (int, error) {
		return pos, d.errorf(path, p, elem, pos, "needs %d bytes, payload has %d left", need, len(b))
	}
	take := func(n int) (int, error) {
		if n > len(b) {
			return short(n)
		}
		v.Data = b[:n]
		return pos + n, nil
	}
	length := -1
	if p.LengthIndex >= 0 {
		n, err := d.ref(p.LengthIndex, base, "length")
		if err != nil {
			return pos, d.errorf(path, p, elem, pos, "%v", err)
		}
		length = int(n)
	} else if p.Length > 0 {
		length = int(p.Length)
	}
	le := binary.LittleEndian
	switch t := p.InType; t {
	case InTypeUnicodeString, InTypeAnsiString:
		unit := 1
		if t == InTypeUnicodeString {
			unit = 2
		}
		if length >= 0 {
			return take(length * unit)
		}
		if i := nulAt(b, unit); i >= 0 {
			v.Data = b[:i]
			return pos + i + unit, nil
		}
		// No NUL before the end of the payload: the string runs to the
		// end, as TDH renders it (PktMon's event 73 logs its last string
		// so). Half a UTF-16 character left over is damage.
		v.Data = b[:len(b)-len(b)%unit]
		if len(b)%unit != 0 {
			return pos + len(b), d.errorf(path, p, elem, pos, "string has no terminating NUL and ends in half a character")
		}
		return pos + len(b), nil
	case InTypeBinary:
		if length < 0 {
			if p.OutType == OutTypeIPv6 {
				return take(16)
			}
			if p.ToEnd && !p.IsArray {
				v.Data = b
				return pos + len(b), nil
			}
			return pos, d.errorf(path, p, elem, pos, "binary property has no length")
		}
		return take(length)
	case InTypeCountedString, InTypeCountedAnsiString, InTypeCountedBinary, InTypeMOFCountedString, InTypeMOFCountedAnsiString:
		if len(b) < 2 {
			return short(2)
		}
		n := int(le.Uint16(b))
		if n+2 > len(b) {
			return short(n + 2)
		}
		v.Data = b[2 : 2+n]
		return pos + 2 + n, nil
	case InTypeReversedCountedString, InTypeReversedCountedAnsiString:
		if len(b) < 2 {
			return short(2)
		}
		n := int(binary.BigEndian.Uint16(b))
		if n+2 > len(b) {
			return short(n + 2)
		}
		v.Data = b[2 : 2+n]
		return pos + 2 + n, nil
	case InTypeNonNullTerminatedString, InTypeNonNullTerminatedAnsi:
		v.Data = b
		return pos + len(b), nil
	case InTypeSID:
		if len(b) < 8 {
			return short(8)
		}
		return take(8 + 4*int(b[1]))
	case InTypeWBEMSID:
		if len(b) < 4 {
			return short(4)
		}
		if le.Uint32(b) == 0 {
			v.Data = b[:0]
			return pos + 4, nil
		}
		hdr := 2 * d.PointerSize
		if len(b) < hdr+8 {
			return short(hdr + 8)
		}
		n := hdr + 8 + 4*int(b[hdr+1])
		if n > len(b) {
			return short(n)
		}
		v.Data = b[hdr:n]
		return pos + n, nil
	case InTypeHexDump:
		if len(b) < 4 {
			return short(4)
		}
		n := int(le.Uint32(b))
		if n > len(b)-4 {
			return short(n + 4)
		}
		v.Data = b[4 : 4+n]
		return pos + 4 + n, nil
	case InTypeNull:
		return pos, nil
	}
	if n := p.InType.FixedSize(d.PointerSize); n > 0 {
		if length > 0 && (p.InType == InTypeUnicodeChar || p.InType == InTypeAnsiChar) {
			n *= length // MOF char arrays given a length
		}
		return take(n)
	}
	return pos, d.errorf(path, p, elem, pos, "in-type %v cannot be decoded", p.InType)
}

// nulAt returns the offset of the first NUL character of b (unit 1: a
// zero byte; 2: a zero UTF-16 code unit at an even offset), or -1.
func nulAt(b []byte, unit int) int {
	if unit == 1 {
		return bytes.IndexByte(b, 0)
	}
	i := 0
	// Four code units at a time.
	for ; i+8 <= len(b); i += 8 {
		if hasZero16(binary.LittleEndian.Uint64(b[i:])) {
			break
		}
	}
	for ; i+2 <= len(b); i += 2 {
		if b[i] == 0 && b[i+1] == 0 {
			return i
		}
	}
	return -1
}

// hasZero16 reports whether one of the four 16-bit lanes of x is zero: a
// lane is zero iff its top bit survives x - 1 per lane and not x (the
// zero-byte test of Hacker's Delight §6.1, on 16-bit lanes).
func hasZero16(x uint64) bool {
	return (x-0x0001000100010001)&^x&0x8000800080008000 != 0
}

// Uint returns the value of an integer (or Boolean) scalar.
func (v *Value) Uint() (uint64, bool) {
	if v.Kind != Scalar {
		return 0, false
	}
	return uintOf(v.Prop, v.Data)
}

// uintOf is Uint of the scalar value b of property p.
func uintOf(p *Property, b []byte) (uint64, bool) {
	return readUint(b, uintWidth(p, len(b)))
}

// uintWidth returns n if uintOf reads an integer of property p from n
// bytes, else 0.
func uintWidth(p *Property, n int) int {
	if p == nil || int(p.InType) >= len(uintSizes) {
		return 0
	}
	switch w := uintSizes[p.InType]; {
	case w == uintPtrSized:
		if n != 4 && n != 8 {
			return 0
		}
	case int(w) != n: // (w is 0 for other in-types: no size below matches)
		return 0
	}
	return n
}

// readUint reads the little-endian integer of width 1, 2, 4 or 8 bytes at
// the start of b; false for any other width (0 among them).
func readUint(b []byte, width int) (uint64, bool) {
	switch width {
	case 1:
		return uint64(b[0]), true
	case 2:
		return uint64(binary.LittleEndian.Uint16(b)), true
	case 4:
		return uint64(binary.LittleEndian.Uint32(b)), true
	case 8:
		return binary.LittleEndian.Uint64(b), true
	}
	return 0, false
}

// uintSizes gives, per in-type, the size of its integers ([InType.IsInteger]
// and [InType.FixedSize]), 0 for in-types of other values and
// uintPtrSized for the pointer-sized ones: what Uint checks a value's
// size against, in one load.
var uintSizes = func() (s [InTypeWBEMSID + 1]uint8) {
	for i := range s {
		switch t := InType(i); {
		case !t.IsInteger():
		case t.FixedSize(0) == 0:
			s[i] = uintPtrSized
		default:
			s[i] = uint8(t.FixedSize(0))
		}
	}
	return s
}()

// uintPtrSized marks the in-types of uintSizes whose integers are 4 or 8
// bytes long (the event's pointer size).
const uintPtrSized = 0xFF

// Int returns the value of an integer scalar, sign-extended for signed
// in-types.
func (v *Value) Int() (int64, bool) {
	u, ok := v.Uint()
	if !ok {
		return 0, false
	}
	if v.Prop.InType.IsSigned() {
		switch len(v.Data) {
		case 1:
			return int64(int8(u)), true
		case 2:
			return int64(int16(u)), true
		case 4:
			return int64(int32(u)), true
		}
	}
	return int64(u), true
}

// Float returns the value of a Float or Double scalar.
func (v *Value) Float() (float64, bool) {
	if v.Prop == nil || v.Kind != Scalar {
		return 0, false
	}
	switch {
	case v.Prop.InType == InTypeFloat && len(v.Data) == 4:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(v.Data))), true
	case v.Prop.InType == InTypeDouble && len(v.Data) == 8:
		return math.Float64frombits(binary.LittleEndian.Uint64(v.Data)), true
	}
	return 0, false
}

// GUID returns the value of a GUID scalar.
func (v *Value) GUID() (uuid.UUID, bool) {
	if v.Prop == nil || v.Prop.InType != InTypeGUID || len(v.Data) != 16 {
		return uuid.UUID{}, false
	}
	b := v.Data
	var u uuid.UUID
	u[0], u[1], u[2], u[3] = b[3], b[2], b[1], b[0]
	u[4], u[5], u[6], u[7] = b[5], b[4], b[7], b[6]
	copy(u[8:], b[8:])
	return u, true
}

// AppendString appends the text of string bytes (UTF-16LE if wide) to dst,
// stopping at the first NUL.
func AppendString(dst, b []byte, wide bool) []byte {
	if wide {
		return appendWide(dst, b, wideText)
	}
	for i, c := range b {
		if c == 0 {
			b = b[:i]
			break
		}
	}
	if utf8.Valid(b) {
		return append(dst, b...)
	}
	for _, c := range b {
		dst = utf8.AppendRune(dst, cp1252(c))
	}
	return dst
}

// cp1252 maps a Windows-1252 byte to its rune.
func cp1252(c byte) rune {
	if c < 0x80 || c >= 0xA0 {
		return rune(c)
	}
	return cp1252High[c-0x80]
}

var cp1252High = [32]rune{
	0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
	0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
}
