package tdh

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
// thread) costs a cache lookup instead of a decoding of all its
// properties: the Decoder keeps where the last few (schema, name) pairs
// lie.
func (dec *Decoder) Peek(schema *Event, payload []byte, ptrSize int, name string) (v Value, found, peeked bool) {
	if ptrSize != 4 {
		ptrSize = 8
	}
	if dec.peeks == nil {
		dec.peeks = new(peekCache)
	}
	l := dec.peeks.layout(schema, ptrSize, name)
	if l.total != len(payload) && len(schema.Alternates) > 0 {
		// A decoding that does not fit exactly tries the alternates
		// (l.total is -1 when the schema is not all fixed-size scalars).
		return Value{}, false, false
	}
	switch {
	case l.index < 0:
		return Value{}, false, true // no property of that name
	case l.size == 0 || l.size > len(payload)-l.off:
		return Value{}, false, false
	}
	return Value{Prop: &schema.Properties[l.index], Offset: l.off, Data: payload[l.off : l.off+l.size]}, true, true
}

// peekLayout is where a property lies in every payload of a schema that
// holds it.
type peekLayout struct {
	schema *Event
	name   string
	ptr    int
	index  int // the property's (schemaIndex), -1 if none
	off    int // its offset, when the properties before it are fixed-size scalars
	size   int // its size; 0 when its place or size depends on the payload
	total  int // the size of every property when all are fixed-size scalars, else -1
}

// peekCache holds the layouts of the last (schema, name) pairs Peek met,
// direct-mapped by schema and name length: a pass peeks at a name or two
// of a few schemas.
type peekCache [32]peekLayout

func (c *peekCache) layout(schema *Event, ptrSize int, name string) *peekLayout {
	h := uint64(len(name))*0x9E3779B97F4A7C15 ^ uint64(ptrSize) ^ uint64(len(schema.Properties))<<8
	if len(name) > 0 {
		h ^= uint64(name[0]) << 16
	}
	l := &c[(h*0xC2B2AE3D27D4EB4F)>>(64-5)]
	if l.schema == schema && l.ptr == ptrSize && l.name == name {
		return l
	}
	*l = peekLayout{schema: schema, name: name, ptr: ptrSize, index: schemaIndex(schema.Properties, name), total: -1}
	props := schema.Properties
	if len(props) == 0 {
		l.total = 0
	}
	pos := 0
	for j := range props {
		p := &props[j]
		n := p.scalarSize(ptrSize)
		if p.IsArray || n <= 0 {
			break
		}
		if j == l.index {
			l.off, l.size = pos, n
		}
		pos += n
		if j == len(props)-1 {
			l.total = pos
		}
	}
	return l
}
