package eventinfo_test

import (
	"encoding/binary"
	"unicode/utf16"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
)

// PROPERTY_FLAGS, MAP_FLAGS and DECODING_SOURCE values for building blobs.
const (
	fStruct           = 0x1
	fParamLength      = 0x2
	fParamCount       = 0x4
	fWBEMXmlFragment  = 0x8
	fParamFixedLength = 0x10
	fParamFixedCount  = 0x20
	fHasTags          = 0x40
	fHasCustomSchema  = 0x80

	mManifestValueMap   = 0x1
	mManifestBitMap     = 0x2
	mManifestPatternMap = 0x4
	mWBEMValueMap       = 0x8
	mWBEMBitMap         = 0x10
	mWBEMFlag           = 0x20
	mWBEMNoMap          = 0x40

	srcManifest     = 0
	srcWbem         = 1
	srcWPP          = 2
	srcTraceLogging = 3
)

// teiProp is one EVENT_PROPERTY_INFO. For structs, in and out are
// StructStartIndex and NumOfStructMembers.
type teiProp struct {
	flags         uint32
	name          string
	in, out       uint16
	mapName       string
	mapOff        uint32 // raw MapNameOffset when mapName is ""
	count, length uint16
	tags          uint32
	nameOff       uint32 // raw NameOffset when name is "" and nameOff != 0
}

// tei builds a TRACE_EVENT_INFO as TdhGetEventInformation lays it out:
// the fixed part, the property array, then the strings.
type tei struct {
	provider, eventGUID                                        uuid.UUID
	id                                                         uint16
	version, channel, level, opcode                            uint8
	task                                                       uint16
	keyword                                                    uint64
	source                                                     uint32
	providerName, levelName, channelName, taskName, opcodeName string
	message, providerMessage, eventName                        string
	keywords                                                   []string
	flags                                                      uint32 // TEMPLATE_FLAGS | Tags<<4
	top                                                        int    // TopLevelPropertyCount; -1: all
	props                                                      []teiProp
	rawCount                                                   int // PropertyCount override when > 0
	trailing                                                   []byte
	rawOffsets                                                 map[int]uint32 // fixed-part offsets to overwrite
}

func utf16z(s string) []byte {
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2*len(u)+2)
	for i, c := range u {
		binary.LittleEndian.PutUint16(b[2*i:], c)
	}
	return b
}

func (t *tei) bytes() []byte {
	le := binary.LittleEndian
	n := len(t.props)
	b := make([]byte, 112+24*n)
	etl.PutGUIDWindows(b[0:], t.provider)
	etl.PutGUIDWindows(b[16:], t.eventGUID)
	le.PutUint16(b[32:], t.id)
	b[34], b[35], b[36], b[37] = t.version, t.channel, t.level, t.opcode
	le.PutUint16(b[38:], t.task)
	le.PutUint64(b[40:], t.keyword)
	le.PutUint32(b[48:], t.source)
	addStr := func(s string) uint32 {
		if s == "" {
			return 0
		}
		off := uint32(len(b))
		b = append(b, utf16z(s)...)
		return off
	}
	for _, f := range []struct {
		off int
		s   string
	}{{52, t.providerName}, {56, t.levelName}, {60, t.channelName}, {68, t.taskName}, {72, t.opcodeName},
		{76, t.message}, {80, t.providerMessage}, {92, t.eventName}} {
		off := addStr(f.s) // before slicing b: addStr may move it
		le.PutUint32(b[f.off:], off)
	}
	if len(t.keywords) > 0 {
		le.PutUint32(b[64:], uint32(len(b)))
		for _, k := range t.keywords {
			b = append(b, utf16z(k)...)
		}
		b = append(b, 0, 0)
	}
	count := n
	if t.rawCount > 0 {
		count = t.rawCount
	}
	top := t.top
	if top < 0 {
		top = n
	}
	le.PutUint32(b[100:], uint32(count))
	le.PutUint32(b[104:], uint32(top))
	le.PutUint32(b[108:], t.flags)
	for i, p := range t.props {
		e := 112 + 24*i
		le.PutUint32(b[e:], p.flags)
		nameOff := addStr(p.name)
		if p.name == "" {
			nameOff = p.nameOff
		}
		le.PutUint32(b[e+4:], nameOff)
		le.PutUint16(b[e+8:], p.in)
		le.PutUint16(b[e+10:], p.out)
		mapOff := addStr(p.mapName)
		if p.mapName == "" {
			mapOff = p.mapOff
		}
		le.PutUint32(b[e+12:], mapOff)
		le.PutUint16(b[e+16:], p.count)
		le.PutUint16(b[e+18:], p.length)
		le.PutUint32(b[e+20:], p.tags)
	}
	for off, v := range t.rawOffsets {
		le.PutUint32(b[off:], v)
	}
	return append(b, t.trailing...)
}

// emiEntry is one EVENT_MAP_ENTRY: its text and its value, or the string
// at InputOffset when input is set.
type emiEntry struct {
	text  string
	value uint32
	input string
}

// emi builds a MetaData EventMapInfo payload: a provider GUID, then an
// EVENT_MAP_INFO with its entries and strings.
type emi struct {
	provider  uuid.UUID
	name      string
	flag      uint32
	valueType uint32
	entries   []emiEntry
	rawCount  int // EntryCount override when > 0
}

func (m *emi) bytes() []byte {
	le := binary.LittleEndian
	n := len(m.entries)
	mi := make([]byte, 16+8*n)
	addStr := func(s string) uint32 {
		off := uint32(len(mi))
		mi = append(mi, utf16z(s)...)
		return off
	}
	nameOff := addStr(m.name)
	le.PutUint32(mi[0:], nameOff)
	le.PutUint32(mi[4:], m.flag)
	count := n
	if m.rawCount > 0 {
		count = m.rawCount
	}
	le.PutUint32(mi[8:], uint32(count))
	le.PutUint32(mi[12:], m.valueType)
	for i, e := range m.entries {
		textOff := addStr(e.text)
		le.PutUint32(mi[16+8*i:], textOff)
		v := e.value
		if e.input != "" {
			v = addStr(e.input)
		}
		le.PutUint32(mi[16+8*i+4:], v)
	}
	b := make([]byte, 16, 16+len(mi))
	etl.PutGUIDWindows(b, m.provider)
	return append(b, mi...)
}

// payload helpers for decoding tests.
type payload []byte

func (p payload) u8(v uint8) payload   { return append(p, v) }
func (p payload) u16(v uint16) payload { return binary.LittleEndian.AppendUint16(p, v) }
func (p payload) u32(v uint32) payload { return binary.LittleEndian.AppendUint32(p, v) }
func (p payload) u64(v uint64) payload { return binary.LittleEndian.AppendUint64(p, v) }
func (p payload) wstr(s string) payload {
	return append(p, utf16z(s)...)
}
