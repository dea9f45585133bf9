// Package tracelogging decodes TraceLogging self-describing events (and
// .NET EventSource events in self-describing mode): the event metadata
// carried in extended data item 11 and the provider traits of item 12.
//
// The metadata is compiled into a [tdh.Event] schema with TDH's numbering,
// so payloads decode and render with the same engine as manifest and MOF
// events. TraceLogging types that TDH numbers differently are translated:
// binary (14) and custom fields carry a u16 length in the payload, and
// variable-count arrays a u16 element count; both become a synthesized,
// non-printing length or count property followed by the value, which is
// how TDH exposes them.
package tracelogging

import (
	"encoding/binary"
	"fmt"
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
	OutSigned        = 17
	OutUnsigned      = 18
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

// ParseEventMetadata decodes an event metadata blob.
func ParseEventMetadata(b []byte) (*EventMetadata, error) {
	if len(b) < 2 {
		return nil, fmt.Errorf("tracelogging: event metadata of %d bytes", len(b))
	}
	total := int(binary.LittleEndian.Uint16(b))
	if total < 4 || total > len(b) {
		return nil, fmt.Errorf("tracelogging: event metadata size %d outside the %d-byte item", total, len(b))
	}
	p := &parser{b: b[:total], pos: 2}
	m := &EventMetadata{}
	var err error
	if m.Tags, err = p.tags(); err != nil {
		return nil, err
	}
	if m.Name, err = p.cstring("event name"); err != nil {
		return nil, err
	}
	var flat []Field
	for p.pos < len(p.b) {
		f, err := p.field()
		if err != nil {
			return nil, err
		}
		flat = append(flat, f)
	}
	rest, err := nest(flat, &m.Fields, -1)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("tracelogging: %d fields left after nesting structs", len(rest))
	}
	return m, nil
}

// nest moves the flat field list into dst, giving each struct (whose
// OutType holds its member count) the fields that follow it. n < 0 takes
// every field.
func nest(flat []Field, dst *[]Field, n int) ([]Field, error) {
	for n != 0 && len(flat) > 0 {
		f := flat[0]
		flat = flat[1:]
		if f.InType == InStruct {
			members := int(f.OutType)
			if members == 0 || members > len(flat) {
				return nil, fmt.Errorf("tracelogging: struct %q claims %d members, %d fields follow", f.Name, members, len(flat))
			}
			f.OutType = 0
			var err error
			if flat, err = nest(flat, &f.Fields, members); err != nil {
				return nil, err
			}
			if f.Fields == nil {
				f.Fields = []Field{}
			}
		}
		*dst = append(*dst, f)
		n--
	}
	if n > 0 {
		return nil, fmt.Errorf("tracelogging: struct is missing %d members", n)
	}
	return flat, nil
}

type parser struct {
	b   []byte
	pos int
}

func (p *parser) byte(what string) (byte, error) {
	if p.pos >= len(p.b) {
		return 0, fmt.Errorf("tracelogging: metadata ends before the %s at offset %d", what, p.pos)
	}
	c := p.b[p.pos]
	p.pos++
	return c, nil
}

func (p *parser) cstring(what string) (string, error) {
	for i := p.pos; i < len(p.b); i++ {
		if p.b[i] == 0 {
			s := string(p.b[p.pos:i])
			p.pos = i + 1
			return s, nil
		}
	}
	return "", fmt.Errorf("tracelogging: %s at offset %d is not NUL-terminated", what, p.pos)
}

// tags reads a chained tag list: 7 bits a byte, most significant first,
// continuing while the high bit is set; up to 28 bits.
func (p *parser) tags() (uint32, error) {
	var v uint32
	for shift := 21; ; shift -= 7 {
		c, err := p.byte("tags")
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
			return 0, fmt.Errorf("tracelogging: tag chain too long at offset %d", p.pos)
		}
	}
}

func (p *parser) field() (Field, error) {
	var f Field
	var err error
	if f.Name, err = p.cstring("field name"); err != nil {
		return f, err
	}
	in, err := p.byte("in-type of " + f.Name)
	if err != nil {
		return f, err
	}
	f.InType, f.Arity = in&0x1F, in&0x60
	if in&0x80 != 0 {
		out, err := p.byte("out-type of " + f.Name)
		if err != nil {
			return f, err
		}
		f.OutType = out & 0x7F
		if out&0x80 != 0 {
			if f.Tags, err = p.tags(); err != nil {
				return f, err
			}
		}
	}
	switch f.Arity {
	case ArityCCount:
		if p.pos+2 > len(p.b) {
			return f, fmt.Errorf("tracelogging: metadata ends before the count of %s", f.Name)
		}
		f.Count = binary.LittleEndian.Uint16(p.b[p.pos:])
		p.pos += 2
	case ArityCustom:
		if p.pos+2 > len(p.b) {
			return f, fmt.Errorf("tracelogging: metadata ends before the schema size of %s", f.Name)
		}
		n := int(binary.LittleEndian.Uint16(p.b[p.pos:]))
		p.pos += 2
		if p.pos+n > len(p.b) {
			return f, fmt.Errorf("tracelogging: schema of %s (%d bytes) runs past the metadata", f.Name, n)
		}
		f.Schema = p.b[p.pos : p.pos+n]
		p.pos += n
	}
	return f, nil
}
