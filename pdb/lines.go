package pdb

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// C13 debug subsection kinds.
const (
	debugSLines     = 0xF2
	debugSFileChk   = 0xF4
	debugSIgnoreBit = 0x80000000
)

// Special line numbers MSVC writes for compiler-generated code that a
// debugger steps over (0xFEEFEE) or into (0xF00F00); they name no source
// line, and lookups report no line for them.
const (
	LineNeverStepInto  = 0xFEEFEE
	LineAlwaysStepInto = 0xF00F00
)

// Line is one line-table entry: the code at Offset (a section offset)
// starts source line Line.
type Line struct {
	Offset uint32
	Line   uint32 // 24 bits; see LineNeverStepInto, LineAlwaysStepInto
	// Statement is the entry's "is a statement" bit.
	Statement bool
}

// LineBlock is the line entries of one source file within one contiguous
// code range (a C13 DEBUG_S_LINES subsection covers the range; it holds a
// block for each file that contributes lines to it).
type LineBlock struct {
	File    string // from the file checksums and the "/names" string table
	Section uint16
	Offset  uint32 // start of the subsection's code range (section offset)
	Size    uint32 // length of the code range
	RVA     uint32
	HasRVA  bool
	Lines   []Line
}

type lineSub struct {
	sec    uint16
	off    uint32
	size   uint32
	rva    uint32
	hasRVA bool
	files  []lineFile
}

type lineFile struct {
	chk   uint32 // offset of the file's entry in the checksums subsection
	lines []Line
}

// modLines is a module's parsed C13 line information.
type modLines struct {
	subs   []lineSub         // as written
	sorted []lineSub         // sorted by RVA (sharing the line slices)
	chk    []byte            // the DEBUG_S_FILECHKSMS subsection
	names  map[uint32]string // file names resolved so far, by checksum offset
}

// maxC13 bounds the line information of one module.
const maxC13 = 256 << 20

func (f *File) linesLocked(m *modState) (*modLines, error) {
	if m.lnDone {
		return m.lines, m.lnErr
	}
	m.lnDone = true
	m.lines, m.lnErr = f.readLines(m)
	return m.lines, m.lnErr
}

func (f *File) readLines(m *modState) (*modLines, error) {
	if m.SymStream < 0 || m.c13Bytes == 0 {
		return &modLines{}, nil
	}
	secs, err := f.symSectionsLocked()
	if err != nil {
		return nil, err
	}
	s, err := f.m.stream(m.SymStream)
	if err != nil {
		return nil, err
	}
	start := int64(m.symBytes) + int64(m.c11Bytes)
	n := int64(m.c13Bytes)
	if n > maxC13 || start+n > s.size {
		return nil, s.errorf(start, "module %q: %d bytes of C13 lines at %d in a stream of %d", m.Name, n, start, s.size)
	}
	b, err := s.read(start, int(n), "C13 line information")
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	ml := &modLines{}
	for p := 0; p+8 <= len(b); {
		kind := le.Uint32(b[p:])
		size := int(le.Uint32(b[p+4:]))
		if size < 0 || size > len(b)-p-8 {
			return nil, s.errorf(start+int64(p), "debug subsection %#x of %d bytes (%d left)", kind, size, len(b)-p-8)
		}
		data := b[p+8 : p+8+size]
		subOff := start + int64(p+8)
		p += (8 + size + 3) &^ 3
		if kind&debugSIgnoreBit != 0 {
			continue
		}
		switch kind {
		case debugSFileChk:
			ml.chk = data
		case debugSLines:
			sub, err := parseLines(data, secs)
			if err != nil {
				err.Stream, err.Offset = s.index, subOff+err.Offset
				err.FileOffset = s.fileOffset(err.Offset)
				return nil, err
			}
			ml.subs = append(ml.subs, sub)
		}
	}
	ml.sorted = append([]lineSub(nil), ml.subs...)
	sort.SliceStable(ml.sorted, func(i, j int) bool { return ml.sorted[i].rva < ml.sorted[j].rva })
	return ml, nil
}

// parseLines reads one DEBUG_S_LINES subsection; errors carry offsets
// relative to the subsection.
func parseLines(b []byte, secs []Section) (lineSub, *FormatError) {
	le := binary.LittleEndian
	if len(b) < 12 {
		return lineSub{}, &FormatError{Msg: "DEBUG_S_LINES header truncated"}
	}
	sub := lineSub{off: le.Uint32(b), sec: le.Uint16(b[4:]), size: le.Uint32(b[8:])}
	cols := le.Uint16(b[6:])&1 != 0
	sub.rva, sub.hasRVA = rvaOf(secs, sub.sec, sub.off)
	for p := 12; p < len(b); {
		if len(b)-p < 12 {
			return sub, &FormatError{Offset: int64(p), Msg: "line block header truncated"}
		}
		chk := le.Uint32(b[p:])
		nl := int(le.Uint32(b[p+4:]))
		bsize := int(le.Uint32(b[p+8:]))
		per := 8
		if cols {
			per = 12
		}
		if bsize < 12 || bsize > len(b)-p || nl > (bsize-12)/per {
			return sub, &FormatError{Offset: int64(p), Msg: fmt.Sprintf("line block of %d bytes with %d lines", bsize, nl)}
		}
		lf := lineFile{chk: chk, lines: make([]Line, nl)}
		for i := range lf.lines {
			e := b[p+12+8*i:]
			v := le.Uint32(e[4:])
			lf.lines[i] = Line{Offset: sub.off + le.Uint32(e), Line: v & 0xFFFFFF, Statement: v&0x80000000 != 0}
		}
		sub.files = append(sub.files, lf)
		p += bsize
	}
	return sub, nil
}

// fileName resolves a file checksum offset to the file's name.
func (f *File) fileName(ml *modLines, chk uint32) (string, error) {
	if name, ok := ml.names[chk]; ok {
		return name, nil
	}
	if int64(chk)+4 > int64(len(ml.chk)) {
		return "", &FormatError{Stream: -1, Offset: int64(chk), FileOffset: -1, Msg: fmt.Sprintf("file checksum offset %d beyond the checksums subsection", chk)}
	}
	st, err := f.stringsLocked()
	if err != nil {
		return "", err
	}
	if st == nil {
		return "", &FormatError{Stream: -1, FileOffset: -1, Msg: "line tables without a /names string table"}
	}
	name, err := st.at(binary.LittleEndian.Uint32(ml.chk[chk:]))
	if err != nil {
		return "", err
	}
	if ml.names == nil {
		ml.names = map[uint32]string{}
	}
	ml.names[chk] = name
	return name, nil
}

// Lines returns the line blocks of one module in the order written.
func (f *File) Lines(module int) ([]LineBlock, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.moduleLocked(module)
	if err != nil || m == nil {
		return nil, err
	}
	ml, err := f.linesLocked(m)
	if err != nil {
		return nil, err
	}
	o, err := f.omapLocked()
	if err != nil {
		return nil, err
	}
	var out []LineBlock
	for _, sub := range ml.subs {
		for _, lf := range sub.files {
			name, err := f.fileName(ml, lf.chk)
			if err != nil {
				return out, err
			}
			b := LineBlock{File: name, Section: sub.sec, Offset: sub.off, Size: sub.size, Lines: lf.lines}
			b.RVA, b.HasRVA = o.toImage(sub.rva, sub.hasRVA)
			out = append(out, b)
		}
	}
	return out, nil
}

// lineAt finds the source line of an RVA in a module's line tables: the
// entry with the greatest address not above rva within the code range that
// holds it. ok is false when no range holds rva or the entry is one of the
// special step-over lines.
func (f *File) lineAt(m *modState, rva uint32) (file string, line uint32, ok bool, err error) {
	ml, err := f.linesLocked(m)
	if err != nil {
		return "", 0, false, err
	}
	subs := ml.sorted
	i := sort.Search(len(subs), func(i int) bool { return subs[i].rva > rva }) - 1
	// Ranges rarely overlap; look a few back for one that holds rva.
	for stop := i - 8; i >= 0 && i > stop; i-- {
		sub := &subs[i]
		if !sub.hasRVA || uint64(rva) >= uint64(sub.rva)+uint64(sub.size) {
			continue
		}
		target := sub.off + (rva - sub.rva)
		best := -1
		var bestOff uint32
		var bestFile, bestLine uint32
		for fi, lf := range sub.files {
			for _, l := range lf.lines {
				if l.Offset <= target && (best < 0 || l.Offset > bestOff) {
					best, bestOff, bestFile, bestLine = fi, l.Offset, lf.chk, l.Line
				}
			}
		}
		if best < 0 || bestLine == LineNeverStepInto || bestLine == LineAlwaysStepInto {
			return "", 0, false, nil
		}
		name, err := f.fileName(ml, bestFile)
		if err != nil {
			return "", 0, false, err
		}
		return name, bestLine, true, nil
	}
	return "", 0, false, nil
}
