package decode

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/tdh"
)

// eventSources reassembles the manifests that .NET EventSource providers
// log about themselves: event 0xFFFE, whose payload is an 8-byte envelope
// {u8 Format, u8 MajorVersion, u8 MinorVersion, u8 Magic 0x5B,
// u16 TotalChunks, u16 ChunkNumber} followed by a chunk of UTF-8 XML.
//
// The chunks of a manifest not yet complete are kept per provider, within
// bounds: a provider whose chunks pass MaxEventSourceManifest loses them;
// past MaxEventSourcePending bytes or MaxEventSourceProviders providers in
// all, the providers that started longest ago lose theirs, so that a
// manifest logged later still completes. The drops are summed up as
// warnings.
type eventSources struct {
	mu      sync.Mutex
	pending map[chunkKey]*chunks // per file and provider: files merged in time order interleave
	order   []pendingRef         // pending providers, oldest first (with stale entries)
	seq     int                  // sequence number of the next chunks started
	held    int                  // bytes of chunks held in pending
	seen    map[[32]byte]bool    // manifests already registered, by content hash
	names   map[uuid.UUID]string
	dropped droppedChunks

	// parsing holds the providers whose manifests are being parsed on
	// other goroutines (parseAsync), nil when none; last is the done
	// channel of the last of those parses started (under mu).
	parsing atomic.Pointer[[]uuid.UUID]
	last    chan struct{}
	queued  int // bytes of XML of those parses not yet registered (under mu)
}

type pendingRef struct {
	g   chunkKey
	seq int
}

// chunkKey is whose chunks are being assembled: a provider in one file
// (the reader's index), so that the chunks of the same provider's
// manifests in two files merged in time order do not mix.
type chunkKey struct {
	file int
	g    uuid.UUID
}

// Bounds on the EventSource manifest chunks kept while a manifest is
// incomplete (docs/limits.md).
const (
	// MaxEventSourceManifest bounds the chunks kept for one provider: an
	// EventSource manifest larger than this is not registered.
	MaxEventSourceManifest = 16 << 20
	// MaxEventSourcePending bounds the chunks kept for all providers.
	MaxEventSourcePending = 64 << 20
	// MaxEventSourceProviders bounds the providers with chunks kept.
	MaxEventSourceProviders = 1024
)

// chunkOverhead is what one kept chunk costs besides its bytes.
const chunkOverhead = 64

type chunks struct {
	total int
	seq   int
	bytes int // held, overhead included
	parts map[int][]byte
}

// droppedChunks counts the chunks dropped at each bound.
type droppedChunks struct {
	manifest, pending, providers int // chunks dropped
	reported                     droppedChunksTotals
}

type droppedChunksTotals struct{ manifest, pending, providers int }

const envelopeSize = 8

func newEventSources() *eventSources {
	return &eventSources{pending: map[chunkKey]*chunks{}, seen: map[[32]byte]bool{}, names: map[uuid.UUID]string{}}
}

// evictOldest drops the chunks of the provider that started longest ago,
// other than keep; it returns the chunks dropped, or -1 if there is none.
func (es *eventSources) evictOldest(keep chunkKey) int {
	for i, r := range es.order {
		if c := es.pending[r.g]; c == nil || c.seq != r.seq || r.g == keep {
			continue // stale (compacted away later), or the one to keep
		}
		es.order = slices.Delete(es.order, i, i+1)
		return es.drop(r.g)
	}
	return -1
}

// drop forgets the chunks kept for g.
func (es *eventSources) drop(g chunkKey) int {
	c := es.pending[g]
	if c == nil {
		return 0
	}
	delete(es.pending, g)
	es.held -= c.bytes
	return len(c.parts)
}

// add takes one manifest chunk event and, when it completes a manifest
// not seen before, registers the manifest's schemas with reg.
// Another goroutine's add waits for the registration, and this one for
// the manifests being parsed apart (parseAsync).
func (es *eventSources) add(reg *tdh.Registry, ev *etl.Event) error {
	es.waitParsed()
	es.mu.Lock()
	defer es.mu.Unlock()
	xml, err := es.assemble(ev)
	if xml == nil {
		return err
	}
	return es.registerXML(reg, xml, ev.ProviderID)
}

// assemble takes one manifest chunk event. It returns the manifest's XML
// when the chunk completes a manifest not seen before, else nil. The
// caller holds es.mu.
func (es *eventSources) assemble(ev *etl.Event) ([]byte, error) {
	b := ev.UserData
	if len(b) < envelopeSize || b[3] != 0x5B {
		return nil, fmt.Errorf("EventSource manifest event of %v: no manifest envelope", ev.ProviderID)
	}
	if b[0] != 1 {
		return nil, fmt.Errorf("EventSource manifest event of %v: format %d is not XML", ev.ProviderID, b[0])
	}
	total := int(binary.LittleEndian.Uint16(b[4:]))
	n := int(binary.LittleEndian.Uint16(b[6:]))
	if total == 0 || n >= total {
		return nil, fmt.Errorf("EventSource manifest event of %v: chunk %d of %d", ev.ProviderID, n, total)
	}
	g := chunkKey{ev.File, ev.ProviderID}
	c := es.pending[g]
	// Chunk 0 starts the manifest again only when the one being assembled
	// has its chunk 0 already: in file order a later chunk can come first
	// (buffers of different processors).
	restart := false
	if c != nil {
		_, restart = c.parts[0]
	}
	if c == nil || c.total != total || n == 0 && restart {
		es.drop(g)
		for len(es.pending) >= MaxEventSourceProviders {
			k := es.evictOldest(g)
			if k < 0 {
				break
			}
			es.dropped.providers += k
		}
		c = &chunks{total: total, seq: es.seq, parts: map[int][]byte{}}
		es.seq++
		es.pending[g] = c
		if len(es.order) > 2*len(es.pending)+64 {
			// Compact the stale entries away.
			live := es.order[:0]
			for _, r := range es.order {
				if x := es.pending[r.g]; x != nil && x.seq == r.seq {
					live = append(live, r)
				}
			}
			es.order = live
		}
		es.order = append(es.order, pendingRef{g, c.seq})
	}
	data := b[envelopeSize:]
	cost := len(data) + chunkOverhead
	if old, ok := c.parts[n]; ok {
		cost -= len(old) + chunkOverhead
	}
	if c.bytes+cost > MaxEventSourceManifest {
		es.dropped.manifest += es.drop(g) + 1
		return nil, nil
	}
	for es.held+cost > MaxEventSourcePending {
		k := es.evictOldest(g)
		if k < 0 {
			break // only g's chunks are held, and they fit its own bound
		}
		es.dropped.pending += k
	}
	c.parts[n] = bytes.Clone(data)
	c.bytes += cost
	es.held += cost
	if len(c.parts) < total {
		return nil, nil
	}
	es.drop(g)
	var xml []byte
	for i := 0; i < total; i++ {
		xml = append(xml, c.parts[i]...)
	}
	h := sha256.Sum256(xml)
	if es.seen[h] {
		return nil, nil
	}
	es.seen[h] = true
	return xml, nil
}

// manifestName names a manifest logged by provider g in errors.
func manifestName(g uuid.UUID) string { return fmt.Sprintf("EventSource manifest of %v", g) }

// parseManifest parses xml, the manifest provider g logged.
func parseManifest(xml []byte, g uuid.UUID) (*manifest.Manifest, error) {
	return manifest.Parse(bytes.NewReader(xml), manifestName(g))
}

// registerXML parses xml, the manifest provider g logged, and registers
// its schemas with reg. The caller holds es.mu.
func (es *eventSources) registerXML(reg *tdh.Registry, xml []byte, g uuid.UUID) error {
	m, err := parseManifest(xml, g)
	return es.register(reg, m, err, g)
}

// register registers the schemas of m, the manifest logged by provider g
// (parsed with error err), with reg. The caller holds es.mu.
func (es *eventSources) register(reg *tdh.Registry, m *manifest.Manifest, err error, g uuid.UUID) error {
	if err != nil {
		return err
	}
	for _, p := range m.Providers {
		es.names[p.GUID] = p.Name
	}
	schemas, errs := m.Schemas()
	reg.AddFrom(originEventSource, schemas...)
	if len(errs) > 0 {
		return fmt.Errorf("%s: %d events not imported: %v", manifestName(g), len(errs), errs[0])
	}
	return nil
}

// warnings returns one error per bound that dropped chunks since the last
// call, with the count.
func (es *eventSources) warnings() []error {
	es.mu.Lock()
	defer es.mu.Unlock()
	d := &es.dropped
	var out []error
	if n := d.manifest - d.reported.manifest; n > 0 {
		out = append(out, fmt.Errorf("EventSource manifests: %d chunks dropped: a manifest's chunks passed the %d-byte bound", n, MaxEventSourceManifest))
	}
	if n := d.pending - d.reported.pending; n > 0 {
		out = append(out, fmt.Errorf("EventSource manifests: %d chunks dropped: incomplete manifests' chunks passed the %d-byte bound", n, MaxEventSourcePending))
	}
	if n := d.providers - d.reported.providers; n > 0 {
		out = append(out, fmt.Errorf("EventSource manifests: %d chunks dropped: more than %d providers with incomplete manifests", n, MaxEventSourceProviders))
	}
	d.reported = droppedChunksTotals{d.manifest, d.pending, d.providers}
	return out
}

// name returns the provider name a reassembled manifest gave, or "".
func (es *eventSources) name(g uuid.UUID) string {
	es.mu.Lock()
	defer es.mu.Unlock()
	return es.names[g]
}

// eventSourceManifestSchema describes the manifest event itself.
func eventSourceManifestSchema(ev *etl.Event, provider string) *tdh.Event {
	return &tdh.Event{
		Source: tdh.SourceManifest, ProviderGUID: ev.ProviderID, ProviderName: provider, ID: eventSourceManifestID, Version: ev.Descriptor.Version,
		Opcode: eventSourceManifestOpcode, EventName: "ManifestData", OpcodeName: "ManifestData",
		Properties: []tdh.Property{
			tdh.ScalarProperty("Format", tdh.InTypeUInt8),
			tdh.ScalarProperty("MajorVersion", tdh.InTypeUInt8),
			tdh.ScalarProperty("MinorVersion", tdh.InTypeUInt8),
			{Name: "Magic", InType: tdh.InTypeUInt8, OutType: tdh.OutTypeHexInt8, LengthIndex: -1, CountIndex: -1},
			tdh.ScalarProperty("TotalChunks", tdh.InTypeUInt16),
			tdh.ScalarProperty("ChunkNumber", tdh.InTypeUInt16),
			{Name: "Data", InType: tdh.InTypeNonNullTerminatedAnsi, OutType: tdh.OutTypeUTF8, LengthIndex: -1, CountIndex: -1},
		},
	}
}
