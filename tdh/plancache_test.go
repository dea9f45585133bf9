package tdh_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/tdh"
)

// TestPlanCache checks that a cache plans a schema the second time in a
// row it meets it, keeps the plan while other schemas pass through its
// slot once, and reuses a slot's plan for a schema compiled again.
func TestPlanCache(t *testing.T) {
	var c tdh.PlanCache
	if c.Plan(nil) != nil {
		t.Fatal("a plan for no schema")
	}
	a := &tdh.Event{ProviderGUID: uuid.MustParse("6a2dc7c1-930a-4fb5-bb44-80b30aebed6c"), ID: 1, Message: "%1",
		Properties: []tdh.Property{{Name: "A", InType: tdh.InTypeUInt32}}}
	if c.Plan(a) != nil {
		t.Fatal("a schema met once has a plan")
	}
	pa := c.Plan(a)
	if pa == nil || pa.Schema() != a {
		t.Fatalf("second meeting: plan %v, want one of a", pa)
	}
	// Another schema of the same slot, met once: a's plan stays.
	again := *a
	if c.Plan(&again) != nil {
		t.Fatal("a copy met once has a plan")
	}
	if c.Plan(a) != pa {
		t.Fatal("a's plan was lost to a schema met once")
	}
	// Met twice, the copy takes the slot's plan, reset for it.
	c.Plan(&again)
	if p := c.Plan(&again); p != pa || p.Schema() != &again {
		t.Fatalf("the copy's plan: %p of %p, want the slot's plan %p reset for it", p, p.Schema(), pa)
	}
	if allocs := testing.AllocsPerRun(100, func() { c.Plan(&again) }); allocs != 0 {
		t.Errorf("Plan of a planned schema: %v allocations", allocs)
	}
}
