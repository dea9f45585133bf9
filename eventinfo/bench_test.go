package eventinfo_test

import (
	"testing"

	"github.com/etwkit/etw/eventinfo"
)

func BenchmarkParseEventInfo(b *testing.B) {
	run := func(name string, blobs [][]byte) {
		b.Run(name, func(b *testing.B) {
			if len(blobs) == 0 {
				b.Skip("ETL_CORPUS is not set")
			}
			size := 0
			for _, p := range blobs {
				size += len(p)
			}
			b.SetBytes(int64(size / len(blobs)))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := eventinfo.ParseEventInfo(blobs[i%len(blobs)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	run("built", [][]byte{manifestEvent().bytes(), structEvent().bytes()})
	run("corpus", corpusSeeds(eventinfo.OpcodeEventInfo, 100))
}

func BenchmarkParseMapInfo(b *testing.B) {
	blob := (&emi{provider: provA, name: "PropertyType", flag: mManifestValueMap, entries: []emiEntry{
		{"IfIndex ", 1, ""}, {"MiniportIfIndex ", 2, ""}, {"LowerIfIndex ", 3, ""}, {"IfGuid ", 4, ""},
		{"NdisMedium ", 5, ""}, {"PhysAddress ", 6, ""}, {"EtherType ", 7, ""}, {"OptDataPath ", 8, ""},
	}}).bytes()
	b.SetBytes(int64(len(blob)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := eventinfo.ParseMapInfo(blob); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSet measures a trace's worth of MetaData payloads, with the
// repeats a merged trace holds, through a Set.
func BenchmarkSet(b *testing.B) {
	events := [][]byte{manifestEvent().bytes(), structEvent().bytes(), typedEvent(1, "KindMap").bytes()}
	maps := [][]byte{(&emi{provider: provA, name: "KindMap", flag: mManifestValueMap, entries: []emiEntry{{"A ", 1, ""}}}).bytes()}
	b.ReportAllocs()
	for b.Loop() {
		s := eventinfo.NewSet()
		for r := 0; r < 3; r++ {
			for _, p := range events {
				s.AddEventInfo(p)
			}
			for _, p := range maps {
				s.AddMapInfo(p)
			}
		}
		if schemas, _ := s.Schemas(); len(schemas) != 3 {
			b.Fatal(len(schemas))
		}
	}
}
