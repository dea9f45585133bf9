package decode

import (
	"runtime"
	"sync/atomic"

	"github.com/etwkit/etw/etl"
)

// Ahead decodes, on an [etl.Reader]'s loaders, the events a pass will
// decode (it is an [etl.Preparer]) and keeps of each what the pass needs
// of its decoding (extract's value), so that the goroutine that consumes
// the events in time order (building the analysis model, say) takes that
// value instead of decoding the event: decoding is most of such a pass's
// CPU after decompression. What is kept should be small: the kept values
// of every buffer in flight are live at once. It may hold pointers (a
// string, a slice): what they point to stays alive until the pass is done
// with the buffer, and no longer (its storage, kept for the next buffer,
// is cleared). The analysis model keeps two ids and a flag.
//
//	ad := decode.NewAhead(dec, want, extract)
//	r := etl.NewReader(files, &etl.ReaderOptions{Prepare: ad})
//	for r.Next() {
//		ev := r.Event()
//		if want(ev) {
//			v, ok := ad.Get(r, ev)
//			if !ok {
//				v = extract(ev, dec.Decode(ev))
//			}
//			use(v)
//		}
//	}
//
// A value is handed out only if decoding the event on the reading
// goroutine, at its turn, would give the same result: no schema of the
// event's provider may have been added to the registry since the loader
// decoded it (a pass registers the EventSource manifests it meets: the
// registry's generation changes, but the events of other providers, whose
// lookups it does not change, keep their values), except for TraceLogging
// events, which carry their own schema.
// EventSource manifest events are never decoded ahead (decoding one
// assembles the manifest), nor the events of a buffer past
// maxAheadEvents, nor those of buffers loaded while maxAheadLive buffers'
// values are held: the reading goroutine decodes those itself.
type Ahead[T any] struct {
	dec     *Decoder // the pass's: its registry is the one checked
	want    func(ev *etl.Event) bool
	extract func(ev *etl.Event, res *Result) T
	// Peek, if set, is tried before decoding an event want selects: when
	// it reports ok, its value is kept as extract's of the decoding would
	// be, and the event is not decoded. It reads the event through the
	// Decoder it is given, with what the decoder tells without decoding
	// (PeekUint), and must give extract's value exactly. Set it before
	// the reader starts.
	Peek func(ev *etl.Event, d *Decoder) (T, bool)
	decs chan *Decoder     // clones of dec for the loaders
	free chan *aheadBuf[T] // released values, their storage kept for the pass
	live atomic.Int32      // buffers' values not released
}

// Bounds on what is decoded ahead: events per buffer (a 64 KiB buffer
// holds at most ~2,700 records) and buffers with values at once. A
// time-order merge holds a buffer or more per processor stream and loads
// up to its read-ahead ahead of need (etl.Reader: max(16, 4 × its
// workers) by default). With that default, the model's pass over
// net.4.5.2 (8 processors) and over its ×16 copy held at most 32
// buffers' values at once on 2 cores and 47–48 with GOMAXPROCS=8
// (measured twice each on 2026-11-27 with a temporary counter), so the
// bound refused none there and came close at 8; the model pass now
// reads 32 ahead (analysis' readAhead), which was not counted so.
// Merges of more processors or workers may meet it: the bound is then
// what keeps the values' memory in hand.
const (
	maxAheadEvents = 1 << 14
	maxAheadLive   = 48
)

// aheadBuf is what the loaders kept of one buffer's events.
type aheadBuf[T any] struct {
	a    *Ahead[T]
	ents []aheadEnt[T] // per event, in record order
}

type aheadEnt[T any] struct {
	off int    // the event's RecordOffset
	gen uint64 // the registry's generation before decoding
	ok  bool   // decoded: val holds extract's value
	tl  bool   // a TraceLogging event: valid whatever the generation
	val T
}

// NewAhead returns a Preparer that decodes with clones of d the events
// want selects and keeps extract's value of each. want and extract are
// called on the loaders' goroutines, several at once: they must only read
// the event and the result (valid until they return).
func NewAhead[T any](d *Decoder, want func(ev *etl.Event) bool, extract func(ev *etl.Event, res *Result) T) *Ahead[T] {
	return &Ahead[T]{dec: d, want: want, extract: extract,
		decs: make(chan *Decoder, min(runtime.GOMAXPROCS(0), etl.MaxWorkers)),
		free: make(chan *aheadBuf[T], maxAheadLive)}
}

// Prepare decodes what the pass wants of b's events.
func (a *Ahead[T]) Prepare(b *etl.Buffer, file int) etl.Prepared {
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
	var ab *aheadBuf[T]
	select {
	case ab = <-a.free:
	default:
		ab = &aheadBuf[T]{a: a}
	}
	reg := d.Registry
	rr := b.Records()
	var ev etl.Event
	for len(ab.ents) < maxAheadEvents && rr.Next(&ev) {
		ev.File = file
		e := aheadEnt[T]{off: ev.RecordOffset}
		if !isManifest(&ev) && a.want(&ev) {
			e.gen = reg.Generation()
			if a.Peek != nil {
				// PeekUint reads no TraceLogging event: e.tl stays false.
				if v, ok := a.Peek(&ev, d); ok {
					e.ok, e.val = true, v
					ab.ents = append(ab.ents, e)
					continue
				}
			}
			r := d.Decode(&ev)
			e.ok, e.tl = true, r.Origin.Kind == "tracelogging"
			e.val = a.extract(&ev, r)
		}
		ab.ents = append(ab.ents, e)
	}
	select {
	case a.decs <- d:
	default:
	}
	return ab
}

// Release returns the buffer's storage to the pass.
func (ab *aheadBuf[T]) Release() {
	ab.a.live.Add(-1)
	clear(ab.ents) // values may hold pointers: the storage kept must not keep what they point to
	ab.ents = ab.ents[:0]
	select {
	case ab.a.free <- ab:
	default:
	}
}

// Get returns the value kept of ev, r's current event, when the loaders
// decoded it and decoding it now would give the same; otherwise false:
// the caller decodes ev itself.
func (a *Ahead[T]) Get(r *etl.Reader, ev *etl.Event) (T, bool) {
	p, i := r.Prepared()
	if ab, ok := p.(*aheadBuf[T]); ok && i >= 0 && i < len(ab.ents) {
		e := &ab.ents[i]
		if e.ok && e.off == ev.RecordOffset && (e.tl || !a.dec.Registry.ChangedSince(ev.ProviderID, e.gen)) {
			return e.val, true
		}
	}
	var zero T
	return zero, false
}

// isManifest reports whether ev is a chunk of an EventSource manifest,
// whose decoding registers the manifest.
func isManifest(ev *etl.Event) bool {
	return ev.Descriptor.ID == eventSourceManifestID && ev.Descriptor.Opcode == eventSourceManifestOpcode &&
		(ev.Header == etl.HeaderEvent32 || ev.Header == etl.HeaderEvent64)
}
