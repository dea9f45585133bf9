package session

import (
	"fmt"
	"slices"

	"github.com/google/uuid"
)

// EnableProperty flags (ENABLE_TRACE_PARAMETERS.EnableProperty) the
// emulator honours.
const (
	// PropertySID adds the user's SID ([Context].SID) to each event as
	// an extended item (EVENT_ENABLE_PROPERTY_SID).
	PropertySID = 0x001
	// PropertyTSID adds the Terminal Services session id
	// (EVENT_ENABLE_PROPERTY_TS_ID).
	PropertyTSID = 0x002
	// PropertyIgnoreKeyword0 filters out the events whose keyword is 0,
	// which otherwise pass every keyword filter
	// (EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0).
	PropertyIgnoreKeyword0 = 0x010
	// PropertyProcessStartKey adds the process start key
	// (EVENT_ENABLE_PROPERTY_PROCESS_START_KEY).
	PropertyProcessStartKey = 0x080
	// PropertyEventKey adds the event key, a number that identifies the
	// event instance and is the same in every session that gets it
	// (EVENT_ENABLE_PROPERTY_EVENT_KEY).
	PropertyEventKey = 0x100

	propItems     = PropertySID | PropertyTSID | PropertyProcessStartKey | PropertyEventKey
	propSupported = propItems | PropertyIgnoreKeyword0
)

// Filter limits (MAX_EVENT_FILTER_EVENT_ID_COUNT, MAX_EVENT_FILTER_PID_COUNT).
const (
	MaxFilterEventIDs   = 64
	MaxFilterProcessIDs = 8
)

// EnableOption is an optional part of an Enable call: the EnableProperty
// flags and the event filters of ENABLE_TRACE_PARAMETERS.
type EnableOption func(*enableInfo) error

// WithProperties sets the EnableProperty flags (Property* constants).
func WithProperties(flags uint32) EnableOption {
	return func(e *enableInfo) error {
		if flags&^propSupported != 0 {
			return fmt.Errorf("session: enable properties %#x are not emulated", flags&^propSupported)
		}
		e.props = flags
		return nil
	}
}

// EventIDFilter is the EVENT_FILTER_TYPE_EVENT_ID filter: with filterIn
// only the events with one of the ids reach the session, otherwise the
// events with one of the ids do not. At most [MaxFilterEventIDs] ids.
func EventIDFilter(filterIn bool, ids ...uint16) EnableOption {
	return func(e *enableInfo) error {
		if len(ids) == 0 || len(ids) > MaxFilterEventIDs {
			return fmt.Errorf("session: an event-id filter takes 1 to %d ids, not %d", MaxFilterEventIDs, len(ids))
		}
		e.ids, e.idsIn = slices.Clone(ids), filterIn
		return nil
	}
}

// ProcessIDFilter is the EVENT_FILTER_TYPE_PID filter: only events
// written by these processes reach the session. At most
// [MaxFilterProcessIDs] ids.
func ProcessIDFilter(pids ...uint32) EnableOption {
	return func(e *enableInfo) error {
		if len(pids) == 0 || len(pids) > MaxFilterProcessIDs {
			return fmt.Errorf("session: a process-id filter takes 1 to %d ids, not %d", MaxFilterProcessIDs, len(pids))
		}
		e.pids = slices.Clone(pids)
		return nil
	}
}

// enableInfo is one session's settings for one provider GUID.
type enableInfo struct {
	s        *Session
	level    uint8
	any, all uint64
	props    uint32
	ids      []uint16
	idsIn    bool
	pids     []uint32
}

// levelKeyword applies the level and keyword rules: an event passes when
// its level is 0, the session's level is 0 (all levels) or the event's
// level is at most the session's; and its keyword is 0 (unless the
// session set PropertyIgnoreKeyword0), or it has a bit of MatchAnyKeyword
// (any bit if MatchAnyKeyword is 0) and every bit of MatchAllKeyword.
func (e *enableInfo) levelKeyword(level uint8, kw uint64) bool {
	if level != 0 && e.level != 0 && level > e.level {
		return false
	}
	if kw == 0 {
		return e.props&PropertyIgnoreKeyword0 == 0
	}
	if e.any != 0 && kw&e.any == 0 {
		return false
	}
	return kw&e.all == e.all
}

// passes applies every filter of the session to an EventWrite event.
func (e *enableInfo) passes(level uint8, kw uint64, id uint16, pid uint32) bool {
	if !e.levelKeyword(level, kw) {
		return false
	}
	if e.ids != nil && slices.Contains(e.ids, id) != e.idsIn {
		return false
	}
	if e.pids != nil && !slices.Contains(e.pids, pid) {
		return false
	}
	return true
}

// Enable enables a provider for the session, as EnableTraceEx2 with
// EVENT_CONTROL_CODE_ENABLE_PROVIDER does: level is the highest level
// wanted (0 for all), matchAny and matchAll the keyword masks, and opts
// the EnableProperty flags and filters. The provider need not be
// registered yet. Enabling again replaces the session's settings.
//
// A manifest-based or TraceLogging provider (or a GUID not registered)
// can be enabled by at most 8 sessions: the 9th Enable returns
// [ErrProviderLimit]. A classic provider is taken away from the session
// that enabled it before.
func (s *Session) Enable(provider uuid.UUID, level uint8, matchAny, matchAll uint64, opts ...EnableOption) error {
	e := &enableInfo{s: s, level: level, any: matchAny, all: matchAll}
	for _, o := range opts {
		if err := o(e); err != nil {
			return err
		}
	}
	sys := s.sys
	sys.mu.Lock()
	defer sys.mu.Unlock()
	if s.stopped {
		return ErrStopped
	}
	g := sys.entry(provider)
	if i := slices.IndexFunc(g.enables, func(x *enableInfo) bool { return x.s == s }); i >= 0 {
		g.enables[i] = e
		return nil
	}
	if g.registers > 0 && g.kind == Classic {
		for _, old := range g.enables {
			old.s.dropEnable(g)
		}
		g.enables = g.enables[:0]
	} else if len(g.enables) >= MaxSessionsPerProvider {
		return ErrProviderLimit
	}
	g.enables = append(g.enables, e)
	g.active.Store(int32(len(g.enables)))
	s.enabled = append(s.enabled, g)
	return nil
}

// Disable disables a provider for the session (EnableTraceEx2 with
// EVENT_CONTROL_CODE_DISABLE_PROVIDER). Disabling a provider the session
// does not enable does nothing.
func (s *Session) Disable(provider uuid.UUID) error {
	sys := s.sys
	sys.mu.Lock()
	defer sys.mu.Unlock()
	if s.stopped {
		return ErrStopped
	}
	g := sys.guids[provider]
	if g == nil {
		return nil
	}
	g.enables = slices.DeleteFunc(g.enables, func(x *enableInfo) bool { return x.s == s })
	g.active.Store(int32(len(g.enables)))
	s.dropEnable(g)
	return nil
}

// dropEnable forgets that s enables g (g's list is updated by the caller).
func (s *Session) dropEnable(g *guidEntry) {
	s.enabled = slices.DeleteFunc(s.enabled, func(x *guidEntry) bool { return x == g })
}
