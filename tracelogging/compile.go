package tracelogging

import (
	"fmt"
	"sync"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// Compile turns event metadata into a TDH schema for the given provider.
func Compile(m *EventMetadata, providerName string, provider uuid.UUID) (*tdh.Event, error) {
	ev := &tdh.Event{
		Source:       tdh.SourceTraceLogging,
		ProviderName: providerName,
		ProviderGUID: provider,
		EventName:    m.Name,
		Tags:         m.Tags,
	}
	props, err := compileFields(m.Fields)
	if err != nil {
		return nil, fmt.Errorf("tracelogging: event %q: %w", m.Name, err)
	}
	ev.Properties = props
	return ev, nil
}

func compileFields(fields []Field) ([]tdh.Property, error) {
	props := make([]tdh.Property, 0, len(fields))
	// synth adds a hidden u16 property holding a length or count that the
	// payload carries in front of the value, and returns its index.
	synth := func(name string) int {
		props = append(props, tdh.Property{Name: name, InType: tdh.InTypeUInt16, OutType: tdh.OutTypeNoPrint, LengthIndex: -1, CountIndex: -1})
		return len(props) - 1
	}
	for i := range fields {
		f := &fields[i]
		p := tdh.Property{Name: f.Name, LengthIndex: -1, CountIndex: -1, Tags: f.Tags}
		if f.InType == InStruct {
			members, err := compileFields(f.Fields)
			if err != nil {
				return nil, err
			}
			p.Members = members
		} else {
			in, out, err := translate(f.InType, f.OutType)
			if err != nil {
				return nil, fmt.Errorf("field %q: %w", f.Name, err)
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
		case ArityCustom:
			p.InType, p.OutType, p.Members = tdh.InTypeBinary, tdh.OutTypeHexBinary, nil
			p.LengthIndex = synth(f.Name + ".Length")
			props = append(props, p)
			continue
		}
		if f.InType == InBinary {
			if p.IsArray {
				return nil, fmt.Errorf("field %q: arrays of TraceLogging binary are not allowed", f.Name)
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
	case in == 0 || in == 16 || in > 25:
		return 0, 0, fmt.Errorf("unsupported TraceLogging in-type %d", in)
	case in == InBinary:
		t = tdh.InTypeBinary
	default:
		t = tdh.InType(in) // 1–13, 15, 17–23, 25 share TDH's numbers
	}
	var o tdh.OutType
	switch out {
	case 0, OutSigned, OutUnsigned:
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

// Cache compiles each distinct (provider, metadata) pair once. It is safe
// for concurrent use.
type Cache struct {
	mu sync.RWMutex
	m  map[string][]cacheEntry // by metadata bytes
}

type cacheEntry struct {
	provider uuid.UUID
	traits   string
	schema   *tdh.Event
}

// lookup finds a compiled schema without allocating.
func (c *Cache) lookup(provider uuid.UUID, traits, meta []byte) *tdh.Event {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, e := range c.m[string(meta)] {
		if e.provider == provider && e.traits == string(traits) {
			return e.schema
		}
	}
	return nil
}

// Schema returns the TDH schema of a TraceLogging event, from its extended
// items 11 and 12. ok is false for events without TraceLogging metadata.
func (c *Cache) Schema(ev *etl.Event) (schema *tdh.Event, ok bool, err error) {
	var meta, traits []byte
	for _, x := range ev.Extended {
		switch x.Type {
		case etl.ExtEventSchemaTL:
			meta = x.Data
		case etl.ExtProvTraits:
			traits = x.Data
		}
	}
	if meta == nil {
		return nil, false, nil
	}
	if s := c.lookup(ev.ProviderID, traits, meta); s != nil {
		return s, true, nil
	}
	m, err := ParseEventMetadata(meta)
	if err != nil {
		return nil, true, err
	}
	name := ""
	if traits != nil {
		pt, err := etl.ParseProviderTraits(traits)
		if err != nil {
			return nil, true, fmt.Errorf("tracelogging: provider traits: %w", err)
		}
		name = pt.Name
	}
	s, err := Compile(m, name, ev.ProviderID)
	if err != nil {
		return nil, true, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string][]cacheEntry{}
	}
	c.m[string(meta)] = append(c.m[string(meta)], cacheEntry{ev.ProviderID, string(traits), s})
	c.mu.Unlock()
	return s, true, nil
}
