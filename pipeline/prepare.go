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
	return PrepareWith(files, dec, nil)
}

// PrepareWith is Prepare building the model with opts (nil: the zero
// Options), whose Observe it sets: the dumps' pass sets AnnotationsOnly.
func PrepareWith(files []*etl.File, dec *decode.Decoder, opts *analysis.Options) (m *analysis.Model, readErr, prescanErr error) {
	var o analysis.Options
	if opts != nil {
		o = *opts
	}
	ps := dec.NewPrescanner()
	o.Observe = ps.Observe
	m, readErr = analysis.Build(files, dec, &o)
	return m, readErr, ps.Finish()
}
