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
	return prepare(files, dec, false)
}

// PrepareLate is Prepare for a Run with the model as Config.Analysis: it
// may return before the model's .NET methods are all added
// (analysis.Options.LateMethods), which the goroutines that resolve the
// events' stacks wait for when they first resolve one, while the Run
// reads on. Call the model's WaitMethods once Run is done (it raises a
// panic of the goroutine adding them).
func PrepareLate(files []*etl.File, dec *decode.Decoder) (m *analysis.Model, readErr, prescanErr error) {
	return prepare(files, dec, true)
}

func prepare(files []*etl.File, dec *decode.Decoder, late bool) (m *analysis.Model, readErr, prescanErr error) {
	ps := dec.NewPrescanner()
	m, readErr = analysis.Build(files, dec, &analysis.Options{Observe: ps.Observe, LateMethods: late})
	return m, readErr, ps.Finish()
}
