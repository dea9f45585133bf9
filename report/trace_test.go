package report

import (
	"bytes"
	"time"

	"github.com/etwkit/etw/analysis/analysistest"
	"github.com/etwkit/etw/catalog"
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

var synthStart = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

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
	none               = analysistest.None
)

type payload = analysistest.Payload

type synthWriter struct{ analysistest.Writer }

func filetime(t time.Time) int64 { return analysistest.FileTime(t) }

// clr writes a .NET runtime event of the app's thread.
func (t *synthWriter) clr(us int, id uint16, name string, fields ...tracelogging.FieldValue) {
	t.CLR(us, id, appPID, appTID, name, fields...)
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
	t := &synthWriter{analysistest.Writer{Start: synthStart}}
	w, err := etl.NewWriter(&buf, &etl.WriterOptions{BufferSize: 1024, Header: etl.LogfileHeader{
		StartTime: filetime(synthStart), Is64: true, NumberOfProcessors: 2, LoggerName: "report test"}})
	if err != nil {
		panic(err)
	}
	t.W = w
	process, thread, image := analysistest.ProcessPayload, analysistest.ThreadPayload, analysistest.ImagePayload
	t.Kernel(0, hookProcess, 3, 3, 4, 8, process(4, 0, "System", ""))
	t.Kernel(0, hookProcess, 3, 3, appPID, appTID, process(appPID, 4, "app.exe", `app.exe --work`))
	t.Kernel(0, hookThread, 3, 2, 4, 8, thread(4, 8))
	t.Kernel(0, hookThread, 3, 2, appPID, appTID, thread(appPID, appTID))
	t.Kernel(1, hookImage, 3, 2, none, none, image(kernelBase, 0x800000, 0, `\SystemRoot\system32\ntoskrnl.exe`))
	t.Kernel(2, hookImage, 3, 2, none, none, image(appBase, 0x10000, appPID, `C:\app\app.exe`))
	t.Kernel(3, hookImage, 3, 2, none, none, image(ntdllBase, 0x200000, appPID, `C:\Windows\System32\ntdll.dll`))

	// A child process that starts and exits.
	t.Kernel(100, hookProcess, 1, 3, childPID, childTID, process(childPID, appPID, "child.exe", synthChildCmd))
	t.Kernel(101, hookThread, 1, 2, childPID, childTID, thread(childPID, childTID))

	sample := func(us int, ip uint64, tid uint32, frames ...uint64) {
		t.Kernel(us, hookPerfInfo, 46, 2, none, none, (&payload{}).U64(ip).U32(tid).U16(1).U16(0).B)
		if len(frames) > 0 {
			p := (&payload{}).U64(uint64(t.Raw(us))).U32(appPID).U32(tid)
			for _, f := range frames {
				p.U64(f)
			}
			t.Kernel(us, hookStackWalk, 32, 2, none, none, p.B)
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
		t.Kernel(us, hookDiskIo, op, 3, none, none,
			(&payload{}).U32(0).U32(0).U32(size).U32(0).U64(0).U64(file).U64(0xFFFFFA8000C00000+uint64(us)).U64(ticks).U32(tid).B)
	}
	for i := 0; i < synthDiskReads; i++ {
		disk(300+i, 10, appTID, 4096, fileA, 20000) // 2 ms at 10 MHz
	}
	disk(310, 11, childTID, synthDiskWrite, fileB, 50000) // 5 ms

	// File I/O (FileIo v3): reads and a write with their completions, and
	// the names of the file objects.
	fileRW := func(us int, op uint8, pid, tid uint32, irp, file uint64, size uint32) {
		t.Kernel(us, hookFileIo, op, 3, pid, tid, (&payload{}).U64(0).U64(irp).U64(file).U64(file).U32(tid).U32(size).U32(0).B)
	}
	opEnd := func(us int, irp uint64) {
		t.Kernel(us, hookFileIo, 76, 3, appPID, appTID, (&payload{}).U64(irp).U64(0).U32(0).B)
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
	t.Write(etl.Event{Header: etl.HeaderClassic64, ProviderID: catalog.RTLostEventGUID, ProcessID: 4, ThreadID: 8, Timestamp: t.Raw(850),
		Descriptor: etl.EventDescriptor{Opcode: 32, Version: 0}})

	// The child exits; the names of the file objects (rundown, at the end).
	t.Kernel(900, hookProcess, 2, 3, childPID, childTID, process(childPID, appPID, "child.exe", synthChildCmd))
	t.Kernel(950, hookFileIo, 36, 3, 0, 0, (&payload{}).U64(fileA).WStr(`C:\data\a.bin`).B)
	t.Kernel(951, hookFileIo, 36, 3, 0, 0, (&payload{}).U64(fileB).WStr(`C:\data\b.bin`).B)
	if t.Err != nil {
		panic(t.Err)
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
