package decode

import (
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
	"github.com/google/uuid"
)

// PeekUint returns what Decode(ev) followed by Decoded.Uint(name) gives,
// when it can tell without decoding ev (see [tdh.Decoder.Peek]): for an
// event with a classic header (kernel and MOF events) and one candidate
// schema, whose property called name is among the schema's leading
// fixed-size scalars. found is Uint's ok; peeked is false when the caller
// must decode ev to know.
func (d *Decoder) PeekUint(ev *etl.Event, name string) (v uint64, found, peeked bool) {
	if !d.peekable(ev) {
		return 0, false, false
	}
	p := d.peeks.lookup(d, ev, name)
	if p == nil {
		return 0, false, false
	}
	if p.cands != 1 {
		// No schema: nothing decoded (peeked). Several: Decode picks the
		// first that fits (not peeked).
		return 0, false, p.cands == 0
	}
	return p.plan.PeekUint(ev.UserData)
}

// peekable reports whether PeekUint may read ev: an event with a classic
// header (the candidates of other events may depend on the event itself:
// an EventSource manifest registers its schemas) that is not TraceLogging.
// Classic records carry no TraceLogging metadata (their only extended
// items are PEBS and PMC counters): the lookup only when there is an item.
// (Small enough to inline: it is on the path of every CPU sample.)
func (d *Decoder) peekable(ev *etl.Event) bool {
	return ev.Flags&etl.FlagClassicHeader != 0 && (len(ev.Extended) == 0 || !d.traceLogging(ev))
}

// traceLogging reports whether ev carries TraceLogging metadata. Kept
// out of peekable, which inlines only without it.
//
//go:noinline
func (d *Decoder) traceLogging(ev *etl.Event) bool {
	_, tl, _ := d.tl.Schema(ev)
	return tl
}

// peekMemo keeps what PeekUint found for the last few kinds of event and
// names it was asked: a pass peeks at runs of events of a kind or two (a
// trace's CPU samples: their ThreadId, and the idle thread's Reserved
// flags), and each of those then costs a comparison or two instead of a
// lookup of its candidates and of the property's place.
type peekMemo struct {
	last [4]peekLast
	next int // the entry the next miss replaces
}

// lookup returns the entry for ev and name, looked up on a miss; nil if
// PeekUint cannot tell.
func (m *peekMemo) lookup(d *Decoder, ev *etl.Event, name string) *peekLast {
	d.es.guard(ev.ProviderID) // before the memo: a manifest of ev's provider being parsed apart
	for i := range m.last {
		if p := &m.last[i]; p.holds(d, ev, name) {
			return p
		}
	}
	p := &m.last[m.next]
	if !p.find(d, ev, name) {
		return nil
	}
	m.next = (m.next + 1) % len(m.last)
	return p
}

// peekLast is what PeekUint found for a kind of event and a name, valid
// while the registry's generation holds.
type peekLast struct {
	reg      *tdh.Registry // whose generation gen is; nil: the entry holds nothing
	gen      uint64
	nearest  bool   // Decoder.Nearest's
	key      uint64 // peekKey's
	ptr      int
	provider uuid.UUID
	name     string

	cands int // the candidates' count (2: several)
	plan  tdh.PeekPlan
}

// holds reports whether p is what PeekUint finds for ev and name.
func (p *peekLast) holds(d *Decoder, ev *etl.Event, name string) bool {
	return p.name == name && p.holdsKind(d, ev)
}

// holdsKind is holds for the name p was found for (a UintPeeker's).
func (p *peekLast) holdsKind(d *Decoder, ev *etl.Event) bool {
	return p.key == peekKey(ev) && p.reg != nil && p.provider == ev.ProviderID &&
		(ev.Header != etl.HeaderMessage || p.ptr == ev.PointerSize()) && // else the flags tell
		p.reg == d.Registry && p.nearest == d.Nearest && p.gen == d.Registry.Generation()
}

// peekKey packs what of ev's header, besides its provider, its candidates
// and its pointer size depend on.
func peekKey(ev *etl.Event) uint64 {
	return uint64(ev.Header) | uint64(ev.Flags)<<8 | uint64(ev.Descriptor.ID)<<24 |
		uint64(ev.Descriptor.Opcode)<<40 | uint64(ev.Descriptor.Version)<<48
}

// find looks up ev's candidates and name's place, into p when they may
// be kept (false: PeekUint cannot tell).
func (p *peekLast) find(d *Decoder, ev *etl.Event, name string) bool {
	p.reg = nil
	if isManifest(ev) {
		return false // its lookup registers the manifest: not a peek's to make
	}
	// The generation before the lookup: a change during it makes the
	// next call look up again.
	gen := d.Registry.Generation()
	cands, _, err := d.candidates(ev)
	if err != nil {
		return false
	}
	*p = peekLast{reg: d.Registry, gen: gen, nearest: d.Nearest, key: peekKey(ev),
		ptr: ev.PointerSize(), provider: ev.ProviderID, name: name, cands: min(len(cands), 2)}
	if len(cands) == 1 {
		p.plan = d.dec.PeekPlan(cands[0].Schema, p.ptr, name)
	}
	return true
}

// A UintPeeker is [Decoder.PeekUint] of one property, for a pass that
// asks for it of runs of events of one kind (a trace's CPU samples: their
// ThreadId) on one goroutine: it keeps what it found for the last kind of
// event it read, and each event of that kind then costs a few
// comparisons and the read, with no lookup among the kinds PeekUint
// remembers. Its answers are PeekUint's. Use one per goroutine.
type UintPeeker struct {
	name string
	last peekLast
}

// NewUintPeeker returns a UintPeeker of the property called name.
func NewUintPeeker(name string) *UintPeeker { return &UintPeeker{name: name} }

// Peek returns what d.PeekUint(ev, name) returns.
func (u *UintPeeker) Peek(d *Decoder, ev *etl.Event) (v uint64, found, peeked bool) {
	if !d.peekable(ev) {
		return 0, false, false
	}
	d.es.guard(ev.ProviderID) // as lookup does, before what is kept
	p := &u.last
	if !p.holdsKind(d, ev) && !p.find(d, ev, u.name) {
		return 0, false, false
	}
	if p.cands != 1 { // as PeekUint
		return 0, false, p.cands == 0
	}
	return p.plan.PeekUint(ev.UserData)
}
