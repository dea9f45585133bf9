// Package decode ties the reader to the schema sources: it finds the
// schema of each [etl.Event] (TraceLogging metadata carried by the event,
// manifests imported from files or carried by the trace itself, MOF
// classes) and lays out its payload with the shared [tdh] engine.
//
//	d := decode.New()
//	if err := d.Import("ClrEtwAll.man"); err != nil { ... }
//	for r.Next() {
//		res := d.Decode(r.Event())
//		if res.Schema != nil && res.Err == nil {
//			fmt.Println(string(tdh.AppendPropertiesJSON(nil, res.Decoded)))
//		}
//	}
package decode

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/google/uuid"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
	"github.com/etwkit/etw/tracelogging"
)

// Decoder finds schemas for events and decodes their payloads. Its
// scratch storage is reused between calls: use one Decoder per goroutine
// (they may share a Registry).
//
// Schemas come from four places, tried in this order when several
// describe the same provider, event id (or class and type) and version:
//
//  1. the files named to [Decoder.Import], in the order named;
//  2. the schemas the trace carries ([Decoder.Prescan]: the manifests
//     .NET EventSource providers log, and the TDH metadata that relogging
//     adds);
//  3. the schemas built into the program (package catalog: kernel
//     classes, KernelTraceControl, the .NET runtime providers);
//  4. the files found under folders named to [Decoder.Import], in sorted
//     path order: a library that decodes what nothing above describes,
//     without overriding the trace's own schemas or the built-in ones.
//
// A schema that does not fit a payload (an error, or bytes left over)
// gives way to the next one that fits it exactly; [Result.Fallback] says
// so.
type Decoder struct {
	// Registry holds manifest (and MOF) schemas.
	Registry *tdh.Registry
	// Nearest lets an event whose exact version has no schema decode with
	// the nearest registered version (TDH would refuse it).
	Nearest bool

	tl      *tracelogging.Cache
	es      *eventSources
	strings *stringOnly
	imports *importState
	warn    *warnState
	dec     tdh.Decoder
	result  Result
	cands   candCache
	peeks   peekMemo // PeekUint's last lookups
}

// candCache keeps, per Decoder (so per goroutine), what the registry
// returned for each key, for as long as the registry's generation holds:
// the hot path takes no lock shared with other goroutines.
type candCache struct {
	reg *tdh.Registry // whose generation gen is (Decoder.Registry may be replaced)
	gen uint64
	m   map[candKey][]tdh.Candidate
	// slots is a direct-mapped cache in front of m: a trace's events
	// come in a few hundred kinds, and an array slot costs a fraction of
	// a map lookup (which hashes the 20-byte key) on every event.
	slots *[candSlots]candSlot
}

type candKey struct {
	guid    uuid.UUID
	id      uint16
	version uint8
}

// candSlot is one entry of candCache.slots; set is false while empty.
type candSlot struct {
	k   candKey
	set bool
	v   []tdh.Candidate
}

// candSlots is the size of candCache.slots.
const (
	candSlotBits = 8
	candSlots    = 1 << candSlotBits
)

// maxCandCache bounds the cache (a hostile trace may use any number of
// keys); past it the cache starts again empty.
const maxCandCache = 4096

// lookup returns the registry's candidates for the key.
func (c *candCache) lookup(reg *tdh.Registry, guid uuid.UUID, id uint16, version uint8) []tdh.Candidate {
	if g := reg.Generation(); g != c.gen || reg != c.reg || c.m == nil || len(c.m) >= maxCandCache {
		if c.m == nil {
			c.m = make(map[candKey][]tdh.Candidate, 64)
			c.slots = new([candSlots]candSlot)
		}
		clear(c.m)
		clear(c.slots[:]) // written before probed, new ones too (internal/prefault)
		c.reg, c.gen = reg, g
	}
	k := candKey{guid, id, version}
	h := binary.LittleEndian.Uint64(guid[:8]) ^ binary.LittleEndian.Uint64(guid[8:]) ^ uint64(id)<<16 ^ uint64(version)<<40
	slot := &c.slots[(h*0x9E3779B97F4A7C15)>>(64-candSlotBits)]
	if slot.set && slot.k == k {
		return slot.v
	}
	v, ok := c.m[k]
	if !ok {
		v = reg.Candidates(guid, id, version)
		c.m[k] = v
	}
	*slot = candSlot{k: k, set: true, v: v}
	return v
}

// warnState remembers what Warnings has reported.
type warnState struct {
	mu       sync.Mutex
	uncached int // TraceLogging compilations not cached, reported so far
}

// Warnings returns, once each, the bounds on schema state (shared by the
// clones of d) that were reached since the last call: EventSource manifest
// chunks dropped (MaxEventSourceManifest, MaxEventSourcePending,
// MaxEventSourceProviders) and TraceLogging schemas not cached because
// the cache is full (tracelogging.MaxCacheBytes). Decoding goes on: the
// manifests concerned are not registered, the schemas concerned are
// compiled for each event.
func (d *Decoder) Warnings() []error {
	out := d.es.warnings()
	if d.warn == nil {
		return out
	}
	d.warn.mu.Lock()
	defer d.warn.mu.Unlock()
	if n := d.tl.Uncached(); n > d.warn.uncached {
		out = append(out, fmt.Errorf("TraceLogging: the schema cache is full (%d bytes): %d schemas compiled for each event that carries them", tracelogging.MaxCacheBytes, n-d.warn.uncached))
		d.warn.uncached = n
	}
	return out
}

// New returns a Decoder whose registry holds the built-in schemas
// (package catalog): the NT Kernel Logger classes, KernelTraceControl and
// the .NET runtime providers.
func New() *Decoder {
	return newWithRegistry(builtIn().Clone())
}

// builtIn is the registry of the built-in schemas, made once; each
// decoder starts with a copy (schemas are never modified once
// registered).
var builtIn = sync.OnceValue(func() *tdh.Registry {
	reg := tdh.NewRegistry()
	catalog.Register(reg)
	return reg
})

// newWithRegistry returns a Decoder of reg with empty caches.
func newWithRegistry(reg *tdh.Registry) *Decoder {
	return &Decoder{Registry: reg, tl: &tracelogging.Cache{}, es: newEventSources(), strings: &stringOnly{}, imports: &importState{}, warn: &warnState{}}
}

// Clone returns a Decoder sharing d's registry and caches, for use on
// another goroutine.
func (d *Decoder) Clone() *Decoder {
	return &Decoder{Registry: d.Registry, Nearest: d.Nearest, tl: d.tl, es: d.es, strings: d.strings, imports: d.imports, warn: d.warn}
}

// Fork returns a Decoder for another trace: it starts with a copy of d's
// registry (the built-in schemas, everything imported so far, and the
// schemas of any trace d has prescanned) and none of d's other state
// (EventSource manifests being assembled, TraceLogging and string-only
// schemas, warnings). What the new decoder's [Decoder.Prescan]
// registers stays in its own registry, so that traces converted side by
// side do not lend each other schemas, and the imports are read once.
func (d *Decoder) Fork() *Decoder {
	d.es.waitParsed()
	f := newWithRegistry(d.Registry.Clone())
	f.Nearest = d.Nearest
	d.imports.mu.Lock()
	f.imports.next = d.imports.next
	d.imports.mu.Unlock()
	return f
}

// Result is the outcome of decoding one event. Decoded and its values are
// valid until the next call to [Decoder.Decode].
type Result struct {
	// Schema is nil when no schema is known for the event.
	Schema  *tdh.Event
	Decoded *tdh.Decoded
	// Origin is where Schema came from.
	Origin Origin
	// Exact is false when the schema is of another version (Nearest).
	Exact bool
	// Fallback is true when a schema of higher precedence did not fit
	// the payload and this one, of lower precedence, did.
	Fallback bool
	// Err is set when the payload does not fit the schema; Decoded then
	// holds the properties decoded before the failure.
	Err error
}

// Origin says where the schema of an event came from.
type Origin struct {
	// Kind is "import", "trace", "eventsource", "built-in",
	// "tracelogging" or "" (no schema).
	Kind string
	// File is the imported file, for Kind "import".
	File string
}

// String returns "import:<file>", "trace", "eventsource", "built-in",
// "tracelogging" or "none".
func (o Origin) String() string {
	switch o.Kind {
	case "":
		return "none"
	case "import":
		return "import:" + o.File
	}
	return o.Kind
}

func originOf(o tdh.Origin) Origin {
	switch o.Kind {
	case tdh.OriginImport, tdh.OriginFolder:
		return Origin{Kind: "import", File: o.Name}
	case tdh.OriginTrace:
		if o.Name == originEventSource.Name {
			return Origin{Kind: "eventsource"}
		}
		return Origin{Kind: "trace"}
	}
	return Origin{Kind: "built-in"}
}

var originEventSource = tdh.Origin{Kind: tdh.OriginTrace, Name: "eventsource"}

// EventSource manifest events: id 0xFFFE, opcode 0xFE.
const (
	eventSourceManifestID     = 0xFFFE
	eventSourceManifestOpcode = 0xFE
)

// Decode finds the schema of ev and lays out its payload.
func (d *Decoder) Decode(ev *etl.Event) *Result {
	r := &d.result
	*r = Result{}
	if s, ok, err := d.tl.Schema(ev); ok {
		r.Origin = Origin{Kind: "tracelogging"}
		if err != nil {
			r.Err = err
			return r
		}
		r.Schema, r.Exact = s, true
		r.Decoded, r.Err = d.dec.Decode(s, ev.UserData, ev.PointerSize())
		return r
	}
	cands, exact, err := d.candidates(ev)
	if err != nil {
		r.Err = err
		return r
	}
	d.decodeWith(r, cands, exact, ev.UserData, ev.PointerSize())
	return r
}

// decodeWith sets r (empty) to the decoding of payload with the first of
// cands, the registered schemas an event may have (highest precedence
// first), that fits it, else the first.
func (d *Decoder) decodeWith(r *Result, cands []tdh.Candidate, exact bool, payload []byte, ptr int) {
	if len(cands) == 0 {
		return
	}
	r.Exact = exact
	first := cands[0]
	r.Schema, r.Origin = first.Schema, originOf(first.Origin)
	r.Decoded, r.Err = d.dec.Decode(first.Schema, payload, ptr)
	if len(cands) == 1 || (r.Err == nil && len(r.Decoded.Extra) == 0) {
		return
	}
	for _, c := range cands[1:] {
		if dd, err := d.dec.Decode(c.Schema, payload, ptr); err == nil && len(dd.Extra) == 0 {
			r.Schema, r.Origin, r.Decoded, r.Err, r.Fallback = c.Schema, originOf(c.Origin), dd, nil, true
			return
		}
	}
	r.Decoded, r.Err = d.dec.Decode(first.Schema, payload, ptr)
}

// candidates returns the registered schemas that may describe ev, highest
// precedence first.
func (d *Decoder) candidates(ev *etl.Event) ([]tdh.Candidate, bool, error) {
	d.es.guard(ev.ProviderID) // a manifest of ev's provider being parsed apart
	switch ev.Header {
	case etl.HeaderEvent32, etl.HeaderEvent64:
		if ev.Flags&etl.FlagStringOnly != 0 {
			return d.strings.candidates(ev.ProviderID, d.Registry), true, nil
		}
		if isManifest(ev) {
			if err := d.es.add(d.Registry, ev); err != nil {
				return nil, false, err
			}
			s := eventSourceManifestSchema(ev, d.es.name(ev.ProviderID))
			return []tdh.Candidate{{Schema: s, Origin: originEventSource}}, true, nil
		}
	case etl.HeaderMessage:
		// WPP: TMF schemas are keyed by message GUID and number.
		c, exact := d.Registry.CandidatesNearest(ev.ProviderID, ev.Descriptor.ID, 0)
		return c, exact, nil
	case etl.HeaderError:
		return nil, false, nil
	}
	id := ev.Descriptor.ID
	if ev.Flags&etl.FlagClassicHeader != 0 {
		id = uint16(ev.Descriptor.Opcode) // classic events: class GUID + type + version
	}
	if c := d.cands.lookup(d.Registry, ev.ProviderID, id, ev.Descriptor.Version); len(c) > 0 {
		return c, true, nil
	}
	if d.Nearest {
		c, exact := d.Registry.CandidatesNearest(ev.ProviderID, id, ev.Descriptor.Version)
		return c, exact, nil
	}
	return nil, false, nil
}

// stringOnly holds the schemas of string-only events (EventWriteString:
// header flag EVENT_HEADER_FLAG_STRING_ONLY, whose payload is one
// NUL-terminated UTF-16 string), one per provider, each as the one
// candidate candidates returns (made once, so that decoding such an event
// allocates nothing).
type stringOnly struct {
	mu sync.Mutex
	m  map[uuid.UUID][]tdh.Candidate
}

// maxStringOnlyProviders bounds the cache; past it each event gets a new
// schema (a trace has a handful of such providers).
const maxStringOnlyProviders = 4096

func (s *stringOnly) candidates(provider uuid.UUID, reg *tdh.Registry) []tdh.Candidate {
	name := reg.ProviderName(provider)
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.m[provider]; c != nil && c[0].Schema.ProviderName == name {
		return c
	}
	e := &tdh.Event{Source: tdh.SourceManifest, ProviderGUID: provider, ProviderName: name, EventName: "EventWriteString", Message: "%1",
		Properties: []tdh.Property{tdh.ScalarProperty("String", tdh.InTypeUnicodeString)}}
	c := []tdh.Candidate{{Schema: e, Origin: catalog.Origin}}
	if s.m == nil {
		s.m = map[uuid.UUID][]tdh.Candidate{}
	}
	if len(s.m) < maxStringOnlyProviders {
		s.m[provider] = c
	}
	return c
}

// Warm starts making the built-in schemas on a goroutine of its own and
// returns at once, so that a later [New] finds them made or half made: a
// program that knows it will decode can overlap the work (0.3-0.5 ms at
// a process's start, its memory still cold: the registry's maps of the
// schemas, which the linker lays out) with its own setup.
func Warm() {
	go builtIn()
}
