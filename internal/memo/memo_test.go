package memo

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// TestRingOverwrites: a run is found until later runs write over it,
// never after, and a run too long or empty is not stored.
func TestRingOverwrites(t *testing.T) {
	r := NewRing[int](16)
	run := func(v, n int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = v*100 + i
		}
		return s
	}
	if _, ok := r.Put(nil); ok {
		t.Error("an empty run was stored")
	}
	if _, ok := r.Put(run(9, 5)); ok {
		t.Error("a run of 5 was stored in a ring of 16")
	}
	type put struct {
		at   uint64
		v, n int
	}
	var puts []put
	for i := 0; i < 40; i++ {
		n := 1 + i%4
		at, ok := r.Put(run(i, n))
		if !ok {
			t.Fatalf("run %d of %d not stored", i, n)
		}
		puts = append(puts, put{at, i, n})
		// Every earlier run is either intact or reported gone; the last
		// runs that fit in the ring are intact.
		held := 0
		for j := len(puts) - 1; j >= 0; j-- {
			p := puts[j]
			got, ok := r.Get(p.at, p.n)
			if ok && !slices.Equal(got, run(p.v, p.n)) {
				t.Fatalf("after run %d: run %d reads %v, want %v", i, p.v, got, run(p.v, p.n))
			}
			if held += p.n; held <= 16-3 && !ok { // the end skipped is at most 3
				t.Errorf("after run %d: run %d (%d values among the last %d) gone", i, p.v, p.n, held)
			}
		}
	}
	last := puts[len(puts)-1]
	if _, ok := r.Get(last.at+uint64(last.n), 1); ok {
		t.Error("Get beyond the last run found one")
	}
	var zero Ring[int]
	if _, ok := zero.Put([]int{1}); ok {
		t.Error("the zero ring stored a run")
	}
	if _, ok := zero.Get(0, 1); ok {
		t.Error("the zero ring found a run")
	}
}

// TestBytesByIdentity: Get gives what Put kept for the identity, misses
// identities never put, evicted by a colliding slot or overwritten in
// the storage, and keeps nothing for identity 0 or in the zero value.
func TestBytesByIdentity(t *testing.T) {
	m := NewBytes(4, 256)
	val := func(id uint64) []byte {
		return fmt.Appendf(nil, "stack %d %s", id, bytes.Repeat([]byte{'x'}, int(id%20)))
	}
	for id := uint64(1); id <= 200; id++ {
		m.Put(id, val(id))
		found := 0
		for old := uint64(1); old <= id; old++ {
			got, ok := m.Get(old)
			if ok {
				found++
				if !bytes.Equal(got, val(old)) {
					t.Fatalf("after %d: id %d gives %q, want %q", id, old, got, val(old))
				}
			}
		}
		if got, ok := m.Get(id); !ok || !bytes.Equal(got, val(id)) {
			t.Fatalf("id %d just put: %q %v", id, got, ok)
		}
		if found > 16 {
			t.Fatalf("after %d: %d found in 16 slots", id, found)
		}
	}
	if _, ok := m.Get(201); ok {
		t.Error("an identity never put was found")
	}
	m.Put(0, []byte("zero"))
	if _, ok := m.Get(0); ok {
		t.Error("identity 0 was kept")
	}
	var zero Bytes
	zero.Put(1, []byte("a"))
	if _, ok := zero.Get(1); ok || zero.Cap() != 0 {
		t.Error("the zero Bytes kept something")
	}
}

// BenchmarkBytesGet is the cost of a found rendering of 1.6 KB (the
// average stack of the JSON dump of net.4.5.2.x64.etl) copied out.
func BenchmarkBytesGet(b *testing.B) {
	m := NewBytes(10, 256<<10)
	v := bytes.Repeat([]byte{'x'}, 1600)
	for id := uint64(1); id <= 100; id++ {
		m.Put(id, v)
	}
	dst := make([]byte, 0, 4096)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		got, ok := m.Get(uint64(i%100 + 1))
		if !ok {
			b.Fatal("missing")
		}
		dst = append(dst[:0], got...)
	}
}
