package etl

import (
	"encoding/binary"
	"fmt"

	"github.com/google/uuid"
)

// HeaderType tells the record header kinds apart: the byte at +2 of a
// record, with [HeaderMessage] standing for WPP trace-message records
// (marker byte 0x90).
type HeaderType uint8

// Record header types (TRACE_HEADER_TYPE_*).
const (
	HeaderSystem32   HeaderType = 0x01 // SYSTEM_TRACE_HEADER, 32-bit data
	HeaderSystem64   HeaderType = 0x02
	HeaderCompact32  HeaderType = 0x03 // compact SYSTEM_TRACE_HEADER (no CPU times)
	HeaderCompact64  HeaderType = 0x04
	HeaderClassic32  HeaderType = 0x0A // EVENT_TRACE_HEADER (TRACE_HEADER_TYPE_FULL_HEADER32)
	HeaderInstance32 HeaderType = 0x0B // EVENT_INSTANCE_GUID_HEADER
	HeaderError      HeaderType = 0x0D // error while logging; EVENT_HEADER-shaped
	HeaderMessage    HeaderType = 0x0F // MESSAGE_TRACE_HEADER (WPP TraceMessage)
	HeaderPerfInfo32 HeaderType = 0x10 // PERFINFO_TRACE_HEADER
	HeaderPerfInfo64 HeaderType = 0x11
	HeaderEvent32    HeaderType = 0x12 // EVENT_HEADER
	HeaderEvent64    HeaderType = 0x13
	HeaderClassic64  HeaderType = 0x14
	HeaderInstance64 HeaderType = 0x15
)

// HeaderTypes lists every header type in a stable order.
var HeaderTypes = []HeaderType{
	HeaderSystem32, HeaderSystem64, HeaderCompact32, HeaderCompact64,
	HeaderPerfInfo32, HeaderPerfInfo64, HeaderClassic32, HeaderClassic64,
	HeaderInstance32, HeaderInstance64, HeaderEvent32, HeaderEvent64,
	HeaderMessage, HeaderError,
}

// Kernel reports whether records of type t come from the NT kernel
// logger: the system, compact and perfinfo headers, whose events tracerpt
// shows as MSNT_SystemTrace's.
func (t HeaderType) Kernel() bool {
	switch t {
	case HeaderSystem32, HeaderSystem64, HeaderCompact32, HeaderCompact64, HeaderPerfInfo32, HeaderPerfInfo64:
		return true
	}
	return false
}

// String returns the short name used in output: system32, system64,
// compact32, compact64, perfinfo32, perfinfo64, classic32, classic64,
// instance32, instance64, event32, event64, wpp or error.
func (t HeaderType) String() string {
	switch t {
	case HeaderSystem32:
		return "system32"
	case HeaderSystem64:
		return "system64"
	case HeaderCompact32:
		return "compact32"
	case HeaderCompact64:
		return "compact64"
	case HeaderClassic32:
		return "classic32"
	case HeaderClassic64:
		return "classic64"
	case HeaderInstance32:
		return "instance32"
	case HeaderInstance64:
		return "instance64"
	case HeaderError:
		return "error"
	case HeaderMessage:
		return "wpp"
	case HeaderPerfInfo32:
		return "perfinfo32"
	case HeaderPerfInfo64:
		return "perfinfo64"
	case HeaderEvent32:
		return "event32"
	case HeaderEvent64:
		return "event64"
	}
	return fmt.Sprintf("header(%#02x)", uint8(t))
}

// Is64 reports whether records of this type were laid out by a 64-bit
// producer (pointers in the payload are 8 bytes).
func (t HeaderType) Is64() bool {
	switch t {
	case HeaderSystem64, HeaderCompact64, HeaderPerfInfo64, HeaderClassic64, HeaderInstance64, HeaderEvent64:
		return true
	}
	return false
}

// EVENT_HEADER flags (EVENT_HEADER_FLAG_*), as a consumer sees them in
// [Event].Flags.
const (
	FlagExtendedInfo    = 0x0001
	FlagPrivateSession  = 0x0002
	FlagStringOnly      = 0x0004
	FlagTraceMessage    = 0x0008
	FlagNoCPUTime       = 0x0010
	Flag32BitHeader     = 0x0020
	Flag64BitHeader     = 0x0040
	FlagDecodeGUID      = 0x0080
	FlagClassicHeader   = 0x0100
	FlagProcessorIndex  = 0x0200
	flagProducerMask    = 0x00FF // flags a producer may set in the buffer
	maxExtendedItems    = 64     // sanity bound on items per record
	eventHeaderSize     = 0x50
	systemHeaderSize    = 0x20
	compactHeaderSize   = 0x18
	perfinfoHeaderSize  = 0x10
	classicHeaderSize   = 0x30
	instanceHeaderSize  = 0x48
	oldInstanceHdrSize  = 0x38
	messageHeaderSize   = 0x08
	pebsFlag            = 0x8000
	pmcCountShift       = 8
	pmcCountMask        = 0x7
	extItemHeaderSize   = 8
	wppSequence         = 0x01
	wppGUID             = 0x02
	wppComponentID      = 0x04
	wppTimestamp        = 0x08
	wppPerfTimestamp    = 0x10
	wppSystemInfo       = 0x20
	wppPointer32        = 0x40
	wppPointer64        = 0x80
	defaultPointerBytes = 8
)

// EventDescriptor is the EVENT_DESCRIPTOR of an event. For classic and
// kernel records ProcessTrace fills Opcode, Level and Version from the
// classic header and leaves ID, Task and Keyword zero.
type EventDescriptor struct {
	ID      uint16
	Version uint8
	Channel uint8
	Level   uint8
	Opcode  uint8
	Task    uint16
	Keyword uint64
}

// Event is one record of a trace in the consumer-side form (EVENT_RECORD),
// whatever header it was stored with.
//
// Slices (UserData, Raw, Extended and the items' Data) point into the
// buffer the event came from and are valid only until the reader that
// returned the event moves on; copy what must be kept.
type Event struct {
	Header        HeaderType
	Flags         uint16 // EVENT_HEADER_FLAG_* as a consumer sees them
	EventProperty uint16 // EVENT_HEADER_PROPERTY_*
	ThreadID      uint32 // 0xFFFFFFFF where the header has none (perfinfo)
	ProcessID     uint32
	Timestamp     int64 // raw timestamp in the session clock
	Time          int64 // FILETIME (UTC), converted with the file's [Clock]
	ProviderID    uuid.UUID
	Descriptor    EventDescriptor
	KernelTime    uint32
	UserTime      uint32
	ProcessorTime uint64 // private sessions: KernelTime/UserTime slot as one u64
	ActivityID    uuid.UUID
	Processor     uint16 // from the buffer context
	LoggerID      uint16

	// Kernel (system, compact, perfinfo) records.
	HookID       uint16 // group<<8 | type
	ClassVersion uint16 // whole Version word of system/perfinfo/classic headers

	// Instance records.
	InstanceID       uint32
	ParentInstanceID uint32
	ParentGUID       uuid.UUID

	// WPP trace messages.
	MessageFlags   uint16 // TRACE_MESSAGE_* option flags
	SequenceNumber uint32
	ComponentID    uint32

	Extended []ExtendedItem
	UserData []byte
	Raw      []byte // the whole record, header included, without padding

	// Position.
	File         int   // index of the file in the reader
	BufferOffset int64 // file offset of the buffer holding the record
	RecordOffset int   // offset of the record inside the (decompressed) buffer
	BufferIndex  int   // buffer position in file order
}

// PointerSize returns the pointer size of the event's payload in bytes: 4
// for records written by 32-bit producers, else 8.
func (e *Event) PointerSize() int {
	if e.Flags&Flag32BitHeader != 0 {
		return 4
	}
	if e.Header == HeaderMessage {
		if e.MessageFlags&wppPointer32 != 0 {
			return 4
		}
		return 8
	}
	return 8
}

// RelatedActivityID returns the related activity id extended item, if any.
func (e *Event) RelatedActivityID() (uuid.UUID, bool) {
	for _, x := range e.Extended {
		if x.Type == ExtRelatedActivityID && len(x.Data) >= 16 {
			return GUIDFromWindows(x.Data), true
		}
	}
	return uuid.UUID{}, false
}

// recordContext holds the per-buffer facts the record parser needs.
type recordContext struct {
	processor   uint16
	loggerID    uint16
	procIndex   bool
	privateMode bool
	guidInst    bool // instance records use EVENT_INSTANCE_GUID_HEADER
}

// classifyRecord reads the marker at b[0:4] and returns the header type and
// the record size, or an error describing why the bytes are not a record.
func classifyRecord(b []byte) (HeaderType, int, recordFault) {
	var f recordFault
	t, size := classify(b, &f)
	return t, size, f
}

// classify is classifyRecord with the fault, if any, written to *f (left
// as it is otherwise) and the size then 0: a recordFault returned by
// value is 64 bytes copied through the stack at every call. A typed
// header (marker bits 0xC0) of a known type and size takes the inlined
// table look-up; anything else classifySlow's full checks. The walk
// (RecordReader.Next and parse) calls typed and classifySlow itself;
// classify serves skip's resynchronization and classifyRecord.
func classify(b []byte, f *recordFault) (HeaderType, int) {
	if t, size := typed(b); size != 0 {
		return t, size
	}
	return classifySlow(b, f)
}

// typed returns the type and size of a typed header of a known type and
// a size of at least its minimum, else a size of 0. It inlines.
func typed(b []byte) (HeaderType, int) {
	if len(b) < 8 {
		return 0, 0
	}
	h := (*[8]byte)(b)
	k := headerKinds[h[2]]
	at := k.at & 4
	if size := int(h[at]) | int(h[at+1])<<8; h[3] >= 0xC0 && size >= int(k.min) {
		return HeaderType(h[2]), size
	}
	return 0, 0
}

// headerKind is where a typed header keeps its record size (+0 or +4)
// and the size's minimum: typed's and classifySlow's one table. Unknown
// types have a minimum no 16-bit size reaches.
type headerKind struct {
	at  uint8
	min uint32
}

var headerKinds = func() (k [256]headerKind) {
	for i := range k {
		k[i].min = 1 << 16
	}
	set := func(m headerKind, types ...HeaderType) {
		for _, t := range types {
			k[t] = m
		}
	}
	set(headerKind{4, systemHeaderSize}, HeaderSystem32, HeaderSystem64)
	set(headerKind{4, compactHeaderSize}, HeaderCompact32, HeaderCompact64)
	set(headerKind{4, perfinfoHeaderSize}, HeaderPerfInfo32, HeaderPerfInfo64)
	set(headerKind{0, classicHeaderSize}, HeaderClassic32, HeaderClassic64, HeaderInstance32, HeaderInstance64)
	set(headerKind{0, eventHeaderSize}, HeaderEvent32, HeaderEvent64, HeaderError)
	return k
}()

// classifySlow is classify's every case, the faults included.
func classifySlow(b []byte, f *recordFault) (HeaderType, int) {
	if len(b) < 8 {
		*f = recordFault{kind: faultShort, a: len(b)}
		return 0, 0
	}
	le := binary.LittleEndian
	flags := b[3]
	if flags&0xF0 == 0x90 && flags&0x40 == 0 { // TRACE_HEADER_FLAG | TRACE_MESSAGE
		size := int(le.Uint16(b))
		if size < messageHeaderSize {
			*f = recordFault{kind: faultMessageSize, a: size, b: messageHeaderSize}
			return 0, 0
		}
		return HeaderMessage, size
	}
	if flags&0xC0 != 0xC0 {
		*f = recordFault{kind: faultNoMarker, a: int(le.Uint32(b))}
		return 0, 0
	}
	t := HeaderType(b[2])
	k := headerKinds[t]
	if k.min > 0xFFFF {
		*f = recordFault{kind: faultUnknownType, a: int(uint8(t)), b: int(le.Uint32(b))}
		return 0, 0
	}
	size, min := int(le.Uint16(b[k.at:])), int(k.min)
	if size < min {
		*f = recordFault{kind: faultSize, t: t, a: size, b: min}
		return 0, 0
	}
	return t, size
}

// parseRecord fills ev from the record b (exactly Size bytes) of type t,
// or says why it cannot. ev's slices point into b.
func parseRecord(ev *Event, t HeaderType, b []byte, rc *recordContext) recordFault {
	rr := RecordReader{rc: *rc}
	rr.parseRecord(ev, t, b)
	return rr.why
}

// parseRecord fills ev from the record b (exactly Size bytes) of type t;
// rr.ext is the scratch storage of the extended items, kept when it
// grows. It reports a fault in rr.why and returns false (see classify).
// b holds at least the minimum header size of t (classify's check): each
// kind's parser reads its header through an array pointer of that size,
// one length check for the whole header instead of one or two a field.
func (rr *RecordReader) parseRecord(ev *Event, t HeaderType, b []byte) bool {
	// Cleared in place, then filled: a composite literal is built in a
	// stack temporary (the Event's 248 bytes zeroed, then filled) and
	// copied over *ev (wbMove while the collector marks): three passes
	// over the event a record, one here (go build -gcflags=-S ./etl,
	// Go 1.26).
	*ev = Event{}
	ev.Header = t
	ev.Processor, ev.LoggerID = rr.rc.processor, rr.rc.loggerID
	ev.Raw, ev.Extended = b, rr.ext[:0]
	if rr.rc.procIndex {
		ev.Flags |= FlagProcessorIndex
	}
	bits := uint16(Flag64BitHeader)
	if !t.Is64() {
		bits = Flag32BitHeader
	}
	switch t {
	case HeaderSystem32, HeaderSystem64, HeaderCompact32, HeaderCompact64, HeaderPerfInfo32, HeaderPerfInfo64:
		return rr.parseKernel(ev, t, b, bits)
	case HeaderClassic32, HeaderClassic64, HeaderInstance32, HeaderInstance64:
		return rr.parseClassic(ev, t, b, bits)
	case HeaderEvent32, HeaderEvent64, HeaderError:
		return rr.parseEvent(ev, t, b, bits)
	case HeaderMessage:
		return rr.parseMessage(ev, b)
	}
	rr.why = recordFault{kind: faultRecordType, a: int(uint8(t))}
	return false
}

// parseKernel reads the system, compact and perfinfo headers.
func (rr *RecordReader) parseKernel(ev *Event, t HeaderType, b []byte, bits uint16) bool {
	le := binary.LittleEndian
	h := (*[perfinfoHeaderSize]byte)(b) // the shortest of the three
	ver := le.Uint16(h[0:])
	hook := le.Uint16(h[6:])
	ev.ClassVersion = ver
	ev.HookID = hook
	ev.Descriptor.Opcode = uint8(hook)
	ev.Descriptor.Version = uint8(ver)
	ev.ProviderID = KernelGroupGUID(hook)
	ev.Flags |= FlagClassicHeader | bits
	var hs int
	switch t {
	case HeaderPerfInfo32, HeaderPerfInfo64:
		hs = perfinfoHeaderSize
		ev.ThreadID, ev.ProcessID = 0xFFFFFFFF, 0xFFFFFFFF
		ev.Timestamp = int64(le.Uint64(h[8:]))
		ev.Flags |= FlagNoCPUTime
	default: // system and compact: the compact header is the system one without CPU times
		h := (*[compactHeaderSize]byte)(b)
		ev.ThreadID = le.Uint32(h[8:])
		ev.ProcessID = le.Uint32(h[12:])
		ev.Timestamp = int64(le.Uint64(h[16:]))
		if t == HeaderSystem32 || t == HeaderSystem64 {
			h := (*[systemHeaderSize]byte)(b)
			hs = systemHeaderSize
			ev.KernelTime = le.Uint32(h[24:])
			ev.UserTime = le.Uint32(h[28:])
		} else {
			hs = compactHeaderSize
			ev.Flags |= FlagNoCPUTime
		}
	}
	// PEBS index and PMC counters sit between header and payload.
	if ver&(pebsFlag|pmcCountMask<<pmcCountShift) != 0 {
		if ver&pebsFlag != 0 {
			if hs+8 > len(b) {
				rr.why = recordFault{kind: faultPEBS, t: t, a: len(b)}
				return false
			}
			ev.Extended = append(ev.Extended, ExtendedItem{Type: ExtPEBSIndex, Data: b[hs : hs+8]})
			rr.ext = ev.Extended // grown, or the same
			hs += 8
		}
		if n := int(ver>>pmcCountShift) & pmcCountMask; n > 0 {
			if hs+8*n > len(b) {
				rr.why = recordFault{kind: faultPMC, t: t, a: len(b), b: n}
				return false
			}
			ev.Extended = append(ev.Extended, ExtendedItem{Type: ExtPMCCounters, Data: b[hs : hs+8*n]})
			rr.ext = ev.Extended // grown, or the same
			hs += 8 * n
		}
		ev.Flags |= FlagExtendedInfo
	}
	ev.UserData = b[hs:]
	return true
}

// parseClassic reads the classic (EVENT_TRACE_HEADER) and instance
// headers.
func (rr *RecordReader) parseClassic(ev *Event, t HeaderType, b []byte, bits uint16) bool {
	le := binary.LittleEndian
	h := (*[classicHeaderSize]byte)(b)
	ev.Descriptor.Opcode = h[4]
	ev.Descriptor.Level = h[5]
	ev.ClassVersion = le.Uint16(h[6:])
	ev.Descriptor.Version = uint8(ev.ClassVersion)
	ev.ThreadID = le.Uint32(h[8:])
	ev.ProcessID = le.Uint32(h[12:])
	ev.Timestamp = int64(le.Uint64(h[16:]))
	ev.Flags |= FlagClassicHeader | bits
	setCPUTimes(ev, (*[8]byte)(h[0x28:]), rr.rc.privateMode)
	hs := classicHeaderSize
	if t == HeaderInstance32 || t == HeaderInstance64 {
		if rr.rc.guidInst {
			if len(b) < instanceHeaderSize {
				rr.why = recordFault{kind: faultInstance, t: t, a: len(b), b: instanceHeaderSize}
				return false
			}
			h := (*[instanceHeaderSize]byte)(b)
			putGUID(&ev.ProviderID, (*[16]byte)(h[0x18:]))
			ev.InstanceID = le.Uint32(h[0x30:])
			ev.ParentInstanceID = le.Uint32(h[0x34:])
			putGUID(&ev.ParentGUID, (*[16]byte)(h[0x38:]))
			hs = instanceHeaderSize
		} else {
			// Windows 2000/XP EVENT_INSTANCE_HEADER: registration
			// handles instead of GUIDs.
			if len(b) < oldInstanceHdrSize {
				rr.why = recordFault{kind: faultInstance, t: t, a: len(b), b: oldInstanceHdrSize}
				return false
			}
			h := (*[oldInstanceHdrSize]byte)(b)
			ev.InstanceID = le.Uint32(h[0x20:])
			ev.ParentInstanceID = le.Uint32(h[0x24:])
			hs = oldInstanceHdrSize
		}
	} else {
		putGUID(&ev.ProviderID, (*[16]byte)(h[0x18:]))
	}
	ev.UserData = b[hs:]
	return true
}

// parseEvent reads EVENT_HEADER records (and error records, shaped like
// them) with their extended items.
func (rr *RecordReader) parseEvent(ev *Event, t HeaderType, b []byte, bits uint16) bool {
	le := binary.LittleEndian
	h := (*[eventHeaderSize]byte)(b)
	flags := le.Uint16(h[4:])
	// The 32/64-bit flags follow from the header type, as the
	// consumer sets them; stored bits are ignored (error records
	// excepted: their type says nothing of the producer).
	ev.Flags |= flags&flagProducerMask&^(Flag32BitHeader|Flag64BitHeader) | bits
	if t == HeaderError {
		ev.Flags = ev.Flags&^(Flag32BitHeader|Flag64BitHeader) | flags&(Flag32BitHeader|Flag64BitHeader)
	}
	ev.EventProperty = le.Uint16(h[6:])
	ev.ThreadID = le.Uint32(h[8:])
	ev.ProcessID = le.Uint32(h[12:])
	ev.Timestamp = int64(le.Uint64(h[16:]))
	putGUID(&ev.ProviderID, (*[16]byte)(h[0x18:]))
	// Field by field, not a composite literal: that is built in a
	// temporary and copied with a 16-byte load that waits for its
	// narrower stores (see putGUID).
	ev.Descriptor.ID = le.Uint16(h[0x28:])
	ev.Descriptor.Version = h[0x2A]
	ev.Descriptor.Channel = h[0x2B]
	ev.Descriptor.Level = h[0x2C]
	ev.Descriptor.Opcode = h[0x2D]
	ev.Descriptor.Task = le.Uint16(h[0x2E:])
	ev.Descriptor.Keyword = le.Uint64(h[0x30:])
	setCPUTimes(ev, (*[8]byte)(h[0x38:]), rr.rc.privateMode || flags&FlagPrivateSession != 0)
	putGUID(&ev.ActivityID, (*[16]byte)(h[0x40:]))
	p := eventHeaderSize
	if flags&FlagExtendedInfo != 0 {
		for {
			if p+extItemHeaderSize > len(b) {
				rr.why = recordFault{kind: faultExtEnd, a: p, b: len(b)}
				return false
			}
			total := int(le.Uint16(b[p:]))
			typ := le.Uint16(b[p+2:])
			link := le.Uint16(b[p+4:])
			dsize := int(le.Uint16(b[p+6:]))
			if extItemHeaderSize+dsize > total || total&7 != 0 || p+total > len(b) {
				rr.why = recordFault{kind: faultExtItem, a: int(typ), b: p, c: total, d: dsize, e: len(b)}
				return false
			}
			if len(ev.Extended) >= maxExtendedItems {
				rr.why = recordFault{kind: faultExtCount, a: maxExtendedItems}
				return false
			}
			ev.Extended = append(ev.Extended, ExtendedItem{Type: ExtType(typ), Data: b[p+extItemHeaderSize : p+extItemHeaderSize+dsize]})
			rr.ext = ev.Extended // grown, or the same
			p += total
			if link&1 == 0 {
				break
			}
		}
	}
	ev.UserData = b[p:]
	return true
}

// parseMessage reads WPP trace-message records, whose header's optional
// fields follow each other as the option flags say.
func (rr *RecordReader) parseMessage(ev *Event, b []byte) bool {
	le := binary.LittleEndian
	ev.Flags |= FlagTraceMessage | FlagClassicHeader // parseRecord set FlagProcessorIndex
	h := (*[messageHeaderSize]byte)(b)
	ev.Descriptor.ID = le.Uint16(h[4:])
	opt := le.Uint16(h[6:])
	ev.MessageFlags = opt
	if opt&wppPointer32 != 0 {
		ev.Flags |= Flag32BitHeader
	} else if opt&wppPointer64 != 0 {
		ev.Flags |= Flag64BitHeader
	}
	p := messageHeaderSize
	need := func(n int, what string) bool {
		if p+n > len(b) {
			rr.why = recordFault{kind: faultMessage, a: len(b), what: what, b: p}
			return false
		}
		return true
	}
	if opt&wppSequence != 0 {
		if !need(4, "sequence number") {
			return false
		}
		ev.SequenceNumber = le.Uint32(b[p:])
		p += 4
	}
	if opt&wppComponentID != 0 {
		if !need(4, "component id") {
			return false
		}
		ev.ComponentID = le.Uint32(b[p:])
		p += 4
	} else if opt&wppGUID != 0 {
		if !need(16, "GUID") {
			return false
		}
		ev.ProviderID = GUIDFromWindows(b[p:])
		p += 16
	}
	if opt&(wppTimestamp|wppPerfTimestamp) != 0 {
		if !need(8, "timestamp") {
			return false
		}
		ev.Timestamp = int64(le.Uint64(b[p:]))
		p += 8
	}
	if opt&wppSystemInfo != 0 {
		if !need(8, "thread and process ids") {
			return false
		}
		ev.ThreadID = le.Uint32(b[p:])
		ev.ProcessID = le.Uint32(b[p+4:])
		p += 8
	}
	ev.UserData = b[p:]
	return true
}

func setCPUTimes(ev *Event, b *[8]byte, private bool) {
	le := binary.LittleEndian
	if private {
		ev.ProcessorTime = le.Uint64(b[:])
		return
	}
	ev.KernelTime = le.Uint32(b[0:])
	ev.UserTime = le.Uint32(b[4:])
}
