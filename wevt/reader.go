package wevt

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
	"github.com/google/uuid"
)

// ErrNotManifest is returned (wrapped in a [*FormatError]) for data that
// does not start with a CRIM header.
var ErrNotManifest = errors.New("not a binary event manifest (no CRIM header)")

// FormatError describes damaged or unexpected bytes in a binary manifest.
type FormatError struct {
	// Offset is the offset of the problem in the CRIM blob (the
	// WEVT_TEMPLATE resource data); for a manifest read from a PE file,
	// FileOffset is its file offset (-1 when not known).
	Offset     int64
	FileOffset int64
	Msg        string
	Err        error // underlying error (ErrNotManifest, …), if any
}

// Error formats the error as "wevt: offset 0x… (file offset 0x…):
// message: underlying error".
func (e *FormatError) Error() string {
	s := fmt.Sprintf("wevt: offset %#x", e.Offset)
	if e.FileOffset >= 0 {
		s += fmt.Sprintf(" (file offset %#x)", e.FileOffset)
	}
	s += ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *FormatError) Unwrap() error { return e.Err }

// reader reads little-endian values of a CRIM blob with bounds checks. The
// first failure sticks: later reads return zeros and err keeps the first
// error, so parsing code can read a whole record and check once.
type reader struct {
	b   []byte
	err error
	// budget bounds the work of one parse: every record read and every
	// string byte decoded spends from it. A well-formed manifest's
	// structures do not overlap, so it never spends more than a few times
	// its size; a hostile one whose offsets make structures share bytes
	// runs out instead of costing time or memory quadratic in its size.
	budget int64
	// strs caches decoded strings by offset: names are shared.
	strs map[uint32]string
}

func newReader(b []byte) *reader {
	return &reader{b: b, budget: 4*int64(len(b)) + 1<<16, strs: map[uint32]string{}}
}

// spend takes n units from the budget, failing at off when it runs out.
func (r *reader) spend(n int64, off uint32) bool {
	if r.err != nil {
		return false
	}
	if r.budget -= n; r.budget < 0 {
		r.fail(off, "the manifest's structures overlap: it describes far more data than its %d bytes hold", len(r.b))
		return false
	}
	return true
}

func (r *reader) fail(off uint32, format string, args ...any) {
	if r.err == nil {
		r.err = &FormatError{Offset: int64(off), FileOffset: -1, Msg: fmt.Sprintf(format, args...)}
	}
}

// has reports whether n bytes at off are inside the blob, failing if not.
func (r *reader) has(off uint32, n uint64, what string) bool {
	if r.err != nil {
		return false
	}
	if uint64(off)+n > uint64(len(r.b)) {
		r.fail(off, "%s (%d bytes) runs past the end of the manifest (%d bytes)", what, n, len(r.b))
		return false
	}
	return true
}

func (r *reader) u8(off uint32) uint8 {
	if !r.has(off, 1, "value") {
		return 0
	}
	return r.b[off]
}

func (r *reader) u16(off uint32) uint16 {
	if !r.has(off, 2, "value") {
		return 0
	}
	return binary.LittleEndian.Uint16(r.b[off:])
}

func (r *reader) u32(off uint32) uint32 {
	if !r.has(off, 4, "value") {
		return 0
	}
	return binary.LittleEndian.Uint32(r.b[off:])
}

func (r *reader) u64(off uint32) uint64 {
	if !r.has(off, 8, "value") {
		return 0
	}
	return binary.LittleEndian.Uint64(r.b[off:])
}

// guid reads a Windows GUID (three little-endian fields, then 8 bytes).
func (r *reader) guid(off uint32) uuid.UUID {
	if !r.has(off, 16, "GUID") {
		return uuid.UUID{}
	}
	return etl.GUIDFromWindows(r.b[off:])
}

// sig reports whether the 4-byte signature at off is want (without
// failing when it is not).
func (r *reader) sig(off uint32) string {
	if r.err != nil || uint64(off)+4 > uint64(len(r.b)) {
		return ""
	}
	return string(r.b[off : off+4])
}

// expect checks the signature at off.
func (r *reader) expect(off uint32, want string) bool {
	if !r.has(off, 4, want) {
		return false
	}
	if got := string(r.b[off : off+4]); got != want {
		r.fail(off, "%q where %s was expected", got, want)
		return false
	}
	return true
}

// count reads the element count at off of a table whose n elements of
// size bytes each start at first and must end by end (the table's end);
// a count that cannot fit fails, so no hostile count allocates.
func (r *reader) count(off, first uint32, size uint32, end uint64, what string) int {
	n := uint64(r.u32(off))
	if r.err != nil {
		return 0
	}
	if uint64(first)+n*uint64(size) > end {
		r.fail(off, "%d %s (%d bytes each) do not fit", n, what, size)
		return 0
	}
	return int(n)
}

// sized reads the u32 size of the element at off (whose signature was
// checked) and returns its end, which must lie in the blob; min is the
// smallest valid size.
func (r *reader) sized(off uint32, min uint32, what string) uint64 {
	size := r.u32(off + 4)
	if r.err != nil {
		return 0
	}
	if size < min || uint64(off)+uint64(size) > uint64(len(r.b)) {
		r.fail(off, "%s of size %d does not fit (at least %d bytes, %d left)", what, size, min, uint64(len(r.b))-uint64(off))
		return 0
	}
	return uint64(off) + uint64(size)
}

// maxString bounds a name (in bytes): TDH and mc.exe limit names far below.
const maxString = 1 << 16

// str reads a name: u32 size (including itself), then NUL-terminated
// UTF-16LE, then padding.
func (r *reader) str(off uint32) string {
	if s, ok := r.strs[off]; ok {
		return s
	}
	size := r.u32(off)
	if r.err != nil {
		return ""
	}
	if size < 4 || size > maxString || uint64(off)+uint64(size) > uint64(len(r.b)) {
		r.fail(off, "string of size %d does not fit", size)
		return ""
	}
	if !r.spend(int64(size), off) {
		return ""
	}
	s := string(tdh.AppendString(nil, r.b[off+4:off+size], true))
	r.strs[off] = s
	return s
}

// strz reads a NUL-terminated UTF-16LE string without a size (PRVA).
func (r *reader) strz(off uint32) string {
	if !r.has(off, 2, "string") {
		return ""
	}
	end := uint64(off)
	for ; end+1 < uint64(len(r.b)) && end-uint64(off) < maxString; end += 2 {
		if r.b[end] == 0 && r.b[end+1] == 0 {
			if !r.spend(int64(end-uint64(off)), off) {
				return ""
			}
			return string(tdh.AppendString(nil, r.b[off:end], true))
		}
	}
	r.fail(off, "unterminated string")
	return ""
}
