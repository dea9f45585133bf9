package tdh

import (
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
