package main

import (
	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
)

// The emulator has no TraceMessage: wpp.etl is written with etl.Writer
// directly, as a WPP session's file.

// WPPMessageGUID is the message GUID (the TMF's) of wpp.etl's messages.
var WPPMessageGUID = uuid.MustParse("c0ffee00-1234-4abc-9def-0123456789ab")

// TRACE_MESSAGE_* option flags.
const (
	wppSequence    = 0x01
	wppGUID        = 0x02
	wppComponentID = 0x04
	wppTimestamp   = 0x08
	wppSystemInfo  = 0x20
	wppPointer32   = 0x40
	wppPointer64   = 0x80
)

// memWriter is an in-memory io.Writer and io.WriterAt.
type memWriter struct{ b []byte }

func (m *memWriter) Write(p []byte) (int, error) { m.b = append(m.b, p...); return len(p), nil }
func (m *memWriter) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > len(m.b) {
		m.b = append(m.b, make([]byte, end-len(m.b))...)
	}
	return copy(m.b[off:], p), nil
}

// wppMessages are the records of wpp.etl: the option flags WPP uses
// (sequence numbers, message GUID or component id, timestamps, thread and
// process ids, pointer size) and typical argument lists.
func wppMessages() []etl.Event {
	std := uint16(wppSequence | wppGUID | wppTimestamp | wppSystemInfo | wppPointer64)
	msg := func(id, flags uint16, cpu uint16, seq uint32, data []byte) etl.Event {
		return etl.Event{Header: etl.HeaderMessage, MessageFlags: flags, Descriptor: etl.EventDescriptor{ID: id},
			ProviderID: WPPMessageGUID, SequenceNumber: seq, ThreadID: 0x0B04, ProcessID: 0x0B00, Processor: cpu, UserData: data}
	}
	return []etl.Event{
		msg(10, std, 0, 1, payload(nil).u32(42)),
		msg(11, std, 1, 2, payload(nil).ansi("driver loaded", true).u32(0xC0000001)),
		msg(12, std, 0, 3, payload(nil).utf16(`\Device\Fixture0`, true).u64(0xFFFFE00012345678)),
		msg(13, std, 1, 4, nil),
		// A component id instead of the GUID.
		{Header: etl.HeaderMessage, MessageFlags: wppSequence | wppComponentID | wppTimestamp | wppSystemInfo,
			Descriptor: etl.EventDescriptor{ID: 20}, ComponentID: 7, SequenceNumber: 5, ThreadID: 0x0B04, ProcessID: 0x0B00,
			UserData: payload(nil).u32(1).u32(2)},
		// A 32-bit component: 4-byte pointers.
		msg(14, wppSequence|wppGUID|wppTimestamp|wppSystemInfo|wppPointer32, 0, 6, payload(nil).u32(0x00401000).ansi("wow64", true)),
		// Without sequence number or system information.
		msg(15, wppGUID|wppTimestamp, 1, 0, payload(nil).i32(-1)),
	}
}

// wppTMF is the trace message format file of wpp.etl's messages, as a WPP
// build writes one (our own text).
const wppTMF = `// PDB:  fixture.pdb
c0ffee00-1234-4abc-9def-0123456789ab Fixture // SRC=fixture.c MJ= MN=
#typev fixture_c10 10 "%0 [%!FUNC!] value %10!d!" //   LEVEL=TRACE_LEVEL_INFORMATION FLAGS=INIT FUNC=DriverEntry
{
value, ItemLong -- 10
}
#typev fixture_c11 11 "%0%10!s!: status %11!s!" //   LEVEL=TRACE_LEVEL_ERROR FUNC=Load
{
text, ItemString -- 10
status, ItemNTSTATUS -- 11
}
#typev fixture_c12 12 "%0device %10!s! at %11!p!"
{
name, ItemWString -- 10
object, ItemPtr -- 11
}
#typev fixture_c13 13 "%0no arguments"
{
}
#typev fixture_c14 14 "%0%11!s! base %10!p!"
{
base, ItemPtr -- 10
name, ItemString -- 11
}
#typev fixture_c15 15 "%0result %10!d!"
{
result, ItemLong -- 10
}
00000000-0000-0000-0000-000000000000 Component7
#typev comp_c20 20 "%0pair %10!u!/%11!u!"
{
a, ItemULong -- 10
b, ItemULong -- 11
}
`

func genWPP(fx *fixtures) error {
	const start = 133485408000000000 // 2024-01-01T00:00:00Z
	var out memWriter
	w, err := etl.NewWriter(&out, &etl.WriterOptions{
		Header: etl.LogfileHeader{Is64: true, NumberOfProcessors: 2, TimerResolution: 156250, CPUSpeedMHz: 3000,
			BootTime: start, PerfFreq: 10_000_000, StartTime: start, HeaderTimestamp: 0,
			LoggerName: "wpp", LogFileName: "wpp.etl"},
		BufferSize: 4 << 10,
	})
	if err != nil {
		return err
	}
	msgs := wppMessages()
	for i := range msgs {
		msgs[i].Timestamp = int64(i+1) * tick
		if err := w.WriteEvent(&msgs[i]); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	fx.add("wpp.etl", out.b)
	fx.add("wpp.tmf", []byte(wppTMF))
	fx.events["wpp.etl"] = len(msgs)
	return nil
}
