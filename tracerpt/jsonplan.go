package tracerpt

import "github.com/etwkit/etw/tdh"

// plan returns the plan of schema s, or nil when the event is to be
// rendered without one (one-shot rendering, a schema met once: the
// encoder's tdh.PlanCache plans a schema the second time in a row it
// meets it).
func (e *JSONEncoder) plan(s *tdh.Event) *tdh.JSONPlan {
	if e.oneShot {
		return nil
	}
	return e.plans.Plan(s)
}
