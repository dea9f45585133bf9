package session

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
)

// Kind is the kind of a provider, which decides how sessions reach it.
type Kind uint8

// Provider kinds.
const (
	// Manifest is a manifest-based ("crimson") provider registered with
	// EventRegister and writing with EventWrite. Up to 8 sessions can
	// enable it.
	Manifest Kind = iota + 1
	// TraceLogging is a self-describing provider: EventWrite with
	// TraceLogging metadata. Up to 8 sessions can enable it.
	TraceLogging
	// Classic is a provider registered with RegisterTraceGuids and
	// writing with TraceEvent. Only one session receives its events: the
	// last one that enabled it.
	Classic
)

// String returns "manifest", "tracelogging" or "classic".
func (k Kind) String() string {
	switch k {
	case Manifest:
		return "manifest"
	case TraceLogging:
		return "tracelogging"
	case Classic:
		return "classic"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// TraceLoggingChannel is the channel TraceLogging events carry unless
// the descriptor names another (WINEVENT_CHANNEL_TRACELOGGING).
const TraceLoggingChannel = 11

// ProviderOptions describe a registration.
type ProviderOptions struct {
	// Is32Bit marks a provider in a 32-bit process: its events are
	// written with the 32-bit header types (EVENT_HEADER32,
	// FULL_HEADER32).
	Is32Bit bool
	// Traits is the encoded provider-traits blob (name and traits, as
	// tracelogging.EncodeProviderTraits makes it) that TraceLogging
	// events carry in their PROV_TRAITS extended item.
	Traits []byte
}

// Provider is a registered provider: the handle EventRegister or
// RegisterTraceGuids returns.
type Provider struct {
	sys    *System
	g      *guidEntry
	kind   Kind
	is32   bool
	traits []byte
	closed atomic.Bool
}

// RegisterProvider registers a provider of the given kind. The same GUID
// can be registered several times (as several processes do), always
// with the same kind. Sessions that enabled the GUID before it was
// registered reach the new registration at once.
func (sys *System) RegisterProvider(id uuid.UUID, kind Kind, opts *ProviderOptions) (*Provider, error) {
	if kind < Manifest || kind > Classic {
		return nil, fmt.Errorf("session: unknown provider kind %d", kind)
	}
	var o ProviderOptions
	if opts != nil {
		o = *opts
	}
	sys.mu.Lock()
	defer sys.mu.Unlock()
	g := sys.entry(id)
	if g.registers > 0 && (g.kind == Classic) != (kind == Classic) {
		return nil, fmt.Errorf("session: provider %v is registered as %v already", id, g.kind)
	}
	g.registers++
	g.kind = kind
	if kind == Classic && len(g.enables) > 1 {
		// Only the last session to enable a classic provider keeps it.
		for _, e := range g.enables[:len(g.enables)-1] {
			e.s.dropEnable(g)
		}
		g.enables = g.enables[len(g.enables)-1:]
		g.active.Store(1)
	}
	return &Provider{sys: sys, g: g, kind: kind, is32: o.Is32Bit, traits: append([]byte(nil), o.Traits...)}, nil
}

// ID returns the provider GUID.
func (p *Provider) ID() uuid.UUID { return p.g.id }

// Kind returns the provider kind.
func (p *Provider) Kind() Kind { return p.kind }

// Unregister ends the registration; later writes fail with
// [ErrUnregistered]. The sessions keep their enable settings for the GUID.
func (p *Provider) Unregister() {
	if p.closed.CompareAndSwap(false, true) {
		p.sys.mu.Lock()
		p.g.registers--
		p.sys.mu.Unlock()
	}
}

// Enabled reports whether an event of that level and keyword would reach
// at least one session, as EventProviderEnabled does: it checks level and
// keywords only, not the event-id and process filters. For a classic
// provider it compares with the level and flags (MatchAnyKeyword) of the
// session that enabled it, as a classic provider does with
// GetTraceEnableLevel and GetTraceEnableFlags.
func (p *Provider) Enabled(level uint8, keyword uint64) bool {
	p.sys.mu.Lock()
	defer p.sys.mu.Unlock()
	for _, e := range p.g.enables {
		if e.levelKeyword(level, keyword) {
			return true
		}
	}
	return false
}

// Context is what the system knows of the thread that writes an event.
type Context struct {
	ProcessID, ThreadID uint32
	// ActivityID is the thread's activity id (EventActivityIdControl),
	// written in the header of EventWrite events.
	ActivityID uuid.UUID
	// SessionID is the Terminal Services session id, for sessions that
	// ask for it (PropertyTSID).
	SessionID uint32
	// SID is the user's binary SID, for sessions that ask for it
	// (PropertySID).
	SID []byte
	// ProcessStartKey is the process start key, for sessions that ask
	// for it (PropertyProcessStartKey).
	ProcessStartKey uint64
	// KernelTime and UserTime are the thread's CPU times, in ticks of
	// the timer resolution, copied to the event header.
	KernelTime, UserTime uint32
}

var noContext Context

// WriteOptions are the less common parts of an EventWrite call.
type WriteOptions struct {
	// ActivityID, if not nil, replaces the thread's activity id.
	ActivityID *uuid.UUID
	// RelatedActivityID, if not nil, is written as the
	// RELATED_ACTIVITYID extended item (EventWriteTransfer).
	RelatedActivityID *uuid.UUID
	// Extended are further extended items written as given.
	Extended []etl.ExtendedItem
	// Traits and Metadata are the TraceLogging provider-traits and event
	// metadata blobs, written as the PROV_TRAITS and EVENT_SCHEMA_TL
	// extended items.
	Traits, Metadata []byte
	// Flags are EVENT_HEADER flags to set (etl.FlagStringOnly for
	// EventWriteString).
	Flags uint16
	// EventProperty is the EVENT_HEADER_PROPERTY_* word.
	EventProperty uint16
}

// Write writes an event as EventWrite does: an EVENT_HEADER record with
// the descriptor and user data, stamped with the context's thread,
// process and activity ids, the clock and the processor. It returns nil
// when every session that asked for the event got it (or none asked),
// [ErrEventLost] when some did not.
func (p *Provider) Write(ctx *Context, d etl.EventDescriptor, userData []byte) error {
	return p.write(ctx, d, nil, nil, nil, nil, nil, 0, 0, userData)
}

// WriteTransfer writes an event as EventWriteTransfer does: activityID,
// if not nil, replaces the thread's activity id, and relatedActivityID,
// if not nil, is written as the RELATED_ACTIVITYID extended item.
func (p *Provider) WriteTransfer(ctx *Context, d etl.EventDescriptor, activityID, relatedActivityID *uuid.UUID, userData []byte) error {
	return p.write(ctx, d, activityID, relatedActivityID, nil, nil, nil, 0, 0, userData)
}

// WriteString writes a string-only event as EventWriteString does: the
// payload is s as NUL-terminated UTF-16.
func (p *Provider) WriteString(ctx *Context, level uint8, keyword uint64, s string) error {
	var buf [256]byte
	data := appendUTF16Z(buf[:0], s)
	return p.write(ctx, etl.EventDescriptor{Level: level, Keyword: keyword}, nil, nil, nil, nil, nil, etl.FlagStringOnly, 0, data)
}

// WriteTraceLogging writes a TraceLogging event: the event metadata blob
// (as tracelogging.EncodeEventMetadata makes it) and the payload
// encoded after it. traits, if nil, is the provider's registered traits
// blob. A descriptor with channel 0 gets [TraceLoggingChannel].
func (p *Provider) WriteTraceLogging(ctx *Context, d etl.EventDescriptor, traits, metadata, payload []byte) error {
	if traits == nil {
		traits = p.traits
	}
	if d.Channel == 0 {
		d.Channel = TraceLoggingChannel
	}
	return p.write(ctx, d, nil, nil, nil, traits, metadata, 0, 0, payload)
}

// WriteEx writes an event as EventWriteEx does, with the options o (nil
// for none). Like every write method it returns [etl.ErrRecordTooLarge],
// and writes nothing, for an event beyond the 64 KiB record limit; an
// event larger than a session's buffers is lost for that session.
func (p *Provider) WriteEx(ctx *Context, d etl.EventDescriptor, o *WriteOptions, userData []byte) error {
	if o == nil {
		return p.write(ctx, d, nil, nil, nil, nil, nil, 0, 0, userData)
	}
	return p.write(ctx, d, o.ActivityID, o.RelatedActivityID, o.Extended, o.Traits, o.Metadata, o.Flags, o.EventProperty, userData)
}

// write is WriteEx with the options as separate arguments, so that the
// activity ids (only read) do not escape like the extended items.
func (p *Provider) write(ctx *Context, d etl.EventDescriptor, activityID, relatedActivityID *uuid.UUID, extended []etl.ExtendedItem,
	traits, metadata []byte, flags, property uint16, userData []byte) error {
	if p.kind == Classic {
		return ErrWrongKind
	}
	if p.g.active.Load() == 0 && !p.closed.Load() {
		return nil // no session enables the provider
	}
	sys := p.sys
	sys.mu.Lock()
	defer sys.mu.Unlock()
	if p.closed.Load() {
		return ErrUnregistered
	}
	if len(p.g.enables) == 0 {
		return nil
	}
	if ctx == nil {
		ctx = &noContext
	}
	// Which sessions want it.
	n := 0
	for _, e := range p.g.enables {
		if e.passes(d.Level, d.Keyword, d.ID, ctx.ProcessID) {
			sys.tgt[n] = target{e: e}
			n++
		}
	}
	if n == 0 {
		return nil
	}
	ev := etl.Event{
		Header: etl.HeaderEvent64, ThreadID: ctx.ThreadID, ProcessID: ctx.ProcessID, ProviderID: p.g.id,
		Descriptor: d, KernelTime: ctx.KernelTime, UserTime: ctx.UserTime, ActivityID: ctx.ActivityID, UserData: userData,
	}
	if p.is32 {
		ev.Header = etl.HeaderEvent32
	}
	ev.Flags, ev.EventProperty = flags, property
	if activityID != nil {
		ev.ActivityID = *activityID
	}
	// Extended items, the same for every session but for those the
	// sessions' enable properties add (at base).
	ext := sys.ext[:0]
	if relatedActivityID != nil {
		etl.PutGUIDWindows(sys.rel[:], *relatedActivityID)
		ext = append(ext, etl.ExtendedItem{Type: etl.ExtRelatedActivityID, Data: sys.rel[:]})
	}
	base := len(ext) // property items go here
	if len(extended) > maxExtItems-8 {
		return fmt.Errorf("session: %d extended items, at most %d", len(extended), maxExtItems-8)
	}
	ext = append(ext, extended...)
	if traits != nil {
		ext = append(ext, etl.ExtendedItem{Type: etl.ExtProvTraits, Data: traits})
	}
	if metadata != nil {
		ext = append(ext, etl.ExtendedItem{Type: etl.ExtEventSchemaTL, Data: metadata})
	}
	recSize := eventHeaderSize + len(userData)
	for _, x := range ext {
		it := (extItemHeaderSize + len(x.Data) + 7) &^ 7
		if it > etl.MaxRecordSize {
			return etl.ErrRecordTooLarge
		}
		recSize += it
	}
	if recSize > etl.MaxRecordSize {
		return etl.ErrRecordTooLarge
	}
	sys.w = pending{ext: ext, base: base, size: recSize}
	return sys.deliver(n, &ev, ctx)
}

// TraceEvent writes a classic event as TraceEvent does: a FULL_HEADER
// record (EVENT_TRACE_HEADER) with the event class GUID (the provider's
// GUID if zero), type (opcode), level and version, and the user data.
// It reaches the one session that enabled the provider; like ETW, it
// does not filter on level or flags (a classic provider checks
// [Provider.Enabled] itself).
func (p *Provider) TraceEvent(ctx *Context, class uuid.UUID, typ, level uint8, version uint16, userData []byte) error {
	if p.kind != Classic {
		return ErrWrongKind
	}
	if p.g.active.Load() == 0 && !p.closed.Load() {
		return nil // no session enables the provider
	}
	sys := p.sys
	sys.mu.Lock()
	defer sys.mu.Unlock()
	if p.closed.Load() {
		return ErrUnregistered
	}
	if len(p.g.enables) == 0 {
		return nil
	}
	if ctx == nil {
		ctx = &noContext
	}
	if class == (uuid.UUID{}) {
		class = p.g.id
	}
	recSize := classicHeaderSize + len(userData)
	if recSize > etl.MaxRecordSize {
		return etl.ErrRecordTooLarge
	}
	sys.tgt[0] = target{e: p.g.enables[len(p.g.enables)-1]}
	ev := etl.Event{
		Header: etl.HeaderClassic64, ThreadID: ctx.ThreadID, ProcessID: ctx.ProcessID, ProviderID: class,
		Descriptor: etl.EventDescriptor{Opcode: typ, Level: level}, ClassVersion: version,
		KernelTime: ctx.KernelTime, UserTime: ctx.UserTime, UserData: userData,
	}
	if p.is32 {
		ev.Header = etl.HeaderClassic32
	}
	sys.w = pending{size: recSize, classic: true}
	return sys.deliver(1, &ev, ctx)
}

// Record layout sizes (see package etl).
const (
	eventHeaderSize   = 0x50
	classicHeaderSize = 0x30
	extItemHeaderSize = 8
	maxExtItems       = 72
)

// target is one session an event goes to.
type target struct {
	e    *enableInfo
	need int  // record size rounded to 8
	cpu  int  // the session's processor for the event
	fits bool // the session has room
}

// pending describes the event being delivered, besides its etl.Event.
// (The event and the caller's context are passed as arguments, not kept
// in the System, so that they do not escape to the heap.)
type pending struct {
	ext     []etl.ExtendedItem // base extended items
	base    int                // where property items go in ext
	size    int                // record size without property items
	classic bool
}

// deliver hands ev (with sys.w) to the n targets in sys.tgt: it reads the
// clock and the processor, checks that every session has room, and
// writes the record to those that take it (all of them, or only the
// independent ones if some session has no room).
func (sys *System) deliver(n int, ev *etl.Event, ctx *Context) error {
	now := sys.tick()
	cpu, err := sys.processor()
	if err != nil {
		return err
	}
	sys.eventKeys++
	w := &sys.w
	all := true
	for i := 0; i < n; i++ {
		t := &sys.tgt[i]
		s := t.e.s
		sz := w.size
		if t.e.props&propItems != 0 && !w.classic {
			sz += propertySize(t.e.props, ctx)
		}
		t.need = (sz + 7) &^ 7
		t.cpu = 0
		if s.perCPU {
			t.cpu = int(cpu)
		}
		t.fits = s.fits(t.cpu, t.need)
		all = all && t.fits
	}
	for i := 0; i < n; i++ {
		t := &sys.tgt[i]
		s := t.e.s
		if !t.fits || (!all && !s.independent) {
			s.lose(1)
			continue
		}
		ev.Timestamp = now
		if s.sysClock {
			ev.Timestamp = sys.FileTime(now)
		}
		if !w.classic {
			ev.Extended = w.ext
			if t.e.props&propItems != 0 {
				ev.Extended = sys.withProperties(w.ext, w.base, t.e.props, ctx)
			}
		}
		s.put(t.cpu, ev, t.need, now)
	}
	if !all {
		return ErrEventLost
	}
	return nil
}

// Property items.

// propertySize returns the size of the extended items the properties add.
func propertySize(props uint32, ctx *Context) int {
	n := 0
	if props&PropertySID != 0 && len(ctx.SID) > 0 {
		n += (extItemHeaderSize + len(ctx.SID) + 7) &^ 7
	}
	if props&PropertyTSID != 0 {
		n += extItemHeaderSize + 8
	}
	if props&PropertyProcessStartKey != 0 {
		n += extItemHeaderSize + 8
	}
	if props&PropertyEventKey != 0 {
		n += extItemHeaderSize + 8
	}
	return n
}

// withProperties returns ext with the items props ask for inserted at
// base, in sys.ext2.
func (sys *System) withProperties(ext []etl.ExtendedItem, base int, props uint32, ctx *Context) []etl.ExtendedItem {
	out := append(sys.ext2[:0], ext[:base]...)
	if props&PropertySID != 0 && len(ctx.SID) > 0 {
		out = append(out, etl.ExtendedItem{Type: etl.ExtSID, Data: ctx.SID})
	}
	if props&PropertyTSID != 0 {
		binary.LittleEndian.PutUint32(sys.tsid[:], ctx.SessionID)
		out = append(out, etl.ExtendedItem{Type: etl.ExtTSID, Data: sys.tsid[:]})
	}
	if props&PropertyProcessStartKey != 0 {
		binary.LittleEndian.PutUint64(sys.psk[:], ctx.ProcessStartKey)
		out = append(out, etl.ExtendedItem{Type: etl.ExtProcessStartKey, Data: sys.psk[:]})
	}
	if props&PropertyEventKey != 0 {
		binary.LittleEndian.PutUint64(sys.ekey[:], sys.eventKeys)
		out = append(out, etl.ExtendedItem{Type: etl.ExtEventKey, Data: sys.ekey[:]})
	}
	return append(out, ext[base:]...)
}

func appendUTF16Z(dst []byte, s string) []byte {
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			dst = binary.LittleEndian.AppendUint16(dst, uint16(0xD800+(r>>10)))
			dst = binary.LittleEndian.AppendUint16(dst, uint16(0xDC00+(r&0x3FF)))
			continue
		}
		dst = binary.LittleEndian.AppendUint16(dst, uint16(r))
	}
	return append(dst, 0, 0)
}
