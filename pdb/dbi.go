package pdb

import (
	"encoding/binary"
	"sort"
)

// Indexes into the DBI optional debug header (an array of stream numbers).
const (
	dbgOmapToSrc   = 3
	dbgOmapFromSrc = 4
	dbgSectionHdr  = 5
)

// dbiInfo is the DBI stream's header and where its substreams are.
type dbiInfo struct {
	s            *stream
	globalStream int
	publicStream int
	symRecStream int
	modOff       int64 // module info substream
	modSize      int64
	scOff        int64 // section contribution substream
	scSize       int64
	dbg          []int // optional debug header: stream numbers, -1 = none
}

func streamNum(v uint16) int {
	if v == 0xFFFF {
		return -1
	}
	return int(v)
}

func (d *dbiInfo) debugStream(i int) int {
	if i >= len(d.dbg) {
		return -1
	}
	return d.dbg[i]
}

// maxDebugStreams bounds the optional debug header (11 are defined).
const maxDebugStreams = 64

func (f *File) readDBI() error {
	if streamDBI >= len(f.m.sizes) || f.m.sizes[streamDBI] == 0 {
		return nil // a PDB with types only
	}
	s, err := f.m.stream(streamDBI)
	if err != nil {
		return err
	}
	h, err := s.read(0, 64, "DBI header")
	if err != nil {
		return err
	}
	le := binary.LittleEndian
	if sig := int32(le.Uint32(h)); sig != -1 {
		return s.errorf(0, "DBI version signature %d (want -1: a VC 4.1 or later DBI)", sig)
	}
	f.DBIAge = le.Uint32(h[8:])
	f.Machine = le.Uint16(h[58:])
	d := &dbiInfo{
		s:            s,
		globalStream: streamNum(le.Uint16(h[12:])),
		publicStream: streamNum(le.Uint16(h[16:])),
		symRecStream: streamNum(le.Uint16(h[20:])),
	}
	// Substreams in order: module info, section contributions, section
	// map, file info, type server map, EC, optional debug header.
	var sizes [7]int64
	for i, o := range []int{24, 28, 32, 36, 40, 52, 48} {
		v := int32(le.Uint32(h[o:]))
		if v < 0 || int64(v) > s.size {
			return s.errorf(int64(o), "DBI substream of %d bytes in a stream of %d", v, s.size)
		}
		sizes[i] = int64(v)
	}
	pos := int64(64)
	offs := [7]int64{}
	for i, n := range sizes {
		offs[i] = pos
		pos += n
		if pos > s.size {
			return s.errorf(64, "DBI substreams end at %d, beyond the stream's %d bytes", pos, s.size)
		}
	}
	d.modOff, d.modSize = offs[0], sizes[0]
	d.scOff, d.scSize = offs[1], sizes[1]
	if n := sizes[6] / 2; n > 0 {
		if n > maxDebugStreams {
			n = maxDebugStreams
		}
		b, err := s.read(offs[6], int(2*n), "optional debug header")
		if err != nil {
			return err
		}
		d.dbg = make([]int, n)
		for i := range d.dbg {
			d.dbg[i] = streamNum(le.Uint16(b[2*i:]))
		}
	}
	f.dbi = d
	return nil
}

// HasOMAP reports whether the PDB has OMAP address maps (its image was
// rearranged after linking). Lookups then translate an image RVA to the
// layout the symbols describe, and the RVAs this package returns are
// translated back to the image's.
func (f *File) HasOMAP() bool {
	return f.dbi != nil && (f.dbi.debugStream(dbgOmapToSrc) >= 0 || f.dbi.debugStream(dbgOmapFromSrc) >= 0)
}

// Module is one compiland (object file, import library member, linker
// module) of the DBI stream's module list.
type Module struct {
	Name    string // module name (often the object file path)
	ObjName string // object or library file name
	// SymStream is the stream of the module's symbols and line tables, or
	// -1 when the module has none.
	SymStream int
	symBytes  uint32 // bytes of symbols, from the start of the stream (including the 4-byte signature)
	c11Bytes  uint32
	c13Bytes  uint32
}

type modState struct {
	Module
	fnDone bool
	fns    []Function
	index  []Function // fns and S_SEPCODE blocks, by RVA: what lookups search
	fnErr  error
	lnDone bool
	lines  *modLines
	lnErr  error
}

// Modules returns the module list of the DBI stream (none for a PDB
// without one).
func (f *File) Modules() ([]Module, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ms, err := f.modulesLocked()
	out := make([]Module, len(ms))
	for i, m := range ms {
		out[i] = m.Module
	}
	return out, err
}

func (f *File) modulesLocked() ([]*modState, error) {
	if f.mods != nil || f.dbi == nil {
		return f.mods, nil
	}
	d := f.dbi
	b, err := d.s.read(d.modOff, int(d.modSize), "module info substream")
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	mods := make([]*modState, 0, len(b)/64)
	for p := 0; p < len(b); {
		if len(b)-p < 64 {
			return nil, d.s.errorf(d.modOff+int64(p), "module info entry truncated (%d bytes left)", len(b)-p)
		}
		e := b[p:]
		m := &modState{Module: Module{
			SymStream: streamNum(le.Uint16(e[34:])),
			symBytes:  le.Uint32(e[36:]),
			c11Bytes:  le.Uint32(e[40:]),
			c13Bytes:  le.Uint32(e[44:]),
		}}
		q := 64
		name, n := nextCString(e[q:])
		if n < 0 {
			return nil, d.s.errorf(d.modOff+int64(p+q), "module name without a NUL")
		}
		q += n
		obj, n := nextCString(e[q:])
		if n < 0 {
			return nil, d.s.errorf(d.modOff+int64(p+q), "object name without a NUL")
		}
		q += n
		m.Name, m.ObjName = name, obj
		mods = append(mods, m)
		p += (q + 3) &^ 3
	}
	f.mods = mods
	return mods, nil
}

// nextCString returns the NUL-terminated string at the start of b and the
// bytes it takes with its NUL, or -1 when b has no NUL.
func nextCString(b []byte) (string, int) {
	for i, c := range b {
		if c == 0 {
			return string(b[:i]), i + 1
		}
	}
	return "", -1
}

// contrib is one section contribution: a range of an image section that a
// module's code or data occupies.
type contrib struct {
	rva, size uint32
	module    int
}

const (
	scVer60 = 0xeffe0000 + 19970605
	scV2    = 0xeffe0000 + 20140516
)

// contribsLocked reads the section contributions, sorted by RVA.
func (f *File) contribsLocked() ([]contrib, error) {
	if f.conDone {
		return f.contribs, f.conErr
	}
	f.conDone = true
	f.contribs, f.conErr = f.readContribs()
	return f.contribs, f.conErr
}

func (f *File) readContribs() ([]contrib, error) {
	d := f.dbi
	if d == nil || d.scSize < 4 {
		return nil, nil
	}
	secs, err := f.symSectionsLocked()
	if err != nil {
		return nil, err
	}
	b, err := d.s.read(d.scOff, int(d.scSize), "section contribution substream")
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	entry := 28
	switch v := le.Uint32(b); v {
	case scVer60:
	case scV2:
		entry = 32
	default:
		return nil, d.s.errorf(d.scOff, "section contribution version %#x", v)
	}
	out := make([]contrib, 0, (len(b)-4)/entry)
	for p := 4; p+entry <= len(b); p += entry {
		e := b[p:]
		rva, ok := rvaOf(secs, le.Uint16(e), le.Uint32(e[4:]))
		size := le.Uint32(e[8:])
		if !ok || size == 0 {
			continue
		}
		out = append(out, contrib{rva: rva, size: size, module: int(le.Uint16(e[16:]))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rva < out[j].rva })
	return out, nil
}

// moduleAt returns the module whose section contribution holds rva, or -1.
func (f *File) moduleAt(rva uint32) (int, error) {
	cs, err := f.contribsLocked()
	if err != nil {
		return -1, err
	}
	i := sort.Search(len(cs), func(i int) bool { return cs[i].rva > rva }) - 1
	if i >= 0 && uint64(rva) < uint64(cs[i].rva)+uint64(cs[i].size) {
		return cs[i].module, nil
	}
	return -1, nil
}

// stringTable is the "/names" stream: file names of the line tables.
type stringTable struct {
	s        *stream
	off, len int64 // the string bytes within the stream
}

func (f *File) stringsLocked() (*stringTable, error) {
	if f.strDone {
		return f.strtab, f.strErr
	}
	f.strDone = true
	idx, ok := f.names["/names"]
	if !ok {
		return nil, nil
	}
	s, err := f.m.stream(idx)
	if err != nil {
		f.strErr = err
		return nil, err
	}
	h, err := s.read(0, 12, "string table header")
	if err != nil {
		f.strErr = err
		return nil, err
	}
	le := binary.LittleEndian
	if sig := le.Uint32(h); sig != 0xEFFEEFFE {
		f.strErr = s.errorf(0, "string table signature %#x (want 0xEFFEEFFE)", sig)
		return nil, f.strErr
	}
	n := int64(le.Uint32(h[8:]))
	if n > s.size-12 {
		f.strErr = s.errorf(8, "string table of %d bytes in a stream of %d", n, s.size)
		return nil, f.strErr
	}
	f.strtab = &stringTable{s: s, off: 12, len: n}
	return f.strtab, nil
}

// maxName bounds one name read from a string table or a record.
const maxName = 64 << 10

// at reads the NUL-terminated string at offset off of the table.
func (t *stringTable) at(off uint32) (string, error) {
	if int64(off) >= t.len {
		return "", t.s.errorf(t.off, "string offset %d beyond the table's %d bytes", off, t.len)
	}
	var out []byte
	buf := make([]byte, 256)
	pos := t.off + int64(off)
	end := t.off + t.len
	for pos < end && len(out) < maxName {
		n := min(int64(len(buf)), end-pos)
		if _, err := t.s.ReadAt(buf[:n], pos); err != nil {
			return "", err
		}
		for i := int64(0); i < n; i++ {
			if buf[i] == 0 {
				return string(append(out, buf[:i]...)), nil
			}
		}
		out = append(out, buf[:n]...)
		pos += n
	}
	return "", t.s.errorf(t.off+int64(off), "string without a NUL")
}
