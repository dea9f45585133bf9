package pipeline

import (
	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// Prepare builds the analysis model of files in one pass that also
// registers with dec the schemas the trace carries (what Decoder.Prescan
// does), so that a Run that follows, with Prescanned set, needs no prescan
// of its own. readErr is what analysis.Build reports (damage the pass met,
// which a Run over the same files meets and reports again); prescanErr is
// the prescan's (a schema the trace carries that did not register).
func Prepare(files []*etl.File, dec *decode.Decoder) (m *analysis.Model, readErr, prescanErr error) {
	ps := dec.NewPrescanner()
	m, readErr = analysis.Build(files, dec, &analysis.Options{Observe: ps.Observe})
	return m, readErr, ps.Finish()
}
