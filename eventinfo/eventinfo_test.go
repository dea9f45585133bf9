package eventinfo_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/eventinfo"
	"github.com/etwkit/etw/tdh"
)

var (
	provA  = uuid.MustParse("4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac")
	provB  = uuid.MustParse("11111111-2222-3333-4444-555555555555")
	classG = uuid.MustParse("9e814aad-3204-11d2-9a82-006008a86939")
)

// manifestEvent is a manifest-based TRACE_EVENT_INFO using every property
// flag but Struct (see structEvent).
func manifestEvent() *tei {
	return &tei{
		provider: provA, id: 70, version: 2, channel: 16, level: 4, opcode: 12, task: 7, keyword: 0x8000000000000012,
		source:       srcManifest,
		providerName: "Microsoft-Windows-Test", levelName: "Information ", channelName: "Test/Operational ",
		taskName: "Rundown ", opcodeName: "Info ", message: "Component %1, %2 = %4 ", eventName: "PropertyEvent",
		providerMessage: "Test provider ",
		keywords:        []string{"Rundown ", "Payload "},
		flags:           0x1 | 0x123<<4,
		top:             -1,
		props: []teiProp{
			{name: "ComponentId", in: 6, out: 6, count: 1, length: 2},                                                  // 0
			{name: "Type", in: 6, out: 6, count: 1, length: 2, mapName: "PropertyType"},                                // 1
			{name: "Size", in: 8, out: 8, count: 1, length: 4},                                                         // 2
			{name: "Value", flags: fParamLength, in: 14, out: 15, count: 1, length: 2},                                 // 3
			{name: "Ptr", in: 16, out: 19, count: 1, length: 4},                                                        // 4
			{name: "Name", in: 1, out: 1, count: 1, length: 0},                                                         // 5
			{name: "Fixed", flags: fParamFixedLength, in: 1, out: 1, count: 1, length: 3},                              // 6
			{name: "Addr", flags: fParamFixedLength, in: 14, out: 24, count: 1, length: 16},                            // 7
			{name: "Pair", in: 8, out: 8, count: 2, length: 4},                                                         // 8
			{name: "One", flags: fParamFixedCount, in: 8, out: 8, count: 1, length: 4},                                 // 9
			{name: "Counted", flags: fParamCount, in: 6, out: 6, count: 2, length: 2},                                  // 10
			{name: "Tagged", flags: fHasTags | fWBEMXmlFragment, in: 4, out: 4, count: 1, length: 1, tags: 0xF0000ABC}, // 11
			{name: "Custom", flags: fHasCustomSchema, in: 14, out: 15, count: 1, length: 4, mapOff: 112},               // 12
			{name: "Chars", flags: fParamFixedLength, in: 306, out: 1, count: 1, length: 4},                            // 13
			{name: "Char", in: 307, out: 1, count: 1, length: 1},                                                       // 14
		},
	}
}

func TestParseEventInfo(t *testing.T) {
	ev, err := eventinfo.ParseEventInfo(manifestEvent().bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := &tdh.Event{
		Source: tdh.SourceManifest, ProviderName: "Microsoft-Windows-Test", ProviderGUID: provA,
		ID: 70, Version: 2, Level: 4, Opcode: 12, Task: 7, Keywords: 0x8000000000000012, Channel: 16,
		EventName: "PropertyEvent", TaskName: "Rundown", OpcodeName: "Info", LevelName: "Information",
		ChannelName: "Test/Operational", KeywordNames: []string{"Rundown", "Payload"},
		Message: "Component %1, %2 = %4", Tags: 0x123,
		Properties: []tdh.Property{
			{Name: "ComponentId", InType: tdh.InTypeUInt16, OutType: tdh.OutTypeUnsignedShort, LengthIndex: -1, CountIndex: -1},
			{Name: "Type", InType: tdh.InTypeUInt16, OutType: tdh.OutTypeUnsignedShort, LengthIndex: -1, CountIndex: -1,
				Map: &tdh.Map{Name: "PropertyType"}},
			{Name: "Size", InType: tdh.InTypeUInt32, OutType: tdh.OutTypeUnsignedInt, LengthIndex: -1, CountIndex: -1},
			{Name: "Value", InType: tdh.InTypeBinary, OutType: tdh.OutTypeHexBinary, LengthIndex: 2, CountIndex: -1},
			{Name: "Ptr", InType: tdh.InTypePointer, OutType: tdh.OutTypeHexInt64, LengthIndex: -1, CountIndex: -1},
			{Name: "Name", InType: tdh.InTypeUnicodeString, OutType: tdh.OutTypeString, LengthIndex: -1, CountIndex: -1},
			{Name: "Fixed", InType: tdh.InTypeUnicodeString, OutType: tdh.OutTypeString, Length: 3, LengthIndex: -1, CountIndex: -1},
			{Name: "Addr", InType: tdh.InTypeBinary, OutType: tdh.OutTypeIPv6, Length: 16, LengthIndex: -1, CountIndex: -1},
			{Name: "Pair", InType: tdh.InTypeUInt32, OutType: tdh.OutTypeUnsignedInt, Count: 2, IsArray: true, LengthIndex: -1, CountIndex: -1},
			{Name: "One", InType: tdh.InTypeUInt32, OutType: tdh.OutTypeUnsignedInt, Count: 1, IsArray: true, LengthIndex: -1, CountIndex: -1},
			{Name: "Counted", InType: tdh.InTypeUInt16, OutType: tdh.OutTypeUnsignedShort, IsArray: true, LengthIndex: -1, CountIndex: 2},
			{Name: "Tagged", InType: tdh.InTypeUInt8, OutType: tdh.OutTypeUnsignedByte, Tags: 0x0000ABC, LengthIndex: -1, CountIndex: -1},
			{Name: "Custom", InType: tdh.InTypeBinary, OutType: tdh.OutTypeHexBinary, Length: 4, LengthIndex: -1, CountIndex: -1},
			{Name: "Chars", InType: tdh.InTypeUnicodeChar, OutType: tdh.OutTypeString, Length: 4, LengthIndex: -1, CountIndex: -1},
			{Name: "Char", InType: tdh.InTypeAnsiChar, OutType: tdh.OutTypeString, LengthIndex: -1, CountIndex: -1},
		},
	}
	if !reflect.DeepEqual(ev, want) {
		for i := range want.Properties {
			if i < len(ev.Properties) && !reflect.DeepEqual(ev.Properties[i], want.Properties[i]) {
				t.Errorf("property %d:\n got %+v\nwant %+v", i, ev.Properties[i], want.Properties[i])
			}
		}
		g, w := *ev, *want
		g.Properties, w.Properties = nil, nil
		t.Fatalf("schema:\n got %+v\nwant %+v", g, w)
	}

	// The schema decodes a payload laid out by it, whatever the pointer size.
	for _, ptr := range []int{4, 8} {
		p := payload(nil).u16(5).u16(6).u32(3).u8(0xAA).u8(0xBB).u8(0xCC)
		if ptr == 4 {
			p = p.u32(0x1234)
		} else {
			p = p.u64(0x1234)
		}
		p = p.wstr("nm")
		p = append(p, utf16z("abc")[:6]...)
		p = append(p, 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)
		p = p.u32(10).u32(11).u32(12).u16(1).u16(2).u16(3).u8(9).u8(1).u8(2).u8(3).u8(4)
		p = append(p, utf16z("wxyz")[:8]...)
		p = append(p, 'q')
		var dec tdh.Decoder
		d, err := dec.Decode(ev, p, ptr)
		if err != nil || len(d.Extra) != 0 {
			t.Fatalf("pointer size %d: decode: %v, %d bytes left", ptr, err, len(d.Extra))
		}
		got := string(tdh.AppendPropertiesJSON(nil, d))
		const wantJSON = `{"ComponentId":5,"Type":6,"Size":3,"Value":"AABBCC","Ptr":"0x1234","Name":"nm","Fixed":"abc",` +
			`"Addr":"fe80::1","Pair":[10,11],"One":[12],"Counted":[1,2,3],"Tagged":9,"Custom":"01020304","Chars":"wxyz","Char":"q"}`
		if got != wantJSON {
			t.Errorf("pointer size %d:\n got %s\nwant %s", ptr, got, wantJSON)
		}
		msg := tdh.FormatMessage(ev.Message, d, nil)
		if msg != "Component 5, 6 = 0xAABBCC" {
			t.Errorf("message %q", msg)
		}
	}
}

// structEvent is a BulkType-like event: a top-level count, then an array
// of structs whose members include a counted array and a nested struct.
func structEvent() *tei {
	return &tei{
		provider: provA, id: 15, source: srcManifest, providerName: "P", top: 3,
		props: []teiProp{
			{name: "Count", in: 8, out: 8, count: 1, length: 4},                        // 0
			{name: "Values", flags: fStruct | fParamCount, in: 4, out: 4, count: 0},    // 1: members 4..7, count = #0
			{name: "Tail", in: 6, out: 6, count: 1, length: 2},                         // 2
			{name: "Pad", in: 4, out: 4, count: 1, length: 1},                          // 3: unused entry
			{name: "TypeID", in: 10, out: 19, count: 1, length: 8},                     // 4
			{name: "ParamCount", in: 8, out: 8, count: 1, length: 4},                   // 5
			{name: "Params", flags: fParamCount, in: 10, out: 19, count: 5, length: 8}, // 6: count = #5 → member 1
			{name: "Inner", flags: fStruct, in: 8, out: 2, count: 1},                   // 7: members 8..9
			{name: "A", in: 4, out: 4, count: 1, length: 1},                            // 8
			{name: "S", flags: fParamLength, in: 2, out: 1, count: 1, length: 8},       // 9: length = #8 → member 0
		},
	}
}

func TestParseEventInfoStructs(t *testing.T) {
	b := structEvent().bytes()
	ev, err := eventinfo.ParseEventInfo(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Properties) != 3 {
		t.Fatalf("%d top-level properties", len(ev.Properties))
	}
	v := ev.Properties[1]
	if !v.IsStruct() || !v.IsArray || v.CountIndex != 0 || len(v.Members) != 4 {
		t.Fatalf("Values: %+v", v)
	}
	if m := v.Members[2]; m.Name != "Params" || !m.IsArray || m.CountIndex != 1 {
		t.Errorf("Params: %+v", m)
	}
	in := v.Members[3]
	if !in.IsStruct() || in.IsArray || len(in.Members) != 2 || in.Members[1].LengthIndex != 0 || in.Members[1].Name != "S" {
		t.Errorf("Inner: %+v", in)
	}
	p := payload(nil).u32(2).
		u64(0x10).u32(1).u64(0xA).u8(2).u8('h').u8('i').
		u64(0x20).u32(2).u64(0xB).u64(0xC).u8(0).
		u16(7)
	var dec tdh.Decoder
	d, err := dec.Decode(ev, p, 8)
	if err != nil || len(d.Extra) != 0 {
		t.Fatalf("decode: %v, %d bytes left", err, len(d.Extra))
	}
	got := string(tdh.AppendPropertiesJSON(nil, d))
	const want = `{"Count":2,"Values":[{"TypeID":"0x10","ParamCount":1,"Params":["0xA"],"Inner":{"A":2,"S":"hi"}},` +
		`{"TypeID":"0x20","ParamCount":2,"Params":["0xB","0xC"],"Inner":{"A":0,"S":""}}],"Tail":7}`
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

func TestParseEventInfoMOF(t *testing.T) {
	b := (&tei{
		provider: provB, eventGUID: classG, id: 0, version: 3, opcode: 10, source: srcWbem,
		providerName: "MSNT_SystemTrace", taskName: "Process ", opcodeName: "Start ", message: "Process %1 ",
		eventName: "ActivityIdName", top: -1,
		props: []teiProp{{name: "ProcessId", in: 8, out: 20, count: 1, length: 4, mapName: "M"}},
	}).bytes()
	ev, err := eventinfo.ParseEventInfo(b)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Source != tdh.SourceMOF || ev.ProviderGUID != classG || ev.ID != 10 || ev.Opcode != 10 || ev.Version != 3 {
		t.Errorf("MOF key: %v %v id %d opcode %d version %d", ev.Source, ev.ProviderGUID, ev.ID, ev.Opcode, ev.Version)
	}
	// MOF strings are not message-table strings: kept as they are; the
	// event name is the class, not ActivityIDNameOffset's string.
	if ev.EventName != "Process " || ev.TaskName != "Process " || ev.OpcodeName != "Start " || ev.Message != "Process %1 " {
		t.Errorf("MOF names: %q %q %q %q", ev.EventName, ev.TaskName, ev.OpcodeName, ev.Message)
	}
}

func TestParseEventInfoTraceLogging(t *testing.T) {
	ev, err := eventinfo.ParseEventInfo((&tei{provider: provB, source: srcTraceLogging, taskName: "MyEvent", top: -1}).bytes())
	if err != nil {
		t.Fatal(err)
	}
	if ev.Source != tdh.SourceTraceLogging || ev.EventName != "MyEvent" || ev.ProviderGUID != provB {
		t.Errorf("%+v", ev)
	}
}

// A string of fixed length 0 decodes no byte and renders empty.
func TestParseEventInfoEmptyFixedString(t *testing.T) {
	for _, in := range []uint16{1, 2} {
		b := (&tei{provider: provA, source: srcManifest, top: -1, props: []teiProp{
			{name: "Empty", flags: fParamFixedLength, in: in, out: 1, count: 1, length: 0},
			{name: "After", in: 6, out: 6, count: 1, length: 2},
		}}).bytes()
		ev, err := eventinfo.ParseEventInfo(b)
		if err != nil {
			t.Fatal(err)
		}
		var dec tdh.Decoder
		d, err := dec.Decode(ev, payload(nil).u16(42), 8)
		if err != nil || len(d.Extra) != 0 {
			t.Fatalf("in-type %d: %v, %d left", in, err, len(d.Extra))
		}
		if got := string(tdh.AppendPropertiesJSON(nil, d)); got != `{"Empty":"","After":42}` {
			t.Errorf("in-type %d: %s", in, got)
		}
		if got := string(tdh.AppendText(nil, d, &d.Values[0], nil)); got != "" {
			t.Errorf("in-type %d: text %q", in, got)
		}
	}
}

func TestParseEventInfoErrors(t *testing.T) {
	base := func(props ...teiProp) *tei {
		return &tei{provider: provA, source: srcManifest, providerName: "P", top: -1, props: props}
	}
	u32p := func(name string) teiProp { return teiProp{name: name, in: 8, out: 8, count: 1, length: 4} }
	cases := []struct {
		name   string
		blob   func() []byte
		reason error
		offset int
		field  string
	}{
		{"short fixed part", func() []byte { return base().bytes()[:100] }, eventinfo.ErrTruncated, 100, "TRACE_EVENT_INFO"},
		{"property count beyond payload", func() []byte { t := base(u32p("a")); t.rawCount = 1000; return t.bytes() },
			eventinfo.ErrTruncated, 100, "TRACE_EVENT_INFO.PropertyCount"},
		{"huge property count", func() []byte { t := base(); t.rawCount = 0x7FFFFFFF; return t.bytes() },
			eventinfo.ErrTruncated, 100, "TRACE_EVENT_INFO.PropertyCount"},
		{"top level above count", func() []byte { t := base(u32p("a")); t.top = 2; return t.bytes() },
			eventinfo.ErrBadStruct, 104, "TRACE_EVENT_INFO.TopLevelPropertyCount"},
		{"unknown decoding source", func() []byte { t := base(); t.source = 4; return t.bytes() },
			eventinfo.ErrUnsupported, 48, "TRACE_EVENT_INFO.DecodingSource"},
		{"provider name outside", func() []byte { t := base(); t.rawOffsets = map[int]uint32{52: 5000}; return t.bytes() },
			eventinfo.ErrBadOffset, 52, "TRACE_EVENT_INFO.ProviderNameOffset"},
		{"string without NUL", func() []byte {
			t := base()
			t.trailing = []byte{'x', 0, 'y', 0}        // after "P\0" at 112
			t.rawOffsets = map[int]uint32{76: 112 + 6} // "y", the last character
			return t.bytes()
		}, eventinfo.ErrBadOffset, 76, "TRACE_EVENT_INFO.EventMessageOffset"},
		{"property name outside", func() []byte { return base(teiProp{nameOff: 0xFFFFFFF0, in: 8, out: 8, count: 1}).bytes() },
			eventinfo.ErrBadOffset, 112 + 4, "EventPropertyInfoArray[0].NameOffset"},
		{"map name outside", func() []byte { return base(teiProp{name: "a", in: 8, mapOff: 0x10000, count: 1}).bytes() },
			eventinfo.ErrBadOffset, 112 + 12, "EventPropertyInfoArray[0].MapNameOffset"},
		{"unknown in-type", func() []byte { return base(teiProp{name: "a", in: 24, count: 1}).bytes() },
			eventinfo.ErrUnsupported, 112 + 8, "EventPropertyInfoArray[0].InType"},
		{"struct members outside", func() []byte {
			t := base(teiProp{name: "s", flags: fStruct, in: 1, out: 5, count: 1}, u32p("m"))
			t.top = 1
			return t.bytes()
		}, eventinfo.ErrBadStruct, 112 + 8, "EventPropertyInfoArray[0].StructStartIndex"},
		{"struct members among top level", func() []byte {
			return base(u32p("a"), teiProp{name: "s", flags: fStruct, in: 0, out: 1, count: 1}).bytes()
		}, eventinfo.ErrBadStruct, 112 + 24 + 8, "EventPropertyInfoArray[1].StructStartIndex"},
		{"struct containing itself", func() []byte {
			t := base(teiProp{name: "s", flags: fStruct, in: 1, out: 1, count: 1}, teiProp{name: "t", flags: fStruct, in: 1, out: 1, count: 1})
			t.top = 1
			return t.bytes()
		}, eventinfo.ErrBadStruct, 112 + 24 + 8, "EventPropertyInfoArray[1].StructStartIndex"},
		{"two structs sharing members", func() []byte {
			t := base(teiProp{name: "s", flags: fStruct, in: 2, out: 1, count: 1}, teiProp{name: "t", flags: fStruct, in: 2, out: 1, count: 1}, u32p("m"))
			t.top = 2
			return t.bytes()
		}, eventinfo.ErrBadStruct, 112 + 24 + 8, "EventPropertyInfoArray[1].StructStartIndex"},
		{"structs nested too deep", func() []byte {
			var props []teiProp
			for i := 0; i < 40; i++ {
				props = append(props, teiProp{name: "s", flags: fStruct, in: uint16(i + 1), out: 1, count: 1})
			}
			props = append(props, u32p("leaf"))
			t := base(props...)
			t.top = 1
			return t.bytes()
		}, eventinfo.ErrBadStruct, 112 + 24*32, "EventPropertyInfoArray[32].Flags"},
		{"count from a later property", func() []byte {
			return base(teiProp{name: "a", flags: fParamCount, in: 8, out: 8, count: 1}, u32p("n")).bytes()
		}, tdh.ErrBadReference, 112 + 16, "EventPropertyInfoArray[0].countPropertyIndex"},
		{"count from itself", func() []byte {
			return base(teiProp{name: "a", flags: fParamCount, in: 8, out: 8, count: 0}).bytes()
		}, tdh.ErrBadReference, 112 + 16, "EventPropertyInfoArray[0].countPropertyIndex"},
		{"count from a nonexistent property", func() []byte {
			return base(u32p("n"), teiProp{name: "a", flags: fParamCount, in: 8, out: 8, count: 9}).bytes()
		}, tdh.ErrBadReference, 112 + 24 + 16, "EventPropertyInfoArray[1].countPropertyIndex"},
		{"length from a string", func() []byte {
			return base(teiProp{name: "s", in: 1, out: 1, count: 1}, teiProp{name: "b", flags: fParamLength, in: 14, count: 1, length: 0}).bytes()
		}, tdh.ErrBadReference, 112 + 24 + 18, "EventPropertyInfoArray[1].lengthPropertyIndex"},
		{"length from an array", func() []byte {
			return base(teiProp{name: "n", in: 8, out: 8, count: 2}, teiProp{name: "b", flags: fParamLength, in: 14, count: 1, length: 0}).bytes()
		}, tdh.ErrBadReference, 112 + 24 + 18, "EventPropertyInfoArray[1].lengthPropertyIndex"},
		{"member count from the top level", func() []byte {
			t := base(u32p("n"), teiProp{name: "s", flags: fStruct, in: 2, out: 1, count: 1},
				teiProp{name: "a", flags: fParamCount, in: 8, out: 8, count: 0})
			t.top = 2
			return t.bytes()
		}, tdh.ErrOuterReference, 112 + 48 + 16, "EventPropertyInfoArray[2].countPropertyIndex"},
		{"top-level count from a member", func() []byte {
			t := base(teiProp{name: "s", flags: fStruct, in: 2, out: 1, count: 1},
				teiProp{name: "a", flags: fParamCount, in: 8, out: 8, count: 2}, u32p("m"))
			t.top = 2
			return t.bytes()
		}, tdh.ErrOuterReference, 112 + 24 + 16, "EventPropertyInfoArray[1].countPropertyIndex"},
		{"binary of fixed length 0", func() []byte {
			return base(teiProp{name: "b", flags: fParamFixedLength, in: 14, out: 15, count: 1, length: 0}).bytes()
		}, eventinfo.ErrUnsupported, 112 + 18, "EventPropertyInfoArray[0].length"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev, err := eventinfo.ParseEventInfo(c.blob())
			if err == nil {
				t.Fatalf("no error; schema %+v", ev)
			}
			if !errors.Is(err, c.reason) {
				t.Errorf("error %v is not %v", err, c.reason)
			}
			var fe *eventinfo.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T is not a *FormatError", err)
			}
			if fe.Offset != c.offset || fe.Field != c.field {
				t.Errorf("error at %d (%s), want %d (%s): %v", fe.Offset, fe.Field, c.offset, c.field, err)
			}
			if !strings.Contains(err.Error(), "payload offset") {
				t.Errorf("error text %q", err)
			}
		})
	}
}

func TestParseMapInfo(t *testing.T) {
	type entry = tdh.MapEntry
	me := func(v uint64, s string) entry { return entry{Value: v, Message: s} }
	cases := []struct {
		name string
		m    emi
		kind tdh.MapKind
		want []entry
	}{
		{"manifest value map", emi{flag: mManifestValueMap, entries: []emiEntry{{"Out ", 2, ""}, {"In ", 1, ""}, {"None ", 0, ""}}},
			tdh.ValueMap, []entry{me(0, "None"), me(1, "In"), me(2, "Out")}},
		{"manifest bit map", emi{flag: mManifestBitMap, entries: []emiEntry{{"Native ", 2, ""}, {"DomainNeutral ", 1, ""}}},
			tdh.BitMap, []entry{me(1, "DomainNeutral"), me(2, "Native")}},
		{"WBEM value map", emi{flag: mWBEMValueMap, entries: []emiEntry{{"Five ", 5, ""}, {"Three", 3, ""}}},
			tdh.ValueMap, []entry{me(3, "Three"), me(5, "Five ")}},
		{"WBEM value map, string values", emi{flag: mWBEMValueMap, valueType: 1, entries: []emiEntry{
			{"One", 0, "1"}, {"Minus", 0, "-1"}, {"Hex", 0, "0x10"}, {"Range", 0, "2..4"}}},
			tdh.ValueMap, []entry{me(1, "One"), me(0x10, "Hex"), me(0xFFFFFFFF, "Minus")}},
		{"WBEM flag value map", emi{flag: mWBEMValueMap | mWBEMFlag, entries: []emiEntry{{"B", 4, ""}, {"A", 1, ""}}},
			tdh.BitMap, []entry{me(1, "A"), me(4, "B")}},
		{"WBEM values without value map", emi{flag: mWBEMValueMap | mWBEMNoMap, entries: []emiEntry{{"Zero", 77, ""}, {"One", 77, ""}}},
			tdh.IndexMap, []entry{me(0, "Zero"), me(1, "One")}},
		{"WBEM flags without value map", emi{flag: mWBEMValueMap | mWBEMFlag | mWBEMNoMap, entries: []emiEntry{{"Bit0", 0, ""}, {"Bit1", 0, ""}}},
			tdh.FlagMap, []entry{me(1, "Bit0"), me(2, "Bit1")}},
		{"WBEM bit map", emi{flag: mWBEMBitMap, entries: []emiEntry{{"X", 8, ""}, {"Y", 1, ""}}},
			tdh.BitMap, []entry{me(1, "Y"), me(8, "X")}},
		{"WBEM bit values without bit map", emi{flag: mWBEMBitMap | mWBEMNoMap, entries: []emiEntry{{"Read", 0, ""}, {"Write", 0, ""}, {"Exec", 0, ""}}},
			tdh.BitMap, []entry{me(1, "Read"), me(2, "Write"), me(4, "Exec")}},
		{"empty map", emi{flag: mManifestValueMap}, tdh.ValueMap, []entry{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.m.provider, c.m.name = provB, "TheMap"
			prov, m, err := eventinfo.ParseMapInfo(c.m.bytes())
			if err != nil {
				t.Fatal(err)
			}
			if prov != provB || m.Name != "TheMap" || m.Kind != c.kind || !reflect.DeepEqual(m.Entries, c.want) {
				t.Errorf("got %v %q kind %d %v\nwant kind %d %v", prov, m.Name, m.Kind, m.Entries, c.kind, c.want)
			}
		})
	}

	// Rendering with a bound bit map.
	_, bm, _ := eventinfo.ParseMapInfo((&emi{provider: provB, name: "F", flag: mManifestBitMap,
		entries: []emiEntry{{"A ", 1, ""}, {"B ", 2, ""}}}).bytes())
	ev := &tdh.Event{Properties: []tdh.Property{{Name: "f", InType: tdh.InTypeUInt32, Map: bm, LengthIndex: -1, CountIndex: -1}}}
	var dec tdh.Decoder
	d, _ := dec.Decode(ev, payload(nil).u32(7), 8)
	if got := string(tdh.AppendText(nil, d, &d.Values[0], nil)); got != "A | B | 0x4" {
		t.Errorf("bit map text %q", got)
	}

	errCases := []struct {
		name   string
		blob   func() []byte
		reason error
		offset int
		field  string
	}{
		{"short", func() []byte { return (&emi{name: "m", flag: 1}).bytes()[:20] }, eventinfo.ErrTruncated, 20, "EVENT_MAP_INFO"},
		{"entry count beyond payload", func() []byte { return (&emi{name: "m", flag: 1, rawCount: 100}).bytes() },
			eventinfo.ErrTruncated, 16 + 8, "EVENT_MAP_INFO.EntryCount"},
		{"huge entry count", func() []byte { return (&emi{name: "m", flag: 1, rawCount: 0x7FFFFFFF}).bytes() },
			eventinfo.ErrTruncated, 16 + 8, "EVENT_MAP_INFO.EntryCount"},
		{"pattern map", func() []byte { return (&emi{name: "m", flag: mManifestPatternMap}).bytes() },
			eventinfo.ErrUnsupported, 16 + 4, "EVENT_MAP_INFO.Flag"},
		{"unknown flags", func() []byte { return (&emi{name: "m", flag: mWBEMFlag}).bytes() },
			eventinfo.ErrUnsupported, 16 + 4, "EVENT_MAP_INFO.Flag"},
		{"name outside", func() []byte {
			b := (&emi{name: "m", flag: 1}).bytes()
			b[16], b[17] = 0xFF, 0x7F
			return b
		}, eventinfo.ErrBadOffset, 16, "EVENT_MAP_INFO.NameOffset"},
		{"entry text outside", func() []byte {
			b := (&emi{name: "m", flag: 1, entries: []emiEntry{{"x", 1, ""}}}).bytes()
			b[32], b[33] = 0xFF, 0x7F
			return b
		}, eventinfo.ErrBadOffset, 32, "MapEntryArray[0].OutputOffset"},
		{"string value outside", func() []byte {
			b := (&emi{name: "m", flag: mWBEMValueMap, valueType: 1, entries: []emiEntry{{"x", 0xFFFF, ""}}}).bytes()
			return b
		}, eventinfo.ErrBadOffset, 36, "MapEntryArray[0].InputOffset"},
	}
	for _, c := range errCases {
		t.Run(c.name, func(t *testing.T) {
			_, m, err := eventinfo.ParseMapInfo(c.blob())
			var fe *eventinfo.FormatError
			if !errors.As(err, &fe) || !errors.Is(err, c.reason) {
				t.Fatalf("error %v (map %+v), want a %v", err, m, c.reason)
			}
			if fe.Offset != c.offset || fe.Field != c.field {
				t.Errorf("error at %d (%s), want %d (%s): %v", fe.Offset, fe.Field, c.offset, c.field, err)
			}
		})
	}
}
