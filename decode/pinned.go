package decode

import (
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
	"github.com/etwkit/etw/tracelogging"
)

// Pinned is what [Decoder.Decode] looks up to decode one event: the
// registered schemas it may have, as they were when [Decoder.Pin] took
// them. [Decoder.DecodePinned] decodes the event's payload with them, on
// any goroutine and at any later time, and gives the result Decode gave
// when Pin was called, whatever schemas were registered meanwhile: the
// goroutine that reads in time order (and registers the trace's schemas
// as it meets them) looks the schemas up, another decodes.
type Pinned struct {
	cands []tdh.Candidate // never modified in place (tdh.Registry)
	exact bool
	ptr   int
}

// Pin looks up, as Decode would now, the schemas ev decodes with. ok is
// false for the events Decode does more with than a lookup: TraceLogging
// events (their schema is compiled from the event), EventSource manifest
// chunks (decoding one assembles the manifest) and lookups that fail:
// decode those with Decode, in turn.
func (d *Decoder) Pin(ev *etl.Event) (p Pinned, ok bool) {
	if meta, _ := tracelogging.Items(ev); meta != nil || isManifest(ev) {
		return Pinned{}, false
	}
	cands, exact, err := d.candidates(ev)
	if err != nil {
		return Pinned{}, false
	}
	return Pinned{cands: cands, exact: exact, ptr: ev.PointerSize()}, true
}

// DecodePinned decodes payload, the payload of the event p was pinned
// for (or a copy of it), with the schemas Pin took: the result Decode gave
// when Pin was called. It is valid until d decodes again.
func (d *Decoder) DecodePinned(payload []byte, p Pinned) *Result {
	r := &d.result
	*r = Result{}
	d.decodeWith(r, p.cands, p.exact, payload, p.ptr)
	return r
}
