package pdb

import (
	"encoding/binary"
	"sort"
)

// OMAP: an image rearranged after linking (by BBT) keeps its symbols at
// their addresses before the rearrangement ("source" RVAs, from the
// original section headers) and two maps in the DBI debug header:
// OMAP_TO_SRC (image RVA → source RVA) and OMAP_FROM_SRC (source →
// image). Each is an array of {u32 from, u32 to} sorted by from; an
// address maps to to + (address − from) of the last entry at or below it,
// or to nothing when that entry's to is 0.
const (
	dbgSectionHdrOrig = 10
)

type omapEntry struct{ from, to uint32 }

// omapInfo is a PDB's address translation; nil without OMAP.
type omapInfo struct {
	toSrc, fromSrc []omapEntry
	orig           []Section // section headers before the rearrangement
}

// maxOMAP bounds one OMAP table (entries of 8 bytes).
const maxOMAP = 256 << 20

// omapLocked reads the OMAP tables and the original section headers once.
func (f *File) omapLocked() (*omapInfo, error) {
	if f.omapDone {
		return f.omap, f.omapErr
	}
	f.omapDone = true
	f.omap, f.omapErr = f.readOMAP()
	return f.omap, f.omapErr
}

func (f *File) readOMAP() (*omapInfo, error) {
	if !f.HasOMAP() {
		return nil, nil
	}
	o := &omapInfo{}
	var err error
	if o.toSrc, err = f.readOMAPTable(f.dbi.debugStream(dbgOmapToSrc)); err != nil {
		return nil, err
	}
	if o.fromSrc, err = f.readOMAPTable(f.dbi.debugStream(dbgOmapFromSrc)); err != nil {
		return nil, err
	}
	if idx := f.dbi.debugStream(dbgSectionHdrOrig); idx >= 0 {
		if o.orig, err = f.readSectionStream(idx); err != nil {
			return nil, err
		}
	}
	return o, nil
}

func (f *File) readOMAPTable(idx int) ([]omapEntry, error) {
	if idx < 0 {
		return nil, nil
	}
	s, err := f.m.stream(idx)
	if err != nil {
		return nil, err
	}
	if s.size%8 != 0 || s.size > maxOMAP {
		return nil, s.errorf(0, "OMAP stream of %d bytes (a multiple of 8, at most %d)", s.size, maxOMAP)
	}
	b, err := s.all("OMAP")
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	out := make([]omapEntry, len(b)/8)
	for i := range out {
		out[i] = omapEntry{le.Uint32(b[8*i:]), le.Uint32(b[8*i+4:])}
		if i > 0 && out[i].from < out[i-1].from {
			return nil, s.errorf(int64(8*i), "OMAP entries out of order (%#x after %#x)", out[i].from, out[i-1].from)
		}
	}
	return out, nil
}

// translate maps an address through an OMAP table.
func translate(t []omapEntry, rva uint32) (uint32, bool) {
	i := sort.Search(len(t), func(i int) bool { return t[i].from > rva }) - 1
	if i < 0 || t[i].to == 0 {
		return 0, false
	}
	return t[i].to + (rva - t[i].from), true
}

// toSource maps an image RVA to the RVA the symbols use.
func (o *omapInfo) toSource(rva uint32) (uint32, bool) {
	if o == nil {
		return rva, true
	}
	return translate(o.toSrc, rva)
}

// toImage maps a symbol's RVA to the image's.
func (o *omapInfo) toImage(rva uint32, ok bool) (uint32, bool) {
	if o == nil || !ok {
		return rva, ok
	}
	return translate(o.fromSrc, rva)
}

// symSectionsLocked returns the section headers that symbols' section
// numbers refer to: the original ones when the PDB has OMAP.
func (f *File) symSectionsLocked() ([]Section, error) {
	secs, err := f.sectionsLocked()
	if err != nil {
		return nil, err
	}
	o, err := f.omapLocked()
	if err != nil {
		return nil, err
	}
	if o != nil && o.orig != nil {
		return o.orig, nil
	}
	return secs, nil
}
