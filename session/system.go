package session

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
)

// Limits of the emulated ETW.
const (
	// MaxSessions is the number of sessions that can run at once
	// (the default logger limit of Windows).
	MaxSessions = 64
	// MaxSessionsPerProvider is the number of sessions that can enable
	// one manifest-based or TraceLogging provider.
	MaxSessionsPerProvider = 8
	// DefaultFrequency is the clock frequency of a [System] whose
	// options leave it 0: 10 MHz, the QPC frequency of Windows 10.
	DefaultFrequency = 10_000_000
	// DefaultBootTime is the FILETIME of clock tick 0 of a [System] whose
	// options leave it 0: 2024-01-01 00:00:00 UTC.
	DefaultBootTime = 133485408000000000
)

// Errors returned by the emulator.
var (
	// ErrSessionLimit: StartSession with MaxSessions sessions running.
	ErrSessionLimit = errors.New("session: too many sessions (64 at most)")
	// ErrSessionExists: StartSession with the name of a running session.
	ErrSessionExists = errors.New("session: a session of that name is running")
	// ErrProviderLimit: Enable of a manifest-based or TraceLogging
	// provider that 8 sessions already enable.
	ErrProviderLimit = errors.New("session: the provider is enabled by 8 sessions already")
	// ErrStopped: a control operation on a stopped session.
	ErrStopped = errors.New("session: the session is stopped")
	// ErrEventLost is returned by the write methods when the event was
	// not logged to at least one of the sessions that asked for it (a
	// session out of buffers or with a full file, or a session that
	// dropped it because another one could not take it).
	ErrEventLost = errors.New("session: event lost")
	// ErrUnregistered: a write through an unregistered provider.
	ErrUnregistered = errors.New("session: the provider is unregistered")
	// ErrWrongKind: EventWrite-style calls on a classic provider, or
	// TraceEvent on a manifest-based or TraceLogging one.
	ErrWrongKind = errors.New("session: the call does not match the provider kind")
)

// Options configure a [System]. The zero value gives one processor, a
// 10 MHz virtual clock at tick 0 moved only by [System.Advance] and
// [System.SetTime], and every event on processor 0.
type Options struct {
	// Processors is the number of processors (default 1, at most 4096).
	Processors int
	// Frequency is the clock frequency in ticks per second: the QPC
	// frequency written to the files (default 10 MHz).
	Frequency int64
	// BootTime is the FILETIME (UTC, 100 ns since 1601) of tick 0
	// (default [DefaultBootTime]). It is also the files' BootTime.
	BootTime int64
	// Now, if set, reads the clock in ticks, once per event written and
	// per control call. A clock that goes back is held at its latest
	// value. If nil, the system keeps a virtual clock.
	Now func() int64
	// CPU, if set, returns the processor of the next event (below
	// Processors). It is called once per event that some session takes.
	CPU func() uint16
	// CPUSpeedMHz is written to the files' headers (default 3000).
	CPUSpeedMHz uint32
}

// System is one emulated machine: its clock, processors, trace sessions
// and registered providers. A System is safe for concurrent use; its
// output depends only on the order of the calls made to it.
type System struct {
	mu        sync.Mutex
	ncpu      int
	freq      int64
	bootTime  int64
	clock     etl.Clock // ticks → FILETIME
	nowFn     func() int64
	cpuFn     func() uint16
	cpuSpeed  uint32
	virtual   int64 // virtual clock
	last      int64 // latest tick handed out
	deadline  int64 // earliest timer of any session
	sessions  [MaxSessions + 1]*Session
	byName    map[string]*Session
	guids     map[uuid.UUID]*guidEntry
	eventKeys uint64

	// Scratch of the write path (guarded by mu).
	ext  [maxExtItems]etl.ExtendedItem
	ext2 [maxExtItems]etl.ExtendedItem
	rel  [16]byte
	tsid [4]byte
	psk  [8]byte
	ekey [8]byte
	tgt  [MaxSessionsPerProvider]target
	w    pending
}

// New returns a System.
func New(opts *Options) *System {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Processors <= 0 {
		o.Processors = 1
	}
	if o.Processors > 4096 {
		o.Processors = 4096
	}
	if o.Frequency <= 0 {
		o.Frequency = DefaultFrequency
	}
	if o.BootTime == 0 {
		o.BootTime = DefaultBootTime
	}
	if o.CPUSpeedMHz == 0 {
		o.CPUSpeedMHz = 3000
	}
	return &System{
		ncpu: o.Processors, freq: o.Frequency, bootTime: o.BootTime, nowFn: o.Now, cpuFn: o.CPU,
		clock:    etl.NewClock(&etl.LogfileHeader{ReservedFlags: uint32(etl.ClockQPC), PerfFreq: o.Frequency, StartTime: o.BootTime}),
		cpuSpeed: o.CPUSpeedMHz, deadline: noDeadline,
		byName: map[string]*Session{}, guids: map[uuid.UUID]*guidEntry{},
	}
}

const noDeadline = 1<<63 - 1

// NumberOfProcessors returns the number of processors.
func (sys *System) NumberOfProcessors() int { return sys.ncpu }

// Frequency returns the clock frequency in ticks per second.
func (sys *System) Frequency() int64 { return sys.freq }

// BootTime returns the FILETIME of tick 0.
func (sys *System) BootTime() int64 { return sys.bootTime }

// FileTime converts a tick count to FILETIME, with the same arithmetic
// as a reader's [etl.Clock].
func (sys *System) FileTime(tick int64) int64 { return sys.clock.FileTime(tick) }

// Now returns the current tick (the latest value handed out, never
// less).
func (sys *System) Now() int64 {
	sys.mu.Lock()
	defer sys.mu.Unlock()
	return sys.tick()
}

// Advance moves the virtual clock forward by d ticks and runs the
// sessions' timers (flush timers and logger delays) that come due. It
// has no effect on a clock given by [Options].Now other than running the
// timers.
func (sys *System) Advance(d int64) {
	sys.mu.Lock()
	defer sys.mu.Unlock()
	if d > 0 {
		sys.virtual += d
	}
	sys.tick()
}

// SetTime sets the virtual clock to t ticks (a time before the latest
// one handed out is held at that one) and runs the timers that come due.
func (sys *System) SetTime(t int64) {
	sys.mu.Lock()
	defer sys.mu.Unlock()
	sys.virtual = t
	sys.tick()
}

// tick reads the clock, keeps it monotonic and runs due timers.
func (sys *System) tick() int64 {
	t := sys.virtual
	if sys.nowFn != nil {
		t = sys.nowFn()
	}
	if t < sys.last {
		t = sys.last
	}
	sys.last = t
	if t >= sys.deadline {
		sys.runTimers(t)
	}
	return t
}

// runTimers runs every session's due timers, in logger-id order.
func (sys *System) runTimers(now int64) {
	sys.deadline = noDeadline
	for _, s := range sys.sessions {
		if s == nil {
			continue
		}
		if s.deadline <= now {
			s.runTimers(now)
		}
		sys.deadline = min(sys.deadline, s.deadline)
	}
}

// noteDeadline lowers the system deadline to d.
func (sys *System) noteDeadline(d int64) {
	if d < sys.deadline {
		sys.deadline = d
	}
}

// processor returns the processor of the next event.
func (sys *System) processor() (uint16, error) {
	if sys.cpuFn == nil {
		return 0, nil
	}
	p := sys.cpuFn()
	if int(p) >= sys.ncpu {
		return 0, fmt.Errorf("session: CPU assignment returned processor %d of %d", p, sys.ncpu)
	}
	return p, nil
}

// Session returns the running session of that name, or nil.
func (sys *System) Session(name string) *Session {
	sys.mu.Lock()
	defer sys.mu.Unlock()
	return sys.byName[name]
}

// Sessions returns the running sessions in logger-id order.
func (sys *System) Sessions() []*Session {
	sys.mu.Lock()
	defer sys.mu.Unlock()
	var out []*Session
	for _, s := range sys.sessions {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

// StopAll stops every running session, in logger-id order, and returns
// the first error.
func (sys *System) StopAll() error {
	var first error
	for _, s := range sys.Sessions() {
		if err := s.Stop(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// guidEntry is what ETW keeps per provider GUID: the sessions that enable
// it (also before the provider registers) and the registrations.
type guidEntry struct {
	id        uuid.UUID
	enables   []*enableInfo // in enable order; at most one for classic providers
	kind      Kind          // of the registrations (valid if registered > 0)
	registers int
	active    atomic.Int32 // len(enables), read without the lock
}

func (sys *System) entry(id uuid.UUID) *guidEntry {
	g := sys.guids[id]
	if g == nil {
		g = &guidEntry{id: id}
		sys.guids[id] = g
	}
	return g
}
