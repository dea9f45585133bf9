package pdb

import "sort"

// Symbol is what [File.Lookup] finds at an address.
type Symbol struct {
	// Name is the function's name as its record has it, or the public's
	// undecorated name (the decorated one when it cannot be undecorated;
	// on x86, C names lose their "_", "_…@N" or "@…@N" decoration).
	Name string
	// RVA and Size are the function's start and code size (for an
	// address in a function's separated code, S_SEPCODE, that block's);
	// Size is 0 for a public (its extent is not recorded).
	RVA  uint32
	Size uint32
	// Offset is the looked-up RVA minus RVA. With OMAP it is the offset
	// in the function as linked, and RVA is where the function's start
	// went in the image: RVA+Offset may then differ from the address.
	Offset uint32
	// Module is the module index of the function record, or -1 for a
	// public.
	Module int
	// Public reports that no function record holds the address and the
	// nearest public symbol at or below it, in the same section, names it.
	Public bool
	// File and Line are the source position of the address when the
	// module has line tables for it (Line 0: unknown).
	File string
	Line uint32
}

// Lookup finds the function that holds an RVA (of the image: with OMAP,
// translated to the layout the symbols describe first). It reads the section
// contributions once to find the module that owns the address, then that
// module's symbols (kept for later lookups) and, for file and line, its
// line tables. Without a function record, the nearest public symbol at or
// below the address in the same section names it. ok is false when
// nothing does.
func (f *File) Lookup(rva uint32) (sym Symbol, ok bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o, err := f.omapLocked()
	if err != nil {
		return Symbol{}, false, err
	}
	src, mapped := o.toSource(rva)
	if !mapped {
		return Symbol{}, false, nil
	}
	sym, ok, err = f.lookupSource(src)
	if ok && o != nil {
		// The function's start in the image; Offset stays the offset in
		// the function as linked.
		if start, in := o.toImage(sym.RVA, true); in {
			sym.RVA = start
		} else {
			sym.RVA = rva - sym.Offset
		}
	}
	return sym, ok, err
}

// lookupSource is Lookup of an RVA as the symbols spell it.
func (f *File) lookupSource(rva uint32) (sym Symbol, ok bool, err error) {
	mi, err := f.moduleAt(rva)
	if err != nil {
		return Symbol{}, false, err
	}
	if mi >= 0 {
		m, err := f.moduleLocked(mi)
		if err != nil {
			return Symbol{}, false, err
		}
		if m != nil {
			if _, err := f.functionsLocked(mi, m); err != nil {
				return Symbol{}, false, err
			}
			if fn, found := functionAt(m.index, rva); found {
				sym = Symbol{Name: fn.Name, RVA: fn.RVA, Size: fn.Size, Offset: rva - fn.RVA, Module: mi}
				file, line, lok, err := f.lineAt(m, rva)
				if err != nil {
					return sym, true, err
				}
				if lok {
					sym.File, sym.Line = file, line
				}
				return sym, true, nil
			}
		}
	}
	return f.publicLookup(rva)
}

// functionAt returns the function of a sorted list whose range holds rva.
func functionAt(fns []Function, rva uint32) (Function, bool) {
	n := sort.Search(len(fns), func(i int) bool { return !fns[i].HasRVA || fns[i].RVA > rva })
	// Thunks and funclets may sit inside a larger range: look a few back.
	for i := n - 1; i >= 0 && i >= n-8; i-- {
		fn := fns[i]
		if uint64(rva) < uint64(fn.RVA)+uint64(fn.Size) {
			return fn, true
		}
	}
	return Function{}, false
}

func (f *File) publicLookup(rva uint32) (Symbol, bool, error) {
	idx, err := f.publicsLocked()
	if err != nil || idx == nil {
		return Symbol{}, false, err
	}
	secs, err := f.symSectionsLocked()
	if err != nil {
		return Symbol{}, false, err
	}
	e := idx.entries
	i := sort.Search(len(e), func(i int) bool { return e[i].rva > rva }) - 1
	if i < 0 {
		return Symbol{}, false, nil
	}
	p := e[i]
	s := secs[p.sec-1]
	span := max(s.VirtualSize, s.SizeOfRawData)
	if uint64(rva) >= uint64(s.VirtualAddress)+uint64(span) {
		return Symbol{}, false, nil
	}
	name, ok := idx.names[p.recOff]
	if !ok {
		pub, err := f.publicAt(idx.s, p.recOff, secs)
		if err != nil {
			return Symbol{}, false, err
		}
		name = f.publicName(pub)
		if idx.names == nil {
			idx.names = map[uint32]string{}
		}
		idx.names[p.recOff] = name
	}
	return Symbol{Name: name, RVA: p.rva, Offset: rva - p.rva, Module: -1, Public: true}, true, nil
}

// publicName names a public in a lookup: C++ names undecorated to their
// qualified name; on x86, the C names of functions without their
// calling-convention decoration ("_main" → "main", "_Sleep@4" → "Sleep");
// others as stored.
func (f *File) publicName(p Public) string {
	if s, ok := UndecorateName(p.Name); ok {
		return s
	}
	if f.Machine == machineI386 && p.IsFunction() {
		if s, ok := undecorateX86C(p.Name); ok {
			return s
		}
	}
	return p.Name
}

// machineI386 is IMAGE_FILE_MACHINE_I386.
const machineI386 = 0x14C

// LineAt returns the source file and line of an RVA, when the module that
// holds it has line tables for it.
func (f *File) LineAt(rva uint32) (file string, line uint32, ok bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o, err := f.omapLocked()
	if err != nil {
		return "", 0, false, err
	}
	rva, mapped := o.toSource(rva)
	if !mapped {
		return "", 0, false, nil
	}
	mi, err := f.moduleAt(rva)
	if err != nil || mi < 0 {
		return "", 0, false, err
	}
	m, err := f.moduleLocked(mi)
	if err != nil || m == nil {
		return "", 0, false, err
	}
	return f.lineAt(m, rva)
}
