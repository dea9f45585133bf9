package pe

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Predefined resource types used with event manifests.
const (
	// RTMessageTable is RT_MESSAGETABLE, the id of the message table
	// resource type.
	RTMessageTable = 11
	// WEVTTemplate is the name of the resource type that holds a compiled
	// instrumentation manifest (package wevt reads it).
	WEVTTemplate = "WEVT_TEMPLATE"
)

// Resource types as [ResID]s.
var (
	TypeMessageTable = ResID{ID: RTMessageTable}
	TypeWEVTTemplate = ResID{Name: WEVTTemplate}
)

// ResID identifies an entry of the resource tree: a type, a name or a
// language. A named entry has a non-empty Name; otherwise ID is its number.
type ResID struct {
	Name string
	ID   uint32
}

// ParseResID reads a resource type or name as Windows spells it: "#11" is
// the id 11, anything else a name.
func ParseResID(s string) ResID {
	if len(s) > 1 && s[0] == '#' {
		if n, err := strconv.ParseUint(s[1:], 10, 16); err == nil {
			return ResID{ID: uint32(n)}
		}
	}
	return ResID{Name: s}
}

// String returns the name, or "#" and the id.
func (id ResID) String() string {
	if id.Name != "" {
		return id.Name
	}
	return "#" + strconv.FormatUint(uint64(id.ID), 10)
}

// Match reports whether the entry id matches want: names equal without
// regard to case (as FindResource compares them), or equal ids.
func (id ResID) Match(want ResID) bool {
	if want.Name != "" || id.Name != "" {
		return want.Name != "" && id.Name != "" && strings.EqualFold(id.Name, want.Name)
	}
	return id.ID == want.ID
}

// Resource is one leaf of the resource tree.
type Resource struct {
	Type, Name, Lang ResID
	// DataRVA, Size and CodePage are the IMAGE_RESOURCE_DATA_ENTRY fields.
	DataRVA  uint32
	Size     uint32
	CodePage uint32
}

// Resources returns every resource of the file in tree order (types,
// then names, then languages, each named entries first). A file without a
// resource directory has none.
func (f *File) Resources() ([]Resource, error) {
	return f.resources(nil)
}

// ResourcesOfType returns the resources of one type in tree order, none if
// the file has no such type. Only that type's subtree is read.
func (f *File) ResourcesOfType(typ ResID) ([]Resource, error) {
	return f.resources(&typ)
}

// ResourceData returns the data of the first resource of the given type
// (its first name and language), or an error wrapping [ErrNoResource].
func (f *File) ResourceData(typ ResID) ([]byte, error) {
	res, err := f.ResourcesOfType(typ)
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("pe: resource type %s: %w", typ, ErrNoResource)
	}
	return f.ReadResource(res[0])
}

// ReadResource reads a resource's data.
func (f *File) ReadResource(r Resource) ([]byte, error) {
	b, err := f.ReadRVA(r.DataRVA, r.Size)
	if err != nil {
		return nil, fmt.Errorf("pe: resource %s/%s/%s: %w", r.Type, r.Name, r.Lang, err)
	}
	return b, nil
}

// HasResourceType reports whether the file has at least one resource
// directory entry of the type (which may still be an empty directory).
// It reads the root directory of the resource tree only.
func (f *File) HasResourceType(typ ResID) (bool, error) {
	w, err := f.newWalker()
	if err != nil || w == nil {
		return false, err
	}
	ents, err := w.dir(0)
	if err != nil {
		return false, err
	}
	for _, e := range ents {
		ok, err := w.match(e, typ)
		if err != nil {
			return false, err
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}

// HasResourceType reports whether the PE file read by r (size bytes) has
// resources of the type name ("WEVT_TEMPLATE", or "#11" for an id; see
// [ParseResID]). It reads the headers, the section table and the root
// directory of the resource tree only — a few KB whatever the file size —
// so that scanning a folder of binaries is quick. A file that is not a PE
// file gives an error wrapping [ErrNotPE].
func HasResourceType(r io.ReaderAt, size int64, name string) (bool, error) {
	f, err := NewFile(r, size)
	if err != nil {
		return false, err
	}
	return f.HasResourceType(ParseResID(name))
}

// walker walks the resource tree of one file.
type walker struct {
	f      *File
	base   int64 // file offset of the tree
	avail  int64 // bytes of file data from base to the end of its section
	seen   map[uint32]bool
	budget int64 // directory entries left to read
}

// dirEntry is one 8-byte directory entry.
type dirEntry struct {
	name uint32 // raw first word
	data uint32 // raw second word
	at   int64  // file offset of the entry
}

const (
	highBit = 1 << 31
	// maxLevels is the depth of a resource tree: type, name, language.
	maxLevels = 3
)

// newWalker returns nil when the file has no resource directory.
func (f *File) newWalker() (*walker, error) {
	if f.ResourceRVA == 0 {
		return nil, nil
	}
	base, avail, err := f.RVAToOffset(f.ResourceRVA)
	if err != nil {
		return nil, fmt.Errorf("pe: resource directory: %w", err)
	}
	// Directories of a well-formed tree do not overlap, so the tree cannot
	// hold more entries than its section has room for.
	return &walker{f: f, base: base, avail: avail, seen: map[uint32]bool{}, budget: avail/8 + 1}, nil
}

// read reads n bytes at offset off of the tree.
func (w *walker) read(off uint32, n int, what string) ([]byte, error) {
	if int64(off) > w.avail || int64(n) > w.avail-int64(off) {
		return nil, errorf(w.base+int64(off), "%s (%d bytes) at resource offset %#x runs past the resource section", what, n, off)
	}
	return readAt(w.f.r, w.f.size, w.base+int64(off), n, what)
}

// dir reads the directory at offset off of the tree, refusing one seen
// before (a loop, or a subtree shared by two entries).
func (w *walker) dir(off uint32) ([]dirEntry, error) {
	at := w.base + int64(off)
	if w.seen[off] {
		return nil, errorf(at, "resource directory at resource offset %#x reached twice (a loop)", off)
	}
	w.seen[off] = true
	h, err := w.read(off, 16, "resource directory")
	if err != nil {
		return nil, err
	}
	n := int64(binary.LittleEndian.Uint16(h[12:])) + int64(binary.LittleEndian.Uint16(h[14:]))
	if n > w.budget {
		return nil, errorf(at, "resource directory of %d entries: more than the resource section can hold", n)
	}
	w.budget -= n
	b, err := w.read(off+16, int(8*n), "resource directory entries")
	if err != nil {
		return nil, err
	}
	ents := make([]dirEntry, n)
	for i := range ents {
		ents[i] = dirEntry{name: binary.LittleEndian.Uint32(b[8*i:]), data: binary.LittleEndian.Uint32(b[8*i+4:]),
			at: at + 16 + 8*int64(i)}
	}
	return ents, nil
}

// id returns the entry's id, reading its name string.
func (w *walker) id(e dirEntry) (ResID, error) {
	if e.name&highBit == 0 {
		return ResID{ID: e.name}, nil
	}
	off := e.name &^ highBit
	h, err := w.read(off, 2, "resource name length")
	if err != nil {
		return ResID{}, err
	}
	n := int(binary.LittleEndian.Uint16(h))
	b, err := w.read(off+2, 2*n, "resource name")
	if err != nil {
		return ResID{}, err
	}
	return ResID{Name: decodeUTF16(b)}, nil
}

// match reports whether the entry matches want, reading a name only when
// its length can match.
func (w *walker) match(e dirEntry, want ResID) (bool, error) {
	if (e.name&highBit != 0) != (want.Name != "") {
		return false, nil
	}
	if want.Name == "" {
		return e.name == want.ID, nil
	}
	off := e.name &^ highBit
	h, err := w.read(off, 2, "resource name length")
	if err != nil {
		return false, err
	}
	if int(binary.LittleEndian.Uint16(h)) != len(utf16.Encode([]rune(want.Name))) {
		return false, nil
	}
	id, err := w.id(e)
	if err != nil {
		return false, err
	}
	return id.Match(want), nil
}

func (f *File) resources(typ *ResID) ([]Resource, error) {
	w, err := f.newWalker()
	if err != nil || w == nil {
		return nil, err
	}
	var out []Resource
	var path [maxLevels]ResID
	var walk func(off uint32, level int) error
	walk = func(off uint32, level int) error {
		ents, err := w.dir(off)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if level == 0 && typ != nil {
				ok, err := w.match(e, *typ)
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
			}
			if path[level], err = w.id(e); err != nil {
				return err
			}
			sub := e.data&highBit != 0
			switch {
			case sub && level == maxLevels-1:
				return errorf(e.at, "resource directory nested deeper than %d levels", maxLevels)
			case !sub && level < maxLevels-1:
				return errorf(e.at, "resource data entry at level %d of the tree (type %s)", level+1, path[0])
			case sub:
				if err := walk(e.data&^highBit, level+1); err != nil {
					return err
				}
			default:
				d, err := w.read(e.data, 16, "resource data entry")
				if err != nil {
					return err
				}
				out = append(out, Resource{Type: path[0], Name: path[1], Lang: path[2],
					DataRVA: binary.LittleEndian.Uint32(d), Size: binary.LittleEndian.Uint32(d[4:]),
					CodePage: binary.LittleEndian.Uint32(d[8:])})
			}
		}
		return nil
	}
	if err := walk(0, 0); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeUTF16 decodes UTF-16LE bytes (an odd last byte is ignored).
func decodeUTF16(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}
