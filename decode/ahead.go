package decode

import (
	"math"
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
	// Peek, if set, makes for each of the loaders' decoders (clones of
	// the pass's, each used by one goroutine at a time) the function
	// tried before decoding an event want selects: when it reports ok,
	// its value is kept as extract's of the decoding would be, and the
	// event is not decoded. It reads the event through that decoder, with
	// what the decoder tells without decoding (PeekUint, a UintPeeker
	// kept with it), and must give extract's value exactly. Set it before
	// the reader starts.
	Peek    func(d *Decoder) func(ev *etl.Event) (T, bool)
	decs    chan *aheadDec[T] // clones of dec for the loaders
	free    chan *aheadBuf[T] // released values, their storage kept for the pass
	live    atomic.Int32      // buffers' values not released
	maxLive int32             // the bound on live (SetLive)
	// most is the most entries a buffer has held in the pass: a new
	// buffer's storage starts with room for as many, rather than grow
	// to it in a dozen steps (each allocated, cleared and copied: 6 % of
	// stats' CPU on net.4.5.2, whose buffers hold up to 2,031 entries).
	most atomic.Int32
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
// A merge of many inputs holds more buffers than that at once, one per
// stream (16 copies of net.4.5.2: 144 streams): its pass raises the
// bound to what its reader holds (SetLive), or the loaders would decode
// ahead for few of its buffers (386,519 of 1,369,376 events, and the
// reading goroutine decoded the rest). What bounds the values' memory is
// then what bounds the buffers': the model's values take at most as many
// bytes as a buffer (an entry of 16 bytes for a record of at least 16),
// and no buffer has more than maxAheadEvents.
const (
	maxAheadEvents = 1 << 14
	maxAheadLive   = 48
)

// aheadBuf is what the loaders kept of one buffer's events: an entry for
// each event decoded, none for the others (in the .NET rundown, whole
// buffers of events the model reads nothing of), so that what the
// buffers in flight hold, all new memory while the pass runs, is small.
type aheadBuf[T any] struct {
	a *Ahead[T]
	// gen is the registry's generation before the buffer's first
	// decoding: a provider's schemas added since then may have changed
	// its events' decodings (some added before a decoding are counted
	// too: those events are decoded again, in turn).
	gen  uint64
	ents []aheadEnt[T] // in record order
	next int           // Get's cursor: the entries before it are of records read
	ev   etl.Event     // Prepare's scratch, kept with the storage (want and extract take its address)
}

// aheadDec is a loader's decoder and the peek made for it.
type aheadDec[T any] struct {
	d    *Decoder
	peek func(ev *etl.Event) (T, bool)
}

// aheadEnt is the value kept of one event. Its record's offset says which
// event (the records of a buffer are in offset order, and a buffer is at
// most etl.MaxBufferSize long), with the TraceLogging flag beside it: 16
// bytes an entry for the model's values rather than 20 with the record's
// index apart (the entries of the buffers in flight were ~400 of stats'
// page faults on two processors).
type aheadEnt[T any] struct {
	at  uint32 // RecordOffset<<1, | 1 for a TraceLogging event (valid whatever the generation)
	val T
}

// aheadAt is an entry's at for the record at off.
func aheadAt(off int, tl bool) uint32 {
	at := uint32(off) << 1
	if tl {
		at |= 1
	}
	return at
}

// NewAhead returns a Preparer that decodes with clones of d the events
// want selects and keeps extract's value of each. want and extract are
// called on the loaders' goroutines, several at once: they must only read
// the event and the result (valid until they return).
func NewAhead[T any](d *Decoder, want func(ev *etl.Event) bool, extract func(ev *etl.Event, res *Result) T) *Ahead[T] {
	return &Ahead[T]{dec: d, want: want, extract: extract,
		decs:    make(chan *aheadDec[T], min(runtime.GOMAXPROCS(0), etl.MaxWorkers)),
		free:    make(chan *aheadBuf[T], maxAheadLive),
		maxLive: maxAheadLive}
}

// SetLive sets the most buffers whose values are held at once (48 by
// default; a smaller n is ignored): the loaders decode nothing ahead for
// a buffer loaded while as many are held, and the pass decodes its events
// itself. A pass whose reader holds more buffers at once (a merge of
// many inputs: [etl.Reader.Streams] plus its loads ahead) should allow
// as many. Call it before the reader starts.
func (a *Ahead[T]) SetLive(n int) {
	if n <= int(a.maxLive) {
		return
	}
	a.maxLive = int32(min(n, math.MaxInt32))
	a.free = make(chan *aheadBuf[T], a.maxLive)
}

// Prepare decodes what the pass wants of b's events.
func (a *Ahead[T]) Prepare(b *etl.Buffer, file int) etl.Prepared {
	if a.live.Add(1) > a.maxLive {
		a.live.Add(-1)
		return nil
	}
	var ld *aheadDec[T]
	select {
	case ld = <-a.decs:
	default:
		ld = &aheadDec[T]{d: a.dec.Clone()}
		if a.Peek != nil {
			ld.peek = a.Peek(ld.d)
		}
	}
	d := ld.d
	var ab *aheadBuf[T]
	select {
	case ab = <-a.free:
	default:
		ab = &aheadBuf[T]{a: a, ents: make([]aheadEnt[T], 0, max(64, int(a.most.Load())))}
	}
	ab.gen = d.Registry.Generation()
	rr := b.Records()
	ev := &ab.ev
	for i := 0; i < maxAheadEvents && rr.Next(ev); i++ {
		ev.File = file
		if isManifest(ev) || !a.want(ev) {
			continue
		}
		if ld.peek != nil {
			// PeekUint reads no TraceLogging event.
			if v, ok := ld.peek(ev); ok {
				ab.ents = append(ab.ents, aheadEnt[T]{at: aheadAt(ev.RecordOffset, false), val: v})
				continue
			}
		}
		r := d.Decode(ev)
		ab.ents = append(ab.ents, aheadEnt[T]{at: aheadAt(ev.RecordOffset, r.Origin.Kind == "tracelogging"), val: a.extract(ev, r)})
	}
	if n := int32(len(ab.ents)); n > a.most.Load() {
		a.most.Store(n) // racing loaders: one of the largest wins
	}
	*ev = etl.Event{} // it points into the buffer, which is not kept
	select {
	case a.decs <- ld:
	default:
	}
	return ab
}

// Release returns the buffer's storage to the pass.
func (ab *aheadBuf[T]) Release() {
	ab.a.live.Add(-1)
	clear(ab.ents) // values may hold pointers: the storage kept must not keep what they point to
	ab.ents, ab.next = ab.ents[:0], 0
	select {
	case ab.a.free <- ab:
	default:
	}
}

// Get returns the value kept of ev, r's current event, when the loaders
// decoded it and decoding it now would give the same; otherwise false:
// the caller decodes ev itself. The events of a buffer are asked for in
// record order (each once or more, any of them not at all).
func (a *Ahead[T]) Get(r *etl.Reader, ev *etl.Event) (T, bool) {
	a.dec.es.guard(ev.ProviderID) // a registration under way changes what ev decodes to
	p, i := r.Prepared()
	if ab, ok := p.(*aheadBuf[T]); ok && i >= 0 {
		ents := ab.ents
		n := ab.next
		at := aheadAt(ev.RecordOffset, false)
		for n < len(ents) && ents[n].at&^1 < at {
			n++
		}
		ab.next = n
		if n < len(ents) {
			e := &ents[n]
			if e.at&^1 == at && (e.at&1 != 0 || !a.dec.Registry.ChangedSince(ev.ProviderID, ab.gen)) {
				return e.val, true
			}
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
