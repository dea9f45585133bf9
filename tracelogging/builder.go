package tracelogging

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
)

// ChannelTraceLogging is the channel of TraceLogging events'
// descriptors (WINEVENT_CHANNEL_TRACELOGGING); older decoders recognise
// TraceLogging events only on this channel.
const ChannelTraceLogging = 11

// TraceLogging in-types, as [Field.InType] holds them. Apart from
// [InBinary] and [InStruct] they share TDH's numbers.
const (
	InUnicodeString     = 1  // NUL-terminated UTF-16LE
	InAnsiString        = 2  // NUL-terminated 8-bit
	InInt8              = 3  // 1 byte
	InUInt8             = 4  // 1 byte
	InInt16             = 5  // 2 bytes
	InUInt16            = 6  // 2 bytes
	InInt32             = 7  // 4 bytes
	InUInt32            = 8  // 4 bytes
	InInt64             = 9  // 8 bytes
	InUInt64            = 10 // 8 bytes
	InFloat             = 11 // 4 bytes IEEE
	InDouble            = 12 // 8 bytes IEEE
	InBool32            = 13 // 4 bytes, 0 or 1
	InGUID              = 15 // 16 bytes, Windows layout
	InFileTime          = 17 // 8 bytes, 100 ns since 1601
	InSystemTime        = 18 // 8 × u16
	InSID               = 19 // 8 + 4 × sub-authority count
	InHexInt32          = 20 // 4 bytes
	InHexInt64          = 21 // 8 bytes
	InCountedString     = 22 // u16 byte count + UTF-16LE
	InCountedAnsiString = 23 // u16 byte count + bytes
	InCountedBinary     = 25 // u16 byte count + bytes
)

// Limits of the metadata encoding.
const (
	maxTags          = 0x0FFFFFFF // 28 bits
	maxStructMembers = 127
	maxOutType       = 0x7F
)

// filetimeUnixDifference is the number of seconds from 1601-01-01 to
// 1970-01-01.
const filetimeUnixDifference = 11644473600

// FieldValue is one field of an event to encode: its metadata and its
// payload bytes. Make FieldValues with this package's constructors
// ([UnicodeString], [Uint32], [Struct], [Array], …); a constructor given a
// value it cannot encode records an error that [Event.Encode] returns,
// so fields can be written inline without checking each one.
type FieldValue struct {
	meta Field
	data []byte
	err  error
}

// Field returns the metadata of the field, in TraceLogging numbering.
func (v FieldValue) Field() Field { return v.meta }

// Payload returns the payload bytes of the field (with any length or
// count prefix).
func (v FieldValue) Payload() []byte { return v.data }

// Err returns the error recorded when the field was made, or nil.
func (v FieldValue) Err() error { return v.err }

// Option sets a field's out-type or tags.
type Option func(*Field)

// WithOut sets the field's TraceLogging out-type ([OutHex], [OutPID],
// [OutString], …; 0–127), the rendering hint decoders apply. Struct
// fields take no out-type (theirs holds the member count).
func WithOut(out uint8) Option {
	return func(f *Field) { f.OutType = out }
}

// WithTags sets the field's tags (28 bits).
func WithTags(tags uint32) Option {
	return func(f *Field) { f.Tags = tags }
}

// fieldError reports a field that cannot be encoded.
type fieldError struct {
	path string
	msg  string
}

func (e *fieldError) Error() string {
	return fmt.Sprintf("tracelogging: field %q: %s", e.path, e.msg)
}

// within returns err with its field path placed under parent.
func within(parent string, err error) error {
	var fe *fieldError
	if !errors.As(err, &fe) {
		return err
	}
	path := parent
	switch {
	case fe.path == "":
	case parent == "" || fe.path[0] == '[':
		path = parent + fe.path
	default:
		path = parent + "." + fe.path
	}
	return &fieldError{path: path, msg: fe.msg}
}

func scalar(name string, in uint8, data []byte, opts []Option) FieldValue {
	v := FieldValue{meta: Field{Name: name, InType: in}, data: data}
	for _, o := range opts {
		o(&v.meta)
	}
	return v
}

func failed(name string, in uint8, format string, args ...any) FieldValue {
	return FieldValue{meta: Field{Name: name, InType: in}, err: &fieldError{path: name, msg: fmt.Sprintf(format, args...)}}
}

// UnicodeString makes a NUL-terminated UTF-16 string field (in-type 1).
// Invalid UTF-8 in v is encoded as U+FFFD; v may not contain NUL.
func UnicodeString(name, v string, opts ...Option) FieldValue {
	if strings.IndexByte(v, 0) >= 0 {
		return failed(name, InUnicodeString, "string contains a NUL, which would end it")
	}
	return scalar(name, InUnicodeString, binary.LittleEndian.AppendUint16(appendUTF16(nil, v), 0), opts)
}

// AnsiString makes a NUL-terminated 8-bit string field (in-type 2) from
// v's bytes as they are (this package's decoder reads them as UTF-8 when
// valid, else as Windows-1252; with out-type [OutUTF8], [OutJSON] or
// [OutXML] as UTF-8).
// v may not contain NUL.
func AnsiString(name, v string, opts ...Option) FieldValue {
	if strings.IndexByte(v, 0) >= 0 {
		return failed(name, InAnsiString, "string contains a NUL, which would end it")
	}
	return scalar(name, InAnsiString, append([]byte(v), 0), opts)
}

// CountedUnicodeString makes a counted UTF-16 string field (in-type 22): a
// u16 byte count, then the characters, no NUL. It holds up to 32767
// UTF-16 units; NULs are kept (most renderers stop at the first).
func CountedUnicodeString(name, v string, opts ...Option) FieldValue {
	b := appendUTF16(make([]byte, 2, 2+2*len(v)), v)
	if len(b)-2 > math.MaxUint16 {
		return failed(name, InCountedString, "%d bytes of UTF-16 exceed the u16 byte count", len(b)-2)
	}
	binary.LittleEndian.PutUint16(b, uint16(len(b)-2))
	return scalar(name, InCountedString, b, opts)
}

// CountedAnsiString makes a counted 8-bit string field (in-type 23): a
// u16 byte count, then v's bytes (up to 65535), no NUL.
func CountedAnsiString(name, v string, opts ...Option) FieldValue {
	if len(v) > math.MaxUint16 {
		return failed(name, InCountedAnsiString, "%d bytes exceed the u16 byte count", len(v))
	}
	return scalar(name, InCountedAnsiString, append(binary.LittleEndian.AppendUint16(nil, uint16(len(v))), v...), opts)
}

// Char16Array makes the UTF-16 form of a string that TraceLogging
// producers such as AMSI use: a variable-count array of UInt16 with the
// String out-type (u16 character count, then the characters, no NUL).
// Decoders show it as one string.
func Char16Array(name, v string, opts ...Option) FieldValue {
	b := appendUTF16(make([]byte, 2, 2+2*len(v)), v)
	n := (len(b) - 2) / 2
	if n > math.MaxUint16 {
		return failed(name, InUInt16, "%d UTF-16 units exceed the u16 count", n)
	}
	binary.LittleEndian.PutUint16(b, uint16(n))
	v2 := scalar(name, InUInt16, b, opts)
	v2.meta.Arity, v2.meta.OutType = ArityVCount, OutString
	return v2
}

// Char8Array makes a variable-count array of UInt8 with the String
// out-type from v's bytes (u16 count, then the bytes, no NUL); decoders
// show it as one 8-bit string.
func Char8Array(name, v string, opts ...Option) FieldValue {
	if len(v) > math.MaxUint16 {
		return failed(name, InUInt8, "%d bytes exceed the u16 count", len(v))
	}
	v2 := scalar(name, InUInt8, append(binary.LittleEndian.AppendUint16(nil, uint16(len(v))), v...), opts)
	v2.meta.Arity, v2.meta.OutType = ArityVCount, OutString
	return v2
}

func appendUTF16(b []byte, s string) []byte {
	for _, r := range s {
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			b = binary.LittleEndian.AppendUint16(b, uint16(r1))
			r = r2
		}
		b = binary.LittleEndian.AppendUint16(b, uint16(r))
	}
	return b
}

// Int8 makes a signed 8-bit integer field (in-type 3).
func Int8(name string, v int8, opts ...Option) FieldValue {
	return scalar(name, InInt8, []byte{byte(v)}, opts)
}

// Uint8 makes an unsigned 8-bit integer field (in-type 4). With
// [OutString] it is a character, with [OutBoolean] a bool, with [OutHex]
// hex.
func Uint8(name string, v uint8, opts ...Option) FieldValue {
	return scalar(name, InUInt8, []byte{v}, opts)
}

// Int16 makes a signed 16-bit integer field (in-type 5).
func Int16(name string, v int16, opts ...Option) FieldValue {
	return scalar(name, InInt16, binary.LittleEndian.AppendUint16(nil, uint16(v)), opts)
}

// Uint16 makes an unsigned 16-bit integer field (in-type 6).
func Uint16(name string, v uint16, opts ...Option) FieldValue {
	return scalar(name, InUInt16, binary.LittleEndian.AppendUint16(nil, v), opts)
}

// Port makes a TCP/UDP port field: a UInt16 with the Port out-type,
// stored in network (big-endian) order as decoders read it.
func Port(name string, port uint16, opts ...Option) FieldValue {
	f := scalar(name, InUInt16, binary.BigEndian.AppendUint16(nil, port), opts)
	f.meta.OutType = OutPort
	return f
}

// IPAddr makes an IP address field: an IPv4 address is a UInt32 holding
// the address bytes in order, with the IPv4 out-type; an IPv6 address is
// 16 bytes of TraceLogging binary with the IPv6 out-type. A zone is
// dropped.
func IPAddr(name string, a netip.Addr, opts ...Option) FieldValue {
	switch {
	case a.Is4():
		b := a.As4()
		f := scalar(name, InUInt32, b[:], opts)
		f.meta.OutType = OutIPv4
		return f
	case a.Is6():
		b := a.As16()
		f := Binary(name, b[:], opts...)
		f.meta.OutType = OutIPv6
		return f
	}
	return failed(name, InUInt32, "invalid IP address")
}

// Int32 makes a signed 32-bit integer field (in-type 7).
func Int32(name string, v int32, opts ...Option) FieldValue {
	return scalar(name, InInt32, binary.LittleEndian.AppendUint32(nil, uint32(v)), opts)
}

// Uint32 makes an unsigned 32-bit integer field (in-type 8).
func Uint32(name string, v uint32, opts ...Option) FieldValue {
	return scalar(name, InUInt32, binary.LittleEndian.AppendUint32(nil, v), opts)
}

// Int64 makes a signed 64-bit integer field (in-type 9).
func Int64(name string, v int64, opts ...Option) FieldValue {
	return scalar(name, InInt64, binary.LittleEndian.AppendUint64(nil, uint64(v)), opts)
}

// Uint64 makes an unsigned 64-bit integer field (in-type 10). With
// [OutFileTime] it is a FILETIME.
func Uint64(name string, v uint64, opts ...Option) FieldValue {
	return scalar(name, InUInt64, binary.LittleEndian.AppendUint64(nil, v), opts)
}

// Float32 makes a 32-bit floating-point field (in-type 11).
func Float32(name string, v float32, opts ...Option) FieldValue {
	return scalar(name, InFloat, binary.LittleEndian.AppendUint32(nil, math.Float32bits(v)), opts)
}

// Float64 makes a 64-bit floating-point field (in-type 12).
func Float64(name string, v float64, opts ...Option) FieldValue {
	return scalar(name, InDouble, binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)), opts)
}

// Bool32 makes a Win32 BOOL field (in-type 13): 4 bytes, 1 or 0.
func Bool32(name string, v bool, opts ...Option) FieldValue {
	var n uint32
	if v {
		n = 1
	}
	return scalar(name, InBool32, binary.LittleEndian.AppendUint32(nil, n), opts)
}

// Bool8 makes an 8-bit bool: a UInt8 field with the Boolean out-type.
func Bool8(name string, v bool, opts ...Option) FieldValue {
	var n uint8
	if v {
		n = 1
	}
	f := scalar(name, InUInt8, []byte{n}, opts)
	if f.meta.OutType == 0 {
		f.meta.OutType = OutBoolean
	}
	return f
}

// Binary makes a TraceLogging binary field (in-type 14): a u16 byte count,
// then up to 65535 bytes. Decoders expose the count as a hidden
// "<name>.Length" property. Binary fields cannot be array elements; use
// [CountedBinary] there.
func Binary(name string, v []byte, opts ...Option) FieldValue {
	if len(v) > math.MaxUint16 {
		return failed(name, InBinary, "%d bytes exceed the u16 byte count", len(v))
	}
	return scalar(name, InBinary, append(binary.LittleEndian.AppendUint16(nil, uint16(len(v))), v...), opts)
}

// CountedBinary makes a counted binary field (in-type 25): a u16 byte
// count, then up to 65535 bytes.
func CountedBinary(name string, v []byte, opts ...Option) FieldValue {
	if len(v) > math.MaxUint16 {
		return failed(name, InCountedBinary, "%d bytes exceed the u16 byte count", len(v))
	}
	return scalar(name, InCountedBinary, append(binary.LittleEndian.AppendUint16(nil, uint16(len(v))), v...), opts)
}

// GUID makes a GUID field (in-type 15), stored in Windows layout.
func GUID(name string, v uuid.UUID, opts ...Option) FieldValue {
	b := make([]byte, 16)
	etl.PutGUIDWindows(b, v)
	return scalar(name, InGUID, b, opts)
}

// FileTime makes a FILETIME field (in-type 17): 100 ns intervals since
// 1601-01-01 UTC. The zero time.Time is FILETIME 0; other times before
// 1601 or after year 30828 are an error.
func FileTime(name string, v time.Time, opts ...Option) FieldValue {
	ft, ok := ToFileTime(v)
	if !ok {
		return failed(name, InFileTime, "time %v is outside the FILETIME range", v)
	}
	return scalar(name, InFileTime, binary.LittleEndian.AppendUint64(nil, ft), opts)
}

// ToFileTime converts a time to a FILETIME; the zero time.Time is 0. ok is
// false for times before 1601 or at or after 2^63 100-ns intervals.
func ToFileTime(v time.Time) (ft uint64, ok bool) {
	if v.IsZero() {
		return 0, true
	}
	sec := v.Unix() + filetimeUnixDifference
	if sec < 0 || sec >= math.MaxInt64/10_000_000 {
		return 0, false
	}
	return uint64(sec)*10_000_000 + uint64(v.Nanosecond()/100), true
}

// SystemTime makes a SYSTEMTIME field (in-type 18) from v's calendar
// fields in v's own location (use v.UTC() for UTC), to the millisecond.
// Years outside 1601–30827 are an error.
func SystemTime(name string, v time.Time, opts ...Option) FieldValue {
	y, mo, d := v.Date()
	if y < 1601 || y > 30827 {
		return failed(name, InSystemTime, "year %d is outside the SYSTEMTIME range 1601–30827", y)
	}
	h, mi, s := v.Clock()
	le := binary.LittleEndian
	b := make([]byte, 0, 16)
	for _, n := range []int{y, int(mo), int(v.Weekday()), d, h, mi, s, v.Nanosecond() / 1e6} {
		b = le.AppendUint16(b, uint16(n))
	}
	return scalar(name, InSystemTime, b, opts)
}

// SID makes a SID field (in-type 19) from a binary SID: revision,
// sub-authority count n (at most 15), 6-byte authority, n × u32; its
// length must be 8 + 4n.
func SID(name string, sid []byte, opts ...Option) FieldValue {
	if len(sid) < 8 || sid[1] > 15 || len(sid) != 8+4*int(sid[1]) {
		return failed(name, InSID, "%d bytes are not a binary SID", len(sid))
	}
	return scalar(name, InSID, append([]byte(nil), sid...), opts)
}

// HexInt32 makes a 32-bit hex integer field (in-type 20).
func HexInt32(name string, v uint32, opts ...Option) FieldValue {
	return scalar(name, InHexInt32, binary.LittleEndian.AppendUint32(nil, v), opts)
}

// HexInt64 makes a 64-bit hex integer field (in-type 21).
func HexInt64(name string, v uint64, opts ...Option) FieldValue {
	return scalar(name, InHexInt64, binary.LittleEndian.AppendUint64(nil, v), opts)
}

// IntPtr makes a pointer-sized signed integer field: Int32 when ptrSize
// is 4, Int64 when it is 8 (TraceLogging has no pointer in-type; its
// IntPtr is an alias fixed by the producer's bitness).
func IntPtr(name string, v int64, ptrSize int, opts ...Option) FieldValue {
	switch {
	case ptrSize == 8:
		return Int64(name, v, opts...)
	case ptrSize == 4 && v == int64(int32(v)):
		return Int32(name, int32(v), opts...)
	case ptrSize == 4:
		return failed(name, InInt32, "%d does not fit a 4-byte IntPtr", v)
	}
	return failed(name, InInt64, "pointer size %d is neither 4 nor 8", ptrSize)
}

// UintPtr makes a pointer-sized unsigned integer field: UInt32 or UInt64.
func UintPtr(name string, v uint64, ptrSize int, opts ...Option) FieldValue {
	switch {
	case ptrSize == 8:
		return Uint64(name, v, opts...)
	case ptrSize == 4 && v <= math.MaxUint32:
		return Uint32(name, uint32(v), opts...)
	case ptrSize == 4:
		return failed(name, InUInt32, "%#x does not fit a 4-byte UIntPtr", v)
	}
	return failed(name, InUInt64, "pointer size %d is neither 4 nor 8", ptrSize)
}

// HexIntPtr makes a pointer-sized hex integer field: HexInt32 or HexInt64.
func HexIntPtr(name string, v uint64, ptrSize int, opts ...Option) FieldValue {
	switch {
	case ptrSize == 8:
		return HexInt64(name, v, opts...)
	case ptrSize == 4 && v <= math.MaxUint32:
		return HexInt32(name, uint32(v), opts...)
	case ptrSize == 4:
		return failed(name, InHexInt32, "%#x does not fit a 4-byte HexIntPtr", v)
	}
	return failed(name, InHexInt64, "pointer size %d is neither 4 nor 8", ptrSize)
}

// Custom makes a custom-serialized field: protocol (0–31, stored in the
// in-type bits) and schema go into the metadata, the value into the
// payload behind a u16 byte count. Decoders show the value as binary.
func Custom(name string, protocol uint8, schema, value []byte, opts ...Option) FieldValue {
	switch {
	case protocol > 0x1F:
		return failed(name, 0, "custom protocol %d does not fit 5 bits", protocol)
	case len(schema) > math.MaxUint16:
		return failed(name, protocol, "custom schema of %d bytes exceeds the u16 size", len(schema))
	case len(value) > math.MaxUint16:
		return failed(name, protocol, "%d bytes exceed the u16 byte count", len(value))
	}
	f := scalar(name, protocol, append(binary.LittleEndian.AppendUint16(nil, uint16(len(value))), value...), opts)
	f.meta.Arity = ArityCustom
	f.meta.Schema = append([]byte{}, schema...)
	return f
}

// Struct makes a struct field (in-type 24) of 1–127 members, which may be
// structs or arrays themselves. Options may set tags but no out-type.
func Struct(name string, members []FieldValue, opts ...Option) FieldValue {
	v := FieldValue{meta: Field{Name: name, InType: InStruct, Fields: make([]Field, 0, len(members))}}
	for _, o := range opts {
		o(&v.meta)
	}
	if len(members) == 0 || len(members) > maxStructMembers {
		v.err = &fieldError{path: name, msg: fmt.Sprintf("struct has %d members (1–127 allowed)", len(members))}
		return v
	}
	n := 0
	for _, m := range members {
		n += len(m.data)
	}
	v.data = make([]byte, 0, n)
	for _, m := range members {
		if m.err != nil && v.err == nil {
			v.err = within(name, m.err)
		}
		v.meta.Fields = append(v.meta.Fields, m.meta)
		v.data = append(v.data, m.data...)
	}
	return v
}

// Array makes a variable-count array field: a u16 element count in the
// payload, then the elements, each made by elem (a constructor such as
// [Uint32] or [UnicodeString], or a func returning a [Struct]) from one
// value. All elements must have the same metadata; when values is empty,
// elem is called with T's zero value to learn it. Options apply to
// the array (out-type, tags). An array of UInt8/Int8/UInt16 with
// [OutString] is shown as one string (see [Char16Array]).
func Array[T any](name string, values []T, elem func(name string, v T, opts ...Option) FieldValue, opts ...Option) FieldValue {
	return array(name, ArityVCount, values, elem, opts)
}

// FixedArray makes a constant-count array field: the count (len(values))
// goes into the metadata and the payload holds only the elements. See
// [Array] for elem.
func FixedArray[T any](name string, values []T, elem func(name string, v T, opts ...Option) FieldValue, opts ...Option) FieldValue {
	return array(name, ArityCCount, values, elem, opts)
}

func array[T any](name string, arity uint8, values []T, elem func(string, T, ...Option) FieldValue, opts []Option) FieldValue {
	var proto FieldValue
	if len(values) > 0 {
		proto = elem("", values[0])
	} else {
		var zero T
		proto = elem("", zero)
	}
	v := FieldValue{meta: proto.meta}
	v.meta.Name, v.meta.Arity = name, arity
	fail := func(path, format string, args ...any) FieldValue {
		v.data, v.err = nil, &fieldError{path: path, msg: fmt.Sprintf(format, args...)}
		return v
	}
	switch {
	case len(values) > math.MaxUint16:
		return fail(name, "%d elements exceed the u16 count", len(values))
	case proto.meta.Arity != ArityScalar:
		return fail(name, "array elements must be scalars or structs, not arrays or custom fields")
	case proto.meta.InType == InBinary:
		return fail(name, "TraceLogging binary (in-type 14) cannot be an array element; use CountedBinary")
	}
	if arity == ArityCCount {
		v.meta.Count = uint16(len(values))
	} else {
		v.data = binary.LittleEndian.AppendUint16(v.data, uint16(len(values)))
	}
	for i, x := range values {
		e := elem("", x)
		path := name + "[" + strconv.Itoa(i) + "]"
		if e.err != nil {
			v.data, v.err = nil, within(path, e.err)
			return v
		}
		if !sameShape(&e.meta, &proto.meta) {
			return fail(path, "element metadata differs from the array's (%+v vs %+v)", e.meta, proto.meta)
		}
		v.data = append(v.data, e.data...)
	}
	for _, o := range opts {
		o(&v.meta)
	}
	return v
}

// sameShape reports whether two fields have the same metadata but for the
// name.
func sameShape(a, b *Field) bool {
	x, y := *a, *b
	x.Name, y.Name = "", ""
	return reflect.DeepEqual(x, y)
}

// Event is a TraceLogging event to encode: its name, tags and fields.
type Event struct {
	Name   string
	Tags   uint32 // 28 bits
	Fields []FieldValue
}

// Metadata returns the event's metadata, checking every field.
func (e *Event) Metadata() (*EventMetadata, error) {
	m := &EventMetadata{Name: e.Name, Tags: e.Tags, Fields: make([]Field, 0, len(e.Fields))}
	for i := range e.Fields {
		if err := e.Fields[i].err; err != nil {
			return nil, err
		}
		m.Fields = append(m.Fields, e.Fields[i].meta)
	}
	if err := checkMetadata(m); err != nil {
		return nil, err
	}
	return m, nil
}

// checkMetadata checks that m can be encoded.
func checkMetadata(m *EventMetadata) error {
	if strings.IndexByte(m.Name, 0) >= 0 {
		return fmt.Errorf("tracelogging: event name %q contains a NUL", m.Name)
	}
	if m.Tags > maxTags {
		return fmt.Errorf("tracelogging: event tags %#x exceed 28 bits", m.Tags)
	}
	for i := range m.Fields {
		if err := checkField(&m.Fields[i], ""); err != nil {
			return err
		}
	}
	return nil
}

// checkField checks metadata that options could have made unencodable.
func checkField(f *Field, parent string) error {
	path := joinPath(parent, f.Name)
	fail := func(format string, args ...any) error {
		return &fieldError{path: path, msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case strings.IndexByte(f.Name, 0) >= 0:
		return fail("name contains a NUL")
	case f.Tags > maxTags:
		return fail("tags %#x exceed 28 bits", f.Tags)
	case f.OutType > maxOutType:
		return fail("out-type %d exceeds 7 bits", f.OutType)
	case f.Arity != ArityCustom && !validInType(f.InType):
		return fail("unknown in-type %d", f.InType)
	case f.InType == InStruct && f.Arity != ArityCustom:
		if f.OutType != 0 {
			return fail("a struct takes no out-type")
		}
		if len(f.Fields) == 0 || len(f.Fields) > maxStructMembers {
			return fail("struct has %d members (1–127 allowed)", len(f.Fields))
		}
		for i := range f.Fields {
			if err := checkField(&f.Fields[i], path); err != nil {
				return err
			}
		}
	}
	return nil
}

// Encode returns the event's metadata blob (extended item 11) and its
// payload (the event's user data). The error names the first field that
// cannot be encoded.
func (e *Event) Encode() (meta, payload []byte, err error) {
	m, err := e.Metadata()
	if err != nil {
		return nil, nil, err
	}
	if meta, err = encodeMetadata(m); err != nil {
		return nil, nil, err
	}
	return meta, e.AppendPayload(nil), nil
}

// AppendPayload appends the event's payload to dst without checking the
// fields (see [Event.Encode]).
func (e *Event) AppendPayload(dst []byte) []byte {
	for i := range e.Fields {
		dst = append(dst, e.Fields[i].data...)
	}
	return dst
}

// ETLData returns what an [etl.Event] needs to carry this event for the
// named provider: the extended items {provider traits, event metadata}
// in the order Windows writes them, and the user data. The record should
// also have the channel [ChannelTraceLogging] and, for a provider whose
// GUID follows the name rule, ProviderID = [ProviderGUID](provider).
func (e *Event) ETLData(provider string) (ext []etl.ExtendedItem, userData []byte, err error) {
	if strings.IndexByte(provider, 0) >= 0 {
		return nil, nil, fmt.Errorf("tracelogging: provider name %q contains a NUL", provider)
	}
	meta, payload, err := e.Encode()
	if err != nil {
		return nil, nil, err
	}
	return []etl.ExtendedItem{
		{Type: etl.ExtProvTraits, Data: EncodeProviderTraits(provider, nil)},
		{Type: etl.ExtEventSchemaTL, Data: meta},
	}, payload, nil
}
