package tracerpt

import (
	"encoding/binary"

	"github.com/etwkit/etw/tdh"
)

// planCache keeps the rendering plans (tdh.JSONPlan) of recent schemas,
// direct-mapped by the schema's provider, id, version and opcode like
// namesCache. A slot makes its plan the second time in a row it meets a
// schema, reusing the plan's storage, so that schemas met once (the
// TraceLogging schemas compiled for each event when their cache is full)
// cost no plan.
type planCache struct {
	slots [1 << planBits]struct {
		seen *tdh.Event // the schema last met, not planned yet
		plan tdh.JSONPlan
	}
}

const planBits = 8

// plan returns the plan of schema s, or nil when the event is to be
// rendered without one (one-shot rendering, a schema met once).
func (e *JSONEncoder) plan(s *tdh.Event) *tdh.JSONPlan {
	if e.oneShot || s == nil {
		return nil
	}
	if e.plans == nil {
		e.plans = new(planCache)
	}
	h := binary.LittleEndian.Uint64(s.ProviderGUID[:8]) ^ uint64(s.ID)<<8 ^ uint64(s.Version)<<24 ^ uint64(s.Opcode)<<32
	slot := &e.plans.slots[slotOf(h, planBits)]
	switch {
	case slot.plan.Schema() == s:
	case slot.seen == s:
		slot.seen = nil
		slot.plan.Reset(s)
	default:
		slot.seen = s
		return nil
	}
	return &slot.plan
}
