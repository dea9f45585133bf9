package eventinfo_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/eventinfo"
	"github.com/etwkit/etw/tdh"
)

// metaEvent wraps a payload in the etl.Event a reader delivers for a
// MetaData event.
func metaEvent(opcode uint8, b []byte) *etl.Event {
	return &etl.Event{
		Header: etl.HeaderClassic64, Flags: etl.FlagClassicHeader | etl.Flag64BitHeader,
		ProviderID: eventinfo.MetadataGUID, Descriptor: etl.EventDescriptor{Opcode: opcode}, UserData: b,
	}
}

func typedEvent(id uint16, mapName string) *tei {
	return &tei{provider: provA, id: id, source: srcManifest, providerName: "P", top: 2, props: []teiProp{
		{name: "Kind", in: 8, out: 8, count: 1, length: 4, mapName: mapName},
		{name: "Inner", flags: fStruct, in: 2, out: 1, count: 1},
		{name: "Flags", in: 8, out: 8, count: 1, length: 4, mapName: "FlagsMap"},
	}}
}

func TestSet(t *testing.T) {
	s := eventinfo.NewSet()
	b1 := typedEvent(1, "KindMap").bytes()
	kindMap := (&emi{provider: provA, name: "KindMap", flag: mManifestValueMap, entries: []emiEntry{{"Small ", 0, ""}, {"Large ", 1, ""}}}).bytes()
	flagsMap := (&emi{provider: provA, name: "FlagsMap", flag: mManifestBitMap, entries: []emiEntry{{"A ", 1, ""}, {"B ", 2, ""}}}).bytes()
	otherProvMap := (&emi{provider: provB, name: "KindMap", flag: mManifestValueMap, entries: []emiEntry{{"Wrong ", 0, ""}}}).bytes()

	// Events first, maps later: the first Schemas call has the maps
	// unbound.
	for _, ev := range []*etl.Event{metaEvent(32, b1), metaEvent(32, b1), metaEvent(33, otherProvMap)} {
		if ok, err := s.AddEvent(ev); !ok || err != nil {
			t.Fatalf("AddEvent: %v %v", ok, err)
		}
	}
	schemas, problems := s.Schemas()
	if len(schemas) != 1 || s.Len() != 1 {
		t.Fatalf("%d schemas (Len %d), want 1 (duplicate payload ignored)", len(schemas), s.Len())
	}
	var unbound []string
	for _, p := range problems {
		if !errors.Is(p, eventinfo.ErrUnboundMap) {
			t.Errorf("unexpected problem %v", p)
		}
		unbound = append(unbound, p.Error())
	}
	if len(unbound) != 2 || !strings.Contains(unbound[0], `"FlagsMap"`) || !strings.Contains(unbound[1], `"KindMap"`) {
		t.Errorf("unbound-map problems: %q", unbound)
	}
	if m := schemas[0].Properties[0].Map; m == nil || m.Name != "KindMap" || len(m.Entries) != 0 {
		t.Errorf("placeholder map: %+v", m)
	}

	for _, b := range [][]byte{kindMap, flagsMap} {
		if ok, err := s.AddEvent(metaEvent(33, b)); !ok || err != nil {
			t.Fatalf("AddEvent: %v %v", ok, err)
		}
	}
	first := schemas[0]
	schemas, problems = s.Schemas()
	if len(problems) != 0 {
		t.Errorf("problems: %v", problems)
	}
	if first.Properties[0].Map.Name != "KindMap" || len(first.Properties[0].Map.Entries) != 0 {
		t.Error("a schema returned earlier was modified")
	}
	var dec tdh.Decoder
	d, err := dec.Decode(schemas[0], payload(nil).u32(1).u32(3), 8)
	if err != nil || len(d.Extra) != 0 {
		t.Fatalf("decode: %v %d", err, len(d.Extra))
	}
	if got := string(tdh.AppendPropertiesJSON(nil, d)); got != `{"Kind":"Large","Inner":{"Flags":"A | B"}}` {
		t.Errorf("bound maps: %s", got)
	}

	// Other events are not MetaData events.
	for _, ev := range []*etl.Event{
		{Header: etl.HeaderClassic64, Flags: etl.FlagClassicHeader, ProviderID: provA, Descriptor: etl.EventDescriptor{Opcode: 32}},
		{Header: etl.HeaderEvent64, ProviderID: eventinfo.MetadataGUID, Descriptor: etl.EventDescriptor{Opcode: 32}},
		{Header: etl.HeaderClassic64, Flags: etl.FlagClassicHeader, ProviderID: eventinfo.MetadataGUID, Descriptor: etl.EventDescriptor{Opcode: 34}},
	} {
		if ok, err := s.AddEvent(ev); ok || err != nil || eventinfo.IsMetadata(ev) {
			t.Errorf("AddEvent(%v %v opcode %d) = %v, %v", ev.Header, ev.ProviderID, ev.Descriptor.Opcode, ok, err)
		}
	}
}

func TestSetProblems(t *testing.T) {
	s := eventinfo.NewSet()
	a := typedEvent(1, "")
	b := typedEvent(1, "")
	b.props[0].name = "Renamed"
	mofA := &tei{provider: provB, eventGUID: classG, opcode: 10, source: srcWbem, top: -1,
		props: []teiProp{{name: "X", in: 8, out: 8, count: 1}}}
	mofB := &tei{provider: provB, eventGUID: classG, opcode: 11, source: srcWbem, top: -1,
		props: []teiProp{{name: "X", in: 8, out: 8, count: 1}}}
	tl := &tei{provider: provB, source: srcTraceLogging, taskName: "TL", top: -1}
	wpp := &tei{provider: provB, source: srcWPP, top: -1}
	m1 := &emi{provider: provA, name: "FlagsMap", flag: mManifestBitMap, entries: []emiEntry{{"A ", 1, ""}}}
	m2 := &emi{provider: provA, name: "FlagsMap", flag: mManifestBitMap, entries: []emiEntry{{"Z ", 1, ""}}}
	bad := a.bytes()[:50]

	for _, p := range [][]byte{a.bytes(), b.bytes(), mofA.bytes(), mofB.bytes(), tl.bytes(), wpp.bytes()} {
		if err := s.AddEventInfo(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddEventInfo(bad); !errors.Is(err, eventinfo.ErrTruncated) {
		t.Errorf("truncated payload: %v", err)
	}
	for _, m := range []*emi{m1, m2} {
		if err := s.AddMapInfo(m.bytes()); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddMapInfo((&emi{provider: provA, name: "P", flag: mManifestPatternMap}).bytes()); !errors.Is(err, eventinfo.ErrUnsupported) {
		t.Errorf("pattern map: %v", err)
	}
	schemas, problems := s.Schemas()
	if len(schemas) != 3 {
		t.Fatalf("%d schemas, want 3 (first manifest event, two MOF types)", len(schemas))
	}
	if schemas[0].Properties[0].Name != "Kind" {
		t.Errorf("first schema not kept: %+v", schemas[0].Properties[0])
	}
	if schemas[1].ProviderGUID != classG || schemas[1].ID != 10 || schemas[2].ID != 11 {
		t.Errorf("MOF keys: %v %d, %v %d", schemas[1].ProviderGUID, schemas[1].ID, schemas[2].ProviderGUID, schemas[2].ID)
	}
	// The MOF schemas' maps would bind by TRACE_EVENT_INFO.ProviderGuid,
	// and the manifest one's FlagsMap to the first map (A).
	if m := schemas[0].Properties[1].Members[0].Map; m == nil || len(m.Entries) != 1 || m.Entries[0].Message != "A" {
		t.Errorf("FlagsMap: %+v", m)
	}
	count := map[error]int{}
	for _, p := range problems {
		for _, reason := range []error{eventinfo.ErrConflict, eventinfo.ErrSkippedSource, eventinfo.ErrTruncated, eventinfo.ErrUnsupported, eventinfo.ErrUnboundMap} {
			if errors.Is(p, reason) {
				count[reason]++
			}
		}
	}
	mapConflict := false
	for _, p := range problems {
		var se *eventinfo.SchemaError
		if errors.As(p, &se) && se.Map == "FlagsMap" && errors.Is(p, eventinfo.ErrConflict) {
			mapConflict = se.Provider == provA && strings.Contains(p.Error(), `map "FlagsMap"`)
		}
	}
	if !mapConflict {
		t.Errorf("no map conflict reported for FlagsMap: %v", problems)
	}
	// The same payloads in the other order keep the same descriptions:
	// the choice between conflicting ones does not depend on the reading
	// order (a dump's prescan reads in file order, the model's pass in time
	// order).
	r := eventinfo.NewSet()
	for _, p := range [][]byte{wpp.bytes(), tl.bytes(), mofB.bytes(), mofA.bytes(), b.bytes(), a.bytes()} {
		r.AddEventInfo(p)
	}
	for _, m := range []*emi{m2, m1} {
		r.AddMapInfo(m.bytes())
	}
	rs, _ := r.Schemas()
	var names, rnames []string
	for _, x := range schemas {
		names = append(names, fmt.Sprintf("%v/%d:%s", x.ProviderGUID, x.ID, x.Properties[0].Name))
	}
	for _, x := range rs {
		rnames = append(rnames, fmt.Sprintf("%v/%d:%s", x.ProviderGUID, x.ID, x.Properties[0].Name))
	}
	slices.Sort(names)
	slices.Sort(rnames)
	if !slices.Equal(names, rnames) {
		t.Errorf("reverse order kept %v, forward order %v", rnames, names)
	}
	for _, x := range rs {
		if x.ProviderGUID == provA {
			if m := x.Properties[1].Members[0].Map; m == nil || len(m.Entries) != 1 || m.Entries[0].Message != "A" {
				t.Errorf("reverse order: FlagsMap %+v", m)
			}
		}
	}
	want := map[error]int{eventinfo.ErrConflict: 2, eventinfo.ErrSkippedSource: 2, eventinfo.ErrTruncated: 1, eventinfo.ErrUnsupported: 1}
	if len(count) != len(want) || len(problems) != 6 {
		t.Errorf("problems %v", problems)
	}
	for k, v := range want {
		if count[k] != v {
			t.Errorf("%d problems of kind %v, want %d: %v", count[k], k, v, problems)
		}
	}
}

func TestMetaSchemas(t *testing.T) {
	schemas := eventinfo.MetaSchemas()
	if len(schemas) != 2 {
		t.Fatalf("%d schemas", len(schemas))
	}
	reg := tdh.NewRegistry()
	reg.Add(schemas...)
	ei := manifestEvent()
	ei.eventGUID = classG
	mi := &emi{provider: provA, name: "PropertyType", flag: mWBEMValueMap | mWBEMNoMap, entries: []emiEntry{{"IfIndex ", 1, ""}}}
	cases := []struct {
		opcode uint8
		b      []byte
		want   string
	}{
		{32, ei.bytes(), `{"ProviderGuid":"{4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac}","EventGuid":"{9e814aad-3204-11d2-9a82-006008a86939}",` +
			`"Id":70,"Version":2,"Channel":16,"Level":4,"Opcode":12,"Task":7,"Keyword":"0x8000000000000012","DecodingSource":"DecodingSourceXMLFile",`},
		{33, mi.bytes(), `{"ProviderGuid":"{4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac}","NameOffset":24,` +
			`"Flag":"EVENTMAP_INFO_FLAG_WBEM_VALUEMAP | EVENTMAP_INFO_FLAG_WBEM_NO_MAP","EntryCount":1,"MapEntryValueType":0,"Data":"`},
	}
	for _, c := range cases {
		ev := metaEvent(c.opcode, c.b)
		s, ok := reg.Lookup(ev.ProviderID, uint16(ev.Descriptor.Opcode), ev.Descriptor.Version)
		if !ok {
			t.Fatalf("no schema for opcode %d", c.opcode)
		}
		var dec tdh.Decoder
		d, err := dec.Decode(s, c.b, 8)
		if err != nil || len(d.Extra) != 0 {
			t.Fatalf("opcode %d: %v, %d left", c.opcode, err, len(d.Extra))
		}
		got := string(tdh.AppendPropertiesJSON(nil, d))
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("opcode %d:\n got %s\nwant prefix %s", c.opcode, got, c.want)
		}
		data := d.Values[len(s.Properties)-1]
		fixed := 112
		if c.opcode == 33 {
			fixed = 32
		}
		if data.Kind == tdh.Array || len(data.Data) != len(c.b)-fixed {
			t.Errorf("opcode %d: Data holds %d bytes (kind %v), want one binary of %d", c.opcode, len(data.Data), data.Kind, len(c.b)-fixed)
		}
	}
}
