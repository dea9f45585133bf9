package manifest

import (
	"fmt"
	"sort"

	"github.com/etwkit/etw/tdh"
	"github.com/google/uuid"
)

// Manifest is one parsed instrumentation manifest file.
type Manifest struct {
	// Format is the input format the model was read from.
	Format Format
	// Providers in document order.
	Providers []*Provider
	// Strings is the string table of the chosen culture (id → value).
	Strings map[string]string
	// Culture is the culture whose strings were used ("" when the file has
	// no localization section).
	Culture string
	// Cultures lists every culture that has a resources block, in document
	// order.
	Cultures []string
	// Warnings lists non-fatal problems, each starting with "file:line: ":
	// unresolved $(string.X) references, names an event uses but the
	// provider does not define, duplicate event ids, dumper artifacts, …
	Warnings []string
}

// Format tells the input formats [Parse] reads apart.
type Format uint8

// Input formats.
const (
	// FormatManifest is an instrumentation manifest
	// (<instrumentationManifest>, or a Windows <assembly> manifest that
	// wraps one).
	FormatManifest Format = iota
	// FormatWEPExplorer is the XML export of Windows Events Providers
	// Explorer (WEPExplorer, root element <Providers>): provider metadata
	// as the Event Log API (wevtapi) reports it, each event's template as
	// an embedded <template> document. See [Parse].
	FormatWEPExplorer
	// FormatBinary is a compiled binary manifest (a WEVT_TEMPLATE
	// resource, "CRIM"), read by package wevt.
	FormatBinary
)

// String returns "manifest", "WEPExplorer" or "binary".
func (f Format) String() string {
	switch f {
	case FormatManifest:
		return "manifest"
	case FormatWEPExplorer:
		return "WEPExplorer"
	case FormatBinary:
		return "binary"
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// Provider returns the provider with the given GUID, or nil.
func (m *Manifest) Provider(guid uuid.UUID) *Provider {
	for _, p := range m.Providers {
		if p.GUID == guid {
			return p
		}
	}
	return nil
}

// ProviderByName returns the first provider with the given name, or nil.
func (m *Manifest) ProviderByName(name string) *Provider {
	for _, p := range m.Providers {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Provider is one <provider> of a manifest with everything it defines.
// Levels, Tasks, Opcodes, Keywords and Channels hold only what the
// provider itself declares; the predefined win: values are used implicitly
// when events are resolved and by the lookup methods.
type Provider struct {
	Name   string
	Symbol string
	GUID   uuid.UUID
	// ResourceFileName, MessageFileName and ParameterFileName name the PE
	// files holding the compiled template, message table and %%n
	// parameter strings, as written.
	ResourceFileName  string
	MessageFileName   string
	ParameterFileName string
	// Message is the provider's localized display name ("" if none).
	Message string

	// Events in document order.
	Events []*Event
	// Templates by tid.
	Templates map[string]*Template
	Levels    []Level
	Tasks     []Task
	// Opcodes are the provider-global opcodes; task-local ones are in
	// Task.Opcodes.
	Opcodes  []Opcode
	Keywords []Keyword
	// Channels holds <channel> and <importChannel> entries in document
	// order, with values resolved the way mc.exe assigns them.
	Channels []Channel
	// Maps by name (valueMap and bitMap).
	Maps map[string]*Map

	byKey map[eventKey]*Event
}

type eventKey struct {
	id      uint16
	version uint8
}

// Event returns the event with the given id and version, or nil.
func (p *Provider) Event(id uint16, version uint8) *Event {
	return p.byKey[eventKey{id, version}]
}

// LevelByValue returns the provider's level with value v, or the
// predefined win: level.
func (p *Provider) LevelByValue(v uint8) (Level, bool) {
	for _, l := range p.Levels {
		if l.Value == v {
			return l, true
		}
	}
	for _, l := range winLevels() {
		if l.Value == v {
			return l, true
		}
	}
	return Level{}, false
}

// TaskByValue returns the provider's task with value v (or win:None for
// 0), or nil.
func (p *Provider) TaskByValue(v uint16) *Task {
	for i := range p.Tasks {
		if p.Tasks[i].Value == v {
			return &p.Tasks[i]
		}
	}
	if v == 0 {
		t := winTasks[0]
		return &t
	}
	return nil
}

// OpcodeByValue returns the opcode with value v as seen by an event of the
// given task: the task's own opcodes first, then the provider's global
// opcodes, then the predefined win: opcodes.
func (p *Provider) OpcodeByValue(task uint16, v uint8) (Opcode, bool) {
	if t := p.TaskByValue(task); t != nil {
		for _, o := range t.Opcodes {
			if o.Value == v {
				return o, true
			}
		}
	}
	for _, o := range p.Opcodes {
		if o.Value == v {
			return o, true
		}
	}
	for _, o := range winOpcodes() {
		if o.Value == v {
			return o, true
		}
	}
	return Opcode{}, false
}

// KeywordsByMask returns the keywords (provider-defined, then predefined)
// whose bits are all set in mask, in order of their first bit. Keywords
// with a zero mask are never returned.
func (p *Provider) KeywordsByMask(mask uint64) []Keyword {
	var out []Keyword
	seen := uint64(0)
	for _, list := range [][]Keyword{p.Keywords, winKeywords()} {
		for _, k := range list {
			if k.Value != 0 && mask&k.Value == k.Value && seen&k.Value != k.Value {
				out = append(out, k)
				seen |= k.Value
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return lowBit(out[i].Value) < lowBit(out[j].Value) })
	return out
}

func lowBit(v uint64) uint64 { return v & -v }

// ChannelByValue returns the provider's channel with value v, or the
// predefined channel.
func (p *Provider) ChannelByValue(v uint8) (Channel, bool) {
	for _, c := range p.Channels {
		if c.Value == v && !c.Unassigned {
			return c, true
		}
	}
	for _, c := range winChannels {
		if c.Value == v {
			return c, true
		}
	}
	return Channel{}, false
}

// Level is a <level> (value 0–255).
type Level struct {
	Name    string
	Value   uint8
	Message string // localized display name ("" if none)
	Symbol  string
}

// Task is a <task> with its task-local opcodes.
type Task struct {
	Name    string
	Value   uint16
	Message string // localized display name ("" if none)
	Symbol  string
	// EventGUID is the task's eventGUID (MOF down-level class GUID), or
	// uuid.Nil.
	EventGUID uuid.UUID
	// Opcodes declared inside the task.
	Opcodes []Opcode
}

// Opcode is an <opcode>, global or task-local.
type Opcode struct {
	Name    string
	Value   uint8
	Message string // localized display name ("" if none)
	Symbol  string
}

// Keyword is a <keyword>; Value is its mask.
type Keyword struct {
	Name    string
	Value   uint64 // mask
	Message string // localized display name ("" if none)
	Symbol  string
}

// Channel is a <channel> or an <importChannel>.
type Channel struct {
	// Name is the channel name ("Microsoft-Windows-X/Operational",
	// "System", …) — what Event Log and tracerpt display.
	Name string
	// ID is the chid attribute ("" if absent); events may refer to a
	// channel by chid or by name.
	ID    string
	Value uint8
	// Type is Admin, Operational, Analytic or Debug ("" for imports of
	// non-predefined channels).
	Type     string
	Message  string // localized display name ("" if none)
	Symbol   string
	Imported bool // declared with <importChannel>
	// Assigned is true when the manifest gave no value and Value was
	// assigned like mc.exe does: the lowest free value from 16 up, in
	// document order.
	Assigned bool
	// Unassigned is true when no value could be assigned (more than 240
	// channels); Value is then 0 and meaningless.
	Unassigned bool
}

// Event is one <event>, with every reference resolved.
type Event struct {
	ID uint16
	// Qualifiers is the high word of a 32-bit event value (classic event
	// log qualifiers, used with win:EventlogClassic); usually 0.
	Qualifiers uint16
	Version    uint8
	Level      uint8
	Task       uint16
	Opcode     uint8
	Keywords   uint64 // OR of the masks of KeywordNames (no channel bits added)
	Channel    uint8
	// HasChannel is true when the event names a channel that resolved.
	HasChannel bool

	// LevelName, TaskName, OpcodeName are the names as written in the
	// event ("" when absent). ChannelName is the name of the referenced
	// channel (the event may give its chid instead), or the attribute as
	// written when it does not resolve; KeywordNames are the keyword names
	// as written. (From a WEPExplorer export, which refers to them by
	// display string, they are the names of the entries the display
	// strings resolve to, or the text as written when it does not.)
	LevelName    string
	TaskName     string
	OpcodeName   string
	ChannelName  string
	KeywordNames []string

	// Localized display names of the level, task, opcode and channel ("" if
	// none).
	LevelMessage   string
	TaskMessage    string
	OpcodeMessage  string
	ChannelMessage string

	// TemplateID is the template attribute as written; Template is the
	// resolved template, nil when the event has none (or it is missing —
	// see the warnings).
	TemplateID string
	Template   *Template
	// Message is the event's message text with %1…%n inserts left for the
	// renderer; the raw $(string.X) reference when it does not resolve.
	Message   string
	Symbol    string
	NotLogged bool
}

// Template is a <template>: the payload layout.
type Template struct {
	TID  string
	Name string // optional name attribute
	// Fields are the top-level items in payload order; a struct's members
	// are in its Field.Struct.
	Fields []*Field
	// Properties is the flat property list in TDH order (the
	// EVENT_PROPERTY_INFO array of TRACE_EVENT_INFO): the top-level fields
	// first, then the members of each struct, level by level. Field.Index
	// is a field's position here; for top-level fields it equals the
	// position in Fields.
	Properties []*Field
}

// Field is a <data> item or a <struct> of a template.
type Field struct {
	Name string
	// InType and OutType are the TDH types. OutType is 0 when the manifest
	// gives none — except for the dumper aliases win:IPAddrV4 and
	// win:IPAddrV6, which imply IPv4 and IPv6; the in-type's default
	// ([tdh.InType.DefaultOutType]) applies then. Both are 0 for a <struct>.
	InType  tdh.InType
	OutType tdh.OutType
	// InTypeName and OutTypeName are the attributes as written.
	InTypeName  string
	OutTypeName string

	// Length is a fixed length (bytes for Binary, characters for strings);
	// LengthField names the earlier field holding the length instead, and
	// LengthIndex is that field's TDH property index (Template.Properties)
	// or -1.
	Length      uint16
	LengthField string
	LengthIndex int

	// HasCount is true when a count attribute is present: the field is an
	// array of Count elements, or of the number held by CountField, whose
	// TDH property index is CountIndex (-1 if none).
	HasCount   bool
	Count      uint16
	CountField string
	CountIndex int

	// MapName is the map attribute as written; Map is the resolved map
	// (nil if none or not found).
	MapName string
	Map     *Map

	// Struct is non-nil for a <struct>, holding its members.
	Struct []*Field

	// Index is the field's position in Template.Properties.
	Index int

	// suspect marks an in-type that is a dumper artifact (win:Struct, raw
	// numbers that are no manifest type); see inTypeAliases.
	suspect bool
}

// IsStruct reports whether f is a <struct>.
func (f *Field) IsStruct() bool { return f.Struct != nil }

// MapKind tells value maps from bit maps.
type MapKind uint8

// Map kinds.
const (
	ValueMap MapKind = 1 // <valueMap>: exact value → string
	BitMap   MapKind = 2 // <bitMap>: each set bit → string
)

// String returns "valueMap" or "bitMap".
func (k MapKind) String() string {
	switch k {
	case ValueMap:
		return "valueMap"
	case BitMap:
		return "bitMap"
	}
	return "MapKind(?)"
}

// Map is a <valueMap> or <bitMap>.
type Map struct {
	Name   string
	Symbol string
	Kind   MapKind
	// Entries sorted by value.
	Entries []MapEntry
}

// MapEntry is one <map> of a value or bit map.
type MapEntry struct {
	Value   uint32
	Message string // localized text (raw reference if unresolved)
}

// Lookup returns the message of the entry with exactly value v.
func (m *Map) Lookup(v uint32) (string, bool) {
	i := sort.Search(len(m.Entries), func(i int) bool { return m.Entries[i].Value >= v })
	if i < len(m.Entries) && m.Entries[i].Value == v {
		return m.Entries[i].Message, true
	}
	return "", false
}
