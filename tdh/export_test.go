package tdh

// NoFixedRuns makes dec decode every property through level, as it did
// before it kept the schemas' fixed runs (what those must give).
func (dec *Decoder) NoFixedRuns() { dec.layouts.off = true }

// TestEscaper is testEscaper, for the external tests (checkPlan).
var TestEscaper MessageEscaper = testEscaper{}
