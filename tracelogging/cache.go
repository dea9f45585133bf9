package tracelogging

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// Cache compiles each distinct (provider GUID, provider traits, event
// metadata) triple once, keyed by the blobs' bytes, and remembers failures
// too, so that every metadata blob is parsed once however many events
// carry it. Lookups of known schemas take no lock and allocate nothing.
// A Cache is safe for concurrent use; the zero Cache is ready to use.
//
// The cache holds at most [MaxCacheBytes] (the blobs and an estimate of
// their compiled schemas); past it, new blobs are compiled for each event
// that carries them and [Cache.Uncached] counts them.
type Cache struct {
	read atomic.Pointer[cacheMap] // immutable; replaced on promotion

	mu       sync.Mutex
	dirty    cacheMap // entries not yet in read
	misses   int      // lookups that took the lock since the last promotion
	names    map[*tdh.Event]bool
	weight   int64 // bytes held, estimated
	uncached int   // compilations not kept because the cache was full
}

// MaxCacheBytes bounds the memory a [Cache] holds: the metadata blobs it
// keys on plus cacheBytesPerProperty per compiled property.
const MaxCacheBytes = 64 << 20

// cacheBytesPerProperty estimates the memory of one compiled property
// (tdh.Property and its share of the slices).
const cacheBytesPerProperty = 160

// Uncached returns how many compilations were not kept because the cache
// was full.
func (c *Cache) Uncached() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.uncached
}

// entryWeight estimates the bytes an entry holds.
func entryWeight(key string, e *cacheEntry) int64 {
	w := int64(len(key)+len(e.traits)) + 64
	if e.err != nil {
		w += int64(len(key)) // the error keeps a copy of the blob
	}
	if e.schema != nil {
		w += cacheBytesPerProperty * int64(countProperties(e.schema.Properties))
	}
	return w
}

func countProperties(props []tdh.Property) int {
	n := len(props)
	for i := range props {
		n += countProperties(props[i].Members)
	}
	return n
}

type cacheMap map[string][]*cacheEntry // by metadata bytes

type cacheEntry struct {
	provider uuid.UUID
	traits   string
	schema   *tdh.Event
	err      error
}

func (m cacheMap) find(provider uuid.UUID, traits, meta []byte) *cacheEntry {
	for _, e := range m[string(meta)] {
		if e.provider == provider && e.traits == string(traits) {
			return e
		}
	}
	return nil
}

// Items returns the TraceLogging event metadata (extended item 11) and
// provider traits (item 12) of an event; meta is nil if it has none.
func Items(ev *etl.Event) (meta, traits []byte) {
	for i := range ev.Extended {
		x := &ev.Extended[i]
		switch x.Type {
		case etl.ExtEventSchemaTL:
			meta = x.Data
		case etl.ExtProvTraits:
			traits = x.Data
		}
	}
	return meta, traits
}

// Schema returns the TDH schema of a TraceLogging event, from its extended
// items 11 and 12. ok is false for events without TraceLogging metadata.
// Metadata that cannot be decoded gives a [*MetadataError] (the same one
// for every event carrying that blob) naming the damaged field.
func (c *Cache) Schema(ev *etl.Event) (schema *tdh.Event, ok bool, err error) {
	meta, traits := Items(ev)
	if meta == nil {
		return nil, false, nil
	}
	if r := c.read.Load(); r != nil {
		if e := r.find(ev.ProviderID, traits, meta); e != nil {
			return e.schema, true, e.err
		}
	}
	e := c.miss(ev.ProviderID, traits, meta)
	return e.schema, true, e.err
}

// miss finds or compiles an entry under the lock, and promotes the dirty
// entries into the lock-free map once they have cost enough lookups to
// pay for the copy.
func (c *Cache) miss(provider uuid.UUID, traits, meta []byte) *cacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.read.Load()
	if r != nil {
		if e := r.find(provider, traits, meta); e != nil {
			return e
		}
	}
	e := c.dirty.find(provider, traits, meta)
	if e == nil {
		key := string(meta)
		e = compileEntry(provider, string(traits), key)
		w := entryWeight(key, e)
		if c.weight+w > MaxCacheBytes {
			c.uncached++
			return e
		}
		c.weight += w
		if c.dirty == nil {
			c.dirty = cacheMap{}
		}
		c.dirty[key] = append(c.dirty[key], e)
		if e.schema != nil {
			if c.names == nil {
				c.names = map[*tdh.Event]bool{}
			}
			c.names[e.schema] = NameMatchesGUID(e.schema.ProviderName, provider)
		}
	}
	c.misses++
	n := 0
	if r != nil {
		n = len(*r)
	}
	if c.misses >= max(len(c.dirty), n/8) {
		m := make(cacheMap, n+len(c.dirty))
		if r != nil {
			for k, v := range *r {
				m[k] = v
			}
		}
		for k, v := range c.dirty {
			old := m[k]
			m[k] = append(old[:len(old):len(old)], v...)
		}
		c.read.Store(&m)
		c.dirty, c.misses = nil, 0
	}
	return e
}

// compileEntry parses and compiles one metadata blob (key) for a provider.
func compileEntry(provider uuid.UUID, traits, key string) *cacheEntry {
	e := &cacheEntry{provider: provider, traits: traits}
	fail := func(err error) *cacheEntry {
		var me *MetadataError
		if errors.As(err, &me) {
			me.Meta = []byte(key) // keep the raw bytes, not a view of the event
		}
		e.err = err
		return e
	}
	m, err := ParseEventMetadata([]byte(key))
	if err != nil {
		return fail(err)
	}
	name := ""
	if traits != "" {
		pt, err := etl.ParseProviderTraits([]byte(traits))
		if err != nil {
			return fail(&MetadataError{Event: m.Name, Offset: -1, Msg: "provider traits: " + err.Error()})
		}
		name = pt.Name
	}
	s, err := Compile(m, name, provider)
	if err != nil {
		return fail(err)
	}
	e.schema = s
	return e
}

// NameMatchesGUID reports whether the provider GUID of a schema this cache
// compiled is the one derived from its provider name (decoding.md §4.6):
// true for EventSource and name-hashed TraceLogging providers, false for
// providers registered with an explicit GUID (AMSI, …) or without a name.
// The answer is computed once per schema. Schemas from elsewhere are
// checked on the spot.
func (c *Cache) NameMatchesGUID(s *tdh.Event) bool {
	if s == nil {
		return false
	}
	c.mu.Lock()
	ok, known := c.names[s]
	c.mu.Unlock()
	if known {
		return ok
	}
	return NameMatchesGUID(s.ProviderName, s.ProviderGUID)
}
