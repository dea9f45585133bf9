package tdh

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/etwkit/etw/internal/decimal"
)

// Rendering of decoded values as TDH/tracerpt text and as typed JSON
// (decoding.md §2.3, §2.4, §3.4).
//
// Choices made where the reference notes mark Windows' behaviour as unknown
// [?] or say nothing, one bullet each, so that a golden Windows output can
// settle them one by one:
//
//   - Arrays join their elements' texts with ", " inside "[" "]"; structs
//     print "{Name: value, …}" (tracerpt's joining is not observed); see the
//     text* constants below.
//   - Arrays of characters (UnicodeChar/AnsiChar, and Int8/UInt8/UInt16
//     with out-type xs:string, e.g. TraceLogging char arrays) render as one
//     string that ends at the first NUL, in text and in JSON.
//   - NoPrint struct members are left out of struct text and JSON objects
//     (a caller cannot skip them); a NoPrint value rendered on its own is
//     still rendered.
//   - xs:float/xs:double: the shortest digits that read back to the same
//     value (as Microsoft's EventFormatter does with std::to_chars), with
//     C's %g choice between plain and exponent form (exponent when the
//     decimal exponent is < -4 or >= 6, written "1e+06"); non-finite
//     values are "nan", "-nan", "inf", "-inf" (the UCRT spelling).
//   - xs:hexBinary and binary fallbacks: "0x" + upper-case hex (the
//     TdhFormatProperty convention PerfView and WEPExplorer show); an
//     empty value renders as "" rather than "0x".
//   - A value that its out-type cannot render (wrong size, unknown
//     in-type) falls back to "0x" + upper-case hex of its bytes.
//   - FILETIME/SYSTEMTIME: UTC, 9 fractional digits, "Z" (the Event Log
//     form); FILETIME 0 is "1601-01-01T00:00:00.000000000Z"; a FILETIME
//     of 2^63 or more (FileTimeToSystemTime fails) renders as hex; a
//     SYSTEMTIME with an out-of-range field (month 0, day 31 in April, …)
//     falls back to hex of its bytes.
//   - The char forms of Int8/UInt8 with xs:string use Windows-1252 for
//     bytes >= 0x80 (TDH would use the ANSI code page); a NUL character
//     renders as nothing.
//   - 8-bit strings with win:Xml/win:Json/win:Utf8 are UTF-8 with each
//     invalid byte replaced by U+FFFD; other 8-bit strings are UTF-8 when
//     valid and Windows-1252 otherwise ([AppendString]).
//   - trace:ReducedString turns every CR and every LF into one space.
//   - SID authorities of 2^32 or more print as "0x" + 12 lower-case hex
//     digits (RtlConvertSidToUnicodeString's "%02hx" pattern).
//   - win:IPv6 follows RFC 5952 (longest run of two or more zero groups
//     compressed, lower case) plus RtlIpv6AddressToString's mixed forms:
//     "::ffff:1.2.3.4" (mapped), "::1.2.3.4" (compatible, when the
//     seventh group is non-zero) and "::ffff:0:1.2.3.4" (translated);
//     ISATAP forms are not special-cased.
//   - win:SocketAddress follows RtlIpv4/6AddressToStringEx: "1.2.3.4:80",
//     "[addr%scope]:port" (scope only when non-zero); a zero port omits
//     the port and the brackets; families other than AF_INET (2) and
//     AF_INET6 (23), or short data, render as hex.
//   - win:Win32Error/NTSTATUS/HResult codes missing from the built-in table
//     render as "Unknown … Error code: 0x" + upper-case unpadded hex.
//   - win:CIMDateTime renders strings as text and anything else as hex.
//   - An out-type that does not fit the in-type or size (win:Port on a
//     UInt32, xs:float on an integer, …) renders with the in-type's default
//     out-type, as TraceLoggingDynamic.h asks decoders to.
//   - RenderOptions.MOFPadding pads only win:UInt32 values with no
//     out-type or xs:unsignedInt (not PID/TID, hex or mapped values), in
//     text only; the width-6 uint16 padding seen in tracerpt's CSV is not
//     reproduced (it is output-specific, §3.4).
//   - Maps apply to UInt8/16/32 and HexInt32 values (and to every integer
//     in-type of MOF events); the value is taken zero-extended. A bit map
//     lists the entries whose bits are all set, in entry (ascending value)
//     order, joined with " | ", then any leftover bits as "0x…"; value 0
//     uses an entry of value 0 if the map has one. A value with no entry
//     renders as if there were no map.
//   - JSON: 64-bit integers beyond ±2^53 are decimal strings; hex
//     out-types are "0x…" strings; non-finite floats are the strings
//     above; error codes are their message text; undecoded values are null.

// RenderOptions selects between rendering conventions.
type RenderOptions struct {
	// MOFPadding right-aligns MOF uint32 values to width 8 as tracerpt
	// does on Windows 10 (decoding.md §3.4); only when the event's
	// Schema.Source == SourceMOF.
	MOFPadding bool
}

// How arrays and structs are joined in text (tracerpt's form is not
// observed, decoding.md §2.3, §9 item 4).
const (
	textArrayOpen   = "["
	textArrayClose  = "]"
	textArraySep    = ", "
	textStructOpen  = "{"
	textStructClose = "}"
	textStructSep   = ", "
	textMemberSep   = ": " // between a struct member's name and its value
	bitMapSep       = " | "
)

// mofUInt32Width is the width tracerpt right-aligns MOF uint32 values to.
const mofUInt32Width = 8

// maxRenderDepth bounds the nesting of arrays and structs rendered, so that
// a malformed value tree cannot exhaust the stack. It equals [MaxDepth], so
// that what the decoder accepts renders in full.
const maxRenderDepth = MaxDepth

// Rendering bounds. An event's rendered text can be far larger than its
// payload (a message repeating an insert, struct member names repeated for
// every element); these keep each event's rendering to a few MiB whatever
// the input, and say so where they cut.
const (
	// MaxTextBytes bounds the rendering of one value ([AppendText],
	// [AppendJSON]) and of all of an event's properties together
	// ([AppendPropertiesJSON], [AppendTextLimit] with a shared limit):
	// once the output has grown by this much, the remaining array
	// elements, struct members and properties are left out.
	MaxTextBytes = 1 << 20
	// MaxMessageBytes bounds an expanded message ([AppendMessage]): the
	// expansion stops there and ends with [TruncatedMarker].
	MaxMessageBytes = 64 << 10
	// TruncatedMarker ends a text that a bound cut short.
	TruncatedMarker = "…[truncated]"
)

// RenderError says that rendering left something out: values nested
// deeper than [MaxDepth], or elements past the [MaxTextBytes] bound. The
// output is well-formed but incomplete.
type RenderError struct {
	Truncated bool // elements, members or properties left out at the size bound
	Deep      bool // values nested deeper than MaxDepth rendered as null
	Limit     int  // the size bound, when Truncated
}

func (e *RenderError) Error() string {
	switch {
	case e.Truncated && e.Deep:
		return fmt.Sprintf("rendering truncated: values nested deeper than %d levels left out, and values past %d bytes", MaxDepth, e.Limit)
	case e.Deep:
		return fmt.Sprintf("rendering truncated: values nested deeper than %d levels left out", MaxDepth)
	}
	return fmt.Sprintf("rendering truncated: values past %d bytes left out", e.Limit)
}

// budget bounds one rendering: elements and members are added while the
// output is shorter than limit (no bound when limit < 0).
type budget struct {
	limit     int
	truncated bool
	deep      bool
}

// over reports, before appending one more element, member or property,
// whether the output has reached the bound.
func (b *budget) over(dst []byte) bool {
	if b == nil || b.limit < 0 || len(dst) < b.limit {
		return false
	}
	b.truncated = true
	return true
}

func (b *budget) err() error {
	if b == nil || (!b.truncated && !b.deep) {
		return nil
	}
	return &RenderError{Truncated: b.truncated, Deep: b.deep, Limit: MaxTextBytes}
}

// Printable reports whether a property is to be shown: false for NoPrint
// properties (MOF Extension("NoPrint"), TraceLogging NoPrint).
func Printable(p *Property) bool {
	return p != nil && p.EffectiveOutType() != OutTypeNoPrint
}

// AppendText appends the TDH/tracerpt text of value v (a scalar, an array
// or a struct) of decoded event d. o may be nil. The text is bounded by
// [MaxTextBytes]: elements and members past it are left out and the text
// ends with [TruncatedMarker].
func AppendText(dst []byte, d *Decoded, v *Value, o *RenderOptions) []byte {
	dst, _ = AppendTextLimit(dst, d, v, o, len(dst)+MaxTextBytes)
	return dst
}

// AppendTextLimit is [AppendText] with the bound given as the length dst
// may reach: an encoder that renders an event's properties one by one
// passes the same limit for all of them, so that the event as a whole is
// bounded. Once dst has reached limit, no more elements or members are
// added (one scalar may still overshoot it by its own text) and the text
// ends with [TruncatedMarker]; truncated reports it. Values nested deeper
// than [MaxDepth] are left out the same way.
func AppendTextLimit(dst []byte, d *Decoded, v *Value, o *RenderOptions, limit int) (_ []byte, truncated bool) {
	b := budget{limit: limit}
	dst = appendText(dst, d, v, o, 0, &b)
	if b.truncated || b.deep {
		dst = append(dst, TruncatedMarker...)
		return dst, true
	}
	return dst, false
}

// AppendJSON appends v as a typed JSON value: integers as numbers (64-bit
// values beyond 2^53 and hex out-types as strings), booleans, floats as
// numbers, strings, GUIDs as "{…}", binary as upper-case hex, FILETIME and
// SYSTEMTIME as RFC 3339 UTC strings (7 and 3 fractional digits), arrays,
// structs as objects in schema order, mapped values as their map text.
// NoPrint values are rendered too; callers skip them with [Printable].
// Elements and members past [MaxTextBytes] of output are left out, and
// values nested deeper than [MaxDepth] are null; [AppendPropertiesJSONErr]
// reports both.
func AppendJSON(dst []byte, d *Decoded, v *Value) []byte {
	b := budget{limit: len(dst) + MaxTextBytes}
	return appendJSONB(dst, d, v, 0, &b)
}

// AppendPropertiesJSON appends all top-level printable properties of d as
// one JSON object {"Name": value, …} in template order. Properties the
// decoder did not reach (after a decode error) are null. The object is
// bounded as [AppendPropertiesJSONErr] says.
func AppendPropertiesJSON(dst []byte, d *Decoded) []byte {
	dst, _ = AppendPropertiesJSONErr(dst, d)
	return dst
}

// AppendPropertiesJSONErr is [AppendPropertiesJSON] that reports what it
// left out: once the object has grown by [MaxTextBytes], the remaining
// elements, members and properties are left out (the object stays valid
// JSON); values nested deeper than [MaxDepth] are null. The error is a
// [*RenderError] then, nil otherwise.
func AppendPropertiesJSONErr(dst []byte, d *Decoded) ([]byte, error) {
	return appendTopJSON(dst, d, false)
}

// appendTopJSON appends d's top-level printable properties as one JSON
// object, each value as AppendDataJSON (data) or AppendPropertiesJSON
// renders it, bounded by [MaxTextBytes] ([JSONPlan.appendTopJSON] is the
// same through a plan). (A direct call, not a func value: the budget must
// not escape.)
func appendTopJSON(dst []byte, d *Decoded, data bool) ([]byte, error) {
	dst = append(dst, '{')
	if d == nil || d.Schema == nil {
		return append(dst, '}'), nil
	}
	b := budget{limit: len(dst) + MaxTextBytes}
	props := d.Schema.Properties[:len(d.Top())] // without absent optional ones
	first := true
	for i := range props {
		p := &props[i]
		if !Printable(p) {
			continue
		}
		if b.over(dst) {
			break
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendJSONString(dst, p.Name)
		dst = append(dst, ':')
		switch {
		case i >= len(d.Values):
			dst = append(dst, "null"...)
		case data:
			dst = appendDataJSON(dst, d, &d.Values[i], 0, &b)
		default:
			dst = appendJSONB(dst, d, &d.Values[i], 0, &b)
		}
	}
	return append(dst, '}'), b.err()
}

// children returns the elements or members of v, or nil when v does not
// locate them inside d.Values.
func children(d *Decoded, v *Value) []Value {
	if d == nil || v.N <= 0 || v.First < 0 || int64(v.First)+int64(v.N) > int64(len(d.Values)) {
		return nil
	}
	return d.Values[v.First : v.First+v.N]
}

// memberProp returns the property of member i (value c) of struct value v.
func memberProp(v *Value, i int, c *Value) *Property {
	if v.Prop != nil && i < len(v.Prop.Members) {
		return &v.Prop.Members[i]
	}
	return c.Prop
}

func appendText(dst []byte, d *Decoded, v *Value, o *RenderOptions, depth int, b *budget) []byte {
	if v == nil || v.Prop == nil {
		return dst
	}
	if depth > maxRenderDepth {
		b.deep = true
		return dst
	}
	switch v.Kind {
	case Array:
		kids := children(d, v)
		if isCharArray(v.Prop) {
			return appendCharArray(dst, d, kids)
		}
		return appendTextArray(dst, d, kids, o, depth, b, nil)
	case Struct:
		kids := children(d, v)
		dst = append(dst, textStructOpen...)
		first := true
		for i := range kids {
			c := &kids[i]
			mp := memberProp(v, i, c)
			if !Printable(mp) {
				continue
			}
			if b.over(dst) {
				break
			}
			if !first {
				dst = append(dst, textStructSep...)
			}
			first = false
			dst = append(dst, mp.Name...)
			dst = append(dst, textMemberSep...)
			dst = appendText(dst, d, c, o, depth+1, b)
		}
		return append(dst, textStructClose...)
	}
	if start := len(dst); mappable(d, v.Prop) {
		if n, ok := intValue(v); ok {
			if dst, ok = appendMapText(dst, v.Prop.Map, n); ok {
				return dst
			}
			dst = dst[:start]
		}
	}
	return appendScalarText(dst, d, v, o, classify(v))
}

// appendTextArray appends the text of the elements kids of an array (not
// of characters) at nesting depth, within b; pp, when not nil, is the plan
// of the array's property, which renders its integer elements.
func appendTextArray(dst []byte, d *Decoded, kids []Value, o *RenderOptions, depth int, b *budget, pp *planProp) []byte {
	dst = append(dst, textArrayOpen...)
	for i := range kids {
		if b.over(dst) {
			break
		}
		if i > 0 {
			dst = append(dst, textArraySep...)
		}
		k := &kids[i]
		if pp != nil && o == nil && k.Prop == pp.prop && k.Kind == Scalar {
			if out, ok := pp.appendText(dst, k); ok {
				dst = out
				continue
			}
		}
		dst = appendText(dst, d, k, o, depth+1, b)
	}
	return append(dst, textArrayClose...)
}

// appendJSON renders v at nesting depth with no size bound.
func appendJSON(dst []byte, d *Decoded, v *Value, depth int) []byte {
	return appendJSONB(dst, d, v, depth, nil)
}

// appendJSONContainer writes an array (a JSON array, or a string for an
// array of characters) or a struct (an object of its printable members),
// each element as AppendDataJSON (data) or AppendPropertiesJSON renders
// it; ok is false for scalars. A missing value, or one nested deeper than
// maxRenderDepth (noted in bud), is null. pp, when not nil, is the plan
// of an array's property, which renders its integer elements (data
// only). (A direct call, not a func value: the budget must not escape.)
func appendJSONContainer(dst []byte, d *Decoded, v *Value, depth int, bud *budget, data bool, pp *planProp) ([]byte, bool) {
	if v == nil || v.Prop == nil {
		return append(dst, "null"...), true
	}
	if depth > maxRenderDepth {
		if bud != nil {
			bud.deep = true
		}
		return append(dst, "null"...), true
	}
	switch v.Kind {
	case Array:
		kids := children(d, v)
		if isCharArray(v.Prop) {
			start := len(dst)
			dst = appendCharArray(dst, d, kids)
			return jsonQuoteFrom(dst, start), true
		}
		dst = append(dst, '[')
		for i := range kids {
			if bud.over(dst) {
				break
			}
			if i > 0 {
				dst = append(dst, ',')
			}
			k := &kids[i]
			if pp != nil && data && k.Prop == pp.prop && k.Kind == Scalar {
				if pp.smallUint(k) {
					dst = decimal.AppendUint(dst, leUint(k.Data))
					continue
				}
				if u, ok := pp.uint64Of(k); ok {
					if u <= MaxExactJSONInt {
						dst = decimal.AppendUint(dst, u)
					} else {
						dst = AppendJSONUint(dst, u)
					}
					continue
				}
				if out, ok := pp.appendNumber(dst, k); ok {
					dst = out
					continue
				}
			}
			dst = appendElemJSON(dst, d, k, depth+1, bud, data)
		}
		return append(dst, ']'), true
	case Struct:
		kids := children(d, v)
		dst = append(dst, '{')
		first := true
		for i := range kids {
			c := &kids[i]
			mp := memberProp(v, i, c)
			if !Printable(mp) {
				continue
			}
			if bud.over(dst) {
				break
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = appendJSONString(dst, mp.Name)
			dst = append(dst, ':')
			dst = appendElemJSON(dst, d, c, depth+1, bud, data)
		}
		return append(dst, '}'), true
	}
	return dst, false
}

// appendElemJSON renders v as appendDataJSON (data) or appendJSONB does.
func appendElemJSON(dst []byte, d *Decoded, v *Value, depth int, bud *budget, data bool) []byte {
	if data {
		return appendDataJSON(dst, d, v, depth, bud)
	}
	return appendJSONB(dst, d, v, depth, bud)
}

func appendJSONB(dst []byte, d *Decoded, v *Value, depth int, bud *budget) []byte {
	if out, ok := appendJSONContainer(dst, d, v, depth, bud, false, nil); ok {
		return out
	}
	start := len(dst)
	if mappable(d, v.Prop) {
		if n, ok := intValue(v); ok {
			if dst, ok = appendMapText(dst, v.Prop.Map, n); ok {
				return jsonQuoteFrom(dst, start)
			}
			dst = dst[:start]
		}
	}
	k := classify(v)
	b := v.Data
	switch k {
	case kNone:
		return append(dst, "null"...)
	case kDec, kPort:
		var neg bool
		var mag uint64
		if k == kPort {
			mag = uint64(binary.BigEndian.Uint16(b))
		} else if v.Prop.InType.IsSigned() {
			i, _ := v.Int()
			neg, mag = i < 0, uint64(i)
			if neg {
				mag = -mag
			}
		} else {
			mag, _ = v.Uint()
		}
		if mag > 1<<53 {
			dst = append(dst, '"')
			dst = appendScalarText(dst, d, v, nil, k)
			return append(dst, '"')
		}
		return appendScalarText(dst, d, v, nil, k)
	case kBool:
		return appendScalarText(dst, d, v, nil, k)
	case kFloat:
		f, _ := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			dst = append(dst, '"')
			dst = appendFloat(dst, f, v.Prop.InType)
			return append(dst, '"')
		}
		return appendFloat(dst, f, v.Prop.InType)
	case kBinary:
		dst = append(dst, '"')
		dst = appendUpperHexBytes(dst, b)
		return append(dst, '"')
	case kFileTime:
		dst = append(dst, '"')
		dst = appendFileTime(dst, binary.LittleEndian.Uint64(b), 7)
		return append(dst, '"')
	case kSystemTime:
		dst = append(dst, '"')
		dst = appendSystemTime(dst, b, 3)
		return append(dst, '"')
	}
	if k == kString && v.Prop.InType.IsWide() && v.Prop.EffectiveOutType() != OutTypeReducedString {
		return appendWideJSON(dst, b) // appendStringValue's text, quoted
	}
	dst = appendScalarText(dst, d, v, nil, k)
	return jsonQuoteFrom(dst, start)
}

// rkind is how a scalar renders, decided from its in-type, out-type and
// size by classify.
type rkind uint8

const (
	kNone       rkind = iota // nothing to show (in-type Null, undecoded)
	kString                  // text of a string or character in-type
	kChar                    // integer shown as one character
	kDec                     // decimal integer, signed per in-type
	kHex                     // "0x" + upper-case hex of the integer
	kBool                    // "true" / "false"
	kFloat                   // float or double
	kGUID                    // {lower-case registry form}
	kFileTime                // 8-byte FILETIME
	kSystemTime              // 16-byte SYSTEMTIME
	kSID                     // S-1-5-…
	kIPv4                    // dotted quad, bytes in memory order
	kIPv6                    // RFC 5952 text
	kPort                    // big-endian UInt16
	kSockAddr                // SOCKADDR_IN / SOCKADDR_IN6
	kBinary                  // bytes as hex
	kWin32                   // Win32 error message
	kNTStatus                // NTSTATUS message
	kHResult                 // HRESULT message
	kRaw                     // fallback: "0x" + hex of the bytes
)

// classify decides how scalar v renders.
func classify(v *Value) rkind {
	p := v.Prop
	if p == nil || v.Kind != Scalar {
		return kNone
	}
	in, out, b := p.InType, p.EffectiveOutType(), v.Data
	if in.IsString() {
		return kString
	}
	switch in {
	case InTypeNull:
		return kNone
	case InTypeUnicodeChar, InTypeAnsiChar:
		return kString
	case InTypeBinary, InTypeCountedBinary, InTypeHexDump:
		switch {
		case out == OutTypeIPv6 && len(b) == 16:
			return kIPv6
		case out == OutTypeIPv4 && len(b) == 4:
			return kIPv4
		case out == OutTypeSocketAddress:
			return kSockAddr
		}
		return kBinary
	case InTypeGUID:
		if len(b) == 16 {
			return kGUID
		}
		return kRaw
	case InTypeFileTime:
		if len(b) == 8 {
			return kFileTime
		}
		return kRaw
	case InTypeSystemTime:
		if validSystemTime(b) {
			return kSystemTime
		}
		return kRaw
	case InTypeSID, InTypeWBEMSID:
		return kSID
	case InTypeFloat, InTypeDouble:
		if _, ok := v.Float(); ok {
			return kFloat
		}
		return kRaw
	}
	if _, ok := intValue(v); !ok {
		return kRaw
	}
	return intKind(in, out, len(b))
}

// intValue returns the value of an integer scalar whose size fits its
// in-type (a 1-byte "UInt16" has none), zero-extended.
func intValue(v *Value) (uint64, bool) {
	if v.Prop == nil || !intSized(v.Prop.InType, len(v.Data)) {
		return 0, false
	}
	return v.Uint()
}

// intSized reports whether n bytes are a value of integer in-type in: its
// fixed size, or 4 or 8 for a pointer or size_t.
func intSized(in InType, n int) bool {
	switch in {
	case InTypePointer, InTypeSizeT:
		return n == 4 || n == 8
	}
	return in.IsInteger() && n == in.FixedSize(8)
}

// intKind decides how an integer of the given in-type and size renders
// with out-type out; combinations that make no sense fall back to the
// in-type's default out-type, as TraceLoggingDynamic.h asks decoders to.
func intKind(in InType, out OutType, size int) rkind {
	switch out {
	case OutTypeString:
		switch in {
		case InTypeInt8, InTypeUInt8, InTypeUInt16:
			return kChar
		}
	case OutTypeBoolean:
		return kBool
	case OutTypeByte, OutTypeUnsignedByte, OutTypeShort, OutTypeUnsignedShort, OutTypeInt, OutTypeUnsignedInt,
		OutTypeLong, OutTypeUnsignedLong, OutTypePID, OutTypeTID, OutTypeETWTime:
		return kDec
	case OutTypeHexInt8, OutTypeHexInt16, OutTypeHexInt32, OutTypeHexInt64, OutTypeErrorCode, OutTypeCodePointer,
		OutTypeCIMDateTime:
		return kHex
	case OutTypePort:
		if size == 2 {
			return kPort
		}
	case OutTypeIPv4:
		if size == 4 {
			return kIPv4
		}
	case OutTypeWin32Error:
		if size == 4 {
			return kWin32
		}
	case OutTypeNTStatus:
		if size == 4 {
			return kNTStatus
		}
	case OutTypeHResult:
		if size == 4 {
			return kHResult
		}
	case OutTypeDateTime, OutTypeDateTimeUTC, OutTypeCultureInsensitiveDateTime:
		if size == 8 {
			return kFileTime // TraceLogging's FileTime out-type on U64/I64
		}
	}
	if def := in.DefaultOutType(); def != out {
		return intKind(in, def, size)
	}
	return kDec
}

// appendScalarText appends the text of scalar v rendered as kind k.
func appendScalarText(dst []byte, d *Decoded, v *Value, o *RenderOptions, k rkind) []byte {
	p, b := v.Prop, v.Data
	switch k {
	case kNone:
		return dst
	case kString:
		return appendStringValue(dst, p, b)
	case kChar:
		n, _ := v.Uint()
		return appendChar(dst, p.InType, n)
	case kDec:
		if p.InType.IsSigned() {
			i, _ := v.Int()
			return decimal.AppendInt(dst, i)
		}
		n, _ := v.Uint()
		if o != nil && o.MOFPadding && d != nil && d.Schema != nil && d.Schema.Source == SourceMOF &&
			p.InType == InTypeUInt32 && (p.OutType == OutTypeNull || p.OutType == OutTypeUnsignedInt) {
			return appendPadded(dst, n, mofUInt32Width)
		}
		return decimal.AppendUint(dst, n)
	case kHex:
		n, _ := v.Uint()
		return appendHex0x(dst, n)
	case kBool:
		if n, _ := v.Uint(); n != 0 {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case kFloat:
		f, _ := v.Float()
		return appendFloat(dst, f, p.InType)
	case kGUID:
		return appendGUID(dst, b)
	case kFileTime:
		return appendFileTime(dst, binary.LittleEndian.Uint64(b), 9)
	case kSystemTime:
		return appendSystemTime(dst, b, 9)
	case kSID:
		return appendSID(dst, b)
	case kIPv4:
		return appendIPv4(dst, b)
	case kIPv6:
		return appendIPv6(dst, b)
	case kPort:
		return decimal.AppendUint(dst, uint64(binary.BigEndian.Uint16(b)))
	case kSockAddr:
		return appendSockAddr(dst, b)
	case kWin32, kNTStatus, kHResult:
		n, _ := v.Uint()
		return appendErrorText(dst, k, uint32(n))
	}
	return appendHexBytes0x(dst, b) // kBinary, kRaw
}

// appendStringValue appends the text of a string or character value.
func appendStringValue(dst []byte, p *Property, b []byte) []byte {
	out := p.EffectiveOutType()
	start := len(dst)
	wide := p.InType.IsWide()
	if !wide && (out == OutTypeXML || out == OutTypeJSON || out == OutTypeUTF8) {
		dst = appendUTF8(dst, b)
	} else {
		dst = AppendString(dst, b, wide)
	}
	if out == OutTypeReducedString {
		for i := start; i < len(dst); i++ {
			if dst[i] == '\r' || dst[i] == '\n' {
				dst[i] = ' '
			}
		}
	}
	return dst
}

// appendUTF8 appends UTF-8 bytes up to the first NUL, each invalid byte
// replaced by U+FFFD (MultiByteToWideChar(CP_UTF8) without
// MB_ERR_INVALID_CHARS).
func appendUTF8(dst, b []byte) []byte {
	for i := 0; i < len(b); {
		c := b[i]
		if c == 0 {
			break
		}
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
			i++
			continue
		}
		dst = append(dst, b[i:i+size]...)
		i += size
	}
	return dst
}

// appendChar appends integer n of an Int8/UInt8/UInt16 in-type as one
// character; NUL appends nothing.
func appendChar(dst []byte, in InType, n uint64) []byte {
	switch {
	case n == 0:
		return dst
	case in == InTypeUInt16:
		r := rune(n)
		if utf16.IsSurrogate(r) {
			r = utf8.RuneError
		}
		return utf8.AppendRune(dst, r)
	case n < utf8.RuneSelf:
		return append(dst, byte(n))
	}
	return utf8.AppendRune(dst, cp1252(byte(n)))
}

// isCharArray reports whether an array property holds characters that
// render together as one string.
func isCharArray(p *Property) bool {
	switch p.InType {
	case InTypeUnicodeChar, InTypeAnsiChar:
		return true
	case InTypeInt8, InTypeUInt8, InTypeUInt16:
		return p.EffectiveOutType() == OutTypeString
	}
	return false
}

// appendCharArray appends the elements of a character array as one string
// ending at the first NUL.
func appendCharArray(dst []byte, d *Decoded, kids []Value) []byte {
	if len(kids) == 0 {
		return dst
	}
	p := kids[0].Prop
	if p == nil {
		return dst
	}
	wide := p.InType == InTypeUInt16 || p.InType == InTypeUnicodeChar
	// Elements of a fully decoded array lie back to back in the payload.
	start, end := kids[0].Offset, kids[0].Offset
	contiguous := true
	for i := range kids {
		k := &kids[i]
		if k.Prop == nil || k.Offset != end {
			contiguous = false
			break
		}
		end += len(k.Data)
	}
	if contiguous && start >= 0 && end <= len(d.Payload) {
		return AppendString(dst, d.Payload[start:end], wide)
	}
	for i := range kids {
		k := &kids[i]
		if k.Prop == nil || len(k.Data) == 0 || (k.Data[0] == 0 && (!wide || len(k.Data) < 2 || k.Data[1] == 0)) {
			break
		}
		if k.Prop.InType == InTypeUnicodeChar || k.Prop.InType == InTypeAnsiChar {
			dst = AppendString(dst, k.Data, wide)
		} else if n, ok := k.Uint(); ok {
			dst = appendChar(dst, k.Prop.InType, n)
		}
	}
	return dst
}

// mappable reports whether p's map applies to its values.
func mappable(d *Decoded, p *Property) bool {
	if p.Map == nil || len(p.Map.Entries) == 0 {
		return false
	}
	switch p.InType {
	case InTypeUInt8, InTypeUInt16, InTypeUInt32, InTypeHexInt32:
		return true
	}
	return d != nil && d.Schema != nil && d.Schema.Source == SourceMOF && p.InType.IsInteger()
}

// appendMapText appends the map text of value n; ok is false (and dst may
// hold partial output past its original length) when the map has no entry
// for n.
func appendMapText(dst []byte, m *Map, n uint64) ([]byte, bool) {
	switch m.Kind {
	case ValueMap, IndexMap:
		s, ok := m.Lookup(n)
		if !ok {
			return dst, false
		}
		return append(dst, s...), true
	}
	flag := m.Kind == FlagMap
	var covered uint64
	first := true
	for i := range m.Entries {
		e := &m.Entries[i]
		bits := e.Value
		if flag {
			if e.Value < 1 || e.Value > 64 {
				continue
			}
			bits = 1 << (e.Value - 1)
		}
		if bits == 0 || n&bits != bits {
			continue
		}
		if !first {
			dst = append(dst, bitMapSep...)
		}
		first = false
		dst = append(dst, e.Message...)
		covered |= bits
	}
	if first {
		if n == 0 && !flag {
			if s, ok := m.Lookup(0); ok {
				return append(dst, s...), true
			}
		}
		return dst, false
	}
	if rest := n &^ covered; rest != 0 {
		dst = append(dst, bitMapSep...)
		dst = appendHex0x(dst, rest)
	}
	return dst, true
}

const (
	upperHex = "0123456789ABCDEF"
	lowerHex = "0123456789abcdef"
)

// appendHex0x appends "0x" and n in upper-case hex without padding.
func appendHex0x(dst []byte, n uint64) []byte {
	dst = append(dst, '0', 'x')
	if hi := uint32(n >> 32); hi != 0 {
		dst = appendHexWord(dst, hexDigits8(hi), hexWidth(hi))
		return appendHexWord(dst, hexDigits8(uint32(n)), 8)
	}
	return appendHexWord(dst, hexDigits8(uint32(n)), hexWidth(uint32(n)))
}

// hexWidth returns the number of hex digits of x without leading zeros
// (1 for 0).
func hexWidth(x uint32) int { return (bits.Len32(x|1) + 3) >> 2 }

// hexDigits8 returns the eight upper-case hex digits of x, zeros in front,
// as a word whose low byte is the first digit: its nibbles spread to one
// a byte, in one pass for all eight, with no table and no loop.
func hexDigits8(x uint32) uint64 {
	const ones = 0x0101010101010101
	v := uint64(x)
	v = (v | v<<16) & 0x0000FFFF0000FFFF
	v = (v | v<<8) & 0x00FF00FF00FF00FF
	v = (v | v<<4) & 0x0F0F0F0F0F0F0F0F // byte i: nibble i
	// Digits from 10 up ('A'…) are 7 past '9'+1: a nibble + 6 has its
	// bit 4 set from 10 on.
	v += '0'*ones + ((v+6*ones)>>4&ones)*7
	return bits.ReverseBytes64(v) // the most significant digit first
}

// appendHexWord appends the last n (1 to 8) digits of w, a word of
// hexDigits8.
func appendHexWord(dst []byte, w uint64, n int) []byte {
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], w>>(8*(8-n)&63))
	return append(dst, buf[:n&15]...)
}

// appendUpperHexBytes appends b as upper-case hex digits.
func appendUpperHexBytes(dst, b []byte) []byte {
	for _, c := range b {
		dst = append(dst, upperHex[c>>4], upperHex[c&15])
	}
	return dst
}

// appendHexBytes0x appends "0x" and b in upper-case hex; nothing if b is
// empty.
func appendHexBytes0x(dst, b []byte) []byte {
	if len(b) == 0 {
		return dst
	}
	return appendUpperHexBytes(append(dst, '0', 'x'), b)
}

// appendPadded appends n right-aligned in width characters.
func appendPadded(dst []byte, n uint64, width int) []byte {
	var buf [20]byte
	s := strconv.AppendUint(buf[:0], n, 10)
	for i := len(s); i < width; i++ {
		dst = append(dst, ' ')
	}
	return append(dst, s...)
}

// appendFloat appends a float (in-type Float: 32-bit precision).
func appendFloat(dst []byte, f float64, in InType) []byte {
	switch {
	case math.IsNaN(f):
		if math.Signbit(f) {
			return append(dst, "-nan"...)
		}
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	bits := 64
	if in == InTypeFloat {
		bits = 32
	}
	return strconv.AppendFloat(dst, f, 'g', -1, bits)
}

// appendGUID appends a 16-byte Windows GUID in lower-case registry form.
func appendGUID(dst, b []byte) []byte {
	hex := func(dst []byte, c byte) []byte { return append(dst, lowerHex[c>>4], lowerHex[c&15]) }
	dst = append(dst, '{')
	dst = hex(hex(hex(hex(dst, b[3]), b[2]), b[1]), b[0])
	dst = append(dst, '-')
	dst = hex(hex(dst, b[5]), b[4])
	dst = append(dst, '-')
	dst = hex(hex(dst, b[7]), b[6])
	dst = append(dst, '-')
	dst = hex(hex(dst, b[8]), b[9])
	dst = append(dst, '-')
	for _, c := range b[10:16] {
		dst = hex(dst, c)
	}
	return append(dst, '}')
}

// appendDigits appends n in at least width digits, zero-padded.
func appendDigits(dst []byte, n, width int) []byte {
	var buf [20]byte
	s := strconv.AppendInt(buf[:0], int64(n), 10)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// appendDate appends "YYYY-MM-DDTHH:MM:SS".
func appendDate(dst []byte, year, month, day, hour, min, sec int) []byte {
	dst = appendDigits(dst, year, 4)
	dst = append(dst, '-')
	dst = appendDigits(dst, month, 2)
	dst = append(dst, '-')
	dst = appendDigits(dst, day, 2)
	dst = append(dst, 'T')
	dst = appendDigits(dst, hour, 2)
	dst = append(dst, ':')
	dst = appendDigits(dst, min, 2)
	dst = append(dst, ':')
	return appendDigits(dst, sec, 2)
}

// appendFileTime appends a FILETIME as UTC ISO 8601 with digits (7 or 9)
// fractional digits and "Z".
func appendFileTime(dst []byte, ft uint64, digits int) []byte {
	if ft >= 1<<63 {
		return appendHex0x(dst, ft)
	}
	t, _ := fileTime(ft)
	year, month, day := t.Date()
	hour, min, sec := t.Clock()
	dst = appendDate(dst, year, int(month), day, hour, min, sec)
	dst = append(dst, '.')
	frac := int(ft % 1e7) // 100 ns units
	if digits == 9 {
		dst = appendDigits(dst, frac*100, 9)
	} else {
		dst = appendDigits(dst, frac, 7)
	}
	return append(dst, 'Z')
}

// validSystemTime reports whether b is a 16-byte SYSTEMTIME that
// SystemTimeToFileTime would accept (day of week is ignored).
func validSystemTime(b []byte) bool {
	if len(b) != 16 {
		return false
	}
	f := func(i int) int { return int(binary.LittleEndian.Uint16(b[2*i:])) }
	year, month, day := f(0), f(1), f(3)
	if year < 1601 || year > 30827 || month < 1 || month > 12 || day < 1 || f(4) > 23 || f(5) > 59 || f(6) > 59 || f(7) > 999 {
		return false
	}
	return day <= time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// appendSystemTime appends a SYSTEMTIME as UTC ISO 8601 with digits (3 or
// 9) fractional digits and "Z", or its bytes in hex when invalid.
func appendSystemTime(dst, b []byte, digits int) []byte {
	if !validSystemTime(b) {
		return appendHexBytes0x(dst, b)
	}
	f := func(i int) int { return int(binary.LittleEndian.Uint16(b[2*i:])) }
	dst = appendDate(dst, f(0), f(1), f(3), f(4), f(5), f(6))
	dst = append(dst, '.')
	dst = appendDigits(dst, f(7), 3)
	if digits == 9 {
		dst = append(dst, "000000"...)
	}
	return append(dst, 'Z')
}

// appendSID appends a binary SID as S-R-I-S-S…; empty data (a WBEMSID
// without a user) appends nothing.
func appendSID(dst, b []byte) []byte {
	if len(b) == 0 {
		return dst
	}
	if len(b) < 8 || len(b) < 8+4*int(b[1]) {
		return appendHexBytes0x(dst, b)
	}
	dst = append(dst, 'S', '-')
	dst = decimal.AppendUint(dst, uint64(b[0]))
	dst = append(dst, '-')
	if b[2] == 0 && b[3] == 0 {
		dst = decimal.AppendUint(dst, uint64(binary.BigEndian.Uint32(b[4:8])))
	} else {
		dst = append(dst, '0', 'x')
		for _, c := range b[2:8] {
			dst = append(dst, lowerHex[c>>4], lowerHex[c&15])
		}
	}
	for i := 0; i < int(b[1]); i++ {
		dst = append(dst, '-')
		dst = decimal.AppendUint(dst, uint64(binary.LittleEndian.Uint32(b[8+4*i:])))
	}
	return dst
}

// appendIPv4 appends 4 bytes as a dotted quad in memory order.
func appendIPv4(dst, b []byte) []byte {
	for i, c := range b[:4] {
		if i > 0 {
			dst = append(dst, '.')
		}
		dst = decimal.AppendUint(dst, uint64(c))
	}
	return dst
}

// appendIPv6 appends a 16-byte IPv6 address (see the choices above).
func appendIPv6(dst, b []byte) []byte {
	var w [8]uint16
	for i := range w {
		w[i] = binary.BigEndian.Uint16(b[2*i:])
	}
	if w[0]|w[1]|w[2]|w[3] == 0 {
		switch {
		case w[4] == 0 && w[5] == 0xFFFF:
			return appendIPv4(append(dst, "::ffff:"...), b[12:])
		case w[4] == 0 && w[5] == 0 && w[6] != 0:
			return appendIPv4(append(dst, "::"...), b[12:])
		case w[4] == 0xFFFF && w[5] == 0 && w[6] != 0:
			return appendIPv4(append(dst, "::ffff:0:"...), b[12:])
		}
	}
	// Longest run of at least two zero groups, the first one on a tie.
	best, bestLen := -1, 1
	for i := 0; i < 8; {
		if w[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && w[j] == 0 {
			j++
		}
		if j-i > bestLen {
			best, bestLen = i, j-i
		}
		i = j
	}
	for i := 0; i < 8; i++ {
		if i == best {
			dst = append(dst, ':', ':')
			i += bestLen - 1
			continue
		}
		if i > 0 && i != best+bestLen {
			dst = append(dst, ':')
		}
		dst = strconv.AppendUint(dst, uint64(w[i]), 16)
	}
	return dst
}

// Socket address families (Windows ws2def.h).
const (
	afInet  = 2
	afInet6 = 23
)

// appendSockAddr appends a SOCKADDR_IN or SOCKADDR_IN6 as address and port,
// or any other data in hex.
func appendSockAddr(dst, b []byte) []byte {
	if len(b) >= 8 {
		port := binary.BigEndian.Uint16(b[2:])
		switch binary.LittleEndian.Uint16(b) {
		case afInet:
			dst = appendIPv4(dst, b[4:8])
			if port != 0 {
				dst = append(dst, ':')
				dst = decimal.AppendUint(dst, uint64(port))
			}
			return dst
		case afInet6:
			if len(b) < 24 {
				break
			}
			var scope uint32
			if len(b) >= 28 {
				scope = binary.LittleEndian.Uint32(b[24:])
			}
			if port != 0 {
				dst = append(dst, '[')
			}
			dst = appendIPv6(dst, b[8:24])
			if scope != 0 {
				dst = append(dst, '%')
				dst = decimal.AppendUint(dst, uint64(scope))
			}
			if port != 0 {
				dst = append(dst, ']', ':')
				dst = decimal.AppendUint(dst, uint64(port))
			}
			return dst
		}
	}
	return appendHexBytes0x(dst, b)
}

// appendErrorText appends the message of a Win32 error, NTSTATUS or
// HRESULT code.
func appendErrorText(dst []byte, k rkind, code uint32) []byte {
	var s, unknown string
	var ok bool
	switch k {
	case kWin32:
		s, ok = win32ErrorText(code)
		unknown = "Unknown Win32 Error code: "
	case kNTStatus:
		s, ok = ntstatusText(code)
		unknown = "Unknown NTSTATUS Error code: "
	default:
		s, ok = hresultText(code)
		unknown = "Unknown HResult Error code: "
	}
	if ok {
		return append(dst, s...)
	}
	return appendHex0x(append(dst, unknown...), uint64(code))
}

// jsonQuoteFrom turns dst[start:] into a JSON string literal in place.
func jsonQuoteFrom(dst []byte, start int) []byte {
	s := dst[start:]
	clean := true
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' {
				clean = false
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			clean = false
			break
		}
		i += size
	}
	if clean {
		end := len(dst)
		dst = append(dst, 0, 0)
		copy(dst[start+1:], dst[start:end])
		dst[start] = '"'
		dst[end+1] = '"'
		return dst
	}
	end := len(dst)
	dst = appendJSONBytes(dst, dst[start:end])
	n := copy(dst[start:], dst[end:])
	return dst[:start+n]
}

// appendJSONString appends s as a JSON string literal.
func appendJSONString(dst []byte, s string) []byte { return appendJSONText(dst, s) }

// appendJSONBytes appends b as a JSON string literal.
func appendJSONBytes(dst, b []byte) []byte { return appendJSONText(dst, b) }

// jsonPlain marks the bytes appendJSONText copies as they are: printable
// ASCII but for the quote and the backslash.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendJSONText appends s as a JSON string literal: control characters
// escaped, invalid UTF-8 bytes as \ufffd.
func appendJSONText[T string | []byte](dst []byte, s T) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			// A run of bytes that need no escape is copied at once.
			j := i
			for j < len(s) && jsonPlain[s[j]] {
				j++
			}
			if j > i {
				dst = append(dst, s[i:j]...)
				i = j
				continue
			}
			dst = appendJSONByte(dst, c)
			i++
			continue
		}
		// At most 4 bytes: the conversion stays on the stack.
		r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// appendJSONByte appends an ASCII byte, escaped as JSON needs.
func appendJSONByte(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	}
	if c < 0x20 {
		return append(dst, '\\', 'u', '0', '0', lowerHex[c>>4], lowerHex[c&15])
	}
	return append(dst, c)
}
