package main

import (
	"github.com/google/uuid"

	"github.com/etwkit/etw/session"
)

// The classic providers of classic.etl, described by classic.mof: a
// 64-bit one and a 32-bit one (FULL_HEADER32 records, 4-byte pointers).
var (
	ClassicProvider   = uuid.MustParse("4d3c2b1a-6f5e-4a7b-8c9d-0e1f2a3b4c5d")
	ClassicJobClass   = uuid.MustParse("4d3c2b1a-6f5e-4a7b-8c9d-0e1f2a3b4c5e")
	ClassicTextClass  = uuid.MustParse("4d3c2b1a-6f5e-4a7b-8c9d-0e1f2a3b4c5f")
	Classic32Provider = uuid.MustParse("5e4d3c2b-7a6f-4b8c-9dae-1f2a3b4c5d6e")
	Classic32Class    = uuid.MustParse("5e4d3c2b-7a6f-4b8c-9dae-1f2a3b4c5d6f")
)

// mofText is classic.mof: the MOF classes of the classic providers,
// written for the fixture.
const mofText = `// The MOF classes of testdata/etl/classic.etl, written by
// internal/fixturegen. Do not edit: run go generate ./...
#pragma namespace("\\\\.\\root\\wmi")

[Dynamic, Description("EtwKit fixtures classic provider"), Guid("{4d3c2b1a-6f5e-4a7b-8c9d-0e1f2a3b4c5d}")]
class EtwKitFixturesClassic : EventTrace
{
};

// An embedded class: a struct property of the Job events.
class EtwKitFixturesClassic_Point
{
    [WmiDataId(1)] sint32 X;
    [WmiDataId(2)] sint32 Y;
};

[Dynamic, Guid("{4d3c2b1a-6f5e-4a7b-8c9d-0e1f2a3b4c5e}"), EventVersion(2), DisplayName("Job")]
class EtwKitFixturesClassic_Job : EtwKitFixturesClassic
{
};

[Dynamic, EventType{1, 2}, EventTypeName{"Start", "Stop"}]
class EtwKitFixturesClassic_Job_TypeGroup1 : EtwKitFixturesClassic_Job
{
    [WmiDataId(1), format("x")] uint32 JobId;
    [WmiDataId(2), StringTermination("NullTerminated"), format("w")] string Name;
    [WmiDataId(3), StringTermination("NullTerminated")] string Owner;
    [WmiDataId(4), pointer] uint64 Context;
    [WmiDataId(5), extension("SizeT")] object Size;
    [WmiDataId(6), extension("Sid")] object UserSid;
    [WmiDataId(7), ValueMap{"0", "1", "2"}, Values{"Queued", "Running", "Done"}] uint32 State;
    [WmiDataId(8), ValueMap{"1", "2", "4"}, Values{"Read", "Write", "Execute"}, ValueType("flag")] uint32 Access;
    [WmiDataId(9), BitMap{"0", "1", "31"}, BitValues{"Urgent", "Retry", "System"}] uint32 Options;
    [WmiDataId(10)] uint32 PriorityCount;
    [WmiDataId(11), WmiSizeIs("PriorityCount")] uint16 Priorities[];
    [WmiDataId(12), MAX(4)] uint32 Slots[];
    [WmiDataId(13), extension("Guid")] object JobGuid;
    [WmiDataId(14), extension("Port")] object Port;
    [WmiDataId(15), extension("IPAddr")] object Address;
    [WmiDataId(16), extension("IPAddrV6")] object Address6;
    [WmiDataId(17)] boolean Ok;
    [WmiDataId(18)] real32 Ratio;
    [WmiDataId(19)] real64 Precise;
    [WmiDataId(20)] sint8 Delta8;
    [WmiDataId(21)] sint16 Delta16;
    [WmiDataId(22)] sint64 Delta64;
    [WmiDataId(23), format("x")] uint64 Mask;
    [WmiDataId(24), extension("WmiTime")] uint64 When;
    [WmiDataId(25)] char16 Letter;
    [WmiDataId(26), format("c")] uint8 Grade;
    [WmiDataId(27)] EtwKitFixturesClassic_Point Where;
    [WmiDataId(28)] uint8 Fixed[3];
};

[Dynamic, Guid("{4d3c2b1a-6f5e-4a7b-8c9d-0e1f2a3b4c5f}"), EventVersion(0), DisplayName("Text")]
class EtwKitFixturesClassic_Text : EtwKitFixturesClassic
{
};

[Dynamic, EventType(10), EventTypeName("Strings")]
class EtwKitFixturesClassic_Text_Strings : EtwKitFixturesClassic_Text
{
    [WmiDataId(1), StringTermination("Counted"), format("w")] string CountedWide;
    [WmiDataId(2), StringTermination("Counted")] string CountedAnsi;
    [WmiDataId(3), StringTermination("ReverseCounted"), format("w")] string ReversedWide;
    [WmiDataId(4), MAX(8)] string Tag;
    [WmiDataId(5), StringTermination("NotCounted")] string Rest;
};

[Dynamic, Description("EtwKit fixtures 32-bit classic provider"), Guid("{5e4d3c2b-7a6f-4b8c-9dae-1f2a3b4c5d6e}")]
class EtwKitFixturesClassic32 : EventTrace
{
};

[Dynamic, Guid("{5e4d3c2b-7a6f-4b8c-9dae-1f2a3b4c5d6f}"), EventVersion(1), DisplayName("Alloc")]
class EtwKitFixturesClassic32_Alloc : EtwKitFixturesClassic32
{
};

[Dynamic, EventType{32, 33}, EventTypeName{"Alloc", "Free"}]
class EtwKitFixturesClassic32_Alloc_TypeGroup : EtwKitFixturesClassic32_Alloc
{
    [WmiDataId(1), pointer] uint32 Address;
    [WmiDataId(2), extension("SizeT")] object Size;
    [WmiDataId(3), extension("Sid")] object UserSid;
    [WmiDataId(4), StringTermination("NullTerminated"), format("w")] string Tag;
};
`

// jobPayload is a Job/Start or Job/Stop payload (64-bit).
func jobPayload(id uint32, name string, state uint32) []byte {
	return payload(nil).u32(id).utf16(name, true).ansi("svc-account", true).
		ptr(0xFFFF8A0012345678, 8).ptr(0x10000, 8).
		ptr(0xFFFF8A00CAFE0000, 8).ptr(0, 8).bytes(sidUser). // TOKEN_USER, then the SID
		u32(state).u32(0x3).u32(0x80000001).
		u32(3).u16(1).u16(5).u16(9).
		u32(10).u32(20).u32(30).u32(40).
		guid(sampleGUID).bytes([]byte{0x1F, 0x90}).bytes([]byte{10, 0, 0, 7}).bytes(ipv6Loopback).
		u32(1).f32(0.5).f64(-1234.5678).i8(-1).i16(-300).i64(-1 << 40).u64(0xF0F0).
		u64(0x123456789).u16('J').u8('A').
		i32(-10).i32(20).
		bytes([]byte{7, 8, 9})
}

func genClassic(fx *fixtures) error {
	m := newMachine(1)
	s, err := m.start("classic", session.SessionOptions{BufferSize: 4 << 10})
	if err != nil {
		return err
	}
	must(s.Enable(ClassicProvider, 5, 0xFFFF, 0))
	must(s.Enable(Classic32Provider, 5, 0xFFFF, 0))
	p, err := m.sys.RegisterProvider(ClassicProvider, session.Classic, nil)
	if err != nil {
		return err
	}
	p32, err := m.sys.RegisterProvider(Classic32Provider, session.Classic, &session.ProviderOptions{Is32Bit: true})
	if err != nil {
		return err
	}
	ctx := &session.Context{ProcessID: 0x0A00, ThreadID: 0x0A04, KernelTime: 1, UserTime: 2}
	strs := payload(nil).u16(10).utf16("wide!", false).u16(4).ansi("ansi", false).
		bytes([]byte{0, 6}).utf16("rev", false).ansi("TAG12345", false).ansi("the rest of it", false)
	alloc := func(addr, size uint32) []byte {
		return payload(nil).ptr(uint64(addr), 4).ptr(uint64(size), 4).
			ptr(0x00C0FFEE, 4).ptr(0, 4).bytes(sidLocalSystem).utf16("heap", true)
	}
	writes := []struct {
		p       *session.Provider
		class   uuid.UUID
		typ     uint8
		level   uint8
		version uint16
		data    []byte
	}{
		{p, ClassicJobClass, 1, 4, 2, jobPayload(0x2A, "backup", 1)},
		{p, ClassicTextClass, 10, 5, 0, strs},
		{p32, Classic32Class, 32, 4, 1, alloc(0x00A10000, 0x100)},
		{p32, Classic32Class, 33, 4, 1, alloc(0x00A10000, 0x100)},
		{p, ClassicJobClass, 2, 3, 2, jobPayload(0x2A, "backup", 2)},
	}
	for _, w := range writes {
		if err := wrote(w.p.TraceEvent(ctx, w.class, w.typ, w.level, w.version, w.data), "classic event"); err != nil {
			return err
		}
		m.sys.Advance(tick)
	}
	if err := s.Stop(); err != nil {
		return err
	}
	m.collect(fx)
	fx.add("classic.mof", []byte(mofText))
	fx.events["classic.etl"] = len(writes)
	return nil
}
