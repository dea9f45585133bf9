package main

import (
	"github.com/etwkit/etw/etl"
)

// record-kinds.etl holds the record kinds the emulator does not write —
// kernel system, compact and perfinfo records, instance records, an error
// record — in their 32- and 64-bit forms, written with etl.Writer as a
// kernel or relogged trace holds them. Kernel payloads follow the built-in
// NT Kernel Logger layouts; instance records use classic.mof's classes.

// processStart is a Process/Start v3 payload for the pointer size.
func processStart(ptr int, pid, ppid uint32, image, cmdline string) []byte {
	return payload(nil).ptr(0xFFFF8A0F1E2D3C40, ptr).u32(pid).u32(ppid).u32(1).i32(259).
		ptr(0x1AB000, ptr).
		ptr(0x00C0FFEE, ptr).ptr(0, ptr).bytes(sidLocalSystem). // TOKEN_USER, then the SID
		ansi(image, true).utf16(cmdline, true)
}

// cswitch is a Thread/CSwitch v2 payload.
func cswitch(newTID, oldTID uint32) []byte {
	return payload(nil).u32(newTID).u32(oldTID).i8(9).i8(8).u8(1).i8(0).i8(6).i8(1).i8(5).i8(0).u32(100).u32(0)
}

// sampleProf is a PerfInfo/SampleProf v2 payload.
func sampleProf(ptr int, ip uint64, tid uint32) []byte {
	return payload(nil).ptr(ip, ptr).u32(tid).u16(1).u16(0)
}

func genRecordKinds(fx *fixtures) error {
	const start = 133485408000000000 // 2024-01-01T00:00:00Z
	var out memWriter
	w, err := etl.NewWriter(&out, &etl.WriterOptions{
		Header: etl.LogfileHeader{Is64: true, NumberOfProcessors: 2, TimerResolution: 156250, CPUSpeedMHz: 3000,
			BootTime: start, PerfFreq: 10_000_000, StartTime: start, LoggerName: "record kinds", LogFileName: "record-kinds.etl"},
		BufferSize: 4 << 10, HeaderThreadID: 4, HeaderProcessID: 4,
	})
	if err != nil {
		return err
	}
	pmc := payload(nil).u64(1000).u64(2000)
	events := []etl.Event{
		{Header: etl.HeaderSystem64, HookID: 0x0301, ClassVersion: 3, ThreadID: 0x10, ProcessID: 0x344, KernelTime: 1, UserTime: 2,
			UserData: processStart(8, 0x344, 0x1F0, "notepad.exe", `notepad.exe C:\notes.txt`)},
		{Header: etl.HeaderSystem32, HookID: 0x0301, ClassVersion: 3, ThreadID: 0x14, ProcessID: 0x348, Processor: 1,
			UserData: processStart(4, 0x348, 0x344, "wow64app.exe", `wow64app.exe /32`)},
		{Header: etl.HeaderCompact64, HookID: 0x0524, ClassVersion: 2, ThreadID: 0x10, ProcessID: 0x344, UserData: cswitch(0x10, 0)},
		{Header: etl.HeaderCompact32, HookID: 0x0524, ClassVersion: 2, ThreadID: 0x14, ProcessID: 0x348, Processor: 1, UserData: cswitch(0x14, 0x10)},
		{Header: etl.HeaderPerfInfo64, HookID: 0x0F2E, ClassVersion: 2, UserData: sampleProf(8, 0xFFFFF8012345ABCD, 0x10)},
		{Header: etl.HeaderPerfInfo32, HookID: 0x0F2E, ClassVersion: 2, Processor: 1, UserData: sampleProf(4, 0x00401234, 0x14)},
		// A context switch with PMC counters between header and payload.
		{Header: etl.HeaderSystem64, HookID: 0x0524, ClassVersion: 2, ThreadID: 0x10, ProcessID: 0x344, UserData: cswitch(0x18, 0x10),
			Extended: []etl.ExtendedItem{{Type: etl.ExtPMCCounters, Data: pmc}}},
		{Header: etl.HeaderInstance64, ProviderID: ClassicJobClass, Descriptor: etl.EventDescriptor{Opcode: 1, Level: 4}, ClassVersion: 2,
			ThreadID: 0x0A04, ProcessID: 0x0A00, InstanceID: 7, ParentInstanceID: 3, ParentGUID: ClassicProvider,
			UserData: jobPayload(0x2B, "restore", 1)},
		{Header: etl.HeaderInstance32, ProviderID: Classic32Class, Descriptor: etl.EventDescriptor{Opcode: 32, Level: 4}, ClassVersion: 1,
			ThreadID: 0x0A14, ProcessID: 0x0A10, InstanceID: 8, ParentInstanceID: 7, ParentGUID: Classic32Provider, Processor: 1,
			UserData: payload(nil).ptr(0x00A20000, 4).ptr(0x200, 4).ptr(0x00C0FFEE, 4).ptr(0, 4).bytes(sidLocalSystem).utf16("pool", true)},
		// A record the logger could not complete (ProcessTrace skips these).
		{Header: etl.HeaderError, ProviderID: ClassicProvider, Descriptor: etl.EventDescriptor{ID: 1}, Flags: etl.Flag64BitHeader,
			ThreadID: 0x0A04, ProcessID: 0x0A00},
	}
	for i := range events {
		events[i].Timestamp = int64(i+1) * tick
		if err := w.WriteEvent(&events[i]); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	fx.add("record-kinds.etl", out.b)
	fx.events["record-kinds.etl"] = len(events)
	return nil
}
