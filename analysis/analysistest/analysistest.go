// Package analysistest writes small traces in memory for the tests of the
// analysis and report packages: kernel (system64 and perfinfo64) records
// and .NET runtime events as TraceLogging events.
package analysistest

import (
	"encoding/binary"
	"time"
	"unicode/utf16"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tracelogging"
)

// None is the process and thread id of a kernel record without ids:
// [Writer.Kernel] writes it as a perfinfo64 record.
const None = 0xFFFFFFFF

// GUIDRuntime is the provider GUID of the .NET runtime
// (Microsoft-Windows-DotNETRuntime).
var GUIDRuntime = catalog.DotNETRuntimeGUID

// Payload builds an event payload, little-endian.
type Payload struct{ B []byte }

func (p *Payload) U16(v uint16) *Payload { p.B = binary.LittleEndian.AppendUint16(p.B, v); return p }
func (p *Payload) U32(v uint32) *Payload { p.B = binary.LittleEndian.AppendUint32(p.B, v); return p }
func (p *Payload) U64(v uint64) *Payload { p.B = binary.LittleEndian.AppendUint64(p.B, v); return p }

// Str appends s NUL-terminated.
func (p *Payload) Str(s string) *Payload { p.B = append(append(p.B, s...), 0); return p }

// WStr appends s as NUL-terminated UTF-16.
func (p *Payload) WStr(s string) *Payload {
	for _, c := range utf16.Encode([]rune(s)) {
		p.U16(c)
	}
	return p.U16(0)
}

// FileTime returns t as a FILETIME.
func FileTime(t time.Time) int64 { return etl.TimeToFiletime(t) }

// Writer writes events to W, their times in microseconds after Start. The
// first error is kept in Err; later writes do nothing.
type Writer struct {
	W     *etl.Writer
	Start time.Time
	Err   error
}

// Raw returns the raw timestamp of the event logged us microseconds in.
func (t *Writer) Raw(us int) int64 {
	c := t.W.Clock()
	return c.RawTimestamp(FileTime(t.Start.Add(time.Duration(us) * time.Microsecond)))
}

// Write writes ev.
func (t *Writer) Write(ev etl.Event) {
	if t.Err == nil {
		t.Err = t.W.WriteEvent(&ev)
	}
}

// Kernel writes a system64 record (perfinfo64 when pid is [None]).
func (t *Writer) Kernel(us int, group uint16, opcode uint8, version uint16, pid, tid uint32, data []byte) {
	h := etl.HeaderSystem64
	if pid == None {
		h = etl.HeaderPerfInfo64
	}
	t.Write(etl.Event{Header: h, HookID: group<<8 | uint16(opcode), ClassVersion: version, ProcessID: pid, ThreadID: tid,
		Timestamp: t.Raw(us), UserData: data})
}

// CLR writes a .NET runtime event as a TraceLogging event.
func (t *Writer) CLR(us int, id uint16, pid, tid uint32, name string, fields ...tracelogging.FieldValue) {
	ev := tracelogging.Event{Name: name, Fields: fields}
	meta, data, err := ev.Encode()
	if err != nil {
		if t.Err == nil {
			t.Err = err
		}
		return
	}
	t.Write(etl.Event{Header: etl.HeaderEvent64, ProviderID: GUIDRuntime, ProcessID: pid, ThreadID: tid, Timestamp: t.Raw(us),
		Descriptor: etl.EventDescriptor{ID: id, Level: 4}, UserData: data,
		Extended: []etl.ExtendedItem{
			{Type: etl.ExtProvTraits, Data: tracelogging.EncodeProviderTraits("Microsoft-Windows-DotNETRuntime", nil)},
			{Type: etl.ExtEventSchemaTL, Data: meta},
		}})
}

// ProcessPayload is the payload of a kernel Process event (version 3):
// pid, its parent, image name and command line, as SYSTEM (S-1-5-18).
func ProcessPayload(pid, ppid uint32, image, cmd string) []byte {
	p := (&Payload{}).U64(0xFFFFFA8000100000 + uint64(pid)).U32(pid).U32(ppid).U32(1).U32(259).U64(0x1AB000)
	p.U64(0xFFFFFA8000200000).U64(0)                       // TOKEN_USER
	p.B = append(p.B, 1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0) // S-1-5-18
	return p.Str(image).WStr(cmd).B
}

// ThreadPayload is the payload of a kernel Thread event (version 2).
func ThreadPayload(pid, tid uint32) []byte {
	return (&Payload{}).U32(pid).U32(tid).U64(0).U64(0).U64(0).U64(0).U64(0).U64(0).U64(0).U32(0).B
}

// ImagePayload is the payload of a kernel Image event (version 2): the
// image at base, size bytes, in process pid (0 for a kernel image).
func ImagePayload(base, size uint64, pid uint32, path string) []byte {
	return (&Payload{}).U64(base).U64(size).U32(pid).U32(0).U32(0x5F000000).U32(0).U64(base).U32(0).U32(0).U32(0).U32(0).WStr(path).B
}
