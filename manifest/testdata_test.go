package manifest

// Inline manifests shared by the unit tests, the fuzz seeds and the
// benchmarks. They are written for these tests; nothing is copied from the
// schema corpus.

// fullManifest exercises every element and attribute form the parser
// resolves. Child lists are deliberately out of schema order, values mix
// decimal and hex, and there is stray text.
const fullManifest = `<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events"
    xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <instrumentation>
    <events>
      <provider name="Test-Provider" guid="{11111111-2222-3333-4444-555555555555}" symbol="TEST_PROVIDER"
                resourceFileName="res.dll" messageFileName="msg.dll" parameterFileName="param.dll"
                message="$(string.provider)">
        stray text is tolerated
        <events>
          <event value="1" version="0" level="win:Informational" task="Connect" opcode="win:Start"
                 keywords="Net  win:ResponseTime" channel="Op" template="T1" symbol="E1" message="$(string.e1)"/>
          <event value="0x2" version="0x1" level="Custom" task="Connect" opcode="Retry" template="T2"
                 channel="Microsoft-Test/Debug"/>
          <event value="3" task="Disconnect" opcode="Retry" keywords="Disk"/>
          <event value="4" opcode="win:Receive" level="win:LogAlways" keywords="Disk Net" channel="System"
                 notLogged="true" template="T3"/>
          <event value="5" task="win:None" opcode="win:Info" channel="Application"/>
          <event value="6" opcode="win:DC_Stop" level="win:Verbose" keywords="win:AuditFailure win:EventlogClassic"/>
          <event value="7" version="255" level="win:Critical" channel="Microsoft-Test/Analytic" message="literal text"/>
          <event value="8" version="1" level="win:Error" opcode="win:Reply" task="Disconnect"/>
          <event value="9" version="0" level="win:Warning" opcode="win:Extension"/>
          <event value="10" version="3" opcode="win:Resume"/>
          <event value="11" opcode="win:Suspend" keywords="win:SQM win:WDIDiag win:CorrelationHint win:AuditSuccess win:WDIContext"/>
          <event value="12" opcode="win:Send" channel="TraceClassic"/>
          <event value="13" opcode="win:DC_Start" channel="Security"/>
          <event value="14" message="$(string.missing)"/>
          <event value="15" opcode="win:Stop" keywords="win:AnyKeyword" channel="TraceLogging"/>
        </events>
        <templates>
          <template tid="T1" name="First">
            <data name="Size" inType="win:UInt32" outType="win:HexInt32"/>
            <data name="Name" inType="win:UnicodeString" length="Size"/>
            <data name="Kind" inType="win:UInt8" map="KindMap"/>
            <data name="Flags" inType="win:UInt32" map="FlagMap"/>
            <data name="Blob" inType="win:Binary" length="0x10"/>
            <data name="N" inType="win:UInt16"/>
            <data name="Ids" inType="win:GUID" count="N"/>
            <data name="Fixed" inType="win:Int32" count="3"/>
            <struct name="Items" count="N">
              <data name="Len" inType="win:UInt16"/>
              <data name="Data" inType="win:Binary" length="Len"/>
              <data name="Back" inType="win:Binary" length="Size"/>
            </struct>
            <data name="Tail" inType="win:Pointer"/>
            <UserData>
              <Root xmlns="urn:test"><Size>%1</Size></Root>
            </UserData>
          </template>
          <template tid="T2">
            <data name="Text" inType="win:AnsiString" outType="win:Utf8"/>
            <data name="When" inType="win:FILETIME" outType="win:DateTimeUtc"/>
            <data name="Who" inType="win:SID"/>
            <data name="Ok" inType="win:Boolean"/>
            <data name="Port" inType="win:UInt16" outType="win:Port"/>
            <data name="Addr" inType="win:Binary" outType="win:IPv6" length="16"/>
            <data name="Cu" inType="win:CountedUnicodeString"/>
            <data name="Ca" inType="win:CountedAnsiString"/>
            <data name="Cb" inType="win:CountedBinary"/>
            <data name="F" inType="win:Float"/>
            <data name="D" inType="win:Double"/>
            <data name="St" inType="win:SYSTEMTIME"/>
            <data name="H64" inType="win:HexInt64"/>
            <data name="I8" inType="win:Int8" outType="xs:string"/>
            <data name="I16" inType="win:Int16"/>
            <data name="I64" inType="win:Int64"/>
            <data name="U64" inType="win:UInt64" outType="win:ETWTIME"/>
            <data name="Hr" inType="win:Int32" outType="win:HResult"/>
            <data name="Nt" inType="win:HexInt32" outType="win:NTSTATUS"/>
          </template>
          <template tid="T3"/>
        </templates>
        <maps>
          <valueMap name="KindMap" symbol="KIND_MAP">
            <map value="2" message="$(string.kind.two)"/>
            <map value="0x1" message="$(string.kind.one)"/>
            <map value="4294967295" message="$(string.kind.max)"/>
          </valueMap>
          <bitMap name="FlagMap">
            <map value="0x4" message="$(string.flag.four)"/>
            <map value="0x1" message="$(string.flag.one)"/>
          </bitMap>
          <patternMap name="Ignored" format="x"><map name="a" value="b"/></patternMap>
        </maps>
        <keywords>
          <keyword name="Net" mask="0x1" symbol="KW_NET"/>
          <keyword name="Disk" mask="2" message="$(string.kw.disk)"/>
        </keywords>
        <opcodes>
          <opcode name="Retry" value="11" message="$(string.op.retry.global)"/>
        </opcodes>
        <tasks>
          <task name="Connect" value="0x100" eventGUID="{aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee}" message="$(string.task.connect)">
            <opcodes>
              <opcode name="Retry" value="10" symbol="OP_RETRY_LOCAL" message="$(string.op.retry.local)"/>
            </opcodes>
          </task>
          <task name="Disconnect" value="2"/>
        </tasks>
        <levels>
          <level name="Custom" value="16" symbol="LVL_CUSTOM" message="$(string.level.custom)"/>
        </levels>
        <channels>
          <channel name="Microsoft-Test/Operational" chid="Op" type="Operational" value="0x11" message="$(string.ch.op)"/>
          <channel name="Microsoft-Test/Debug" type="Debug"/>
          <channel name="Microsoft-Test/Analytic" type="Analytic" symbol="CH_ANALYTIC"/>
          <importChannel name="System" chid="System"/>
        </channels>
      </provider>
      <provider name="Second" guid="22222222-2222-2222-2222-222222222222">
        <events><event value="1" version="0"/></events>
      </provider>
    </events>
  </instrumentation>
  <localization>
    <resources culture="de-DE">
      <stringTable>
        <string id="provider" value="Testanbieter"/>
        <string id="e1" value="Verbunden mit %2"/>
      </stringTable>
    </resources>
    <resources culture="en-US">
      <stringTable>
        <string id="provider" value="Test provider"/>
        <string id="e1" value="Connected to %2 (size %1)"/>
        <string id="kind.one" value="One"/>
        <string id="kind.two" value="Two"/>
        <string id="kind.max" value="Max"/>
        <string id="flag.one" value="Flag one"/>
        <string id="flag.four" value="Flag four"/>
        <string id="kw.disk" value="Disk I/O"/>
        <string id="op.retry.global" value="Retry (global)"/>
        <string id="op.retry.local" value="Retry (connect)"/>
        <string id="task.connect" value="Connection"/>
        <string id="level.custom" value="Custom level"/>
        <string id="ch.op" value="Operational channel"/>
      </stringTable>
    </resources>
  </localization>
</instrumentationManifest>
`

// prefixedManifest binds the manifest namespaces to unusual prefixes.
const prefixedManifest = `<m:instrumentationManifest
    xmlns:m="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:w="http://manifests.microsoft.com/win/2004/08/windows/events"
    xmlns:x="http://www.w3.org/2001/XMLSchema">
  <m:instrumentation>
    <m:events>
      <m:provider name="Prefixed" guid="{33333333-3333-3333-3333-333333333333}">
        <m:templates>
          <m:template tid="T">
            <m:data name="A" inType="w:UInt64" outType="x:hexBinary"/>
            <m:data name="B" inType="w:HexInt32" outType="w:Win32Error"/>
          </m:template>
        </m:templates>
        <m:events>
          <m:event value="1" level="w:Warning" opcode="w:Stop" keywords="w:ResponseTime" template="T"/>
        </m:events>
      </m:provider>
    </m:events>
  </m:instrumentation>
</m:instrumentationManifest>`

// plainManifest has no namespaces at all.
const plainManifest = `<instrumentationManifest><instrumentation><events>
<provider name="Plain" guid="{44444444-4444-4444-4444-444444444444}">
<templates><template tid="T"><data name="A" inType="win:Int16"/></template></templates>
<events><event value="7" version="2" level="win:Error" template="T"/></events>
</provider></events></instrumentation></instrumentationManifest>`

// dumpedManifest uses the spellings of TDH-regenerated manifests
// (decoding.md §1.10) and their synthetic task names.
const dumpedManifest = `<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
 <instrumentation xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <events>
   <provider name="Dumped" guid="{55555555-5555-5555-5555-555555555555}">
    <tasks>
     <task name="None" value="0">
>
      <opcodes><opcode name="Shuttingdown" value="25"/></opcodes>
     </task>
     <task name="Seven" value="7"/>
    </tasks>
    <events>
     <event value="1" version="0" task="task_0" opcode="Shuttingdown" level="win:Always" template="0xd543c8c5L"/>
     <event value="2" version="0" task="task_7" level="win:Informational"/>
     <event value="0x00072775" keywords="win:EventlogClassic"/>
    </events>
    <templates>
     <template tid="0xd543c8c5L">
      <data name="daddr" inType="win:IPAddrV4"/>
      <data name="saddr" inType="win:IPAddrV6"/>
      <data name="i8" inType="win:SInt8"/>
      <data name="i16" inType="win:SInt16"/>
      <data name="i32" inType="win:SInt32"/>
      <data name="i64" inType="win:SInt64"/>
      <data name="ws" inType="win:WString"/>
      <data name="s" inType="win:String"/>
      <data name="Name" inType="win:WChar" max="256"/>
      <data name="GuidCount" inType="win:UInt32"/>
      <data name="Guids" inType="win:GUID" max="GuidCount"/>
      <data name="size" inType="win:SizeT"/>
      <data name="cu" inType="win:CountedUtf16String"/>
      <data name="ca" inType="win:CountedMbcsString"/>
      <data name="st" inType="win:Struct"/>
      <data name="raw" inType="win:33"/>
      <data name="rawKnown" inType="win:8"/>
      <data name="o1" inType="win:UInt32" outType="xs:HexInt32"/>
      <data name="o2" inType="win:UInt32" outType="win:NTStatus"/>
      <data name="Hash Size" inType="win:UInt32"/>
      <data name="Hash" inType="win:Binary" length="Hash Size"/>
      <data name="HashSize2" inType="win:UInt32"/>
      <data name="Hash2" inType="win:Binary" length="Hash Size 2"/>
     </template>
    </templates>
   </provider>
  </events>
 </instrumentation>
</instrumentationManifest>`

// assemblyManifest wraps <instrumentation> the way Windows component
// manifests do, with the localization outside it and another namespace.
const assemblyManifest = `<?xml version='1.0' encoding='utf-8' standalone='yes'?>
<assembly xmlns="urn:schemas-microsoft-com:asm.v3" manifestVersion="1.0">
  <assemblyIdentity name="Test" version="$(build.version)"/>
  <instrumentation xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
    <events xmlns="http://schemas.microsoft.com/win/2004/08/events">
      <provider name="Asm" guid="{66666666-6666-6666-6666-666666666666}" message="$(string.asm)">
        <events><event value="1" level="win:Informational" message="$(string.asm.e1)"/></events>
      </provider>
    </events>
    <counters xmlns="http://schemas.microsoft.com/win/2005/12/counters">
      <provider providerGuid="{77777777-7777-7777-7777-777777777777}" providerName="NotAnEventProvider"/>
    </counters>
  </instrumentation>
  <localization>
    <resources culture="en-US">
      <stringTable>
        <string id="asm" value="Assembly provider"/>
        <string id="asm.e1" value="Event one"/>
      </stringTable>
    </resources>
  </localization>
</assembly>`

// fuzzSeeds are the inline manifests, plus some broken ones.
var fuzzSeeds = []string{
	fullManifest, prefixedManifest, plainManifest, dumpedManifest, assemblyManifest,
	"", "<", "<instrumentationManifest/>", "<Providers/>",
	"<instrumentationManifest><instrumentation><events><provider guid=\"{x}\"/></events></instrumentation></instrumentationManifest>",
	"\xff\xfe<\x00a\x00/\x00>\x00",
	`<?xml version="1.0" encoding="ISO-8859-1"?><instrumentationManifest/>`,
}
