package etl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
)

// WriterOptions describe the file a [Writer] produces.
type WriterOptions struct {
	// Header is the log-file header to write. The writer fills BufferSize,
	// the layout version, BuffersWritten, EndTime (if zero), the
	// compressed-mode bit and, when unset, PointerSize (from Is64),
	// NumberOfProcessors (1), PerfFreq (10 MHz for QPC) and ReservedFlags
	// (QPC). StartTime and HeaderTimestamp form the clock reference pair.
	Header LogfileHeader
	// BufferSize is the size of every buffer: a multiple of 1 KiB between
	// 1 KiB and 16 MiB (default 64 KiB).
	BufferSize int
	// LoggerID is stored in every buffer's context (default 1).
	LoggerID uint16
	// Compress writes every buffer after the header buffer compressed
	// with XPRESS, as a relogger in compressed mode does.
	Compress bool
	// HeaderThreadID and HeaderProcessID identify the thread that started
	// the session, in the header events; HeaderKernelTime and
	// HeaderUserTime are its CPU times.
	HeaderThreadID, HeaderProcessID  uint32
	HeaderKernelTime, HeaderUserTime uint32
	// HeaderEvents are the header-group events that follow the log-file
	// header event in the header buffer (for example the header extension
	// of a kernel session). nil writes the PartitionInfoExtension event
	// Windows 10 writes. Their timestamps are the header's.
	HeaderEvents []Event
	// MaxFileSize, if not 0, bounds the file. Sequential files stop
	// taking events when full (WriteEvent returns ErrLogFull and the
	// events count as lost); circular files wrap.
	MaxFileSize int64
	// Circular overwrites the oldest buffers once the file holds
	// MaxFileSize bytes, keeping the header buffer, as
	// EVENT_TRACE_FILE_MODE_CIRCULAR does. The destination must be an
	// io.WriterAt. Not allowed with Compress.
	Circular bool
	// Reorder accepts an event earlier than the previous one of its
	// processor (input whose buffers overlap, such as a damaged or
	// duplicated trace): the processor's buffer is flushed and the event
	// starts a new one, so that each buffer stays in time order (readers
	// order a processor's buffers by their flush times). [Writer.Reordered]
	// counts these events. Without it such an event is an error.
	Reorder bool
}

// ErrLogFull is returned by WriteEvent when a sequential file has reached
// its maximum size.
var ErrLogFull = errors.New("etl: log file is full")

// Writer writes an .etl file: a header buffer, then per-processor buffers
// of records, flushed when full, as Windows' loggers do. Events of one
// processor must come in time order. If the destination implements
// io.WriterAt (an *os.File does), Close completes the header
// (BuffersWritten, EndTime, EventsLost) and marks the last buffer;
// otherwise those fields stay 0, which readers handle as a log that was not
// closed.
//
// A writer is not safe for concurrent use.
type Writer struct {
	w        io.Writer
	opts     WriterOptions
	h        LogfileHeader
	clock    Clock
	bufSize  int
	cpus     map[uint16]*pendingBuffer
	seq      int64
	written  int // buffers written, header buffer included
	off      int64
	lastOff  int64  // offset of the last buffer written
	lastFlag uint16 // its BufferFlag
	lastTime int64  // latest event FILETIME
	ring     int    // buffers the file holds (0: unbounded)
	enc      BufferEncoder
	rec      []byte
	closed   bool
	reorder  int // events that went back in time (WriterOptions.Reorder)
}

// Reordered returns how many events went back in time on their processor
// and started a new buffer (WriterOptions.Reorder).
func (w *Writer) Reordered() int { return w.reorder }

type pendingBuffer struct {
	data   []byte
	lastTS int64
	used   bool
	events uint32
}

// NewWriter starts a file on w and writes its header buffer.
func NewWriter(w io.Writer, opts *WriterOptions) (*Writer, error) {
	o := *opts
	if o.BufferSize == 0 {
		o.BufferSize = 64 << 10
	}
	if o.BufferSize < 1024 || o.BufferSize > MaxBufferSize || o.BufferSize%1024 != 0 {
		return nil, fmt.Errorf("etl: buffer size %d is not a multiple of 1 KiB between 1 KiB and 16 MiB", o.BufferSize)
	}
	if o.LoggerID == 0 {
		o.LoggerID = 1
	}
	h := o.Header
	h.BufferSize = uint32(o.BufferSize)
	if h.PointerSize == 0 {
		h.PointerSize = 4
		if h.Is64 {
			h.PointerSize = 8
		}
	}
	if h.NumberOfProcessors == 0 {
		h.NumberOfProcessors = 1
	}
	if h.ReservedFlags == 0 {
		h.ReservedFlags = uint32(ClockQPC)
	}
	if h.PerfFreq == 0 && h.Clock() == ClockQPC {
		h.PerfFreq = 10000000
	}
	if h.MajorVersion == 0 {
		h.MajorVersion, h.ProviderVersion = 10, 19041
	}
	if o.Compress {
		if o.Circular {
			return nil, errors.New("etl: circular files cannot be compressed")
		}
		h.LogFileMode |= ModeCompressed
		h.LogFileMode &^= ModeCircular
	}
	var ring int // buffers the file can hold
	if o.MaxFileSize > 0 {
		ring = int(o.MaxFileSize / int64(o.BufferSize))
		if ring < 2 {
			return nil, fmt.Errorf("etl: a %d-byte file cannot hold two %d-byte buffers", o.MaxFileSize, o.BufferSize)
		}
		if o.MaxFileSize%(1<<20) == 0 {
			h.MaximumFileSize = uint32(o.MaxFileSize >> 20)
			h.LogFileMode &^= ModeUseKBytesForSize
		} else {
			h.MaximumFileSize = uint32((o.MaxFileSize + 1023) >> 10)
			h.LogFileMode |= ModeUseKBytesForSize
		}
	}
	if o.Circular {
		if ring == 0 {
			return nil, errors.New("etl: a circular file needs MaxFileSize")
		}
		if _, ok := w.(io.WriterAt); !ok {
			return nil, errors.New("etl: a circular file needs an io.WriterAt destination")
		}
		h.LogFileMode = h.LogFileMode&^ModeSequential | ModeCircular
	} else if h.LogFileMode&(ModeCircular|ModeNewFile|ModeAppend) == 0 {
		h.LogFileMode |= ModeSequential
	}
	h.SubVersion, h.SubMinorVersion = 1, 5
	if o.Compress || o.BufferSize > 1<<20 || h.NumberOfProcessors > 256 {
		h.SubVersion, h.SubMinorVersion = 2, 0
	}
	h.StartBuffers = 1
	wr := &Writer{w: w, opts: o, h: h, bufSize: o.BufferSize, cpus: map[uint16]*pendingBuffer{}, clock: NewClock(&h), ring: ring,
		enc: BufferEncoder{BufferSize: o.BufferSize, Compress: o.Compress, LoggerID: o.LoggerID}}
	hb, err := wr.headerBuffer()
	if err != nil {
		return nil, err
	}
	if err := wr.emit(hb); err != nil {
		return nil, err
	}
	return wr, nil
}

// Header returns the log-file header as it will be completed on Close.
func (w *Writer) Header() LogfileHeader { return w.h }

// Clock returns the clock that converts the file's raw timestamps.
func (w *Writer) Clock() Clock { return w.clock }

// AddLost counts events and buffers the session lost; they are recorded
// in the header on Close.
func (w *Writer) AddLost(events, buffers uint32) {
	w.h.EventsLost += events
	w.h.BuffersLost += buffers
}

// headerBuffer builds buffer 0: the log-file header event and the
// partition-info event, as Windows 10 writes them.
func (w *Writer) headerBuffer() ([]byte, error) {
	t := HeaderSystem32
	if w.h.Is64 {
		t = HeaderSystem64
	}
	base := Event{Header: t, ThreadID: w.opts.HeaderThreadID, ProcessID: w.opts.HeaderProcessID, Timestamp: w.h.HeaderTimestamp,
		ClassVersion: 2, KernelTime: w.opts.HeaderKernelTime, UserTime: w.opts.HeaderUserTime}
	hdr := base
	hdr.UserData = AppendLogfileHeader(nil, &w.h)
	events := []*Event{&hdr}
	if w.opts.HeaderEvents == nil {
		part := base
		part.HookID = 0x0050
		part.UserData = make([]byte, 0x30)
		events = append(events, &part)
	}
	for i := range w.opts.HeaderEvents {
		ev := w.opts.HeaderEvents[i]
		ev.Timestamp = w.h.HeaderTimestamp
		events = append(events, &ev)
	}
	data := make([]byte, BufferHeaderSize, w.bufSize)
	var err error
	for _, ev := range events {
		if data, err = AppendRecord(data, ev); err != nil {
			return nil, err
		}
		for len(data)%8 != 0 {
			data = append(data, 0)
		}
	}
	if len(data) > w.bufSize || len(data) > headerReadSize {
		return nil, fmt.Errorf("etl: header events of %d bytes do not fit (names too long?)", len(data))
	}
	bh := BufferHeader{SavedOffset: uint32(len(data)), CurrentOffset: uint32(len(data)), Offset: uint32(len(data)),
		ClientContext: uint32(w.opts.LoggerID) << 16, State: 3, Flags: BufferFlagFlushMarker | BufferFlagProcIndex, Type: BufferTypeHeader}
	return w.finishHeader(data, &bh), nil
}

// finishHeader pads the header buffer and returns the bytes to write:
// relogged (compressed-mode) header buffers are short, 512-byte aligned.
func (w *Writer) finishHeader(data []byte, bh *BufferHeader) []byte {
	size := w.bufSize
	if w.opts.Compress {
		size = (len(data) + 511) &^ 511
	}
	bh.BufferSize = uint32(size)
	AppendBufferHeader(data[:0], bh)
	if cap(data) < size {
		data = append(data, make([]byte, size-len(data))...)
	}
	return fillFF(data[:size], int(bh.Offset))
}

func (w *Writer) emit(b []byte) error {
	if w.opts.Circular && w.written >= w.ring {
		// Wrap: overwrite the oldest buffer after the fixed prefix.
		off := int64(RingSlot(w.written, int(w.h.StartBuffers), w.ring)) * int64(w.bufSize)
		if _, err := w.w.(io.WriterAt).WriteAt(b, off); err != nil {
			return fmt.Errorf("etl: writing buffer %d: %w", w.written, err)
		}
		w.lastOff = off
		w.written++
		return nil
	}
	if _, err := w.w.Write(b); err != nil {
		return fmt.Errorf("etl: writing buffer %d: %w", w.written, err)
	}
	w.lastOff = w.off
	w.off += int64(len(b))
	w.written++
	return nil
}

// fits reports whether one more buffer can be written.
func (w *Writer) fits() bool {
	return w.ring == 0 || w.opts.Circular || w.written < w.ring
}

// WriteEvent adds one event. Its record is built from the header kind,
// fields, extended items and user data (see [AppendRecord]); its
// Processor chooses the buffer and its raw Timestamp orders it (set Time
// instead, with Timestamp 0, to have it converted with the file's clock).
func (w *Writer) WriteEvent(ev *Event) error {
	if w.closed {
		return errors.New("etl: write to a closed Writer")
	}
	if ev.Timestamp == 0 && ev.Time != 0 {
		e := *ev
		e.Timestamp = w.clock.RawTimestamp(ev.Time)
		ev = &e
	}
	var err error
	if w.rec, err = AppendRecord(w.rec[:0], ev); err != nil {
		return err
	}
	need := (len(w.rec) + 7) &^ 7
	if BufferHeaderSize+need > w.bufSize {
		return fmt.Errorf("etl: %d-byte record does not fit in %d-byte buffers", len(w.rec), w.bufSize)
	}
	if int(ev.Processor) >= int(w.h.NumberOfProcessors) {
		return fmt.Errorf("etl: processor %d, but the header says %d processors", ev.Processor, w.h.NumberOfProcessors)
	}
	pb := w.cpus[ev.Processor]
	if pb == nil {
		pb = &pendingBuffer{data: make([]byte, BufferHeaderSize, w.bufSize)}
		w.cpus[ev.Processor] = pb
	}
	backwards := pb.used && ev.Timestamp < pb.lastTS
	if backwards && !w.opts.Reorder {
		return fmt.Errorf("etl: processor %d event at %d comes before the previous one at %d", ev.Processor, ev.Timestamp, pb.lastTS)
	}
	if backwards {
		w.reorder++
	}
	if backwards || len(pb.data)+need > w.bufSize {
		if !w.fits() {
			w.h.EventsLost++
			return ErrLogFull
		}
		if err := w.flushCPU(ev.Processor, pb, false); err != nil {
			return err
		}
	}
	pb.data = append(pb.data, w.rec...)
	for len(pb.data)%8 != 0 {
		pb.data = append(pb.data, 0)
	}
	pb.lastTS, pb.used = ev.Timestamp, true
	pb.events++
	if ft := w.clock.FileTime(ev.Timestamp); ft > w.lastTime {
		w.lastTime = ft
	}
	return nil
}

// flushCPU writes processor p's buffer and starts a new one.
func (w *Writer) flushCPU(p uint16, pb *pendingBuffer, last bool) error {
	if !pb.used {
		return nil
	}
	w.seq++
	out := w.enc.Encode(pb.data, p, pb.lastTS, w.seq, last)
	if err := w.emit(out); err != nil {
		return err
	}
	w.lastFlag = binary.LittleEndian.Uint16(out[0x34:])
	pb.data = pb.data[:BufferHeaderSize]
	pb.used, pb.events = false, 0
	return nil
}

// Flush writes every processor's partly filled buffer, oldest first.
func (w *Writer) Flush() error { return w.flushAll(false) }

func (w *Writer) flushAll(closing bool) error {
	var cpus []uint16
	for p, pb := range w.cpus {
		if pb.used {
			cpus = append(cpus, p)
		}
	}
	sort.Slice(cpus, func(i, j int) bool {
		a, b := w.cpus[cpus[i]], w.cpus[cpus[j]]
		if a.lastTS != b.lastTS {
			return a.lastTS < b.lastTS
		}
		return cpus[i] < cpus[j]
	})
	for i, p := range cpus {
		if !w.fits() {
			pb := w.cpus[p]
			w.h.BuffersLost++
			w.h.EventsLost += pb.events
			pb.data, pb.used, pb.events = pb.data[:BufferHeaderSize], false, 0
			continue
		}
		if err := w.flushCPU(p, w.cpus[p], closing && i == len(cpus)-1); err != nil {
			return err
		}
	}
	return nil
}

// Close flushes the buffers and, if the destination is an io.WriterAt,
// completes the header. It does not close the destination.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	before := w.written
	if err := w.flushAll(true); err != nil {
		return err
	}
	wa, ok := w.w.(io.WriterAt)
	if !ok {
		return nil
	}
	if w.written == before && w.written > 1 && w.lastFlag&BufferFlagFlushMarker == 0 {
		// Everything was flushed before Close: mark the last buffer.
		var b [2]byte
		binary.LittleEndian.PutUint16(b[:], w.lastFlag|BufferFlagFlushMarker)
		if _, err := wa.WriteAt(b[:], w.lastOff+0x34); err != nil {
			return fmt.Errorf("etl: marking the last buffer: %w", err)
		}
	}
	w.h.BuffersWritten = uint32(w.written)
	if w.h.EndTime == 0 {
		w.h.EndTime = max(w.lastTime, w.h.StartTime)
	}
	hb, err := w.headerBuffer()
	if err != nil {
		return err
	}
	if _, err := wa.WriteAt(hb, 0); err != nil {
		return fmt.Errorf("etl: completing the header: %w", err)
	}
	return nil
}
