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
	p := dec.PeekPlan(schema, ptrSize, name)
	return p.Peek(payload)
}

// PeekPlan is where [Decoder.Peek] finds a property in every payload of a
// schema, worked out once: a caller that peeks at many events of one
// schema keeps the plan and applies it to each payload ([PeekPlan.Peek]).
// It is valid as long as the schema is not changed.
type PeekPlan struct {
	props      []Property
	index      int // the property's, -1 if none
	off, end   int // where it lies; end 0 when not in the leading fixed-size run
	total      int // the run's end when the run is every property, else -1
	alternates bool
	width      int // uintWidth of the property at off:end (PeekUint's read)
}

// PeekPlan returns the plan by which Peek(schema, payload, ptrSize, name)
// reads any payload.
func (dec *Decoder) PeekPlan(schema *Event, ptrSize int, name string) PeekPlan {
	if ptrSize != 4 {
		ptrSize = 8
	}
	if dec.peeks == nil {
		dec.peeks = new(peekMemo)
	}
	l := dec.peeks.layout(dec, schema, ptrSize, name)
	p := PeekPlan{props: schema.Properties, index: l.index, off: l.off, end: l.end, total: l.total, alternates: len(schema.Alternates) > 0}
	if l.index >= 0 && l.end > 0 {
		p.width = uintWidth(&schema.Properties[l.index], l.end-l.off)
	}
	return p
}

// Peek returns what [Decoder.Peek] of payload with the plan's schema,
// pointer size and name returns.
func (p *PeekPlan) Peek(payload []byte) (v Value, found, peeked bool) {
	if found, peeked = p.locate(payload); !found {
		return Value{}, false, peeked
	}
	return Value{Prop: &p.props[p.index], Offset: p.off, Data: payload[p.off:p.end]}, true, true
}

// PeekUint returns what Peek(payload) followed by [Value.Uint] gives,
// found being Uint's ok. It makes no Value: a caller that copies the one
// Peek returns waits for the stores that made it (the copy's wider loads
// cannot take their bytes from those narrower stores): 34 % of
// analysis.Enricher.pushDecoding's samples, where the JSON dump peeks at
// each CPU sample's thread (perf annotate, 2026-11-29).
func (p *PeekPlan) PeekUint(payload []byte) (v uint64, found, peeked bool) {
	if found, peeked = p.locate(payload); !found {
		return 0, false, peeked
	}
	v, found = readUint(payload[p.off:p.end], p.width)
	return v, found, true
}

// locate reports whether the plan's property is at p.off:p.end in payload
// (found), and whether that is known without decoding it (peeked).
func (p *PeekPlan) locate(payload []byte) (found, peeked bool) {
	if p.total != len(payload) && p.alternates {
		// A decoding that does not fit exactly tries the alternates
		// (total is -1 when the run is not every property).
		return false, false
	}
	switch {
	case p.index < 0:
		return false, true // no property of that name
	case p.end == 0 || p.end > len(payload):
		return false, false
	}
	return true, true
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
