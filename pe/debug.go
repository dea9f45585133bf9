package pe

import (
	"encoding/binary"
	"errors"
)

// debugDir is the data directory of the debug directory.
const debugDir = 6

// ErrNoCodeView is returned (wrapped) when the file's debug directory has
// no CodeView "RSDS" entry (or the file has no debug directory).
var ErrNoCodeView = errors.New("no CodeView RSDS debug entry")

// CodeView is a debug directory's CodeView entry (IMAGE_DEBUG_TYPE_CODEVIEW,
// format "RSDS"): the identity of the image's PDB as the linker wrote it.
type CodeView struct {
	// GUID is stored as in the PDB (Data1–Data3 little-endian).
	GUID [16]byte
	Age  uint32
	// PDBPath is the PDB's path as given to the linker (UTF-8 or ANSI).
	PDBPath string
}

// Debug directory limits: 28-byte entries; a CodeView record's path is
// at most this long.
const (
	maxDebugEntries = 64
	maxPDBPath      = 4096
	debugTypeCV     = 2
)

// CodeView reads the debug directory and returns its CodeView RSDS entry.
func (f *File) CodeView() (CodeView, error) {
	if f.DebugRVA == 0 || f.DebugSize == 0 {
		return CodeView{}, &FormatError{Msg: "no debug directory", Err: ErrNoCodeView}
	}
	n := f.DebugSize / 28
	if n > maxDebugEntries {
		n = maxDebugEntries
	}
	dir, err := f.ReadRVA(f.DebugRVA, 28*n)
	if err != nil {
		return CodeView{}, err
	}
	le := binary.LittleEndian
	for i := uint32(0); i < n; i++ {
		e := dir[28*i:]
		if le.Uint32(e[12:]) != debugTypeCV {
			continue
		}
		size := le.Uint32(e[16:])
		ptr := int64(le.Uint32(e[24:]))
		if size < 24 || size > 24+maxPDBPath {
			return CodeView{}, errorf(ptr, "CodeView entry of %d bytes", size)
		}
		b, err := readAt(f.r, f.size, ptr, int(size), "CodeView entry")
		if err != nil {
			return CodeView{}, err
		}
		if string(b[:4]) != "RSDS" {
			return CodeView{}, errorf(ptr, "CodeView signature %q (only RSDS, PDB 7.0, is read)", b[:4])
		}
		var cv CodeView
		copy(cv.GUID[:], b[4:20])
		cv.Age = le.Uint32(b[20:])
		path := b[24:]
		for j, c := range path {
			if c == 0 {
				path = path[:j]
				break
			}
		}
		cv.PDBPath = string(path)
		return cv, nil
	}
	return CodeView{}, &FormatError{Offset: int64(f.DebugRVA), Msg: "debug directory without a CodeView entry", Err: ErrNoCodeView}
}
