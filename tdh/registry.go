package tdh

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"
)

type key struct {
	guid    uuid.UUID
	id      uint16
	version uint8
}

// OriginKind is the kind of place a schema came from. Kinds are listed in
// precedence order: when several schemas share a provider, id and
// version, one from a lower kind is tried first.
type OriginKind uint8

// Origin kinds, highest precedence first.
const (
	// OriginImport is a file the user named (-import).
	OriginImport OriginKind = iota
	// OriginTrace is a schema carried by the trace itself: the TDH
	// metadata that relogging adds (KernelTraceControl MetaData events)
	// and the manifests .NET EventSource providers log.
	OriginTrace
	// OriginBuiltIn is a schema compiled into the program: the kernel
	// classes, the .NET runtime catalog, KernelTraceControl and WinSat.
	OriginBuiltIn
	// OriginFolder is a file found under a folder the user named: a
	// library of schemas that decodes what nothing above describes (and
	// what a schema above does not fit), but does not override the
	// trace's own schemas or the built-in ones.
	OriginFolder
)

// Origin says where a schema came from. It orders schemas with the same
// provider, id and version: first by Kind, then by Order (imports keep
// the order they were named in, files inside a folder their sorted path
// order), and a later schema from exactly the same origin replaces the
// earlier one.
type Origin struct {
	Kind OriginKind
	// Order ranks origins of the same kind; lower is tried first.
	Order int
	// Name is the file the schema was read from, or a label such as
	// "eventsource" or "kernel"; "" for the zero Origin.
	Name string
}

// String returns the origin as the CLI shows it: "import:<file>",
// "trace", "eventsource", "built-in", or "trace:<name>"/"built-in:<name>"
// for other labels.
func (o Origin) String() string {
	switch o.Kind {
	case OriginImport, OriginFolder:
		if o.Name == "" {
			return "import"
		}
		return "import:" + o.Name
	case OriginTrace:
		if o.Name == "" || o.Name == "trace" {
			return "trace"
		}
		if o.Name == "eventsource" {
			return "eventsource"
		}
		return "trace:" + o.Name
	case OriginBuiltIn:
		if o.Name == "" {
			return "built-in"
		}
		return "built-in:" + o.Name
	}
	return "origin(?)"
}

func (o Origin) less(p Origin) bool {
	if o.Kind != p.Kind {
		return o.Kind < p.Kind
	}
	return o.Order < p.Order
}

// Candidate is one registered schema with its origin.
type Candidate struct {
	Schema *Event
	Origin Origin
}

// MaxCandidates bounds the schemas kept for one provider, id and version
// (different origins). Past it, a schema of lower precedence than all
// kept ones is not kept; [Registry.Dropped] counts them.
const MaxCandidates = 8

// Registry holds event schemas keyed by provider GUID, event id and
// version. Several schemas may share a key when they come from different
// origins: [Registry.Lookup] returns the one of highest precedence and
// [Registry.Candidates] all of them, so that a decoder can fall back to
// one that fits a payload. It is safe for concurrent use; lookups do not
// allocate.
type Registry struct {
	mu       sync.RWMutex
	gen      atomic.Uint64          // bumped by every AddFrom
	events   map[key][]Candidate    // sorted by precedence; slices are never modified in place
	versions map[versionKey][]uint8 // versions known per provider+id, ascending; never modified in place
	names    map[uuid.UUID]string   // provider names, from the schema of highest precedence
	// base holds what a clone was made from, shared with the registry
	// cloned and never modified (the built-in schemas, which every
	// decoder starts from): the three maps above hold what was added to
	// the clone since, and a key there hides base's. Nil in a registry
	// that is not a clone.
	base *layer
	// shared says that a clone's base is this registry's maps: its next
	// addition copies them first.
	shared bool
	// provGen holds, per provider, the generation its last schema added
	// made (see ChangedSince).
	provGen map[uuid.UUID]uint64
	dropped int
}

// layer is the maps of a registry that clones share.
type layer struct {
	events   map[key][]Candidate
	versions map[versionKey][]uint8
	names    map[uuid.UUID]string
}

// candidates returns the list of k, r's own or else its base's.
func (r *Registry) candidates(k key) []Candidate {
	if c, ok := r.events[k]; ok || r.base == nil {
		return c
	}
	return r.base.events[k]
}

// knownVersions returns the versions of vk, r's own or else its base's.
func (r *Registry) knownVersions(vk versionKey) []uint8 {
	if vs, ok := r.versions[vk]; ok || r.base == nil {
		return vs
	}
	return r.base.versions[vk]
}

// name returns the provider's name, r's own or else its base's.
func (r *Registry) name(provider uuid.UUID) (string, bool) {
	if n, ok := r.names[provider]; ok || r.base == nil {
		return n, ok
	}
	n, ok := r.base.names[provider]
	return n, ok
}

// eachKey calls f with every key that has a list, r's own and its base's
// (each once) and the list.
func (r *Registry) eachKey(f func(k key, c []Candidate)) {
	for k, c := range r.events {
		f(k, c)
	}
	if r.base == nil {
		return
	}
	for k, c := range r.base.events {
		if _, ok := r.events[k]; !ok {
			f(k, c)
		}
	}
}

type versionKey struct {
	guid uuid.UUID
	id   uint16
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{events: map[key][]Candidate{}, versions: map[versionKey][]uint8{}, names: map[uuid.UUID]string{}}
}

// Add registers schemas with the zero [Origin] (an import of highest
// precedence); a schema with the same provider, id and version as an
// earlier one from the same origin replaces it.
func (r *Registry) Add(events ...*Event) { r.AddFrom(Origin{}, events...) }

// AddFrom registers schemas from origin o. A schema with the same
// provider, id and version as one already registered from exactly the
// same origin replaces it; otherwise it is kept beside the others, in
// precedence order.
func (r *Registry) AddFrom(o Origin, events ...*Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	defer r.gen.Add(1)
	next := r.gen.Load() + 1 // the generation this addition makes (adds hold the lock)
	if r.provGen == nil {
		r.provGen = map[uuid.UUID]uint64{}
	}
	if r.shared {
		// Clones read the maps as they are: this registry's additions go
		// to copies.
		r.events, r.versions, r.names = maps.Clone(r.events), maps.Clone(r.versions), maps.Clone(r.names)
		r.shared = false
	}
	if len(r.events) == 0 && r.base == nil && len(events) > 8 {
		// A registry filled at once (the built-in schemas: about 1,200
		// of them) gets its maps' room at once.
		r.events = make(map[key][]Candidate, len(events))
		r.versions = make(map[versionKey][]uint8, len(events))
	}
	// The new keys' one-candidate lists and one-version lists are cut
	// from one array each, with their capacity cut too: nothing appends
	// to them in place (insert and slices.Insert make new arrays).
	var one []Candidate
	var vers []uint8
	for i, e := range events {
		if i == 0 || e.ProviderGUID != events[i-1].ProviderGUID {
			r.provGen[e.ProviderGUID] = next // once per run of a provider's schemas
		}
		k := key{e.ProviderGUID, e.ID, e.Version}
		old := r.candidates(k)
		if len(old) == 0 {
			vk := versionKey{e.ProviderGUID, e.ID}
			vs := r.knownVersions(vk)
			if len(vs) == 0 {
				if len(vers) == 0 {
					vers = make([]uint8, min(len(events), 1024))
				}
				vers[0] = e.Version
				r.versions[vk], vers = vers[:1:1], vers[1:]
			} else {
				i := 0
				for i < len(vs) && vs[i] < e.Version {
					i++
				}
				// A new slice: clones share the old one.
				r.versions[vk] = slices.Insert(slices.Clip(vs), i, e.Version)
			}
		}
		var c []Candidate
		if len(old) == 0 {
			if len(one) == 0 {
				one = make([]Candidate, min(len(events), 1024))
			}
			one[0] = Candidate{e, o}
			c, one = one[:1:1], one[1:]
		} else {
			c = r.insert(old, Candidate{e, o})
		}
		r.events[k] = c
		if e.ProviderName == "" {
			continue
		}
		if c[0].Schema == e {
			r.names[e.ProviderGUID] = e.ProviderName
		} else if _, ok := r.name(e.ProviderGUID); !ok {
			r.names[e.ProviderGUID] = e.ProviderName
		}
	}
}

// Clone returns a registry holding the same schemas, which can then be
// added to without changing r, nor r's additions it. What r holds is
// shared, not copied: the clone's additions go to maps of its own, read
// before r's (a copy of the built-in schemas' maps took ~0.1 ms and 40
// page faults of every decoding command's start), and r copies its maps
// before its own next addition. The candidate and version lists are
// shared in any case: they are never modified in place.
func (r *Registry) Clone() *Registry {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := &Registry{events: map[key][]Candidate{}, versions: map[versionKey][]uint8{}, names: map[uuid.UUID]string{}, dropped: r.dropped}
	if r.base == nil {
		r.shared = true
		c.base = &layer{events: r.events, versions: r.versions, names: r.names}
		return c
	}
	// A clone of a clone: the same base, and a copy of r's additions.
	c.base = r.base
	c.events, c.versions, c.names = maps.Clone(r.events), maps.Clone(r.versions), maps.Clone(r.names)
	return c
}

// Generation returns a number that changes whenever schemas are added:
// a caller may keep what [Registry.Candidates] returned for as long as the
// generation stays the same (a per-goroutine cache that takes no lock).
func (r *Registry) Generation() uint64 { return r.gen.Load() }

// ChangedSince reports whether schemas of provider were added since
// generation gen (what [Registry.Generation] returned): what a lookup of
// one of its keys returns may then differ. Additions of other providers'
// schemas change nothing of its lookups. (A clone counts its generations
// anew: gen must be the same registry's.)
func (r *Registry) ChangedSince(provider uuid.UUID, gen uint64) bool {
	if r.gen.Load() == gen {
		return false
	}
	r.mu.RLock()
	g := r.provGen[provider]
	r.mu.RUnlock()
	return g > gen
}

// ProviderName returns the name the schemas of a provider give it, or "".
func (r *Registry) ProviderName(provider uuid.UUID) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	n, _ := r.name(provider)
	return n
}

// insert returns a new slice: readers may hold the old one.
func (r *Registry) insert(old []Candidate, c Candidate) []Candidate {
	for i := range old {
		if old[i].Origin == c.Origin {
			s := slices.Clone(old)
			s[i] = c
			return s
		}
	}
	i := 0
	for i < len(old) && !c.Origin.less(old[i].Origin) {
		i++
	}
	if len(old) >= MaxCandidates {
		if i == len(old) {
			r.dropped++
			return old
		}
		r.dropped++
		old = old[:len(old)-1]
	}
	s := make([]Candidate, 0, len(old)+1)
	s = append(s, old[:i]...)
	s = append(s, c)
	return append(s, old[i:]...)
}

// Dropped returns how many schemas were not kept because a key already
// had [MaxCandidates] of higher precedence.
func (r *Registry) Dropped() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.dropped
}

// Len returns the number of keys (provider, id, version) with a schema.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	n := len(r.events)
	if r.base != nil {
		n += len(r.base.events)
		for k := range r.events {
			if _, ok := r.base.events[k]; ok {
				n--
			}
		}
	}
	return n
}

// Lookup returns the schema of highest precedence for exactly this
// provider, id and version, as TDH does.
func (r *Registry) Lookup(provider uuid.UUID, id uint16, version uint8) (*Event, bool) {
	r.mu.RLock()
	c := r.candidates(key{provider, id, version})
	r.mu.RUnlock()
	if len(c) == 0 {
		return nil, false
	}
	return c[0].Schema, true
}

// Candidates returns every schema registered for exactly this provider,
// id and version, highest precedence first. The slice must not be
// modified; it stays valid after later additions.
func (r *Registry) Candidates(provider uuid.UUID, id uint16, version uint8) []Candidate {
	r.mu.RLock()
	c := r.candidates(key{provider, id, version})
	r.mu.RUnlock()
	return c
}

// LookupNearest returns the exact schema if there is one; otherwise the
// highest registered version below the requested one (an older schema
// decodes the fields it knows of a newer event, as PerfView does), or
// else the lowest version above it. exact reports which case applied.
func (r *Registry) LookupNearest(provider uuid.UUID, id uint16, version uint8) (e *Event, exact bool) {
	c, exact := r.CandidatesNearest(provider, id, version)
	if len(c) == 0 {
		return nil, false
	}
	return c[0].Schema, exact
}

// CandidatesNearest is [Registry.Candidates] with the version fallback of
// [Registry.LookupNearest].
func (r *Registry) CandidatesNearest(provider uuid.UUID, id uint16, version uint8) (c []Candidate, exact bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if c := r.candidates(key{provider, id, version}); len(c) > 0 {
		return c, true
	}
	vs := r.knownVersions(versionKey{provider, id})
	if len(vs) == 0 {
		return nil, false
	}
	best := vs[0]
	for _, v := range vs {
		if v < version {
			best = v
		}
	}
	return r.candidates(key{provider, id, best}), false
}

// Providers returns the provider GUIDs that have schemas, sorted.
func (r *Registry) Providers() []uuid.UUID {
	r.mu.RLock()
	defer r.mu.RUnlock()
	seen := map[uuid.UUID]bool{}
	var out []uuid.UUID
	r.eachKey(func(k key, _ []Candidate) {
		if !seen[k.guid] {
			seen[k.guid] = true
			out = append(out, k.guid)
		}
	})
	slices.SortFunc(out, func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
	return out
}

// Schemas returns the schemas of highest precedence for one provider
// (every id and version), sorted by id then version.
func (r *Registry) Schemas(provider uuid.UUID) []Candidate {
	r.mu.RLock()
	var out []Candidate
	r.eachKey(func(k key, c []Candidate) {
		if k.guid == provider && len(c) > 0 {
			out = append(out, c[0])
		}
	})
	r.mu.RUnlock()
	slices.SortFunc(out, func(a, b Candidate) int {
		if a.Schema.ID != b.Schema.ID {
			return int(a.Schema.ID) - int(b.Schema.ID)
		}
		if a.Schema.Version != b.Schema.Version {
			return int(a.Schema.Version) - int(b.Schema.Version)
		}
		return strings.Compare(a.Origin.String(), b.Origin.String())
	})
	return out
}

// All returns every registered schema with its origin, sorted by
// provider GUID, id, version and precedence.
func (r *Registry) All() []Candidate {
	r.mu.RLock()
	var keys []key
	r.eachKey(func(k key, _ []Candidate) { keys = append(keys, k) })
	slices.SortFunc(keys, func(a, b key) int {
		if c := bytes.Compare(a.guid[:], b.guid[:]); c != 0 {
			return c
		}
		if a.id != b.id {
			return int(a.id) - int(b.id)
		}
		return int(a.version) - int(b.version)
	})
	var out []Candidate
	for _, k := range keys {
		out = append(out, r.candidates(k)...)
	}
	r.mu.RUnlock()
	return out
}
