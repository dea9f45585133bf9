package tracelogging

import (
	"encoding/binary"
	"fmt"
)

// AppendTags appends a tag value (28 bits) in the chained encoding: 7 bits
// a byte, most significant first, stopping once the remaining bits are 0.
func AppendTags(b []byte, tags uint32) []byte {
	tags &= 0x0FFFFFFF
	for shift := 21; ; shift -= 7 {
		c := byte(tags>>uint(shift)) & 0x7F
		rest := tags & (1<<uint(shift) - 1)
		if shift == 0 || rest == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// EncodeEventMetadata builds an event metadata blob (extended item 11).
// Struct fields (OutType 0) are written with their member count in the
// out-type byte; the result is what ParseEventMetadata reads back. Names
// with NUL, tags beyond 28 bits, out-types beyond 7 bits, unknown
// in-types, structs of 0 or more than 127 members and blobs over 65535
// bytes are errors naming the field.
func EncodeEventMetadata(m *EventMetadata) ([]byte, error) {
	if err := checkMetadata(m); err != nil {
		return nil, err
	}
	return encodeMetadata(m)
}

func encodeMetadata(m *EventMetadata) ([]byte, error) {
	b := []byte{0, 0}
	b = AppendTags(b, m.Tags)
	b = append(append(b, m.Name...), 0)
	var err error
	if b, err = appendFields(b, m.Fields); err != nil {
		return nil, err
	}
	if len(b) > 0xFFFF {
		return nil, fmt.Errorf("tracelogging: metadata of %d bytes exceeds 65535", len(b))
	}
	binary.LittleEndian.PutUint16(b, uint16(len(b)))
	return b, nil
}

func appendFields(b []byte, fields []Field) ([]byte, error) {
	for _, f := range fields {
		b = append(append(b, f.Name...), 0)
		out := f.OutType
		isStruct := f.InType == InStruct && f.Arity != ArityCustom
		if isStruct {
			if len(f.Fields) == 0 || len(f.Fields) > 127 {
				return nil, fmt.Errorf("tracelogging: struct %q has %d members (1–127 allowed)", f.Name, len(f.Fields))
			}
			out = uint8(len(f.Fields))
		}
		in := f.InType&0x1F | f.Arity&0x60
		if out != 0 || f.Tags != 0 {
			b = append(b, in|0x80)
			if f.Tags != 0 {
				b = AppendTags(append(b, out|0x80), f.Tags)
			} else {
				b = append(b, out)
			}
		} else {
			b = append(b, in)
		}
		switch f.Arity {
		case ArityCCount:
			b = binary.LittleEndian.AppendUint16(b, f.Count)
		case ArityCustom:
			b = binary.LittleEndian.AppendUint16(b, uint16(len(f.Schema)))
			b = append(b, f.Schema...)
		}
		if isStruct {
			var err error
			if b, err = appendFields(b, f.Fields); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

// EncodeProviderTraits builds a provider traits blob (extended item 12)
// with the provider name and, if group is non-nil, a provider group trait.
func EncodeProviderTraits(name string, group []byte) []byte {
	b := []byte{0, 0}
	b = append(append(b, name...), 0)
	if len(group) == 16 {
		b = binary.LittleEndian.AppendUint16(b, 19)
		b = append(append(b, 1), group...)
	}
	binary.LittleEndian.PutUint16(b, uint16(len(b)))
	return b
}
