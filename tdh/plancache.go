package tdh

import (
	"encoding/binary"

	"github.com/etwkit/etw/internal/prefault"
)

// PlanCache keeps the [JSONPlan]s of the schemas an encoder meets, for one
// goroutine (it is not safe for concurrent use). Its slots are addressed
// by the schema's provider, id, version and opcode, so that a schema
// compiled again for the same event reuses the storage of its slot's plan.
// A slot plans a schema the second time in a row it meets it: a schema
// met once (a TraceLogging schema compiled for one event when its cache is
// full) costs no plan and no allocation. The zero value is ready to use;
// it allocates its slots on the first plan.
type PlanCache struct {
	slots *[planCacheSlots]planSlot
}

type planSlot struct {
	pending *Event // met once, not planned yet
	plan    JSONPlan
}

const planCacheBits = 8
const planCacheSlots = 1 << planCacheBits

// Plan returns the plan of schema s, or nil when s is nil or met for the
// first time in its slot; the plan's methods take nil for "no plan".
func (c *PlanCache) Plan(s *Event) *JSONPlan {
	if s == nil {
		return nil
	}
	if c.slots == nil {
		c.slots = prefault.New[[planCacheSlots]planSlot]() // probed before written
	}
	sl := &c.slots[s.SlotHash()>>(64-planCacheBits)]
	if sl.plan.schema == s {
		return &sl.plan
	}
	if sl.pending != s {
		sl.pending = s
		return nil
	}
	sl.pending = nil
	sl.plan.Reset(s)
	return &sl.plan
}

// SlotHash returns a hash of the schema's provider, id, version and
// opcode, whose top bits pick a slot in a cache that keeps something per
// schema (PlanCache, the XML dump's texts): a schema compiled again for
// the same event finds the slot of the one before.
func (s *Event) SlotHash() uint64 {
	key := binary.LittleEndian.Uint64(s.ProviderGUID[:8]) ^ binary.LittleEndian.Uint64(s.ProviderGUID[8:])
	key ^= uint64(s.ID)<<8 | uint64(s.Version)<<24 | uint64(s.Opcode)<<32
	return key * 0x9E3779B97F4A7C15
}
