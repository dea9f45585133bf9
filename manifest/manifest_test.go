package manifest

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/etwkit/etw/tdh"
	"github.com/google/uuid"
)

func mustParse(t *testing.T, src, name string) *Manifest {
	t.Helper()
	m, err := Parse(strings.NewReader(src), name)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return m
}

func mustProvider(t *testing.T, m *Manifest, guid string) *Provider {
	t.Helper()
	p := m.Provider(uuid.MustParse(guid))
	if p == nil {
		t.Fatalf("provider %s not found", guid)
	}
	return p
}

func mustEvent(t *testing.T, p *Provider, id uint16, version uint8) *Event {
	t.Helper()
	e := p.Event(id, version)
	if e == nil {
		t.Fatalf("%s: event %d v%d not found", p.Name, id, version)
	}
	return e
}

// lineOf returns the 1-based line of the first occurrence of s in src.
func lineOf(t *testing.T, src, s string) int {
	t.Helper()
	i := strings.Index(src, s)
	if i < 0 {
		t.Fatalf("%q not in source", s)
	}
	return strings.Count(src[:i], "\n") + 1
}

func TestProviderAttributes(t *testing.T) {
	m := mustParse(t, fullManifest, "full.man")
	if len(m.Providers) != 2 {
		t.Fatalf("providers = %d, want 2", len(m.Providers))
	}
	p := mustProvider(t, m, "11111111-2222-3333-4444-555555555555")
	want := Provider{Name: "Test-Provider", Symbol: "TEST_PROVIDER", ResourceFileName: "res.dll",
		MessageFileName: "msg.dll", ParameterFileName: "param.dll", Message: "Test provider"}
	got := Provider{Name: p.Name, Symbol: p.Symbol, ResourceFileName: p.ResourceFileName,
		MessageFileName: p.MessageFileName, ParameterFileName: p.ParameterFileName, Message: p.Message}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("provider = %+v, want %+v", got, want)
	}
	// GUID without braces.
	if q := m.Provider(uuid.MustParse("22222222-2222-2222-2222-222222222222")); q == nil || q.Name != "Second" {
		t.Errorf("second provider = %v", q)
	}
	if m.ProviderByName("Second") == nil || m.ProviderByName("nope") != nil {
		t.Error("ProviderByName")
	}
	if m.Provider(uuid.Nil) != nil {
		t.Error("Provider(Nil) found something")
	}
	if len(p.Events) != 15 || len(p.Templates) != 3 || len(p.Maps) != 2 {
		t.Errorf("events/templates/maps = %d/%d/%d, want 15/3/2", len(p.Events), len(p.Templates), len(p.Maps))
	}
	if p.Event(99, 0) != nil || p.Event(1, 1) != nil {
		t.Error("Event found a missing id/version")
	}
}

func TestDefinitions(t *testing.T) {
	m := mustParse(t, fullManifest, "full.man")
	p := mustProvider(t, m, "11111111-2222-3333-4444-555555555555")
	if want := []Level{{Name: "Custom", Value: 16, Message: "Custom level", Symbol: "LVL_CUSTOM"}}; !reflect.DeepEqual(p.Levels, want) {
		t.Errorf("levels = %+v", p.Levels)
	}
	wantTasks := []Task{
		{Name: "Connect", Value: 0x100, Message: "Connection", EventGUID: uuid.MustParse("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"),
			Opcodes: []Opcode{{Name: "Retry", Value: 10, Message: "Retry (connect)", Symbol: "OP_RETRY_LOCAL"}}},
		{Name: "Disconnect", Value: 2},
	}
	if !reflect.DeepEqual(p.Tasks, wantTasks) {
		t.Errorf("tasks = %+v", p.Tasks)
	}
	if want := []Opcode{{Name: "Retry", Value: 11, Message: "Retry (global)"}}; !reflect.DeepEqual(p.Opcodes, want) {
		t.Errorf("opcodes = %+v", p.Opcodes)
	}
	wantKW := []Keyword{{Name: "Net", Value: 1, Symbol: "KW_NET"}, {Name: "Disk", Value: 2, Message: "Disk I/O"}}
	if !reflect.DeepEqual(p.Keywords, wantKW) {
		t.Errorf("keywords = %+v", p.Keywords)
	}
	// Explicit 0x11, then mc-style assignment from 16 skipping used values,
	// and the predefined value for an imported System.
	wantCh := []Channel{
		{Name: "Microsoft-Test/Operational", ID: "Op", Value: 17, Type: "Operational", Message: "Operational channel"},
		{Name: "Microsoft-Test/Debug", Value: 16, Type: "Debug", Assigned: true},
		{Name: "Microsoft-Test/Analytic", Value: 18, Type: "Analytic", Symbol: "CH_ANALYTIC", Assigned: true},
		{Name: "System", ID: "System", Value: 8, Type: "Admin", Message: "System", Symbol: "WINEVENT_CHANNEL_GLOBAL_SYSTEM", Imported: true},
	}
	if !reflect.DeepEqual(p.Channels, wantCh) {
		t.Errorf("channels =\n%+v\nwant\n%+v", p.Channels, wantCh)
	}
}

func TestMaps(t *testing.T) {
	m := mustParse(t, fullManifest, "full.man")
	p := mustProvider(t, m, "11111111-2222-3333-4444-555555555555")
	km := p.Maps["KindMap"]
	want := &Map{Name: "KindMap", Symbol: "KIND_MAP", Kind: ValueMap, Entries: []MapEntry{
		{1, "One"}, {2, "Two"}, {0xFFFFFFFF, "Max"}}}
	if !reflect.DeepEqual(km, want) {
		t.Errorf("KindMap = %+v", km)
	}
	fm := p.Maps["FlagMap"]
	if fm.Kind != BitMap || !reflect.DeepEqual(fm.Entries, []MapEntry{{1, "Flag one"}, {4, "Flag four"}}) {
		t.Errorf("FlagMap = %+v", fm)
	}
	if s, ok := km.Lookup(2); !ok || s != "Two" {
		t.Errorf("Lookup(2) = %q %v", s, ok)
	}
	if _, ok := km.Lookup(3); ok {
		t.Error("Lookup(3) found")
	}
	if ValueMap.String() != "valueMap" || BitMap.String() != "bitMap" || MapKind(9).String() == "" {
		t.Error("MapKind.String")
	}
	if _, ok := p.Maps["Ignored"]; ok {
		t.Error("patternMap parsed as a map")
	}
}

func TestEventResolution(t *testing.T) {
	m := mustParse(t, fullManifest, "full.man")
	p := mustProvider(t, m, "11111111-2222-3333-4444-555555555555")

	e1 := mustEvent(t, p, 1, 0)
	want := Event{ID: 1, Version: 0, Level: 4, Task: 0x100, Opcode: 1, Keywords: 1 | 1<<48, Channel: 17, HasChannel: true,
		LevelName: "win:Informational", TaskName: "Connect", OpcodeName: "win:Start", ChannelName: "Microsoft-Test/Operational",
		KeywordNames: []string{"Net", "win:ResponseTime"}, LevelMessage: "Information", TaskMessage: "Connection",
		OpcodeMessage: "Start", ChannelMessage: "Operational channel", TemplateID: "T1", Template: p.Templates["T1"],
		Message: "Connected to %2 (size %1)", Symbol: "E1"}
	if !reflect.DeepEqual(*e1, want) {
		t.Errorf("event 1 =\n%+v\nwant\n%+v", *e1, want)
	}

	// Task-local opcode: "Retry" in task Connect is 10, not the global 11.
	e2 := mustEvent(t, p, 2, 1)
	if e2.Opcode != 10 || e2.OpcodeMessage != "Retry (connect)" || e2.Level != 16 || e2.LevelMessage != "Custom level" ||
		e2.Channel != 16 || e2.ChannelName != "Microsoft-Test/Debug" || !e2.HasChannel {
		t.Errorf("event 2 = %+v", e2)
	}
	// Same opcode name in a task without local opcodes: the global one.
	e3 := mustEvent(t, p, 3, 0)
	if e3.Opcode != 11 || e3.OpcodeMessage != "Retry (global)" || e3.Task != 2 || e3.Keywords != 2 || e3.HasChannel || e3.Template != nil {
		t.Errorf("event 3 = %+v", e3)
	}
	e4 := mustEvent(t, p, 4, 0)
	if e4.Opcode != 240 || e4.Level != 0 || e4.LevelMessage != "Log Always" || e4.Keywords != 3 || e4.Channel != 8 ||
		!e4.NotLogged || e4.Template == nil || len(e4.Template.Fields) != 0 {
		t.Errorf("event 4 = %+v", e4)
	}
	e5 := mustEvent(t, p, 5, 0)
	if e5.Task != 0 || e5.TaskMessage != "None" || e5.OpcodeMessage != "Info" || e5.Channel != 9 || e5.ChannelName != "Application" {
		t.Errorf("event 5 = %+v", e5)
	}
	e6 := mustEvent(t, p, 6, 0)
	if e6.Opcode != 4 || e6.Level != 5 || e6.Keywords != 1<<52|1<<55 {
		t.Errorf("event 6 = %+v", e6)
	}
	e7 := mustEvent(t, p, 7, 255)
	if e7.Level != 1 || e7.Channel != 18 || e7.Message != "literal text" {
		t.Errorf("event 7 = %+v", e7)
	}
	checks := []struct {
		id      uint16
		version uint8
		level   uint8
		opcode  uint8
		kw      uint64
		channel uint8
	}{
		{8, 1, 2, 6, 0, 0}, {9, 0, 3, 5, 0, 0}, {10, 3, 0, 7, 0, 0},
		{11, 0, 0, 8, 1<<51 | 1<<50 | 1<<54 | 1<<53 | 1<<49, 0},
		{12, 0, 0, 9, 0, 0}, {13, 0, 0, 3, 0, 10}, {15, 0, 0, 2, 0, 11},
	}
	for _, c := range checks {
		e := mustEvent(t, p, c.id, c.version)
		if e.Level != c.level || e.Opcode != c.opcode || e.Keywords != c.kw || e.Channel != c.channel {
			t.Errorf("event %d: level %d opcode %d kw %#x channel %d; want %d %d %#x %d",
				c.id, e.Level, e.Opcode, e.Keywords, e.Channel, c.level, c.opcode, c.kw, c.channel)
		}
	}
	if e := mustEvent(t, p, 12, 0); !e.HasChannel || e.ChannelName != "TraceClassic" {
		t.Errorf("event 12 channel = %q %v", e.ChannelName, e.HasChannel)
	}
	if got := len(p.Events); got != 15 {
		t.Errorf("events = %d", got)
	}
	if p.Events[0] != e1 || p.Events[1] != e2 {
		t.Error("Events not in document order")
	}
}

func TestProviderLookups(t *testing.T) {
	m := mustParse(t, fullManifest, "full.man")
	p := mustProvider(t, m, "11111111-2222-3333-4444-555555555555")
	if l, ok := p.LevelByValue(16); !ok || l.Name != "Custom" {
		t.Errorf("LevelByValue(16) = %+v", l)
	}
	if l, ok := p.LevelByValue(4); !ok || l.Message != "Information" {
		t.Errorf("LevelByValue(4) = %+v", l)
	}
	if _, ok := p.LevelByValue(200); ok {
		t.Error("LevelByValue(200) found")
	}
	if tk := p.TaskByValue(0x100); tk == nil || tk.Name != "Connect" {
		t.Errorf("TaskByValue(0x100) = %+v", tk)
	}
	if tk := p.TaskByValue(0); tk == nil || tk.Name != "win:None" {
		t.Errorf("TaskByValue(0) = %+v", tk)
	}
	if p.TaskByValue(77) != nil {
		t.Error("TaskByValue(77) found")
	}
	for _, c := range []struct {
		task uint16
		v    uint8
		name string
	}{{0x100, 10, "Retry"}, {0x100, 11, "Retry"}, {2, 1, "win:Start"}, {0x100, 240, "win:Receive"}} {
		if o, ok := p.OpcodeByValue(c.task, c.v); !ok || o.Name != c.name {
			t.Errorf("OpcodeByValue(%d,%d) = %+v", c.task, c.v, o)
		}
	}
	if o, _ := p.OpcodeByValue(0x100, 10); o.Message != "Retry (connect)" {
		t.Errorf("task-local opcode by value = %+v", o)
	}
	if _, ok := p.OpcodeByValue(2, 10); ok {
		t.Error("task-local opcode 10 visible from another task")
	}
	var names []string
	for _, k := range p.KeywordsByMask(1<<48 | 3 | 1<<40) {
		names = append(names, k.Name)
	}
	if !reflect.DeepEqual(names, []string{"Net", "Disk", "win:ResponseTime"}) {
		t.Errorf("KeywordsByMask = %v", names)
	}
	if c, ok := p.ChannelByValue(16); !ok || c.Name != "Microsoft-Test/Debug" {
		t.Errorf("ChannelByValue(16) = %+v", c)
	}
	if c, ok := p.ChannelByValue(9); !ok || c.Name != "Application" {
		t.Errorf("ChannelByValue(9) = %+v", c)
	}
	if _, ok := p.ChannelByValue(99); ok {
		t.Error("ChannelByValue(99) found")
	}
}

func TestTemplateFields(t *testing.T) {
	m := mustParse(t, fullManifest, "full.man")
	p := mustProvider(t, m, "11111111-2222-3333-4444-555555555555")
	t1 := p.Templates["T1"]
	if t1.TID != "T1" || t1.Name != "First" || len(t1.Fields) != 10 || len(t1.Properties) != 13 {
		t.Fatalf("T1: tid %q name %q fields %d properties %d", t1.TID, t1.Name, len(t1.Fields), len(t1.Properties))
	}
	f := func(i int) *Field { return t1.Fields[i] }
	type row struct {
		name                string
		in                  tdh.InType
		out                 tdh.OutType
		inName, outName     string
		length              uint16
		lengthField         string
		lengthIdx           int
		hasCount            bool
		count               uint16
		countField          string
		countIdx, index     int
		mapName             string
		isStruct            bool
		structMembersLength int
	}
	rowOf := func(x *Field) row {
		return row{x.Name, x.InType, x.OutType, x.InTypeName, x.OutTypeName, x.Length, x.LengthField, x.LengthIndex,
			x.HasCount, x.Count, x.CountField, x.CountIndex, x.Index, x.MapName, x.IsStruct(), len(x.Struct)}
	}
	want := []row{
		{"Size", 8, 18, "win:UInt32", "win:HexInt32", 0, "", -1, false, 0, "", -1, 0, "", false, 0},
		{"Name", 1, 0, "win:UnicodeString", "", 0, "Size", 0, false, 0, "", -1, 1, "", false, 0},
		{"Kind", 4, 0, "win:UInt8", "", 0, "", -1, false, 0, "", -1, 2, "KindMap", false, 0},
		{"Flags", 8, 0, "win:UInt32", "", 0, "", -1, false, 0, "", -1, 3, "FlagMap", false, 0},
		{"Blob", 14, 0, "win:Binary", "", 16, "", -1, false, 0, "", -1, 4, "", false, 0},
		{"N", 6, 0, "win:UInt16", "", 0, "", -1, false, 0, "", -1, 5, "", false, 0},
		{"Ids", 15, 0, "win:GUID", "", 0, "", -1, true, 0, "N", 5, 6, "", false, 0},
		{"Fixed", 7, 0, "win:Int32", "", 0, "", -1, true, 3, "", -1, 7, "", false, 0},
		{"Items", 0, 0, "", "", 0, "", -1, true, 0, "N", 5, 8, "", true, 3},
		{"Tail", 16, 0, "win:Pointer", "", 0, "", -1, false, 0, "", -1, 9, "", false, 0},
	}
	for i, w := range want {
		if got := rowOf(f(i)); got != w {
			t.Errorf("field %d =\n%+v\nwant\n%+v", i, got, w)
		}
	}
	if f(2).Map != p.Maps["KindMap"] || f(3).Map != p.Maps["FlagMap"] || f(0).Map != nil {
		t.Error("field maps not resolved to the provider's maps")
	}
	// Struct members come after all top-level fields in TDH order. Len is
	// a sibling reference; Back refers to a top-level field outside.
	items := f(8).Struct
	wantMembers := []row{
		{"Len", 6, 0, "win:UInt16", "", 0, "", -1, false, 0, "", -1, 10, "", false, 0},
		{"Data", 14, 0, "win:Binary", "", 0, "Len", 10, false, 0, "", -1, 11, "", false, 0},
		{"Back", 14, 0, "win:Binary", "", 0, "Size", 0, false, 0, "", -1, 12, "", false, 0},
	}
	for i, w := range wantMembers {
		if got := rowOf(items[i]); got != w {
			t.Errorf("member %d =\n%+v\nwant\n%+v", i, got, w)
		}
	}
	for i, pr := range t1.Properties {
		if pr.Index != i {
			t.Errorf("Properties[%d].Index = %d", i, pr.Index)
		}
	}
	if t1.Properties[10] != items[0] {
		t.Error("Properties[10] is not the first struct member")
	}

	t2 := p.Templates["T2"]
	wantT2 := []struct {
		in  tdh.InType
		out tdh.OutType
	}{{2, 35}, {17, 38}, {19, 0}, {13, 0}, {6, 22}, {14, 24}, {22, 0}, {23, 0}, {25, 0}, {11, 0}, {12, 0}, {18, 0},
		{21, 0}, {3, 1}, {5, 0}, {9, 0}, {10, 27}, {7, 32}, {20, 31}}
	if len(t2.Fields) != len(wantT2) {
		t.Fatalf("T2 fields = %d", len(t2.Fields))
	}
	for i, w := range wantT2 {
		if g := t2.Fields[i]; g.InType != w.in || g.OutType != w.out {
			t.Errorf("T2 field %s: in %d out %d, want %d %d", g.Name, g.InType, g.OutType, w.in, w.out)
		}
	}
	if a := t2.Fields[5]; a.Length != 16 {
		t.Errorf("Addr length = %d", a.Length)
	}
}

func TestStrings(t *testing.T) {
	m := mustParse(t, fullManifest, "full.man")
	if m.Culture != "en-US" || !reflect.DeepEqual(m.Cultures, []string{"de-DE", "en-US"}) {
		t.Errorf("culture %q of %v", m.Culture, m.Cultures)
	}
	if m.Strings["kind.one"] != "One" || len(m.Strings) != 13 {
		t.Errorf("strings = %v", m.Strings)
	}

	// Requested culture, case-insensitively.
	de, err := ParseWithOptions(strings.NewReader(fullManifest), "full.man", ParseOptions{Culture: "de-de"})
	if err != nil {
		t.Fatal(err)
	}
	p := mustProvider(t, de, "11111111-2222-3333-4444-555555555555")
	if de.Culture != "de-DE" || p.Message != "Testanbieter" || mustEvent(t, p, 1, 0).Message != "Verbunden mit %2" {
		t.Errorf("de-DE: culture %q provider %q", de.Culture, p.Message)
	}
	// Strings missing from that culture stay raw and are reported.
	if mustEvent(t, p, 2, 1).LevelMessage != "$(string.level.custom)" {
		t.Errorf("unresolved level message = %q", mustEvent(t, p, 2, 1).LevelMessage)
	}

	// Missing culture: default plus a warning.
	fr, err := ParseWithOptions(strings.NewReader(fullManifest), "full.man", ParseOptions{Culture: "fr-FR"})
	if err != nil {
		t.Fatal(err)
	}
	if fr.Culture != "en-US" || !containsWarning(fr.Warnings, `culture "fr-FR" not present`) {
		t.Errorf("fr-FR: culture %q warnings %v", fr.Culture, fr.Warnings)
	}

	// No en-US: the first block.
	only := strings.Replace(fullManifest, `culture="en-US"`, `culture="en-GB"`, 1)
	gb := mustParse(t, only, "gb.man")
	if gb.Culture != "de-DE" {
		t.Errorf("without en-US culture = %q, want the first (de-DE)", gb.Culture)
	}

	// No localization at all.
	pm := mustParse(t, plainManifest, "plain.man")
	if pm.Culture != "" || len(pm.Strings) != 0 || pm.Strings == nil {
		t.Errorf("plain: culture %q strings %v", pm.Culture, pm.Strings)
	}
}

func containsWarning(ws []string, sub string) bool {
	for _, w := range ws {
		if strings.Contains(w, sub) {
			return true
		}
	}
	return false
}

func TestWarningsNameLine(t *testing.T) {
	m := mustParse(t, fullManifest, "full.man")
	p := mustProvider(t, m, "11111111-2222-3333-4444-555555555555")
	e := mustEvent(t, p, 14, 0)
	if e.Message != "$(string.missing)" {
		t.Errorf("unresolved message = %q, want the raw reference", e.Message)
	}
	line := lineOf(t, fullManifest, "$(string.missing)")
	want := fmt.Sprintf("full.man:%d: ", line)
	found := false
	for _, w := range m.Warnings {
		if strings.Contains(w, "$(string.missing)") {
			found = true
			if !strings.HasPrefix(w, want) {
				t.Errorf("warning %q does not start with %q", w, want)
			}
		}
	}
	if !found {
		t.Errorf("no warning for $(string.missing) in %v", m.Warnings)
	}
	if len(m.Warnings) != 1 {
		t.Errorf("warnings = %v, want exactly the unresolved string", m.Warnings)
	}
}

func TestUndefinedReferencesWarn(t *testing.T) {
	src := `<instrumentationManifest><instrumentation><events>
<provider name="P" guid="{44444444-4444-4444-4444-444444444444}">
<templates><template tid="T"><data name="A" inType="win:UInt8" map="NoMap"/></template></templates>
<events><event value="1" level="NoLevel" task="NoTask" opcode="NoOp" keywords="NoKw win:ResponseTime" channel="NoCh" template="NoT"/>
<event value="1"/></events>
</provider></events></instrumentation></instrumentationManifest>`
	m := mustParse(t, src, "undef.man")
	for _, w := range []string{`level "NoLevel"`, `task "NoTask"`, `opcode "NoOp"`, `keyword "NoKw"`, `channel "NoCh"`,
		`template "NoT"`, `map "NoMap"`, `duplicate event 1 version 0`} {
		if !containsWarning(m.Warnings, w) {
			t.Errorf("no warning about %s in %v", w, m.Warnings)
		}
	}
	e := m.Providers[0].Event(1, 0)
	if e.Keywords != 1<<48 || e.HasChannel || e.Template != nil || e.ChannelName != "NoCh" || e.Level != 0 {
		t.Errorf("event = %+v", e)
	}
	if e != m.Providers[0].Events[0] {
		t.Error("duplicate: lookup does not return the first event")
	}
}

func TestNamespacePrefixes(t *testing.T) {
	for _, c := range []struct{ name, src string }{{"prefixed", prefixedManifest}, {"plain", plainManifest}} {
		m := mustParse(t, c.src, c.name)
		if len(m.Providers) != 1 || len(m.Warnings) != 0 {
			t.Fatalf("%s: providers %d warnings %v", c.name, len(m.Providers), m.Warnings)
		}
	}
	m := mustParse(t, prefixedManifest, "prefixed")
	e := mustEvent(t, m.Providers[0], 1, 0)
	if e.Level != 3 || e.Opcode != 2 || e.Keywords != 1<<48 {
		t.Errorf("prefixed event = %+v", e)
	}
	fs := e.Template.Fields
	if fs[0].InType != tdh.InTypeUInt64 || fs[0].OutType != tdh.OutTypeHexBinary || fs[0].InTypeName != "w:UInt64" ||
		fs[1].InType != tdh.InTypeHexInt32 || fs[1].OutType != tdh.OutTypeWin32Error {
		t.Errorf("prefixed fields = %+v %+v", fs[0], fs[1])
	}
	pm := mustParse(t, plainManifest, "plain")
	if e := mustEvent(t, pm.Providers[0], 7, 2); e.Level != 2 || e.Template.Fields[0].InType != tdh.InTypeInt16 {
		t.Errorf("plain event = %+v", e)
	}
}

func TestDumperAliases(t *testing.T) {
	m := mustParse(t, dumpedManifest, "dumped.xml")
	p := m.Providers[0]
	tpl := p.Templates["0xd543c8c5L"]
	want := []struct {
		name     string
		in       tdh.InType
		out      tdh.OutType
		length   uint16
		hasCount bool
		count    uint16
		cf       string
	}{
		{"daddr", tdh.InTypeUInt32, tdh.OutTypeIPv4, 0, false, 0, ""},
		{"saddr", tdh.InTypeBinary, tdh.OutTypeIPv6, 16, false, 0, ""},
		{"i8", tdh.InTypeInt8, 0, 0, false, 0, ""},
		{"i16", tdh.InTypeInt16, 0, 0, false, 0, ""},
		{"i32", tdh.InTypeInt32, 0, 0, false, 0, ""},
		{"i64", tdh.InTypeInt64, 0, 0, false, 0, ""},
		{"ws", tdh.InTypeUnicodeString, 0, 0, false, 0, ""},
		{"s", tdh.InTypeAnsiString, 0, 0, false, 0, ""},
		{"Name", tdh.InTypeUnicodeChar, 0, 0, true, 256, ""},
		{"GuidCount", tdh.InTypeUInt32, 0, 0, false, 0, ""},
		{"Guids", tdh.InTypeGUID, 0, 0, true, 0, "GuidCount"},
		{"size", tdh.InTypeSizeT, 0, 0, false, 0, ""},
		{"cu", tdh.InTypeCountedString, 0, 0, false, 0, ""},
		{"ca", tdh.InTypeCountedAnsiString, 0, 0, false, 0, ""},
		{"st", inTypeReserved24, 0, 0, false, 0, ""},
		{"raw", 33, 0, 0, false, 0, ""},
		{"rawKnown", tdh.InTypeUInt32, 0, 0, false, 0, ""},
		{"o1", tdh.InTypeUInt32, tdh.OutTypeHexInt32, 0, false, 0, ""},
		{"o2", tdh.InTypeUInt32, tdh.OutTypeNTStatus, 0, false, 0, ""},
	}
	for i, w := range want {
		f := tpl.Fields[i]
		if f.Name != w.name || f.InType != w.in || f.OutType != w.out || f.Length != w.length ||
			f.HasCount != w.hasCount || f.Count != w.count || f.CountField != w.cf {
			t.Errorf("field %d = %+v, want %+v", i, *f, w)
		}
	}
	if g := tpl.Fields[10]; g.CountIndex != 9 {
		t.Errorf("Guids CountIndex = %d", g.CountIndex)
	}
	// "Hash Size" matches exactly; "Hash Size 2" only after dropping the
	// spaces, with a warning.
	hash, hash2 := tpl.Fields[20], tpl.Fields[22]
	if hash.LengthIndex != 19 || hash2.LengthIndex != 21 {
		t.Errorf("hash length indexes = %d, %d", hash.LengthIndex, hash2.LengthIndex)
	}
	if !containsWarning(m.Warnings, `length="Hash Size 2" taken as field "HashSize2"`) {
		t.Errorf("no warning for the normalized length reference: %v", m.Warnings)
	}
	for _, w := range []string{`in-type "win:Struct"`, `in-type "win:33"`} {
		if !containsWarning(m.Warnings, w) {
			t.Errorf("no artifact warning for %s", w)
		}
	}
	if containsWarning(m.Warnings, `"win:8"`) {
		t.Error("win:8 (a real in-type) flagged as an artifact")
	}

	// Dumper task names and level win:Always; the opcode is local to task 0.
	e := mustEvent(t, p, 1, 0)
	if e.Task != 0 || e.Opcode != 25 || e.Level != 0 || e.LevelMessage != "Log Always" {
		t.Errorf("event 1 = %+v", e)
	}
	if e := mustEvent(t, p, 2, 0); e.Task != 7 {
		t.Errorf("task_7 = %d", e.Task)
	}
	// 32-bit classic event value: id in the low word, qualifiers above.
	if e := mustEvent(t, p, 0x2775, 0); e.Qualifiers != 7 || e.Keywords != 1<<55 {
		t.Errorf("classic event = %+v", e)
	}
	for _, w := range m.Warnings {
		if strings.Contains(w, "not defined") || strings.Contains(w, "exceeds 16 bits") {
			t.Errorf("unexpected warning %q", w)
		}
	}
}

func TestEventValueOver16BitsWarns(t *testing.T) {
	src := strings.Replace(plainManifest, `value="7"`, `value="0x10007"`, 1)
	m := mustParse(t, src, "big.man")
	if e := m.Providers[0].Event(7, 2); e == nil || e.Qualifiers != 1 {
		t.Fatalf("event = %+v", e)
	}
	if !containsWarning(m.Warnings, "exceeds 16 bits") {
		t.Errorf("warnings = %v", m.Warnings)
	}
}

func TestAssemblyManifest(t *testing.T) {
	m := mustParse(t, assemblyManifest, "asm.man")
	if len(m.Providers) != 1 {
		t.Fatalf("providers = %d (counter providers must be ignored)", len(m.Providers))
	}
	p := m.Providers[0]
	if p.Name != "Asm" || p.Message != "Assembly provider" || mustEvent(t, p, 1, 0).Message != "Event one" {
		t.Errorf("assembly provider = %+v", p)
	}
}

// errorCase is a manifest that must fail with an *Error on a given line
// whose text contains every string of want.
type errorCase struct {
	name string
	src  string
	line int
	want []string
}

func TestErrors(t *testing.T) {
	good := plainManifest
	cases := []errorCase{
		{"malformed.man", "<instrumentationManifest>\n<instrumentation>\n<events>\n<provider name=\"a\" message=\"$(string.x\"y\")\"/>\n</events></instrumentation></instrumentationManifest>",
			4, []string{"malformed.man:4:", "malformed XML"}},
		{"truncated.man", "<instrumentationManifest>\n<instrumentation>\n<events>\n", 4, []string{"truncated.man:", "malformed XML"}},
		{"mismatch.man", "<instrumentationManifest>\n<a>\n</b>\n</instrumentationManifest>", 3, []string{"mismatch.man:3:"}},
		{"unknown-in.man", strings.Replace(good, "win:Int16", "win:Int17", 1), 3,
			[]string{"unknown-in.man:3:", `field "A"`, `unknown in-type "win:Int17"`, `provider "Plain"`, `template "T"`}},
		{"unknown-out.man", strings.Replace(good, `inType="win:Int16"`, `inType="win:Int16" outType="xs:nope"`, 1), 3,
			[]string{"unknown-out.man:3:", `field "A"`, `unknown out-type "xs:nope"`}},
		{"no-intype.man", strings.Replace(good, `inType="win:Int16"`, ``, 1), 3, []string{`field "A": missing inType`}},
		{"later-ref.man", strings.Replace(good, `<data name="A" inType="win:Int16"/>`,
			`<data name="A" inType="win:Binary" length="B"/><data name="B" inType="win:UInt16"/>`, 1), 3,
			[]string{"later-ref.man:3:", `field "A": length="B" names no earlier field`}},
		{"no-ref.man", strings.Replace(good, `<data name="A" inType="win:Int16"/>`,
			`<data name="A" inType="win:Int16" count="Nothing"/>`, 1), 3,
			[]string{`field "A": count="Nothing" names no earlier field`}},
		{"struct-ref.man", strings.Replace(good, `<data name="A" inType="win:Int16"/>`,
			`<struct name="S"><data name="M" inType="win:UInt8"/></struct><data name="B" inType="win:Binary" length="M"/>`, 1), 3,
			[]string{`field "B": length="M" names no earlier field`}},
		{"bad-value.man", strings.Replace(good, `value="7"`, `value="seven"`, 1), 4, []string{`event: value="seven" is not a 32-bit unsigned number`}},
		{"bad-version.man", strings.Replace(good, `version="2"`, `version="256"`, 1), 4, []string{`version="256"`}},
		{"no-guid.man", strings.Replace(good, ` guid="{44444444-4444-4444-4444-444444444444}"`, ``, 1), 2, []string{`provider "Plain": missing guid`}},
		{"bad-guid.man", strings.Replace(good, `{44444444-4444-4444-4444-444444444444}`, `{zz}`, 1), 2, []string{`bad guid "{zz}"`}},
		{"big-length.man", strings.Replace(good, `inType="win:Int16"`, `inType="win:Binary" length="70000"`, 1), 3, []string{"length 70000 exceeds 65535"}},
		{"big-count.man", strings.Replace(good, `inType="win:Int16"`, `inType="win:Int16" count="0x10000"`, 1), 3, []string{"count 0x10000 exceeds 65535"}},
		{"level.man", strings.Replace(good, `<templates>`, `<levels><level name="L" value="300"/></levels><templates>`, 1), 3, []string{`level "L": value="300"`}},
		{"nolevelvalue.man", strings.Replace(good, `<templates>`, `<levels><level name="L"/></levels><templates>`, 1), 3, []string{`level "L": missing value`}},
		{"mask.man", strings.Replace(good, `<templates>`, `<keywords><keyword name="K" mask="0x1FFFFFFFFFFFFFFFF"/></keywords><templates>`, 1), 3, []string{`keyword "K"`}},
		{"mapval.man", strings.Replace(good, `<templates>`, `<maps><valueMap name="M"><map value="-1"/></valueMap></maps><templates>`, 1), 3, []string{`valueMap "M": map entry`}},
		{"chval.man", strings.Replace(good, `<templates>`, `<channels><channel name="C" value="256"/></channels><templates>`, 1), 3, []string{`channel "C"`}},
		{"opval.man", strings.Replace(good, `<templates>`, `<tasks><task name="T" value="1"><opcodes><opcode name="O" value="x"/></opcodes></task></tasks><templates>`, 1), 3, []string{`task "T": opcode "O"`}},
		{"taskval.man", strings.Replace(good, `<templates>`, `<tasks><task name="T" value="65536"/></tasks><templates>`, 1), 3, []string{`task "T"`}},
		{"deep.man", "<instrumentationManifest><instrumentation><events><provider name=\"D\" guid=\"{44444444-4444-4444-4444-444444444444}\"><templates><template tid=\"T\">" +
			strings.Repeat("<struct name=\"s\">", 10) + strings.Repeat("</struct>", 10) + "</template></templates></provider></events></instrumentation></instrumentationManifest>",
			1, []string{"structs nested deeper"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Parse(strings.NewReader(c.src), c.name)
			if err == nil {
				t.Fatalf("no error; manifest %+v", m)
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v is not *Error", err, err)
			}
			if pe.File != c.name || pe.Line != c.line {
				t.Errorf("error at %s:%d, want %s:%d (%v)", pe.File, pe.Line, c.name, c.line, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestMalformedXMLIsSyntaxError(t *testing.T) {
	_, err := Parse(strings.NewReader("<a>\n\n<b x=\"1\" y>\n</a>"), "bad.xml")
	var se *xml.SyntaxError
	var pe *Error
	if !errors.As(err, &se) || !errors.As(err, &pe) || pe.Line != 3 || se.Line != 3 {
		t.Fatalf("err = %v", err)
	}
	if !strings.HasPrefix(err.Error(), "bad.xml:3: malformed XML") {
		t.Errorf("error text %q", err)
	}
}

func TestNotManifest(t *testing.T) {
	// (<Providers> is a WEPExplorer export: see wepexplorer_test.go.)
	for _, src := range []string{"<WindowsPerformanceRecorder/>", "<?xml version=\"1.0\"?>\n<!-- c -->\n<events/>"} {
		_, err := Parse(strings.NewReader(src), "x.xml")
		if !errors.Is(err, ErrNotManifest) {
			t.Errorf("%q: err = %v, want ErrNotManifest", src, err)
		}
	}
	for _, src := range []string{"", "   ", "<!-- only a comment -->"} {
		_, err := Parse(strings.NewReader(src), "empty.xml")
		var pe *Error
		if !errors.As(err, &pe) || pe.File != "empty.xml" || errors.Is(err, ErrNotManifest) {
			t.Errorf("%q: err = %v", src, err)
		}
	}
	if _, err := ParseFile("/nonexistent/x.man"); err == nil {
		t.Error("ParseFile of a missing file succeeded")
	}
}

func TestReadError(t *testing.T) {
	_, err := Parse(failingReader{}, "r.man")
	var pe *Error
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "boom") {
		t.Errorf("err = %v", err)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("boom") }

func encodeUTF16(s string, bigEndian, bom bool) []byte {
	u := utf16.Encode([]rune(s))
	var b bytes.Buffer
	if bom {
		u = append([]uint16{0xFEFF}, u...)
	}
	for _, c := range u {
		if bigEndian {
			b.WriteByte(byte(c >> 8))
			b.WriteByte(byte(c))
		} else {
			b.WriteByte(byte(c))
			b.WriteByte(byte(c >> 8))
		}
	}
	return b.Bytes()
}

func TestEncodings(t *testing.T) {
	base := mustParse(t, fullManifest, "enc")
	utf16Decl := strings.Replace(fullManifest, `encoding="UTF-8"`, `encoding="UTF-16"`, 1)
	inputs := map[string][]byte{
		"utf-8 BOM":              append([]byte{0xEF, 0xBB, 0xBF}, fullManifest...),
		"utf-16le BOM":           encodeUTF16(utf16Decl, false, true),
		"utf-16be BOM":           encodeUTF16(utf16Decl, true, true),
		"utf-16le no BOM":        encodeUTF16(utf16Decl, false, false),
		"utf-16be no BOM":        encodeUTF16(utf16Decl, true, false),
		"utf-8 declared utf-16":  []byte(utf16Decl),
		"utf-8 declared ascii":   []byte(strings.Replace(fullManifest, `encoding="UTF-8"`, `encoding="us-ascii"`, 1)),
		"utf-16 declared latin1": encodeUTF16(strings.Replace(fullManifest, `encoding="UTF-8"`, `encoding="ISO-8859-1"`, 1), false, true),
	}
	for name, in := range inputs {
		m, err := Parse(bytes.NewReader(in), "enc")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !reflect.DeepEqual(m, base) {
			t.Errorf("%s: result differs from the UTF-8 parse", name)
		}
	}

	// Latin-1 bytes are transcoded.
	latin := []byte(strings.Replace(strings.Replace(fullManifest, `encoding="UTF-8"`, `encoding="ISO-8859-1"`, 1),
		`value="Test provider"`, "value=\"Caf\xe9\"", 1))
	m, err := Parse(bytes.NewReader(latin), "latin1")
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Providers[0].Message; got != "Café" {
		t.Errorf("latin-1 message = %q", got)
	}
	// Non-ASCII survives UTF-16.
	u := encodeUTF16(strings.Replace(utf16Decl, `value="Test provider"`, `value="Prüfung ✓ 𝄞"`, 1), false, true)
	if m, err := Parse(bytes.NewReader(u), "u16"); err != nil || m.Providers[0].Message != "Prüfung ✓ 𝄞" {
		t.Errorf("utf-16 non-ASCII: %v %q", err, m.Providers[0].Message)
	}
	// Odd-length UTF-16 and unsupported encodings are errors, not panics.
	if _, err := Parse(bytes.NewReader([]byte{0xFF, 0xFE, '<'}), "odd"); err == nil {
		t.Error("odd-length UTF-16 accepted")
	}
	if _, err := Parse(strings.NewReader(`<?xml version="1.0" encoding="EBCDIC"?><instrumentationManifest/>`), "ebcdic"); err == nil {
		t.Error("EBCDIC accepted")
	}
}

func TestTypeTables(t *testing.T) {
	// Every standard name tdh gives a manifest in-type (1–25 but 24) and
	// out-type (1–38) is accepted back; the MOF-only trace: names are not
	// manifest spellings.
	for v := tdh.InType(1); v <= 25; v++ {
		name := v.String()
		if v == inTypeReserved24 {
			if got, ok := InTypeByName(name); ok {
				t.Errorf("InTypeByName(%q) = %d, want unknown", name, got)
			}
			continue
		}
		if got, ok := InTypeByName(name); !ok || got != v {
			t.Errorf("InTypeByName(%q) = %d %v, want %d", name, got, ok, v)
		}
	}
	for v := tdh.OutType(1); v <= 38; v++ {
		name := v.String()
		if got, ok := OutTypeByName(name); !ok || got != v {
			t.Errorf("OutTypeByName(%q) = %d %v, want %d", name, got, ok, v)
		}
	}
	aliases := map[string]tdh.InType{
		"win:SizeT": 308, "win:WString": 1, "win:String": 2, "win:WChar": 306, "win:SInt8": 3, "win:SInt16": 5,
		"win:SInt32": 7, "win:SInt64": 9, "win:IPAddrV4": 8, "win:IPAddrV6": 14, "win:CountedUtf16String": 22,
		"win:CountedMbcsString": 23, "win:Struct": 24, "win:33": 33, "win:8": 8, "trace:SizeT": 308,
		"trace:WBEMSid": 310, "xs:uint32": 8, " win:UInt32 ": 8,
	}
	for name, want := range aliases {
		if got, ok := InTypeByName(name); !ok || got != want {
			t.Errorf("InTypeByName(%q) = %d %v, want %d", name, got, ok, want)
		}
	}
	for _, bad := range []string{"", "win:", "win:Nope", "UnicodeStrin", "win:70000", "win:-1", "win:Null",
		"trace:CountedString", "trace:UnicodeChar"} {
		if v, ok := InTypeByName(bad); ok {
			t.Errorf("InTypeByName(%q) = %d, want unknown", bad, v)
		}
	}
	outAliases := map[string]tdh.OutType{"xs:HexInt32": 18, "xs:HexInt64": 19, "win:NTStatus": 31, "win:18": 18, "win:301": 301}
	for name, want := range outAliases {
		if got, ok := OutTypeByName(name); !ok || got != want {
			t.Errorf("OutTypeByName(%q) = %d %v, want %d", name, got, ok, want)
		}
	}
	for _, bad := range []string{"xs:nothing", "", "trace:NoPrint"} {
		if v, ok := OutTypeByName(bad); ok {
			t.Errorf("OutTypeByName(%q) = %d, want unknown", bad, v)
		}
	}
	// Raw numbers are suspect unless they are a manifest type.
	for name, suspect := range map[string]bool{"win:8": false, "win:25": false, "win:24": true, "win:33": true,
		"win:306": true, "win:0": true, "win:Struct": true, "win:WChar": false} {
		if s, ok := lookupInType(name); !ok || s.suspect != suspect {
			t.Errorf("lookupInType(%q) = %+v %v, want suspect %v", name, s, ok, suspect)
		}
	}
	// Lengths and counts come from integers, not from pointers or booleans
	// (which tdh's IsInteger accepts).
	for in, want := range map[tdh.InType]bool{tdh.InTypeUInt16: true, tdh.InTypeSizeT: true, tdh.InTypeHexInt64: true,
		tdh.InTypeBinary: false, tdh.InTypePointer: false, tdh.InTypeBoolean: false, tdh.InTypeUnicodeString: false} {
		if got := isLengthInType(in); got != want {
			t.Errorf("isLengthInType(%v) = %v", in, got)
		}
	}
}

func TestPredefined(t *testing.T) {
	m := mustParse(t, plainManifest, "plain")
	p := m.Providers[0]
	// The predefined tables are copies: changing them changes nothing.
	l := PredefinedLevels()
	l[4].Message = "changed"
	if lv, _ := p.LevelByValue(4); lv.Message != "Information" {
		t.Error("PredefinedLevels returned the internal table")
	}
	if len(PredefinedLevels()) != 16 || len(PredefinedOpcodes()) != 26 || len(PredefinedKeywords()) != 18 ||
		len(PredefinedTasks()) != 1 || len(PredefinedChannels()) != 6 {
		t.Errorf("predefined sizes %d %d %d %d %d", len(PredefinedLevels()), len(PredefinedOpcodes()),
			len(PredefinedKeywords()), len(PredefinedTasks()), len(PredefinedChannels()))
	}
	want := map[string]uint64{"win:ResponseTime": 1 << 48, "win:ReservedKeyword49": 1 << 49, "win:EventlogClassic": 1 << 55,
		"win:ReservedKeyword63": 1 << 63, "win:AnyKeyword": 0}
	for _, k := range PredefinedKeywords() {
		if v, ok := want[k.Name]; ok && v != k.Value {
			t.Errorf("%s = %#x", k.Name, k.Value)
		}
	}
	ch := map[string]uint8{}
	for _, c := range PredefinedChannels() {
		ch[c.Name] = c.Value
	}
	if !reflect.DeepEqual(ch, map[string]uint8{"TraceClassic": 0, "System": 8, "Application": 9, "Security": 10,
		"TraceLogging": 11, "ProviderMetadata": 12}) {
		t.Errorf("channels %v", ch)
	}
	if o, ok := p.OpcodeByValue(0, 1); !ok || o.Name != "win:Start" || o.Message != "Start" {
		t.Errorf("opcode 1 = %+v", o)
	}
}

func TestWarningCap(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<instrumentationManifest><instrumentation><events><provider name="P" guid="{44444444-4444-4444-4444-444444444444}"><events>`)
	for i := 0; i < maxWarnings+5; i++ {
		fmt.Fprintf(&b, `<event value="%d" task="Nope"/>`, i)
	}
	b.WriteString(`</events></provider></events></instrumentation></instrumentationManifest>`)
	m := mustParse(t, b.String(), "many")
	if len(m.Warnings) != maxWarnings+1 || !strings.Contains(m.Warnings[maxWarnings], "and 5 more warnings") {
		t.Errorf("warnings = %d, last %q", len(m.Warnings), m.Warnings[len(m.Warnings)-1])
	}
}

func TestStructTolerance(t *testing.T) {
	// An empty struct is still a struct; UserData and <binary> are skipped.
	src := strings.Replace(plainManifest, `<data name="A" inType="win:Int16"/>`,
		`<struct name="E"></struct><binary name="x"/><UserData><A>%1</A></UserData>`, 1)
	m := mustParse(t, src, "s")
	f := m.Providers[0].Templates["T"].Fields
	if len(f) != 1 || !f[0].IsStruct() || len(f[0].Struct) != 0 {
		t.Errorf("fields = %+v", f)
	}
}

// TestLargeInputsLinear parses inputs with 20000 levels, map entries,
// structs and length references. Each used to hit a quadratic path (one
// took 43 s); now each takes milliseconds, so the budget is generous.
func TestLargeInputsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("large inputs")
	}
	const n = 20000
	gen := func(pre, item, post string) string {
		var b strings.Builder
		b.WriteString(`<instrumentationManifest><instrumentation><events><provider name="P" guid="{44444444-4444-4444-4444-444444444444}">` + pre)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, item, i+1)
		}
		b.WriteString(post + `</provider></events></instrumentation></instrumentationManifest>`)
		return b.String()
	}
	tpl := "<templates><template tid='t'><data name='F0' inType='win:UInt8'/>"
	inputs := []string{
		gen("<levels>", `<level name="L%d" value="1"/>`, "</levels>"),
		gen("<maps><valueMap name='m'>", `<map value="%d"/>`, "</valueMap></maps>"),
		gen(tpl, `<data name="F%d" inType="win:UInt8" count="F 0"/>`, "</template></templates>"),
		gen(tpl, `<struct name="S%d"><data name="x" inType="win:UInt8" length="F0"/></struct>`, "</template></templates>"),
		gen("<tasks><task name='x' value='1'/></tasks><events>", `<event value="%d" task="task_1" keywords="a b c"/>`, "</events>"),
	}
	start := time.Now()
	for _, in := range inputs {
		if _, err := Parse(strings.NewReader(in), "large"); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("large inputs took %v", d)
	}
}

func TestNonIntegerReferenceWarns(t *testing.T) {
	src := strings.Replace(plainManifest, `<data name="A" inType="win:Int16"/>`,
		`<data name="S" inType="win:UnicodeString"/><data name="A" inType="win:Binary" length="S"/>`+
			`<data name="N" inType="win:UInt32"/><data name="B" inType="win:Int16" count="N"/>`, 1)
	m := mustParse(t, src, "nonint.man")
	if !containsWarning(m.Warnings, `field "A": length field "S" is not a single integer`) {
		t.Errorf("warnings = %v", m.Warnings)
	}
	if containsWarning(m.Warnings, `field "B"`) {
		t.Errorf("integer count field reported: %v", m.Warnings)
	}
	if f := m.Providers[0].Templates["T"].Fields[1]; f.LengthIndex != 0 {
		t.Errorf("LengthIndex = %d", f.LengthIndex)
	}
}
