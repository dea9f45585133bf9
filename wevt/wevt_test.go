package wevt

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/pe"
	"github.com/etwkit/etw/pe/petest"
	"github.com/etwkit/etw/tdh"
	"github.com/etwkit/etw/wevt/wevttest"
)

// testManifest exercises what a binary manifest holds: declared and
// predefined levels, tasks with task-local opcodes and an eventGUID,
// opcodes, keywords, declared, imported and implicitly used channels,
// value and bit maps, templates with structs, fixed and variable lengths
// and counts, and messages with inserts. It is written for these tests.
const testManifest = `<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events"
    xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <instrumentation>
    <events>
      <provider name="Etwkit-Test-Binary" guid="{0D2C5E3A-1111-4A4A-9B9B-0123456789AB}" symbol="ETWKIT_TEST"
                resourceFileName="t.dll" messageFileName="t.dll" message="$(string.provider)">
        <channels>
          <channel name="Etwkit-Test-Binary/Operational" chid="Op" type="Operational" message="$(string.op)"/>
          <importChannel name="System" chid="System"/>
          <channel name="Etwkit-Test-Binary/Debug" chid="Dbg" type="Debug" value="20"/>
        </channels>
        <levels>
          <level name="Chatty" value="17" message="$(string.chatty)"/>
        </levels>
        <tasks>
          <task name="Connect" value="1" eventGUID="{11111111-2222-3333-4444-555555555555}" message="$(string.connect)">
            <opcodes>
              <opcode name="Retry" value="20" message="$(string.retry)"/>
            </opcodes>
          </task>
          <task name="Disconnect" value="2"/>
        </tasks>
        <opcodes>
          <opcode name="Probe" value="30" message="$(string.probe)"/>
        </opcodes>
        <keywords>
          <keyword name="Net" mask="0x1" message="$(string.net)"/>
          <keyword name="Disk" mask="0x8000"/>
        </keywords>
        <maps>
          <valueMap name="KindMap">
            <map value="0" message="$(string.zero)"/>
            <map value="7" message="$(string.seven)"/>
            <map value="2" message="$(string.two)"/>
          </valueMap>
          <bitMap name="FlagMap">
            <map value="0x1" message="$(string.bit0)"/>
            <map value="0x80000000" message="$(string.bit31)"/>
          </bitMap>
        </maps>
        <templates>
          <template tid="Conn">
            <data name="Size" inType="win:UInt32" outType="win:HexInt32"/>
            <data name="Name" inType="win:UnicodeString" length="Size"/>
            <data name="Kind" inType="win:UInt8" map="KindMap"/>
            <data name="Flags" inType="win:UInt32" map="FlagMap"/>
            <data name="Blob" inType="win:Binary" length="16"/>
            <data name="N" inType="win:UInt16"/>
            <data name="Ids" inType="win:GUID" count="N"/>
            <data name="Fixed" inType="win:Int32" count="3"/>
            <struct name="Items" count="N">
              <data name="Len" inType="win:UInt16"/>
              <data name="Data" inType="win:Binary" length="Len"/>
              <data name="Port" inType="win:UInt16" outType="win:Port"/>
            </struct>
            <data name="Tail" inType="win:Pointer"/>
          </template>
          <template tid="Text">
            <data name="Text" inType="win:AnsiString" outType="win:Utf8"/>
            <data name="When" inType="win:FILETIME"/>
            <data name="Who" inType="win:SID"/>
            <data name="Ok" inType="win:Boolean"/>
            <data name="D" inType="win:Double"/>
          </template>
        </templates>
        <events>
          <event value="1" version="0" level="win:Informational" task="Connect" opcode="win:Start"
                 keywords="Net win:ResponseTime" channel="Op" template="Conn" symbol="ConnStart" message="$(string.e1)"/>
          <event value="1" version="1" level="Chatty" task="Connect" opcode="Retry" template="Conn" channel="System"/>
          <event value="2" level="win:Error" task="Disconnect" opcode="Probe" keywords="Disk" template="Text"
                 channel="Dbg" message="$(string.e2)"/>
          <event value="3" opcode="win:Stop" channel="Application"/>
          <event value="4" level="win:Verbose" keywords="Net Disk"/>
        </events>
      </provider>
    </events>
  </instrumentation>
  <localization>
    <resources culture="en-US">
      <stringTable>
        <string id="provider" value="Etwkit test provider"/>
        <string id="op" value="Operational channel"/>
        <string id="chatty" value="Chatty level"/>
        <string id="connect" value="Connecting"/>
        <string id="retry" value="Retrying"/>
        <string id="probe" value="Probing"/>
        <string id="net" value="Network"/>
        <string id="zero" value="Nothing"/>
        <string id="seven" value="Seven"/>
        <string id="two" value="Two"/>
        <string id="bit0" value="Low bit"/>
        <string id="bit31" value="High bit"/>
        <string id="e1" value="Connecting %2 (%1 bytes), kind %3!s!.%nDone: 100%%"/>
        <string id="e2" value="Disconnected: %1"/>
      </stringTable>
    </resources>
  </localization>
</instrumentationManifest>
`

func parseTestManifest(t testing.TB) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Parse(strings.NewReader(testManifest), "test.man")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func buildTestPE(t testing.TB, opts wevttest.Options, plus bool) []byte {
	t.Helper()
	b, err := wevttest.PE(parseTestManifest(t), opts, plus)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRoundTrip compiles the test manifest into PE files (PE32 and PE32+,
// CRIM 3.1 and 5.1) and checks that ReadPE gives back a model that
// compiles to the same schemas as the XML.
func TestRoundTrip(t *testing.T) {
	xm := parseTestManifest(t)
	xs, xerrs := xm.Schemas()
	if len(xerrs) != 0 || len(xs) != 5 {
		t.Fatalf("XML: %d schemas, %v", len(xs), xerrs)
	}
	for _, v3 := range []bool{false, true} {
		for _, plus := range []bool{false, true} {
			name := fmt.Sprintf("CRIM %v PE32+ %v", map[bool]int{false: 5, true: 3}[v3], plus)
			b := buildTestPE(t, wevttest.Options{Version3: v3}, plus)
			m, err := ReadPE(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if m.Format != manifest.FormatBinary || len(m.Providers) != 1 {
				t.Fatalf("%s: format %v, %d providers", name, m.Format, len(m.Providers))
			}
			p := m.Providers[0]
			xp := xm.Providers[0]
			// CRIM 3 has no name: it comes from the channel names.
			if p.Name != xp.Name || p.GUID != xp.GUID || p.Message != "Etwkit test provider" {
				t.Errorf("%s: provider %q %s %q", name, p.Name, p.GUID, p.Message)
			}
			if v3 != (len(m.Warnings) == 1 && strings.Contains(m.Warnings[0], "taken from its channel names")) {
				t.Errorf("%s: warnings %q", name, m.Warnings)
			}
			compareDeclared(t, name, p, xp, true)
			bs, berrs := m.Schemas()
			if len(berrs) != 0 || len(bs) != len(xs) {
				t.Fatalf("%s: %d schemas, %v", name, len(bs), berrs)
			}
			for i := range xs {
				if bs[i].ID != xs[i].ID || bs[i].Version != xs[i].Version {
					t.Fatalf("%s: schema %d is event %d v%d", name, i, bs[i].ID, bs[i].Version)
				}
				compareSchema(t, fmt.Sprintf("%s: event %d v%d", name, xs[i].ID, xs[i].Version), bs[i], xs[i], false)
			}
			// A few things spelled out.
			e := p.Event(1, 0)
			if e == nil || e.Message != "Connecting %2 (%1 bytes), kind %3!s!.%nDone: 100%%" ||
				e.LevelMessage != "Information" || e.OpcodeMessage != "Start" || e.TaskMessage != "Connecting" ||
				e.ChannelName != "Etwkit-Test-Binary/Operational" || e.ChannelMessage != "Operational channel" ||
				e.Keywords != 1|1<<48 || fmt.Sprint(e.KeywordNames) != "[Net win:ResponseTime]" {
				t.Errorf("%s: event 1: %+v", name, e)
			}
			if e := p.Event(1, 1); e == nil || e.ChannelName != "System" || e.Channel != 8 || e.OpcodeName != "Retry" || e.Opcode != 20 {
				t.Errorf("%s: event 1 v1: %+v", name, e)
			}
			if e := p.Event(3, 0); e == nil || e.ChannelName != "Application" || e.Channel != 9 || !e.HasChannel {
				t.Errorf("%s: event 3: %+v", name, e)
			}
			if len(p.Tasks) != 2 || len(p.Tasks[0].Opcodes) != 1 || p.Tasks[0].EventGUID.String() != "11111111-2222-3333-4444-555555555555" {
				t.Errorf("%s: tasks %+v", name, p.Tasks)
			}
		}
	}
}

// TestNoMessages reads a binary without its message table: names only,
// predefined display names from winmeta.xml.
func TestNoMessages(t *testing.T) {
	crim, _, err := wevttest.Compile(parseTestManifest(t), wevttest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := petest.Build(petest.Options{}, []petest.Resource{{Type: "WEVT_TEMPLATE", Name: "#1", Data: crim}})
	m, err := ReadPE(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "no message table") {
		t.Errorf("warnings %q", m.Warnings)
	}
	s, errs := m.Schemas()
	if len(errs) != 0 || len(s) != 5 {
		t.Fatalf("%d schemas %v", len(s), errs)
	}
	// Event 1: predefined level and opcode keep winmeta's messages, the
	// provider's task and channel have their names.
	if s[0].LevelName != "Information" || s[0].OpcodeName != "Start" || s[0].TaskName != "Connect" ||
		s[0].ChannelName != "Etwkit-Test-Binary/Operational" || s[0].Message != "" ||
		fmt.Sprint(s[0].KeywordNames) != "[Net Response Time]" {
		t.Errorf("event 1: %+v", s[0])
	}
	if mp := s[0].Properties[2].Map; mp == nil || mp.Name != "KindMap" || len(mp.Entries) != 3 || mp.Entries[2].Value != 7 || mp.Entries[2].Message != "" {
		t.Errorf("map %+v", mp)
	}
}

// TestErrors checks ReadPE's errors: no template, not a PE, damage named
// by file offset.
func TestErrors(t *testing.T) {
	b := petest.Build(petest.Options{}, []petest.Resource{{Type: "#11", Name: "#1", Data: petest.MessageTable(nil)}})
	if _, err := ReadPE(bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrNoTemplate) {
		t.Errorf("no template: %v", err)
	}
	if _, err := ReadPE(bytes.NewReader([]byte("CRIM")), 4); !errors.Is(err, pe.ErrNotPE) {
		t.Errorf("not a PE: %v", err)
	}
	if _, err := Parse([]byte("MZ not a manifest"), nil); !errors.Is(err, ErrNotManifest) {
		t.Errorf("not a manifest: %v", err)
	}
	// A damaged message table costs the texts only.
	crim0, _, err := wevttest.Compile(parseTestManifest(t), wevttest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b = petest.Build(petest.Options{}, []petest.Resource{{Type: "WEVT_TEMPLATE", Name: "#1", Data: crim0},
		{Type: "#11", Name: "#1", Data: []byte{9, 0, 0, 0}}})
	m, err := ReadPE(bytes.NewReader(b), int64(len(b)))
	if err != nil || len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "message table unreadable") ||
		m.Providers[0].Events[0].LevelMessage != "Information" || m.Providers[0].Message != "" {
		t.Errorf("damaged message table: %v %q", err, m.Warnings)
	}
	// Damage the first event's template offset: the error names the file
	// offset of the field.
	crim, msgs, err := wevttest.Compile(parseTestManifest(t), wevttest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ev := bytes.Index(crim, []byte("EVNT"))
	field := ev + 16 + 20
	bad := append([]byte(nil), crim...)
	bad[field], bad[field+1], bad[field+2], bad[field+3] = 0xF0, 0xFF, 0, 0
	pb := petest.Build(petest.Options{}, []petest.Resource{{Type: "WEVT_TEMPLATE", Name: "#1", Data: bad},
		{Type: "#11", Name: "#1", Data: petest.MessageTable(msgs)}})
	_, err = ReadPE(bytes.NewReader(pb), int64(len(pb)))
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Offset != 0xFFF0 {
		t.Fatalf("damaged template offset: %v", err)
	}
	// The WEVT_TEMPLATE data is the first resource data, 8-aligned after
	// the tree; find it to check the file offset.
	if at := int64(bytes.Index(pb, bad)); fe.FileOffset != at+0xFFF0 || !strings.Contains(err.Error(), fmt.Sprintf("file offset %#x", at+0xFFF0)) {
		t.Errorf("file offset %#x (data at %#x): %v", fe.FileOffset, at, err)
	}
}

// TestHostile damages a compiled manifest in ways that used to be cheap
// for an attacker: counts and offsets must be refused, not followed.
func TestHostile(t *testing.T) {
	crim, _, err := wevttest.Compile(parseTestManifest(t), wevttest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	put := func(b []byte, off int, v uint32) []byte {
		c := append([]byte(nil), b...)
		c[off], c[off+1], c[off+2], c[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		return c
	}
	temp := bytes.Index(crim, []byte("TEMP"))
	evnt := bytes.Index(crim, []byte("EVNT"))
	maps := bytes.Index(crim, []byte("VMAP"))
	cases := map[string][]byte{
		"size past the end":      put(crim, 4, uint32(len(crim)+1)),
		"many providers":         put(crim, 12, 0x0FFFFFFF),
		"provider offset":        put(crim, 32, 0xFFFFFF),
		"many events":            put(crim, evnt+8, 0x7FFFFFFF),
		"many properties":        put(crim, temp+12, 0x7FFFFFFF),
		"top above total":        put(crim, temp+8, 0x7FFF),
		"many map entries":       put(crim, maps+16, 0x7FFFFFFF),
		"map name offset":        put(crim, maps+8, uint32(len(crim)-2)),
		"event keyword count":    put(crim, evnt+16+36, 1000),
		"event level offset":     put(crim, evnt+16+28, 8),
		"struct member overflow": put(crim, temp+40+8+20*8+4, 0xFFFF0009),
	}
	for name, b := range cases {
		_, err := Parse(b, nil)
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: %v", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
}

// TestSharedStructures makes many events share one large template: what
// Schemas would build is quadratic in the input, so Parse refuses it.
func TestSharedStructures(t *testing.T) {
	const props, events = 2000, 20000
	tp := &manifest.Template{TID: "Big"}
	for i := 0; i < props; i++ {
		f := &manifest.Field{Name: fmt.Sprintf("F%d", i), InType: tdh.InTypeUInt8, Index: i, LengthIndex: -1, CountIndex: -1}
		tp.Fields = append(tp.Fields, f)
	}
	tp.Properties = tp.Fields
	p := &manifest.Provider{Name: "Big", Templates: map[string]*manifest.Template{"Big": tp}}
	for i := 0; i < events; i++ {
		p.Events = append(p.Events, &manifest.Event{ID: uint16(i), TemplateID: "Big", Template: tp})
	}
	crim, _, err := wevttest.Compile(&manifest.Manifest{Providers: []*manifest.Provider{p}}, wevttest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse(crim, nil)
	var fe *FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "template properties together") {
		t.Errorf("%d events sharing a template of %d properties (%d bytes): %v", events, props, len(crim), err)
	}
	// The same template for fewer events is fine.
	p.Events = p.Events[:200]
	crim, _, err = wevttest.Compile(&manifest.Manifest{Providers: []*manifest.Provider{p}}, wevttest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Parse(crim, nil)
	if err != nil || len(m.Providers[0].Events) != 200 || len(m.Providers[0].Events[199].Template.Properties) != props {
		t.Errorf("200 events: %v", err)
	}
}

// peDir returns the folder of real Windows binaries: $ETL_PE, else
// $ETL_CORPUS/../pe; it skips when neither is set and fails when the
// folder is missing.
func peDir(t testing.TB) string {
	t.Helper()
	return corpusDir(t, "ETL_PE", "pe")
}

// TestCalc reads Windows 7's calc.exe: one provider (CRIM 3.1, so its name
// comes from its channel names), 27 events, 9 templates; the strings are in
// calc.exe.mui, which the corpus does not have.
func TestCalc(t *testing.T) {
	path := filepath.Join(peDir(t), "calc.exe")
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	m, err := OpenPE(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range m.Warnings {
		t.Logf("warning: %s", w)
	}
	if len(m.Providers) != 1 {
		t.Fatalf("%d providers", len(m.Providers))
	}
	p := m.Providers[0]
	t.Logf("provider %s %s: %d events, %d templates, %d tasks, %d opcodes, %d keywords, %d levels, %d channels, %d maps",
		p.Name, p.GUID, len(p.Events), len(p.Templates), len(p.Tasks), len(p.Opcodes), len(p.Keywords), len(p.Levels), len(p.Channels), len(p.Maps))
	if p.GUID.String() != "75f48521-4131-4ac3-9887-65473224fcb2" || p.Name != "Microsoft-Windows-Calculator" {
		t.Errorf("provider %s %q", p.GUID, p.Name)
	}
	// Declared: 12 tasks, 1 keyword, 2 channels; the levels (Informational,
	// Error), opcodes (Info, Start, Stop) and win:ResponseTime are
	// predefined.
	if len(p.Events) != 27 || len(p.Templates) != 9 || len(p.Tasks) != 12 || len(p.Opcodes) != 0 ||
		len(p.Keywords) != 1 || len(p.Levels) != 0 || len(p.Channels) != 2 || len(p.Maps) != 0 {
		t.Error("counts differ")
	}
	for _, c := range p.Channels {
		t.Logf("channel %d %s", c.Value, c.Name)
	}
	for _, k := range p.Keywords {
		t.Logf("keyword %#x %s", k.Value, k.Name)
	}
	schemas, errs := m.Schemas()
	if len(errs) != 0 || len(schemas) != 27 {
		t.Fatalf("%d schemas, errors %v", len(schemas), errs)
	}
	for _, s := range schemas {
		var props []string
		for _, pr := range s.Properties {
			props = append(props, fmt.Sprintf("%s:%s", pr.Name, pr.InType))
		}
		t.Logf("event %2d v%d level %d (%s) task %2d (%s) opcode %d (%s) keywords %#x %v channel %d (%s) %v",
			s.ID, s.Version, s.Level, s.LevelName, s.Task, s.TaskName, s.Opcode, s.OpcodeName, s.Keywords,
			s.KeywordNames, s.Channel, s.ChannelName, props)
	}
	check := func(id uint16, task, opcode, level, channel string, props ...string) {
		t.Helper()
		var s *tdh.Event
		for _, x := range schemas {
			if x.ID == id {
				s = x
			}
		}
		if s == nil {
			t.Errorf("event %d missing", id)
			return
		}
		var got []string
		for _, pr := range s.Properties {
			got = append(got, fmt.Sprintf("%s:%s:%s", pr.Name, pr.InType, pr.EffectiveOutType()))
		}
		if s.TaskName != task || s.OpcodeName != opcode || s.LevelName != level || s.ChannelName != channel ||
			strings.Join(got, " ") != strings.Join(props, " ") {
			t.Errorf("event %d: task %q opcode %q level %q channel %q properties %v", id, s.TaskName, s.OpcodeName,
				s.LevelName, s.ChannelName, got)
		}
	}
	check(1, "HistoryToggle", "Start", "Information", "Microsoft-Windows-Calculator/Diagnostic", "Eventnumber:win:UInt32:xs:unsignedInt")
	check(4, "CalcCommand", "Stop", "Information", "Microsoft-Windows-Calculator/Diagnostic", "EventNumber:win:UInt32:xs:unsignedInt")
	check(17, "", "Info", "Error", "Microsoft-Windows-Calculator/Debug", "Description:win:UnicodeString:xs:string")
	check(27, "ModeChange", "Stop", "Information", "Microsoft-Windows-Calculator/Diagnostic", "Eventnumber:win:UInt32:xs:unsignedInt")
	e := p.Event(1, 0)
	if e.Keywords != 0x1000000010000 || fmt.Sprint(e.KeywordNames) != "[Calculator win:ResponseTime]" || e.Channel != 16 {
		t.Errorf("event 1: keywords %#x %v channel %d", e.Keywords, e.KeywordNames, e.Channel)
	}
	// Decode a payload with event 17's schema: a UTF-16 string.
	var s17 *tdh.Event
	for _, s := range schemas {
		if s.ID == 17 {
			s17 = s
		}
	}
	payload := []byte{'E', 0, 'r', 0, 'r', 0, 0, 0}
	var dec tdh.Decoder
	d, err := dec.Decode(s17, payload, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(tdh.AppendPropertiesJSON(nil, d)); got != `{"Description":"Err"}` {
		t.Errorf("decoded %s", got)
	}
}
