package tdh

import "github.com/etwkit/etw/internal/decimal"

// JSON for programs ("data JSON": the values of the properties; the
// dumps' own keys and the schema that names them, etwkit.event/2, are the
// output side's, package eventjson). AppendJSON and AppendPropertiesJSON
// follow TDH's rendering (hex out-types as "0x…" strings, mapped values
// as their map text, error codes as their message), which is what a
// person reading a dump expects. The functions here give programs the values instead:
//
//   - Every integer (whatever its out-type: decimal, hex, pointer, PID,
//     TID, error code, port, mapped) is a JSON number when its magnitude
//     is at most 2^53, so that float64 consumers (jq, JavaScript, pandas,
//     DuckDB's JSON reader) read it exactly, and a decimal string above.
//   - Integers whose out-type makes them another kind of value keep that
//     kind: booleans (win:Boolean), characters (xs:string on Int8, UInt8,
//     UInt16), IPv4 addresses (win:IPv4 on UInt32) and times
//     (win:DateTime on 64-bit integers) render as AppendJSON renders them.
//   - The names of values, which AppendJSON renders instead of the
//     number, are available from AppendMapsJSON: the map's text of a
//     mapped value, the message of a Win32 error, NTSTATUS or HRESULT.
//   - Everything else (strings, floats, GUIDs, SIDs, binary, FILETIME,
//     SYSTEMTIME, IPv6, socket addresses, undecoded values) is as
//     AppendJSON renders it.

// MaxExactJSONInt is the largest magnitude an integer may have to be
// written as a JSON number by the data-JSON functions: 2^53, the last
// integer of a run of integers float64 represents exactly.
const MaxExactJSONInt = 1 << 53

// AppendJSONUint appends n as a JSON number when n <= 2^53, else as a
// string of its decimal digits.
func AppendJSONUint(dst []byte, n uint64) []byte {
	if n <= MaxExactJSONInt {
		return decimal.AppendUint(dst, n)
	}
	dst = append(dst, '"')
	dst = decimal.AppendUint(dst, n)
	return append(dst, '"')
}

// AppendJSONInt appends n as a JSON number when |n| <= 2^53, else as a
// string of its decimal digits (with the sign).
func AppendJSONInt(dst []byte, n int64) []byte {
	if n >= -MaxExactJSONInt && n <= MaxExactJSONInt {
		return decimal.AppendInt(dst, n)
	}
	dst = append(dst, '"')
	dst = decimal.AppendInt(dst, n)
	return append(dst, '"')
}

// AppendDataJSON appends all top-level printable properties of d as one
// JSON object {"Name": value, …} in template order, for programs: like
// AppendPropertiesJSON, but with integers as numbers whatever their
// out-type (see above). Properties the decoder did not reach are null.
func AppendDataJSON(dst []byte, d *Decoded) []byte {
	dst, _ = AppendDataJSONErr(dst, d)
	return dst
}

// AppendDataJSONErr is [AppendDataJSON] that reports what it left out, as
// [AppendPropertiesJSONErr] does: the object is bounded by [MaxTextBytes]
// and values nested deeper than [MaxDepth] are null.
func AppendDataJSONErr(dst []byte, d *Decoded) ([]byte, error) {
	return appendTopJSON(dst, d, true)
}

// AppendValueDataJSON appends v (a scalar, an array or a struct) of d as
// AppendDataJSON renders it (bounded by [MaxTextBytes]).
func AppendValueDataJSON(dst []byte, d *Decoded, v *Value) []byte {
	b := budget{limit: len(dst) + MaxTextBytes}
	return appendDataJSON(dst, d, v, 0, &b)
}

// AppendMapsJSON appends the names of d's top-level printable property
// values as one JSON object, {"Name": "text", …} in template order, and
// reports whether there were any; with none, dst is returned unchanged.
// A name is the map's text of a mapped value (value, bit and index maps,
// as AppendText renders it: "AllocSmall", "A | B | 0x10") or the message
// of a Win32 error, NTSTATUS or HRESULT code. Arrays with at least one
// named element give an array of names (null where an element has none);
// structs an object of their named members. Like AppendDataJSON, the
// object is bounded by [MaxTextBytes] (the names past it are left out).
func AppendMapsJSON(dst []byte, d *Decoded) ([]byte, bool) {
	return appendMapsJSON(dst, d, nil)
}

// appendMapsJSON is AppendMapsJSON; pl, when not nil, is the plan of d's
// schema.
func appendMapsJSON(dst []byte, d *Decoded, pl *JSONPlan) ([]byte, bool) {
	if d == nil || d.Schema == nil || (pl != nil && !pl.names) {
		return dst, false
	}
	start := len(dst)
	bud := budget{limit: start + MaxTextBytes}
	props := d.Schema.Properties[:len(d.Top())]
	named := false
	dst = append(dst, '{')
	for i := range props {
		p := &props[i]
		if pl != nil {
			if pp := &pl.props[i]; !pp.print || !pp.names {
				continue
			}
		} else if i >= len(d.Values) || !Printable(p) || !mayHaveNames(p, 0) {
			continue
		}
		if bud.over(dst) {
			break
		}
		var ok bool
		if v := &d.Values[i]; pl != nil && v.Kind == Scalar && v.Prop == p {
			dst, ok = pl.appendNamedScalar(dst, d, i, v, &bud, named)
		} else {
			dst, ok = appendNamedMember(dst, d, p.Name, v, 0, &bud, named)
		}
		named = named || ok
	}
	if !named {
		return dst[:start], false
	}
	return append(dst, '}'), true
}

// mayHaveNames reports whether values of p (or of its members) can have
// names: it has a map, or an out-type of an error code.
func mayHaveNames(p *Property, depth int) bool {
	if p == nil || depth > maxRenderDepth {
		return false
	}
	if p.Map != nil && len(p.Map.Entries) > 0 {
		return true
	}
	switch p.EffectiveOutType() {
	case OutTypeWin32Error, OutTypeNTStatus, OutTypeHResult:
		return true
	}
	for i := range p.Members {
		if mayHaveNames(&p.Members[i], depth+1) {
			return true
		}
	}
	return false
}

// appendDataJSON is AppendValueDataJSON at nesting depth, within bud.
func appendDataJSON(dst []byte, d *Decoded, v *Value, depth int, bud *budget) []byte {
	if out, ok := appendJSONContainer(dst, d, v, depth, bud, true, nil); ok {
		return out
	}
	n, ok := intValue(v)
	if !ok {
		return appendJSON(dst, d, v, depth) // not an integer
	}
	// An integer: classify's answer without its checks again.
	k := kNone
	if v.Kind == Scalar {
		k = intKind(v.Prop.InType, v.Prop.EffectiveOutType(), len(v.Data))
	}
	switch k {
	case kBool, kChar, kIPv4, kFileTime:
		// Another kind of value, unless a map names it.
		if !hasMapText(dst, d, v, n) {
			return appendJSON(dst, d, v, depth)
		}
	case kPort:
		return AppendJSONUint(dst, uint64(v.Data[0])<<8|uint64(v.Data[1]))
	}
	if v.Prop.InType.IsSigned() {
		i, _ := v.Int()
		return AppendJSONInt(dst, i)
	}
	return AppendJSONUint(dst, n)
}

// hasMapText reports whether integer n of v has a map entry; it uses the
// spare capacity of dst as scratch space.
func hasMapText(dst []byte, d *Decoded, v *Value, n uint64) bool {
	if !mappable(d, v.Prop) {
		return false
	}
	_, ok := appendMapText(dst[len(dst):], v.Prop.Map, n)
	return ok
}

// appendNamesJSON appends the names of v (see AppendMapsJSON); ok is
// false, with dst possibly holding partial output past its original
// length, when v has none.
func appendNamesJSON(dst []byte, d *Decoded, v *Value, depth int, bud *budget) ([]byte, bool) {
	if v == nil || v.Prop == nil || depth > maxRenderDepth {
		return dst, false
	}
	switch v.Kind {
	case Array:
		if isCharArray(v.Prop) {
			return dst, false
		}
		kids := children(d, v)
		dst = append(dst, '[')
		named := false
		for i := range kids {
			if bud.over(dst) {
				break
			}
			if i > 0 {
				dst = append(dst, ',')
			}
			mark := len(dst)
			var ok bool
			if dst, ok = appendNamesJSON(dst, d, &kids[i], depth+1, bud); ok {
				named = true
			} else {
				dst = append(dst[:mark], "null"...)
			}
		}
		return append(dst, ']'), named
	case Struct:
		kids := children(d, v)
		dst = append(dst, '{')
		named := false
		for i := range kids {
			c := &kids[i]
			mp := memberProp(v, i, c)
			if !Printable(mp) || !mayHaveNames(mp, depth+1) {
				continue
			}
			if bud.over(dst) {
				break
			}
			var ok bool
			dst, ok = appendNamedMember(dst, d, mp.Name, c, depth+1, bud, named)
			named = named || ok
		}
		return append(dst, '}'), named
	}
	start := len(dst)
	dst, ok := AppendNames(dst, d, v)
	if !ok {
		return dst, false
	}
	return jsonQuoteFrom(dst, start), true
}

// appendNamedMember appends "name":NAMES for v (after a comma when
// comma), as appendNamesJSON gives them, and reports whether v has names;
// dst is returned unchanged if not.
func appendNamedMember(dst []byte, d *Decoded, name string, v *Value, depth int, bud *budget, comma bool) ([]byte, bool) {
	mark := len(dst)
	if comma {
		dst = append(dst, ',')
	}
	dst = appendJSONString(dst, name)
	dst = append(dst, ':')
	dst, ok := appendNamesJSON(dst, d, v, depth, bud)
	if !ok {
		return dst[:mark], false
	}
	return dst, true
}

// DataType is the kind of value AppendValueDataJSON gives the values of a
// property, decided by its schema alone, so that a program can make one
// typed column per property (tracerpt-go's Parquet tables).
type DataType uint8

// The data types. Values that do not fit their property's type (a wrong
// size) have none: a typed column holds null for them.
const (
	DataJSON   DataType = iota // arrays, structs, in-type Null: JSON (AppendValueDataJSON)
	DataInt                    // signed integers: Value.Int
	DataUint                   // unsigned integers, pointers, ports, mapped values, error codes: Value.DataUint
	DataFloat                  // Float and Double: Value.Float
	DataBool                   // Boolean out-type: Value.Uint != 0
	DataString                 // text (AppendText): strings, characters, GUIDs, SIDs, IP and socket addresses
	DataBinary                 // bytes: Value.Data
	DataTime                   // FILETIME, SYSTEMTIME, DateTime on 64-bit integers: Value.Time
)

// DataType returns how values of p render for programs (see DataType).
func (p *Property) DataType() DataType {
	if p == nil || p.IsStruct() {
		return DataJSON
	}
	if p.IsArray {
		if isCharArray(p) {
			return DataString
		}
		return DataJSON
	}
	in, out := p.InType, p.EffectiveOutType()
	switch {
	case in.IsString(), in == InTypeUnicodeChar, in == InTypeAnsiChar, in == InTypeGUID, in == InTypeSID, in == InTypeWBEMSID:
		return DataString
	case in == InTypeBinary, in == InTypeCountedBinary, in == InTypeHexDump:
		switch out {
		case OutTypeIPv6, OutTypeIPv4, OutTypeSocketAddress:
			return DataString
		}
		return DataBinary
	case in == InTypeFileTime, in == InTypeSystemTime:
		return DataTime
	case in == InTypeFloat, in == InTypeDouble:
		return DataFloat
	case in == InTypePointer, in == InTypeSizeT:
		return DataUint
	case !in.IsInteger():
		return DataJSON
	}
	switch intKind(in, out, in.FixedSize(8)) {
	case kBool:
		return DataBool
	case kChar, kIPv4:
		return DataString
	case kFileTime:
		return DataTime
	case kPort:
		return DataUint
	}
	if in.IsSigned() {
		return DataInt
	}
	return DataUint
}

// DataUint returns the value of an unsigned integer scalar as
// AppendValueDataJSON writes it: ports (win:Port, stored big-endian) in
// host order, other integers as Value.Uint.
func (v *Value) DataUint() (uint64, bool) {
	n, ok := intValue(v)
	if ok && classify(v) == kPort {
		return uint64(v.Data[0])<<8 | uint64(v.Data[1]), true
	}
	return n, ok
}

// AppendNames appends the name of scalar v (a map's text, or the message
// of an error code) as AppendMapsJSON gives it, unquoted, and reports
// whether it has one; dst is returned unchanged if not.
func AppendNames(dst []byte, d *Decoded, v *Value) ([]byte, bool) {
	if v == nil || v.Kind != Scalar {
		return dst, false
	}
	n, ok := intValue(v)
	if !ok {
		return dst, false
	}
	start := len(dst)
	if mappable(d, v.Prop) {
		if dst, ok = appendMapText(dst, v.Prop.Map, n); ok {
			return dst, true
		}
		dst = dst[:start]
	}
	// An integer: classify's answer without its checks again.
	k := kNone
	if v.Kind == Scalar {
		k = intKind(v.Prop.InType, v.Prop.EffectiveOutType(), len(v.Data))
	}
	switch k {
	case kWin32, kNTStatus, kHResult:
		return appendErrorText(dst, k, uint32(n)), true
	}
	return dst, false
}

// MayHaveNames reports whether values of p or of its members can have
// names (AppendMapsJSON): p has a map or an error-code out-type.
func (p *Property) MayHaveNames() bool { return mayHaveNames(p, 0) }
