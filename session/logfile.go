package session

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/etwkit/etw/etl"
)

// File is a log file a session writes: an *os.File, a [MemFile], or
// anything that writes at offsets and closes. Append mode also needs
// io.ReaderAt and a Size() int64 or Stat() (fs.FileInfo, error) method.
type File interface {
	io.WriterAt
	io.Closer
}

// logFile is one open log file: its header and where the next buffer
// goes. Buffers are laid out as etl.Writer lays them out, and the header
// buffer is made by etl.Writer itself.
type logFile struct {
	f        File
	name     string
	opts     etl.WriterOptions // header template and writer options
	h        etl.LogfileHeader // the header as etl.NewWriter completed it
	clock    etl.Clock
	bufSize  int
	written  int // buffers in the file, header buffer included
	off      int64
	ring     int // buffers the file can hold (0: no limit)
	circular bool
	enc      *etl.BufferEncoder // shared by the session's files
	maxTS    int64              // latest timestamp of the buffers written
	appended []byte             // append mode: the existing header buffer, patched on close
	wrote    int                // buffers this session wrote to the file
	lastOff  int64              // offset and flags of the last one
	lastFlag uint16
}

// headerBuffer returns the header buffer etl.NewWriter writes for opts,
// and the header as it completed it.
func headerBuffer(opts *etl.WriterOptions) ([]byte, etl.LogfileHeader, error) {
	var m memBuf
	w, err := etl.NewWriter(&m, opts)
	if err != nil {
		return nil, etl.LogfileHeader{}, err
	}
	return m.b, w.Header(), nil
}

// memBuf is an in-memory io.Writer and io.WriterAt.
type memBuf struct{ b []byte }

func (m *memBuf) Write(p []byte) (int, error) { m.b = append(m.b, p...); return len(p), nil }
func (m *memBuf) WriteAt(p []byte, off int64) (int, error) {
	if int(off)+len(p) > len(m.b) {
		m.b = append(m.b, make([]byte, int(off)+len(p)-len(m.b))...)
	}
	return copy(m.b[off:], p), nil
}

// writerOptions returns the etl.Writer options of a new file of the
// session starting at tick.
func (s *Session) writerOptions(name string, tick int64) etl.WriterOptions {
	sys := s.sys
	raw := tick
	if s.sysClock {
		raw = sys.FileTime(tick)
	}
	h := etl.LogfileHeader{
		Is64: !s.is32, NumberOfProcessors: uint32(s.ncpu), TimerResolution: 156250,
		LogFileMode: s.mode & (etl.ModeSequential | etl.ModeNewFile | etl.ModeAppend | etl.ModeBuffering | etl.ModeNoPerProcessor | ModeIndependentSession),
		CPUSpeedMHz: sys.cpuSpeed, BootTime: sys.bootTime, PerfFreq: sys.freq, StartTime: sys.FileTime(tick),
		HeaderTimestamp: raw, ReservedFlags: uint32(s.clockType), LoggerName: s.name, LogFileName: name,
	}
	return etl.WriterOptions{Header: h, BufferSize: s.bufSize, LoggerID: s.id, Compress: s.compress,
		MaxFileSize: s.maxFileSize, Circular: s.circular}
}

// openFile opens the session's next file: the file named by the session
// (in new-file mode the next number), appended to in append mode. Its
// header's reference time is the session start, or for a later file the
// first event of the oldest buffer not yet written (b, if not nil, being
// one of them), so that the header event comes before every event of
// the file on processor 0, as readers expect.
func (s *Session) openFile(b *buffer) error {
	name := s.pattern
	if s.newFile {
		s.fileIndex++
		name = fmt.Sprintf(s.pattern, s.fileIndex)
	}
	if s.appendMode {
		f, err := s.open(name)
		switch {
		case err == nil:
			lf, err := s.appendTo(f, name)
			if err != nil {
				f.Close()
				return err
			}
			s.file = lf
			s.files = append(s.files, name)
			return nil
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
	}
	f, err := s.create(name)
	if err != nil {
		return err
	}
	tick := s.startTick
	if s.fileIndex > 1 {
		tick = s.sys.last
		if b != nil {
			tick = min(tick, b.firstTick)
		}
		for _, x := range s.cur {
			if x != nil {
				tick = min(tick, x.firstTick)
			}
		}
		for _, x := range s.waiting {
			tick = min(tick, x.firstTick)
		}
	}
	opts := s.writerOptions(name, tick)
	hb, h, err := headerBuffer(&opts)
	if err != nil {
		f.Close()
		return err
	}
	if _, err := f.WriteAt(hb, 0); err != nil {
		f.Close()
		return err
	}
	lf := &logFile{f: f, name: name, opts: opts, h: h, clock: etl.NewClock(&h), bufSize: s.bufSize, written: 1,
		off: int64(len(hb)), circular: s.circular}
	lf.setMaxSize(s.maxFileSize)
	lf.enc = s.encoder()
	s.file = lf
	s.files = append(s.files, name)
	s.fileEventsLost, s.fileBuffersLost = 0, 0
	return nil
}

// setMaxSize bounds the file.
func (lf *logFile) setMaxSize(n int64) {
	lf.opts.MaxFileSize = n
	lf.ring = int(n / int64(lf.bufSize))
}

// appendTo continues an existing file: the new buffers go after its
// buffers and continue its sequence numbers, and its header is updated
// on close. The file must have been written with the session's buffer
// size, pointer size, clock and processor count, uncompressed and not
// circular.
func (s *Session) appendTo(f File, name string) (*logFile, error) {
	ra, ok := f.(io.ReaderAt)
	if !ok {
		return nil, errors.New("session: append mode needs a file that is an io.ReaderAt")
	}
	size, err := fileSize(f)
	if err != nil {
		return nil, err
	}
	ef, err := etl.NewFile(ra, size)
	if err != nil {
		return nil, fmt.Errorf("session: appending to %s: %w", name, err)
	}
	h := ef.Header
	ptr := uint32(8)
	if s.is32 {
		ptr = 4
	}
	switch {
	case int(h.BufferSize) != s.bufSize:
		return nil, fmt.Errorf("session: %s has %d-byte buffers, the session %d", name, h.BufferSize, s.bufSize)
	case h.Is64 == s.is32 || h.PointerSize != ptr:
		return nil, fmt.Errorf("session: %s has %d-byte pointers", name, h.PointerSize)
	case h.Clock() != s.clockType || (s.clockType == etl.ClockQPC && h.PerfFreq != s.sys.freq):
		return nil, fmt.Errorf("session: %s uses the %v clock at %d Hz, the session the %v clock at %d Hz", name, h.Clock(), h.PerfFreq, s.clockType, s.sys.freq)
	case int(h.NumberOfProcessors) != s.ncpu:
		return nil, fmt.Errorf("session: %s has %d processors, the session %d", name, h.NumberOfProcessors, s.ncpu)
	case h.Compressed() || h.LogFileMode&etl.ModeCircular != 0:
		return nil, fmt.Errorf("session: cannot append to the compressed or circular file %s", name)
	}
	n := size / int64(s.bufSize) // whole buffers; a torn last one is overwritten
	hb := make([]byte, s.bufSize)
	if _, err := ra.ReadAt(hb, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	var seq int64
	for _, b := range ef.Buffers() {
		seq = max(seq, b.Header.SequenceNumber)
	}
	s.seq = max(s.seq, seq)
	lf := &logFile{f: f, name: name, h: h, clock: etl.NewClock(&h), bufSize: s.bufSize, written: int(n),
		off: n * int64(s.bufSize), appended: hb, enc: s.encoder()}
	lf.setMaxSize(s.maxFileSize)
	return lf, nil
}

// encoder returns the session's buffer encoder, shared by its files.
func (s *Session) encoder() *etl.BufferEncoder {
	if s.enc == nil {
		s.enc = &etl.BufferEncoder{BufferSize: s.bufSize, Compress: s.compress, LoggerID: s.id}
	}
	return s.enc
}

func fileSize(f File) (int64, error) {
	switch f := f.(type) {
	case interface{ Size() int64 }:
		return f.Size(), nil
	case interface{ Stat() (fs.FileInfo, error) }:
		st, err := f.Stat()
		if err != nil {
			return 0, err
		}
		return st.Size(), nil
	}
	return 0, errors.New("session: append mode needs a file with a Size or Stat method")
}

// rotate closes the current file and opens the next one (new-file mode)
// for b.
func (s *Session) rotate(b *buffer) error {
	if err := s.closeFile(false, true); err != nil {
		return err
	}
	return s.openFile(b)
}

// closeFile completes the current file's header and closes it. final
// is set when the session stops; markLast asks to set the flush marker
// on the last buffer written, if it has none (as etl.Writer does when
// its last buffers were written before Close).
func (s *Session) closeFile(final, markLast bool) error {
	lf := s.file
	if lf == nil {
		return nil
	}
	s.file = nil
	if markLast && lf.wrote > 0 && lf.lastFlag&etl.BufferFlagFlushMarker == 0 {
		var b [2]byte
		binary.LittleEndian.PutUint16(b[:], lf.lastFlag|etl.BufferFlagFlushMarker)
		if _, err := lf.f.WriteAt(b[:], lf.lastOff+0x34); err != nil {
			lf.f.Close()
			return err
		}
	}
	maxTS := lf.maxTS
	if final || !s.newFile {
		// Like etl.Writer, count the events taken, also those whose
		// buffers were lost.
		maxTS = max(maxTS, s.maxTS)
	}
	var hb []byte
	if lf.appended != nil {
		hb = lf.appended
		patchHeader(hb, &lf.h, lf.written, lf.clock.FileTime(maxTS), s.fileEventsLost, s.fileBuffersLost)
	} else {
		h := lf.h
		h.BuffersWritten = uint32(lf.written)
		h.EndTime = max(lf.clock.FileTime(maxTS), h.StartTime)
		h.EventsLost += s.fileEventsLost
		h.BuffersLost += s.fileBuffersLost
		opts := lf.opts
		opts.Header = h
		var err error
		if hb, _, err = headerBuffer(&opts); err != nil {
			lf.f.Close()
			return err
		}
	}
	s.fileEventsLost, s.fileBuffersLost = 0, 0
	_, err := lf.f.WriteAt(hb, 0)
	if cerr := lf.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// patchHeader updates the log-file header event at the start of an
// existing header buffer: buffers written, end time, lost counts and the
// append mode bit.
func patchHeader(hb []byte, h *etl.LogfileHeader, written int, end int64, eventsLost, buffersLost uint32) {
	le := binary.LittleEndian
	p := hb[etl.BufferHeaderSize+0x20:] // the TRACE_LOGFILE_HEADER, after the SYSTEM_TRACE_HEADER
	ptr := 4
	if h.Is64 {
		ptr = 8
	}
	le.PutUint64(p[0x10:], uint64(max(h.EndTime, end)))
	le.PutUint32(p[0x20:], h.LogFileMode|etl.ModeAppend)
	le.PutUint32(p[0x24:], uint32(written))
	le.PutUint32(p[0x30:], h.EventsLost+eventsLost)
	le.PutUint32(p[0x38+2*ptr+0xAC+4+28:], h.BuffersLost+buffersLost)
}

// encode returns the bytes of one buffer of records as etl.Writer stores
// them (etl.BufferEncoder), valid until the next call or until b changes.
func (lf *logFile) encode(b *buffer, seq int64, last bool) []byte {
	return lf.enc.Encode(b.data, b.cpu, b.lastTS, seq, last)
}

// fits reports whether n more bytes fit in a new-file mode file.
func (lf *logFile) fits(n int) bool {
	return lf.opts.MaxFileSize == 0 || lf.off+int64(n) <= lf.opts.MaxFileSize
}

// write writes an encoded buffer at the next place (the oldest ring slot
// once a circular file is full).
func (lf *logFile) write(out []byte, flags uint16, lastTS int64) error {
	off := lf.off
	if lf.circular && lf.written >= lf.ring {
		// Overwrite the oldest buffer after the header buffer.
		off = int64(etl.RingSlot(lf.written, int(lf.h.StartBuffers), lf.ring)) * int64(lf.bufSize)
	} else {
		lf.off += int64(len(out))
	}
	if _, err := lf.f.WriteAt(out, off); err != nil {
		return fmt.Errorf("session: writing %s: %w", lf.name, err)
	}
	lf.lastOff, lf.lastFlag = off, flags
	lf.wrote++
	lf.written++
	lf.maxTS = max(lf.maxTS, lastTS)
	return nil
}
