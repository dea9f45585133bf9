package eventinfo_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/eventinfo"
	"github.com/etwkit/etw/tdh"
)

// corpusSeeds returns MetaData payloads of the given opcode from corpus
// traces when ETL_CORPUS is set (they are read at run time, never stored
// in the repository), else nothing.
func corpusSeeds(opcode uint8, max int) [][]byte {
	dir := os.Getenv("ETL_CORPUS")
	if dir == "" {
		return nil
	}
	var out [][]byte
	for _, rel := range append([]string{netTrace, rpcTrace}, pktMonCaptures...) {
		f, err := etl.Open(filepath.Join(dir, rel))
		if err != nil {
			continue
		}
		r := etl.NewReader([]*etl.File{f}, &etl.ReaderOptions{Order: etl.FileOrder})
		n := 0
		for r.Next() && n < max {
			if ev := r.Event(); eventinfo.IsMetadata(ev) && ev.Descriptor.Opcode == opcode {
				out = append(out, append([]byte(nil), ev.UserData...))
				n++
			}
		}
		r.Close()
		f.Close()
	}
	return out
}

// seedEventInfos are hand-built TRACE_EVENT_INFO blobs covering every flag.
func seedEventInfos() [][]byte {
	empty := &tei{provider: provA, source: srcManifest, top: -1, props: []teiProp{
		{name: "E", flags: fParamFixedLength, in: 1, out: 1, count: 1},
		{name: "N", in: 8, out: 8, count: 1, length: 4},
		{name: "B", flags: fParamLength, in: 14, out: 15, count: 1, length: 1},
	}}
	mof := &tei{provider: provB, eventGUID: classG, opcode: 10, source: srcWbem, top: -1,
		props: []teiProp{{name: "X", in: 8, out: 8, count: 1, mapName: "M"}, {name: "S", in: 300, count: 1}, {name: "W", in: 310, count: 1}}}
	return [][]byte{manifestEvent().bytes(), structEvent().bytes(), empty.bytes(), mof.bytes(), typedEvent(1, "KindMap").bytes()}
}

// exercise decodes and renders a random payload with schema s, as the CLI
// would: it must neither panic nor hang, whatever the schema and payload.
func exercise(t *testing.T, s *tdh.Event, data []byte) {
	var dec tdh.Decoder
	for _, ptr := range []int{4, 8} {
		d, _ := dec.Decode(s, data, ptr)
		out := tdh.AppendPropertiesJSON(nil, d)
		for i := range d.Top() {
			out = tdh.AppendText(out[:0], d, &d.Values[i], &tdh.RenderOptions{MOFPadding: true})
			out = tdh.AppendJSON(out[:0], d, &d.Values[i])
		}
		_ = tdh.AppendMessage(out[:0], s.Message, d, nil)
	}
}

// checkSchema verifies the invariants ParseEventInfo promises: counts and
// lengths name earlier single integers of the same level, structs nest at
// most 32 deep.
func checkSchema(t *testing.T, props []tdh.Property, depth int) {
	if depth > 33 {
		t.Fatalf("structs nest %d deep", depth)
	}
	for i := range props {
		p := &props[i]
		for _, ref := range []int{p.CountIndex, p.LengthIndex} {
			if ref < 0 {
				continue
			}
			if ref >= i {
				t.Fatalf("%s refers to property %d, not earlier", p.Name, ref)
			}
			q := &props[ref]
			if q.IsStruct() || q.IsArray || !q.InType.IsInteger() {
				t.Fatalf("%s refers to %s, not a single integer", p.Name, q.Name)
			}
		}
		if p.IsStruct() {
			checkSchema(t, p.Members, depth+1)
		}
	}
}

func FuzzParseEventInfo(f *testing.F) {
	for _, b := range seedEventInfos() {
		f.Add(b, []byte{1, 0, 0, 0, 2, 0, 'a', 0, 0, 0, 3, 0, 0, 0, 4, 5, 6, 7, 8, 9})
	}
	for _, b := range corpusSeeds(eventinfo.OpcodeEventInfo, 20) {
		f.Add(b, b[:min(len(b), 64)])
	}
	f.Fuzz(func(t *testing.T, blob, data []byte) {
		s, err := eventinfo.ParseEventInfo(blob)
		if err != nil {
			if s != nil {
				t.Fatal("schema and error")
			}
			if _, ok := err.(*eventinfo.FormatError); !ok {
				t.Fatalf("error %T: %v", err, err)
			}
			return
		}
		checkSchema(t, s.Properties, 0)
		exercise(t, s, data)
		exercise(t, s, blob)
		// A Set takes it too, and binds nothing from nowhere.
		set := eventinfo.NewSet()
		if err := set.AddEventInfo(blob); err != nil {
			t.Fatalf("Set rejects what ParseEventInfo accepts: %v", err)
		}
		schemas, _ := set.Schemas()
		for _, s := range schemas {
			exercise(t, s, data)
		}
	})
}

func FuzzParseMapInfo(f *testing.F) {
	seeds := []*emi{
		{provider: provA, name: "V", flag: mManifestValueMap, entries: []emiEntry{{"A ", 0, ""}, {"B ", 1, ""}}},
		{provider: provA, name: "B", flag: mManifestBitMap, entries: []emiEntry{{"A ", 1, ""}, {"B ", 6, ""}}},
		{provider: provA, name: "S", flag: mWBEMValueMap, valueType: 1, entries: []emiEntry{{"A", 0, "-1"}, {"B", 0, "0x7"}}},
		{provider: provA, name: "I", flag: mWBEMValueMap | mWBEMNoMap, entries: []emiEntry{{"A", 0, ""}}},
		{provider: provA, name: "F", flag: mWBEMValueMap | mWBEMFlag | mWBEMNoMap, entries: []emiEntry{{"A", 0, ""}}},
		{provider: provA, name: "W", flag: mWBEMBitMap | mWBEMNoMap, entries: []emiEntry{{"A", 0, ""}, {"B", 0, ""}}},
		{provider: provA, name: "P", flag: mManifestPatternMap, entries: []emiEntry{{"A", 0, "x"}}},
	}
	for _, m := range seeds {
		f.Add(m.bytes(), []byte{0, 0, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF})
	}
	for _, b := range corpusSeeds(eventinfo.OpcodeEventMapInfo, 10) {
		f.Add(b, []byte{1, 0, 0, 0, 2, 0, 0, 0})
	}
	f.Fuzz(func(t *testing.T, blob, data []byte) {
		_, m, err := eventinfo.ParseMapInfo(blob)
		if err != nil {
			if _, ok := err.(*eventinfo.FormatError); !ok {
				t.Fatalf("error %T: %v", err, err)
			}
			return
		}
		for i := 1; i < len(m.Entries); i++ {
			if m.Entries[i].Value < m.Entries[i-1].Value {
				t.Fatal("entries not sorted")
			}
		}
		for _, src := range []tdh.Source{tdh.SourceManifest, tdh.SourceMOF} {
			s := &tdh.Event{Source: src, Properties: []tdh.Property{
				{Name: "V", InType: tdh.InTypeUInt32, Map: m, IsArray: true, ToEnd: true, LengthIndex: -1, CountIndex: -1},
				{Name: "W", InType: tdh.InTypeUInt64, Map: m, LengthIndex: -1, CountIndex: -1, Optional: true},
			}}
			exercise(t, s, data)
		}
	})
}
