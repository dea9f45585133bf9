package tdh

import (
	"bytes"
	"slices"
	"sync"

	"github.com/google/uuid"
)

type key struct {
	guid    uuid.UUID
	id      uint16
	version uint8
}

// Registry holds event schemas keyed by provider GUID, event id and
// version. It is safe for concurrent use; lookups do not allocate.
type Registry struct {
	mu       sync.RWMutex
	events   map[key]*Event
	versions map[versionKey][]uint8 // versions known per provider+id, ascending
}

type versionKey struct {
	guid uuid.UUID
	id   uint16
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{events: map[key]*Event{}, versions: map[versionKey][]uint8{}}
}

// Add registers schemas; a schema with the same provider, id and version
// as an earlier one replaces it.
func (r *Registry) Add(events ...*Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range events {
		k := key{e.ProviderGUID, e.ID, e.Version}
		if _, ok := r.events[k]; !ok {
			vk := versionKey{e.ProviderGUID, e.ID}
			vs := r.versions[vk]
			i := 0
			for i < len(vs) && vs[i] < e.Version {
				i++
			}
			vs = append(vs, 0)
			copy(vs[i+1:], vs[i:])
			vs[i] = e.Version
			r.versions[vk] = vs
		}
		r.events[k] = e
	}
}

// Len returns the number of schemas.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.events)
}

// Lookup returns the schema for exactly this provider, id and version, as
// TDH does.
func (r *Registry) Lookup(provider uuid.UUID, id uint16, version uint8) (*Event, bool) {
	r.mu.RLock()
	e, ok := r.events[key{provider, id, version}]
	r.mu.RUnlock()
	return e, ok
}

// LookupNearest returns the exact schema if there is one; otherwise the
// highest registered version below the requested one (an older schema
// decodes the fields it knows of a newer event, as PerfView does), or
// else the lowest version above it. exact reports which case applied.
func (r *Registry) LookupNearest(provider uuid.UUID, id uint16, version uint8) (e *Event, exact bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if e, ok := r.events[key{provider, id, version}]; ok {
		return e, true
	}
	vs := r.versions[versionKey{provider, id}]
	if len(vs) == 0 {
		return nil, false
	}
	best := vs[0]
	for _, v := range vs {
		if v < version {
			best = v
		}
	}
	return r.events[key{provider, id, best}], false
}

// Providers returns the provider GUIDs that have schemas, sorted.
func (r *Registry) Providers() []uuid.UUID {
	r.mu.RLock()
	defer r.mu.RUnlock()
	seen := map[uuid.UUID]bool{}
	var out []uuid.UUID
	for k := range r.events {
		if !seen[k.guid] {
			seen[k.guid] = true
			out = append(out, k.guid)
		}
	}
	slices.SortFunc(out, func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
	return out
}
