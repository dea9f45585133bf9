// Package tracelogging decodes and encodes TraceLogging self-describing
// events (and .NET EventSource events in self-describing mode): the event
// metadata carried in extended data item 11 and the provider traits of
// item 12 (decoding.md §4).
//
// Decoding: [ParseEventMetadata] reads a metadata blob, and [Compile]
// turns it into a [tdh.Event] schema with TDH's numbering, so payloads
// decode and render with the same engine as manifest and MOF events.
// TraceLogging types that TDH numbers differently are translated: binary
// (14) and custom fields carry a u16 length in the payload, and
// variable-count arrays a u16 element count; both become a synthesized,
// non-printing "<name>.Length" or "<name>.Count" property followed by the
// value, which is how TDH exposes them. A variable-count array of 8- or
// 16-bit integers with the String out-type becomes one string. A [Cache]
// does both once per distinct blob and finds the schema of an
// [etl.Event]. Damaged metadata gives a [*MetadataError] naming the
// field.
//
// Encoding: an [Event] holds [FieldValue]s made by constructors for every
// TraceLogging type ([UnicodeString], [Uint32], [GUID], [Struct],
// [Array], [Custom], …); [Event.Encode] returns the metadata blob and the
// payload, and [Event.ETLData] the extended items and user data of an
// [etl.Event].
//
// Provider GUIDs: [ProviderGUID] derives the GUID EventSource and
// TraceLogging give a provider name; [NameMatchesGUID] checks a provider
// against it.
package tracelogging

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
)

// TraceLogging in-types (5 bits) that differ from TDH's.
const (
	InBinary = 14 // u16 byte count + bytes
	InStruct = 24
)

// Arity of a field (InMeta bits 5–6).
const (
	ArityScalar = 0x00
	ArityCCount = 0x20 // constant count in the metadata
	ArityVCount = 0x40 // u16 count in the payload
	ArityCustom = 0x60 // custom-serialized: u16 byte count + bytes
)

// TraceLogging out-types (7 bits) whose numbers differ from TDH's.
const (
	OutNoPrint       = 1
	OutString        = 2
	OutBoolean       = 3
	OutHex           = 4
	OutPID           = 5
	OutTID           = 6
	OutPort          = 7
	OutIPv4          = 8
	OutIPv6          = 9
	OutSocketAddress = 10
	OutXML           = 11
	OutJSON          = 12
	OutWin32Error    = 13
	OutNTStatus      = 14
	OutHResult       = 15
	OutFileTime      = 16
	OutSigned        = 17 // decimal, signed whatever the in-type
	OutUnsigned      = 18 // decimal, unsigned whatever the in-type
)

// TraceLogging out-types from 33 on, numbered as TDH numbers them.
const (
	OutDateTimeCultureInsensitive = 33
	OutUTF8                       = 35 // 8-bit strings as UTF-8
	OutPKCS7WithTypeInfo          = 36
	OutCodePointer                = 37
	OutDateTimeUTC                = 38
)

// EventMetadata is the decoded event metadata blob (extended item 11).
type EventMetadata struct {
	Name   string
	Tags   uint32
	Fields []Field
}

// Field is one field of the event metadata, in TraceLogging numbering.
// Struct fields hold their members in Fields.
type Field struct {
	Name    string
	InType  uint8 // 5-bit TraceLogging in-type
	Arity   uint8 // ArityScalar, ArityCCount, ArityVCount or ArityCustom
	OutType uint8 // 7-bit TraceLogging out-type (0 if absent)
	Tags    uint32
	Count   uint16 // ArityCCount: element count
	Schema  []byte // ArityCustom: the custom schema
	Fields  []Field
}

// MetadataError reports event metadata that cannot be decoded or
// compiled. It names the field being read where one is known and keeps the
// raw metadata blob, so that a caller can still show the event's bytes.
type MetadataError struct {
	Event  string // event name, if it was read
	Field  string // dotted path of the field ("st.member"), "" if none
	Offset int    // offset in the metadata blob, -1 if not known
	Msg    string
	Meta   []byte // the metadata blob (extended item 11), if known
}

func (e *MetadataError) Error() string {
	s := "tracelogging: "
	if e.Event != "" {
		s += fmt.Sprintf("event %q: ", e.Event)
	}
	if e.Field != "" {
		s += fmt.Sprintf("field %q: ", e.Field)
	}
	s += e.Msg
	if e.Offset >= 0 {
		s += fmt.Sprintf(" (metadata offset %d)", e.Offset)
	}
	return s
}

// ParseEventMetadata decodes an event metadata blob. Errors are
// [*MetadataError]s naming the field where the blob is damaged; the
// parser never panics, whatever the input.
func ParseEventMetadata(b []byte) (*EventMetadata, error) {
	fail := func(off int, format string, args ...any) error {
		return &MetadataError{Offset: off, Msg: fmt.Sprintf(format, args...), Meta: b}
	}
	if len(b) < 2 {
		return nil, fail(0, "%d-byte blob is too short for the size word", len(b))
	}
	total := int(binary.LittleEndian.Uint16(b))
	if total < 4 {
		return nil, fail(0, "metadata size %d is below the 4-byte minimum", total)
	}
	if total > len(b) {
		return nil, fail(0, "metadata size %d outside the %d-byte item", total, len(b))
	}
	p := &parser{b: b[:total], pos: 2, meta: b}
	m := &EventMetadata{}
	var err error
	if m.Tags, err = p.tags(nil); err != nil {
		return nil, err
	}
	if m.Name, err = p.cstring(nil, true); err != nil {
		return nil, err
	}
	p.event = m.Name
	if m.Fields, err = p.fields(nil, -1, 0); err != nil {
		return nil, err
	}
	return m, nil
}

type parser struct {
	b     []byte
	pos   int
	meta  []byte // the whole blob, for errors
	event string
}

func (p *parser) errorf(field *fieldPath, off int, format string, args ...any) *MetadataError {
	return &MetadataError{Event: p.event, Field: field.String(), Offset: off, Msg: fmt.Sprintf(format, args...), Meta: p.meta}
}

// MaxNesting bounds the nesting of TraceLogging structs in event metadata:
// a top-level struct is at level 1. Deeper metadata is a [MetadataError]
// (an array of structs 32 levels deep decodes into values 64 levels deep,
// tdh.MaxDepth).
const MaxNesting = 32

// fieldPath is the dotted path of a field, built as a chain from the
// field up so that naming each field costs nothing until an error needs
// its path as a string (joining at every level would cost the square of
// the nesting).
type fieldPath struct {
	parent *fieldPath
	name   string
}

func (f *fieldPath) child(name string) *fieldPath { return &fieldPath{f, name} }

// String returns the path, "" for nil.
func (f *fieldPath) String() string {
	if f == nil {
		return ""
	}
	var names []string
	for x := f; x != nil; x = x.parent {
		names = append(names, x.name)
	}
	slices.Reverse(names)
	return strings.Join(names, ".")
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// fields reads n fields (all that remain if n < 0) of the struct at path,
// nested depth levels deep, each struct (whose out-type byte holds its
// member count) with its members.
func (p *parser) fields(path *fieldPath, n, depth int) ([]Field, error) {
	var out []Field
	for i := 0; n < 0 && p.pos < len(p.b) || i < n; i++ {
		if p.pos >= len(p.b) {
			return nil, p.errorf(path, p.pos, "struct declares %d members but the metadata ends after %d", n, i)
		}
		f, err := p.field(path)
		if err != nil {
			return nil, err
		}
		if f.InType == InStruct && f.Arity != ArityCustom {
			members := int(f.OutType)
			f.OutType = 0
			if members == 0 {
				return nil, p.errorf(path.child(f.Name), p.pos, "struct has no members (1–127 allowed)")
			}
			if depth >= MaxNesting {
				return nil, p.errorf(path.child(f.Name), p.pos, "structs nested more than %d levels deep", MaxNesting)
			}
			if f.Fields, err = p.fields(path.child(f.Name), members, depth+1); err != nil {
				return nil, err
			}
		}
		out = append(out, f)
	}
	return out, nil
}

func (p *parser) byte(path *fieldPath, what string) (byte, error) {
	if p.pos >= len(p.b) {
		return 0, p.errorf(path, p.pos, "metadata ends before the %s", what)
	}
	c := p.b[p.pos]
	p.pos++
	return c, nil
}

// cstring reads a NUL-terminated name: the event name if event is set,
// else the name of a field under path.
func (p *parser) cstring(path *fieldPath, event bool) (string, error) {
	for i := p.pos; i < len(p.b); i++ {
		if p.b[i] == 0 {
			s := string(p.b[p.pos:i])
			p.pos = i + 1
			return s, nil
		}
	}
	partial := string(p.b[p.pos:])
	if event {
		return "", p.errorf(nil, p.pos, "event name %q is not NUL-terminated", partial)
	}
	return "", p.errorf(path.child(partial), p.pos, "field name is not NUL-terminated (truncated metadata?)")
}

// tags reads a chained tag list: 7 bits a byte, most significant first,
// continuing while the high bit is set; up to 28 bits.
func (p *parser) tags(path *fieldPath) (uint32, error) {
	var v uint32
	for shift := 21; ; shift -= 7 {
		c, err := p.byte(path, "end of the tags")
		if err != nil {
			return 0, err
		}
		if shift >= 0 {
			v |= uint32(c&0x7F) << shift
		}
		if c&0x80 == 0 {
			return v, nil
		}
		if shift < -7*8 {
			return 0, p.errorf(path, p.pos, "tag chain too long")
		}
	}
}

// validInType reports whether a 5-bit in-type is one TraceLogging defines.
func validInType(t uint8) bool {
	return t != 0 && t != 16 && t <= 25
}

func (p *parser) field(path *fieldPath) (Field, error) {
	var f Field
	var err error
	if f.Name, err = p.cstring(path, false); err != nil {
		return f, err
	}
	name := path.child(f.Name)
	in, err := p.byte(name, "in-type")
	if err != nil {
		return f, err
	}
	f.InType, f.Arity = in&0x1F, in&0x60
	if f.Arity != ArityCustom && !validInType(f.InType) {
		return f, p.errorf(name, p.pos-1, "unknown in-type %d (in-type byte %#02x)", f.InType, in)
	}
	if in&0x80 != 0 {
		out, err := p.byte(name, "out-type")
		if err != nil {
			return f, err
		}
		f.OutType = out & 0x7F
		if out&0x80 != 0 {
			if f.Tags, err = p.tags(name); err != nil {
				return f, err
			}
		}
	}
	switch f.Arity {
	case ArityCCount:
		if p.pos+2 > len(p.b) {
			return f, p.errorf(name, p.pos, "metadata ends before the array count")
		}
		f.Count = binary.LittleEndian.Uint16(p.b[p.pos:])
		p.pos += 2
	case ArityCustom:
		if p.pos+2 > len(p.b) {
			return f, p.errorf(name, p.pos, "metadata ends before the custom schema size")
		}
		n := int(binary.LittleEndian.Uint16(p.b[p.pos:]))
		p.pos += 2
		if p.pos+n > len(p.b) {
			return f, p.errorf(name, p.pos, "custom schema of %d bytes runs past the metadata (%d bytes left)", n, len(p.b)-p.pos)
		}
		f.Schema = append([]byte{}, p.b[p.pos:p.pos+n]...)
		p.pos += n
	}
	return f, nil
}
