package main

import (
	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/session"
)

// ManifestProvider is the provider of manifest-types.etl, described by
// manifest-types.man.
var ManifestProvider = uuid.MustParse("7e2a9c41-3b5d-4f60-9a18-2c4d6e8f0a1b")

// manifestText is manifest-types.man: a manifest written for the
// fixture, whose templates cover every manifest in-type with its usual
// out-types, value and bit maps, structs with counts, lengths and counts
// that name earlier fields, messages with inserts, and levels, tasks
// (with task opcodes), opcodes, keywords and a channel.
const manifestText = `<?xml version="1.0" encoding="UTF-8"?>
<!-- The manifest of testdata/etl/manifest-types.etl, written by
     internal/fixturegen. Do not edit: run go generate ./... -->
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events"
    xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <instrumentation>
    <events>
      <provider name="EtwKit-Fixtures-Manifest" guid="{7e2a9c41-3b5d-4f60-9a18-2c4d6e8f0a1b}"
          symbol="ETWKIT_FIXTURES_MANIFEST" resourceFileName="fixtures.dll" messageFileName="fixtures.dll"
          message="$(string.provider)">
        <channels>
          <channel name="EtwKit-Fixtures-Manifest/Operational" chid="Operational" type="Operational" enabled="true"/>
        </channels>
        <levels>
          <level name="Chatty" value="16" message="$(string.level.chatty)"/>
        </levels>
        <tasks>
          <task name="Types" value="1" message="$(string.task.types)"/>
          <task name="Transfer" value="2" message="$(string.task.transfer)">
            <opcodes>
              <opcode name="Chunk" value="10" message="$(string.opcode.chunk)"/>
            </opcodes>
          </task>
        </tasks>
        <opcodes>
          <opcode name="Check" value="11" message="$(string.opcode.check)"/>
        </opcodes>
        <keywords>
          <keyword name="Numbers" mask="0x1" message="$(string.keyword.numbers)"/>
          <keyword name="Text" mask="0x2" message="$(string.keyword.text)"/>
          <keyword name="Layout" mask="0x4" message="$(string.keyword.layout)"/>
        </keywords>
        <maps>
          <valueMap name="Color">
            <map value="0" message="$(string.map.color.red)"/>
            <map value="1" message="$(string.map.color.green)"/>
            <map value="2" message="$(string.map.color.blue)"/>
          </valueMap>
          <valueMap name="Mode">
            <map value="1" message="$(string.map.mode.read)"/>
            <map value="2" message="$(string.map.mode.write)"/>
          </valueMap>
          <bitMap name="Access">
            <map value="0x1" message="$(string.map.access.read)"/>
            <map value="0x2" message="$(string.map.access.write)"/>
            <map value="0x4" message="$(string.map.access.execute)"/>
            <map value="0x80000000" message="$(string.map.access.generic)"/>
          </bitMap>
        </maps>
        <templates>
          <template tid="Integers">
            <data name="I8" inType="win:Int8"/>
            <data name="U8" inType="win:UInt8"/>
            <data name="U8Hex" inType="win:UInt8" outType="win:HexInt8"/>
            <data name="U8Char" inType="win:UInt8" outType="xs:string"/>
            <data name="I16" inType="win:Int16"/>
            <data name="U16" inType="win:UInt16"/>
            <data name="U16Hex" inType="win:UInt16" outType="win:HexInt16"/>
            <data name="Port" inType="win:UInt16" outType="win:Port"/>
            <data name="I32" inType="win:Int32"/>
            <data name="HResult" inType="win:Int32" outType="win:HResult"/>
            <data name="U32" inType="win:UInt32"/>
            <data name="U32Hex" inType="win:UInt32" outType="win:HexInt32"/>
            <data name="Pid" inType="win:UInt32" outType="win:PID"/>
            <data name="Tid" inType="win:UInt32" outType="win:TID"/>
            <data name="IPv4" inType="win:UInt32" outType="win:IPv4"/>
            <data name="Win32Error" inType="win:UInt32" outType="win:Win32Error"/>
            <data name="NTStatus" inType="win:UInt32" outType="win:NTSTATUS"/>
            <data name="ETWTime" inType="win:UInt32" outType="win:ETWTIME"/>
            <data name="I64" inType="win:Int64"/>
            <data name="U64" inType="win:UInt64"/>
            <data name="U64Hex" inType="win:UInt64" outType="win:HexInt64"/>
            <data name="HexInt32" inType="win:HexInt32"/>
            <data name="HexInt32Error" inType="win:HexInt32" outType="win:Win32Error"/>
            <data name="HexInt64" inType="win:HexInt64"/>
            <data name="Float" inType="win:Float"/>
            <data name="Double" inType="win:Double"/>
            <data name="Boolean" inType="win:Boolean"/>
            <data name="Pointer" inType="win:Pointer"/>
            <data name="CodePointer" inType="win:Pointer" outType="win:CodePointer"/>
          </template>
          <template tid="Strings">
            <data name="Unicode" inType="win:UnicodeString"/>
            <data name="Ansi" inType="win:AnsiString"/>
            <data name="Utf8" inType="win:AnsiString" outType="win:Utf8"/>
            <data name="Xml" inType="win:UnicodeString" outType="win:Xml"/>
            <data name="Json" inType="win:AnsiString" outType="win:Json"/>
            <data name="CountedUnicode" inType="win:CountedUnicodeString"/>
            <data name="CountedAnsi" inType="win:CountedAnsiString"/>
            <data name="NameLength" inType="win:UInt16"/>
            <data name="Name" inType="win:UnicodeString" length="NameLength"/>
            <data name="Code" inType="win:AnsiString" length="4"/>
            <data name="Names" inType="win:UnicodeString" count="2"/>
          </template>
          <template tid="Others">
            <data name="Guid" inType="win:GUID"/>
            <data name="FileTime" inType="win:FILETIME"/>
            <data name="FileTimeCI" inType="win:FILETIME" outType="win:DateTimeCultureInsensitive"/>
            <data name="SystemTime" inType="win:SYSTEMTIME"/>
            <data name="SystemTimeUtc" inType="win:SYSTEMTIME" outType="win:DateTimeUtc"/>
            <data name="Sid" inType="win:SID"/>
            <data name="BlobSize" inType="win:UInt32"/>
            <data name="Blob" inType="win:Binary" length="BlobSize"/>
            <data name="IPv6" inType="win:Binary" outType="win:IPv6" length="16"/>
            <data name="SocketAddress" inType="win:Binary" outType="win:SocketAddress" length="16"/>
            <data name="CountedBinary" inType="win:CountedBinary"/>
          </template>
          <template tid="Maps">
            <data name="Color" inType="win:UInt32" map="Color"/>
            <data name="Unknown" inType="win:UInt32" map="Color"/>
            <data name="Mode" inType="win:UInt8" map="Mode"/>
            <data name="Access" inType="win:UInt32" map="Access"/>
            <data name="NoAccess" inType="win:UInt32" outType="win:HexInt32" map="Access"/>
            <data name="PaletteSize" inType="win:UInt16"/>
            <data name="Palette" inType="win:UInt16" map="Color" count="PaletteSize"/>
          </template>
          <template tid="Layout">
            <data name="Count" inType="win:UInt16"/>
            <struct name="Items" count="Count">
              <data name="Id" inType="win:UInt32"/>
              <data name="Name" inType="win:UnicodeString"/>
              <data name="Access" inType="win:UInt32" map="Access"/>
              <data name="TagCount" inType="win:UInt8"/>
              <data name="Tags" inType="win:UInt16" count="TagCount"/>
            </struct>
            <struct name="Header">
              <data name="Magic" inType="win:HexInt32"/>
              <data name="Size" inType="win:UInt16"/>
            </struct>
            <data name="Fixed" inType="win:UInt32" count="3"/>
            <data name="GuidCount" inType="win:UInt32"/>
            <data name="Guids" inType="win:GUID" count="GuidCount"/>
          </template>
          <template tid="Progress">
            <data name="Percent" inType="win:UInt32"/>
          </template>
          <template tid="ProgressV1">
            <data name="Percent" inType="win:UInt32"/>
            <data name="Stage" inType="win:UnicodeString"/>
          </template>
          <template tid="Chunk">
            <data name="Offset" inType="win:UInt64"/>
            <data name="Size" inType="win:UInt32"/>
            <data name="Mode" inType="win:UInt8" map="Mode"/>
          </template>
        </templates>
        <events>
          <event value="1" version="0" level="win:Informational" task="Types" opcode="win:Info" keywords="Numbers"
              channel="Operational" template="Integers" symbol="IntegersEvent" message="$(string.event.integers)"/>
          <event value="2" version="0" level="win:Warning" task="Types" keywords="Text"
              channel="Operational" template="Strings" symbol="StringsEvent" message="$(string.event.strings)"/>
          <event value="3" version="0" level="win:Error" task="Types" keywords="Numbers Text"
              channel="Operational" template="Others" symbol="OthersEvent" message="$(string.event.others)"/>
          <event value="4" version="0" level="win:Verbose" task="Types" opcode="Check" keywords="Layout"
              template="Maps" symbol="MapsEvent" message="$(string.event.maps)"/>
          <event value="5" version="0" level="Chatty" task="Types" keywords="Layout"
              template="Layout" symbol="LayoutEvent" message="$(string.event.layout)"/>
          <event value="6" version="0" level="win:Critical" opcode="win:Start" symbol="StartedEvent"
              message="$(string.event.started)"/>
          <event value="7" version="0" level="win:Informational" task="Transfer" opcode="win:Info"
              template="Progress" symbol="ProgressEvent" message="$(string.event.progress)"/>
          <event value="7" version="1" level="win:Informational" task="Transfer" opcode="win:Info"
              template="ProgressV1" symbol="ProgressEventV1" message="$(string.event.progress1)"/>
          <event value="8" version="0" level="win:Informational" task="Transfer" opcode="Chunk"
              template="Chunk" symbol="ChunkEvent" message="$(string.event.chunk)"/>
          <event value="9" version="0" level="win:Critical" opcode="win:Stop" symbol="StoppedEvent"/>
        </events>
      </provider>
    </events>
  </instrumentation>
  <localization>
    <resources culture="en-US">
      <stringTable>
        <string id="provider" value="EtwKit fixtures (manifest)"/>
        <string id="level.chatty" value="Chatty"/>
        <string id="task.types" value="Types"/>
        <string id="task.transfer" value="Transfer"/>
        <string id="opcode.chunk" value="Chunk"/>
        <string id="opcode.check" value="Check"/>
        <string id="keyword.numbers" value="Numbers"/>
        <string id="keyword.text" value="Text"/>
        <string id="keyword.layout" value="Layout"/>
        <string id="map.color.red" value="Red"/>
        <string id="map.color.green" value="Green"/>
        <string id="map.color.blue" value="Blue"/>
        <string id="map.mode.read" value="Read"/>
        <string id="map.mode.write" value="Write"/>
        <string id="map.access.read" value="Read"/>
        <string id="map.access.write" value="Write"/>
        <string id="map.access.execute" value="Execute"/>
        <string id="map.access.generic" value="GenericRead"/>
        <string id="event.integers" value="Integers: I8=%1 U32=%11 I64=%19 Boolean=%27"/>
        <string id="event.strings" value="Strings: %1 and %2 (%9)"/>
        <string id="event.others" value="Others: guid %1 at %2, sid %6, %7 bytes"/>
        <string id="event.maps" value="Color %1, mode %3, access %4"/>
        <string id="event.layout" value="%1 items"/>
        <string id="event.started" value="Started."/>
        <string id="event.progress" value="Progress %1%%"/>
        <string id="event.progress1" value="Progress %1%% (%2)"/>
        <string id="event.chunk" value="Chunk of %2 bytes at %1 (%3)"/>
      </stringTable>
    </resources>
  </localization>
</instrumentationManifest>
`

// manifestEvents returns the descriptors and payloads of
// manifest-types.etl, each encoded by hand after its template.
func manifestEvents() []struct {
	d    etl.EventDescriptor
	data []byte
} {
	const chOperational = 16 // the first channel mc.exe numbers
	desc := func(id uint16, v, ch, level, opcode uint8, task uint16, kw uint64) etl.EventDescriptor {
		return etl.EventDescriptor{ID: id, Version: v, Channel: ch, Level: level, Opcode: opcode, Task: task, Keyword: kw}
	}
	var p payload
	integers := p.i8(-8).u8(200).u8(0xAB).u8('Z').
		i16(-1600).u16(61000).u16(0xBEEF).u16(0xBB01). // Port 443 in network order
		i32(-320000).i32(-2147024891).
		u32(3200000000).u32(0xDEADBEEF).u32(0x1F40).u32(0x1F44).
		bytes([]byte{192, 0, 2, 1}).u32(5).u32(0xC0000022).u32(123456).
		i64(-6400000000).u64(18000000000000000000).u64(0xFEEDFACECAFEBEEF).
		u32(0x0BADF00D).u32(2).u64(0x00007FF612345678).
		f32(3.25).f64(2.718281828459045).u32(1).
		u64(0xFFFF800012345678).u64(0x00007FF600001234)
	strings := payload(nil).utf16("héllo ✓", true).ansi("plain ansi", true).ansi("ütf-8 ✓", true).
		utf16("<a b=\"1\"/>", true).ansi(`{"ok":true}`, true).
		u16(14).utf16("counted", false).u16(5).ansi("ansi!", false).
		u16(5).utf16("fixed", false).ansi("ABCD", false).
		utf16("first", true).utf16("second", true)
	others := payload(nil).guid(sampleGUID).u64(sampleFileTime).u64(sampleFileTime).
		systemTime(2024, 1, 1, 1, 12, 34, 56, 789).systemTime(2024, 1, 1, 1, 12, 34, 56, 789).
		bytes(sidUser).u32(3).bytes([]byte{1, 2, 3}).bytes(ipv6Loopback).bytes(sockaddrIn).
		u16(2).bytes([]byte{0xCA, 0xFE})
	maps := payload(nil).u32(2).u32(9).u8(2).u32(0x80000003).u32(0).
		u16(3).u16(0).u16(1).u16(2)
	layout := payload(nil).u16(2).
		u32(100).utf16("first", true).u32(1).u8(2).u16(10).u16(11).
		u32(200).utf16("second", true).u32(6).u8(0).
		u32(0xFEEDF00D).u16(64).
		u32(7).u32(8).u32(9).
		u32(2).guid(activityA).guid(activityB)
	return []struct {
		d    etl.EventDescriptor
		data []byte
	}{
		{desc(6, 0, 0, 1, 1, 0, 0), nil},
		{desc(1, 0, chOperational, 4, 0, 1, 0x1), integers},
		{desc(2, 0, chOperational, 3, 0, 1, 0x2), strings},
		{desc(3, 0, chOperational, 2, 0, 1, 0x3), others},
		{desc(4, 0, 0, 5, 11, 1, 0x4), maps},
		{desc(5, 0, 0, 16, 0, 1, 0x4), layout},
		{desc(7, 0, 0, 4, 0, 2, 0), payload(nil).u32(50)},
		{desc(7, 1, 0, 4, 0, 2, 0), payload(nil).u32(75).utf16("copying", true)},
		{desc(8, 0, 0, 4, 10, 2, 0), payload(nil).u64(4096).u32(512).u8(2)},
		{desc(9, 0, 0, 1, 2, 0, 0), nil},
	}
}

// genManifestTypes writes manifest-types.etl and its manifest. The
// session asks for every extended item the emulator adds (SID, terminal
// session id, process start key, event key), and one event is a
// string-only event (EventWriteString) and two are written with
// activity ids.
func genManifestTypes(fx *fixtures) error {
	m := newMachine(2, 0, 0, 1)
	s, err := m.start("manifest-types", session.SessionOptions{BufferSize: 4 << 10})
	if err != nil {
		return err
	}
	must(s.Enable(ManifestProvider, 0, 0, 0, session.WithProperties(session.PropertySID|session.PropertyTSID|
		session.PropertyProcessStartKey|session.PropertyEventKey)))
	p, err := m.sys.RegisterProvider(ManifestProvider, session.Manifest, nil)
	if err != nil {
		return err
	}
	ctx := &session.Context{ProcessID: 0x1F40, ThreadID: 0x1F44, SessionID: 1, SID: sidUser, ProcessStartKey: 0x0001000000000042,
		KernelTime: 3, UserTime: 4}
	n := 0
	for i, e := range manifestEvents() {
		switch i {
		case 6, 7: // the Transfer task's events carry an activity
			a, r := activityA, activityB
			err = p.WriteTransfer(ctx, e.d, &a, &r, e.data)
		default:
			err = p.Write(ctx, e.d, e.data)
		}
		if err := wrote(err, "manifest event"); err != nil {
			return err
		}
		n++
		m.sys.Advance(tick)
	}
	if err := wrote(p.WriteString(ctx, 4, 0, "a string-only event"), "string event"); err != nil {
		return err
	}
	n++
	if err := s.Stop(); err != nil {
		return err
	}
	m.collect(fx)
	fx.add("manifest-types.man", []byte(manifestText))
	fx.events["manifest-types.etl"] = n
	return nil
}
