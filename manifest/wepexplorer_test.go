package manifest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/tdh"
	"github.com/google/uuid"
)

// wepDoc is a WEPExplorer export written for these tests, in the shape of
// the exporter's output (four-space indentation, CDATA sections that start
// with a line break), covering what real exports contain: imported and
// declared channels (one without a message, referred to by path), win:
// and custom levels, tasks with and without a message (one with an event
// GUID), provider-wide and task-local opcodes sharing a message, keyword
// messages with spaces, a keyword in the high bits, events without
// message, with an empty template, without template element, with a
// duplicate id, with event-log qualifiers, and templates with length and
// count references, a struct array, IP out-types and a map attribute.
const wepDoc = `<Providers>
    <Provider>
        <Name>Test-WEP</Name>
        <Metadata>
            <Guid>{AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE}</Guid>
            <ResourceFilePath>%SystemRoot%\system32\test.dll</ResourceFilePath>
            <ParameterFilePath></ParameterFilePath>
            <MessageFilePath>%SystemRoot%\system32\testmsg.dll</MessageFilePath>
            <HelpLink></HelpLink>
            <PublisherMessage>Test &amp; WEP</PublisherMessage>
            <Channels>
                <Channel>
                    <Message>System</Message>
                    <Path>System</Path>
                    <Index>0</Index>
                    <Id>8</Id>
                    <Imported>true</Imported>
                </Channel>
                <Channel>
                    <Message>Operational log</Message>
                    <Path>Test-WEP/Operational</Path>
                    <Index>1</Index>
                    <Id>16</Id>
                    <Imported>false</Imported>
                </Channel>
                <Channel>
                    <Message></Message>
                    <Path>Test-WEP/Debug</Path>
                    <Index>2</Index>
                    <Id>17</Id>
                    <Imported>false</Imported>
                </Channel>
            </Channels>
            <Levels>
                <Level>
                    <Message>Error</Message>
                    <Name>win:Error</Name>
                    <Value>2</Value>
                </Level>
                <Level>
                    <Message>Information</Message>
                    <Name>win:Informational</Name>
                    <Value>4</Value>
                </Level>
                <Level>
                    <Message></Message>
                    <Name>Chatty</Name>
                    <Value>21</Value>
                </Level>
            </Levels>
            <Tasks>
                <Task>
                    <Message>Service startup</Message>
                    <Name>t:Startup</Name>
                    <Value>100</Value>
                </Task>
                <Task>
                    <Message></Message>
                    <Name>Shutdown</Name>
                    <Guid>{01234567-89AB-CDEF-0123-456789ABCDEF}</Guid>
                    <Value>101</Value>
                </Task>
            </Tasks>
            <Opcodes>
                <Opcode>
                    <Message>Start</Message>
                    <Name>win:Start</Name>
                    <Value>1</Value>
                    <Task>0</Task>
                </Opcode>
                <Opcode>
                    <Message>Begin phase</Message>
                    <Name>Phase</Name>
                    <Value>10</Value>
                    <Task>0</Task>
                </Opcode>
                <Opcode>
                    <Message>Begin phase</Message>
                    <Name>StartupPhase</Name>
                    <Value>11</Value>
                    <Task>100</Task>
                </Opcode>
                <Opcode>
                    <Message></Message>
                    <Name>Flush</Name>
                    <Value>12</Value>
                    <Task>0</Task>
                </Opcode>
            </Opcodes>
            <Keywords>
                <Keyword>
                    <Message>Service availability</Message>
                    <Name>k:Availability</Name>
                    <Value>131072</Value>
                </Keyword>
                <Keyword>
                    <Message>Service</Message>
                    <Name>k:Service</Name>
                    <Value>1</Value>
                </Keyword>
                <Keyword>
                    <Message>Service configuration</Message>
                    <Name>k:Settings</Name>
                    <Value>262144</Value>
                </Keyword>
                <Keyword>
                    <Message></Message>
                    <Name>Diag</Name>
                    <Value>2</Value>
                </Keyword>
                <Keyword>
                    <Message>Response Time</Message>
                    <Name>win:ResponseTime</Name>
                    <Value>281474976710656</Value>
                </Keyword>
            </Keywords>
        </Metadata>
        <EventMetadata>
            <Event>
                <Id>20</Id>
                <Version>0</Version>
                <Channel>System</Channel>
                <Level>Error</Level>
                <Task>Service startup</Task>
                <Opcode>Start</Opcode>
                <Keyword>Service availability Service configuration</Keyword>
                <Message><![CDATA[
The service failed (%1) at %2.
	Peer: %3]]></Message>
                <Template><![CDATA[
<template xmlns="http://schemas.microsoft.com/win/2004/08/events">
  <data name="Status" inType="win:UInt32" outType="win:NTStatus"/>
  <data name="Ip4" inType="win:UInt32" outType="win:IPv4"/>
  <data name="Ip6" inType="win:Binary" outType="win:IPv6" length="16"/>
  <data name="Size" inType="win:UInt16" outType="xs:unsignedShort"/>
  <data name="Blob" inType="win:Binary" outType="xs:hexBinary" length="Size"/>
  <data name="Name" inType="win:UnicodeString" outType="xs:string"/>
</template>
]]></Template>
            </Event>
            <Event>
                <Id>21</Id>
                <Version>0</Version>
                <Channel>Operational log</Channel>
                <Level>Information</Level>
                <Task>Service startup</Task>
                <Opcode>Begin phase</Opcode>
                <Keyword>Diag</Keyword>
                <Message><![CDATA[
%1 items]]></Message>
                <Template><![CDATA[
<template xmlns="http://schemas.microsoft.com/win/2004/08/events">
  <data name="Count" inType="win:UInt32" outType="xs:unsignedInt"/>
  <struct name="Items" count="Count">
    <data name="Freq" inType="win:UInt32" outType="xs:unsignedInt"/>
    <data name="Cycles" inType="win:UInt64" outType="xs:unsignedLong"/>
  </struct>
  <data name="Ids" inType="win:GUID" outType="xs:GUID" count="2"/>
  <data name="Ptr" inType="win:Pointer" outType="win:HexInt64"/>
</template>
]]></Template>
            </Event>
            <Event>
                <Id>22</Id>
                <Version>0</Version>
                <Channel>Test-WEP/Debug</Channel>
                <Level>Chatty</Level>
                <Task>Shutdown</Task>
                <Opcode>Begin phase</Opcode>
                <Keyword>Service</Keyword>
                <Template><![CDATA[
]]></Template>
            </Event>
            <Event>
                <Id>22</Id>
                <Version>1</Version>
                <Level>Verbose</Level>
                <Opcode>Flush</Opcode>
                <Keyword>Response Time</Keyword>
                <Message><![CDATA[
Flushed %1 <%2> & more
]]></Message>
                <Template><![CDATA[
<template xmlns="http://schemas.microsoft.com/win/2004/08/events">
  <data name="Flags" inType="win:HexInt32" outType="win:HexInt32"/>
  <data name="Mode" inType="win:UInt8" outType="xs:unsignedByte" map="ModeMap"/>
</template>
]]></Template>
            </Event>
            <Event>
                <Id>23</Id>
                <Version>0</Version>
                <Channel>Nowhere</Channel>
                <Level>Loud</Level>
                <Task>Unknown task</Task>
                <Opcode>Stop</Opcode>
                <Keyword>Bogus words</Keyword>
            </Event>
            <Event>
                <Id>20</Id>
                <Version>0</Version>
                <Template><![CDATA[
<template xmlns="http://schemas.microsoft.com/win/2004/08/events">
</template>
]]></Template>
            </Event>
            <Event>
                <Id>1073741848</Id>
                <Version>0</Version>
                <Channel>System</Channel>
                <Level>Information</Level>
                <Task>Shutdown</Task>
                <Opcode>Stop</Opcode>
                <Message><![CDATA[
Classic]]></Message>
                <Template><![CDATA[
<template xmlns="http://schemas.microsoft.com/win/2004/08/events">
  <data name="Text" inType="win:AnsiString" outType="xs:string"/>
</template>
]]></Template>
            </Event>
        </EventMetadata>
    </Provider>
    <Provider>
        <Name>Classic Source</Name>
        <Metadata>
            <Guid>{00000000-0000-0000-0000-000000000000}</Guid>
        </Metadata>
    </Provider>
    <Provider>
        <Name>Bare-Events</Name>
        <Metadata>
            <Guid>{12121212-3434-5656-7878-909090909090}</Guid>
        </Metadata>
        <EventMetadata>
            <Event>
                <Id>1</Id>
                <Version>2</Version>
                <Level>Information</Level>
                <Task>None</Task>
                <Opcode>Start</Opcode>
                <Keyword>Response Time SQM</Keyword>
                <Template><![CDATA[
<template xmlns="http://schemas.microsoft.com/win/2004/08/events">
  <data name="Value" inType="win:Int64" outType="xs:long"/>
</template>
]]></Template>
            </Event>
        </EventMetadata>
    </Provider>
</Providers>
`

// wepSmall is a small WEPExplorer fuzz seed: one provider, one event with a template.
const wepSmall = `<Providers><Provider><Name>P</Name><Metadata><Guid>{01010101-0202-0303-0404-050505050505}</Guid>
<Levels><Level><Message>Information</Message><Name>win:Informational</Name><Value>4</Value></Level></Levels>
<Keywords><Keyword><Message>A b</Message><Name>AB</Name><Value>1</Value></Keyword></Keywords></Metadata>
<EventMetadata><Event><Id>7</Id><Version>1</Version><Level>Information</Level><Keyword>A b</Keyword>
<Message><![CDATA[
x=%1]]></Message><Template><![CDATA[
<template xmlns="http://schemas.microsoft.com/win/2004/08/events">
  <data name="N" inType="win:UInt16"/>
  <struct name="S" count="N"><data name="V" inType="win:Binary" length="N"/></struct>
</template>
]]></Template></Event></EventMetadata></Provider></Providers>`

// wepFuzzSeeds are WEPExplorer inputs for FuzzParse: the documents above
// and broken variants.
var wepFuzzSeeds = []string{
	wepSmall,
	"<Providers><Provider><Metadata><Guid>{01010101-0202-0303-0404-050505050505}</Guid></Metadata>" +
		"<EventMetadata><Event><Id>1</Id><Template>&lt;template&gt;&lt;data name=\"a\" inType=\"win:UInt8\"/&gt;&lt;/template&gt;</Template></Event></EventMetadata></Provider></Providers>",
	"<Providers><Provider><Metadata><Guid>{01010101-0202-0303-0404-050505050505}</Guid></Metadata>" +
		"<EventMetadata><Event><Id>1</Id><Template><![CDATA[<template><data]]></Template></Event></EventMetadata></Provider></Providers>",
	"<Providers><Provider><Metadata><Guid>x</Guid></Metadata></Provider></Providers>",
}

func TestWEPExplorerProvider(t *testing.T) {
	m := mustParse(t, wepDoc, "wep.xml")
	if m.Format != FormatWEPExplorer || m.Format.String() != "WEPExplorer" || FormatManifest.String() != "manifest" {
		t.Errorf("format = %v", m.Format)
	}
	if len(m.Providers) != 3 || m.Strings == nil || len(m.Strings) != 0 || m.Culture != "" {
		t.Fatalf("providers %d, strings %v, culture %q", len(m.Providers), m.Strings, m.Culture)
	}
	p := mustProvider(t, m, "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee")
	if p.Name != "Test-WEP" || p.ResourceFileName != `%SystemRoot%\system32\test.dll` ||
		p.MessageFileName != `%SystemRoot%\system32\testmsg.dll` || p.ParameterFileName != "" || p.Message != "Test & WEP" {
		t.Errorf("provider = %+v", p)
	}
	wantLevels := []Level{{Name: "win:Error", Value: 2, Message: "Error"}, {Name: "win:Informational", Value: 4, Message: "Information"},
		{Name: "Chatty", Value: 21}}
	if !slices.Equal(p.Levels, wantLevels) {
		t.Errorf("levels = %+v", p.Levels)
	}
	if len(p.Tasks) != 2 || p.Tasks[0].Name != "t:Startup" || p.Tasks[0].Value != 100 || p.Tasks[0].Message != "Service startup" ||
		p.Tasks[1].Name != "Shutdown" || p.Tasks[1].Message != "" ||
		p.Tasks[1].EventGUID != uuid.MustParse("01234567-89ab-cdef-0123-456789abcdef") {
		t.Errorf("tasks = %+v", p.Tasks)
	}
	// The opcode with <Task>100</Task> is local to task 100.
	if len(p.Tasks[0].Opcodes) != 1 || p.Tasks[0].Opcodes[0] != (Opcode{Name: "StartupPhase", Value: 11, Message: "Begin phase"}) {
		t.Errorf("task-local opcodes = %+v", p.Tasks[0].Opcodes)
	}
	if len(p.Opcodes) != 3 || p.Opcodes[0].Name != "win:Start" || p.Opcodes[1].Value != 10 || p.Opcodes[2] != (Opcode{Name: "Flush", Value: 12}) {
		t.Errorf("opcodes = %+v", p.Opcodes)
	}
	if len(p.Keywords) != 5 || p.Keywords[4] != (Keyword{Name: "win:ResponseTime", Value: 1 << 48, Message: "Response Time"}) {
		t.Errorf("keywords = %+v", p.Keywords)
	}
	wantCh := []Channel{
		{Name: "System", Value: 8, Message: "System", Type: "Admin", Symbol: "WINEVENT_CHANNEL_GLOBAL_SYSTEM", Imported: true},
		{Name: "Test-WEP/Operational", Value: 16, Message: "Operational log"},
		{Name: "Test-WEP/Debug", Value: 17},
	}
	if !slices.Equal(p.Channels, wantCh) {
		t.Errorf("channels = %+v", p.Channels)
	}
	if len(p.Maps) != 0 {
		t.Errorf("maps = %v", p.Maps)
	}

	// The list-file shape: name and (null) GUID only.
	if c := m.ProviderByName("Classic Source"); c == nil || c.GUID != uuid.Nil || len(c.Events) != 0 || len(c.Levels) != 0 {
		t.Errorf("classic source = %+v", c)
	}

	wantWarn := []string{
		fmt.Sprintf("wep.xml:%d: provider \"Test-WEP\": event 22 version 1: template \"E22v1\": field \"Mode\": map \"ModeMap\" not defined",
			lineOf(t, wepDoc, `<data name="Mode"`)),
		fmt.Sprintf("wep.xml:%d: provider \"Test-WEP\": event 23 version 0: channel \"Nowhere\" not defined", lineOf(t, wepDoc, "<Channel>Nowhere")),
		fmt.Sprintf("wep.xml:%d: provider \"Test-WEP\": event 23 version 0: level \"Loud\" not defined", lineOf(t, wepDoc, "<Level>Loud")),
		fmt.Sprintf("wep.xml:%d: provider \"Test-WEP\": event 23 version 0: task \"Unknown task\" not defined", lineOf(t, wepDoc, "<Task>Unknown")),
		fmt.Sprintf("wep.xml:%d: provider \"Test-WEP\": event 23 version 0: keywords \"Bogus words\" are not a list of defined keywords",
			lineOf(t, wepDoc, "<Keyword>Bogus")),
		fmt.Sprintf("wep.xml:%d: provider \"Test-WEP\": duplicate event 20 version 0 (first kept for lookups)",
			lineOf(t, wepDoc, "<Event>\n                <Id>20</Id>\n                <Version>0</Version>\n                <Template>")),
	}
	if !slices.Equal(m.Warnings, wantWarn) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(m.Warnings, "\n"), strings.Join(wantWarn, "\n"))
	}
}

func TestWEPExplorerEvents(t *testing.T) {
	m := mustParse(t, wepDoc, "wep.xml")
	p := m.Providers[0]
	if len(p.Events) != 7 {
		t.Fatalf("%d events", len(p.Events))
	}
	e := p.Event(20, 0)
	if e != p.Events[0] {
		t.Fatal("Event(20, 0) is not the first event 20")
	}
	if e.Channel != 8 || !e.HasChannel || e.ChannelName != "System" || e.ChannelMessage != "System" ||
		e.Level != 2 || e.LevelName != "win:Error" || e.LevelMessage != "Error" ||
		e.Task != 100 || e.TaskName != "t:Startup" || e.TaskMessage != "Service startup" ||
		e.Opcode != 1 || e.OpcodeName != "win:Start" || e.OpcodeMessage != "Start" ||
		e.Keywords != 131072|262144 || !slices.Equal(e.KeywordNames, []string{"k:Availability", "k:Settings"}) ||
		e.Message != "The service failed (%1) at %2.\n\tPeer: %3" || e.TemplateID != "E20v0" || e.Template == nil {
		t.Errorf("event 20 = %+v", e)
	}
	type fld struct {
		name    string
		in      tdh.InType
		out     tdh.OutType
		length  uint16
		lenFrom int
	}
	check := func(e *Event, want []fld) {
		t.Helper()
		if e.Template == nil || len(e.Template.Fields) != len(want) {
			t.Fatalf("event %d v%d template = %+v", e.ID, e.Version, e.Template)
		}
		for i, w := range want {
			f := e.Template.Fields[i]
			if f.Name != w.name || f.InType != w.in || f.OutType != w.out || f.Length != w.length || f.LengthIndex != w.lenFrom {
				t.Errorf("event %d v%d field %d = %+v, want %+v", e.ID, e.Version, i, f, w)
			}
		}
	}
	check(e, []fld{
		{"Status", tdh.InTypeUInt32, tdh.OutTypeNTStatus, 0, -1},
		{"Ip4", tdh.InTypeUInt32, tdh.OutTypeIPv4, 0, -1},
		{"Ip6", tdh.InTypeBinary, tdh.OutTypeIPv6, 16, -1},
		{"Size", tdh.InTypeUInt16, tdh.OutTypeUnsignedShort, 0, -1},
		{"Blob", tdh.InTypeBinary, tdh.OutTypeHexBinary, 0, 3},
		{"Name", tdh.InTypeUnicodeString, tdh.OutTypeString, 0, -1},
	})

	// Event 21: "Begin phase" is both a provider-wide opcode (10) and one
	// local to task 100 (11); an event of task 100 gets the local one.
	e = p.Event(21, 0)
	if e.Channel != 16 || e.ChannelName != "Test-WEP/Operational" || e.ChannelMessage != "Operational log" ||
		e.Level != 4 || e.Opcode != 11 || e.OpcodeName != "StartupPhase" || e.Keywords != 2 ||
		!slices.Equal(e.KeywordNames, []string{"Diag"}) || e.Message != "%1 items" {
		t.Errorf("event 21 = %+v", e)
	}
	tp := e.Template
	if len(tp.Fields) != 4 || !tp.Fields[1].IsStruct() || !tp.Fields[1].HasCount || tp.Fields[1].CountIndex != 0 ||
		len(tp.Fields[1].Struct) != 2 || tp.Fields[2].Count != 2 || !tp.Fields[2].HasCount || len(tp.Properties) != 6 {
		t.Errorf("event 21 template = %+v", tp)
	}

	// Event 22 v0: a channel referred to by path, a level by name, the
	// provider-wide opcode of a shared message, an empty template.
	e = p.Event(22, 0)
	if e.Channel != 17 || e.ChannelName != "Test-WEP/Debug" || e.ChannelMessage != "" || e.Level != 21 || e.LevelName != "Chatty" ||
		e.Task != 101 || e.TaskName != "Shutdown" || e.Opcode != 10 || e.OpcodeName != "Phase" || e.Keywords != 1 ||
		e.Message != "" || e.Template != nil || e.TemplateID != "" {
		t.Errorf("event 22 v0 = %+v", e)
	}
	// Event 22 v1: a predefined level the provider does not list, an
	// opcode by name, a high keyword, entities in the message.
	e = p.Event(22, 1)
	if e.HasChannel || e.Level != 5 || e.LevelName != "win:Verbose" || e.LevelMessage != "Verbose" || e.Opcode != 12 ||
		e.OpcodeName != "Flush" || e.OpcodeMessage != "" || e.Keywords != 1<<48 || e.Message != "Flushed %1 <%2> & more\n" {
		t.Errorf("event 22 v1 = %+v", e)
	}
	check(e, []fld{{"Flags", tdh.InTypeHexInt32, tdh.OutTypeHexInt32, 0, -1}, {"Mode", tdh.InTypeUInt8, tdh.OutTypeUnsignedByte, 0, -1}})
	if f := e.Template.Fields[1]; f.MapName != "ModeMap" || f.Map != nil {
		t.Errorf("Mode map = %q %v", f.MapName, f.Map)
	}
	// Event 23: nothing resolves; the texts are kept; a predefined opcode.
	e = p.Event(23, 0)
	if e.HasChannel || e.ChannelName != "Nowhere" || e.LevelName != "Loud" || e.TaskName != "Unknown task" || e.Opcode != 2 ||
		!slices.Equal(e.KeywordNames, []string{"Bogus words"}) || e.Keywords != 0 || e.Template != nil {
		t.Errorf("event 23 = %+v", e)
	}
	// The duplicate event 20 keeps its own (empty) template.
	if d := p.Events[5]; d.ID != 20 || d.TemplateID != "E20v0.2" || d.Template == nil || len(d.Template.Fields) != 0 {
		t.Errorf("duplicate event 20 = %+v", d)
	}
	// A 32-bit event value: id in the low word, qualifiers in the high one.
	if e := p.Events[6]; e.ID != 24 || e.Qualifiers != 0x4000 || e.Task != 101 || e.Opcode != 2 || p.Event(24, 0) != e {
		t.Errorf("classic event = %+v", e)
	}

	// Predefined values when the provider lists none.
	b := m.ProviderByName("Bare-Events")
	if e := b.Event(1, 2); e == nil || e.Level != 4 || e.Task != 0 || e.TaskName != "win:None" || e.Opcode != 1 ||
		e.Keywords != 1<<48|1<<51 || !slices.Equal(e.KeywordNames, []string{"win:ResponseTime", "win:SQM"}) {
		t.Errorf("bare event = %+v", e)
	}
}

func TestWEPExplorerSchemas(t *testing.T) {
	m := mustParse(t, wepDoc, "wep.xml")
	schemas, errs := m.Schemas()
	var dup int
	for _, err := range errs {
		if !errors.Is(err, ErrDuplicateEvent) {
			t.Errorf("schema error: %v", err)
		}
		dup++
	}
	if len(schemas) != 7 || dup != 1 {
		t.Fatalf("%d schemas, %d duplicates", len(schemas), dup)
	}
	reg := tdh.NewRegistry()
	reg.Add(schemas...)
	g := uuid.MustParse("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee")
	s, ok := reg.Lookup(g, 20, 0)
	if !ok || s.ProviderName != "Test-WEP" || s.LevelName != "Error" || s.TaskName != "Service startup" || s.OpcodeName != "Start" ||
		s.ChannelName != "System" || !slices.Equal(s.KeywordNames, []string{"Service availability", "Service configuration"}) ||
		s.Message != "The service failed (%1) at %2.\n\tPeer: %3" || len(s.Properties) != 6 || s.Properties[4].LengthIndex != 3 {
		t.Errorf("schema 20 = %+v", s)
	}
	if s, ok := reg.Lookup(g, 22, 0); !ok || s.ChannelName != "Test-WEP/Debug" || s.LevelName != "Chatty" || len(s.Properties) != 0 {
		t.Errorf("schema 22 = %+v", s)
	}

	// Decode a payload of event 21: a struct array and a GUID array.
	s, _ = reg.Lookup(g, 21, 0)
	var pl []byte
	pl = binary.LittleEndian.AppendUint32(pl, 2)
	for _, it := range [][2]uint64{{1, 10}, {2, 20}} {
		pl = binary.LittleEndian.AppendUint32(pl, uint32(it[0]))
		pl = binary.LittleEndian.AppendUint64(pl, it[1])
	}
	for i := range 32 {
		pl = append(pl, byte(i))
	}
	pl = binary.LittleEndian.AppendUint64(pl, 0xFFFF800012345678)
	var dec tdh.Decoder
	d, err := dec.Decode(s, pl, 8)
	if err != nil || len(d.Extra) != 0 {
		t.Fatalf("decode: %v, extra %d", err, len(d.Extra))
	}
	top := d.Top()
	items := d.Children(&top[1])
	if len(items) != 2 {
		t.Fatalf("items = %d", len(items))
	}
	if c := d.Children(&items[1]); string(tdh.AppendText(nil, d, &c[1], nil)) != "20" {
		t.Errorf("Items[1].Cycles = %s", tdh.AppendText(nil, d, &c[1], nil))
	}
	if got := string(tdh.AppendText(nil, d, &top[3], nil)); got != "0xFFFF800012345678" {
		t.Errorf("Ptr = %s", got)
	}
}

// TestWEPExplorerEncodings: CRLF line ends and UTF-16 give the same model
// and the same warning lines.
func TestWEPExplorerEncodings(t *testing.T) {
	base := mustParse(t, wepDoc, "enc")
	crlf := strings.ReplaceAll(wepDoc, "\n", "\r\n")
	for name, in := range map[string][]byte{
		"crlf":         []byte(crlf),
		"utf-16le BOM": encodeUTF16(crlf, false, true),
		"utf-16be":     encodeUTF16(wepDoc, true, false),
	} {
		m, err := Parse(bytes.NewReader(in), "enc")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !slices.Equal(m.Warnings, base.Warnings) || len(m.Providers) != 3 || len(m.Providers[0].Events) != 7 {
			t.Errorf("%s: warnings %v", name, m.Warnings)
			continue
		}
		for i, e := range m.Providers[0].Events {
			b := base.Providers[0].Events[i]
			if e.Message != b.Message || e.Keywords != b.Keywords || e.Opcode != b.Opcode || (e.Template == nil) != (b.Template == nil) {
				t.Errorf("%s: event %d differs: %+v", name, i, e)
			}
		}
	}
}

// TestWEPExplorerErrors: fatal problems are *Errors naming the file and
// the line — inside the embedded template when the problem is there.
func TestWEPExplorerErrors(t *testing.T) {
	const head = "<Providers>\n  <Provider>\n    <Name>P</Name>\n    <Metadata>\n      <Guid>{01010101-0202-0303-0404-050505050505}</Guid>\n"
	event := func(inner string) string {
		return head + "    </Metadata>\n    <EventMetadata>\n      <Event>\n" + inner + "\n      </Event>\n    </EventMetadata>\n  </Provider>\n</Providers>\n"
	}
	tmpl := func(body string) string {
		return event("        <Id>5</Id>\n        <Version>1</Version>\n        <Template><![CDATA[\n" +
			"<template xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">\n" + body + "\n</template>\n]]></Template>")
	}
	cases := []struct {
		name, doc, marker, msg string
	}{
		{"unknown in-type", tmpl("  <data name=\"A\" inType=\"win:UInt32\"/>\n  <data name=\"B\" inType=\"win:Bogus\"/>"),
			`name="B"`, `provider "P": event 5 version 1: template "E5v1": field "B": unknown in-type "win:Bogus"`},
		{"unknown out-type", tmpl("  <data name=\"A\" inType=\"win:UInt32\" outType=\"xs:nothing\"/>"),
			`name="A"`, `unknown out-type "xs:nothing"`},
		{"bad length reference", tmpl("  <data name=\"A\" inType=\"win:UInt32\"/>\n  <data name=\"B\" inType=\"win:Binary\" length=\"Nope\"/>"),
			`name="B"`, `field "B": length="Nope" names no earlier field`},
		{"malformed template", tmpl("  <data name=\"A\" inType=\"win:UInt32\">\n  <data name=\"B\" inType=\"win:UInt32\"/>"),
			"</template>", `provider "P": event 5 version 1: embedded template: malformed XML`},
		{"not a template", event("        <Id>5</Id>\n        <Template><![CDATA[\n\n<events/>]]></Template>"),
			"<events/>", "embedded template: root element is <events>, not <template>"},
		{"missing id", event("        <Version>1</Version>"), "<Event>", `provider "P": event: missing <Id>`},
		{"bad version", event("        <Id>5</Id>\n        <Version>256</Version>"), "<Version>",
			`provider "P": event 5: <Version> "256" is not a 8-bit unsigned number`},
		{"bad level value", head + "      <Levels><Level><Name>L</Name><Value>x</Value></Level></Levels>\n    </Metadata>\n  </Provider>\n</Providers>",
			"<Levels>", `provider "P": level "L": <Value> "x" is not a 8-bit unsigned number`},
		{"missing opcode value", head + "      <Opcodes>\n<Opcode><Name>O</Name></Opcode></Opcodes>\n    </Metadata>\n  </Provider>\n</Providers>",
			"<Opcode>", `provider "P": opcode "O": missing <Value>`},
		{"bad guid", "<Providers>\n<Provider>\n<Name>P</Name>\n<Metadata>\n<Guid>{nope}</Guid></Metadata></Provider></Providers>",
			"<Guid>", `provider "P": bad guid "{nope}"`},
		{"missing guid", "<Providers>\n<Provider>\n<Name>P</Name>\n<Metadata>\n</Metadata></Provider></Providers>",
			"<Metadata>", `provider "P": missing <Guid>`},
		{"no metadata", "<Providers>\n<Provider>\n<Name>P</Name>\n</Provider></Providers>", "<Provider>", `provider "P": missing <Guid>`},
	}
	for _, c := range cases {
		_, err := Parse(strings.NewReader(c.doc), "e.xml")
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want *Error", c.name, err)
			continue
		}
		want := lineOf(t, c.doc, c.marker)
		if pe.File != "e.xml" || pe.Line != want || !strings.Contains(err.Error(), c.msg) ||
			!strings.HasPrefix(err.Error(), fmt.Sprintf("e.xml:%d: ", want)) {
			t.Errorf("%s: err = %v (line %d), want line %d and %q", c.name, err, pe.Line, want, c.msg)
		}
	}

	// A task-local opcode of an unknown task is kept provider-wide.
	m := mustParse(t, head+"      <Opcodes><Opcode><Name>O</Name><Value>3</Value><Task>9</Task></Opcode></Opcodes>\n    </Metadata>\n  </Provider>\n</Providers>", "w.xml")
	if p := m.Providers[0]; len(p.Opcodes) != 1 || len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "local to task 9, which is not defined") {
		t.Errorf("opcodes %+v, warnings %v", p.Opcodes, m.Warnings)
	}
}

func TestWEPSplitKeywords(t *testing.T) {
	ix := &wepIndex{}
	for i, s := range []string{"a b", "a", "b c", "c", "a b c d"} {
		ix.keywords = append(ix.keywords, wepKeyword{s, Keyword{Name: s, Value: 1 << uint(i)}})
	}
	for in, want := range map[string][]string{
		"a b":       {"a b"},
		"b  c\ta b": {"b c", "a b"}, // white space is normalized
		"a b c d":   {"a b c d"},
		"c a":       {"c", "a"},
		"":          nil,
		"d":         {"?"},
		"a bc":      {"?"},
	} {
		got, ok := ix.splitKeywords(in)
		var names []string
		for _, k := range got {
			names = append(names, k.Name)
		}
		if !ok {
			names = []string{"?"}
		}
		if !slices.Equal(names, want) {
			t.Errorf("%q: %v, want %v", in, names, want)
		}
	}
}

// The WEPExplorer export of Microsoft-Windows-PktMon in the schema corpus
// (nasbench/EVTX-ETW-Resources, Windows 11 22H2).
const pktmonWEP = "dumped/nasbench-EVTX-ETW-Resources-W11-22H2/Microsoft-Windows-PktMon.xml"

var pktmonGUID = uuid.MustParse("4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac")

func TestCorpusWEPExplorerPktMon(t *testing.T) {
	m := parseCorpusFile(t, pktmonWEP)
	if m.Format != FormatWEPExplorer || len(m.Providers) != 1 || len(m.Warnings) != 0 {
		t.Fatalf("format %v, %d providers, warnings %v", m.Format, len(m.Providers), m.Warnings)
	}
	p := m.Providers[0]
	if p.Name != "Microsoft-Windows-PktMon" || p.GUID != pktmonGUID || p.ResourceFileName != `%WinDir%\system32\drivers\PktMon.sys` ||
		len(p.Levels) != 2 || len(p.Keywords) != 5 || len(p.Tasks) != 0 || len(p.Channels) != 0 {
		t.Errorf("provider = %+v", p)
	}
	var ids []uint16
	for _, e := range p.Events {
		ids = append(ids, e.ID)
		if e.Version != 0 || e.Template == nil || e.Message == "" || e.Level != 4 && e.ID != 10 {
			t.Errorf("event %d = %+v", e.ID, e)
		}
	}
	wantIDs := []uint16{10, 20, 30, 40, 50, 60, 65, 66, 70, 73, 75, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190,
		200, 210, 220, 230, 240, 250, 260}
	if !slices.Equal(ids, wantIDs) {
		t.Errorf("event ids = %v", ids)
	}
	for _, tp := range p.Templates {
		checkTemplate(t, pktmonWEP, p, tp)
	}

	field := func(id uint16, name string) *Field {
		t.Helper()
		e := p.Event(id, 0)
		for _, f := range e.Template.Properties {
			if f.Name == name {
				return f
			}
		}
		t.Fatalf("event %d has no field %s", id, name)
		return nil
	}
	e10 := p.Event(10, 0)
	if e10.Level != 2 || e10.LevelName != "win:Error" || e10.LevelMessage != "Error" || e10.Keywords != 1 ||
		!slices.Equal(e10.KeywordNames, []string{"Config"}) || e10.Message != "PktMon driver failed to load. Error: %1." {
		t.Errorf("event 10 = %+v", e10)
	}
	if f := field(10, "Status"); f.InType != tdh.InTypeUInt32 || f.OutType != tdh.OutTypeNTStatus {
		t.Errorf("10.Status = %+v", f)
	}
	if f := field(65, "IpAddress"); f.InType != tdh.InTypeUInt32 || f.OutType != tdh.OutTypeIPv4 {
		t.Errorf("65.IpAddress = %+v", f)
	}
	if f := field(66, "IpAddress"); f.InType != tdh.InTypeBinary || f.OutType != tdh.OutTypeIPv6 || f.Length != 16 {
		t.Errorf("66.IpAddress = %+v", f)
	}
	if f := field(70, "Value"); f.InType != tdh.InTypeBinary || f.OutType != tdh.OutTypeHexBinary || f.LengthField != "Size" || f.LengthIndex != 2 {
		t.Errorf("70.Value = %+v", f)
	}
	// Event 130: MAC addresses (hexBinary, length 6) and IPv6 addresses.
	e130 := p.Event(130, 0).Template
	if len(e130.Fields) != 20 {
		t.Errorf("event 130: %d fields", len(e130.Fields))
	}
	if f := field(130, "DestinationMAC"); f.InType != tdh.InTypeBinary || f.OutType != tdh.OutTypeHexBinary || f.Length != 6 {
		t.Errorf("130.DestinationMAC = %+v", f)
	}
	if f := field(130, "SourceIP"); f.InType != tdh.InTypeBinary || f.OutType != tdh.OutTypeIPv6 || f.Length != 16 || f.Index != 5 {
		t.Errorf("130.SourceIP = %+v", f)
	}
	if f := field(160, "Payload"); f.InType != tdh.InTypeBinary || f.OutType != tdh.OutTypeHexBinary ||
		f.LengthField != "LoggedPayloadSize" || f.LengthIndex != 11 {
		t.Errorf("160.Payload = %+v", f)
	}
	if f := field(160, "DropLocation"); f.InType != tdh.InTypeUInt32 || f.OutType != tdh.OutTypeHexInt32 {
		t.Errorf("160.DropLocation = %+v", f)
	}
	if f := field(20, "Name"); f.InType != tdh.InTypeUnicodeString || f.OutType != tdh.OutTypeString {
		t.Errorf("20.Name = %+v", f)
	}

	schemas, errs := m.Schemas()
	if len(schemas) != 30 || len(errs) != 0 {
		t.Fatalf("%d schemas, errors %v", len(schemas), errs)
	}
	for _, s := range schemas {
		checkSchema(t, pktmonWEP, s)
		if s.ID == 160 && (s.LevelName != "Information" || !slices.Equal(s.KeywordNames, []string{"Payload"}) ||
			s.Properties[12].LengthIndex != 11 || !strings.HasPrefix(s.Message, "PktGroupId %1, PktNumber %2")) {
			t.Errorf("schema 160 = %+v", s)
		}
	}
}

// pktmonCapture is an ETL file with Microsoft-Windows-PktMon events and,
// for the first one, its pktmon etl2txt output.
type pktmonCapture struct {
	etl, txt string
}

var pktmonCaptures = []pktmonCapture{
	{"nathaniel-security+microsoft-pktmon-VPN-capture-traffic/history/508f5bc135c8effceef0879693c6de45f2a92012/PktMon.etl",
		"nathaniel-security+microsoft-pktmon-VPN-capture-traffic/history/508f5bc135c8effceef0879693c6de45f2a92012/PktMon.txt"},
	{"Kesiya24+final-project/PktMon.etl", ""},
	{"NeoChenjf+Finguard/PktMon.etl", ""},
}

// pktmonMapped tells the PktMon fields that the provider's manifest maps
// to text (Rx/Tx, "HTTP Protocol", "IfIndex", the NdisMedium values of
// events 60 and 75, …): the WEPExplorer export has no maps, so their text
// is not compared.
func pktmonMapped(id uint16, field string) bool {
	switch field {
	case "Type", "PacketType", "DirTag", "DirTagIn", "DirTagOut":
		return true
	}
	return id == 60 && field == "Value" || id == 75 && field == "EtherType"
}

// TestCorpusWEPExplorerPktMonDecode decodes every Microsoft-Windows-PktMon
// event of three captures with the schemas compiled from the WEPExplorer
// export, and compares the first capture with pktmon's own text output.
func TestCorpusWEPExplorerPktMonDecode(t *testing.T) {
	corpus := os.Getenv("ETL_CORPUS")
	m := parseCorpusFile(t, pktmonWEP) // skips without ETL_CORPUS
	schemas, errs := m.Schemas()
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	reg := tdh.NewRegistry()
	reg.Add(schemas...)
	msgs := map[uint16]string{}
	for _, e := range m.Providers[0].Events {
		msgs[e.ID] = e.Message
	}

	for _, c := range pktmonCaptures {
		path := filepath.Join(corpus, filepath.FromSlash(c.etl))
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s: %v", c.etl, err)
			continue
		}
		f, err := etl.Open(path)
		if err != nil {
			t.Errorf("%s: %v", c.etl, err)
			continue
		}
		var want []string // etl2txt message of each PktMon event, in order
		if c.txt != "" {
			want = readPktmonText(t, filepath.Join(corpus, filepath.FromSlash(c.txt)))
		}
		// Values of the first event of some ids, read off etl2txt's output
		// (maps aside: Type 10 is "HTTP Protocol", DirTag 3 "Rx").
		var spot map[uint16]map[string]string
		if want != nil {
			spot = map[uint16]map[string]string{
				20: {"Id": "131", "Type": "10", "Name": "http.sys", "Description": "HTTP"},
				30: {"ComponentId": "131", "Value": "21"},
				66: {"ComponentId": "131", "IpAddress": "fe80::78ba:2ddc:6874:ea90"},
				90: {"ComponentId": "131", "EdgeName": "Upper", "EdgeId": "2", "PacketsIn": "0"},
				160: {"PktGroupId": "562949953421313", "PktNumber": "1", "AppearanceCount": "1", "DirTag": "3", "ComponentId": "11",
					"EdgeId": "1", "FilterId": "0", "OriginalPayloadSize": "197", "LoggedPayloadSize": "128"},
			}
		}
		r := etl.NewReader([]*etl.File{f}, nil)
		var dec tdh.Decoder
		counts := map[uint16]int{}
		var total, decoded, extra, compared, mismatched int
		for r.Next() {
			ev := r.Event()
			if ev.ProviderID != pktmonGUID {
				continue
			}
			total++
			counts[ev.Descriptor.ID]++
			s, ok := reg.Lookup(ev.ProviderID, ev.Descriptor.ID, ev.Descriptor.Version)
			if !ok {
				t.Errorf("%s: event %d v%d: no schema", c.etl, ev.Descriptor.ID, ev.Descriptor.Version)
				continue
			}
			d, err := dec.Decode(s, ev.UserData, ev.PointerSize())
			if err != nil {
				t.Errorf("%s: event %d v%d: %v", c.etl, ev.Descriptor.ID, ev.Descriptor.Version, err)
				continue
			}
			decoded++
			if len(d.Extra) != 0 {
				extra++
				t.Logf("%s: event %d: %d extra bytes", c.etl, ev.Descriptor.ID, len(d.Extra))
			}
			if w := spot[ev.Descriptor.ID]; w != nil {
				delete(spot, ev.Descriptor.ID)
				for _, v := range d.Top() {
					if x, ok := w[v.Prop.Name]; ok {
						if got := string(tdh.AppendText(nil, d, &v, nil)); got != x {
							t.Errorf("%s: first event %d: %s = %q, want %q", c.etl, ev.Descriptor.ID, v.Prop.Name, got, x)
						}
						delete(w, v.Prop.Name)
					}
					if v.Prop.Name == "Payload" && len(v.Data) != 128 {
						t.Errorf("%s: first event %d: %d payload bytes", c.etl, ev.Descriptor.ID, len(v.Data))
					}
				}
				if len(w) != 0 {
					t.Errorf("%s: first event %d: no fields %v", c.etl, ev.Descriptor.ID, w)
				}
			}
			if want == nil || total > len(want) {
				continue
			}
			compared++
			if !matchPktmonMessage(msgs[ev.Descriptor.ID], d, want[total-1]) {
				mismatched++
				if mismatched <= 10 {
					t.Errorf("%s: PktMon event #%d (id %d) does not match etl2txt:\n  %s\n  decoded: %s", c.etl, total,
						ev.Descriptor.ID, want[total-1], renderTop(d))
				}
			}
		}
		for _, err := range r.Errors() {
			t.Errorf("%s: %v", c.etl, err)
		}
		f.Close()
		var idl []string
		for id, n := range counts {
			idl = append(idl, fmt.Sprintf("%d:%d", id, n))
		}
		sort.Strings(idl)
		t.Logf("%s: %d PktMon events, %d decoded, %d with extra bytes; per id: %s", c.etl, total, decoded, extra, strings.Join(idl, " "))
		if total == 0 || decoded != total || extra != 0 {
			t.Errorf("%s: %d events, %d decoded, %d with extra bytes", c.etl, total, decoded, extra)
		}
		if len(spot) != 0 {
			t.Errorf("%s: no events with ids %v", c.etl, spot)
		}
		if want != nil {
			t.Logf("%s: compared %d events with etl2txt, %d mismatched", c.etl, compared, mismatched)
			if len(want) != total || compared != total {
				t.Errorf("%s: etl2txt has %d PktMon events, the ETL %d", c.etl, len(want), total)
			}
		}
	}
}

// readPktmonText returns the message of every Microsoft-Windows-PktMon
// event in a pktmon etl2txt output file, in file order.
func readPktmonText(t *testing.T, path string) []string {
	t.Helper()
	out, err := etltest.PktmonMessages(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no PktMon events", path)
	}
	return out
}

// matchPktmonMessage reports whether line, etl2txt's rendering of a
// PktMon event, is the event's message with the decoded values inserted.
// Inserts of mapped fields (pktmonMapped) match any text.
func matchPktmonMessage(msg string, d *tdh.Decoded, line string) bool {
	top := d.Top()
	pos := 0
	for i := 0; i < len(msg); {
		if msg[i] != '%' || i+1 == len(msg) || msg[i+1] < '1' || msg[i+1] > '9' {
			if pos >= len(line) || line[pos] != msg[i] {
				return false
			}
			i, pos = i+1, pos+1
			continue
		}
		j := i + 1
		n := 0
		for j < len(msg) && msg[j] >= '0' && msg[j] <= '9' {
			n = n*10 + int(msg[j]-'0')
			j++
		}
		i = j
		if n > len(top) {
			return false
		}
		v := &top[n-1]
		if pktmonMapped(d.Schema.ID, v.Prop.Name) {
			// Skip to the next literal text of the message.
			k := i
			for k < len(msg) && msg[k] != '%' {
				k++
			}
			lit := msg[i:k]
			if lit == "" {
				return true // a mapped value ends the line
			}
			at := strings.Index(line[pos:], lit)
			if at < 0 {
				return false
			}
			pos += at
			continue
		}
		txt := string(tdh.AppendText(nil, d, v, nil))
		if !strings.HasPrefix(line[pos:], txt) {
			return false
		}
		pos += len(txt)
	}
	return pos == len(line)
}

// renderTop renders the top-level values of d as name=text pairs.
func renderTop(d *tdh.Decoded) string {
	var sb strings.Builder
	for i := range d.Top() {
		v := &d.Top()[i]
		fmt.Fprintf(&sb, "%s=%s ", v.Prop.Name, tdh.AppendText(nil, d, v, nil))
	}
	return sb.String()
}
