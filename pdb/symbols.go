package pdb

import (
	"bufio"
	"encoding/binary"
	"io"
	"slices"
	"sort"
)

// SymKind is a CodeView symbol record kind.
type SymKind uint16

// Symbol record kinds this package decodes.
const (
	SymThunk32      SymKind = 0x1102 // S_THUNK32
	SymAnnotation   SymKind = 0x1019 // S_ANNOTATION
	SymPub32        SymKind = 0x110E // S_PUB32
	SymLProc32      SymKind = 0x110F // S_LPROC32
	SymGProc32      SymKind = 0x1110 // S_GPROC32
	SymLProc32ID    SymKind = 0x1146 // S_LPROC32_ID
	SymGProc32ID    SymKind = 0x1147 // S_GPROC32_ID
	SymLProc32DPC   SymKind = 0x1155 // S_LPROC32_DPC
	SymLProc32DPCID SymKind = 0x1156 // S_LPROC32_DPC_ID
	SymSepCode      SymKind = 0x1132 // S_SEPCODE: a procedure's separated (cold) code
)

// String returns the CodeView name of the kind ("S_GPROC32", …).
func (k SymKind) String() string {
	switch k {
	case SymThunk32:
		return "S_THUNK32"
	case SymAnnotation:
		return "S_ANNOTATION"
	case SymPub32:
		return "S_PUB32"
	case SymLProc32:
		return "S_LPROC32"
	case SymGProc32:
		return "S_GPROC32"
	case SymLProc32ID:
		return "S_LPROC32_ID"
	case SymGProc32ID:
		return "S_GPROC32_ID"
	case SymLProc32DPC:
		return "S_LPROC32_DPC"
	case SymLProc32DPCID:
		return "S_LPROC32_DPC_ID"
	case SymSepCode:
		return "S_SEPCODE"
	}
	return "S_0x" + hex16(uint16(k))
}

func hex16(v uint16) string {
	const d = "0123456789ABCDEF"
	return string([]byte{d[v>>12], d[v>>8&15], d[v>>4&15], d[v&15]})
}

// records walks the symbol records of a stream range [start, end) with a
// small buffer: {u16 length, u16 kind, payload}, length counting the kind
// and the payload.
type records struct {
	s    *stream
	br   *bufio.Reader
	pos  int64 // stream offset of the current record
	next int64
	end  int64
	kind SymKind
	data []byte // payload of the current record (reused)
	err  error
}

func newRecords(s *stream, start, end int64) *records {
	if end > s.size {
		end = s.size
	}
	if start > end {
		start = end
	}
	return &records{s: s, br: bufio.NewReaderSize(io.NewSectionReader(s, start, end-start), 16<<10), next: start, end: end}
}

// scan advances to the next record; false at the end or on an error (Err).
func (r *records) scan() bool {
	if r.err != nil || r.next+4 > r.end {
		return false
	}
	r.pos = r.next
	var h [4]byte
	if _, err := io.ReadFull(r.br, h[:]); err != nil {
		r.err = r.s.errorf(r.pos, "symbol record header: %v", err)
		return false
	}
	n := int64(binary.LittleEndian.Uint16(h[:]))
	r.kind = SymKind(binary.LittleEndian.Uint16(h[2:]))
	if n < 2 || r.pos+2+n > r.end {
		r.err = r.s.errorf(r.pos, "symbol record of %d bytes runs past the end of its range (%d)", n, r.end)
		return false
	}
	if cap(r.data) < int(n-2) {
		r.data = make([]byte, n-2, max(n-2, 256))
	}
	r.data = r.data[:n-2]
	if _, err := io.ReadFull(r.br, r.data); err != nil {
		r.err = r.s.errorf(r.pos, "symbol record: %v", err)
		return false
	}
	r.next = r.pos + 2 + n
	return true
}

// Public is an S_PUB32 record: a linker-visible name at an address.
type Public struct {
	Name    string // as stored: decorated for C++ and x86 C names
	Flags   uint32 // CV_PUBSYMFLAGS: 1 code, 2 function, 4 managed, 8 MSIL
	Section uint16
	Offset  uint32
	// RVA is Section:Offset as an image RVA (through the OMAP tables
	// when the PDB has them); HasRVA is false when the section is not
	// among the PDB's section headers, or OMAP maps the address nowhere.
	RVA    uint32
	HasRVA bool
}

// IsFunction reports whether the public names a function.
func (p Public) IsFunction() bool { return p.Flags&2 != 0 }

// Undecorated returns the public's name without MSVC decoration, in the
// form a function record carries ("ns::C::get", "std::max<int>"); the
// name as stored when it is not a decorated C++ name or when [UndecorateName]
// cannot read it.
func (p Public) Undecorated() string {
	if s, ok := UndecorateName(p.Name); ok {
		return s
	}
	return p.Name
}

func parsePub(b []byte, secs []Section) (Public, bool) {
	if len(b) < 10 {
		return Public{}, false
	}
	le := binary.LittleEndian
	p := Public{Flags: le.Uint32(b), Offset: le.Uint32(b[4:]), Section: le.Uint16(b[8:]), Name: cstring(b[10:])}
	p.RVA, p.HasRVA = rvaOf(secs, p.Section, p.Offset)
	return p, true
}

// symRecStream returns the symbol record stream (publics and globals), or
// nil when the PDB has none.
func (f *File) symRecStream() (*stream, error) {
	if f.dbi == nil || f.dbi.symRecStream < 0 {
		return nil, nil
	}
	return f.m.stream(f.dbi.symRecStream)
}

// Publics returns the public symbols: the S_PUB32 records that the
// publics stream's address map lists, in symbol record stream order (every
// S_PUB32 record of that stream when the PDB has no publics stream).
func (f *File) Publics() ([]Public, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o, err := f.omapLocked()
	if err != nil {
		return nil, err
	}
	var out []Public
	err = f.eachPublicLocked(func(p Public, _ int64) {
		p.RVA, p.HasRVA = o.toImage(p.RVA, p.HasRVA)
		out = append(out, p)
	})
	return out, err
}

// eachPublicLocked calls fn for each public and its record's offset in the
// symbol record stream.
func (f *File) eachPublicLocked(fn func(p Public, recOff int64)) error {
	secs, err := f.symSectionsLocked()
	var listed []uint32
	if err == nil {
		listed, err = f.publicOffsetsLocked()
	}
	if err != nil {
		return err
	}
	s, err := f.symRecStream()
	if s == nil || err != nil {
		return err
	}
	r := newRecords(s, 0, s.size)
	for r.scan() {
		if r.kind != SymPub32 {
			continue
		}
		if listed != nil {
			// Both ascend: skip the listed offsets before this record.
			for len(listed) > 0 && int64(listed[0]) < r.pos {
				listed = listed[1:]
			}
			if len(listed) == 0 || int64(listed[0]) != r.pos {
				continue // a record no table refers to
			}
		}
		p, ok := parsePub(r.data, secs)
		if !ok {
			return s.errorf(r.pos, "S_PUB32 record of %d bytes", len(r.data))
		}
		fn(p, r.pos)
	}
	return r.err
}

// publicOffsetsLocked reads the publics stream's address map: the symbol
// record stream offsets of the publics, returned sorted. nil (no error)
// when the PDB has no publics stream.
func (f *File) publicOffsetsLocked() ([]uint32, error) {
	if f.pubOffsDone {
		return f.pubOffs, nil
	}
	if f.dbi == nil || f.dbi.publicStream < 0 {
		f.pubOffsDone = true
		return nil, nil
	}
	s, err := f.m.stream(f.dbi.publicStream)
	if err != nil {
		return nil, err
	}
	h, err := s.read(0, 28, "publics stream header")
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	hashBytes := int64(le.Uint32(h))
	mapBytes := int64(le.Uint32(h[4:]))
	if hashBytes > s.size-28 || mapBytes > s.size-28-hashBytes || mapBytes%4 != 0 {
		return nil, s.errorf(0, "publics stream: %d bytes of hash and %d of address map in %d", hashBytes, mapBytes, s.size)
	}
	b, err := s.read(28+hashBytes, int(mapBytes), "publics address map")
	if err != nil {
		return nil, err
	}
	offs := make([]uint32, mapBytes/4)
	for i := range offs {
		offs[i] = le.Uint32(b[4*i:])
	}
	slices.Sort(offs)
	f.pubOffs, f.pubOffsDone = offs, true
	return offs, nil
}

// publicIndex is the publics sorted by RVA; names are read again from the
// record stream when a lookup needs one.
type publicIndex struct {
	s       *stream
	entries []pubEntry
	names   map[uint32]string // undecorated names looked up so far, by record offset
}

type pubEntry struct {
	rva    uint32
	recOff uint32 // stream offset of the S_PUB32 record
	sec    uint16
}

func (f *File) publicsLocked() (*publicIndex, error) {
	if f.pubs != nil || f.pubErr != nil {
		return f.pubs, f.pubErr
	}
	s, err := f.symRecStream()
	if err != nil {
		f.pubErr = err
		return nil, err
	}
	idx := &publicIndex{s: s}
	if s != nil {
		err := f.eachPublicLocked(func(p Public, recOff int64) {
			if p.HasRVA {
				idx.entries = append(idx.entries, pubEntry{rva: p.RVA, recOff: uint32(recOff), sec: p.Section})
			}
		})
		if err != nil {
			f.pubErr = err
			return nil, err
		}
		sort.SliceStable(idx.entries, func(i, j int) bool { return idx.entries[i].rva < idx.entries[j].rva })
	}
	f.pubs = idx
	return idx, nil
}

// publicAt reads the S_PUB32 record at a stream offset.
func (f *File) publicAt(s *stream, off uint32, secs []Section) (Public, error) {
	h, err := s.read(int64(off), 4, "S_PUB32 record")
	if err != nil {
		return Public{}, err
	}
	n := int(binary.LittleEndian.Uint16(h))
	if n < 2 {
		return Public{}, s.errorf(int64(off), "record of %d bytes", n)
	}
	b, err := s.read(int64(off)+4, n-2, "S_PUB32 record")
	if err != nil {
		return Public{}, err
	}
	p, ok := parsePub(b, secs)
	if !ok {
		return Public{}, s.errorf(int64(off), "S_PUB32 record of %d bytes", len(b))
	}
	return p, nil
}

// Function is a procedure or thunk record of a module's symbols.
type Function struct {
	Name    string // as the compiler wrote it: qualified, not decorated
	Kind    SymKind
	Section uint16
	Offset  uint32
	// RVA is Section:Offset as an image RVA (through the OMAP tables
	// when the PDB has them); HasRVA is false when the section is not
	// among the PDB's section headers, or OMAP maps the address nowhere.
	RVA    uint32
	HasRVA bool
	Size   uint32 // code size in bytes
	Module int    // index in [File.Modules]
	// RecordOffset is the record's offset in the module's symbol stream
	// (what llvm-pdbutil prints before a record).
	RecordOffset uint32
}

func parseFunction(kind SymKind, b []byte) (Function, bool) {
	le := binary.LittleEndian
	switch {
	case kind == SymThunk32:
		if len(b) < 21 {
			return Function{}, false
		}
		return Function{Kind: kind, Offset: le.Uint32(b[12:]), Section: le.Uint16(b[16:]), Size: uint32(le.Uint16(b[18:])), Name: cstring(b[21:])}, true
	case isFunctionKind(kind):
		if len(b) < 35 {
			return Function{}, false
		}
		return Function{Kind: kind, Size: le.Uint32(b[12:]), Offset: le.Uint32(b[28:]), Section: le.Uint16(b[32:]), Name: cstring(b[35:])}, true
	}
	return Function{}, false
}

// ModuleFunctions returns the procedures and thunks of one module, sorted
// by RVA (records without an RVA last, in record order). The list is read
// once and kept.
func (f *File) ModuleFunctions(module int) ([]Function, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.moduleLocked(module)
	if err != nil || m == nil {
		return nil, err
	}
	fns, err := f.functionsLocked(module, m)
	if err != nil {
		return nil, err
	}
	out := append([]Function(nil), fns...)
	o, err := f.omapLocked()
	if err != nil || o == nil {
		return out, err
	}
	for i := range out {
		out[i].RVA, out[i].HasRVA = o.toImage(out[i].RVA, out[i].HasRVA)
	}
	return out, nil
}

func (f *File) moduleLocked(module int) (*modState, error) {
	mods, err := f.modulesLocked()
	if err != nil {
		return nil, err
	}
	if module < 0 || module >= len(mods) {
		return nil, nil
	}
	return mods[module], nil
}

// symRange returns the module's symbol stream and the range of its symbol
// records (after the 4-byte signature).
func (f *File) symRange(m *modState) (*stream, int64, int64, error) {
	if m.SymStream < 0 {
		return nil, 0, 0, nil
	}
	s, err := f.m.stream(m.SymStream)
	if err != nil {
		return nil, 0, 0, err
	}
	end := int64(m.symBytes)
	if end > s.size {
		return nil, 0, 0, s.errorf(0, "module %q declares %d bytes of symbols in a stream of %d", m.Name, end, s.size)
	}
	if end < 4 {
		return s, 4, 4, nil
	}
	sig, err := s.read(0, 4, "module symbol signature")
	if err != nil {
		return nil, 0, 0, err
	}
	if v := binary.LittleEndian.Uint32(sig); v != 4 {
		return nil, 0, 0, s.errorf(0, "module symbols signature %d (want 4, C13)", v)
	}
	return s, 4, end, nil
}

func (f *File) functionsLocked(module int, m *modState) ([]Function, error) {
	if m.fnDone {
		return m.fns, m.fnErr
	}
	m.fnDone = true
	secs, err := f.symSectionsLocked()
	if err != nil {
		m.fnErr = err
		return nil, err
	}
	s, start, end, err := f.symRange(m)
	if err != nil || s == nil {
		m.fnErr = err
		return nil, err
	}
	var fns, seps []Function
	procAt := map[uint32]string{} // procedure names by record offset, for S_SEPCODE
	r := newRecords(s, start, end)
	for r.scan() {
		if r.kind == SymSepCode {
			// {parent, end, length, flags, offset, parent offset, section, parent section}
			if len(r.data) < 28 {
				m.fnErr = s.errorf(r.pos, "S_SEPCODE record of %d bytes", len(r.data))
				return nil, m.fnErr
			}
			le := binary.LittleEndian
			name, ok := procAt[le.Uint32(r.data)]
			if !ok {
				continue // no enclosing procedure to name it
			}
			sep := Function{Name: name, Kind: SymSepCode, Size: le.Uint32(r.data[8:]), Offset: le.Uint32(r.data[16:]),
				Section: le.Uint16(r.data[24:]), Module: module, RecordOffset: uint32(r.pos)}
			sep.RVA, sep.HasRVA = rvaOf(secs, sep.Section, sep.Offset)
			seps = append(seps, sep)
			continue
		}
		fn, ok := parseFunction(r.kind, r.data)
		if !ok {
			if isFunctionKind(r.kind) {
				m.fnErr = s.errorf(r.pos, "%v record of %d bytes", r.kind, len(r.data))
				return nil, m.fnErr
			}
			continue
		}
		fn.Module = module
		fn.RecordOffset = uint32(r.pos)
		fn.RVA, fn.HasRVA = rvaOf(secs, fn.Section, fn.Offset)
		fns = append(fns, fn)
		if fn.Kind != SymThunk32 {
			procAt[fn.RecordOffset] = fn.Name
		}
	}
	if r.err != nil {
		m.fnErr = r.err
		return nil, r.err
	}
	byRVA := func(fns []Function) {
		sort.SliceStable(fns, func(i, j int) bool {
			a, b := fns[i], fns[j]
			if a.HasRVA != b.HasRVA {
				return a.HasRVA
			}
			return a.RVA < b.RVA
		})
	}
	byRVA(fns)
	m.fns = fns
	m.index = fns
	if len(seps) > 0 {
		m.index = append(append([]Function(nil), fns...), seps...)
		byRVA(m.index)
	}
	return fns, nil
}

// isFunctionKind reports whether records of the kind are functions.
func isFunctionKind(k SymKind) bool {
	switch k {
	case SymGProc32, SymLProc32, SymGProc32ID, SymLProc32ID, SymLProc32DPC, SymLProc32DPCID, SymThunk32:
		return true
	}
	return false
}

// Functions returns the procedures and thunks of every module, module by
// module. It reads every module's symbols; [File.Lookup] reads only the
// module that holds an address.
func (f *File) Functions() ([]Function, error) {
	mods, err := f.Modules()
	if err != nil {
		return nil, err
	}
	var out []Function
	for i := range mods {
		fns, err := f.ModuleFunctions(i)
		if err != nil {
			return out, err
		}
		out = append(out, fns...)
	}
	return out, nil
}

// Annotation is an S_ANNOTATION record (MSVC's __annotation intrinsic):
// strings attached to a code address. WPP trace message formats are
// annotations whose first string is "TMF:".
type Annotation struct {
	Section uint16
	Offset  uint32
	RVA     uint32
	HasRVA  bool
	Strings []string
	Module  int
}

// Annotations returns the S_ANNOTATION records of every module.
func (f *File) Annotations() ([]Annotation, error) {
	mods, err := f.Modules()
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	secs, err := f.symSectionsLocked()
	if err != nil {
		return nil, err
	}
	o, err := f.omapLocked()
	if err != nil {
		return nil, err
	}
	var out []Annotation
	for i := range mods {
		s, start, end, err := f.symRange(f.mods[i])
		if err != nil {
			return out, err
		}
		if s == nil {
			continue
		}
		r := newRecords(s, start, end)
		for r.scan() {
			if r.kind != SymAnnotation {
				continue
			}
			b := r.data
			if len(b) < 8 {
				return out, s.errorf(r.pos, "S_ANNOTATION record of %d bytes", len(b))
			}
			le := binary.LittleEndian
			a := Annotation{Offset: le.Uint32(b), Section: le.Uint16(b[4:]), Module: i}
			a.RVA, a.HasRVA = o.toImage(rvaOf(secs, a.Section, a.Offset))
			n := int(le.Uint16(b[6:]))
			rest := b[8:]
			for k := 0; k < n; k++ {
				str, used := nextCString(rest)
				if used < 0 {
					return out, s.errorf(r.pos, "S_ANNOTATION string %d of %d without a NUL", k, n)
				}
				a.Strings = append(a.Strings, str)
				rest = rest[used:]
			}
			out = append(out, a)
		}
		if r.err != nil {
			return out, r.err
		}
	}
	return out, nil
}
