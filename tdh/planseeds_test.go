package tdh_test

import (
	"math/bits"
	"os"
	"slices"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/tdh"
)

// addCorpusPlanSeeds adds to f (FuzzJSONPlan's inputs: fuzzSchema's
// bytes, then the payload; the message) one input per schema the corpus
// traces decode with, from the first event of each: the schema as near as
// fuzzSchema's bytes can say it, the event's payload and the schema's
// message. It adds nothing without ETL_CORPUS.
func addCorpusPlanSeeds(f *testing.F) {
	if os.Getenv("ETL_CORPUS") == "" {
		return
	}
	seen := map[string]bool{}
	schemas := map[*tdh.Event]bool{}
	eachCorpusDecoded(f, etltest.CorpusTraces(f), func(d *tdh.Decoded) {
		s := d.Schema
		if schemas[s] {
			return
		}
		schemas[s] = true
		b, ok := fuzzSchemaBytes(s)
		if ok {
			checkFuzzSchemaBytes(f, s, b)
		}
		if k := string(b) + "\x00" + s.Message; ok && !seen[k] {
			seen[k] = true
			f.Add(append(b, d.Payload...), s.Message)
		}
	})
	if len(seen) == 0 {
		f.Fatal("no corpus schema for FuzzJSONPlan's seeds")
	}
}

// checkFuzzSchemaBytes checks that fuzzSchema reads b, fuzzSchemaBytes'
// bytes for s, whole, into the properties s's begin with: each one's
// input type, array, map and members.
func checkFuzzSchemaBytes(tb testing.TB, s *tdh.Event, b []byte) {
	e, rest := fuzzSchema(b)
	if len(rest) != 0 {
		tb.Errorf("%s/%s: fuzzSchema left %d of fuzzSchemaBytes' %d bytes", s.ProviderName, s.EventName, len(rest), len(b))
	}
	var same func(got, want []tdh.Property) bool
	same = func(got, want []tdh.Property) bool {
		if len(got) != len(want) {
			return false
		}
		for i, g := range got {
			w := &want[i]
			members := w.Members[:min(len(w.Members), 3)]
			if (len(members) == 0 && g.InType != w.InType) || g.IsArray != w.IsArray ||
				(len(members) == 0 && (g.Map != nil) != (w.Map != nil && len(w.Map.Entries) > 1)) || !same(g.Members, members) {
				return false
			}
		}
		return true
	}
	if want := s.Properties[:min(len(s.Properties), 6)]; !same(e.Properties, want) {
		tb.Errorf("%s/%s: fuzzSchema reads fuzzSchemaBytes' bytes into %+v, want %+v", s.ProviderName, s.EventName, e.Properties, want)
	}
}

// eachCorpusDecoded calls fn with each event of the traces paths that
// decodes with a schema, each trace decoded by a decoder of its own with
// the schemas the trace carries.
func eachCorpusDecoded(tb testing.TB, paths []string, fn func(d *tdh.Decoded)) {
	for _, p := range paths {
		files := etltest.OpenFiles(tb, p)
		dec := decode.New()
		_ = dec.Prescan(files) // schemas that do not register leave their events undecoded
		r := etl.NewReader(files, nil)
		for r.Next() {
			if res := dec.Decode(r.Event()); res.Decoded != nil && res.Decoded.Schema != nil {
				fn(res.Decoded)
			}
		}
		r.Close()
	}
}

// fuzzSchemaBytes returns the bytes fuzzSchema reads to build s, as near
// as they can say it: the first six top-level properties, nesting two
// deep, three members a struct, four entries a map (a map of one entry
// left out), counts, lengths and indexes within the ranges fuzzProp gives
// (where the rules for one byte clash, the members' count wins). ok is false when s has no
// property or one of a type fuzzProp does not pick from.
func fuzzSchemaBytes(s *tdh.Event) (b []byte, ok bool) {
	n := min(len(s.Properties), 6)
	if n == 0 {
		return nil, false
	}
	// head: 1+head%6 properties, source head>>4%4.
	head := 0
	for h := range 256 { // one of every 16 in a row has n-1 mod 6
		if h%6 == n-1 && h>>4%4 == int(s.Source)%4 {
			head = h
			break
		}
	}
	b = append(b, byte(head))
	for i := range n {
		if b, ok = appendFuzzProp(b, &s.Properties[i], i, 0); !ok {
			return nil, false
		}
	}
	return b, true
}

// appendFuzzProp appends the bytes fuzzProp reads to build p, property i
// of a level at depth (see fuzzSchemaBytes).
func appendFuzzProp(b []byte, p *tdh.Property, i, depth int) ([]byte, bool) {
	in := slices.Index(fuzzInTypes, p.InType)
	if len(p.Members) > 0 {
		if depth >= 2 {
			return b, false
		}
		in = 0 // replaced by the struct's
	}
	if in < 0 {
		return b, false
	}
	var flags byte
	var outRules, paramRules []func(byte) bool
	if o := slices.Index(fuzzOutTypes, p.OutType); p.OutType != 0 && o >= 0 && len(p.Members) == 0 {
		flags |= 0x80
		outRules = append(outRules, func(c byte) bool { return int(c)%len(fuzzOutTypes) == o })
	}
	if p.IsArray {
		flags |= 1
		paramRules = append(paramRules, func(c byte) bool { return uint16(c%5) == p.Count%5 })
		if p.CountIndex >= 0 && p.CountIndex < i {
			flags |= 2
			paramRules = append(paramRules, func(c byte) bool { return int(c)%i == p.CountIndex })
		}
	}
	if p.Length > 0 && p.Length < 24 {
		flags |= 4
		paramRules = append(paramRules, func(c byte) bool { return uint16(c%24) == p.Length })
	}
	if p.LengthIndex >= 0 && p.LengthIndex < i {
		flags |= 8
		outRules = append(outRules, func(c byte) bool { return int(c)%i == p.LengthIndex })
	}
	var entries []byte
	// fuzzProp makes maps of two to four entries: one of a single entry
	// is left out (its byte would be read as the next property's).
	if m := p.Map; m != nil && len(m.Entries) > 1 && len(p.Members) == 0 {
		for _, e := range m.Entries[:min(len(m.Entries), 4)] {
			v := e.Value
			if m.Kind == tdh.BitMap {
				v = uint64(bits.TrailingZeros64(v))
			}
			entries = append(entries, byte(v))
		}
		flags |= byte(len(entries)-1) << 4
		paramRules = append(paramRules, func(c byte) bool { return tdh.MapKind(c%4) == m.Kind })
	}
	if len(p.Members) > 0 {
		// The members' count comes first: the bytes of the members
		// follow, and a count the other rules win would misread them.
		flags |= 0x40
		k := min(len(p.Members), 3)
		paramRules = slices.Insert(paramRules, 0, func(c byte) bool { return int(c)%3 == k-1 })
	}
	b = append(b, byte(in), fuzzByte(outRules), flags, fuzzByte(paramRules))
	b = append(b, entries...)
	for j := range min(len(p.Members), 3) {
		var ok bool
		if b, ok = appendFuzzProp(b, &p.Members[j], j, depth+1); !ok {
			return b, false
		}
	}
	return b, true
}

// fuzzByte returns the first byte that meets every rule, else the first
// that meets the most rules first listed.
func fuzzByte(rules []func(byte) bool) byte {
	for n := len(rules); n > 0; n-- {
		for c := range 256 {
			if !slices.ContainsFunc(rules[:n], func(r func(byte) bool) bool { return !r(byte(c)) }) {
				return byte(c)
			}
		}
	}
	return 0
}
