package tracerpt

import (
	"github.com/etwkit/etw/internal/prefault"
	"github.com/etwkit/etw/tdh"
)

// xmlSchemaText is the text of the XML dump that a schema's events
// share, escaped once: each property's `<Data Name="…">` opening and the
// <RenderingInfo> elements before and after the Message. A net.4.5.2
// dump escapes ~965,000 property names and ~500,000 names of levels,
// tasks, opcodes and providers otherwise.
type xmlSchemaText struct {
	schema *tdh.Event
	head   []byte   // appendInfoHead's
	tail   []byte   // appendInfoTail's
	open   []byte   // appendDataOpen's for every property, one after the other
	ends   []uint32 // where property i's opening ends in open
}

// dataOpen returns property i's `<Data Name="…">` opening.
func (t *xmlSchemaText) dataOpen(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.open[start:t.ends[i]]
}

// reset makes t the text of schema s, reusing its storage.
func (t *xmlSchemaText) reset(s *tdh.Event) {
	t.schema = s
	t.head = appendInfoHead(t.head[:0], s)
	t.tail = appendInfoTail(t.tail[:0], s)
	t.open, t.ends = t.open[:0], t.ends[:0]
	for i := range s.Properties {
		t.open = appendDataOpen(t.open, s.Properties[i].Name)
		t.ends = append(t.ends, uint32(len(t.open)))
	}
}

// text returns the kept text of schema s, or nil (see xmlTextCache.get).
func (e *XMLEncoder) text(s *tdh.Event) *xmlSchemaText {
	if e.noTexts {
		return nil
	}
	return e.texts.get(s)
}

// appendDataOpen appends the opening of a property's <Data> element.
func appendDataOpen(b []byte, name string) []byte {
	b = append(b, "\t\t<Data Name=\""...)
	b = appendXMLAttr(b, name)
	return append(b, "\">"...)
}

const xmlTextBits = 8

// xmlTextCache keeps the xmlSchemaText of the schemas an encoder meets,
// for one goroutine, as tdh.PlanCache keeps JSON plans: a slot per
// provider, id, version and opcode, whose text is made the second time in
// a row the slot meets a schema, so that a schema met once (a TraceLogging
// schema compiled for one event) costs no text and no allocation. The
// zero value is ready to use.
type xmlTextCache struct {
	slots *[1 << xmlTextBits]xmlTextSlot
}

type xmlTextSlot struct {
	pending *tdh.Event // met once, no text yet
	text    xmlSchemaText
}

// get returns the text of schema s, or nil when s is nil or met for the
// first time in its slot (the caller then renders it itself).
func (c *xmlTextCache) get(s *tdh.Event) *xmlSchemaText {
	if s == nil {
		return nil
	}
	if c.slots == nil {
		c.slots = prefault.New[[1 << xmlTextBits]xmlTextSlot]() // probed before written
	}
	sl := &c.slots[s.SlotHash()>>(64-xmlTextBits)]
	if sl.text.schema == s {
		return &sl.text
	}
	if sl.pending != s {
		sl.pending = s
		return nil
	}
	sl.pending = nil
	sl.text.reset(s)
	return &sl.text
}
