package analysis_test

import (
	"bytes"
	"time"

	"github.com/google/uuid"

	"github.com/etwkit/etw/analysis/analysistest"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tracelogging"
)

// A small trace written in memory for the tests and examples: the kernel
// events of a PerfView-style session (process, thread and image rundown,
// a PDB identity, CPU samples with stack keys, an inline StackWalk stack)
// and .NET runtime events (a JIT-compiled method, two GCs, a runtime event
// with its CLR stack walk). The .NET events are TraceLogging events with
// the runtime's provider GUID and event ids: the model reads them by id
// and property name, whatever schema describes them.

var (
	traceStart = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

	guidImageID   = uuid.MustParse("b3e675d7-2554-4f18-830b-2762732560de")
	ntdllPDBGUID  = uuid.MustParse("ec83d8df-5559-46e0-b1a4-0123456789ab")
	hookProcess   = uint16(0x03)
	hookThread    = uint16(0x05)
	hookImage     = uint16(0x14)
	hookPerfInfo  = uint16(0x0F)
	hookStackWalk = uint16(0x18)
)

// Addresses of the trace's images and method.
const (
	appBase    = 0x400000
	ntdllBase  = 0x7FF800000000
	kernelBase = 0xFFFFF80000000000
	workStart  = 0x10000000
	appPID     = 100
	appTID     = 200
	key1       = 0xFFFFFA8000000010 // a user-mode stack
	key2       = 0xFFFFFA8000000020 // a kernel-mode stack
)

type payload = analysistest.Payload

type traceWriter struct {
	analysistest.Writer
	buf bytes.Buffer
}

func newTraceWriter() *traceWriter {
	return &traceWriter{Writer: analysistest.Writer{Start: traceStart}}
}

func fileTime(tm time.Time) int64 { return analysistest.FileTime(tm) }

// clr writes a .NET runtime event as a TraceLogging event.
func (t *traceWriter) clr(us int, id uint16, pid, tid uint32, name string, fields ...tracelogging.FieldValue) {
	t.CLR(us, id, pid, tid, name, fields...)
}

func exampleTrace() ([]*etl.File, *decode.Decoder) {
	b := exampleTraceBytes()
	f, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		panic(err)
	}
	return []*etl.File{f}, decode.New()
}

// exampleTraceBytes returns the bytes of the example trace.
func exampleTraceBytes() []byte {
	t := newTraceWriter()
	w, err := etl.NewWriter(&t.buf, &etl.WriterOptions{Header: etl.LogfileHeader{
		StartTime: fileTime(traceStart), Is64: true, NumberOfProcessors: 2, LoggerName: "analysis example"}})
	if err != nil {
		panic(err)
	}
	t.W = w
	const none = analysistest.None
	process, thread, image := analysistest.ProcessPayload, analysistest.ThreadPayload, analysistest.ImagePayload
	// Rundown at the start: processes, threads, images.
	t.Kernel(0, hookProcess, 3, 3, 4, 8, process(4, 0, "System", ""))
	t.Kernel(0, hookProcess, 3, 3, appPID, appTID, process(appPID, 4, "app.exe", `app.exe --work`))
	t.Kernel(0, hookThread, 3, 2, 4, 8, thread(4, 8))
	t.Kernel(0, hookThread, 3, 2, appPID, appTID, thread(appPID, appTID))
	t.Kernel(1, hookImage, 3, 2, none, none, image(kernelBase, 0x800000, 0, `\SystemRoot\system32\ntoskrnl.exe`))
	t.Kernel(2, hookImage, 3, 2, none, none, image(appBase, 0x10000, appPID, `C:\app\app.exe`))
	pdb := (&payload{}).U64(ntdllBase).U32(appPID)
	g, _ := ntdllPDBGUID.MarshalBinary()
	pdb.B = append(pdb.B, g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6])
	pdb.B = append(pdb.B, g[8:]...)
	t.Write(etl.Event{Header: etl.HeaderClassic64, ProviderID: guidImageID, ProcessID: appPID, ThreadID: appTID, Timestamp: t.Raw(3),
		Descriptor: etl.EventDescriptor{Opcode: 36, Version: 2}, UserData: pdb.U32(2).Str("ntdll.pdb").B})
	t.Kernel(3, hookImage, 3, 2, none, none, image(ntdllBase, 0x200000, appPID, `C:\Windows\System32\ntdll.dll`))

	sample := func(us int, ip uint64, tid uint32) {
		t.Kernel(us, hookPerfInfo, 46, 2, none, none, (&payload{}).U64(ip).U32(tid).U16(1).U16(0).B)
	}
	stackKey := func(us, target int, opcode uint8, key uint64) {
		t.Kernel(us, hookStackWalk, opcode, 2, none, none, (&payload{}).U64(uint64(t.Raw(target))).U32(appPID).U32(appTID).U64(key).B)
	}
	stack := func(us, target int, frames ...uint64) {
		p := (&payload{}).U64(uint64(t.Raw(target))).U32(appPID).U32(appTID)
		for _, f := range frames {
			p.U64(f)
		}
		t.Kernel(us, hookStackWalk, 32, 2, none, none, p.B)
	}
	// CPU samples: in user mode (a user stack key), in kernel mode (a
	// kernel key now, the user key when the thread returns to user
	// mode), on the idle thread, with an inline stack, in .NET code.
	sample(10, appBase+0x100, appTID)
	stackKey(10, 10, 38, key1)
	sample(20, kernelBase+0x1000, appTID)
	stackKey(20, 20, 37, key2)
	stackKey(25, 20, 38, key1)
	sample(30, kernelBase+0x3000, 0)
	sample(40, appBase+0x300, appTID)
	stack(40, 40, appBase+0x300, ntdllBase+0x2000)
	t.clr(50, 143, appPID, appTID, "MethodLoadVerbose",
		tracelogging.Uint64("MethodID", 1), tracelogging.Uint64("ModuleID", 2), tracelogging.Uint64("MethodStartAddress", workStart),
		tracelogging.Uint32("MethodSize", 0x100), tracelogging.Uint32("MethodToken", 0x06000001), tracelogging.Uint32("MethodFlags", 8),
		tracelogging.UnicodeString("MethodNamespace", "App.Program"), tracelogging.UnicodeString("MethodName", "Work"),
		tracelogging.UnicodeString("MethodSignature", "void  ()"), tracelogging.Uint16("ClrInstanceID", 9))
	sample(60, workStart+0x10, appTID)
	stack(60, 60, workStart+0x10, appBase+0x100, ntdllBase+0x1000)

	// Two GCs, each logged with two GCStart events (as .NET 4.5 does:
	// GCStart_V1 and GCStart_V2), pauses of 130 µs and 120 µs, and a
	// suspension for another reason.
	suspend := func(us int, reason uint32, count uint32) {
		t.clr(us, 9, appPID, appTID, "GCSuspendEEBegin", tracelogging.Uint32("Reason", reason), tracelogging.Uint32("Count", count))
	}
	gc := func(us int, id uint16, name string, fields ...tracelogging.FieldValue) {
		t.clr(us, id, appPID, appTID, name, fields...)
	}
	gcStart := func(us int, count uint32) {
		gc(us, 1, "GCStart", tracelogging.Uint32("Count", count), tracelogging.Uint32("Depth", 0), tracelogging.Uint32("Reason", 0), tracelogging.Uint32("Type", 0))
	}
	suspend(100, 1, 0)
	gc(110, 8, "GCSuspendEEEnd")
	gcStart(120, 1)
	gcStart(120, 1)
	gc(200, 2, "GCEnd", tracelogging.Uint32("Count", 1), tracelogging.Uint32("Depth", 0))
	gc(210, 7, "GCRestartEEBegin")
	gc(230, 3, "GCRestartEEEnd")
	suspend(300, 1, 1)
	gcStart(310, 2)
	gcStart(311, 2)
	gc(400, 2, "GCEnd", tracelogging.Uint32("Count", 2), tracelogging.Uint32("Depth", 0))
	gc(420, 3, "GCRestartEEEnd")
	suspend(450, 5, 2) // SuspendForShutdown: no GC
	gc(460, 3, "GCRestartEEEnd")

	// A runtime event and the CLR stack walk that follows it.
	gc(500, 10, "GCAllocationTick", tracelogging.Uint32("AllocationAmount", 100000))
	gc(501, 82, "ClrStackWalk", tracelogging.Uint16("ClrInstanceID", 9), tracelogging.Uint8("Reserved1", 0), tracelogging.Uint8("Reserved2", 0),
		tracelogging.Uint32("FrameCount", 2), tracelogging.Array("Stack", []uint64{workStart + 0x20, appBase + 0x200}, func(name string, v uint64, _ ...tracelogging.Option) tracelogging.FieldValue {
			return tracelogging.UintPtr(name, v, 8)
		}))

	// The stack keys' definitions, at the end of the trace.
	t.Kernel(900, hookStackWalk, 36, 2, none, none, (&payload{}).U64(key1).U64(appBase+0x100).U64(ntdllBase+0x1000).B)
	t.Kernel(900, hookStackWalk, 36, 2, none, none, (&payload{}).U64(key2).U64(kernelBase+0x1000).U64(kernelBase+0x2000).B)
	if t.Err != nil {
		panic(t.Err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return t.buf.Bytes()
}
