package tdh

import (
	"errors"
	"fmt"
	"sort"

	"github.com/google/uuid"
)

// Source tells which kind of schema describes an event
// (TRACE_EVENT_INFO.DecodingSource).
type Source uint8

// Decoding sources.
const (
	SourceManifest     Source = 0 // instrumentation manifest (XML)
	SourceMOF          Source = 1 // WMI MOF class (classic and kernel events)
	SourceWPP          Source = 2 // TMF
	SourceTraceLogging Source = 3 // self-describing
)

// String returns "manifest", "mof", "wpp" or "tracelogging".
func (s Source) String() string {
	switch s {
	case SourceManifest:
		return "manifest"
	case SourceMOF:
		return "mof"
	case SourceWPP:
		return "wpp"
	case SourceTraceLogging:
		return "tracelogging"
	}
	return "source(" + string(rune('0'+s)) + ")"
}

// Event is the compiled schema of one event: its identity, display names
// and the properties of its payload, in payload order.
type Event struct {
	Source       Source
	ProviderName string
	ProviderGUID uuid.UUID
	ID           uint16
	Version      uint8
	Level        uint8
	Opcode       uint8
	Task         uint16
	Keywords     uint64
	Channel      uint8

	EventName    string // TraceLogging event name, MOF class/type name, or manifest symbol
	TaskName     string
	OpcodeName   string
	LevelName    string
	ChannelName  string
	KeywordNames []string
	// Message is the event's message string with %1…%n inserts for the
	// top-level properties, or "".
	Message string
	// Tags are the TraceLogging event tags (28 bits), 0 otherwise.
	Tags uint32

	Properties []Property
	// Alternates are other layouts of the same event (MOF classes logged
	// in more than one shape under one version), tried in order when a
	// payload does not fit Properties exactly.
	Alternates []*Event
}

// Property describes one payload item. A struct has InType InTypeNull and
// Members; anything else is a scalar or an array of scalars.
type Property struct {
	Name    string
	InType  InType
	OutType OutType // OutTypeNull: the in-type's default
	// Length is a fixed length: bytes for binary, characters for strings.
	Length uint16
	// LengthIndex is the index, among the same-level properties, of an
	// earlier integer property that gives the length; -1 if none.
	LengthIndex int
	// Count is a fixed element count when IsArray is set.
	Count uint16
	// CountIndex is the index of an earlier same-level integer property
	// that gives the element count; -1 if none.
	CountIndex int
	// IsArray marks an array, even one of fixed count 1.
	IsArray bool
	Map     *Map
	Members []Property // struct members
	// Tags are TraceLogging field tags (0 if none).
	Tags uint32
	// Optional marks a property that a payload may end before: decoding
	// stops there without error and the event has the properties before
	// it (MOF layouts whose newer fields old producers do not log, stack
	// frames). Only trailing top-level properties should be optional.
	Optional bool
	// ToEnd makes an array (IsArray, no Count or CountIndex) hold as many
	// fixed-size elements as the rest of the payload does, like a MOF
	// "Name[]" without a size. On a binary scalar with no length it takes
	// the rest of the payload.
	ToEnd bool
}

// ScalarProperty returns a property of one value of type in, with no length or
// count taken from another property: the building block of schemas
// written in Go (built-in tables, TDH metadata, TraceLogging, WPP).
func ScalarProperty(name string, in InType) Property {
	return Property{Name: name, InType: in, LengthIndex: -1, CountIndex: -1}
}

// IsStruct reports whether the property is a struct.
func (p *Property) IsStruct() bool { return p.Members != nil && p.InType == InTypeNull }

// EffectiveOutType returns the out-type the property renders with.
func (p *Property) EffectiveOutType() OutType {
	if p.OutType != OutTypeNull {
		return p.OutType
	}
	return p.InType.DefaultOutType()
}

// MapKind tells how a [Map] turns a number into text.
type MapKind uint8

// Map kinds.
const (
	ValueMap MapKind = iota // exact value → text
	BitMap                  // each set bit → text, joined with " | "
	IndexMap                // MOF Values without ValueMap: 0-based index
	FlagMap                 // MOF ValueType("flag") without BitMap: 1-based bit index
)

// Map is a value or bit map (manifest valueMap/bitMap, MOF ValueMap/BitMap).
type Map struct {
	Name    string
	Kind    MapKind
	Entries []MapEntry // sorted by Value
}

// MapEntry is one map entry.
type MapEntry struct {
	Value   uint64
	Message string
}

// Sort orders the entries by value; call it after filling Entries.
func (m *Map) Sort() {
	sort.SliceStable(m.Entries, func(i, j int) bool { return m.Entries[i].Value < m.Entries[j].Value })
}

// Lookup returns the message for an exact value (value and index maps).
func (m *Map) Lookup(v uint64) (string, bool) {
	e := m.Entries
	i := sort.Search(len(e), func(i int) bool { return e[i].Value >= v })
	if i < len(e) && e[i].Value == v {
		return e[i].Message, true
	}
	return "", false
}

// ElemSize returns the encoded size of one element of p (the whole
// property if it is not an array) when it does not depend on the payload,
// else 0. ptrSize sizes pointer-sized types.
func (p *Property) ElemSize(ptrSize int) int {
	if p.LengthIndex >= 0 {
		return 0
	}
	if p.IsStruct() {
		total := 0
		for i := range p.Members {
			m := &p.Members[i]
			n := m.ElemSize(ptrSize)
			if m.IsArray {
				if m.CountIndex >= 0 || m.ToEnd || m.Count == 0 {
					return 0
				}
				n *= int(m.Count)
			}
			if n <= 0 {
				return 0
			}
			total += n
		}
		return total
	}
	switch p.InType {
	case InTypeBinary, InTypeAnsiString:
		return int(p.Length)
	case InTypeUnicodeString:
		return 2 * int(p.Length)
	case InTypeUnicodeChar, InTypeAnsiChar:
		if p.Length > 0 {
			return int(p.Length) * p.InType.FixedSize(ptrSize)
		}
	}
	return p.InType.FixedSize(ptrSize)
}

// Validate checks that schema e (and its alternates) can be decoded at a
// cost bounded by the payload: its values nest at most [MaxDepth] levels,
// and no array repeats an item that never takes payload bytes (a struct
// with no members, or only such members; an in-type Null), which would
// cost work for each of up to 65,535 elements while reading nothing.
// Schema sources call it when they compile a schema and report the
// schemas it rejects; the decoder enforces the same rules on any schema
// ([DecodeError]), so that one built by hand cannot loop either.
func Validate(e *Event) error {
	if e == nil {
		return nil
	}
	if err := validateLevel(e.Properties, 0, ""); err != nil {
		return err
	}
	for _, alt := range e.Alternates {
		if alt == nil {
			continue
		}
		if err := validateLevel(alt.Properties, 0, ""); err != nil {
			return err
		}
	}
	return nil
}

// Reasons a schema source cannot compile a count or length reference
// into a [Property]: declared here once for every source (manifest,
// eventinfo, mof), so that errors.Is finds them whichever reported them.
var (
	// ErrOuterReference: a count or length refers to a property of
	// another level (outside the struct, or inside one from the top
	// level), which LengthIndex and CountIndex, indexes into the same
	// level, cannot express.
	ErrOuterReference = errors.New("count or length refers to a property of another level")
	// ErrBadReference: a count or length refers to a property that is not
	// an earlier single integer (itself, a later one, a struct, an array,
	// a string, …), so no payload can decode.
	ErrBadReference = errors.New("count or length refers to a property that is not an earlier single integer")
)

// SchemaError is a schema that [Validate] rejects.
type SchemaError struct {
	Property string // dotted path of the property
	Msg      string
}

func (e *SchemaError) Error() string { return "property " + e.Property + ": " + e.Msg }

func validateLevel(props []Property, depth int, path string) error {
	for i := range props {
		p := &props[i]
		name := joinPath(path, p.Name)
		d := depth
		if p.IsArray {
			d++ // the elements
			if d > MaxDepth {
				return &SchemaError{name, fmt.Sprintf("array nested deeper than %d levels", MaxDepth)}
			}
		}
		if p.IsStruct() {
			if d+1 > MaxDepth {
				return &SchemaError{name, fmt.Sprintf("struct nested deeper than %d levels", MaxDepth)}
			}
			if err := validateLevel(p.Members, d+1, name); err != nil {
				return err
			}
		}
		if p.IsArray && (p.Count > 1 || p.CountIndex >= 0 || p.ToEnd) && alwaysEmpty(p) {
			return &SchemaError{name, "array of items that take no payload bytes"}
		}
	}
	return nil
}

// alwaysEmpty reports whether one item of p (one element if it is an
// array) decodes from zero bytes whatever the payload.
func alwaysEmpty(p *Property) bool {
	if !p.IsStruct() {
		return p.InType == InTypeNull
	}
	for i := range p.Members {
		m := &p.Members[i]
		if m.IsArray && m.Count == 0 && m.CountIndex < 0 && !m.ToEnd {
			continue // no elements
		}
		if !alwaysEmpty(m) {
			return false
		}
	}
	return true
}
