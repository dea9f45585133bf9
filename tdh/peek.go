package tdh

import "math"

// Peek returns the top-level property called name of payload laid out by
// schema, as Decode(schema, payload, ptrSize) followed by
// [Decoded.Get](name) gives it, without decoding the payload: when the
// property is one of the schema's leading fixed-size scalars and the
// payload holds it (and all before it), its place does not depend on the
// rest. found tells whether the property is there; peeked is false when
// Peek cannot tell without decoding (a property before it of variable
// size, an array or struct, a payload too short, a schema whose
// Alternates a decoding might choose instead): decode then.
//
// An event of which only a property or two are read (a CPU sample's
// thread) costs a lookup in a small memo instead of a decoding of all its
// properties. The memo keeps, per (schema, name, pointer size), what the
// Decoder's caches of names (Get's) and of leading fixed-size runs
// (Decode's) say: a lookup in those two costs three times as much.
func (dec *Decoder) Peek(schema *Event, payload []byte, ptrSize int, name string) (v Value, found, peeked bool) {
	if ptrSize != 4 {
		ptrSize = 8
	}
	if dec.peeks == nil {
		dec.peeks = new(peekMemo)
	}
	l := dec.peeks.layout(dec, schema, ptrSize, name)
	if l.total != len(payload) && len(schema.Alternates) > 0 {
		// A decoding that does not fit exactly tries the alternates
		// (l.total is -1 when the run is not every property).
		return Value{}, false, false
	}
	switch {
	case l.index < 0:
		return Value{}, false, true // no property of that name
	case l.end == 0 || l.end > len(payload):
		return Value{}, false, false
	}
	return Value{Prop: &schema.Properties[l.index], Offset: l.off, Data: payload[l.off:l.end]}, true, true
}

// peekLayout is where a property lies in every payload of a schema that
// holds it.
type peekLayout struct {
	schema *Event
	name   string
	ptr    int
	index  int // the property's (schemaIndex), -1 if none
	off    int // its offset, when it is in the leading fixed-size run
	end    int // its end; 0 when not in the run
	total  int // the run's end when the run is every property, else -1
}

// peekMemo holds the layouts of the last (schema, name, pointer size)
// triples Peek met, direct-mapped: a pass peeks at a name or two of a few
// schemas.
type peekMemo [32]peekLayout

func (c *peekMemo) layout(dec *Decoder, schema *Event, ptr int, name string) *peekLayout {
	h := uint64(len(name))*0x9E3779B97F4A7C15 ^ uint64(ptr) ^ uint64(len(schema.Properties))<<8
	if len(name) > 0 {
		h ^= uint64(name[0]) << 16
	}
	l := &c[(h*0xC2B2AE3D27D4EB4F)>>(64-5)]
	if l.schema == schema && l.ptr == ptr && l.name == name {
		return l
	}
	props := schema.Properties
	ends := dec.layouts.fixedRun(props, ptr)
	*l = peekLayout{schema: schema, name: name, ptr: ptr, index: -1, total: -1}
	switch {
	case len(props) > math.MaxInt32:
		l.index = schemaIndex(props, name)
	case len(props) > 0:
		l.index = dec.names.index(props, name)
	}
	if l.index >= 0 && l.index < len(ends) {
		l.end = int(ends[l.index])
		if l.index > 0 {
			l.off = int(ends[l.index-1])
		}
	}
	switch {
	case len(props) == 0:
		l.total = 0
	case len(ends) == len(props):
		l.total = int(ends[len(ends)-1])
	}
	return l
}
