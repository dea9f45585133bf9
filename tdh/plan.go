package tdh

import (
	"encoding/binary"

	"github.com/etwkit/etw/internal/decimal"
)

// JSONPlan is what rendering events of one schema for programs needs that
// the schema alone decides, worked out once instead of for every event:
// each top-level property's JSON key, whether it is printable, whether
// its values may have names, how its integer values render (a number, a
// decimal or "0x" text), and the message string parsed into literal text
// and inserts. Its methods give exactly what [AppendDataJSONErr],
// [AppendMapsJSON] and [AppendMessage] give (with nil RenderOptions); a
// value that does not fit its property's plan (another size, undecoded)
// and a [Decoded] of another schema take those functions' way.
//
// A plan is reset in place for another schema ([JSONPlan.Reset]), which
// reuses its storage: an encoder keeps plans in a cache of its own (they
// are not safe for concurrent use while being reset).
type JSONPlan struct {
	schema *Event
	props  []planProp
	keys   []byte  // the properties' `,"Name":`, back to back
	print  []int32 // the printable properties' indexes, in order
	names  bool    // a printable top-level property may have names
	msg    []msgPiece
	// msgValid: the message's text is valid UTF-8. The message's text
	// escaped by msgEscBy (see AppendMessageEscaped) and its steps, made
	// at the first use of each escaper.
	msgValid    bool
	msgEscBy    MessageEscaper
	msgEsc      []byte
	msgEscSteps []escStep
}

// planProp is the plan of one top-level property.
type planProp struct {
	prop      *Property
	keyStart  int32 // the key is keys[keyStart:keyEnd], after a comma at keyStart
	keyEnd    int32
	print     bool
	names     bool // mayHaveNames
	mapped    bool // its map applies to its values (mappable)
	charArray bool
	// wide: its scalar values are UTF-16 strings whose text is
	// AppendString's (appendStringValue's but for reduced strings).
	wide bool
	// num[n] is how a scalar integer value of n bytes renders (n <= 8).
	num [9]numPlan
	// mofPad: RenderOptions.MOFPadding right-aligns its unsigned
	// decimal values (a MOF schema's uint32 without another out-type).
	mofPad bool
	// names0 is the names' JSON of the last scalar value of a names
	// property (appendNamedScalar).
	names0 namesMemo
}

// namesMemo is the names' JSON (appendNamesJSON) of one scalar value of
// a property, known by its size and its bytes: a value's names depend on
// nothing else for one schema (its map, its out-type's error texts).
type namesMemo struct {
	size int    // bytes of the value; 0: none kept
	val  uint64 // its bytes, little-endian
	ok   bool   // it has names
	json []byte
}

// maxNamesMemo bounds the names' JSON a plan keeps per property (a
// bitmap's names can be long).
const maxNamesMemo = 256

// numPlan is how an integer scalar of one size renders; zero: not known
// from the schema (the value is not an integer of that size, or it
// renders as something else).
type numPlan struct {
	json   uint8 // data JSON: jsonUint, jsonInt or 0
	text   rkind // text: kDec or kHex, or kNone (map text, errors, …)
	signed bool
}

const (
	jsonUint = 1 + iota
	jsonInt
)

// NewJSONPlan returns the plan of schema s.
func NewJSONPlan(s *Event) *JSONPlan {
	pl := new(JSONPlan)
	pl.Reset(s)
	return pl
}

// Schema returns the schema the plan is for.
func (pl *JSONPlan) Schema() *Event { return pl.schema }

// Reset makes pl the plan of schema s (nil: of no schema), reusing its
// storage.
func (pl *JSONPlan) Reset(s *Event) {
	pl.schema, pl.names = s, false
	pl.props, pl.keys, pl.print, pl.msg = pl.props[:0], pl.keys[:0], pl.print[:0], pl.msg[:0]
	pl.msgValid, pl.msgEscBy, pl.msgEscSteps = false, nil, pl.msgEscSteps[:0]
	if s == nil {
		return
	}
	for i := range s.Properties {
		p := &s.Properties[i]
		pp := planProp{prop: p, keyStart: int32(len(pl.keys))}
		pl.keys = append(appendJSONString(append(pl.keys, ','), p.Name), ':')
		pp.keyEnd = int32(len(pl.keys))
		pp.print = Printable(p)
		if pp.print {
			pl.print = append(pl.print, int32(i))
		}
		pp.names = mayHaveNames(p, 0)
		pl.names = pl.names || (pp.print && pp.names)
		pp.mapped = p.Map != nil && len(p.Map.Entries) > 0 && (p.InType == InTypeUInt8 || p.InType == InTypeUInt16 ||
			p.InType == InTypeUInt32 || p.InType == InTypeHexInt32 || (s.Source == SourceMOF && p.InType.IsInteger()))
		pp.charArray = isCharArray(p)
		pp.wide = p.InType.IsWide() && p.EffectiveOutType() != OutTypeReducedString
		for _, n := range [...]int{1, 2, 4, 8} {
			pp.num[n] = numPlanOf(p, n)
		}
		pp.mofPad = s.Source == SourceMOF && p.InType == InTypeUInt32 && (p.OutType == OutTypeNull || p.OutType == OutTypeUnsignedInt)
		if k := len(pl.props); k < cap(pl.props) {
			// The names' memo keeps the storage of the property before.
			pp.names0.json = pl.props[: k+1 : k+1][k].names0.json[:0]
		}
		pl.props = append(pl.props, pp)
	}
	pl.msg = parseMessage(pl.msg, s.Message)
	pl.planMessage()
}

// numPlanOf returns how a scalar integer value of p of n bytes renders
// (see intValue, intKind and appendDataJSON).
func numPlanOf(p *Property, n int) numPlan {
	in := p.InType
	if !intSized(in, n) {
		return numPlan{}
	}
	np := numPlan{signed: in.IsSigned()}
	switch k := intKind(in, p.EffectiveOutType(), n); k {
	case kBool, kChar, kIPv4, kFileTime, kPort:
		// Another kind of value in data JSON, and in text.
		return np
	case kDec, kHex:
		np.text = k
	}
	np.json = jsonUint
	if np.signed {
		np.json = jsonInt
	}
	return np
}

// parseMessage appends the pieces of msg to dst.
func parseMessage(dst []msgPiece, msg string) []msgPiece {
	for i := 0; i < len(msg); {
		var m msgPiece
		m, i = nextPiece(msg, i)
		dst = append(dst, m)
	}
	return dst
}

// mine reports whether d was decoded with the plan's schema, so that its
// top-level values are the plan's properties'.
func (pl *JSONPlan) mine(d *Decoded) bool {
	return pl != nil && pl.schema != nil && d != nil && d.Schema == pl.schema && len(pl.props) == len(pl.schema.Properties)
}

// AppendDataJSONErr is [AppendDataJSONErr] through the plan (pl may be
// nil).
func (pl *JSONPlan) AppendDataJSONErr(dst []byte, d *Decoded) ([]byte, error) {
	if !pl.mine(d) {
		return appendTopJSON(dst, d, true)
	}
	return pl.appendTopJSON(dst, d)
}

// appendTopJSON is appendTopJSON's data JSON of d, of the plan's schema.
func (pl *JSONPlan) appendTopJSON(dst []byte, d *Decoded) ([]byte, error) {
	dst = append(dst, '{')
	b := budget{limit: len(dst) + MaxTextBytes}
	top := d.Top()    // without absent optional ones
	comma := int32(1) // none before the first key
	for _, i := range pl.print {
		if int(i) >= len(top) {
			break
		}
		if len(dst) >= b.limit { // b.over
			b.truncated = true
			break
		}
		pp := &pl.props[i]
		dst = append(dst, pl.keys[pp.keyStart+comma:pp.keyEnd]...)
		comma = 0
		v := &top[i]
		if v.Kind == Scalar && v.Prop == pp.prop {
			// Most values: integers the plan renders, and UTF-16
			// strings (what appendData gives them).
			if pp.wide {
				dst = appendWideJSON(dst, v.Data)
				continue
			}
			if pp.smallUint(v) {
				dst = decimal.AppendUint(dst, leUint(v.Data))
				continue
			}
			if u, ok := pp.uint64Of(v); ok {
				if u <= MaxExactJSONInt {
					dst = decimal.AppendUint(dst, u)
				} else {
					dst = AppendJSONUint(dst, u)
				}
				continue
			}
			if out, ok := pp.appendNumber(dst, v); ok {
				dst = out
				continue
			}
		}
		dst = pp.appendData(dst, d, v, &b)
	}
	return append(dst, '}'), b.err()
}

// appendData appends top-level value v of property pp as appendDataJSON
// renders it.
func (pp *planProp) appendData(dst []byte, d *Decoded, v *Value, b *budget) []byte {
	if v.Prop == pp.prop {
		switch v.Kind {
		case Scalar:
			if out, ok := pp.appendNumber(dst, v); ok {
				return out
			}
		case Array:
			out, _ := appendJSONContainer(dst, d, v, 0, b, true, pp)
			return out
		}
	}
	return appendDataJSON(dst, d, v, 0, b)
}

// uint64Of returns scalar v of property pp when it is an unsigned 64-bit
// integer (ids, addresses), which appendNumber writes as AppendJSONUint
// does: the loops write it with no call of appendNumber, and those up to
// 2^53 with no call of AppendJSONUint.
func (pp *planProp) uint64Of(v *Value) (uint64, bool) {
	if len(v.Data) != 8 || pp.num[8].json != jsonUint {
		return 0, false
	}
	return binary.LittleEndian.Uint64(v.Data), true
}

// smallUint reports whether scalar v of property pp is an unsigned
// integer below 64 bits, which appendNumber writes as its digits (below
// 2^53: a number, whatever it is): a loop writes it with no call.
func (pp *planProp) smallUint(v *Value) bool {
	n := len(v.Data)
	return n < 8 && pp.num[n].json == jsonUint
}

// appendNumber appends scalar v of property pp as a data-JSON number when
// its plan says how; ok is false otherwise.
func (pp *planProp) appendNumber(dst []byte, v *Value) ([]byte, bool) {
	b := v.Data
	n := len(b)
	if n > 8 {
		return dst, false
	}
	switch pp.num[n].json {
	case jsonUint:
		if n < 8 {
			// Below 2^53: a number, whatever it is.
			return decimal.AppendUint(dst, leUint(b)), true
		}
		return AppendJSONUint(dst, binary.LittleEndian.Uint64(b)), true
	case jsonInt:
		return AppendJSONInt(dst, leInt(b)), true
	}
	return dst, false
}

// appendText appends scalar v of property pp as appendText renders it
// (no options) when its plan says how; ok is false otherwise.
func (pp *planProp) appendText(dst []byte, v *Value) ([]byte, bool) {
	n := len(v.Data)
	if n > 8 || pp.mapped {
		return dst, false
	}
	np := &pp.num[n]
	switch np.text {
	case kDec:
		if np.signed {
			return decimal.AppendInt(dst, leInt(v.Data)), true
		}
		return decimal.AppendUint(dst, leUint(v.Data)), true
	case kHex:
		return appendHex0x(dst, leUint(v.Data)), true
	}
	return dst, false
}

// AppendText appends the text of d's top-level value i as
// [AppendTextLimit] renders it within limit, with its integer and UTF-16
// string scalars rendered from the plan (the XML and CSV dumps' values):
// pl may be nil or another schema's, which renders as AppendTextLimit
// does. cut is AppendTextLimit's. digits reports an integer the plan
// rendered: decimal or 0x-hexadecimal digits, a leading minus, spaces
// before a padded MOF uint32, which need no escaping in XML nor quotes in
// CSV.
func (pl *JSONPlan) AppendText(dst []byte, d *Decoded, i int, o *RenderOptions, limit int) (out []byte, cut, digits bool) {
	v := &d.Values[i]
	pp := pl.scalarProp(d, i)
	switch {
	case pp == nil:
	case pp.wide:
		// A scalar has no budget to pass: it is never cut.
		return AppendString(dst, v.Data, true), false, false
	case pp.mofPad && o != nil && o.MOFPadding:
		if n := len(v.Data); n <= 8 && pp.num[n].text == kDec && !pp.mapped {
			return appendPadded(dst, leUint(v.Data), mofUInt32Width), false, true
		}
	default:
		if out, ok := pp.appendText(dst, v); ok {
			return out, false, true
		}
	}
	out, cut = AppendTextLimit(dst, d, v, o, limit)
	return out, cut, false
}

// scalarProp returns the plan of d's top-level value i when the value is
// a scalar of the plan's property i, else nil.
func (pl *JSONPlan) scalarProp(d *Decoded, i int) *planProp {
	v := &d.Values[i]
	if v.Kind != Scalar || !pl.mine(d) || i >= len(pl.props) {
		return nil
	}
	if pp := &pl.props[i]; v.Prop == pp.prop {
		return pp
	}
	return nil
}

// leUint returns the little-endian integer of b (1, 2, 4 or 8 bytes).
func leUint(b []byte) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	case 8:
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// leInt returns the little-endian integer of b (1, 2, 4 or 8 bytes),
// sign-extended.
func leInt(b []byte) int64 {
	switch len(b) {
	case 1:
		return int64(int8(b[0]))
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(b)))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(b)))
	case 8:
		return int64(binary.LittleEndian.Uint64(b))
	}
	return 0
}

// appendNamedScalar is appendNamedMember of scalar value v of the plan's
// top-level property i (v.Prop is its property): the key from the plan's
// keys, the names from the property's memo when its last value had the
// same bytes.
func (pl *JSONPlan) appendNamedScalar(dst []byte, d *Decoded, i int, v *Value, bud *budget, comma bool) ([]byte, bool) {
	pp := &pl.props[i]
	n := len(v.Data)
	if n != 1 && n != 2 && n != 4 && n != 8 {
		return appendNamedMember(dst, d, pp.prop.Name, v, 0, bud, comma)
	}
	m, u := &pp.names0, leUint(v.Data)
	if m.size == n && m.val == u && !m.ok {
		return dst, false
	}
	mark := len(dst)
	start := pp.keyStart + 1
	if comma {
		start = pp.keyStart
	}
	dst = append(dst, pl.keys[start:pp.keyEnd]...)
	if m.size == n && m.val == u {
		return append(dst, m.json...), true
	}
	k := len(dst)
	dst, ok := appendNamesJSON(dst, d, v, 0, bud)
	m.size, m.val, m.ok = n, u, ok
	if !ok {
		return dst[:mark], false
	}
	if len(dst)-k > maxNamesMemo {
		m.size = 0 // rendered again each time, not kept
	} else {
		m.json = append(m.json[:0], dst[k:]...)
	}
	return dst, true
}

// AppendMapsJSON is [AppendMapsJSON] through the plan (pl may be nil).
func (pl *JSONPlan) AppendMapsJSON(dst []byte, d *Decoded) ([]byte, bool) {
	if !pl.mine(d) {
		pl = nil
	}
	return appendMapsJSON(dst, d, pl)
}

// AppendMessage is [AppendMessage] of msg with no RenderOptions through
// the plan (pl may be nil); msg is normally the plan's schema's message.
func (pl *JSONPlan) AppendMessage(dst []byte, msg string, d *Decoded) []byte {
	if pl == nil || pl.schema == nil || msg != pl.schema.Message {
		pl = nil
	}
	return appendMessage(dst, msg, d, nil, pl)
}

// appendInsert appends insert m, value v, as appendInsert does with no
// RenderOptions; d is of the plan's schema.
func (pl *JSONPlan) appendInsert(dst []byte, d *Decoded, m *msgPiece, v *Value, limit int) []byte {
	if !textSpec(m.spec) || m.n > len(pl.props) || v.Prop != pl.props[m.n-1].prop {
		return appendInsert(dst, d, v, m.spec, nil, limit)
	}
	pp := &pl.props[m.n-1]
	switch v.Kind {
	case Scalar:
		if pp.wide {
			// appendStringValue's, for a UTF-16 string not reduced.
			return AppendString(dst, v.Data, true)
		}
		if out, ok := pp.appendText(dst, v); ok {
			return out
		}
	case Array:
		if pp.charArray {
			break
		}
		// AppendTextLimit of an array, its elements from the plan.
		b := budget{limit: limit}
		dst = appendTextArray(dst, d, children(d, v), nil, 0, &b, pp)
		if b.truncated || b.deep {
			dst = append(dst, TruncatedMarker...)
		}
		return dst
	}
	return appendInsert(dst, d, v, m.spec, nil, limit)
}
