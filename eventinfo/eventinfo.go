package eventinfo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/tdh"
)

// MetadataGUID is the class GUID of the KernelTraceControl MetaData events
// (EventMetadataGuid in KernelTraceControl.h), whose opcodes 32 and 33
// carry TRACE_EVENT_INFO and EVENT_MAP_INFO structures.
var MetadataGUID = uuid.MustParse("bbccf6c1-6cd1-48c4-80ff-839482e37671")

// Opcodes (event types) of the MetaData events.
const (
	// OpcodeEventInfo: the payload is one TRACE_EVENT_INFO.
	OpcodeEventInfo = 32
	// OpcodeEventMapInfo: the payload is a provider GUID followed by one
	// EVENT_MAP_INFO.
	OpcodeEventMapInfo = 33
)

// Reasons a payload does not convert; a [*FormatError] wraps one of them.
var (
	// ErrTruncated: the payload ends inside a structure or an array of
	// structures that its counts announce.
	ErrTruncated = errors.New("payload too short")
	// ErrBadOffset: an offset points outside the payload, or at a string
	// with no terminating NUL before the end of the payload.
	ErrBadOffset = errors.New("offset outside the payload")
	// ErrBadStruct: a struct's member range is outside the property array,
	// overlaps the top-level properties or another struct's members, or
	// nests too deep.
	ErrBadStruct = errors.New("malformed struct")
	// ErrUnsupported: the structure is well formed but describes something
	// the tdh engine cannot represent (a pattern map, a binary property of
	// fixed length 0, an unknown in-type or decoding source, an array of
	// items that take no payload bytes, …).
	ErrUnsupported = errors.New("not representable as a tdh schema")
)

// FormatError reports a payload that does not convert.
type FormatError struct {
	// Offset is the byte offset in the payload (of the MetaData event) of
	// the member at fault.
	Offset int
	// Field names the member with tdh.h's names, e.g.
	// "EventPropertyInfoArray[3].countPropertyIndex" or
	// "EVENT_MAP_INFO.EntryCount".
	Field string
	Msg   string
	// Err is the reason: ErrTruncated, ErrBadOffset, ErrBadStruct,
	// [tdh.ErrOuterReference], [tdh.ErrBadReference] or ErrUnsupported.
	Err error
}

// Error formats the error as "eventinfo: payload offset N (Field): message".
func (e *FormatError) Error() string {
	return "eventinfo: payload offset " + strconv.Itoa(e.Offset) + " (" + e.Field + "): " + e.Msg
}

// Unwrap returns the reason.
func (e *FormatError) Unwrap() error { return e.Err }

// Layout sizes and limits.
const (
	traceEventInfoSize = 112 // fixed part of TRACE_EVENT_INFO
	propertyInfoSize   = 24  // EVENT_PROPERTY_INFO
	guidSize           = 16
	mapInfoHeaderSize  = 16 // EVENT_MAP_INFO without entries
	mapEntrySize       = 8  // EVENT_MAP_ENTRY
	maxStructDepth     = 32 // nesting levels of structs
	maxKeywordNames    = 64 // one per keyword bit
)

// PROPERTY_FLAGS.
const (
	propStruct           = 0x1
	propParamLength      = 0x2
	propParamCount       = 0x4
	propParamFixedLength = 0x10
	propParamFixedCount  = 0x20
	propHasTags          = 0x40
	propHasCustomSchema  = 0x80
)

// tagsMask keeps the 28 bits of EVENT_PROPERTY_INFO.Tags.
const tagsMask = 0x0FFFFFFF

// buf reads the little-endian members and strings of one structure. base
// is the payload offset of b[0], for error messages.
type buf struct {
	b    []byte
	base int
	strs map[uint32]cachedStr
	// budget bounds the bytes scanned for strings, so that offsets pointing
	// into each other's strings cannot make decoding quadratic.
	budget int
}

func newBuf(b []byte, base int) *buf {
	return &buf{b: b, base: base, budget: 2*len(b) + 64}
}

func (r *buf) u16(off int) uint16 { return binary.LittleEndian.Uint16(r.b[off:]) }
func (r *buf) u32(off int) uint32 { return binary.LittleEndian.Uint32(r.b[off:]) }

func (r *buf) errf(off int, field string, reason error, format string, args ...any) *FormatError {
	return &FormatError{Offset: r.base + off, Field: field, Msg: fmt.Sprintf(format, args...), Err: reason}
}

// str reads the UTF-16LE string at offset off (relative to b), named by
// the member at fieldOff. Offset 0 is the empty string.
func (r *buf) str(off uint32, fieldOff int, field string) (string, error) {
	s, _, err := r.strNext(off, fieldOff, field)
	return s, err
}

// strNext is str that also returns the offset after the string's
// terminator.
func (r *buf) strNext(off uint32, fieldOff int, field string) (string, uint32, error) {
	if off == 0 {
		return "", 0, nil
	}
	if s, ok := r.strs[off]; ok {
		return s.s, s.next, nil
	}
	if uint64(off) >= uint64(len(r.b)) {
		return "", 0, r.errf(fieldOff, field, ErrBadOffset, "string offset %d is outside the %d-byte structure", off, len(r.b))
	}
	start := int(off)
	end := -1
	for i := start; i+1 < len(r.b); i += 2 {
		if r.b[i] == 0 && r.b[i+1] == 0 {
			end = i
			break
		}
	}
	if end < 0 {
		return "", 0, r.errf(fieldOff, field, ErrBadOffset, "string at offset %d has no terminating NUL", r.base+start)
	}
	r.budget -= end - start + 2
	if r.budget < 0 {
		return "", 0, r.errf(fieldOff, field, ErrBadOffset, "string at offset %d: strings overlap beyond twice the payload size", r.base+start)
	}
	s := cachedStr{string(tdh.AppendString(nil, r.b[start:end], true)), uint32(end + 2)}
	if r.strs == nil {
		r.strs = map[uint32]cachedStr{}
	}
	r.strs[off] = s
	return s.s, s.next, nil
}

type cachedStr struct {
	s    string
	next uint32 // offset after the terminator
}

// strList reads consecutive strings from off up to an empty one or the
// end of the structure (TRACE_EVENT_INFO.KeywordsNameOffset).
func (r *buf) strList(off uint32, fieldOff int, field string) ([]string, error) {
	var out []string
	for first := true; off != 0 && (first || uint64(off) < uint64(len(r.b))) && len(out) < maxKeywordNames; first = false {
		s, next, err := r.strNext(off, fieldOff, field)
		if err != nil {
			return nil, err
		}
		if s == "" {
			break
		}
		out = append(out, s)
		off = next
	}
	return out, nil
}

// ParseEventInfo converts the payload of a MetaData EventInfo event (one
// TRACE_EVENT_INFO) into a schema. Maps are placeholders holding only
// their name (see [Set] for binding them). An error is a [*FormatError].
//
// A MOF schema (DecodingSource 1) is keyed as classic events are: its
// ProviderGUID is TRACE_EVENT_INFO.EventGuid (the event class) and its ID
// the event type (EventDescriptor.Opcode). Other schemas keep the
// provider GUID and event id.
func ParseEventInfo(b []byte) (*tdh.Event, error) {
	ev, _, err := parseEventInfo(b)
	return ev, err
}

// parseEventInfo also returns TRACE_EVENT_INFO.ProviderGuid, the key of
// the event's maps.
func parseEventInfo(b []byte) (*tdh.Event, uuid.UUID, error) {
	r := newBuf(b, 0)
	if len(b) < traceEventInfoSize {
		return nil, uuid.Nil, r.errf(len(b), "TRACE_EVENT_INFO", ErrTruncated,
			"payload of %d bytes is shorter than the %d-byte TRACE_EVENT_INFO", len(b), traceEventInfoSize)
	}
	provider := etl.GUIDFromWindows(b[0:])
	eventGUID := etl.GUIDFromWindows(b[16:])
	src := r.u32(48)
	if src > uint32(tdh.SourceTraceLogging) {
		return nil, provider, r.errf(48, "TRACE_EVENT_INFO.DecodingSource", ErrUnsupported, "unknown decoding source %d", src)
	}
	ev := &tdh.Event{
		Source:       tdh.Source(src),
		ProviderGUID: provider,
		ID:           r.u16(32),
		Version:      b[34],
		Channel:      b[35],
		Level:        b[36],
		Opcode:       b[37],
		Task:         r.u16(38),
		Keywords:     binary.LittleEndian.Uint64(b[40:]),
		Tags:         r.u32(108) >> 4,
	}
	if ev.Source == tdh.SourceMOF {
		ev.ProviderGUID, ev.ID = eventGUID, uint16(ev.Opcode)
	}
	// Display strings; manifest message-table strings end with a space.
	trim := func(s string) string { return s }
	if ev.Source == tdh.SourceManifest {
		trim = trimSpace
	}
	type strField struct {
		off  int
		name string
		dst  *string
		trim bool
	}
	var eventName string
	for _, f := range []strField{
		{52, "ProviderNameOffset", &ev.ProviderName, false},
		{56, "LevelNameOffset", &ev.LevelName, true},
		{60, "ChannelNameOffset", &ev.ChannelName, true},
		{68, "TaskNameOffset", &ev.TaskName, true},
		{72, "OpcodeNameOffset", &ev.OpcodeName, true},
		{76, "EventMessageOffset", &ev.Message, true},
	} {
		s, err := r.str(r.u32(f.off), f.off, "TRACE_EVENT_INFO."+f.name)
		if err != nil {
			return nil, provider, err
		}
		if f.trim {
			s = trim(s)
		}
		*f.dst = s
	}
	// Some recording machines give winmeta's names (win:Informational,
	// win:Start) rather than their display strings: show those, as
	// manifests do.
	for _, n := range []*string{&ev.LevelName, &ev.OpcodeName, &ev.TaskName} {
		if m, ok := winMessages()[*n]; ok {
			*n = m
		}
	}
	kw, err := r.strList(r.u32(64), 64, "TRACE_EVENT_INFO.KeywordsNameOffset")
	if err != nil {
		return nil, provider, err
	}
	for i := range kw {
		kw[i] = trim(kw[i])
		if m, ok := winMessages()[kw[i]]; ok {
			kw[i] = m
		}
	}
	ev.KeywordNames = kw
	switch ev.Source {
	case tdh.SourceMOF:
		// Offset 92 is ActivityIDNameOffset; the event name is the class.
		ev.EventName = ev.TaskName
	default:
		if eventName, err = r.str(r.u32(92), 92, "TRACE_EVENT_INFO.EventNameOffset"); err != nil {
			return nil, provider, err
		}
		ev.EventName = eventName
		if ev.EventName == "" && ev.Source == tdh.SourceTraceLogging {
			ev.EventName = ev.TaskName
		}
	}

	count, top := r.u32(100), r.u32(104)
	if need := uint64(traceEventInfoSize) + uint64(count)*propertyInfoSize; need > uint64(len(b)) {
		return nil, provider, r.errf(100, "TRACE_EVENT_INFO.PropertyCount", ErrTruncated,
			"%d properties need %d bytes, the payload has %d", count, need, len(b))
	}
	if top > count {
		return nil, provider, r.errf(104, "TRACE_EVENT_INFO.TopLevelPropertyCount", ErrBadStruct,
			"%d top-level properties of %d in all", top, count)
	}
	c := &converter{r: r, n: int(count), top: int(top), used: make([]bool, count)}
	for i := 0; i < c.top; i++ {
		c.used[i] = true
	}
	if ev.Properties, err = c.level(0, c.top, 0); err != nil {
		return nil, provider, err
	}
	if err := tdh.Validate(ev); err != nil {
		field := "EventPropertyInfoArray"
		if se, ok := err.(*tdh.SchemaError); ok {
			field += " (" + se.Property + ")"
			err = errors.New(se.Msg)
		}
		return nil, provider, r.errf(traceEventInfoSize, field, ErrUnsupported, "%v", err)
	}
	return ev, provider, nil
}

// trimSpace removes the one space that ends manifest message-table
// strings as TDH returns them.
func trimSpace(s string) string { return strings.TrimSuffix(s, " ") }

// converter turns EVENT_PROPERTY_INFO entries into tdh.Properties.
type converter struct {
	r    *buf
	n    int    // PropertyCount
	top  int    // TopLevelPropertyCount
	used []bool // entries already placed (top level or struct member)
}

func entryOff(i int) int { return traceEventInfoSize + propertyInfoSize*i }

func entryField(i int, member string) string {
	return "EventPropertyInfoArray[" + strconv.Itoa(i) + "]." + member
}

// level converts the count entries starting at start, one level of
// properties (the top level or a struct's members).
func (c *converter) level(start, count, depth int) ([]tdh.Property, error) {
	props := make([]tdh.Property, 0, count)
	for k := 0; k < count; k++ {
		p, err := c.property(start, start+count, start+k, props, depth)
		if err != nil {
			return nil, err
		}
		props = append(props, p)
	}
	return props, nil
}

// property converts entry i of the level made of entries lo..hi-1, whose
// earlier siblings are done.
func (c *converter) property(lo, hi, i int, done []tdh.Property, depth int) (tdh.Property, error) {
	r := c.r
	e := entryOff(i)
	flags := r.u32(e)
	p := tdh.Property{LengthIndex: -1, CountIndex: -1}
	var err error
	if p.Name, err = r.str(r.u32(e+4), e+4, entryField(i, "NameOffset")); err != nil {
		return p, err
	}
	if flags&propHasTags != 0 {
		p.Tags = r.u32(e+20) & tagsMask
	}
	count, length := r.u16(e+16), r.u16(e+18)

	if flags&propStruct != 0 {
		first, n := int(r.u16(e+8)), int(r.u16(e+10))
		switch {
		case first+n > c.n:
			return p, r.errf(e+8, entryField(i, "StructStartIndex"), ErrBadStruct,
				"members %d..%d are outside the %d properties", first, first+n-1, c.n)
		case n > 0 && first < c.top:
			return p, r.errf(e+8, entryField(i, "StructStartIndex"), ErrBadStruct,
				"members start at %d, among the %d top-level properties", first, c.top)
		case depth+1 > maxStructDepth:
			return p, r.errf(e, entryField(i, "Flags"), ErrBadStruct, "structs nest more than %d deep", maxStructDepth)
		}
		for m := first; m < first+n; m++ {
			if c.used[m] {
				return p, r.errf(e+8, entryField(i, "StructStartIndex"), ErrBadStruct,
					"member %d already belongs to another struct", m)
			}
			c.used[m] = true
		}
		if p.Members, err = c.level(first, n, depth+1); err != nil {
			return p, err
		}
	} else {
		p.InType, p.OutType = tdh.InType(r.u16(e+8)), tdh.OutType(r.u16(e+10))
		if !knownInType(p.InType) {
			return p, r.errf(e+8, entryField(i, "InType"), ErrUnsupported, "unknown in-type %d", p.InType)
		}
		if m := r.u32(e + 12); m != 0 && flags&propHasCustomSchema == 0 {
			name, err := r.str(m, e+12, entryField(i, "MapNameOffset"))
			if err != nil {
				return p, err
			}
			p.Map = &tdh.Map{Name: name}
		}
	}

	// Count.
	switch {
	case flags&propParamCount != 0:
		if p.CountIndex, err = c.sibling(lo, hi, i, int(count), done, e+16, "countPropertyIndex"); err != nil {
			return p, err
		}
		p.IsArray = true
	case flags&propParamFixedCount != 0:
		p.IsArray, p.Count = true, count
	case count > 1:
		p.IsArray, p.Count = true, count
	}

	// Length.
	if p.IsStruct() {
		return p, nil // structs have length 0
	}
	if flags&propParamLength != 0 {
		p.LengthIndex, err = c.sibling(lo, hi, i, int(length), done, e+18, "lengthPropertyIndex")
		return p, err
	}
	fixed := flags&propParamFixedLength != 0
	switch p.InType {
	case tdh.InTypeUnicodeString, tdh.InTypeAnsiString, tdh.InTypeBinary:
		if fixed && length == 0 {
			if p.InType == tdh.InTypeBinary || p.IsArray {
				return p, r.errf(e+18, entryField(i, "length"), ErrUnsupported,
					"%s of fixed length 0 cannot be expressed", describe(&p))
			}
			// A truly empty string: zero characters.
			if p.InType == tdh.InTypeAnsiString {
				p.InType = tdh.InTypeAnsiChar
			} else {
				p.InType = tdh.InTypeUnicodeChar
			}
			p.IsArray, p.Count = true, 0
			return p, nil
		}
		p.Length = length
	case tdh.InTypeUnicodeChar, tdh.InTypeAnsiChar:
		if fixed {
			p.Length = length
		}
	}
	return p, nil
}

func describe(p *tdh.Property) string {
	if p.IsArray {
		return "array of " + p.InType.String()
	}
	return p.InType.String()
}

// sibling converts the absolute index ref of the property that gives
// entry i its count or length into an index among the properties of i's
// level, entries lo..hi-1 (done are i's earlier siblings).
func (c *converter) sibling(lo, hi, i, ref int, done []tdh.Property, off int, member string) (int, error) {
	r := c.r
	field := entryField(i, member)
	switch {
	case ref >= c.n:
		return -1, r.errf(off, field, tdh.ErrBadReference, "refers to property %d of %d", ref, c.n)
	case ref < lo || ref >= hi:
		return -1, r.errf(off, field, tdh.ErrOuterReference, "refers to property %d, outside its level (properties %d..%d)", ref, lo, hi-1)
	case ref >= i:
		return -1, r.errf(off, field, tdh.ErrBadReference, "refers to property %d, not an earlier one", ref)
	}
	q := &done[ref-lo]
	if q.IsStruct() || q.IsArray || !q.InType.IsInteger() {
		return -1, r.errf(off, field, tdh.ErrBadReference, "refers to %s (%s), which is not a single integer", q.Name, describe(q))
	}
	return ref - lo, nil
}

// knownInType reports whether the tdh engine knows how to lay out t.
func knownInType(t tdh.InType) bool {
	switch {
	case t <= tdh.InTypeCountedAnsiString, t == tdh.InTypeCountedBinary:
		return true
	case t >= tdh.InTypeMOFCountedString && t <= tdh.InTypeWBEMSID:
		return true
	}
	return false
}

// winMessages maps winmeta.xml's level, task, opcode and keyword names to
// their display strings (made when first used).
var winMessages = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, l := range manifest.PredefinedLevels() {
		m[l.Name] = l.Message
	}
	for _, t := range manifest.PredefinedTasks() {
		m[t.Name] = t.Message
	}
	for _, o := range manifest.PredefinedOpcodes() {
		m[o.Name] = o.Message
	}
	for _, k := range manifest.PredefinedKeywords() {
		m[k.Name] = k.Message
	}
	for n, v := range m {
		if v == "" {
			delete(m, n)
		}
	}
	return m
})
