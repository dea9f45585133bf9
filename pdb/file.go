package pdb

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/etwkit/etw/internal/readerat"
)

// Fixed stream numbers of a PDB.
const (
	streamPDB = 1 // PDB info stream: version, signature, age, GUID, named streams
	streamTPI = 2
	streamDBI = 3
)

// GUID is a PDB's GUID as stored (Data1–Data3 little-endian, then 8 bytes).
type GUID [16]byte

// String returns the GUID in registry form, "{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}".
func (g GUID) String() string {
	le := binary.LittleEndian
	return fmt.Sprintf("{%08X-%04X-%04X-%X-%X}", le.Uint32(g[0:]), le.Uint16(g[4:]), le.Uint16(g[6:]), g[8:10], g[10:])
}

// Hex returns the 32 uppercase hex digits that SymSrv uses in a store's
// folder name: Data1, Data2, Data3 as numbers, then the 8 bytes in order.
func (g GUID) Hex() string {
	le := binary.LittleEndian
	return fmt.Sprintf("%08X%04X%04X%X", le.Uint32(g[0:]), le.Uint16(g[4:]), le.Uint16(g[6:]), g[8:])
}

// ParseGUID reads a GUID spelled as [GUID.String] or [GUID.Hex] print it
// (braces and dashes optional, any case).
func ParseGUID(s string) (GUID, error) {
	var g GUID
	h := strings.NewReplacer("{", "", "}", "", "-", "").Replace(s)
	if len(h) != 32 {
		return g, fmt.Errorf("pdb: GUID %q: want 32 hex digits", s)
	}
	var b [16]byte
	for i := range b {
		var v byte
		for _, c := range h[2*i : 2*i+2] {
			var d byte
			switch {
			case c >= '0' && c <= '9':
				d = byte(c - '0')
			case c >= 'a' && c <= 'f':
				d = byte(c-'a') + 10
			case c >= 'A' && c <= 'F':
				d = byte(c-'A') + 10
			default:
				return g, fmt.Errorf("pdb: GUID %q: %q is not a hex digit", s, c)
			}
			v = v<<4 | d
		}
		b[i] = v
	}
	// b is in display order; Data1..Data3 are stored little-endian.
	g[0], g[1], g[2], g[3] = b[3], b[2], b[1], b[0]
	g[4], g[5] = b[5], b[4]
	g[6], g[7] = b[7], b[6]
	copy(g[8:], b[8:])
	return g, nil
}

// File is an open PDB file. It reads through the [io.ReaderAt] it was made
// from, only the streams that a call needs; its methods may be called from
// several goroutines at once if the reader allows it (an *os.File does).
type File struct {
	// GUID and Age identify the PDB (the PDB info stream). A PE's debug
	// directory (CodeView "RSDS") names the GUID and age of its PDB.
	GUID GUID
	Age  uint32
	// Signature is the PDB info stream's signature (a time stamp when the
	// PDB was first written).
	Signature uint32
	// Version is the PDB info stream's version (20000404 for VC7.0 and
	// later).
	Version uint32
	// DBIAge is the age recorded in the DBI stream; MSVC's linker keeps
	// it equal to Age, and so does lld. Zero when the PDB has no DBI stream.
	DBIAge uint32
	// Machine is the DBI stream's machine type (0x14C i386, 0x8664 AMD64,
	// 0xAA64 ARM64); zero when the PDB has no DBI stream.
	Machine uint16

	m      *msf
	closer io.Closer
	names  map[string]int // named streams ("/names", …)
	dbi    *dbiInfo       // nil: no DBI stream (a type-only PDB)

	mu          sync.Mutex
	sections    []Section
	secErr      error
	secDone     bool
	strtab      *stringTable
	strErr      error
	strDone     bool
	mods        []*modState
	pubs        *publicIndex
	pubErr      error
	pubOffs     []uint32 // the publics stream's address map, sorted
	pubOffsDone bool
	omap        *omapInfo
	omapErr     error
	omapDone    bool
	contribs    []contrib
	conErr      error
	conDone     bool
}

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

// NewFile reads the MSF directory, the PDB info stream and the DBI stream
// header of a PDB of the given size. Symbols, sections and lines are read
// when first asked for.
func NewFile(r io.ReaderAt, size int64) (*File, error) {
	m, err := openMSF(r, size)
	if err != nil {
		return nil, err
	}
	f := &File{m: m}
	if err := f.readInfo(); err != nil {
		return nil, err
	}
	if err := f.readDBI(); err != nil {
		return nil, err
	}
	return f, nil
}

// ID returns the identity as SymSrv spells a store folder: the GUID's 32
// hex digits, then the age in hex without leading zeros.
func (f *File) ID() string { return StoreID(f.GUID, f.Age) }

// StoreID spells an identity as SymSrv names its store folder: the GUID's
// 32 hex digits ([GUID.Hex]), then the age in hex without leading zeros.
func StoreID(g GUID, age uint32) string { return fmt.Sprintf("%s%X", g.Hex(), age) }

// StreamCount returns the number of MSF streams.
func (f *File) StreamCount() int { return len(f.m.sizes) }

// Stream returns an MSF stream as a reader of its bytes (for records this
// package does not decode).
func (f *File) Stream(i int) (*io.SectionReader, error) {
	s, err := f.m.stream(i)
	if err != nil {
		return nil, err
	}
	return io.NewSectionReader(s, 0, s.size), nil
}

// maxNamedStreams bounds the named-stream table of the PDB info stream.
const maxNamedStreams = 4096

func (f *File) readInfo() error {
	s, err := f.m.stream(streamPDB)
	if err != nil {
		return err
	}
	if s.size > 1<<20 {
		return s.errorf(0, "PDB info stream of %d bytes (at most 1 MiB)", s.size)
	}
	b, err := s.all("PDB info stream")
	if err != nil {
		return err
	}
	if len(b) < 28 {
		return s.errorf(0, "PDB info stream of %d bytes (at least 28)", len(b))
	}
	le := binary.LittleEndian
	f.Version = le.Uint32(b)
	f.Signature = le.Uint32(b[4:])
	f.Age = le.Uint32(b[8:])
	copy(f.GUID[:], b[12:28])
	f.names = map[string]int{}
	// Named stream map: string buffer, then a hash table of (string
	// offset, stream) pairs. Optional in practice: a short stream has none.
	p := 28
	if len(b) < p+4 {
		return nil
	}
	strLen := int(le.Uint32(b[p:]))
	if strLen > len(b)-p-4 {
		return s.errorf(int64(p), "named stream strings of %d bytes in %d", strLen, len(b)-p-4)
	}
	strs := b[p+4 : p+4+strLen]
	p += 4 + strLen
	if len(b) < p+8 {
		return s.errorf(int64(p), "named stream table truncated")
	}
	count := int(le.Uint32(b[p:]))
	p += 8 // size, capacity
	if count > maxNamedStreams {
		return s.errorf(int64(p-8), "%d named streams (at most %d)", count, maxNamedStreams)
	}
	var present []uint32
	for k := 0; k < 2; k++ { // present bits, then deleted bits
		if len(b) < p+4 {
			return s.errorf(int64(p), "named stream bit vector truncated")
		}
		words := int(le.Uint32(b[p:]))
		p += 4
		if words > (len(b)-p)/4 {
			return s.errorf(int64(p-4), "bit vector of %d words in %d bytes", words, len(b)-p)
		}
		if k == 0 {
			for i := 0; i < words; i++ {
				present = append(present, le.Uint32(b[p+4*i:]))
			}
		}
		p += 4 * words
	}
	n := 0
	for _, w := range present {
		for ; w != 0; w &= w - 1 {
			n++
		}
	}
	if n != count || n > (len(b)-p)/8 {
		return s.errorf(int64(p), "named stream table of %d entries (%d present bits, %d bytes left)", count, n, len(b)-p)
	}
	for i := 0; i < n; i++ {
		key := int(le.Uint32(b[p:]))
		val := int(le.Uint32(b[p+4:]))
		p += 8
		if key >= len(strs) {
			return s.errorf(int64(p-8), "named stream name offset %d beyond %d bytes", key, len(strs))
		}
		name := cstring(strs[key:])
		f.names[name] = val
	}
	return nil
}

// cstring returns the bytes up to the first NUL (all of them if none).
func cstring(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// Section is one image section header as the linker recorded it in the
// PDB (IMAGE_SECTION_HEADER).
type Section struct {
	Name             string // up to 8 bytes, NUL padding removed
	VirtualSize      uint32
	VirtualAddress   uint32
	SizeOfRawData    uint32
	PointerToRawData uint32
	Characteristics  uint32
}

// maxSections bounds the section header stream (the PE/COFF limit is 96;
// object-like images may have more, so allow a generous margin).
const maxSections = 1 << 16

// Sections returns the image section headers (the DBI optional debug
// header's section header stream). A PDB without them (no DBI stream, or
// no such stream) returns none and no error; symbols' RVAs are then
// unknown.
func (f *File) Sections() ([]Section, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sectionsLocked()
}

func (f *File) sectionsLocked() ([]Section, error) {
	if f.secDone {
		return f.sections, f.secErr
	}
	f.secDone = true
	f.sections, f.secErr = f.readSections()
	return f.sections, f.secErr
}

func (f *File) readSections() ([]Section, error) {
	if f.dbi == nil {
		return nil, nil
	}
	idx := f.dbi.debugStream(dbgSectionHdr)
	if idx < 0 {
		return nil, nil
	}
	return f.readSectionStream(idx)
}

// readSectionStream reads a stream of IMAGE_SECTION_HEADERs.
func (f *File) readSectionStream(idx int) ([]Section, error) {
	s, err := f.m.stream(idx)
	if err != nil {
		return nil, err
	}
	if s.size%40 != 0 || s.size/40 > maxSections {
		return nil, s.errorf(0, "section header stream of %d bytes (not a multiple of 40, or over %d headers)", s.size, maxSections)
	}
	b, err := s.all("section headers")
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	out := make([]Section, len(b)/40)
	for i := range out {
		h := b[40*i:]
		out[i] = Section{
			Name:             strings.TrimRight(string(h[:8]), "\x00"),
			VirtualSize:      le.Uint32(h[8:]),
			VirtualAddress:   le.Uint32(h[12:]),
			SizeOfRawData:    le.Uint32(h[16:]),
			PointerToRawData: le.Uint32(h[20:]),
			Characteristics:  le.Uint32(h[36:]),
		}
	}
	return out, nil
}

// rva converts a section:offset address (section numbers from 1) to an
// RVA; ok is false when the section is not in the section headers.
func rvaOf(secs []Section, seg uint16, off uint32) (uint32, bool) {
	if seg == 0 || int(seg) > len(secs) {
		return 0, false
	}
	return secs[seg-1].VirtualAddress + off, true
}
