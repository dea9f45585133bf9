package etltest

import (
	"encoding/binary"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tracelogging"
)

// SampleProvider is the provider of the sample's EVENT_HEADER events.
var SampleProvider = uuid.MustParse("3f4a7f2e-5c1d-4b8e-9a61-0c2d3e4f5a6b")

// TraceLoggingProvider is the provider of the sample's TraceLogging event.
var TraceLoggingProvider = uuid.MustParse("5b1e6f0a-7c2d-5e3f-8a4b-9c0d1e2f3a4b")

// Sample returns the bytes of testdata/etl/sample.etl: a 64-bit QPC trace
// with kernel (system, perfinfo), classic, EVENT_HEADER (with extended
// items) and WPP records on two processors, buffers stored out of time
// order as Windows flushes them, and a self-describing TraceLogging event.
func Sample() []byte {
	tf := NewFile(4096, true)
	tf.TLH.LoggerName = "etwkit sample"
	tf.TLH.LogFileName = `C:\traces\sample.etl`
	tf.TLH.NumberOfProcessors = 2
	tf.TLH.BootTime = 132247782185000000
	t0 := tf.TLH.HeaderTimestamp
	act := uuid.MustParse("6b8a3c1e-0f9d-4e2a-8b7c-5d4e3f2a1b0c")
	rel := make([]byte, 16)
	etl.PutGUIDWindows(rel, uuid.MustParse("0c1b2a3f-4e5d-4c6b-8a79-685746352413"))
	sid := []byte{1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0} // S-1-5-18
	// Process/Start v3: UniqueProcessKey, ProcessId, ParentId, SessionId,
	// ExitStatus, DirectoryTableBase, UserSID (TOKEN_USER + SID),
	// ImageFileName (ANSI), CommandLine (UTF-16).
	procStart := make([]byte, 0, 128)
	procStart = binary.LittleEndian.AppendUint64(procStart, 0xFFFF8A0F1E2D3C40)
	procStart = binary.LittleEndian.AppendUint32(procStart, 0x344)
	procStart = binary.LittleEndian.AppendUint32(procStart, 0x1F0)
	procStart = binary.LittleEndian.AppendUint32(procStart, 1)
	procStart = binary.LittleEndian.AppendUint32(procStart, 259)
	procStart = binary.LittleEndian.AppendUint64(procStart, 0x1AB000)
	procStart = binary.LittleEndian.AppendUint64(procStart, 0xFFFF8A0F1E2D3C90) // TOKEN_USER.User.Sid
	procStart = binary.LittleEndian.AppendUint64(procStart, 0)                  // TOKEN_USER.User.Attributes
	procStart = append(procStart, 1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0)          // S-1-5-18
	procStart = append(procStart, "notepad.exe\x00"...)
	procStart = append(procStart, UTF16Z(`notepad.exe C:\notes.txt`)...)
	// PerfInfo/SampleProf v2: InstructionPointer, ThreadId, Count, Reserved.
	sample := binary.LittleEndian.AppendUint64(nil, 0xFFFFF8012345ABCD)
	sample = binary.LittleEndian.AppendUint32(sample, 0x1234)
	sample = append(sample, 1, 0, 0, 0)
	wppGUID := make([]byte, 16)
	etl.PutGUIDWindows(wppGUID, uuid.MustParse("a9d8c7b6-e5f4-4321-9876-543210fedcba"))
	ts := func(d int64) []byte { b := make([]byte, 8); LE64(b, uint64(t0+d)); return b }
	tidpid := []byte{0x10, 0x20, 0, 0, 0x44, 0x03, 0, 0}
	seq := []byte{1, 0, 0, 0}
	desc := func(id uint16, level uint8) etl.EventDescriptor {
		return etl.EventDescriptor{ID: id, Version: 1, Channel: 16, Level: level, Opcode: 0, Task: 10, Keyword: 0x8000000000000001}
	}
	// CPU 1's second buffer is stored first.
	tf.AddBuffer(1, t0+9000,
		Event(etl.HeaderEvent64, 0, 0x2010, 0x344, t0+7000, SampleProvider, desc(3, 2), act, nil, UTF16Z("second cpu, later")),
		Message(12, 0x01|0x02|0x08|0x20, seq, wppGUID, ts(8000), tidpid, []byte{42, 0, 0, 0}),
	)
	tf.AddBuffer(0, t0+6000,
		Sys(etl.HeaderSystem64, 3, 0x0301, 0x1234, 0x344, t0+1000, nil, procStart),
		Event(etl.HeaderEvent64, 0, 0x1234, 0x344, t0+2000, SampleProvider, desc(1, 4), act,
			[]Ext{{Type: etl.ExtRelatedActivityID, Data: rel}, {Type: etl.ExtSID, Data: sid}}, UTF16Z("hello")),
		Sys(etl.HeaderPerfInfo64, 2, 0x0F2E, 0, 0, t0+3000, nil, sample),
		Classic(etl.HeaderClassic64, 1, 4, 0, 0x1234, 0x344, t0+5000, SampleProvider, []byte("classic")),
	)
	meta, err := tracelogging.EncodeEventMetadata(&tracelogging.EventMetadata{Name: "Checkout", Fields: []tracelogging.Field{
		{Name: "Item", InType: 1},
		{Name: "Quantity", InType: 8},
		{Name: "Paid", InType: 13},
		{Name: "Port", InType: 6, OutType: tracelogging.OutPort},
	}})
	if err != nil {
		panic(err)
	}
	tl := append(UTF16Z("coffee"), 2, 0, 0, 0, 1, 0, 0, 0, 0x01, 0xBB)
	tlRec := Event(etl.HeaderEvent64, 0, 0x2010, 0x344, t0+4200, TraceLoggingProvider,
		etl.EventDescriptor{Channel: 11, Level: 4}, uuid.Nil,
		[]Ext{{Type: etl.ExtProvTraits, Data: tracelogging.EncodeProviderTraits("etwkit-shop", nil)}, {Type: etl.ExtEventSchemaTL, Data: meta}}, tl)
	tf.AddBuffer(1, t0+4500,
		Event(etl.HeaderEvent32, 0, 0x2010, 0x344, t0+2500, SampleProvider, desc(2, 3), uuid.Nil, nil, []byte{7, 0, 0, 0}),
		Event(etl.HeaderEvent64, 0, 0x2010, 0x344, t0+4000, SampleProvider, desc(1, 4), act, nil, UTF16Z("again")),
		tlRec,
	)
	tf.TLH.EndTime = tf.TLH.StartTime + 10000
	return tf.Bytes()
}
