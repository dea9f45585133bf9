package analysis

import (
	"fmt"
	"testing"
	"unicode/utf16"
	"unsafe"
)

// TestMethodIndex checks the index by id and start address: methods that
// share an address (the second map), removal of either, and a method
// added again at an address once the first there is removed.
func TestMethodIndex(t *testing.T) {
	var x methodIndex
	var slab methodSlab
	find := func(id, start uint64) *Method {
		m, _ := x.get(id, start)
		return m
	}
	add := func(id, start uint64) *Method {
		m := slab.take()
		*m = Method{ID: id, Start: start}
		got, held := x.get(id, start)
		if got != nil {
			t.Fatalf("method %d at %#x found before it was put", id, start)
		}
		x.put(m, held)
		return m
	}
	a := add(1, 0x1000)
	b := add(2, 0x1000) // same address, another id
	c := add(3, 0x2000)
	for _, m := range []*Method{a, b, c} {
		if got, _ := x.get(m.ID, m.Start); got != m {
			t.Errorf("get(%d, %#x) = %p, want %p", m.ID, m.Start, got, m)
		}
	}
	if find(3, 0x1000) != nil || find(1, 0x2000) != nil {
		t.Error("a method found under another's id or address")
	}
	x.remove(a)
	if find(1, 0x1000) != nil {
		t.Error("a removed method is still found")
	}
	if find(2, 0x1000) != b {
		t.Error("the method sharing the removed one's address is lost")
	}
	d := add(1, 0x1000) // the same id and address again: another method
	if find(1, 0x1000) != d || d == a {
		t.Error("a method added again after its removal is not the new one")
	}
	x.remove(b)
	if find(2, 0x1000) != nil || find(1, 0x1000) != d {
		t.Error("removing the second map's method changed the first")
	}
}

// TestMethodSlab checks that the slab hands out distinct zero methods
// across its arrays.
func TestMethodSlab(t *testing.T) {
	var s methodSlab
	seen := map[*Method]bool{}
	for i := range 3*methodSlabSize + 5 {
		m := s.take()
		if seen[m] || *m != (Method{}) {
			t.Fatalf("take %d: a method handed out twice or not zero", i)
		}
		seen[m] = true
		m.ID = uint64(i) + 1
	}
}

// TestInterner interns names UTF-16 and not, many enough to grow the
// table several times: each reads back as given, and the same text gives
// the same string (one copy) whichever encoding it came in.
func TestInterner(t *testing.T) {
	var in interner
	wide := func(s string) []byte {
		var b []byte
		for _, u := range utf16.Encode([]rune(s)) {
			b = append(b, byte(u), byte(u>>8))
		}
		return b
	}
	first := map[string]string{}
	for round := range 2 {
		for i := range 5000 {
			name := fmt.Sprintf("System.Collections.Generic.List`1[%d]", i%3000)
			if i%7 == 0 {
				name = fmt.Sprintf("Ünïcode.名前%d", i%3000)
			}
			var got string
			if (i+round)%2 == 0 {
				got = in.intern(wide(name), true)
			} else {
				got = in.intern([]byte(name), false)
			}
			if got != name {
				t.Fatalf("intern(%q) = %q", name, got)
			}
			if f, ok := first[name]; ok {
				if unsafe.StringData(f) != unsafe.StringData(got) {
					t.Fatalf("%q interned twice as different strings", name)
				}
			} else {
				first[name] = got
			}
		}
	}
	if in.n != len(first) {
		t.Errorf("the table holds %d strings, want %d", in.n, len(first))
	}
	if in.n*4 > len(in.slots)*3 {
		t.Errorf("%d strings in %d slots: over the load bound", in.n, len(in.slots))
	}
	if got := in.intern(wide("a\x00b"), true); got != "a" {
		t.Errorf("intern stops at NUL as tdh.AppendString does: got %q", got)
	}
}
