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
	if s, exact := c.LookupNearest(g, 1, 5); s == nil || exact || s.Version != 0 {
		t.Errorf("clone nearest version of 1/5 = %v, %v; want version 0 (5 was added to the original only)", s, exact)
	}
}
