package pe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/etwkit/etw/internal/readerat"
)

// ErrNotPE is returned (wrapped in a [*FormatError]) for input that is not
// a PE file: no "MZ" header, no "PE\0\0" signature, or an optional header
// that is neither PE32 nor PE32+.
var ErrNotPE = errors.New("not a PE file")

// ErrNoResource is returned (wrapped) when the file has no resource of the
// requested type, or no resources at all.
var ErrNoResource = errors.New("resource not found")

// FormatError describes damaged or unexpected bytes in a PE file.
type FormatError struct {
	Offset int64 // file offset of the problem
	Msg    string
	Err    error // underlying error (ErrNotPE, an I/O error, …), if any
}

// Error formats the error as "pe: offset 0x…: message: underlying error".
func (e *FormatError) Error() string {
	s := fmt.Sprintf("pe: offset %#x: %s", e.Offset, e.Msg)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *FormatError) Unwrap() error { return e.Err }

func errorf(off int64, format string, args ...any) *FormatError {
	return &FormatError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// Optional header magics.
const (
	Magic32     = 0x10B // PE32
	Magic32Plus = 0x20B // PE32+ (64-bit images)
)

// Limits of the format that bound what a hostile header can make us read.
const (
	maxSections = 96 // the PE/COFF specification's limit
	maxLfanew   = 1 << 24
)

// Section is one entry of the section table.
type Section struct {
	Name             string // up to 8 bytes, NUL padding removed
	VirtualSize      uint32
	VirtualAddress   uint32
	SizeOfRawData    uint32
	PointerToRawData uint32
}

// File is an open PE file. Its methods read through the [io.ReaderAt] it
// was made from; they may be called from several goroutines at once if the
// reader allows it (an *os.File does).
type File struct {
	// Machine is the COFF machine type (0x14C i386, 0x8664 AMD64, 0xAA64
	// ARM64, …).
	Machine uint16
	// Magic is the optional header magic: Magic32 or Magic32Plus.
	Magic uint16
	// SizeOfHeaders is the optional header's SizeOfHeaders.
	SizeOfHeaders uint32
	// Sections is the section table.
	Sections []Section
	// ResourceRVA and ResourceSize are data directory 2 (0 when the file
	// has no resources).
	ResourceRVA  uint32
	ResourceSize uint32
	// DebugRVA and DebugSize are data directory 6, the debug directory
	// (0 when the file has none); see [File.CodeView].
	DebugRVA  uint32
	DebugSize uint32

	r      io.ReaderAt
	size   int64
	closer io.Closer
}

// Is64 reports whether the image is PE32+ (a 64-bit image).
func (f *File) Is64() bool { return f.Magic == Magic32Plus }

// Size returns the size of the file the File reads.
func (f *File) Size() int64 { return f.size }

// Open opens the named file; [File.Close] closes it.
func Open(name string) (*File, error) {
	f, fh, err := readerat.Open(name, NewFile)
	if err != nil {
		return nil, err
	}
	f.closer = fh
	return f, nil
}

// Close closes the file if it was opened by [Open]; otherwise it does
// nothing.
func (f *File) Close() error {
	if f.closer == nil {
		return nil
	}
	err := f.closer.Close()
	f.closer = nil
	return err
}

// readAt reads exactly n bytes at off, checking the range against the file
// size first.
func readAt(r io.ReaderAt, size, off int64, n int, what string) ([]byte, error) {
	b, err := readerat.Read(r, size, off, n)
	if err == readerat.ErrRange {
		return nil, errorf(off, "%s (%d bytes) beyond the end of the file (%d bytes)", what, n, size)
	}
	if err != nil {
		return nil, &FormatError{Offset: off, Msg: "reading " + what, Err: err}
	}
	return b, nil
}

// NewFile reads the headers and section table of a PE file of the given
// size. It reads a few hundred bytes; nothing else is read until asked for.
func NewFile(r io.ReaderAt, size int64) (*File, error) {
	dos, err := readAt(r, size, 0, 64, "MS-DOS header")
	if err != nil {
		return nil, &FormatError{Offset: 0, Msg: "no MS-DOS header", Err: ErrNotPE}
	}
	if dos[0] != 'M' || dos[1] != 'Z' {
		return nil, &FormatError{Offset: 0, Msg: "no MZ signature", Err: ErrNotPE}
	}
	lfanew := int64(binary.LittleEndian.Uint32(dos[0x3C:]))
	if lfanew > maxLfanew {
		return nil, &FormatError{Offset: 0x3C, Msg: fmt.Sprintf("e_lfanew %#x out of range", lfanew), Err: ErrNotPE}
	}
	hdr, err := readAt(r, size, lfanew, 24, "PE signature and COFF header")
	if err != nil {
		return nil, &FormatError{Offset: lfanew, Msg: "no PE header", Err: ErrNotPE}
	}
	if string(hdr[:4]) != "PE\x00\x00" {
		return nil, &FormatError{Offset: lfanew, Msg: "no PE signature", Err: ErrNotPE}
	}
	coff := hdr[4:]
	f := &File{r: r, size: size, Machine: binary.LittleEndian.Uint16(coff)}
	nsec := int(binary.LittleEndian.Uint16(coff[2:]))
	optSize := int(binary.LittleEndian.Uint16(coff[16:]))
	optOff := lfanew + 24
	if nsec > maxSections {
		return nil, errorf(lfanew+6, "%d sections (at most %d)", nsec, maxSections)
	}
	if optSize < 2 {
		return nil, &FormatError{Offset: lfanew + 20, Msg: fmt.Sprintf("optional header of %d bytes", optSize), Err: ErrNotPE}
	}
	opt, err := readAt(r, size, optOff, optSize, "optional header")
	if err != nil {
		return nil, err
	}
	f.Magic = binary.LittleEndian.Uint16(opt)
	var countOff, dirOff int
	switch f.Magic {
	case Magic32:
		countOff, dirOff = 92, 96
	case Magic32Plus:
		countOff, dirOff = 108, 112
	default:
		return nil, &FormatError{Offset: optOff, Msg: fmt.Sprintf("optional header magic %#x", f.Magic), Err: ErrNotPE}
	}
	if optSize >= 64 {
		f.SizeOfHeaders = binary.LittleEndian.Uint32(opt[60:])
	}
	// Data directory 2 is the resource table; absent when the optional
	// header is too short or declares fewer than 3 directories.
	const resDir = 2
	if optSize >= countOff+4 {
		n := binary.LittleEndian.Uint32(opt[countOff:])
		if e := dirOff + 8*resDir; n > resDir && optSize >= e+8 {
			f.ResourceRVA = binary.LittleEndian.Uint32(opt[e:])
			f.ResourceSize = binary.LittleEndian.Uint32(opt[e+4:])
		}
		if e := dirOff + 8*debugDir; n > debugDir && optSize >= e+8 {
			f.DebugRVA = binary.LittleEndian.Uint32(opt[e:])
			f.DebugSize = binary.LittleEndian.Uint32(opt[e+4:])
		}
	}
	secOff := optOff + int64(optSize)
	st, err := readAt(r, size, secOff, 40*nsec, "section table")
	if err != nil {
		return nil, err
	}
	f.Sections = make([]Section, nsec)
	for i := range f.Sections {
		b := st[40*i:]
		f.Sections[i] = Section{
			Name:             strings.TrimRight(string(b[:8]), "\x00"),
			VirtualSize:      binary.LittleEndian.Uint32(b[8:]),
			VirtualAddress:   binary.LittleEndian.Uint32(b[12:]),
			SizeOfRawData:    binary.LittleEndian.Uint32(b[16:]),
			PointerToRawData: binary.LittleEndian.Uint32(b[20:]),
		}
	}
	return f, nil
}

// RVAToOffset maps an image RVA to a file offset and returns how many
// bytes of file data follow it in its section (or in the headers). It
// fails for an RVA in no section or in a section's uninitialized tail.
func (f *File) RVAToOffset(rva uint32) (off int64, avail int64, err error) {
	for _, s := range f.Sections {
		span := s.VirtualSize
		if span < s.SizeOfRawData {
			span = s.SizeOfRawData
		}
		if rva < s.VirtualAddress || uint64(rva) >= uint64(s.VirtualAddress)+uint64(span) {
			continue
		}
		delta := int64(rva - s.VirtualAddress)
		raw := int64(s.SizeOfRawData)
		if delta >= raw {
			return 0, 0, errorf(int64(s.PointerToRawData), "RVA %#x is in the uninitialized part of section %q", rva, s.Name)
		}
		start := int64(s.PointerToRawData)
		if start > f.size {
			return 0, 0, errorf(start, "section %q starts beyond the end of the file", s.Name)
		}
		end := start + raw
		if end > f.size {
			end = f.size
		}
		off = start + delta
		if off >= end {
			return 0, 0, errorf(off, "RVA %#x of section %q is beyond the end of the file", rva, s.Name)
		}
		return off, end - off, nil
	}
	// Headers are mapped at RVA 0 with their file layout.
	if rva < f.SizeOfHeaders && int64(rva) < f.size {
		end := int64(f.SizeOfHeaders)
		if end > f.size {
			end = f.size
		}
		return int64(rva), end - int64(rva), nil
	}
	return 0, 0, errorf(0, "RVA %#x is in no section", rva)
}

// ReadRVA reads n bytes of the image at an RVA; the range must lie in the
// file data of one section.
func (f *File) ReadRVA(rva uint32, n uint32) ([]byte, error) {
	off, avail, err := f.RVAToOffset(rva)
	if err != nil {
		return nil, err
	}
	if int64(n) > avail {
		return nil, errorf(off, "%d bytes at RVA %#x run past the section's file data (%d bytes left)", n, rva, avail)
	}
	return readAt(f.r, f.size, off, int(n), "image data")
}
