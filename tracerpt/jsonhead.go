package tracerpt

import (
	"unsafe"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/eventjson"
	"github.com/etwkit/etw/internal/decimal"
	"github.com/etwkit/etw/internal/prefault"
)

// threadKey is what the keys from "cpu" to "process_name" depend on: the
// processor, the event's ids (the annotation's), the header's where they
// are written (the event's own where not: perfinfo headers have none), and the
// process's name, whose text is compared by address and length: the same
// text read again, and a name made anew with the same letters, render
// again. The slot holds the address, so the text cannot be freed and its
// memory given to another name while kept.
type threadKey struct {
	cpu     uint16
	ids     uint64 // pid<<32 | tid
	header  uint64 // the header's pid<<32 | tid, each the event's where not written
	name    *byte  // unsafe.StringData of the process's ImageFileName; nil: none
	nameLen int
}

// procCache keeps the keys from "cpu" to "process_name" of recent
// threads, direct-mapped by thread and processor: a thread's events come
// in runs, mostly on one processor.
type procCache = slotCache[threadKey]

// slotCache is a direct-mapped cache of renderings: 2^slotBits slots, each
// a key and the text rendered for it (the JSON encoder's header keys,
// schema names and thread keys: at most ~250 bytes, and names from the
// trace, which are kept up to maxSlotText).
type slotCache[K any] struct {
	slots [1 << slotBits]struct {
		k    K
		json []byte
	}
}

const slotBits = 8

// maxSlotText bounds the text a slot of the encoders' caches of renderings
// keeps (slotCache, xmlSystem's shapes): a longer one (names from the
// trace, up to an event's 64 KB, six bytes a character escaped) is
// rendered again for each event, which bounds a cache's text to
// 2^slotBits × maxSlotText bytes.
const maxSlotText = 1024

// appendUnkept appends *text, a slot's rendering longer than maxSlotText,
// to b, and makes the slot forget it.
func appendUnkept(b []byte, text *[]byte) []byte {
	b = append(b, *text...)
	*text = nil
	return b
}

// appendThread appends the keys "cpu" to "process_name" of ev, whose
// event ids are pid and tid, in process p (nil: none or unknown), from
// the encoder's cache when an event of the same thread came before.
func (e *JSONEncoder) appendThread(b []byte, ev *etl.Event, pid, tid uint32, p *analysis.Process) []byte {
	if e.oneShot {
		return appendThreadJSON(b, ev, pid, tid, p)
	}
	if e.procs == nil {
		e.procs = prefault.New[procCache]() // probed before written
	}
	hpid, htid := ev.ProcessID, ev.ThreadID
	if hpid == analysis.NoID {
		hpid = pid
	}
	if htid == analysis.NoID {
		htid = tid
	}
	k := threadKey{
		cpu:    ev.Processor,
		ids:    uint64(pid)<<32 | uint64(tid),
		header: uint64(hpid)<<32 | uint64(htid),
	}
	if p != nil {
		k.name, k.nameLen = unsafe.StringData(p.ImageFileName), len(p.ImageFileName)
	}
	slot := &e.procs.slots[slotOf(uint64(tid)<<16^uint64(k.cpu), slotBits)]
	if slot.json == nil || slot.k.ids != k.ids || slot.k.header != k.header || slot.k.cpu != k.cpu ||
		slot.k.name != k.name || slot.k.nameLen != k.nameLen { // not slot.k != k: a call
		slot.k = k
		slot.json = appendThreadJSON(slot.json[:0], ev, pid, tid, p)
		if len(slot.json) > maxSlotText {
			return appendUnkept(b, &slot.json)
		}
	}
	return append(b, slot.json...)
}

// appendThreadJSON appends the keys "cpu" to "process_name" of ev: the
// processor, the event's ids, the header's where they differ, and the
// process's image name.
func appendThreadJSON(b []byte, ev *etl.Event, pid, tid uint32, p *analysis.Process) []byte {
	b = append(b, `,"cpu":`...)
	b = decimal.AppendUint(b, uint64(ev.Processor))
	b = append(b, `,"pid":`...)
	b = decimal.AppendUint(b, uint64(pid))
	b = append(b, `,"tid":`...)
	b = decimal.AppendUint(b, uint64(tid))
	// The header's ids where the event belongs to another process or
	// thread (the creating thread of a Process Start, …).
	if ev.ProcessID != analysis.NoID && ev.ProcessID != pid {
		b = append(b, `,"header_pid":`...)
		b = decimal.AppendUint(b, uint64(ev.ProcessID))
	}
	if ev.ThreadID != analysis.NoID && ev.ThreadID != tid {
		b = append(b, `,"header_tid":`...)
		b = decimal.AppendUint(b, uint64(ev.ThreadID))
	}
	if p != nil && p.ImageFileName != "" {
		b = append(b, `,"process_name":`...)
		b = eventjson.AppendString(b, p.ImageFileName)
	}
	return b
}
