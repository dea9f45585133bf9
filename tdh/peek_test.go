package tdh

import (
	"bytes"
	"fmt"
	"testing"
)

// peekSchemas are layouts that exercise each of Peek's answers: a fixed
// prefix (a CPU sample's), a string, an array and a struct before the
// property, alternates, a pointer, a name in another case, and a name
// twice.
func peekSchemas() []*Event {
	sample := &Event{Properties: []Property{prop("InstructionPointer", InTypePointer),
		prop("ThreadId", InTypeUInt32), prop("Count", InTypeUInt16), prop("Reserved", InTypeUInt16)}}
	afterString := &Event{Properties: []Property{prop("Name", InTypeUnicodeString), prop("ThreadId", InTypeUInt32)}}
	arr := prop("Frames", InTypeUInt64)
	arr.IsArray, arr.Count = true, 2
	afterArray := &Event{Properties: []Property{prop("Flags", InTypeUInt8), arr, prop("ThreadId", InTypeUInt32)}}
	st := Property{Name: "S", InType: InTypeNull, LengthIndex: -1, CountIndex: -1, Members: []Property{prop("A", InTypeUInt16)}}
	afterStruct := &Event{Properties: []Property{st, prop("ThreadId", InTypeUInt32)}}
	old := &Event{Properties: []Property{prop("ThreadId", InTypeUInt32), prop("Extra", InTypeUInt8)}}
	withAlt := &Event{Properties: []Property{prop("ThreadId", InTypeUInt32), prop("Count", InTypeUInt16)},
		Alternates: []*Event{old}}
	twice := &Event{Properties: []Property{prop("threadid", InTypeUInt16), prop("ThreadId", InTypeUInt32),
		prop("ThreadId", InTypeUInt8)}}
	opt := prop("Tail", InTypeUInt32)
	opt.Optional = true
	optional := &Event{Properties: []Property{prop("ThreadId", InTypeUInt32), opt}}
	return []*Event{sample, afterString, afterArray, afterStruct, withAlt, twice, optional, {}}
}

// peekNames are the names peekSchemas are asked for.
var peekNames = []string{"ThreadId", "THREADID", "Reserved", "Count", "InstructionPointer", "Tail", "Extra", "Nothing"}

// checkPeek compares Peek with Decode and Get for every schema and name,
// at both pointer sizes, and returns how many Peek answered.
func checkPeek(t *testing.T, payload []byte) int {
	t.Helper()
	var peeker, decoder Decoder
	n := 0
	for si, s := range peekSchemas() {
		for _, ptr := range []int{4, 8} {
			for _, name := range peekNames {
				v, found, peeked := peeker.Peek(s, payload, ptr, name)
				// PeekUint is Peek, then Uint of what it found.
				plan := peeker.PeekPlan(s, ptr, name)
				u, ufound, upeeked := plan.PeekUint(payload)
				var want uint64
				wantOK := false
				if found {
					want, wantOK = v.Uint()
				}
				if upeeked != peeked || ufound != wantOK || u != want {
					t.Fatalf("schema %d, pointer %d, %q, payload %x: PeekUint %d, %v, %v; Peek and Uint %d, %v, %v",
						si, ptr, name, payload, u, ufound, upeeked, want, wantOK, peeked)
				}
				if !peeked {
					continue
				}
				n++
				d, _ := decoder.Decode(s, payload, ptr)
				w, ok := d.Get(name)
				where := fmt.Sprintf("schema %d, pointer %d, %q, payload %x", si, ptr, name, payload)
				switch {
				case found != ok:
					t.Fatalf("%s: Peek found %v, Decode and Get %v", where, found, ok)
				case !ok:
				case v.Prop != w.Prop || v.Offset != w.Offset || !bytes.Equal(v.Data, w.Data) || v.Kind != w.Kind:
					t.Fatalf("%s: Peek %+v, Decode and Get %+v", where, v, *w)
				}
			}
		}
	}
	return n
}

func TestPeekMatchesDecode(t *testing.T) {
	var peeked int
	for size := 0; size <= 24; size++ {
		p := make([]byte, size)
		for i := range p {
			p[i] = byte(i*7 + 1)
		}
		peeked += checkPeek(t, p)
	}
	if peeked < 100 {
		t.Errorf("Peek answered %d times: its fast path is not exercised", peeked)
	}
}

// TestPeekDeclines checks that Peek leaves to Decode what it cannot know:
// a property after a string, an array or a struct, a payload that ends
// before the property, a schema with alternates that the payload does not
// fit exactly.
func TestPeekDeclines(t *testing.T) {
	s := peekSchemas()
	var dec Decoder
	p := bytes.Repeat([]byte{1}, 16)
	for i, c := range []struct {
		schema  *Event
		payload []byte
		ptr     int
		name    string
		peeked  bool
	}{
		{s[0], p, 8, "ThreadId", true},
		{s[0], p[:11], 8, "ThreadId", false}, // ends inside ThreadId
		{s[0], p[:11], 4, "ThreadId", true},  // a 4-byte pointer: it holds it
		{s[1], p, 8, "ThreadId", false},
		{s[2], p, 8, "Flags", true},
		{s[2], p, 8, "ThreadId", false},
		{s[3], p, 8, "ThreadId", false},
		{s[4], p[:6], 8, "ThreadId", true}, // fits exactly: no alternate tried
		{s[4], p[:5], 8, "ThreadId", false},
		{s[4], p[:7], 8, "Nothing", false},
		{s[4], p[:6], 8, "Nothing", true},
		{s[6], p[:4], 8, "ThreadId", true},
		{s[6], p[:4], 8, "Tail", false},
	} {
		if _, _, peeked := dec.Peek(c.schema, c.payload, c.ptr, c.name); peeked != c.peeked {
			t.Errorf("case %d: peeked %v, want %v", i, peeked, c.peeked)
		}
	}
}

// TestPeekCacheKeys asks for the same name of schemas that differ only
// where it lies, and for names of the same length, one after the other:
// the Decoder's layouts must not be taken for one another.
func TestPeekCacheKeys(t *testing.T) {
	a := &Event{Properties: []Property{prop("ThreadId", InTypeUInt32), prop("CountsIt", InTypeUInt32)}}
	b := &Event{Properties: []Property{prop("CountsIt", InTypeUInt32), prop("ThreadId", InTypeUInt32)}}
	p := []byte{1, 0, 0, 0, 2, 0, 0, 0}
	var dec Decoder
	for range 3 {
		for _, c := range []struct {
			s    *Event
			name string
			want uint64
		}{{a, "ThreadId", 1}, {b, "ThreadId", 2}, {a, "CountsIt", 2}, {b, "CountsIt", 1}} {
			v, found, peeked := dec.Peek(c.s, p, 8, c.name)
			got, _ := v.Uint()
			if !found || !peeked || got != c.want {
				t.Fatalf("%q of %v: %d (found %v, peeked %v), want %d", c.name, c.s.Properties[0].Name, got, found, peeked, c.want)
			}
		}
	}
}

func FuzzPeek(f *testing.F) {
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0xAB}, 16))
	f.Add([]byte{'A', 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, payload []byte) {
		checkPeek(t, payload)
	})
}

func BenchmarkPeek(b *testing.B) {
	s := peekSchemas()[0]
	p := make([]byte, 16)
	var dec Decoder
	b.Run("Peek", func(b *testing.B) {
		for b.Loop() {
			if _, ok, _ := dec.Peek(s, p, 8, "ThreadId"); !ok {
				b.Fatal("not found")
			}
		}
	})
	b.Run("Decode", func(b *testing.B) {
		for b.Loop() {
			d, _ := dec.Decode(s, p, 8)
			if _, ok := d.Get("ThreadId"); !ok {
				b.Fatal("not found")
			}
		}
	})
}
