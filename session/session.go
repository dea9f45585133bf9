package session

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/etwkit/etw/etl"
)

// ModeIndependentSession is EVENT_TRACE_INDEPENDENT_SESSION_MODE: the
// session gets an event even when another session that wants it has no
// room for it. (The other logging modes are the etl.Mode* constants.)
const ModeIndependentSession = 0x08000000

// Buffer size limits (EVENT_TRACE_PROPERTIES.BufferSize).
const (
	MinBufferSize     = 4 << 10
	MaxBufferSize     = 1 << 20
	DefaultBufferSize = 64 << 10
)

// LoggerDelayUntilFlush is a [SessionOptions].LoggerDelay that keeps full
// buffers in memory until a flush (Flush, the flush timer or Stop).
const LoggerDelayUntilFlush = -1

const supportedModes = etl.ModeSequential | etl.ModeCircular | etl.ModeAppend | etl.ModeNewFile | etl.ModeBuffering |
	etl.ModeCompressed | etl.ModeNoPerProcessor | ModeIndependentSession

// SessionOptions are the properties of a session (EVENT_TRACE_PROPERTIES).
type SessionOptions struct {
	// FileName is the log file. With etl.ModeNewFile it is a pattern
	// holding %d, replaced by 1, 2, 3… as files fill. Default: the
	// session name followed by ".etl" ("_%d.etl" in new-file mode).
	FileName string
	// Create creates (or truncates) a file for writing. Default:
	// os.Create. [MemFS.Create] keeps files in memory.
	Create func(name string) (File, error)
	// Open opens an existing file for reading and writing, for
	// etl.ModeAppend; the file must also be an io.ReaderAt with a Size
	// or Stat method. A file that does not exist (an error matching
	// fs.ErrNotExist) is created instead. Default: os.OpenFile with
	// os.O_RDWR.
	Open func(name string) (File, error)
	// LogFileMode holds the logging mode: etl.ModeSequential (the
	// default), etl.ModeCircular, etl.ModeNewFile, etl.ModeAppend or
	// etl.ModeBuffering, with any of etl.ModeCompressed,
	// etl.ModeNoPerProcessor and ModeIndependentSession.
	LogFileMode uint32
	// BufferSize is the size of each buffer in bytes: a multiple of
	// 1 KiB from 4 KiB to 1 MiB (default 64 KiB).
	BufferSize int
	// MinimumBuffers and MaximumBuffers bound the session's buffer pool.
	// MinimumBuffers is raised to 2 and MaximumBuffers to the larger of
	// MinimumBuffers and one more than the session's processor count;
	// MaximumBuffers defaults to MinimumBuffers + 20, MinimumBuffers to
	// twice the processor count.
	MinimumBuffers, MaximumBuffers int
	// MaxFileSize is the largest file in bytes (0: no limit). A
	// sequential or appended file stops taking events when full (they
	// are lost); a circular file overwrites its oldest buffers; in
	// new-file mode the session moves on to the next file. It must hold
	// at least two buffers.
	MaxFileSize int64
	// FlushTimer, in clock ticks, flushes a buffer that has held events
	// for that long when the clock passes that age (0: never). It has
	// no effect in buffering mode.
	FlushTimer int64
	// LoggerDelay is how long, in clock ticks, a full buffer waits
	// before the logger writes it to the file and frees it (0: at
	// once; LoggerDelayUntilFlush: until a flush). Full buffers that
	// wait take up the pool: a burst that needs more than
	// MaximumBuffers loses events.
	LoggerDelay int64
	// Is32Bit writes the 32-bit log-file header (PointerSize 4).
	Is32Bit bool
	// ClockType is etl.ClockQPC (the default: timestamps are clock
	// ticks) or etl.ClockSystemTime (timestamps are FILETIMEs).
	ClockType etl.ClockType
}

// Session is a running trace session.
type Session struct {
	sys         *System
	name        string
	id          uint16
	pattern     string // file name or new-file pattern
	create      func(string) (File, error)
	open        func(string) (File, error)
	mode        uint32
	bufSize     int
	minBuf      int
	maxBuf      int
	ncpu        int // processors in the header
	perCPU      bool
	independent bool
	buffering   bool
	circular    bool
	newFile     bool
	appendMode  bool
	compress    bool
	sysClock    bool
	clockType   etl.ClockType
	is32        bool
	maxFileSize int64
	flushTimer  int64
	delay       int64
	startTick   int64

	cur       []*buffer // per processor
	free      []*buffer
	nbuf      int
	waiting   []*buffer // full buffers: waiting for the logger, or the ring in buffering mode
	deadline  int64
	file      *logFile
	fileIndex int
	seq       int64
	stopped   bool
	enabled   []*guidEntry
	err       error
	files     []string

	scratch []*buffer
	enc     *etl.BufferEncoder // shared by the files

	// Accounting.
	eventsLogged, eventsLost, buffersWritten, buffersLost, buffersOverwritten uint64
	fileEventsLost, fileBuffersLost                                           uint32 // for the current file's header
	maxTS                                                                     int64  // latest raw timestamp taken
}

// buffer is one session buffer: BufferHeaderSize reserved bytes, then
// records.
type buffer struct {
	data      []byte
	cpu       uint16
	firstTick int64 // when its first event came
	lastTS    int64 // raw timestamp of its last event
	events    uint32
	ready     int64 // tick at which the logger writes it
}

// StartSession starts a session, as StartTrace does. The log file is
// created at once (in buffering mode, at the first flush). At most
// [MaxSessions] sessions run at once.
func (sys *System) StartSession(name string, opts *SessionOptions) (*Session, error) {
	var o SessionOptions
	if opts != nil {
		o = *opts
	}
	s := &Session{sys: sys, name: name, create: o.Create, open: o.Open, mode: o.LogFileMode, bufSize: o.BufferSize,
		maxFileSize: o.MaxFileSize, flushTimer: max(o.FlushTimer, 0), delay: o.LoggerDelay, is32: o.Is32Bit,
		clockType: o.ClockType, deadline: noDeadline}
	if err := s.configure(&o); err != nil {
		return nil, err
	}
	sys.mu.Lock()
	defer sys.mu.Unlock()
	if sys.byName[name] != nil {
		return nil, ErrSessionExists
	}
	id := 0
	for i := 1; i <= MaxSessions; i++ {
		if sys.sessions[i] == nil {
			id = i
			break
		}
	}
	if id == 0 {
		return nil, ErrSessionLimit
	}
	s.id = uint16(id)
	s.startTick = sys.tick()
	if !s.buffering {
		if err := s.openFile(nil); err != nil {
			return nil, err
		}
	}
	sys.sessions[id] = s
	sys.byName[name] = s
	return s, nil
}

// configure validates the options and fills the session's settings.
func (s *Session) configure(o *SessionOptions) error {
	if s.name == "" {
		return errors.New("session: a session needs a name")
	}
	m := s.mode
	if m&^supportedModes != 0 {
		return fmt.Errorf("session: logging mode %#x is not emulated", m&^supportedModes)
	}
	files := 0
	for _, f := range []uint32{etl.ModeCircular, etl.ModeNewFile, etl.ModeAppend, etl.ModeBuffering} {
		if m&f != 0 {
			files++
		}
	}
	if files > 1 || (m&etl.ModeSequential != 0 && m&(etl.ModeCircular|etl.ModeNewFile|etl.ModeBuffering) != 0) {
		return fmt.Errorf("session: logging modes %#x do not go together", m)
	}
	s.circular = m&etl.ModeCircular != 0
	s.newFile = m&etl.ModeNewFile != 0
	s.appendMode = m&etl.ModeAppend != 0
	s.buffering = m&etl.ModeBuffering != 0
	s.compress = m&etl.ModeCompressed != 0
	s.independent = m&ModeIndependentSession != 0
	s.perCPU = m&etl.ModeNoPerProcessor == 0
	if s.compress && s.circular {
		return errors.New("session: a circular file cannot be compressed")
	}
	if s.bufSize == 0 {
		s.bufSize = DefaultBufferSize
	}
	if s.bufSize < MinBufferSize || s.bufSize > MaxBufferSize || s.bufSize%1024 != 0 {
		return fmt.Errorf("session: buffer size %d is not a multiple of 1 KiB from 4 KiB to 1 MiB", s.bufSize)
	}
	if err := s.checkMaxFileSize(s.maxFileSize); err != nil {
		return err
	}
	if (s.circular || s.newFile) && s.maxFileSize == 0 {
		return errors.New("session: circular and new-file modes need a maximum file size")
	}
	switch s.clockType {
	case etl.ClockQPC, etl.ClockSystemTime:
	case 0:
		s.clockType = etl.ClockQPC
	default:
		return fmt.Errorf("session: clock type %v is not emulated", s.clockType)
	}
	s.sysClock = s.clockType == etl.ClockSystemTime
	s.pattern = o.FileName
	if s.pattern == "" {
		s.pattern = s.name + ".etl"
		if s.newFile {
			s.pattern = s.name + "_%d.etl"
		}
	}
	if s.newFile && strings.Count(s.pattern, "%d") != 1 {
		return fmt.Errorf("session: new-file name %q must hold %%d once", s.pattern)
	}
	if s.create == nil {
		s.create = func(name string) (File, error) { return os.Create(name) }
	}
	if s.open == nil {
		s.open = func(name string) (File, error) { return os.OpenFile(name, os.O_RDWR, 0) }
	}
	s.ncpu = s.sys.ncpu
	if !s.perCPU {
		s.ncpu = 1
	}
	s.cur = make([]*buffer, s.ncpu)
	s.setBufferCounts(o.MinimumBuffers, o.MaximumBuffers)
	return nil
}

func (s *Session) checkMaxFileSize(n int64) error {
	if n < 0 || (n > 0 && n/int64(s.bufSize) < 2) {
		return fmt.Errorf("session: a %d-byte file cannot hold two %d-byte buffers", n, s.bufSize)
	}
	if n > 0 && s.buffering {
		return errors.New("session: buffering mode has no file size")
	}
	return nil
}

func (s *Session) setBufferCounts(minBuf, maxBuf int) {
	if minBuf <= 0 {
		minBuf = 2 * s.ncpu
	}
	minBuf = max(minBuf, 2)
	if maxBuf <= 0 {
		maxBuf = minBuf + 20
	}
	s.minBuf, s.maxBuf = minBuf, max(maxBuf, minBuf, s.ncpu+1)
}

// Name returns the session name.
func (s *Session) Name() string { return s.name }

// LoggerID returns the session's logger id, stored in its buffers.
func (s *Session) LoggerID() uint16 { return s.id }

// lose counts n events the session missed.
func (s *Session) lose(n uint32) {
	s.eventsLost += uint64(n)
	s.fileEventsLost += n
}

// fileFull reports whether a bounded sequential (or appended) file
// cannot take extra more buffers.
func (s *Session) fileFull(extra int) bool {
	f := s.file
	return f != nil && f.ring > 0 && !s.circular && !s.newFile && f.written+extra > f.ring
}

// fits reports whether a record of need bytes (rounded) can be logged on
// processor cpu now.
func (s *Session) fits(cpu, need int) bool {
	if etl.BufferHeaderSize+need > s.bufSize {
		return false
	}
	b := s.cur[cpu]
	if b != nil && len(b.data)+need <= s.bufSize {
		return true
	}
	// A new buffer is needed, and b, if any, is retired.
	if b != nil && !s.buffering && s.fileFull(len(s.waiting)+1) {
		return false
	}
	if len(s.free) > 0 || s.nbuf < s.maxBuf {
		return true
	}
	if s.buffering {
		return b != nil || len(s.waiting) > 0 // the oldest buffer is overwritten
	}
	return b != nil && s.delay == 0 // b is written and reused at once
}

// put logs the encoded event on processor cpu; fits must have said yes.
func (s *Session) put(cpu int, ev *etl.Event, need int, now int64) {
	b := s.cur[cpu]
	if b == nil || len(b.data)+need > s.bufSize {
		if b != nil {
			s.cur[cpu] = nil
			s.retire(b, now)
		}
		b = s.take()
		b.cpu, b.firstTick = uint16(cpu), now
		s.cur[cpu] = b
		if s.flushTimer > 0 && !s.buffering {
			s.setDeadline(now + s.flushTimer)
		}
	}
	start := len(b.data)
	var err error
	b.data, err = etl.AppendRecord(b.data, ev)
	if err != nil { // checked by the caller; kept for safety
		b.data = b.data[:start]
		s.lose(1)
		return
	}
	if pad := (8 - len(b.data)%8) % 8; pad > 0 {
		b.data = append(b.data, zeros[:pad]...)
	}
	b.lastTS = ev.Timestamp
	b.events++
	s.eventsLogged++
	if ev.Timestamp > s.maxTS {
		s.maxTS = ev.Timestamp
	}
}

var zeros [8]byte

// retire hands a buffer that is full (or flushed) to the logger.
func (s *Session) retire(b *buffer, now int64) {
	switch {
	case s.buffering:
		s.waiting = append(s.waiting, b)
	case s.delay == 0:
		s.writeBuffer(b, false)
	default:
		b.ready = noDeadline
		if s.delay > 0 {
			b.ready = now + s.delay
			s.setDeadline(b.ready)
		}
		s.waiting = append(s.waiting, b)
	}
}

// take returns an empty buffer: a free one, a new one, or (in buffering
// mode) the oldest full one, whose events are overwritten.
func (s *Session) take() *buffer {
	if n := len(s.free); n > 0 {
		b := s.free[n-1]
		s.free = s.free[:n-1]
		return b
	}
	if s.nbuf < s.maxBuf || !s.buffering || len(s.waiting) == 0 {
		s.nbuf++
		return &buffer{data: make([]byte, etl.BufferHeaderSize, s.bufSize)}
	}
	b := s.waiting[0]
	copy(s.waiting, s.waiting[1:])
	s.waiting = s.waiting[:len(s.waiting)-1]
	s.buffersOverwritten++
	b.data, b.events = b.data[:etl.BufferHeaderSize], 0
	return b
}

// release returns a written or lost buffer to the pool.
func (s *Session) release(b *buffer) {
	b.data, b.events = b.data[:etl.BufferHeaderSize], 0
	if s.nbuf > s.maxBuf {
		s.nbuf--
		return
	}
	s.free = append(s.free, b)
}

// setDeadline makes the timers run at tick d at the latest.
func (s *Session) setDeadline(d int64) {
	if d < s.deadline {
		s.deadline = d
		s.sys.noteDeadline(d)
	}
}

// runTimers flushes the buffers older than the flush timer and writes
// the full buffers whose delay is over.
func (s *Session) runTimers(now int64) {
	// The logger writes the waiting buffers that are due, in order.
	if !s.buffering {
		n := 0
		for _, b := range s.waiting {
			if b.ready <= now {
				s.writeBuffer(b, false)
				continue
			}
			s.waiting[n] = b
			n++
		}
		clear(s.waiting[n:])
		s.waiting = s.waiting[:n]
	}
	if s.flushTimer > 0 && !s.buffering {
		aged := s.scratch[:0]
		for _, b := range s.cur {
			if b != nil && b.firstTick+s.flushTimer <= now {
				aged = append(aged, b)
			}
		}
		sortBuffers(aged)
		for _, b := range aged {
			s.cur[b.cpu] = nil
			s.writeBuffer(b, false)
		}
		clear(aged)
		s.scratch = aged[:0]
	}
	s.deadline = noDeadline
	for _, b := range s.cur {
		if b != nil && s.flushTimer > 0 && !s.buffering {
			s.deadline = min(s.deadline, b.firstTick+s.flushTimer)
		}
	}
	if !s.buffering {
		for _, b := range s.waiting {
			s.deadline = min(s.deadline, b.ready)
		}
	}
}

// sortBuffers orders buffers oldest first: by the timestamp of their last
// event, then processor (the order in which etl.Writer flushes them).
func sortBuffers(bs []*buffer) {
	slices.SortStableFunc(bs, func(a, b *buffer) int {
		if a.lastTS != b.lastTS {
			if a.lastTS < b.lastTS {
				return -1
			}
			return 1
		}
		return int(a.cpu) - int(b.cpu)
	})
}

// writeBuffer writes a buffer to the file (rotating or losing it as the
// mode says) and frees it.
func (s *Session) writeBuffer(b *buffer, last bool) {
	defer s.release(b)
	if s.file == nil && s.err == nil {
		if err := s.openFile(b); err != nil {
			s.err = err
		}
	}
	if s.file == nil || s.err != nil || s.fileFull(1) {
		s.loseBuffer(b)
		return
	}
	s.seq++
	out := s.file.encode(b, s.seq, last)
	if s.newFile && !s.file.fits(len(out)) && s.file.written > 1 {
		// The next file; out stays valid (the old file's scratch).
		if err := s.rotate(b); err != nil {
			s.err = err
			s.loseBuffer(b)
			return
		}
	}
	flags := binary.LittleEndian.Uint16(out[0x34:])
	if err := s.file.write(out, flags, b.lastTS); err != nil {
		s.err = err
		s.loseBuffer(b)
		return
	}
	s.buffersWritten++
}

// loseBuffer counts a buffer that could not be written.
func (s *Session) loseBuffer(b *buffer) {
	s.buffersLost++
	s.fileBuffersLost++
	s.lose(b.events)
}

// flushAll writes every waiting and partly filled buffer: in file modes
// the waiting ones first, in order, then the partial ones oldest first;
// in buffering mode all of them oldest first. closing marks the last
// buffer with the flush marker.
func (s *Session) flushAll(closing bool) {
	todo := s.scratch[:0]
	if !s.buffering {
		for _, b := range s.waiting {
			s.writeBuffer(b, false)
		}
		clear(s.waiting)
		s.waiting = s.waiting[:0]
	}
	for i, b := range s.cur {
		if b != nil {
			todo = append(todo, b)
			s.cur[i] = nil
		}
	}
	if s.buffering {
		todo = append(todo, s.waiting...)
		clear(s.waiting)
		s.waiting = s.waiting[:0]
	}
	sortBuffers(todo)
	for i, b := range todo {
		s.writeBuffer(b, closing && i == len(todo)-1)
	}
	clear(todo)
	s.scratch = todo[:0]
	s.deadline = noDeadline
}

// Flush writes the session's buffers to its file, as ControlTrace with
// EVENT_TRACE_CONTROL_FLUSH does: the full buffers waiting for the
// logger and the partly filled ones (in buffering mode, the whole
// in-memory ring, oldest buffer first). It returns the first write error
// the session met.
func (s *Session) Flush() error {
	sys := s.sys
	sys.mu.Lock()
	defer sys.mu.Unlock()
	if s.stopped {
		return ErrStopped
	}
	sys.tick()
	s.flushAll(false)
	return s.err
}

// Update changes a running session, as ControlTrace with
// EVENT_TRACE_CONTROL_UPDATE does. Zero fields are left as they are.
type Update struct {
	// MinimumBuffers and MaximumBuffers resize the pool (with the
	// adjustments of [SessionOptions]). Buffers beyond a lowered maximum
	// are released as they are freed.
	MinimumBuffers, MaximumBuffers int
	// FlushTimer sets the flush timer in ticks; a negative value turns
	// it off.
	FlushTimer int64
	// MaxFileSize sets the largest file size in bytes (not in circular
	// or buffering mode). A sequential file already larger is full.
	MaxFileSize int64
}

// Update applies u to the session.
func (s *Session) Update(u Update) error {
	sys := s.sys
	sys.mu.Lock()
	defer sys.mu.Unlock()
	if s.stopped {
		return ErrStopped
	}
	if u.MaxFileSize != 0 {
		if s.circular || s.buffering {
			return errors.New("session: the file size of a circular or buffering session cannot change")
		}
		if err := s.checkMaxFileSize(u.MaxFileSize); err != nil {
			return err
		}
		s.maxFileSize = u.MaxFileSize
		if s.file != nil {
			s.file.setMaxSize(u.MaxFileSize)
		}
	}
	if u.MinimumBuffers != 0 || u.MaximumBuffers != 0 {
		minBuf, maxBuf := s.minBuf, s.maxBuf
		if u.MinimumBuffers != 0 {
			minBuf = u.MinimumBuffers
		}
		if u.MaximumBuffers != 0 {
			maxBuf = u.MaximumBuffers
		}
		s.setBufferCounts(minBuf, maxBuf)
		for s.nbuf > s.maxBuf && len(s.free) > 0 {
			s.free = s.free[:len(s.free)-1]
			s.nbuf--
		}
	}
	if u.FlushTimer != 0 {
		s.flushTimer = max(u.FlushTimer, 0)
		s.deadline = sys.last // recompute at the next tick
		sys.noteDeadline(s.deadline)
	}
	sys.tick()
	return nil
}

// Stop stops the session, as ControlTrace with EVENT_TRACE_CONTROL_STOP
// does: it writes every buffer (in buffering mode too), completes the
// file's header (BuffersWritten, EndTime, EventsLost, BuffersLost),
// closes it, and disables the session's providers. It returns the first
// write error the session met.
func (s *Session) Stop() error {
	sys := s.sys
	sys.mu.Lock()
	defer sys.mu.Unlock()
	if s.stopped {
		return ErrStopped
	}
	sys.tick()
	beforeFile, before := s.file, -1
	if s.file != nil {
		before = s.file.written
	}
	s.flushAll(true)
	if s.buffering && s.file == nil && s.err == nil {
		// Nothing was ever flushed: the file still records the session.
		if err := s.openFile(nil); err != nil {
			s.err = err
		}
	}
	if err := s.closeFile(true, s.file != nil && s.file == beforeFile && s.file.written == before); err != nil && s.err == nil {
		s.err = err
	}
	for _, g := range s.enabled {
		g.enables = slices.DeleteFunc(g.enables, func(x *enableInfo) bool { return x.s == s })
		g.active.Store(int32(len(g.enables)))
	}
	s.enabled = nil
	s.stopped = true
	sys.sessions[s.id] = nil
	delete(sys.byName, s.name)
	s.cur, s.free, s.waiting = nil, nil, nil
	return s.err
}

// Stats is what ControlTrace with EVENT_TRACE_CONTROL_QUERY reports,
// with a few counts more.
type Stats struct {
	LoggerID                       uint16
	BufferSize                     int
	MinimumBuffers, MaximumBuffers int
	NumberOfBuffers                int // buffers allocated
	FreeBuffers                    int
	EventsLogged                   uint64 // events put in a buffer
	EventsLost                     uint64 // events missed, or in buffers lost
	BuffersWritten                 uint64 // buffers written to files, headers not counted
	BuffersLost                    uint64 // full buffers that could not be written
	BuffersOverwritten             uint64 // buffering mode: buffers overwritten in the ring
	Files                          []string
}

// Stats returns the session's counters.
func (s *Session) Stats() Stats {
	s.sys.mu.Lock()
	defer s.sys.mu.Unlock()
	return Stats{
		LoggerID: s.id, BufferSize: s.bufSize, MinimumBuffers: s.minBuf, MaximumBuffers: s.maxBuf,
		NumberOfBuffers: s.nbuf, FreeBuffers: len(s.free), EventsLogged: s.eventsLogged, EventsLost: s.eventsLost,
		BuffersWritten: s.buffersWritten, BuffersLost: s.buffersLost, BuffersOverwritten: s.buffersOverwritten,
		Files: slices.Clone(s.files),
	}
}
