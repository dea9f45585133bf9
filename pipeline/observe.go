package pipeline

import (
	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// A pass that needs the trace for another purpose than the dump shares
// Run's (package tables writes its samples, disk I/O and stack tables in
// the pass that writes its events table) through Config's observers:
//
//   - Observe is called on the reading goroutine with every event read, in
//     time order, before the filter: the n-th call (from 0) is the event
//     whose annotation has Seq n. res is the event's decoding when the
//     enricher (Config.Analysis) or ObserveDecode asked for it, else nil;
//     both are valid until Observe returns. Observe must not decode with
//     Config.Decoder: with one worker and no analysis, the event it asked
//     to be decoded is rendered from res, decoded once.
//   - Written is called on the goroutine that writes to Config.Output, in
//     output order, with every event written (just before its rendering
//     goes to Output) and its final annotation (nil without
//     Config.Analysis), valid until Written returns.
//
// The two run concurrently when Workers is not 1. An error from either
// stops Run, which returns it.

// observe calls Config.Observe with ev, decoding it with d unless res is
// given or nothing asks for it.
func (p *run[E]) observe(ev *etl.Event, d *decode.Decoder, res *decode.Result) error {
	if res == nil {
		res = p.observeDecoded(ev, d)
	}
	return p.observed(ev, res)
}

// observed calls Config.Observe with ev and its decoding res, as given
// (nil: not decoded).
func (p *run[E]) observed(ev *etl.Event, res *decode.Result) error {
	if p.c.Observe == nil {
		return nil
	}
	return p.c.Observe(ev, res)
}

// observeDecoded returns ev decoded with d when Config.Observe asks for
// its decoding (ObserveDecode), else nil.
func (p *run[E]) observeDecoded(ev *etl.Event, d *decode.Decoder) *decode.Result {
	if p.c.Observe == nil || p.c.ObserveDecode == nil || !p.c.ObserveDecode(ev) {
		return nil
	}
	return d.Decode(ev)
}

// written calls Config.Written.
func (p *run[E]) written(ev *etl.Event, a *analysis.Annotation) error {
	if p.c.Written == nil {
		return nil
	}
	return p.c.Written(ev, a)
}
