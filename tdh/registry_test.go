package tdh

import (
	"fmt"
	"testing"

	"github.com/google/uuid"
)

// TestRegistryClone: a clone answers as the original, and additions to
// either stay there.
func TestRegistryClone(t *testing.T) {
	g := uuid.MustParse("11111111-2222-3333-4444-555555555555")
	r := NewRegistry()
	r.AddFrom(Origin{Kind: OriginBuiltIn}, &Event{ProviderGUID: g, ID: 1, Version: 0, ProviderName: "P"})
	c := r.Clone()
	if s, ok := c.Lookup(g, 1, 0); !ok || s.ProviderName != "P" || c.ProviderName(g) != "P" {
		t.Fatalf("clone lookup: %v %v %q", s, ok, c.ProviderName(g))
	}
	c.AddFrom(Origin{Kind: OriginTrace}, &Event{ProviderGUID: g, ID: 2, Version: 3})
	r.AddFrom(Origin{Kind: OriginTrace}, &Event{ProviderGUID: g, ID: 1, Version: 5})
	if _, ok := r.Lookup(g, 2, 3); ok {
		t.Error("the clone's addition reached the original")
	}
	if _, ok := c.Lookup(g, 1, 5); ok {
		t.Error("the original's addition reached the clone")
	}
	// An existing key gains a candidate in the original only (the lists
	// are shared, so they must never be changed in place).
	r.AddFrom(Origin{Kind: OriginImport}, &Event{ProviderGUID: g, ID: 1, Version: 0, ProviderName: "Imported"})
	if n, m := len(r.Candidates(g, 1, 0)), len(c.Candidates(g, 1, 0)); n != 2 || m != 1 {
		t.Errorf("candidates of 1/0: original %d (want 2), clone %d (want 1)", n, m)
	}
	if c.ProviderName(g) != "P" {
		t.Errorf("clone's provider name became %q", c.ProviderName(g))
	}
	if s, exact := c.LookupNearest(g, 1, 5); s == nil || exact || s.Version != 0 {
		t.Errorf("clone nearest version of 1/5 = %v, %v; want version 0 (5 was added to the original only)", s, exact)
	}
}

// TestRegistryChangedSince: an addition changes its providers since the
// generation before it, not the others, nor anything after it; a clone
// counts its own generations.
func TestRegistryChangedSince(t *testing.T) {
	a := uuid.MustParse("11111111-2222-3333-4444-555555555555")
	b := uuid.MustParse("66666666-2222-3333-4444-555555555555")
	r := NewRegistry()
	g0 := r.Generation()
	if r.ChangedSince(a, g0) {
		t.Fatal("changed with no addition")
	}
	r.AddFrom(Origin{Kind: OriginTrace}, &Event{ProviderGUID: a, ID: 1})
	g1 := r.Generation()
	if !r.ChangedSince(a, g0) {
		t.Error("a's addition: a not changed since before it")
	}
	if r.ChangedSince(b, g0) {
		t.Error("a's addition changed b")
	}
	if r.ChangedSince(a, g1) {
		t.Error("a changed since after its addition")
	}
	r.AddFrom(Origin{Kind: OriginTrace}, &Event{ProviderGUID: b, ID: 1}, &Event{ProviderGUID: a, ID: 2})
	if !r.ChangedSince(a, g1) || !r.ChangedSince(b, g1) || !r.ChangedSince(b, g0) {
		t.Error("an addition of both: not both changed")
	}
	c := r.Clone()
	if c.ChangedSince(a, c.Generation()) {
		t.Error("clone changed since its own generation")
	}
	c.AddFrom(Origin{Kind: OriginTrace}, &Event{ProviderGUID: b, ID: 3})
	if c.ChangedSince(a, 0) || !c.ChangedSince(b, 0) {
		t.Error("clone: only b's addition after the clone counts")
	}
}

// TestRegistryBulkAdd: schemas added in one call answer as the same
// schemas added one call each (candidates in precedence order, nearest
// versions, provider names and generations), and additions to a clone
// of either, on keys and ids the bulk call made, stay in the clone (the
// bulk call's lists share arrays, which must never change in place).
func TestRegistryBulkAdd(t *testing.T) {
	a := uuid.MustParse("11111111-2222-3333-4444-555555555555")
	b := uuid.MustParse("66666666-2222-3333-4444-555555555555")
	var events []*Event
	for id := uint16(1); id <= 40; id++ {
		for _, v := range []uint8{3, 0, 2} { // versions out of order
			g, name := a, "A"
			if id%3 == 0 {
				g, name = b, "B" // providers interleaved
			}
			events = append(events, &Event{ProviderGUID: g, ID: id, Version: v, ProviderName: name, OpcodeName: "first"})
		}
	}
	// Ids with one version each.
	events = append(events, &Event{ProviderGUID: a, ID: 41, Version: 4}, &Event{ProviderGUID: a, ID: 42, Version: 1})
	// A key given twice in the call: the second replaces the first.
	events = append(events, &Event{ProviderGUID: a, ID: 1, Version: 0, ProviderName: "A", OpcodeName: "second"})
	bulk, single := NewRegistry(), NewRegistry()
	g0 := bulk.Generation()
	bulk.AddFrom(Origin{Kind: OriginBuiltIn}, events...)
	for _, e := range events {
		single.AddFrom(Origin{Kind: OriginBuiltIn}, e)
	}
	if !bulk.ChangedSince(a, g0) || !bulk.ChangedSince(b, g0) {
		t.Error("the bulk call did not change both providers")
	}
	same := func(what string, x, y *Registry) {
		t.Helper()
		for id := uint16(1); id <= 43; id++ {
			for v := uint8(0); v <= 4; v++ {
				for _, g := range []uuid.UUID{a, b} {
					cx, cy := x.Candidates(g, id, v), y.Candidates(g, id, v)
					if len(cx) != len(cy) {
						t.Fatalf("%s: %d/%d: %d candidates against %d", what, id, v, len(cx), len(cy))
					}
					for i := range cx {
						if cx[i] != cy[i] {
							t.Fatalf("%s: %d/%d: candidate %d differs", what, id, v, i)
						}
					}
					nx, ex := x.LookupNearest(g, id, v)
					ny, ey := y.LookupNearest(g, id, v)
					if nx != ny || ex != ey {
						t.Fatalf("%s: nearest of %d/%d differs", what, id, v)
					}
				}
			}
		}
		if x.ProviderName(a) != y.ProviderName(a) || x.ProviderName(b) != y.ProviderName(b) || x.Len() != y.Len() {
			t.Fatalf("%s: names or sizes differ", what)
		}
	}
	same("bulk and single", bulk, single)
	if s, _ := bulk.Lookup(a, 1, 0); s == nil || s.OpcodeName != "second" {
		t.Errorf("1/0: %v, want the second schema given", s)
	}
	// Additions to clones, on the bulk call's keys and ids.
	cb, cs := bulk.Clone(), single.Clone()
	imported := &Event{ProviderGUID: a, ID: 2, Version: 0, ProviderName: "Imported"}
	v1, v4 := &Event{ProviderGUID: a, ID: 4, Version: 1}, &Event{ProviderGUID: b, ID: 3, Version: 4}
	for _, c := range []*Registry{cb, cs} {
		c.AddFrom(Origin{Kind: OriginImport}, imported)
		c.AddFrom(Origin{Kind: OriginTrace}, v1)
		c.AddFrom(Origin{Kind: OriginTrace}, v4)
	}
	same("clones", cb, cs)
	same("originals", bulk, single)
	if n := len(bulk.Candidates(a, 2, 0)); n != 1 {
		t.Errorf("2/0 of the original: %d candidates, want 1", n)
	}
	if s, exact := bulk.LookupNearest(a, 4, 1); exact || s == nil || s.Version != 0 {
		t.Errorf("nearest of 4/1 in the original: %v, %v; want version 0", s, exact)
	}
	if s, exact := bulk.LookupNearest(b, 3, 4); exact || s == nil || s.Version != 3 {
		t.Errorf("nearest of 3/4 in the original: %v, %v; want version 3", s, exact)
	}
	if s, exact := cb.LookupNearest(a, 4, 1); !exact || s == nil || s.Version != 1 {
		t.Errorf("nearest of 4/1 in the clone: %v, %v; want version 1", s, exact)
	}
}

// TestRegistryCloneAnswersAsCopy: a clone (whose additions lie over the
// original's shared maps) and a clone of it answer every question as a
// registry given the same additions in one piece would: candidates,
// nearest versions, names, Len, Providers, Schemas and All. The
// original's own later additions reach neither clone.
func TestRegistryCloneAnswersAsCopy(t *testing.T) {
	a := uuid.MustParse("11111111-2222-3333-4444-555555555555")
	b := uuid.MustParse("66666666-2222-3333-4444-555555555555")
	n := uuid.MustParse("77777777-2222-3333-4444-555555555555")
	base := []*Event{{ProviderGUID: a, ID: 1, Version: 0, ProviderName: "A"}, {ProviderGUID: a, ID: 1, Version: 2},
		{ProviderGUID: a, ID: 2}, {ProviderGUID: b, ID: 1, ProviderName: "B"}}
	first := []*Event{{ProviderGUID: a, ID: 1, Version: 0, ProviderName: "A2"}, {ProviderGUID: a, ID: 1, Version: 1},
		{ProviderGUID: n, ID: 9, ProviderName: "N"}}
	second := []*Event{{ProviderGUID: b, ID: 1, Version: 0, ProviderName: "B2"}, {ProviderGUID: a, ID: 3}}
	build := func(parts ...[]*Event) *Registry {
		r := NewRegistry()
		for i, p := range parts {
			r.AddFrom(Origin{Kind: []OriginKind{OriginBuiltIn, OriginImport, OriginTrace}[i]}, p...)
		}
		return r
	}
	same := func(what string, x, y *Registry) {
		t.Helper()
		for _, g := range []uuid.UUID{a, b, n} {
			for id := uint16(0); id <= 10; id++ {
				for v := uint8(0); v <= 3; v++ {
					cx, cy := x.Candidates(g, id, v), y.Candidates(g, id, v)
					if len(cx) != len(cy) {
						t.Fatalf("%s: %v %d/%d: %d candidates against %d", what, g, id, v, len(cx), len(cy))
					}
					for i := range cx {
						if cx[i] != cy[i] {
							t.Fatalf("%s: %v %d/%d: candidate %d differs", what, g, id, v, i)
						}
					}
					nx, ex := x.LookupNearest(g, id, v)
					ny, ey := y.LookupNearest(g, id, v)
					if nx != ny || ex != ey {
						t.Fatalf("%s: nearest of %v %d/%d differs", what, g, id, v)
					}
				}
			}
			if x.ProviderName(g) != y.ProviderName(g) {
				t.Fatalf("%s: name of %v: %q against %q", what, g, x.ProviderName(g), y.ProviderName(g))
			}
			sx, sy := x.Schemas(g), y.Schemas(g)
			if len(sx) != len(sy) {
				t.Fatalf("%s: %d schemas of %v against %d", what, len(sx), g, len(sy))
			}
			for i := range sx {
				if sx[i] != sy[i] {
					t.Fatalf("%s: schema %d of %v differs", what, i, g)
				}
			}
		}
		if x.Len() != y.Len() || len(x.Providers()) != len(y.Providers()) {
			t.Fatalf("%s: Len %d against %d, %d providers against %d", what, x.Len(), y.Len(), len(x.Providers()), len(y.Providers()))
		}
		ax, ay := x.All(), y.All()
		if len(ax) != len(ay) {
			t.Fatalf("%s: All: %d against %d", what, len(ax), len(ay))
		}
		for i := range ax {
			if ax[i] != ay[i] {
				t.Fatalf("%s: All: %d differs", what, i)
			}
		}
	}
	orig := build(base)
	c := orig.Clone()
	c.AddFrom(Origin{Kind: OriginImport}, first...)
	same("clone", c, build(base, first))
	cc := c.Clone()
	cc.AddFrom(Origin{Kind: OriginTrace}, second...)
	same("clone of a clone", cc, build(base, first, second))
	same("the clone after its clone's additions", c, build(base, first))
	orig.AddFrom(Origin{Kind: OriginTrace}, second...)
	same("the original after its own addition", orig, build(base, []*Event{}, second))
	same("the clone after the original's addition", c, build(base, first))
	same("its clone after the original's addition", cc, build(base, first, second))
}

// TestRegistryClonesAtOnce: clones made, added to and read on several
// goroutines while the original is read and added to (the race detector
// in .ci/run checks that the maps they share are only read): each
// clone holds the original's schemas of when it was made and its own.
func TestRegistryClonesAtOnce(t *testing.T) {
	g := uuid.MustParse("11111111-2222-3333-4444-555555555555")
	r := NewRegistry()
	var base []*Event
	for id := uint16(0); id < 64; id++ {
		base = append(base, &Event{ProviderGUID: g, ID: id, ProviderName: "P"})
	}
	r.AddFrom(Origin{Kind: OriginBuiltIn}, base...)
	done := make(chan error)
	for w := range 4 {
		go func() {
			c := r.Clone()
			own := &Event{ProviderGUID: g, ID: uint16(1000 + w)}
			c.AddFrom(Origin{Kind: OriginTrace}, own)
			for id := uint16(0); id < 64; id++ {
				if _, ok := c.Lookup(g, id, 0); !ok {
					done <- fmt.Errorf("clone %d: %d/0 missing", w, id)
					return
				}
			}
			if s, ok := c.Lookup(g, own.ID, 0); !ok || s != own {
				done <- fmt.Errorf("clone %d: its own schema missing", w)
				return
			}
			done <- nil
		}()
		r.AddFrom(Origin{Kind: OriginImport}, &Event{ProviderGUID: g, ID: uint16(2000 + w)})
		_ = r.Candidates(g, 1, 0)
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if r.Len() != 64+4 {
		t.Errorf("original: %d keys, want 68", r.Len())
	}
}
