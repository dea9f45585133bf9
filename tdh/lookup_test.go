package tdh

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
)

// refGet is Get as it was before the lookup cache: the first top-level
// value named name exactly, else the first named so ignoring case.
func refGet(d *Decoded, name string) int {
	exact, folded := -1, -1
	for i, v := range d.Values[:d.present] {
		switch {
		case v.Prop == nil:
		case v.Prop.Name == name:
			if exact < 0 {
				exact = i
			}
		case strings.EqualFold(v.Prop.Name, name) && folded < 0:
			folded = i
		}
	}
	if exact >= 0 {
		return exact
	}
	return folded
}

// checkGet compares d.Get(name) with refGet.
func checkGet(t *testing.T, d *Decoded, name, what string) {
	t.Helper()
	want := refGet(d, name)
	v, ok := d.Get(name)
	switch {
	case want < 0 && ok:
		t.Fatalf("%s: Get(%q) found %q, want none", what, name, v.Prop.Name)
	case want >= 0 && (!ok || v != &d.Values[want]):
		got := -1
		if ok {
			got = int(v.Offset)
		}
		t.Fatalf("%s: Get(%q) = %v (offset %d), want value %d (%q)", what, name, ok, got, want, d.Values[want].Prop.Name)
	}
}

func u32Props(names ...string) []Property {
	props := make([]Property, len(names))
	for i, n := range names {
		props[i] = prop(n, InTypeUInt32)
	}
	return props
}

func u32Payload(vals ...uint32) []byte {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

// TestGetCachedSchemas alternates schemas that hold the same names at
// other positions (and copies of an Event with other properties) on one
// Decoder: a cached index of one must not answer for the other.
func TestGetCachedSchemas(t *testing.T) {
	a := &Event{Properties: u32Props("X", "ProcessId", "ThreadId")}
	b := &Event{Properties: u32Props("ThreadId", "ProcessId")}
	c := *a // same properties: the same answers
	e := *a
	e.Properties = u32Props("ThreadId", "X", "processid") // a copy with other properties
	f := &Event{Properties: u32Props("X", "ThreadId", "Y", "ProcessId")}
	g := &Event{Properties: f.Properties[:3]} // the same array, fewer properties
	var dec Decoder
	for round := 0; round < 3; round++ {
		for _, s := range []*Event{a, b, &c, &e, g, f} {
			vals := make([]uint32, len(s.Properties))
			for i := range vals {
				vals[i] = uint32(100*round + i)
			}
			d, err := dec.Decode(s, u32Payload(vals...), 8)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"ProcessId", "ThreadId", "X", "PROCESSID", "Missing"} {
				checkGet(t, d, name, s.Properties[0].Name)
				if i := refGet(d, name); i >= 0 {
					if v, _ := d.Uint(name); v != uint64(vals[i]) {
						t.Fatalf("Uint(%q) = %d, want %d", name, v, vals[i])
					}
				}
			}
		}
	}
}

// TestGetCachedPartial looks a name up in a schema whose exact match
// comes after a case-folded one, on whole and partial decodes (an
// optional property the payload ends before, and a decoding error): a
// partial decode finds the case-folded one whatever was cached before.
func TestGetCachedPartial(t *testing.T) {
	props := u32Props("PROCESSID", "Other", "ProcessId", "Last")
	props[2].Optional, props[3].Optional = true, true
	opt := &Event{Properties: props}
	bad := &Event{Properties: u32Props("PROCESSID", "Other", "ProcessId")}
	var dec Decoder
	cases := []struct {
		s       *Event
		payload []byte
		err     bool
		want    uint32 // value of Get("ProcessId")
	}{
		{opt, u32Payload(1, 2, 3, 4), false, 3},
		{opt, u32Payload(1, 2), false, 1},    // ends before ProcessId
		{opt, u32Payload(1, 2, 3), false, 3}, // ends after it
		{bad, u32Payload(1, 2, 3), false, 3}, // whole
		{bad, u32Payload(1), true, 1},        // fails at Other
		{bad, u32Payload(1, 2, 3, 4), false, 3},
		{bad, u32Payload(1, 2)[:6], true, 1}, // fails at Other
	}
	for round := 0; round < 2; round++ {
		for i, tc := range cases {
			d, err := dec.Decode(tc.s, tc.payload, 8)
			if (err != nil) != tc.err {
				t.Fatalf("case %d: error %v, want error %v", i, err, tc.err)
			}
			for _, name := range []string{"ProcessId", "processid", "Other", "Last", "OTHER"} {
				checkGet(t, d, name, "partial")
			}
			if v, ok := d.Uint("ProcessId"); !ok || v != uint64(tc.want) {
				t.Fatalf("case %d: Uint(ProcessId) = %d %v, want %d", i, v, ok, tc.want)
			}
		}
	}
}

// TestGetCachedNames looks names up through strings with other bytes
// (the cache keys on the name's address) and names that fold only by
// Unicode rules (K, the Kelvin sign).
func TestGetCachedNames(t *testing.T) {
	s := &Event{Properties: u32Props("Kind", "Key", "kind")}
	var dec Decoder
	d, err := dec.Decode(s, u32Payload(1, 2, 3), 8)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		for _, name := range []string{"kind", "Kind", "KIND", "\u212aey", "key", "Ke", "Keys", ""} {
			checkGet(t, d, name, "names")
			checkGet(t, d, strings.Clone(name), "names, cloned")
			checkGet(t, d, string([]byte(name)), "names, copied")
		}
	}
}

// TestGetCachedRandom compares Get with refGet over random schemas,
// payloads and names on one Decoder, more schemas than the cache has
// slots.
func TestGetCachedRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	seed := make([]byte, 0, 4096)
	for i := 0; i < 200; i++ {
		seed = seed[:rng.IntN(cap(seed))]
		for j := range seed {
			seed[j] = byte(rng.Uint32())
		}
		lookupOps(t, seed)
	}
}

// FuzzGetCached compares Get with refGet over the schemas, payloads and
// names data describes.
func FuzzGetCached(f *testing.F) {
	f.Add([]byte{3, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add([]byte{6, 1, 1, 1, 1, 1, 9, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144})
	f.Fuzz(lookupOps)
}

// lookupNames are the names lookupOps draws from: exact and case-folded
// variants of each other.
var lookupNames = []string{"Id", "ID", "id", "Pid", "PID", "Name", "name", "NAME", "K", "k", "\u212a", "X", ""}

// lookupOps builds schemas of 4-byte properties from data and decodes
// payloads of varied lengths with one Decoder, comparing every lookup
// with refGet.
func lookupOps(t *testing.T, data []byte) {
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b)
	}
	schemas := make([]*Event, 1+next()%300)
	for i := range schemas {
		if i > 0 && next()%4 == 0 {
			c := *schemas[next()%i] // a copy: the same properties
			schemas[i] = &c
			continue
		}
		props := make([]Property, next()%7)
		for j := range props {
			k := next()
			props[j] = prop(lookupNames[k%len(lookupNames)], InTypeUInt32)
			props[j].Optional = k&0x80 != 0
		}
		schemas[i] = &Event{Properties: props}
	}
	var dec Decoder
	payload := make([]byte, 7*4)
	for op := 0; op < 64 || len(data) > 0; op++ {
		s := schemas[next()%len(schemas)]
		n := next() % (4*len(s.Properties) + 3)
		d, _ := dec.Decode(s, payload[:min(n, len(payload))], 8)
		for k := next() % 4; k >= 0; k-- {
			name := lookupNames[next()%len(lookupNames)]
			if next()%8 == 0 {
				name = strings.Clone(name)
			}
			checkGet(t, d, name, "random")
		}
		if op > 4096 {
			break
		}
	}
}

// TestGetCachedHandMade looks names up in a Decoded made without a
// Decoder (no cache).
func TestGetCachedHandMade(t *testing.T) {
	props := u32Props("a", "B", "b")
	d := &Decoded{Schema: &Event{Properties: props}, Values: []Value{{Prop: &props[0]}, {Prop: &props[1]}, {Prop: &props[2]}}, present: 3}
	for _, name := range []string{"a", "A", "b", "B", "c"} {
		checkGet(t, d, name, "hand-made")
	}
}

// BenchmarkGet looks up the names the analysis model reads of a CPU
// sample (ThreadId, then Reserved, the flags Windows 8 and later log) in
// a SampleProf event that has Reserved and one that does not (the idle
// thread's samples in net.4.5.2): with the Decoder's cache ("cached") and
// by scanning ("scan", a Decoded without the cache, as Get was before).
func BenchmarkGet(b *testing.B) {
	for _, tc := range []struct {
		name  string
		props []Property
	}{
		{"found", u32Props("InstructionPointer", "ThreadId", "Count", "Reserved")},
		{"missing", u32Props("InstructionPointer", "ThreadId", "Count")},
	} {
		var dec Decoder
		d, err := dec.Decode(&Event{Properties: tc.props}, u32Payload(1, 2, 3, 4)[:4*len(tc.props)], 8)
		if err != nil {
			b.Fatal(err)
		}
		scan := *d
		scan.names = nil
		for _, v := range []struct {
			name string
			d    *Decoded
		}{{"cached", d}, {"scan", &scan}} {
			b.Run(tc.name+"/"+v.name, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					tid, _ := v.d.Uint("ThreadId")
					flags, _ := v.d.Uint("Reserved")
					if tid != 2 || flags > 4 {
						b.Fatal(tid, flags)
					}
				}
			})
		}
	}
}
