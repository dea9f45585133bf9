package tracerpt

import (
	"encoding/binary"
	"unsafe"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/eventjson"
	"github.com/etwkit/etw/internal/decimal"
	"github.com/etwkit/etw/internal/prefault"
	"github.com/etwkit/etw/tdh"
)

// The <System> element of the XML dump is the same for many events but
// for a few values: an encoder keeps the text of the parts that depend on
// the event's shape (provider, descriptor, header, schema), its second,
// its activity and its thread, and renders only the fraction of the
// second and the CPU times. Each kept text is looked up by all it depends
// on; the schema by address (schemas do not change once made, and a slot
// holding one keeps it alive); the encoder's options (zone, MOF
// providers) are its own and fixed.

// xmlSystem is what an XMLEncoder keeps of recent events' <System>.
type xmlSystem struct {
	shapes  [1 << slotBits]xmlShape
	long    xmlShape // the text of the last shape too long to keep in shapes
	threads slotCache[threadIDsKey]

	sec     int64  // FILETIME seconds of time; valid when time is not nil
	time    []byte // TimeCreated's value for sec, seven zeros for the fraction
	timeDot int    // where the fraction goes in time

	correlation guidText // `" />…<Correlation ActivityID="{…}`
}

// shapeKey is what the text of <System> from `<Event` to
// `<TimeCreated SystemTime="`, and from the end of <Execution> to
// `</System>` (and the CSV dump's columns from the event name to the
// keyword), depends on: the provider, the descriptor, the header type
// and flags (headerKey without a hook id), and the schema.
type shapeKey struct {
	h headerKey
	s *tdh.Event
}

// hash mixes the header key's hash with the schema's address.
func (k *shapeKey) hash() uint64 { return k.h.hash() ^ uint64(uintptr(unsafe.Pointer(k.s))) }

// same is *k == *o field by field (no call).
func (k *shapeKey) same(o *shapeKey) bool { return k.s == o.s && k.h.same(&o.h) }

// xmlShape is a slot of xmlSystem.shapes.
type xmlShape struct {
	k          shapeKey
	head, tail []byte // valid when head is not nil
}

// threadIDsKey is what the start of <Execution> (and the CSV dump's
// columns from PID to the processor) depends on: the header's process and
// thread ids and the processor.
type threadIDsKey struct {
	ids uint64 // pid<<32 | tid
	cpu uint16
}

// threadIDsSlot returns the slot of c for ev's header ids and processor,
// and whether it holds their text; if not, the slot is given their key
// and the caller renders the text.
func threadIDsSlot(c *slotCache[threadIDsKey], ev *etl.Event) (slot *slotOfThreadIDs, ok bool) {
	k := threadIDsKey{ids: uint64(ev.ProcessID)<<32 | uint64(ev.ThreadID), cpu: ev.Processor}
	slot = &c.slots[slotOf(uint64(ev.ThreadID)<<16^uint64(k.cpu), slotBits)]
	if slot.json != nil && slot.k.ids == k.ids && slot.k.cpu == k.cpu {
		return slot, true
	}
	slot.k = k
	return slot, false
}

// slotOfThreadIDs is a slot of a slotCache[threadIDsKey].
type slotOfThreadIDs = struct {
	k    threadIDsKey
	json []byte
}

// guidText keeps the text of the last GUID after a prefix.
type guidText struct {
	id   uuid.UUID
	text []byte // valid when not nil
}

// get returns prefix and id in braces, from the text kept when id is the
// last one's.
func (g *guidText) get(prefix string, id uuid.UUID) []byte {
	if g.text == nil || g.id != id {
		g.set(prefix, id)
	}
	return g.text
}

// set makes the kept text that of prefix and id. Not inlined, which
// leaves get small enough to inline.
//
//go:noinline
func (g *guidText) set(prefix string, id uuid.UUID) {
	g.id = id
	g.text = eventjson.AppendGUID(append(g.text[:0], prefix...), id)
}

// appendSystem appends the <Event> start tag and the <System> element of
// ev, whose schema is s (nil: none).
func (e *XMLEncoder) appendSystem(b []byte, ev *etl.Event, s *tdh.Event) []byte {
	if e.system == nil {
		e.system = prefault.New[xmlSystem]() // probed before written, as the JSON encoder's caches
	}
	c := e.system
	k := shapeKey{s: s}
	k.h.set(ev, 0)
	shape := &c.shapes[slotOf(k.hash(), slotBits)]
	if shape.head == nil || !shape.k.same(&k) {
		shape.k = k
		shape.head = e.appendSystemHead(shape.head[:0], ev, s)
		shape.tail = appendSystemTail(shape.tail[:0], s)
		if len(shape.head)+len(shape.tail) > maxSlotText {
			// Not kept (see slotCache): the slot is emptied, the text is
			// this event's only.
			c.long, *shape = *shape, xmlShape{}
			shape = &c.long
		}
	}
	b = append(b, shape.head...)
	b = e.appendSystemTime(b, ev.Time)
	if e.o.RawTimestamp {
		b = append(b, "\" RawTime=\""...)
		b = decimal.AppendInt(b, ev.Timestamp)
	}
	b = append(b, c.correlation.get("\" />\n\t\t<Correlation ActivityID=\"", ev.ActivityID)...)
	if len(ev.Extended) > 0 {
		if g, ok := ev.RelatedActivityID(); ok {
			b = append(b, "\" RelatedActivityID=\""...)
			b = eventjson.AppendGUID(b, g)
		}
	}
	thread, ok := threadIDsSlot(&c.threads, ev)
	if !ok {
		thread.json = appendExecution(thread.json[:0], ev)
	}
	b = append(b, thread.json...)
	if ev.Flags&etl.FlagPrivateSession != 0 && ev.Flags&etl.FlagNoCPUTime == 0 {
		b = append(b, "\" ProcessorTime=\""...)
		b = decimal.AppendUint(b, ev.ProcessorTime)
	} else {
		mul := msPerTick(e.files, ev)
		b = append(b, "\" KernelTime=\""...)
		b = decimal.AppendUint(b, uint64(ev.KernelTime)*mul)
		b = append(b, "\" UserTime=\""...)
		b = decimal.AppendUint(b, uint64(ev.UserTime)*mul)
	}
	return append(b, shape.tail...)
}

// appendSystemHead appends the start of <Event> and of <System>, from the
// tag to the value of TimeCreated's SystemTime.
func (e *XMLEncoder) appendSystemHead(b []byte, ev *etl.Event, s *tdh.Event) []byte {
	b = append(b, "<Event xmlns=\"http://schemas.microsoft.com/win/2004/08/events/event\">\n\t<System>\n\t\t<Provider"...)
	b = e.appendProvider(b, ev, s)
	d := &ev.Descriptor
	b = append(b, " />\n\t\t<EventID>"...)
	b = decimal.AppendUint(b, uint64(d.ID))
	b = append(b, "</EventID>\n\t\t<Version>"...)
	b = decimal.AppendUint(b, uint64(d.Version))
	b = append(b, "</Version>\n\t\t<Level>"...)
	b = decimal.AppendUint(b, uint64(d.Level))
	b = append(b, "</Level>\n\t\t<Task>"...)
	b = decimal.AppendUint(b, uint64(d.Task))
	b = append(b, "</Task>\n\t\t<Opcode>"...)
	b = decimal.AppendUint(b, uint64(d.Opcode))
	b = append(b, "</Opcode>\n\t\t<Keywords>"...)
	b = appendHex0x(b, d.Keyword)
	return append(b, "</Keywords>\n\t\t<TimeCreated SystemTime=\""...)
}

// appendExecution appends the start of <Execution>, up to the value of
// ProcessorID.
func appendExecution(b []byte, ev *etl.Event) []byte {
	b = append(b, "\" />\n\t\t<Execution ProcessID=\""...)
	b = decimal.AppendUint(b, uint64(ev.ProcessID))
	b = append(b, "\" ThreadID=\""...)
	b = decimal.AppendUint(b, uint64(ev.ThreadID))
	b = append(b, "\" ProcessorID=\""...)
	return decimal.AppendUint(b, uint64(ev.Processor))
}

// appendSystemTail appends the end of <Execution> and of <System>, with
// the <Channel> of schema s (nil: none).
func appendSystemTail(b []byte, s *tdh.Event) []byte {
	b = append(b, "\" />\n"...)
	if s != nil && s.Source == tdh.SourceManifest && s.ChannelName != "" {
		b = append(b, "\t\t<Channel>"...)
		b = appendXMLText(b, s.ChannelName)
		b = append(b, "</Channel>\n"...)
	} else {
		b = append(b, "\t\t<Channel />\n"...)
	}
	return append(b, "\t\t<Computer />\n\t</System>\n"...)
}

// appendSystemTime appends TimeCreated's SystemTime for FILETIME ft, as
// the encoder's timeFormatter does, from the text kept for ft's second:
// the zone's offset is the same through a second.
func (e *XMLEncoder) appendSystemTime(b []byte, ft int64) []byte {
	c := e.system
	u := ft - filetimeEpochDelta // wraps as timeFormatter.split's does
	sec := floorDiv(u, filetimeSecond)
	if c.time == nil || c.sec != sec {
		local, _, off := e.tf.split(ft)
		t := appendDateTime7(c.time[:0], local, 0) // seven zeros for the fraction
		c.timeDot = len(t) - 7
		t = append(t, '0', '0')
		c.time, c.sec = appendOffset(t, off, e.tf.utc), sec
	}
	n := len(b)
	b = append(b, c.time...)
	// The seven digits and the '0' after them.
	binary.LittleEndian.PutUint64(b[n+c.timeDot:], decimal.Digits8(uint32(u-sec*filetimeSecond))>>8|'0'<<56)
	return b
}
