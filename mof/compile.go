package mof

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/etwkit/etw/tdh"
	"github.com/google/uuid"
)

// Reasons an event type class does not compile; a [*SchemaError] wraps
// one of them.
var (
	// ErrNoGUID: neither the class nor a superclass carries a Guid
	// qualifier, so its events cannot be recognised.
	ErrNoGUID = errors.New("no Guid qualifier in the class or its superclasses")
	// ErrLayout: the class repeats an item that takes no payload bytes
	// (an array of an embedded class without properties) or nests deeper
	// than tdh.MaxDepth (tdh.Validate).
	ErrLayout = errors.New("layout repeats items of no size or nests too deep")
	// ErrInheritance: the superclass chain loops back on itself, or is
	// longer than the 32 classes the compiler follows.
	ErrInheritance = errors.New("bad superclass chain")
	// ErrBadQualifier: a qualifier value is malformed (a GUID that does
	// not parse, an event type or version outside 0–255, …).
	ErrBadQualifier = errors.New("malformed qualifier")
	// ErrUnsupportedType: a property's data type has no TDH encoding
	// (object without a known extension, ref, datetime, an unknown
	// class, …).
	ErrUnsupportedType = errors.New("data type not supported")
	// ErrDuplicateEvent: an earlier class of the file already defines the
	// same class GUID, event type and version; the first one is kept.
	ErrDuplicateEvent = errors.New("duplicate event type and version")
)

// SchemaError reports an event type class, or one of its event types,
// that [File.Schemas] could not compile.
type SchemaError struct {
	File     string
	Line     int    // line of the class, or of the property at fault
	Class    string // the event type class, or the embedded class at fault
	Type     int    // the event type, -1 when the whole class failed
	Property string // "" when the problem is the class's
	Msg      string
	Err      error // ErrNoGUID, ErrUnsupportedType, …
}

// Error formats the error as "file:line: class C type T: property P: message".
func (e *SchemaError) Error() string {
	s := e.File
	if s == "" {
		s = "mof"
	}
	if e.Line > 0 {
		s = fmt.Sprintf("%s:%d", s, e.Line)
	}
	s += ": class " + e.Class
	if e.Type >= 0 {
		s += fmt.Sprintf(" type %d", e.Type)
	}
	if e.Property != "" {
		s += ": property " + e.Property
	}
	return s + ": " + e.Msg
}

// Unwrap returns the reason.
func (e *SchemaError) Unwrap() error { return e.Err }

// maxDepth bounds superclass chains and embedded-class nesting.
const maxDepth = 32

// Schemas compiles the file's event type classes — the classes with an
// EventType qualifier — into TDH schemas, one per event type:
//
//   - ProviderGUID is the event class GUID: the Guid of the nearest class
//     in the superclass chain that has one (the event class).
//   - ID and Opcode are the event type.
//   - Version is the nearest EventVersion in the chain from the event
//     type class up to the event class (WMI hands qualifiers down to
//     subclasses, so an event type class may override it). A chain
//     without one gets one more than the highest EventVersion of the
//     other classes with the same GUID (MOF lets the latest version omit
//     it), or 0.
//   - ProviderName is the name of the provider class: the next class up
//     the chain with a Guid (MSNT_SystemTrace for kernel classes), else
//     the event class's superclass.
//   - EventName is the event class's DisplayName, or its name; OpcodeName
//     the EventTypeName at the event type's position.
//   - Properties are the WmiDataId properties of the event class and the
//     classes below it, in WmiDataId order (all properties in declaration
//     order when none has a WmiDataId).
//
// Classes that fail to compile are left out and reported as
// [*SchemaError]s; so are event types that repeat an earlier class's
// GUID, type and version (the first one is kept).
//
// MOF data types map to TDH in-types as decoding.md §2.1 describes:
// string is AnsiString, or UnicodeString with format("w");
// StringTermination("Counted"/"ReverseCounted"/"NotCounted") select the
// MOF-only string in-types 300–305; pointer (or PointerType) makes any
// integer a Pointer; extension("SizeT") SizeT, ("Sid") WBEMSID, ("Guid")
// GUID, ("Variant") HexDump, ("IPAddr"/"IPAddrV4") UInt32 shown as
// IPv4, ("IPAddrV6") 16 bytes of Binary shown as IPv6, ("Port") UInt16
// shown as Port, ("WmiTime") UInt64 with the win:ETWTIME out-type (the
// raw timestamp in the session's clock, shown as a number: converting it
// needs the trace's clock, which a schema does not have), ("NoPrint") the
// NoPrint out-type, ("RString"/"RWString") a reduced string; format("x")
// shows integers in hex, format("c") makes uint8/sint8 an AnsiChar;
// char16 is UnicodeChar; boolean is TDH's 4-byte Boolean. Arrays take
// their count from [n], WmiSizeIs or MAX(n); ValueMap/Values/ValueType
// and BitMap/BitValues become [tdh.Map]s. A property whose type is
// another class of the file becomes a struct of that class's properties.
func (f *File) Schemas() ([]*tdh.Event, []error) {
	c := &compiler{file: f, seen: map[schemaKey]string{}}
	var out []*tdh.Event
	for _, cl := range f.Classes {
		if cl.Qualifier("EventType") == nil {
			continue
		}
		evs, err := c.eventTypeClass(cl)
		if err != nil {
			c.errs = append(c.errs, err)
		}
		for _, ev := range evs {
			markToEnd(ev)
			if err := tdh.Validate(ev); err != nil {
				c.errs = append(c.errs, &SchemaError{File: f.Name, Line: cl.Line, Class: cl.Name, Type: int(ev.Opcode), Msg: err.Error(), Err: ErrLayout})
				continue
			}
			out = append(out, ev)
		}
	}
	return out, c.errs
}

// markToEnd makes a trailing array declared without a size ("Name[]"
// with neither WmiSizeIs nor MAX) hold the rest of the payload.
func markToEnd(ev *tdh.Event) {
	if n := len(ev.Properties); n > 0 {
		p := &ev.Properties[n-1]
		if p.IsArray && p.Count == 0 && p.CountIndex < 0 {
			p.ToEnd = true
		}
	}
}

type schemaKey struct {
	guid    uuid.UUID
	typ     uint8
	version uint8
}

type compiler struct {
	file       *File
	seen       map[schemaKey]string // → class that defined it first
	errs       []error
	maxVersion map[uuid.UUID]int64       // highest explicit EventVersion per class GUID
	embedding  map[*Class]bool           // embedded classes being compiled
	structs    map[*Class][]tdh.Property // compiled embedded classes
}

// version returns the EventVersion of event type class cl, whose chain
// up to its event class is chain: the nearest EventVersion qualifier, as
// WMI hands qualifiers down to subclasses (so an event type class may
// override its event class's version, as wmicore.mof's
// PageFault_HeapRangeRundown_V3 does); for a chain without one while
// other classes of the same GUID have one, one more than the highest of
// those (MOF lets the latest version of a class omit the qualifier); else
// 0.
func (c *compiler) version(chain []*Class, guid uuid.UUID) (uint8, error) {
	for _, x := range chain {
		if q := x.Qualifier("EventVersion"); q != nil {
			v, ok := q.Int()
			if !ok || v < 0 || v > 255 {
				return 0, fmt.Errorf("EventVersion %q of class %s is not 0–255", q.String(), x.Name)
			}
			return uint8(v), nil
		}
	}
	if c.maxVersion == nil {
		c.maxVersion = map[uuid.UUID]int64{}
		for _, x := range c.file.Classes {
			g, ok := parseGUID(x.Qualifier("Guid").String())
			if !ok {
				continue
			}
			if v, ok := x.Qualifier("EventVersion").Int(); ok && v >= 0 && v < 255 {
				if old, seen := c.maxVersion[g]; !seen || v > old {
					c.maxVersion[g] = v
				}
			}
		}
	}
	if v, ok := c.maxVersion[guid]; ok {
		return uint8(v + 1), nil
	}
	return 0, nil
}

func (c *compiler) classErr(cl *Class, line int, prop, msg string, err error) *SchemaError {
	if line == 0 {
		line = cl.Line
	}
	return &SchemaError{File: c.file.Name, Line: line, Class: cl.Name, Type: -1, Property: prop, Msg: msg, Err: err}
}

// chain returns cl and its superclasses, nearest first, as far as the
// file defines them. A chain that comes back to a class already in it is
// an [ErrInheritance] naming the classes of the loop; so is one longer
// than maxDepth superclasses.
func (c *compiler) chain(cl *Class) ([]*Class, error) {
	out := []*Class{cl}
	for cur := cl; cur.Super != ""; {
		next := c.file.Class(cur.Super)
		if next == nil {
			break
		}
		if i := slices.Index(out, next); i >= 0 {
			names := make([]string, 0, len(out)-i+1)
			for _, x := range out[i:] {
				names = append(names, x.Name)
			}
			names = append(names, next.Name)
			return nil, fmt.Errorf("%w: the superclasses loop: %s", ErrInheritance, strings.Join(names, " : "))
		}
		if len(out) > maxDepth {
			return nil, fmt.Errorf("%w: class %s has more than %d superclasses (the limit)", ErrInheritance, cl.Name, maxDepth)
		}
		out = append(out, next)
		cur = next
	}
	return out, nil
}

func parseGUID(s string) (uuid.UUID, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	if len(s) != 36 {
		return uuid.UUID{}, false
	}
	u, err := uuid.Parse(s)
	return u, err == nil
}

func (c *compiler) eventTypeClass(cl *Class) ([]*tdh.Event, error) {
	chain, err := c.chain(cl)
	if err != nil {
		return nil, c.classErr(cl, 0, "", strings.TrimPrefix(err.Error(), ErrInheritance.Error()+": "), ErrInheritance)
	}
	evIdx := -1
	for i, x := range chain {
		if x.Qualifier("Guid") != nil {
			evIdx = i
			break
		}
	}
	if evIdx < 0 {
		return nil, c.classErr(cl, 0, "", ErrNoGUID.Error(), ErrNoGUID)
	}
	evClass := chain[evIdx]
	guid, ok := parseGUID(evClass.Qualifier("Guid").String())
	if !ok {
		return nil, c.classErr(cl, evClass.Line, "", fmt.Sprintf("Guid %q of class %s does not parse", evClass.Qualifier("Guid").String(), evClass.Name), ErrBadQualifier)
	}
	version, err := c.version(chain[:evIdx+1], guid)
	if err != nil {
		return nil, c.classErr(cl, evClass.Line, "", err.Error(), ErrBadQualifier)
	}
	provider := evClass.Name
	if above := chain[evIdx+1:]; len(above) > 0 {
		// The provider class: the next class up with a Guid, else the
		// event class's superclass (unless that is the EventTrace root).
		if !strings.EqualFold(above[0].Name, "EventTrace") {
			provider = above[0].Name
		}
		for _, x := range above {
			if x.Qualifier("Guid") != nil {
				provider = x.Name
				break
			}
		}
	}
	eventName := evClass.Name
	if q := evClass.Qualifier("DisplayName"); q != nil && q.String() != "" {
		eventName = q.String()
	}

	props, err := c.level(cl, chain[:evIdx+1], 0)
	if err != nil {
		return nil, err
	}

	tq := cl.Qualifier("EventType")
	names := cl.Qualifier("EventTypeName").Strings()
	var out []*tdh.Event
	for i, v := range tq.Values {
		t, ok := v.Integer()
		if !ok || t < 0 || t > 255 {
			return out, c.classErr(cl, tq.Line, "", fmt.Sprintf("EventType value %q is not 0–255", v.Text), ErrBadQualifier)
		}
		k := schemaKey{guid, uint8(t), version}
		if first, dup := c.seen[k]; dup {
			c.errs = append(c.errs, &SchemaError{File: c.file.Name, Line: cl.Line, Class: cl.Name, Type: int(t),
				Msg: fmt.Sprintf("class %s already defines event type %d version %d of %s", first, t, version, guid), Err: ErrDuplicateEvent})
			continue
		}
		c.seen[k] = cl.Name
		name := ""
		if i < len(names) {
			name = names[i]
		}
		out = append(out, &tdh.Event{
			Source:       tdh.SourceMOF,
			ProviderName: provider,
			ProviderGUID: guid,
			ID:           uint16(t),
			Version:      version,
			Opcode:       uint8(t),
			EventName:    eventName,
			OpcodeName:   name,
			Properties:   props,
		})
	}
	return out, nil
}

// level compiles the payload properties declared by the classes of
// segment (nearest first): those with a WmiDataId, in WmiDataId order, a
// subclass's declaration replacing a superclass property of the same
// name. When no property has a WmiDataId, all properties are taken in
// declaration order (top class first).
func (c *compiler) level(owner *Class, segment []*Class, depth int) ([]tdh.Property, error) {
	type entry struct {
		p     *Property
		id    int64
		order int
	}
	var all []entry
	byName := map[string]int{}
	anyID := false
	order := 0
	for i := len(segment) - 1; i >= 0; i-- {
		for _, p := range segment[i].Properties {
			id, hasID := p.Qualifier("WmiDataId").Int()
			if p.Qualifier("WmiDataId") != nil && hasID {
				anyID = true
			} else {
				id = -1
			}
			e := entry{p, id, order}
			order++
			if j, ok := byName[strings.ToLower(p.Name)]; ok {
				all[j] = e
				continue
			}
			byName[strings.ToLower(p.Name)] = len(all)
			all = append(all, e)
		}
	}
	var sel []entry
	for _, e := range all {
		if !anyID || e.id >= 0 {
			sel = append(sel, e)
		}
	}
	sort.SliceStable(sel, func(i, j int) bool {
		if sel[i].id != sel[j].id {
			return sel[i].id < sel[j].id
		}
		return sel[i].order < sel[j].order
	})
	level := make([]*Property, len(sel))
	for i, e := range sel {
		level[i] = e.p
	}
	props := make([]tdh.Property, len(level))
	for i, p := range level {
		tp, err := c.property(owner, p, level, i, depth)
		if err != nil {
			return nil, err
		}
		props[i] = tp
	}
	return props, nil
}

// lowerQ returns the lower-case first value of a property qualifier.
func lowerQ(p *Property, name string) string {
	return strings.ToLower(strings.TrimSpace(p.Qualifier(name).String()))
}

// property compiles property p, the i-th of level.
func (c *compiler) property(owner *Class, p *Property, level []*Property, i, depth int) (tdh.Property, error) {
	tp := tdh.Property{Name: p.Name, LengthIndex: -1, CountIndex: -1}
	fail := func(err error, format string, args ...any) (tdh.Property, error) {
		return tp, c.classErr(owner, p.Line, p.Name, fmt.Sprintf(format, args...), err)
	}
	if p.Ref {
		return fail(ErrUnsupportedType, "reference properties have no payload encoding")
	}
	typ := strings.ToLower(p.Type)
	format := lowerQ(p, "format")
	ext := lowerQ(p, "extension")
	term := lowerQ(p, "StringTermination")
	pointer := p.Qualifier("pointer") != nil || p.Qualifier("PointerType") != nil

	switch {
	case pointer:
		tp.InType = tdh.InTypePointer
	case ext == "guid":
		tp.InType = tdh.InTypeGUID
		if p.Array && p.ArraySize == 16 && (typ == "uint8" || typ == "sint8") {
			// A GUID declared as its 16 bytes (wmicore.mof's TxrGUID).
			p = &Property{Name: p.Name, Type: p.Type, Qualifiers: p.Qualifiers, Line: p.Line}
		}
	case ext == "sizet":
		tp.InType = tdh.InTypeSizeT
	case ext == "sid":
		tp.InType = tdh.InTypeWBEMSID
	case ext == "variant":
		tp.InType = tdh.InTypeHexDump
	case ext == "ipaddr" || ext == "ipaddrv4":
		tp.InType, tp.OutType = tdh.InTypeUInt32, tdh.OutTypeIPv4
	case ext == "ipaddrv6":
		tp.InType, tp.OutType, tp.Length = tdh.InTypeBinary, tdh.OutTypeIPv6, 16
	case ext == "port":
		tp.InType, tp.OutType = tdh.InTypeUInt16, tdh.OutTypePort
	case ext == "wmitime":
		tp.InType, tp.OutType = tdh.InTypeUInt64, tdh.OutTypeETWTime
	case typ == "string" || ext == "rstring" || ext == "rwstring":
		wide := format == "w" || ext == "rwstring"
		switch term {
		case "", "nullterminated":
			tp.InType = pick(wide, tdh.InTypeUnicodeString, tdh.InTypeAnsiString)
		case "counted":
			tp.InType = pick(wide, tdh.InTypeMOFCountedString, tdh.InTypeMOFCountedAnsiString)
		case "reversecounted":
			tp.InType = pick(wide, tdh.InTypeReversedCountedString, tdh.InTypeReversedCountedAnsiString)
		case "notcounted":
			tp.InType = pick(wide, tdh.InTypeNonNullTerminatedString, tdh.InTypeNonNullTerminatedAnsi)
		default:
			return fail(ErrBadQualifier, "unknown StringTermination %q", p.Qualifier("StringTermination").String())
		}
		if ext == "rstring" || ext == "rwstring" {
			tp.OutType = tdh.OutTypeReducedString
		}
	default:
		in, ok := scalarTypes()[typ]
		if !ok {
			sub := c.file.Class(p.Type)
			if sub == nil || typ == "object" || typ == "datetime" {
				if ext != "" {
					return fail(ErrUnsupportedType, "type %s with extension(%q) has no TDH encoding", p.Type, p.Qualifier("extension").String())
				}
				return fail(ErrUnsupportedType, "type %s has no TDH encoding", p.Type)
			}
			if depth >= maxDepth {
				return fail(ErrUnsupportedType, "embedded classes nested more than %d deep", maxDepth)
			}
			if c.embedding[sub] {
				return fail(ErrUnsupportedType, "class %s embeds itself", sub.Name)
			}
			members, done := c.structs[sub]
			if !done {
				if c.embedding == nil {
					c.embedding, c.structs = map[*Class]bool{}, map[*Class][]tdh.Property{}
				}
				c.embedding[sub] = true
				chain, err := c.chain(sub)
				if err != nil {
					delete(c.embedding, sub)
					return fail(ErrInheritance, "embedded class %s: %s", sub.Name, strings.TrimPrefix(err.Error(), ErrInheritance.Error()+": "))
				}
				members, err = c.level(sub, chain, depth+1)
				delete(c.embedding, sub)
				if err != nil {
					return tp, err
				}
				c.structs[sub] = members
			}
			tp.InType = tdh.InTypeNull
			tp.Members = members
			if tp.Members == nil {
				tp.Members = []tdh.Property{}
			}
			break
		}
		tp.InType = in
		if (format == "c" || (format == "s" && p.Array)) && (in == tdh.InTypeUInt8 || in == tdh.InTypeInt8) {
			tp.InType = tdh.InTypeAnsiChar
		}
	}
	if format == "x" {
		switch tp.InType {
		case tdh.InTypeInt8, tdh.InTypeUInt8:
			tp.OutType = tdh.OutTypeHexInt8
		case tdh.InTypeInt16, tdh.InTypeUInt16:
			tp.OutType = tdh.OutTypeHexInt16
		case tdh.InTypeInt32, tdh.InTypeUInt32:
			tp.OutType = tdh.OutTypeHexInt32
		case tdh.InTypeInt64, tdh.InTypeUInt64:
			tp.OutType = tdh.OutTypeHexInt64
		}
	}
	if ext == "noprint" {
		tp.OutType = tdh.OutTypeNoPrint
	}

	ref := func(qname string) (int, error) {
		target := p.Qualifier(qname).String()
		for j := 0; j < i; j++ {
			if strings.EqualFold(level[j].Name, target) {
				if lp := level[j]; lp.Array || !isIntegerType(lp) {
					return -1, c.classErr(owner, p.Line, p.Name, fmt.Sprintf("%s(%q) names a property that is not a single integer", qname, target), tdh.ErrBadReference)
				}
				return j, nil
			}
		}
		return -1, c.classErr(owner, p.Line, p.Name, fmt.Sprintf("%s(%q) names no earlier property", qname, target), tdh.ErrBadReference)
	}
	maxN, hasMax := p.Qualifier("MAX").Int()
	if hasMax && (maxN < 0 || maxN > 0xFFFF) {
		return fail(ErrBadQualifier, "MAX(%d) out of range", maxN)
	}
	if p.Array {
		tp.IsArray = true
		switch {
		case p.ArraySize > 0:
			if p.ArraySize > 0xFFFF {
				return fail(ErrBadQualifier, "array size %d above 65535", p.ArraySize)
			}
			tp.Count = uint16(p.ArraySize)
		case p.Qualifier("WmiSizeIs") != nil:
			j, err := ref("WmiSizeIs")
			if err != nil {
				return tp, err
			}
			tp.CountIndex = j
		case hasMax:
			tp.Count = uint16(maxN)
		}
	} else {
		if p.Qualifier("WmiSizeIs") != nil {
			j, err := ref("WmiSizeIs")
			if err != nil {
				return tp, err
			}
			tp.LengthIndex = j
		} else if hasMax && tp.InType.IsString() {
			tp.Length = uint16(maxN)
		}
	}
	if m, err := compileMap(owner.Name+"."+p.Name, p); err != nil {
		return fail(ErrBadQualifier, "%v", err)
	} else if m != nil {
		tp.Map = m
	}
	return tp, nil
}

func pick(wide bool, w, a tdh.InType) tdh.InType {
	if wide {
		return w
	}
	return a
}

// scalarTypes maps the MOF intrinsic types with a fixed TDH encoding.
var scalarTypes = sync.OnceValue(func() map[string]tdh.InType {
	return map[string]tdh.InType{
		"uint8": tdh.InTypeUInt8, "sint8": tdh.InTypeInt8, "int8": tdh.InTypeInt8,
		"uint16": tdh.InTypeUInt16, "sint16": tdh.InTypeInt16, "int16": tdh.InTypeInt16,
		"uint32": tdh.InTypeUInt32, "sint32": tdh.InTypeInt32, "int32": tdh.InTypeInt32,
		"uint64": tdh.InTypeUInt64, "sint64": tdh.InTypeInt64, "int64": tdh.InTypeInt64,
		"real32": tdh.InTypeFloat, "real64": tdh.InTypeDouble,
		"boolean": tdh.InTypeBoolean, "char16": tdh.InTypeUnicodeChar,
	}
})

// isIntegerType reports whether a MOF property holds one integer (so that
// WmiSizeIs may name it).
func isIntegerType(p *Property) bool {
	if p.Qualifier("pointer") != nil || p.Qualifier("PointerType") != nil {
		return true
	}
	switch lowerQ(p, "extension") {
	case "sizet", "port", "ipaddr", "ipaddrv4", "wmitime":
		return true
	case "":
	default:
		return false
	}
	in, ok := scalarTypes()[strings.ToLower(p.Type)]
	return ok && in.IsInteger()
}

// compileMap builds the map of a property from ValueMap/Values/ValueType
// or BitMap/BitValues, or returns nil.
func compileMap(name string, p *Property) (*tdh.Map, error) {
	if bm := p.Qualifier("BitMap"); bm != nil {
		names := p.Qualifier("BitValues").Strings()
		m := &tdh.Map{Name: name, Kind: tdh.BitMap}
		for i, v := range bm.Values {
			if i >= len(names) {
				break
			}
			bit, ok := v.Integer()
			if !ok || bit < 0 || bit > 63 {
				return nil, fmt.Errorf("BitMap value %q is not a bit position 0–63", v.Text)
			}
			m.Entries = append(m.Entries, tdh.MapEntry{Value: 1 << uint(bit), Message: names[i]})
		}
		m.Sort()
		return m, nil
	}
	vals := p.Qualifier("Values")
	if vals == nil {
		return nil, nil
	}
	flag := lowerQ(p, "ValueType") == "flag"
	m := &tdh.Map{Name: name}
	if vm := p.Qualifier("ValueMap"); vm != nil {
		m.Kind = tdh.ValueMap
		if flag {
			m.Kind = tdh.BitMap
		}
		for i, v := range vm.Values {
			if i >= len(vals.Values) {
				break
			}
			n, ok := v.Integer()
			if !ok {
				continue // CIM ranges ("..") and other non-numeric entries
			}
			m.Entries = append(m.Entries, tdh.MapEntry{Value: uint64(n), Message: vals.Values[i].Text})
		}
	} else {
		m.Kind = tdh.IndexMap
		if flag {
			m.Kind = tdh.FlagMap
		}
		for i, v := range vals.Values {
			n := uint64(i)
			if flag {
				n = uint64(i + 1)
			}
			m.Entries = append(m.Entries, tdh.MapEntry{Value: n, Message: v.Text})
		}
	}
	m.Sort()
	return m, nil
}
