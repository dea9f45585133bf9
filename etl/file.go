package etl

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/etwkit/etw/etl/compress"
	"github.com/etwkit/etw/internal/readerat"
)

// Limits that bound every allocation made from a length read from a file.
const (
	// MaxBufferSize is the largest buffer this package reads or writes:
	// 16 MiB, the limit ProcessTrace enforces. Compressed buffers never
	// expand beyond the file's buffer size.
	MaxBufferSize  = 16 << 20
	headerReadSize = 0x1000 // ProcessTrace reads the header event from the first 4 KiB
)

// File is an opened .etl file.
type File struct {
	// Name is the path given to [Open], or empty for [NewFile].
	Name string
	// Header is the log-file header from the file's first event.
	Header LogfileHeader
	// Clock converts this file's raw timestamps to FILETIME.
	Clock Clock
	// Format is the compression format of compressed buffers.
	Format compress.Format

	r      io.ReaderAt
	size   int64
	closer io.Closer

	bufSize uint32 // the buffers' size: the log-file header's, or the buffers' own when that is damaged

	indexOnce sync.Once
	buffers   []BufferInfo
	indexErrs []error // damage found by newFile and by the buffer walk

	hook func(int64) // SetReadHook
}

// ErrNotRegular is returned by [Open] for a path that is not a regular
// file (a FIFO, a device, a socket, a directory): a trace is read with
// random access, and opening a FIFO without a writer would block.
var ErrNotRegular = readerat.ErrNotRegular

// Open opens the named .etl file and reads its log-file header. It refuses
// anything but a regular file ([ErrNotRegular]) before opening it.
func Open(name string) (*File, error) {
	osf, size, err := readerat.OpenRegular(name, "an .etl file is read with random access")
	if err != nil {
		return nil, err
	}
	f, err := newFile(osf, size, name)
	if err != nil {
		osf.Close()
		return nil, err
	}
	f.closer = osf
	return f, nil
}

// FileKind names a non-regular file mode ("a named pipe (FIFO)", "a
// directory", …), for errors that wrap [ErrNotRegular].
func FileKind(m os.FileMode) string { return readerat.FileKind(m) }

// NewFile reads an .etl file from r, which holds size bytes.
func NewFile(r io.ReaderAt, size int64) (*File, error) {
	return newFile(r, size, "")
}

// Close closes the file if it was opened with [Open].
func (f *File) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// Size returns the file size in bytes.
func (f *File) Size() int64 { return f.size }

func (f *File) errorf(off int64, err error, format string, args ...any) *FormatError {
	return &FormatError{File: f.Name, Offset: off, RecordOffset: -1, Msg: fmt.Sprintf(format, args...), Err: err}
}

func newFile(r io.ReaderAt, size int64, name string) (*File, error) {
	f := &File{Name: name, r: r, size: size, Format: compress.Xpress}
	notETL := func(format string, args ...any) error {
		return f.errorf(0, ErrNotETL, format, args...)
	}
	minSize := int64(BufferHeaderSize + systemHeaderSize + tlh32Size)
	if size < minSize {
		return nil, notETL("file is %d bytes, smaller than the smallest log-file header (%d)", size, minSize)
	}
	n := int64(headerReadSize)
	if n > size {
		n = size
	}
	head := make([]byte, n)
	if _, err := r.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("etl: reading header: %w", err)
	}
	bh, _ := ParseBufferHeader(head)
	h, err := f.parseHeaderEvent(head, &bh)
	if err != nil {
		return nil, err
	}
	f.Header = h
	f.Clock = NewClock(&f.Header)
	f.bufSize = f.buffersSize(&bh)
	if h.Compressed() {
		if c := compress.Format(bh.State & 0xFFFF); c == compress.LZNT1 || c == compress.Xpress || c == compress.XpressHuffman {
			f.Format = c
		}
	}
	return f, nil
}

// parseHeaderEvent reads the log-file header event at offset 0x48 of
// head, the file's first bytes. A header event whose record header is
// damaged (one of marker, hook id and size wrong, or a record the parser
// refuses) is read at its fixed offsets when the first buffer header and
// the header's pointer size vouch for an ETL file: the damage is then
// recorded for [File.IndexErrors] and the buffers, which carry their own
// sizes, are read.
func (f *File) parseHeaderEvent(head []byte, bh *BufferHeader) (LogfileHeader, error) {
	rec := head[BufferHeaderSize:]
	t, recSize, fault := classifyRecord(rec)
	var why string
	switch {
	case fault.kind != faultNone:
		why = fault.message()
	case t != HeaderSystem32 && t != HeaderSystem64:
		why = fmt.Sprintf("a %v record, not a system header", t)
	case rec[6] != 0 || rec[7] != 0:
		why = fmt.Sprintf("hook id %#04x, not the log-file header's 0", binary.LittleEndian.Uint16(rec[6:]))
	case recSize > len(rec):
		why = fmt.Sprintf("the event (%d bytes) does not fit in the first %d bytes of the file", recSize, len(head))
	default:
		var ev Event
		if fault := parseRecord(&ev, t, rec[:recSize], &recordContext{}); fault.kind != faultNone {
			why = fault.message()
			break
		}
		h, err := ParseLogfileHeader(ev.UserData, t == HeaderSystem64)
		if err != nil {
			why = err.Error()
			break
		}
		h.HeaderTimestamp = ev.Timestamp
		return h, nil
	}
	h, ok := salvageHeader(rec, bh)
	if !ok {
		return h, f.errorf(0, ErrNotETL, "no log-file header event at offset %#x: %s", BufferHeaderSize, why)
	}
	f.indexErrs = append(f.indexErrs, f.errorf(BufferHeaderSize, nil,
		"log-file header event damaged (%s): its fields read at their fixed offsets, the buffers with their own sizes", why))
	return h, nil
}

// salvageHeader reads the TRACE_LOGFILE_HEADER of a damaged header event
// rec (the bytes from offset 0x48 of the file) at its fixed offset, when
// enough is left to tell an ETL file: a first buffer whose size can hold
// the header, a pointer size of 4 or 8 in the header, and at most one of
// the record's marker, hook id and size damaged.
func salvageHeader(rec []byte, bh *BufferHeader) (LogfileHeader, bool) {
	le := binary.LittleEndian
	if len(rec) < systemHeaderSize+tlh32Size || bh.BufferSize < BufferHeaderSize+systemHeaderSize+tlh32Size || bh.BufferSize > MaxBufferSize {
		return LogfileHeader{}, false
	}
	var is64 bool
	switch le.Uint32(rec[systemHeaderSize+0x2C:]) { // PointerSize
	case 8:
		is64 = true
	case 4:
	default:
		return LogfileHeader{}, false
	}
	need := systemHeaderSize + tlh32Size
	if is64 {
		need = systemHeaderSize + tlh64Size
	}
	if len(rec) < need {
		return LogfileHeader{}, false
	}
	size := int(le.Uint16(rec[4:]))
	okMarker := rec[3] == 0xC0 && (rec[2] == byte(HeaderSystem32) || rec[2] == byte(HeaderSystem64))
	okHook := rec[6] == 0 && rec[7] == 0
	okSize := size >= need && size <= len(rec)
	good := 0
	for _, ok := range []bool{okMarker, okHook, okSize} {
		if ok {
			good++
		}
	}
	if good < 2 || okMarker && (rec[2] == byte(HeaderSystem64)) != is64 {
		return LogfileHeader{}, false
	}
	end := len(rec)
	if okSize {
		end = size
	}
	h, err := ParseLogfileHeader(rec[systemHeaderSize:end], is64)
	if err != nil {
		return LogfileHeader{}, false
	}
	h.HeaderTimestamp = int64(le.Uint64(rec[0x10:])) // SystemTime
	return h, true
}

// buffersSize returns the size of the file's buffers. It is the log-file
// header's BufferSize, unless the buffers say otherwise: in an
// uncompressed file, when the first buffer's own size differs from it and
// the buffer after it (or the end of the file) agrees with the first
// buffer, the header is damaged and the buffers' size is used; in a
// compressed file, whose buffers vary, a header value that cannot be a
// buffer size (under 1 KiB, not a whole number of KiB, over the limit) is
// replaced by [MaxBufferSize]. Either is recorded as damage.
func (f *File) buffersSize(bh *BufferHeader) uint32 {
	ts := f.Header.BufferSize
	if f.Header.Compressed() {
		if ts >= 1024 && ts%1024 == 0 && ts <= MaxBufferSize {
			return ts
		}
		f.indexErrs = append(f.indexErrs, f.errorf(logfileBufferSizeOffset, nil,
			"log-file header buffer size %#x cannot be a buffer size: data ends bounded by %#x instead", ts, MaxBufferSize))
		return MaxBufferSize
	}
	b0 := bh.BufferSize
	if b0 == ts || b0 < BufferHeaderSize+systemHeaderSize+tlh32Size || b0 > MaxBufferSize {
		return ts // agreeing, or buffer 0's size is the damaged one (the walk reports it)
	}
	if int64(b0) != f.size {
		if h1, ok := f.readHeader(int64(b0)); !ok || h1.BufferSize != b0 {
			return ts
		}
	}
	f.indexErrs = append(f.indexErrs, f.errorf(logfileBufferSizeOffset, nil,
		"log-file header buffer size %#x disagrees with the buffers' own size %#x: buffers read as %#x bytes", ts, b0, b0))
	return b0
}

// logfileBufferSizeOffset is the file offset of the log-file header's
// BufferSize field (the header event's payload).
const logfileBufferSizeOffset = BufferHeaderSize + systemHeaderSize

// Buffers returns the buffers of the file in file order, reading only their
// headers on the first call. Damaged buffer headers are left out and
// reported by [File.IndexErrors].
func (f *File) Buffers() []BufferInfo {
	f.indexOnce.Do(f.buildIndex)
	return f.buffers
}

// IndexErrors returns the problems found while walking the buffer headers
// (as [*FormatError] values).
func (f *File) IndexErrors() []error {
	f.indexOnce.Do(f.buildIndex)
	return f.indexErrs
}

// maxData bounds a buffer's data end: the buffer size from the log-file
// header (ProcessTrace rejects larger), or MaxBufferSize if that is absurd.
func (f *File) maxData() uint32 {
	if bs := f.bufSize; bs >= BufferHeaderSize && bs <= MaxBufferSize {
		return bs
	}
	return MaxBufferSize
}

// headerProblem says why a buffer header cannot be used; headerOK if it
// can. Checking costs no allocation: the walk tests many positions when
// it looks for the next header after damage.
type headerProblem uint8

const (
	headerOK headerProblem = iota
	headerTooSmall
	headerTooBig
	headerDataInHeader
	headerDataOverLog
	headerDataOverSize
	headerDataDisagrees // SavedOffset says more than the data end
)

// checkHeader checks a buffer header against the file.
func (f *File) checkHeader(h *BufferHeader) headerProblem {
	switch {
	case h.BufferSize <= BufferHeaderSize && !(h.BufferSize == BufferHeaderSize && h.Offset == BufferHeaderSize):
		return headerTooSmall
	case h.BufferSize > MaxBufferSize:
		return headerTooBig
	case h.Offset < BufferHeaderSize:
		return headerDataInHeader
	case h.Offset > f.maxData():
		return headerDataOverLog
	case !h.Compressed() && h.Offset > h.BufferSize:
		return headerDataOverSize
	}
	return headerOK
}

// headerMessage describes problem p of header h.
func (f *File) headerMessage(h *BufferHeader, p headerProblem) string {
	switch p {
	case headerTooSmall:
		return fmt.Sprintf("buffer size %#x is too small", h.BufferSize)
	case headerTooBig:
		return fmt.Sprintf("buffer size %#x exceeds the %#x limit", h.BufferSize, MaxBufferSize)
	case headerDataInHeader:
		return fmt.Sprintf("data end %#x lies inside the buffer header", h.Offset)
	case headerDataOverLog:
		return fmt.Sprintf("data end %#x exceeds the file's buffer size %#x", h.Offset, f.maxData())
	case headerDataOverSize:
		return fmt.Sprintf("data end %#x lies beyond the buffer size %#x", h.Offset, h.BufferSize)
	case headerDataDisagrees:
		return fmt.Sprintf("data end %#x disagrees with SavedOffset %#x", h.Offset, h.SavedOffset)
	}
	return ""
}

// stride returns the size of every buffer of an uncompressed file (the
// log-file header's buffer size), or 0 for compressed files, whose buffers
// vary, and for an implausible header value.
func (f *File) stride() int64 {
	bs := int64(f.bufSize)
	if f.Header.Compressed() || bs < 1024 || bs > MaxBufferSize {
		return 0
	}
	return bs
}

// readHeader reads and parses the buffer header at off.
func (f *File) readHeader(off int64) (BufferHeader, bool) {
	var hb [BufferHeaderSize]byte
	if off < 0 || off+BufferHeaderSize > f.size {
		return BufferHeader{}, false
	}
	if _, err := f.r.ReadAt(hb[:], off); err != nil && !errors.Is(err, io.EOF) {
		return BufferHeader{}, false
	}
	h, _ := ParseBufferHeader(hb[:])
	return h, true
}

// buildIndex walks the buffer headers. What it cannot read is reported in
// f.indexErrs with its offset and size: unusable headers (the walk
// resynchronises on the next plausible one), a size that exceeds the log's
// buffer size or runs past the end of the file or over the next buffers
// (the buffer is taken as ending where the next valid header starts, so
// that the buffers it overran are read), and, when the log-file header
// says more buffers were written than the walk found, the shortfall.
func (f *File) buildIndex() {
	var hb [BufferHeaderSize]byte
	off := int64(0)
	last := int64(-1)    // offset of the last valid buffer header
	var bad *FormatError // run of unusable bytes being coalesced
	flushBad := func(end int64) {
		if bad != nil {
			bad.Msg += fmt.Sprintf("; skipped %d bytes up to offset %#x", end-bad.Offset, end)
			f.indexErrs = append(f.indexErrs, bad)
			bad = nil
		}
	}
	stride := f.stride()
	for off < f.size {
		if f.size-off < BufferHeaderSize {
			flushBad(off)
			f.indexErrs = append(f.indexErrs, f.errorf(off, nil, "%d trailing bytes, too few for a buffer header", f.size-off))
			break
		}
		if _, err := f.r.ReadAt(hb[:], off); err != nil && !errors.Is(err, io.EOF) {
			flushBad(off)
			f.indexErrs = append(f.indexErrs, f.errorf(off, err, "reading buffer header"))
			break
		}
		h, _ := ParseBufferHeader(hb[:])
		p := f.checkHeader(&h)
		if p == headerOK && !h.Compressed() && h.SavedOffset > h.Offset && h.SavedOffset <= h.BufferSize {
			p = headerDataDisagrees
		}
		if p != headerOK {
			if msg, ok := f.repairHeader(off, &h, p, stride); ok {
				flushBad(off)
				f.indexErrs = append(f.indexErrs, f.errorf(off, nil, "%s", msg))
				p = headerOK
			}
		}
		if p != headerOK {
			if bad == nil {
				bad = f.errorf(off, nil, "invalid buffer header: %s", f.headerMessage(&h, p))
			}
			// In a compressed file a damaged size in the previous buffer
			// may have carried us past good buffers: look again from just
			// after its header. (Uncompressed buffers all have the
			// header's size; their resync steps to the next stride.) The
			// walk progresses: resync returns a position after `from`,
			// hence after the last valid header.
			from := off
			if f.Header.Compressed() && last >= 0 && last+BufferHeaderSize < off {
				from = last + BufferHeaderSize
			}
			next := f.resync(from)
			if next < 0 {
				flushBad(f.size)
				break
			}
			off = next
			continue
		}
		flushBad(off)
		size := int64(h.BufferSize)
		if stride > 0 && !h.Compressed() && size > stride {
			// Every buffer of an uncompressed file has the log's buffer
			// size (the records fit in it: checkHeader checked Offset).
			f.indexErrs = append(f.indexErrs, f.errorf(off, nil,
				"buffer size %#x exceeds the log's buffer size %#x by %d bytes: read as %#x bytes, and the buffers after it too", h.BufferSize, stride, size-stride, stride))
			size = stride
		}
		if off+size > f.size {
			if next := f.nextHeader(off, f.size, stride); next > 0 {
				f.indexErrs = append(f.indexErrs, f.errorf(off, nil,
					"buffer size %#x runs %d bytes past the end of the file, over the buffer header at %#x: read as %#x bytes", h.BufferSize, off+size-f.size, next, next-off))
				size = next - off
			} else if h.Compressed() {
				// The compressed data may all be there: decompressing
				// what is present tells (an error then if not).
				f.indexErrs = append(f.indexErrs, f.errorf(off, nil,
					"buffer size %#x runs %d bytes past the end of the file: read as the %#x bytes present", h.BufferSize, off+size-f.size, f.size-off))
				size = f.size - off
			} else if int64(h.Offset) <= f.size-off {
				// (Records that run past the end are reported when the
				// buffer is read.)
				f.indexErrs = append(f.indexErrs, f.errorf(off, nil,
					"buffer size %#x runs %d bytes past the end of the file", h.BufferSize, off+size-f.size))
			}
		}
		h.BufferSize = uint32(size)
		f.buffers = append(f.buffers, BufferInfo{Index: len(f.buffers), FileOffset: off, Header: h})
		last = off
		off += size
	}
	f.checkCount(stride)
	if cap(f.buffers) > len(f.buffers)+len(f.buffers)/8 {
		// The index stays as long as the file is open: drop what
		// append's growth left unused (up to half of it).
		f.buffers = slices.Clone(f.buffers)
	}
}

// repairHeader tries to read a buffer whose header has problem p with
// what its other fields and its records support, and returns what it
// did. An uncompressed buffer's data end is cross-checked with SavedOffset
// and with the chain of record sizes from the first record; a size that
// cannot be right is replaced by the log's buffer size. A compressed
// buffer's impossible data end is replaced by SavedOffset when that is
// possible (decompressing checks it). ok is false when nothing supports
// reading the buffer: the header is then treated as unusable.
func (f *File) repairHeader(off int64, h *BufferHeader, p headerProblem, stride int64) (msg string, ok bool) {
	what := f.headerMessage(h, p)
	if h.Compressed() {
		if (p == headerDataInHeader || p == headerDataOverLog) && h.SavedOffset >= BufferHeaderSize && h.SavedOffset <= f.maxData() {
			h.Offset = h.SavedOffset
			return fmt.Sprintf("invalid buffer header: %s: read up to SavedOffset %#x", what, h.SavedOffset), true
		}
		return "", false
	}
	size := int64(h.BufferSize)
	if p == headerTooSmall || p == headerTooBig {
		if stride <= 0 {
			return "", false
		}
		size = stride
	}
	limit := min(size, f.size-off, int64(f.maxData()))
	if limit <= BufferHeaderSize {
		return "", false
	}
	chain := f.recordsEnd(off, BufferHeaderSize, int(limit))
	if chain <= BufferHeaderSize {
		return "", false
	}
	// A size problem leaves the data end in force when it is possible; a
	// data end in question gives way to SavedOffset when that is possible
	// and not short of the records, else to where the records stop (a
	// damaged record on the way is reported, and skipped, when the buffer
	// is read).
	var sizeMsg string
	if size != int64(h.BufferSize) {
		sizeMsg = fmt.Sprintf(", read as %#x bytes (the log's buffer size)", size)
		h.BufferSize = uint32(size)
	}
	possible := func(v uint32) bool { return v >= BufferHeaderSize && int64(v) <= limit }
	end := uint32(chain)
	switch {
	case p == headerDataDisagrees && int64(h.Offset) == int64(chain):
		return fmt.Sprintf("buffer header: %s; the records end at the data end: SavedOffset ignored", what), true
	case p == headerTooSmall || p == headerTooBig:
		if possible(h.Offset) && int64(h.Offset) >= int64(chain) {
			end = h.Offset
		}
	case possible(h.SavedOffset) && int64(h.SavedOffset) >= int64(chain):
		end = h.SavedOffset
	}
	old := h.Offset
	h.Offset = end
	if end == old {
		return fmt.Sprintf("invalid buffer header: %s%s", what, sizeMsg), true
	}
	witness := fmt.Sprintf("SavedOffset %#x, records to %#x", h.SavedOffset, chain)
	if p == headerDataDisagrees {
		witness = fmt.Sprintf("the records run to %#x", chain)
	}
	lost := ""
	if end > old && old >= BufferHeaderSize {
		lost = fmt.Sprintf(" (%d bytes of records the data end left out)", end-old)
	}
	return fmt.Sprintf("invalid buffer header: %s (%s)%s: read up to %#x%s", what, witness, sizeMsg, end, lost), true
}

// recordsEnd returns where the chain of record sizes that starts at
// position from of the uncompressed buffer at off stops, within its first
// limit bytes: at limit, at the buffer's 0xFF fill or at the first record
// whose header does not parse.
func (f *File) recordsEnd(off int64, from, limit int) int {
	st := getStore(limit)
	defer storePool.Put(st)
	b := *st
	n, err := f.r.ReadAt(b, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0
	}
	b = b[:n]
	pos := from
	for pos < len(b) {
		_, size, fault := classifyRecord(b[pos:])
		if fault.kind != faultNone || size > len(b)-pos {
			break
		}
		pos = min(pos+(size+7)&^7, len(b))
	}
	return pos
}

// readPastDataEnd rereads the uncompressed buffer b, whose data end is
// followed by a record header instead of the fill, up to where the records
// that follow it end, and reports the damage.
func (f *File) readPastDataEnd(b *Buffer) (*Buffer, error) {
	h := b.Header
	limit := min(int64(h.BufferSize), f.size-b.FileOffset, int64(f.maxData()))
	end := f.recordsEnd(b.FileOffset, int(h.Offset), int(limit))
	if end <= int(h.Offset) {
		return b, nil // a header-like 8 bytes, no record
	}
	b.Release()
	nb := &Buffer{BufferInfo: b.BufferInfo, file: f}
	nb.store = getStore(end)
	nb.Data = *nb.store
	if _, err := f.r.ReadAt(nb.Data, b.FileOffset); err != nil && !errors.Is(err, io.EOF) {
		nb.Release()
		return nil, f.errorf(b.FileOffset, err, "reading buffer")
	}
	nb.Header.Offset = uint32(end)
	return nb, f.errorf(b.FileOffset, nil, "records continue past the data end %#x (SavedOffset %#x) up to %#x: read up to %#x (%d bytes the data end left out)",
		h.Offset, h.SavedOffset, end, end, end-int(h.Offset))
}

// nextHeader returns the offset of the first valid buffer header after the
// one at off and before end (at multiples of stride from off in an
// uncompressed file, anywhere in a compressed one), or -1.
func (f *File) nextHeader(off, end, stride int64) int64 {
	if !f.Header.Compressed() {
		if stride <= 0 {
			return -1
		}
		for pos := off + stride; pos+BufferHeaderSize <= end; pos += stride {
			if h, ok := f.readHeader(pos); ok && !h.Compressed() && f.checkHeader(&h) == headerOK {
				return pos
			}
		}
		return -1
	}
	return f.scanCompressed(off+BufferHeaderSize, end)
}

// checkCount compares the buffers found with the count the log-file header
// gives (BuffersWritten; for a circular log only when it never wrapped,
// since a wrapped one counts the buffers overwritten). More buffers than
// the count are searched for repeats (a buffer identical, header and
// records, to an earlier one), which are left out; any excess left is
// reported. In a compressed file, buffers whose damaged size swallowed the
// next ones are split first: their extent is searched for buffer headers.
// An uncompressed file shorter than the buffers the header counts is
// reported as cut short; any other shortfall is reported when no damage
// found by the walk already accounts for it.
func (f *File) checkCount(stride int64) {
	want := int64(f.Header.BuffersWritten)
	if want == 0 || f.wrapped() {
		return
	}
	if int64(len(f.buffers)) > want {
		f.dropRepeats()
		if found := int64(len(f.buffers)); found > want && f.Header.LogFileMode&ModeAppend == 0 {
			f.indexErrs = append(f.indexErrs, f.errorf(0, nil,
				"the file holds %d buffers, the log-file header says %d were written", found, want))
		}
		return
	}
	if int64(len(f.buffers)) == want {
		return
	}
	if f.Header.Compressed() {
		f.splitSwallowed()
		if int64(len(f.buffers)) >= want {
			return
		}
	}
	found := int64(len(f.buffers))
	if stride > 0 && want*stride > f.size {
		missing := (want*stride - f.size + stride - 1) / stride
		f.indexErrs = append(f.indexErrs, f.errorf(f.size, nil,
			"file cut short: the log-file header says %d buffers of %#x bytes were written (%d bytes), the file ends at %#x: %d buffers (%d bytes) not in the file",
			want, stride, want*stride, f.size, missing, want*stride-f.size))
		return
	}
	if len(f.indexErrs) > 0 {
		return
	}
	end := int64(0)
	if found > 0 {
		b := &f.buffers[found-1]
		end = min(b.FileOffset+int64(b.Header.BufferSize), f.size)
	}
	f.indexErrs = append(f.indexErrs, f.errorf(end, nil,
		"the log-file header says %d buffers were written, the file (%d bytes) holds %d: %d buffers not read", want, f.size, found, want-found))
}

// wrapped reports whether a circular log may have wrapped, overwriting
// buffers that BuffersWritten still counts: it did not if the buffers
// written fit in the log's maximum file size.
func (f *File) wrapped() bool {
	h := &f.Header
	if h.LogFileMode&ModeCircular == 0 {
		return false
	}
	unit := uint64(1) << 20
	if h.LogFileMode&ModeUseKBytesForSize != 0 {
		unit = 1 << 10
	}
	return h.MaximumFileSize == 0 || uint64(h.BuffersWritten)*uint64(f.bufSize) >= uint64(h.MaximumFileSize)*unit
}

// dropRepeats leaves out of the index every buffer that repeats an
// earlier one byte for byte (header, then the records), reporting each.
func (f *File) dropRepeats() {
	type key [BufferHeaderSize]byte
	first := make(map[key]int, len(f.buffers))
	out := f.buffers[:0]
	for _, b := range f.buffers {
		var k key
		if _, err := f.r.ReadAt(k[:], b.FileOffset); err == nil || errors.Is(err, io.EOF) {
			j, seen := first[k]
			if seen && f.sameData(&out[j], &b) {
				f.indexErrs = append(f.indexErrs, f.errorf(b.FileOffset, nil,
					"buffer repeats the one at %#x byte for byte (%#x bytes): read once", out[j].FileOffset, b.Header.BufferSize))
				continue
			}
			if !seen {
				first[k] = len(out)
			}
		}
		b.Index = len(out)
		out = append(out, b)
	}
	f.buffers = out
}

// sameData reports whether two buffers hold the same bytes on disk.
func (f *File) sameData(a, b *BufferInfo) bool {
	n := int64(a.Header.BufferSize)
	if n != int64(b.Header.BufferSize) || a.FileOffset+n > f.size || b.FileOffset+n > f.size {
		return false
	}
	x, y := getStore(int(n)), getStore(int(n))
	defer storePool.Put(x)
	defer storePool.Put(y)
	if _, err := f.r.ReadAt(*x, a.FileOffset); err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	if _, err := f.r.ReadAt(*y, b.FileOffset); err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	return bytes.Equal(*x, *y)
}

// splitSwallowed looks inside each compressed buffer for the header of a
// buffer its (damaged) size ran over, and splits it there.
func (f *File) splitSwallowed() {
	var out []BufferInfo
	for _, b := range f.buffers {
		for b.Header.Compressed() {
			end := b.FileOffset + int64(b.Header.BufferSize)
			p := f.scanCompressed(b.FileOffset+BufferHeaderSize, end)
			if p < 0 {
				break
			}
			h, ok := f.readHeader(p)
			if !ok {
				break
			}
			f.indexErrs = append(f.indexErrs, f.errorf(b.FileOffset, nil,
				"compressed buffer size %#x runs over the buffer header at %#x: read as %#x bytes", b.Header.BufferSize, p, p-b.FileOffset))
			b.Header.BufferSize = uint32(p - b.FileOffset)
			out = append(out, b)
			b = BufferInfo{FileOffset: p, Header: h}
		}
		out = append(out, b)
	}
	for i := range out {
		out[i].Index = i
	}
	f.buffers = out
}

// resync finds the next plausible buffer header after off, or returns -1.
// Uncompressed files have buffers of the header's BufferSize; compressed
// files are scanned byte by byte for a compressed buffer's header.
func (f *File) resync(off int64) int64 {
	bs := int64(f.bufSize)
	if !f.Header.Compressed() && bs >= 1024 && bs <= MaxBufferSize {
		next := (off/bs + 1) * bs
		if next >= f.size {
			return -1
		}
		return next
	}
	return f.scanCompressed(off+1, f.size)
}

// scanCompressed returns the first position in [from, end) that holds a
// plausible compressed buffer header whose buffer ends by end, or -1.
func (f *File) scanCompressed(from, end int64) int64 {
	const chunk = 64 << 10
	if end > f.size {
		end = f.size
	}
	var buf []byte
	for pos := from; pos+BufferHeaderSize <= end; pos += chunk {
		if buf == nil {
			buf = make([]byte, min(int64(chunk+BufferHeaderSize), end-pos))
		}
		n, err := f.r.ReadAt(buf[:min(int64(len(buf)), end-pos)], pos)
		if n < BufferHeaderSize || (err != nil && !errors.Is(err, io.EOF)) {
			return -1
		}
		last := min(n-BufferHeaderSize, chunk-1)
		flags := buf[0x34 : last+0x36] // flags of the header at i: flags[i], flags[i+1]
		for i := 0; i <= last; i++ {
			// Cheap tests first: the compressed flag and no unknown flag
			// (rejects three positions in four), a known buffer type, no
			// reference count, a compression format.
			if flags[i]&0xC0 != BufferFlagCompressed || flags[i+1] != 0 {
				continue
			}
			c := buf[i : i+BufferHeaderSize]
			if c[0x36] > BufferTypeDbgInfo || c[0x37] != 0 || c[0x0C]|c[0x0D]|c[0x0E]|c[0x0F] != 0 || c[0x2D] != 0 || c[0x2C] > 7 {
				continue
			}
			h, _ := ParseBufferHeader(c)
			at := pos + int64(i)
			if f.checkHeader(&h) == headerOK && at+int64(h.BufferSize) <= end {
				return at
			}
		}
	}
	return -1
}

var storePool sync.Pool // of *[]byte

// storeUnit is what a store's capacity is a multiple of: the usual buffer
// size. A buffer's data, and more so its compressed bytes, are often
// shorter; stores made to their exact size were dropped whenever the
// pool handed one to a longer buffer, and made again.
const storeUnit = 64 << 10

func getStore(n int) *[]byte {
	if p, ok := storePool.Get().(*[]byte); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	b := make([]byte, n, (n+storeUnit-1)/storeUnit*storeUnit)
	return &b
}

// Release returns the buffer's storage to a pool for reuse. The buffer and
// every slice taken from it must not be used afterwards.
func (b *Buffer) Release() {
	if b.store != nil {
		storePool.Put(b.store)
		b.store = nil
		b.Data = nil
	}
}

// SetReadHook sets a function [File.ReadBuffer] calls with the size on
// disk of each buffer it is asked for, on the goroutine that asks: a pass over the file reports the
// file's buffers once each, which a command can show as progress. nil
// removes it. Set it before reading; the function must be safe for
// concurrent use (readers read buffers on several goroutines).
func (f *File) SetReadHook(fn func(n int64)) { f.hook = fn }

// ReadBuffer reads and, if needed, decompresses one buffer. The returned
// buffer holds pooled memory: call [Buffer.Release] when done with it.
func (f *File) ReadBuffer(bi BufferInfo) (*Buffer, error) {
	return f.readBuffer(bi, nil, true)
}

// readBuffer is [File.ReadBuffer]; hook says whether to report the buffer
// to the read hook (not when a reader reads a buffer again). With ck set,
// a Plain LZ77 buffer whose records run past ck.at is decoded in two
// parts, and ck keeps the decoder's state between them (see window.go).
func (f *File) readBuffer(bi BufferInfo, ck *checkpoint, hook bool) (*Buffer, error) {
	h := &bi.Header
	b := &Buffer{BufferInfo: bi, file: f}
	avail := f.size - bi.FileOffset
	if hook && f.hook != nil {
		f.hook(max(0, min(int64(h.BufferSize), avail)))
	}
	if !h.Compressed() {
		n := int64(h.Offset)
		if n > avail {
			n = avail
			b.Truncated = true
		}
		// The 8 bytes after the data end are read too: the fill is
		// there, or, when the data end was cut short, a record header.
		peek := int64(0)
		if n+8 <= min(int64(h.BufferSize), avail) {
			peek = 8
		}
		b.store = getStore(int(n + peek))
		if _, err := f.r.ReadAt(*b.store, bi.FileOffset); err != nil && !errors.Is(err, io.EOF) {
			b.Release()
			return nil, f.errorf(bi.FileOffset, err, "reading buffer")
		}
		b.Data = (*b.store)[:n]
		if b.Truncated {
			return b, f.errorf(bi.FileOffset, io.ErrUnexpectedEOF, "buffer truncated: data ends at +%#x, file ends at +%#x", h.Offset, avail)
		}
		if peek > 0 {
			if _, _, fault := classifyRecord((*b.store)[n:]); fault.kind == faultNone {
				return f.readPastDataEnd(b)
			}
		}
		return b, nil
	}
	if int64(h.BufferSize) > avail {
		return nil, f.errorf(bi.FileOffset, io.ErrUnexpectedEOF, "compressed buffer of %#x bytes truncated at +%#x", h.BufferSize, avail)
	}
	in := getStore(int(h.BufferSize))
	defer storePool.Put(in)
	if _, err := f.r.ReadAt(*in, bi.FileOffset); err != nil && !errors.Is(err, io.EOF) {
		return nil, f.errorf(bi.FileOffset, err, "reading buffer")
	}
	want, saved := int(h.Offset), int(h.SavedOffset)
	room := want
	if saved > want && saved <= int(f.maxData()) {
		room = saved // the size fields disagree: decompressing tells which is right
	}
	b.store = getStore(room)
	b.Data = *b.store
	copy(b.Data, (*in)[:BufferHeaderSize])
	var n int
	var err error
	if ck != nil && f.Format == compress.Xpress {
		n, err = ck.decode(b.Data[BufferHeaderSize:], (*in)[BufferHeaderSize:])
	} else {
		n, err = compress.Decompress(f.Format, b.Data[BufferHeaderSize:], (*in)[BufferHeaderSize:])
	}
	if err != nil {
		b.Release()
		return nil, f.errorf(bi.FileOffset, err, "decompressing %v buffer", f.Format)
	}
	if got := n + BufferHeaderSize; got != want {
		if got != saved {
			b.Release()
			return nil, f.errorf(bi.FileOffset, nil, "buffer decompressed to %d bytes, header says %d", n, want-BufferHeaderSize)
		}
		b.Data = b.Data[:got]
		b.Header.Offset = uint32(got)
		return b, f.errorf(bi.FileOffset, nil, "compressed buffer's data end %#x disagrees with SavedOffset %#x and the decompressed length: read up to %#x", want, saved, got)
	}
	return b, nil
}

// recordContext returns the facts the record parser needs for a buffer.
func (f *File) recordContext(h *BufferHeader) recordContext {
	th := &f.Header
	return recordContext{
		processor:   h.Processor(),
		loggerID:    h.LoggerID(),
		procIndex:   h.Flags&BufferFlagProcIndex != 0,
		privateMode: th.LogFileMode&ModePrivateLogger != 0,
		guidInst:    th.SubVersion > 1 || (th.SubVersion == 1 && th.SubMinorVersion != 0),
	}
}
