package tracelogging

import (
	"fmt"

	"github.com/google/uuid"

	"github.com/etwkit/etw/tdh"
)

// Compile turns event metadata into a TDH schema for the given provider.
// Errors are [*MetadataError]s naming the field.
func Compile(m *EventMetadata, providerName string, provider uuid.UUID) (*tdh.Event, error) {
	ev := &tdh.Event{
		Source:       tdh.SourceTraceLogging,
		ProviderName: providerName,
		ProviderGUID: provider,
		EventName:    m.Name,
		Tags:         m.Tags,
	}
	props, err := compileFields(m.Fields, nil, 0)
	if err != nil {
		err.Event = m.Name
		return nil, err
	}
	ev.Properties = props
	if err := tdh.Validate(ev); err != nil {
		me := &MetadataError{Event: m.Name, Offset: -1, Msg: err.Error()}
		if se, ok := err.(*tdh.SchemaError); ok {
			me.Field, me.Msg = se.Property, se.Msg
		}
		return nil, me
	}
	return ev, nil
}

func compileFields(fields []Field, path *fieldPath, depth int) ([]tdh.Property, *MetadataError) {
	props := make([]tdh.Property, 0, len(fields))
	// synth adds a hidden u16 property holding a length or count that the
	// payload carries in front of the value, and returns its index.
	synth := func(name string) int {
		props = append(props, tdh.Property{Name: name, InType: tdh.InTypeUInt16, OutType: tdh.OutTypeNoPrint, LengthIndex: -1, CountIndex: -1})
		return len(props) - 1
	}
	for i := range fields {
		f := &fields[i]
		name := path.child(f.Name)
		fail := func(format string, args ...any) *MetadataError {
			return &MetadataError{Field: name.String(), Offset: -1, Msg: fmt.Sprintf(format, args...)}
		}
		p := tdh.Property{Name: f.Name, LengthIndex: -1, CountIndex: -1, Tags: f.Tags}
		switch {
		case f.Arity == ArityCustom:
			// Custom-serialized (the in-type names the protocol): u16 byte
			// count + bytes, shown as binary.
			p.InType, p.OutType = tdh.InTypeBinary, tdh.OutTypeHexBinary
			p.LengthIndex = synth(f.Name + ".Length")
			props = append(props, p)
			continue
		case f.InType == InStruct:
			if len(f.Fields) == 0 {
				return nil, fail("struct has no members")
			}
			if depth >= MaxNesting {
				return nil, fail("structs nested more than %d levels deep", MaxNesting)
			}
			members, err := compileFields(f.Fields, name, depth+1)
			if err != nil {
				return nil, err
			}
			p.Members = members
		default:
			in, out, err := translate(f.InType, f.OutType)
			if err != nil {
				return nil, fail("%v", err)
			}
			p.InType, p.OutType = in, out
		}
		switch f.Arity {
		case ArityCCount:
			p.IsArray, p.Count = true, f.Count
		case ArityVCount:
			// A counted array of 8- or 16-bit integers shown as a string
			// is a string of that many characters.
			if f.OutType == OutString && (p.InType == tdh.InTypeUInt16 || p.InType == tdh.InTypeUInt8 || p.InType == tdh.InTypeInt8) {
				p.LengthIndex = synth(f.Name + ".Length")
				p.InType, p.OutType = tdh.InTypeAnsiString, tdh.OutTypeNull
				if f.InType == uint8(tdh.InTypeUInt16) {
					p.InType = tdh.InTypeUnicodeString
				}
				props = append(props, p)
				continue
			}
			p.IsArray, p.CountIndex = true, synth(f.Name+".Count")
		}
		if f.InType == InBinary {
			if p.IsArray {
				return nil, fail("arrays of TraceLogging binary (in-type 14) are not allowed; use counted binary (25)")
			}
			p.LengthIndex = synth(f.Name + ".Length")
		}
		props = append(props, p)
	}
	return props, nil
}

// translate maps TraceLogging in- and out-types to TDH's.
func translate(in, out uint8) (tdh.InType, tdh.OutType, error) {
	var t tdh.InType
	switch {
	case !validInType(in) || in == InStruct:
		return 0, 0, fmt.Errorf("unsupported TraceLogging in-type %d", in)
	case in == InBinary:
		t = tdh.InTypeBinary
	default:
		t = tdh.InType(in) // 1–13, 15, 17–23, 25 share TDH's numbers
	}
	var o tdh.OutType
	switch out {
	case 0:
	case OutSigned, OutUnsigned:
		// TDH has no out-type for these: give the integer the in-type of
		// the same size and the wanted signedness.
		t = withSign(t, out == OutSigned)
	case OutNoPrint:
		o = tdh.OutTypeNoPrint
	case OutString:
		o = tdh.OutTypeString
	case OutBoolean:
		o = tdh.OutTypeBoolean
	case OutHex:
		switch t.FixedSize(8) {
		case 1:
			o = tdh.OutTypeHexInt8
		case 2:
			o = tdh.OutTypeHexInt16
		case 4:
			o = tdh.OutTypeHexInt32
		case 8:
			o = tdh.OutTypeHexInt64
		default:
			o = tdh.OutTypeHexBinary
		}
	case OutPID:
		o = tdh.OutTypePID
	case OutTID:
		o = tdh.OutTypeTID
	case OutPort:
		o = tdh.OutTypePort
	case OutIPv4:
		o = tdh.OutTypeIPv4
	case OutIPv6:
		o = tdh.OutTypeIPv6
	case OutSocketAddress:
		o = tdh.OutTypeSocketAddress
	case OutXML:
		o = tdh.OutTypeXML
	case OutJSON:
		o = tdh.OutTypeJSON
	case OutWin32Error:
		o = tdh.OutTypeWin32Error
	case OutNTStatus:
		o = tdh.OutTypeNTStatus
	case OutHResult:
		o = tdh.OutTypeHResult
	case OutFileTime:
		if t == tdh.InTypeInt64 || t == tdh.InTypeUInt64 {
			t = tdh.InTypeFileTime
		}
		o = tdh.OutTypeDateTime
	default:
		if out >= 33 && out <= 38 {
			o = tdh.OutType(out) // shared numbering from 33 on
		}
	}
	return t, o, nil
}

// withSign returns the integer in-type of t's size with the given
// signedness (decimal); other in-types are returned unchanged.
func withSign(t tdh.InType, signed bool) tdh.InType {
	var s, u tdh.InType
	switch t {
	case tdh.InTypeInt8, tdh.InTypeUInt8:
		s, u = tdh.InTypeInt8, tdh.InTypeUInt8
	case tdh.InTypeInt16, tdh.InTypeUInt16:
		s, u = tdh.InTypeInt16, tdh.InTypeUInt16
	case tdh.InTypeInt32, tdh.InTypeUInt32, tdh.InTypeHexInt32:
		s, u = tdh.InTypeInt32, tdh.InTypeUInt32
	case tdh.InTypeInt64, tdh.InTypeUInt64, tdh.InTypeHexInt64:
		s, u = tdh.InTypeInt64, tdh.InTypeUInt64
	default:
		return t
	}
	if signed {
		return s
	}
	return u
}
