package report

import (
	"bytes"
	"encoding/binary"
	"time"
	"unicode/utf16"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tracelogging"
)

// A trace written in memory for the tests: what every section of the
// report reads, in known amounts. Kernel events of a PerfView-style
// session (process and thread rundown, a process that starts and exits,
// images, CPU samples with stacks, disk I/O, file I/O with names and
// completions, a real-time lost-event record) and .NET runtime events (two
// GCs, allocation ticks, JIT-compiled methods) as TraceLogging events with
// the runtime's provider GUID and event ids.

var (
	synthStart  = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	guidRuntime = uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")
)

const (
	hookDiskIo    = 0x01
	hookProcess   = 0x03
	hookFileIo    = 0x04
	hookThread    = 0x05
	hookPerfInfo  = 0x0F
	hookImage     = 0x14
	hookStackWalk = 0x18

	appPID, appTID     = 100, 200
	childPID, childTID = 300, 400
	appBase            = 0x400000
	ntdllBase          = 0x7FF800000000
	kernelBase         = 0xFFFFF80000000000
	fileA, fileB       = 0xFFFFFA8000A00000, 0xFFFFFA8000B00000
	none               = 0xFFFFFFFF
)

type payload struct{ b []byte }

func (p *payload) u16(v uint16) *payload { p.b = binary.LittleEndian.AppendUint16(p.b, v); return p }
func (p *payload) u32(v uint32) *payload { p.b = binary.LittleEndian.AppendUint32(p.b, v); return p }
func (p *payload) u64(v uint64) *payload { p.b = binary.LittleEndian.AppendUint64(p.b, v); return p }
func (p *payload) str(s string) *payload { p.b = append(append(p.b, s...), 0); return p }
func (p *payload) wstr(s string) *payload {
	for _, c := range utf16.Encode([]rune(s)) {
		p.u16(c)
	}
	return p.u16(0)
}

type synthWriter struct {
	w   *etl.Writer
	err error
}

func filetime(t time.Time) int64 {
	return t.Unix()*1e7 + int64(t.Nanosecond())/100 + 116444736000000000
}

func (t *synthWriter) raw(us int) int64 {
	c := t.w.Clock()
	return c.RawTimestamp(filetime(synthStart.Add(time.Duration(us) * time.Microsecond)))
}

func (t *synthWriter) write(ev etl.Event) {
	if t.err == nil {
		t.err = t.w.WriteEvent(&ev)
	}
}

// kernel writes a system64 record (perfinfo64 when pid is none).
func (t *synthWriter) kernel(us int, group uint16, opcode uint8, version uint16, pid, tid uint32, data []byte) {
	h := etl.HeaderSystem64
	if pid == none {
		h = etl.HeaderPerfInfo64
	}
	t.write(etl.Event{Header: h, HookID: group<<8 | uint16(opcode), ClassVersion: version, ProcessID: pid, ThreadID: tid,
		Timestamp: t.raw(us), UserData: data})
}

func (t *synthWriter) clr(us int, id uint16, name string, fields ...tracelogging.FieldValue) {
	ev := tracelogging.Event{Name: name, Fields: fields}
	meta, data, err := ev.Encode()
	if err != nil {
		t.err = err
		return
	}
	t.write(etl.Event{Header: etl.HeaderEvent64, ProviderID: guidRuntime, ProcessID: appPID, ThreadID: appTID, Timestamp: t.raw(us),
		Descriptor: etl.EventDescriptor{ID: id, Level: 4}, UserData: data,
		Extended: []etl.ExtendedItem{
			{Type: etl.ExtProvTraits, Data: tracelogging.EncodeProviderTraits("Microsoft-Windows-DotNETRuntime", nil)},
			{Type: etl.ExtEventSchemaTL, Data: meta},
		}})
}

// Expected values of the synthetic trace.
const (
	synthSamples    = 6 // CPU samples (one on the idle thread, not counted)
	synthDiskReads  = 3
	synthDiskRead   = 3 * 4096
	synthDiskWrite  = 8192
	synthFileReads  = 2
	synthFileRead   = 100 + 300
	synthFileWrite  = 50
	synthAllocBytes = 3 * 100000
	synthJitted     = 2
	// The child's command line holds markup, which the page must show
	// as text.
	synthChildCmd = `child.exe /x "</script><script>alert(1)</script><b>&amp;"`
)

// synthTrace returns the bytes of the synthetic trace; 1 KiB buffers, so
// that it spans many buffers.
func synthTrace() []byte {
	var buf bytes.Buffer
	t := &synthWriter{}
	w, err := etl.NewWriter(&buf, &etl.WriterOptions{BufferSize: 1024, Header: etl.LogfileHeader{
		StartTime: filetime(synthStart), Is64: true, NumberOfProcessors: 2, LoggerName: "report test"}})
	if err != nil {
		panic(err)
	}
	t.w = w
	process := func(pid, ppid uint32, image, cmd string) []byte {
		p := (&payload{}).u64(0xFFFFFA8000100000 + uint64(pid)).u32(pid).u32(ppid).u32(1).u32(259).u64(0x1AB000)
		p.u64(0xFFFFFA8000200000).u64(0)
		p.b = append(p.b, 1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0) // S-1-5-18
		return p.str(image).wstr(cmd).b
	}
	thread := func(pid, tid uint32) []byte {
		return (&payload{}).u32(pid).u32(tid).u64(0).u64(0).u64(0).u64(0).u64(0).u64(0).u64(0).u32(0).b
	}
	image := func(base, size uint64, pid uint32, path string) []byte {
		return (&payload{}).u64(base).u64(size).u32(pid).u32(0).u32(0x5F000000).u32(0).u64(base).u32(0).u32(0).u32(0).u32(0).wstr(path).b
	}
	t.kernel(0, hookProcess, 3, 3, 4, 8, process(4, 0, "System", ""))
	t.kernel(0, hookProcess, 3, 3, appPID, appTID, process(appPID, 4, "app.exe", `app.exe --work`))
	t.kernel(0, hookThread, 3, 2, 4, 8, thread(4, 8))
	t.kernel(0, hookThread, 3, 2, appPID, appTID, thread(appPID, appTID))
	t.kernel(1, hookImage, 3, 2, none, none, image(kernelBase, 0x800000, 0, `\SystemRoot\system32\ntoskrnl.exe`))
	t.kernel(2, hookImage, 3, 2, none, none, image(appBase, 0x10000, appPID, `C:\app\app.exe`))
	t.kernel(3, hookImage, 3, 2, none, none, image(ntdllBase, 0x200000, appPID, `C:\Windows\System32\ntdll.dll`))

	// A child process that starts and exits.
	t.kernel(100, hookProcess, 1, 3, childPID, childTID, process(childPID, appPID, "child.exe", synthChildCmd))
	t.kernel(101, hookThread, 1, 2, childPID, childTID, thread(childPID, childTID))

	sample := func(us int, ip uint64, tid uint32, frames ...uint64) {
		t.kernel(us, hookPerfInfo, 46, 2, none, none, (&payload{}).u64(ip).u32(tid).u16(1).u16(0).b)
		if len(frames) > 0 {
			p := (&payload{}).u64(uint64(t.raw(us))).u32(appPID).u32(tid)
			for _, f := range frames {
				p.u64(f)
			}
			t.kernel(us, hookStackWalk, 32, 2, none, none, p.b)
		}
	}
	// CPU samples: four in app.exe called from ntdll, one in ntdll, one
	// in the kernel, one on the idle thread (not a CPU sample).
	for i := 0; i < 4; i++ {
		sample(200+10*i, appBase+0x100, appTID, appBase+0x100, ntdllBase+0x1000)
	}
	sample(250, ntdllBase+0x2000, appTID, ntdllBase+0x2000)
	sample(260, kernelBase+0x1000, appTID, kernelBase+0x1000, appBase+0x200)
	sample(270, kernelBase+0x3000, 0)

	// Disk I/O (DiskIo v3): three reads of file A by app.exe, one write
	// of file B by the child.
	disk := func(us int, op uint8, tid uint32, size uint32, file uint64, ticks uint64) {
		t.kernel(us, hookDiskIo, op, 3, none, none,
			(&payload{}).u32(0).u32(0).u32(size).u32(0).u64(0).u64(file).u64(0xFFFFFA8000C00000+uint64(us)).u64(ticks).u32(tid).b)
	}
	for i := 0; i < synthDiskReads; i++ {
		disk(300+i, 10, appTID, 4096, fileA, 20000) // 2 ms at 10 MHz
	}
	disk(310, 11, childTID, synthDiskWrite, fileB, 50000) // 5 ms

	// File I/O (FileIo v3): reads and a write with their completions, and
	// the names of the file objects.
	fileRW := func(us int, op uint8, pid, tid uint32, irp, file uint64, size uint32) {
		t.kernel(us, hookFileIo, op, 3, pid, tid, (&payload{}).u64(0).u64(irp).u64(file).u64(file).u32(tid).u32(size).u32(0).b)
	}
	opEnd := func(us int, irp uint64) {
		t.kernel(us, hookFileIo, 76, 3, appPID, appTID, (&payload{}).u64(irp).u64(0).u32(0).b)
	}
	fileRW(400, 67, appPID, appTID, 0x1, fileA, 100)
	opEnd(410, 0x1) // 10 µs
	fileRW(420, 67, appPID, appTID, 0x2, fileA, 300)
	opEnd(450, 0x2) // 30 µs
	fileRW(460, 68, childPID, childTID, 0x3, fileB, synthFileWrite)

	// .NET: two GCs (pauses 130 and 120 µs), three allocation ticks of
	// 100,000 bytes (two System.String, one byte[]), two JIT-compiled
	// methods and one that is not.
	gc := func(us int, id uint16, name string, fields ...tracelogging.FieldValue) {
		t.clr(us, id, name, fields...)
	}
	gcStart := func(us int, count, depth uint32) {
		gc(us, 1, "GCStart", tracelogging.Uint32("Count", count), tracelogging.Uint32("Depth", depth), tracelogging.Uint32("Reason", 0), tracelogging.Uint32("Type", 0))
	}
	alloc := func(us int, typ string) {
		gc(us, 10, "GCAllocationTick", tracelogging.Uint32("AllocationAmount", 100000), tracelogging.Uint32("AllocationKind", 0),
			tracelogging.Uint16("ClrInstanceID", 9), tracelogging.Uint64("AllocationAmount64", 100000), tracelogging.UintPtr("TypeID", 0x1234, 8),
			tracelogging.UnicodeString("TypeName", typ))
	}
	method := func(us int, id uint64, flags uint32, ns, name string) {
		gc(us, 143, "MethodLoadVerbose", tracelogging.Uint64("MethodID", id), tracelogging.Uint64("ModuleID", 2),
			tracelogging.Uint64("MethodStartAddress", 0x10000000+id*0x100), tracelogging.Uint32("MethodSize", 0x100),
			tracelogging.Uint32("MethodToken", 0x06000001), tracelogging.Uint32("MethodFlags", flags),
			tracelogging.UnicodeString("MethodNamespace", ns), tracelogging.UnicodeString("MethodName", name),
			tracelogging.UnicodeString("MethodSignature", "void  ()"), tracelogging.Uint16("ClrInstanceID", 9))
	}
	// in time order: every processor's events must be
	gc(500, 9, "GCSuspendEEBegin", tracelogging.Uint32("Reason", 1), tracelogging.Uint32("Count", 0))
	alloc(510, "System.String")
	gcStart(520, 1, 0)
	method(540, 1, 8, "App.Program", "Main")
	method(550, 2, 8, "App.Program", "Work")
	method(560, 3, 0, "App.Program", "Precompiled")
	gc(600, 2, "GCEnd", tracelogging.Uint32("Count", 1), tracelogging.Uint32("Depth", 0))
	gc(630, 3, "GCRestartEEEnd")
	alloc(690, "System.String")
	gc(700, 9, "GCSuspendEEBegin", tracelogging.Uint32("Reason", 1), tracelogging.Uint32("Count", 1))
	gcStart(710, 2, 1)
	alloc(720, "System.Byte[]")
	gc(800, 2, "GCEnd", tracelogging.Uint32("Count", 2), tracelogging.Uint32("Depth", 1))
	gc(820, 3, "GCRestartEEEnd")

	// A real-time lost-event record.
	t.write(etl.Event{Header: etl.HeaderClassic64, ProviderID: guidRTLost, ProcessID: 4, ThreadID: 8, Timestamp: t.raw(850),
		Descriptor: etl.EventDescriptor{Opcode: 32, Version: 0}})

	// The child exits; the names of the file objects (rundown, at the end).
	t.kernel(900, hookProcess, 2, 3, childPID, childTID, process(childPID, appPID, "child.exe", synthChildCmd))
	t.kernel(950, hookFileIo, 36, 3, 0, 0, (&payload{}).u64(fileA).wstr(`C:\data\a.bin`).b)
	t.kernel(951, hookFileIo, 36, 3, 0, 0, (&payload{}).u64(fileB).wstr(`C:\data\b.bin`).b)
	if t.err != nil {
		panic(t.err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func openBytes(b []byte) *etl.File {
	f, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		panic(err)
	}
	return f
}
