package decode

import (
	"runtime"
	"sync/atomic"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// Ahead decodes, on an [etl.Reader]'s loaders, the events a pass will
// decode (it is an [etl.Preparer]), so that the goroutine that consumes
// the events in time order (building the analysis model, enriching them)
// only takes the results: decoding is most of such a pass's CPU after
// decompression.
//
//	ad := dec.Ahead(want)
//	r := etl.NewReader(files, &etl.ReaderOptions{Prepare: ad})
//	for r.Next() {
//		ev := r.Event()
//		if want(ev) {
//			res := ad.Decode(r, ev) // what dec.Decode(ev) returns now
//		}
//	}
//
// A result is used only if decoding the event again on the reading
// goroutine, at its turn, would give the same: the registry's generation
// (which every schema added changes: a pass registers the EventSource
// manifests it meets) must be the one the loader decoded with, except for
// TraceLogging events, which carry their own schema. EventSource
// manifest events are never decoded ahead (decoding one assembles the
// manifest), nor the events past maxAheadEvents in a buffer or past
// maxAheadValues decoded values, which bound the memory a buffer's
// results take; the reading goroutine decodes those itself.
type Ahead struct {
	dec  *Decoder // the pass's: its registry is the one checked
	want func(ev *etl.Event) bool
	decs chan *Decoder  // clones of dec for the loaders
	free chan *aheadBuf // released results, their arenas kept for the pass
	st   AheadStats
	live atomic.Int32 // buffers' results not released
}

// Bounds on what is decoded ahead per buffer (a 64 KiB buffer holds at
// most ~2,700 records).
const (
	maxAheadEvents = 1 << 14
	maxAheadValues = 1 << 13
	maxAheadLive   = 32 // buffers with results at once
)

// aheadBuf is what the loaders made of one buffer.
type aheadBuf struct {
	a    *Ahead
	ents []aheadEnt // per event, in record order
	res  []Result
	decs []tdh.Decoded
	vals []tdh.Value // the decodings' values, laid out in place
}

type aheadEnt struct {
	off int    // the event's RecordOffset
	res int32  // index in res, or -1 when not decoded
	tl  bool   // a TraceLogging event: valid whatever the generation
	gen uint64 // the registry's generation before decoding
}

// Ahead returns a Preparer that decodes with clones of d the events want
// selects; want is called on the loaders' goroutines (and must only read
// the event). Results are valid until the Reader leaves the event's
// buffer.
func (d *Decoder) Ahead(want func(ev *etl.Event) bool) *Ahead {
	return &Ahead{dec: d, want: want, decs: make(chan *Decoder, min(runtime.GOMAXPROCS(0), etl.MaxWorkers)), free: make(chan *aheadBuf, maxAheadLive)}
}

// Prepare decodes what the pass will decode of b's events.
func (a *Ahead) Prepare(b *etl.Buffer, file int) etl.Prepared {
	if a.live.Add(1) > maxAheadLive {
		a.live.Add(-1)
		return nil
	}
	var d *Decoder
	select {
	case d = <-a.decs:
	default:
		d = a.dec.Clone()
	}
	var ab *aheadBuf
	select {
	case ab = <-a.free:
	default:
		ab = &aheadBuf{a: a, vals: make([]tdh.Value, 0, maxAheadValues)}
	}
	reg := d.Registry
	rr := b.Records()
	var ev etl.Event
	full := false // an event's values did not fit in the arena
	for len(ab.ents) < maxAheadEvents && rr.Next(&ev) {
		ev.File = file
		e := aheadEnt{off: ev.RecordOffset, res: -1}
		if !full && !isManifest(&ev) && a.want(&ev) {
			e.gen = reg.Generation()
			free := ab.vals[len(ab.vals):cap(ab.vals)]
			d.dec.UseValues(free)
			r := d.Decode(&ev)
			e.tl = r.Origin.Kind == "tracelogging"
			e.res = int32(len(ab.res))
			ab.res = append(ab.res, *r)
			if r.Decoded != nil {
				ab.decs = append(ab.decs, *r.Decoded)
				if n := len(r.Decoded.Values); n > 0 {
					if n <= len(free) && &r.Decoded.Values[0] == &free[:1][0] {
						ab.vals = ab.vals[:len(ab.vals)+n] // laid out in the arena
					} else {
						full = true // this one has its own array
					}
				}
			} else {
				ab.decs = append(ab.decs, tdh.Decoded{})
			}
		}
		ab.ents = append(ab.ents, e)
	}
	for i := range ab.res {
		if ab.res[i].Decoded != nil {
			ab.res[i].Decoded = &ab.decs[i]
		}
	}
	d.dec.UseValues(nil) // the decoder's next values are its own again
	select {
	case a.decs <- d:
	default:
	}
	return ab
}

// Release returns the buffer's results to the pool.
func (ab *aheadBuf) Release() {
	ab.a.live.Add(-1)
	// Not cleared: what the results refer to (pooled buffers, schemas)
	// stays reachable until the arenas are reused or the pass ends.
	ab.ents, ab.res, ab.decs, ab.vals = ab.ents[:0], ab.res[:0], ab.decs[:0], ab.vals[:0]
	select {
	case ab.a.free <- ab:
	default:
	}
}

// Decode returns the decoding of ev, r's current event: the loaders' when
// it is what the Decoder would return now, else the Decoder's (with the
// lifetime of [Decoder.Decode]'s result).
func (a *Ahead) Decode(r *etl.Reader, ev *etl.Event) *Result {
	p, i := r.Prepared()
	if ab, ok := p.(*aheadBuf); ok && i >= 0 && i < len(ab.ents) {
		e := &ab.ents[i]
		if e.off == ev.RecordOffset && e.res >= 0 && (e.tl || e.gen == a.dec.Registry.Generation()) {
			a.st.Ahead++
			return &ab.res[e.res]
		}
	}
	a.st.InTurn++
	return a.dec.Decode(ev)
}

// AheadStats counts where [Ahead.Decode]'s results came from.
type AheadStats struct {
	Ahead  int // decoded on the loaders
	InTurn int // decoded by Ahead.Decode (not decoded ahead, or a schema was registered since)
}

// Stats returns the counts so far (read them on the reading goroutine).
func (a *Ahead) Stats() AheadStats { return a.st }

// isManifest reports whether ev is a chunk of an EventSource manifest,
// whose decoding registers the manifest.
func isManifest(ev *etl.Event) bool {
	return ev.Descriptor.ID == eventSourceManifestID && ev.Descriptor.Opcode == eventSourceManifestOpcode &&
		(ev.Header == etl.HeaderEvent32 || ev.Header == etl.HeaderEvent64)
}
