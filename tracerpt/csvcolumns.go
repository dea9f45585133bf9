package tracerpt

import (
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/eventjson"
	"github.com/etwkit/etw/internal/prefault"
	"github.com/etwkit/etw/tdh"
)

// csvColumns is what a CSVEncoder keeps of recent events' columns, as
// the XML encoder keeps parts of <System>: the columns from the event name
// to the keyword per shape, from PID to the processor number per thread
// and processor, and the activity id's.
type csvColumns struct {
	shapes   slotCache[shapeKey]
	threads  slotCache[threadIDsKey]
	activity guidText // `,   {…}, `
}

// appendColumns appends the columns of ev, whose schema is s (nil: none),
// from "Event Name" to "User(ms)".
func (e *CSVEncoder) appendColumns(b []byte, ev *etl.Event, s *tdh.Event) []byte {
	if e.columns == nil {
		e.columns = prefault.New[csvColumns]() // probed before written, as the JSON encoder's caches
	}
	c := e.columns
	k := shapeKey{s: s}
	k.h.set(ev, 0)
	shape := &c.shapes.slots[slotOf(k.hash(), slotBits)]
	text := shape.json
	if text == nil || !shape.k.same(&k) {
		text = e.appendShapeColumns(shape.json[:0], ev, s)
		shape.k, shape.json = k, text
		if len(text) > maxSlotText { // see slotCache
			shape.json = nil
		}
	}
	b = append(b, text...)
	thread, ok := threadIDsSlot(&c.threads, ev)
	if !ok {
		thread.json = appendThreadColumns(thread.json[:0], ev)
	}
	b = append(b, thread.json...)
	if ev.Header == etl.HeaderInstance32 || ev.Header == etl.HeaderInstance64 {
		b = appendUintRight(b, uint64(ev.InstanceID), 12)
		b = append(b, ", "...)
		b = appendUintRight(b, uint64(ev.ParentInstanceID), 20)
	} else {
		b = append(b, "            ,                     "...)
	}
	b = append(b, c.activity.get(",   ", ev.ActivityID)...)
	b = append(b, ", "...)
	related := false
	if len(ev.Extended) > 0 {
		if g, ok := ev.RelatedActivityID(); ok {
			b = append(b, "  "...)
			b = eventjson.AppendGUID(b, g)
			related = true
		}
	}
	if !related {
		b = append(b, "                                        "...)
	}
	b = append(b, ", "...)
	b = appendUintRight(b, uint64(ev.Time), 20)
	b = append(b, ", "...)
	if ev.Flags&etl.FlagPrivateSession != 0 && ev.Flags&etl.FlagNoCPUTime == 0 {
		b = appendUintRight(b, ev.ProcessorTime, 10)
		b = append(b, ", "...)
		return appendUintRight(b, 0, 10)
	}
	mul := msPerTick(e.files, ev)
	b = appendUintRight(b, uint64(ev.KernelTime)*mul, 10)
	b = append(b, ", "...)
	return appendUintRight(b, uint64(ev.UserTime)*mul, 10)
}

// appendShapeColumns appends the columns from "Event Name" to "Keyword"
// and the "0x" of "PID".
func (e *CSVEncoder) appendShapeColumns(b []byte, ev *etl.Event, s *tdh.Event) []byte {
	d := &ev.Descriptor
	start := len(b)
	b = append(b, eventName(s)...)
	b = e.quoteFrom(b, start, false)
	b = rightAlignFrom(b, start, 12)
	b = append(b, ", "...)
	start = len(b)
	b = appendOpcodeText(b, ev, s)
	b = e.quoteFrom(b, start, false)
	b = rightAlignFrom(b, start, 10)
	for _, c := range [...]struct {
		n     uint16
		width int
	}{{d.ID, 12}, {uint16(d.Version), 10}, {uint16(d.Channel), 10}, {uint16(d.Level), 10}, {uint16(d.Opcode), 10}, {d.Task, 10}} {
		b = append(b, ", "...)
		b = appendUintRight(b, uint64(c.n), c.width)
	}
	b = append(b, ", 0x"...)
	b = appendUpperHex(b, d.Keyword, 16)
	return append(b, ", 0x"...)
}

// appendThreadColumns appends the columns "PID" (after its "0x") to
// "Processor Number" and the separator after it.
func appendThreadColumns(b []byte, ev *etl.Event) []byte {
	b = appendUpperHex(b, uint64(ev.ProcessID), 8)
	b = append(b, ", 0x"...)
	b = appendUpperHex(b, uint64(ev.ThreadID), 8)
	b = append(b, ", "...)
	b = appendUintRight(b, uint64(ev.Processor), 20)
	return append(b, ", "...)
}
