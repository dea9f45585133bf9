package etl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/etwkit/etw/etl/compress"
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

	indexOnce sync.Once
	buffers   []BufferInfo
	indexErrs []error
}

// Open opens the named .etl file and reads its log-file header.
func Open(name string) (*File, error) {
	osf, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := osf.Stat()
	if err != nil {
		osf.Close()
		return nil, err
	}
	f, err := newFile(osf, st.Size(), name)
	if err != nil {
		osf.Close()
		return nil, err
	}
	f.closer = osf
	return f, nil
}

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
	rec := head[BufferHeaderSize:]
	t, recSize, err := classifyRecord(rec)
	if err != nil || (t != HeaderSystem32 && t != HeaderSystem64) || rec[6] != 0 || rec[7] != 0 {
		return nil, notETL("no log-file header event at offset %#x", BufferHeaderSize)
	}
	if bh.BufferSize < BufferHeaderSize || bh.Offset < BufferHeaderSize {
		return nil, notETL("first buffer header is invalid (size %#x, offset %#x)", bh.BufferSize, bh.Offset)
	}
	if recSize > len(rec) {
		return nil, notETL("log-file header event (%d bytes) does not fit in the first %d bytes of the file", recSize, n)
	}
	var ev Event
	if _, err := parseRecord(&ev, t, rec[:recSize], &recordContext{}, nil); err != nil {
		return nil, notETL("log-file header event: %v", err)
	}
	h, err := ParseLogfileHeader(ev.UserData, t == HeaderSystem64)
	if err != nil {
		return nil, notETL("%v", err)
	}
	h.HeaderTimestamp = ev.Timestamp
	f.Header = h
	f.Clock = NewClock(&f.Header)
	if h.Compressed() {
		if c := compress.Format(bh.State & 0xFFFF); c == compress.LZNT1 || c == compress.Xpress || c == compress.XpressHuffman {
			f.Format = c
		}
	}
	return f, nil
}

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
	if bs := f.Header.BufferSize; bs >= BufferHeaderSize && bs <= MaxBufferSize {
		return bs
	}
	return MaxBufferSize
}

// validHeader checks a buffer header read at off against the file.
func (f *File) validHeader(h *BufferHeader, off int64) string {
	switch {
	case h.BufferSize <= BufferHeaderSize && !(h.BufferSize == BufferHeaderSize && h.Offset == BufferHeaderSize):
		return fmt.Sprintf("buffer size %#x is too small", h.BufferSize)
	case h.BufferSize > MaxBufferSize:
		return fmt.Sprintf("buffer size %#x exceeds the %#x limit", h.BufferSize, MaxBufferSize)
	case h.Offset < BufferHeaderSize:
		return fmt.Sprintf("data end %#x lies inside the buffer header", h.Offset)
	case h.Offset > f.maxData():
		return fmt.Sprintf("data end %#x exceeds the file's buffer size %#x", h.Offset, f.maxData())
	case !h.Compressed() && h.Offset > h.BufferSize:
		return fmt.Sprintf("data end %#x lies beyond the buffer size %#x", h.Offset, h.BufferSize)
	}
	return ""
}

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
		if msg := f.validHeader(&h, off); msg != "" {
			if bad == nil {
				bad = f.errorf(off, nil, "invalid buffer header: %s", msg)
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
		f.buffers = append(f.buffers, BufferInfo{Index: len(f.buffers), FileOffset: off, Header: h})
		last = off
		off += int64(h.BufferSize)
	}
}

// resync finds the next plausible buffer header after off, or returns -1.
// Uncompressed files have buffers of the header's BufferSize; compressed
// files are scanned byte by byte for a compressed buffer's header.
func (f *File) resync(off int64) int64 {
	bs := int64(f.Header.BufferSize)
	if !f.Header.Compressed() && bs >= 1024 && bs <= MaxBufferSize {
		next := (off/bs + 1) * bs
		if next >= f.size {
			return -1
		}
		return next
	}
	const chunk = 64 << 10
	buf := make([]byte, chunk+BufferHeaderSize)
	for pos := off + 1; pos+BufferHeaderSize <= f.size; pos += chunk {
		n, err := f.r.ReadAt(buf, pos)
		if n < BufferHeaderSize {
			return -1
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return -1
		}
		for i := 0; i+BufferHeaderSize <= n && i < chunk; i++ {
			h, _ := ParseBufferHeader(buf[i:])
			if f.validHeader(&h, pos+int64(i)) == "" && h.Compressed() && h.State&0xFFFF <= 7 && h.Type <= BufferTypeDbgInfo &&
				h.Flags&^0x7F == 0 && pos+int64(i)+int64(h.BufferSize) <= f.size && h.ReferenceCount == 0 {
				return pos + int64(i)
			}
		}
	}
	return -1
}

var storePool sync.Pool // of *[]byte

func getStore(n int) *[]byte {
	if p, ok := storePool.Get().(*[]byte); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	b := make([]byte, n)
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

// ReadBuffer reads and, if needed, decompresses one buffer. The returned
// buffer holds pooled memory: call [Buffer.Release] when done with it.
func (f *File) ReadBuffer(bi BufferInfo) (*Buffer, error) {
	h := &bi.Header
	b := &Buffer{BufferInfo: bi, file: f}
	avail := f.size - bi.FileOffset
	if !h.Compressed() {
		n := int64(h.Offset)
		if n > avail {
			n = avail
			b.Truncated = true
		}
		b.store = getStore(int(n))
		b.Data = *b.store
		if _, err := f.r.ReadAt(b.Data, bi.FileOffset); err != nil && !errors.Is(err, io.EOF) {
			b.Release()
			return nil, f.errorf(bi.FileOffset, err, "reading buffer")
		}
		if b.Truncated {
			return b, f.errorf(bi.FileOffset, io.ErrUnexpectedEOF, "buffer truncated: data ends at +%#x, file ends at +%#x", h.Offset, avail)
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
	b.store = getStore(int(h.Offset))
	b.Data = *b.store
	copy(b.Data, (*in)[:BufferHeaderSize])
	n, err := compress.Decompress(f.Format, b.Data[BufferHeaderSize:], (*in)[BufferHeaderSize:])
	if err != nil {
		b.Release()
		return nil, f.errorf(bi.FileOffset, err, "decompressing %v buffer", f.Format)
	}
	if n != int(h.Offset)-BufferHeaderSize {
		b.Release()
		return nil, f.errorf(bi.FileOffset, nil, "buffer decompressed to %d bytes, header says %d", n, int(h.Offset)-BufferHeaderSize)
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
