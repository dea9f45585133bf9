package eventinfo

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// Problems a [Set] reports besides payloads that do not parse.
var (
	// ErrConflict: two payloads describe the same event (provider or
	// class GUID, id, version) or the same map (provider GUID, name)
	// differently; the one whose bytes sort first is kept, so that the
	// choice does not depend on the order the payloads are read in.
	ErrConflict = errors.New("conflicting descriptions")
	// ErrUnboundMap: a property names a map that no EventMapInfo payload
	// of the set describes; the property renders its raw value.
	ErrUnboundMap = errors.New("map not in the trace")
	// ErrSkippedSource: a TraceLogging or WPP schema, which a Set does not
	// return (see the package documentation).
	ErrSkippedSource = errors.New("decoding source not registered")
)

// SchemaError reports a problem with one schema or map of a [Set].
type SchemaError struct {
	// Provider, ID and Version are the schema's key (the class GUID and
	// event type for MOF schemas); for a map conflict, Provider is the
	// map's provider and ID and Version are 0.
	Provider uuid.UUID
	ID       uint16
	Version  uint8
	Event    string // event name, if any
	Map      string // map name, for map problems
	Msg      string
	Err      error // ErrConflict, ErrUnboundMap or ErrSkippedSource
}

// Error formats the problem with the schema's key, or the map's provider
// and name.
func (e *SchemaError) Error() string {
	if e.Map != "" && e.Err == ErrConflict {
		return fmt.Sprintf("eventinfo: provider %v map %q: %s", e.Provider, e.Map, e.Msg)
	}
	s := fmt.Sprintf("eventinfo: %v event %d version %d", e.Provider, e.ID, e.Version)
	if e.Event != "" {
		s += " (" + e.Event + ")"
	}
	return s + ": " + e.Msg
}

// Unwrap returns the reason.
func (e *SchemaError) Unwrap() error { return e.Err }

type schemaKey struct {
	guid    uuid.UUID
	id      uint16
	version uint8
}

type mapKey struct {
	provider uuid.UUID
	name     string
}

type setEntry struct {
	ev       *tdh.Event
	provider uuid.UUID // TRACE_EVENT_INFO.ProviderGuid: the key of its maps
	payload  string    // the TRACE_EVENT_INFO it came from
}

// Set collects the MetaData payloads of a trace — EventInfo and
// EventMapInfo, in any order — and compiles them into schemas with their
// maps bound. It is safe for concurrent use.
//
//	s := eventinfo.NewSet()
//	for r.Next() {
//		s.AddEvent(r.Event()) // other events are ignored
//	}
//	schemas, problems := s.Schemas()
//	registry.Add(schemas...)
type Set struct {
	mu    sync.Mutex
	seen  map[string]bool // payloads already added, by content
	order []*setEntry
	byKey map[schemaKey]*setEntry
	maps  map[mapKey]*tdh.Map
	// mapPayloads are the EventMapInfo payloads of maps (shared with seen's keys).
	mapPayloads map[mapKey]string
	problems    []error
}

// NewSet returns an empty set.
func NewSet() *Set {
	return &Set{seen: map[string]bool{}, byKey: map[schemaKey]*setEntry{}, maps: map[mapKey]*tdh.Map{}, mapPayloads: map[mapKey]string{}}
}

// AddEvent adds ev if it is a MetaData event: class [MetadataGUID] with a
// classic header, opcode [OpcodeEventInfo] or [OpcodeEventMapInfo]. It
// reports whether ev was one; err is what [Set.AddEventInfo] or
// [Set.AddMapInfo] returned. ev's payload is not retained.
func (s *Set) AddEvent(ev *etl.Event) (ok bool, err error) {
	if !IsMetadata(ev) {
		return false, nil
	}
	if ev.Descriptor.Opcode == OpcodeEventInfo {
		return true, s.AddEventInfo(ev.UserData)
	}
	return true, s.AddMapInfo(ev.UserData)
}

// IsMetadata reports whether ev is a MetaData EventInfo or EventMapInfo
// event: class [MetadataGUID], a classic (or instance) header, opcode 32
// or 33. Any version is accepted (the events seen carry version 0).
func IsMetadata(ev *etl.Event) bool {
	if ev.ProviderID != MetadataGUID || ev.Flags&etl.FlagClassicHeader == 0 {
		return false
	}
	switch ev.Header {
	case etl.HeaderClassic32, etl.HeaderClassic64, etl.HeaderInstance32, etl.HeaderInstance64:
	default:
		return false
	}
	return ev.Descriptor.Opcode == OpcodeEventInfo || ev.Descriptor.Opcode == OpcodeEventMapInfo
}

// AddEventInfo adds the payload of an EventInfo event. A payload seen
// before is ignored; one that does not parse is returned as an error (and
// kept among the problems [Set.Schemas] returns); a schema with the key of
// an earlier, different one is left out with an [ErrConflict] problem.
func (s *Set) AddEventInfo(payload []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := "e" + string(payload)
	if s.seen[key] {
		return nil
	}
	s.seen[key] = true
	ev, provider, err := parseEventInfo(payload)
	if err != nil {
		s.problems = append(s.problems, err)
		return err
	}
	k := schemaKey{ev.ProviderGUID, ev.ID, ev.Version}
	if ev.Source == tdh.SourceWPP || ev.Source == tdh.SourceTraceLogging {
		s.problems = append(s.problems, &SchemaError{Provider: k.guid, ID: k.id, Version: k.version, Event: ev.EventName,
			Msg: ev.Source.String() + " schema left out: not keyed the way this module looks such events up", Err: ErrSkippedSource})
		return nil
	}
	if old, ok := s.byKey[k]; ok {
		if !old.ev.Equal(ev) {
			s.problems = append(s.problems, &SchemaError{Provider: k.guid, ID: k.id, Version: k.version, Event: ev.EventName,
				Msg: "described differently by two EventInfo payloads; the one whose bytes sort first is kept", Err: ErrConflict})
			if key[1:] < old.payload {
				old.ev, old.provider, old.payload = ev, provider, key[1:]
			}
		}
		return nil
	}
	e := &setEntry{ev: ev, provider: provider, payload: key[1:]} // seen's key holds the bytes
	s.byKey[k] = e
	s.order = append(s.order, e)
	return nil
}

// AddMapInfo adds the payload of an EventMapInfo event. A payload seen
// before is ignored; one that does not parse (including pattern maps) is
// returned as an error and kept among the problems; a map with the
// provider and name of an earlier, different one is left out with an
// [ErrConflict] problem.
func (s *Set) AddMapInfo(payload []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := "m" + string(payload)
	if s.seen[key] {
		return nil
	}
	s.seen[key] = true
	provider, m, err := ParseMapInfo(payload)
	if err != nil {
		s.problems = append(s.problems, err)
		return err
	}
	k := mapKey{provider, m.Name}
	if old, ok := s.maps[k]; ok {
		if !old.Equal(m) {
			s.problems = append(s.problems, &SchemaError{Provider: provider, Map: m.Name,
				Msg: "map described differently by two EventMapInfo payloads; the one whose bytes sort first is kept", Err: ErrConflict})
			if key[1:] < s.mapPayloads[k] {
				s.maps[k], s.mapPayloads[k] = m, key[1:]
			}
		}
		return nil
	}
	s.maps[k], s.mapPayloads[k] = m, key[1:]
	return nil
}

// Len returns the number of schemas collected.
func (s *Set) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.order)
}

// Schemas returns the schemas collected so far, in the order their first
// payload arrived, with every map bound that the set holds, and the
// problems: payloads that did not parse, conflicts, skipped sources and
// maps named by a property but absent from the set ([ErrUnboundMap], once
// per schema and map). Each call returns new schemas (later maps bind in
// the next call), which the caller may register and share.
func (s *Set) Schemas() ([]*tdh.Event, []error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*tdh.Event, 0, len(s.order))
	problems := append([]error(nil), s.problems...)
	for _, e := range s.order {
		ev := *e.ev
		missing := map[string]bool{}
		ev.Properties = s.bind(e.provider, e.ev.Properties, missing, 0)
		out = append(out, &ev)
		for _, name := range sortedKeys(missing) {
			problems = append(problems, &SchemaError{Provider: ev.ProviderGUID, ID: ev.ID, Version: ev.Version, Event: ev.EventName,
				Map: name, Msg: fmt.Sprintf("map %q is not in the trace", name), Err: ErrUnboundMap})
		}
	}
	return out, problems
}

// bind copies props with their maps replaced by the set's maps of
// provider.
func (s *Set) bind(provider uuid.UUID, props []tdh.Property, missing map[string]bool, depth int) []tdh.Property {
	if props == nil {
		return nil
	}
	out := make([]tdh.Property, len(props))
	copy(out, props)
	for i := range out {
		p := &out[i]
		if p.Members != nil && depth < maxStructDepth {
			p.Members = s.bind(provider, p.Members, missing, depth+1)
		}
		if p.Map == nil {
			continue
		}
		if m, ok := s.maps[mapKey{provider, p.Map.Name}]; ok {
			p.Map = m
		} else {
			missing[p.Map.Name] = true
		}
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
