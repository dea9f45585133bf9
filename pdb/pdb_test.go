package pdb_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/etwkit/etw/internal/symtest"
	"github.com/etwkit/etw/pdb"
	"github.com/etwkit/etw/pe"
)

// compareLLVM checks everything the File reads against llvm-pdbutil's
// dump of the same PDB: identity, section headers, every public, every
// function record (name, RVA from section and offset, size) and every
// line block; then looks up every function's first and last byte, and
// the line of every line entry whose address no other entry shares.
func compareLLVM(t *testing.T, f *pdb.File, d *symtest.Dump) {
	t.Helper()
	if got := f.GUID.String(); got != d.GUID {
		t.Errorf("GUID %s, llvm-pdbutil %s", got, d.GUID)
	}
	if f.Age != d.Age {
		t.Errorf("age %d, llvm-pdbutil %d", f.Age, d.Age)
	}
	secs, err := f.Sections()
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) != len(d.Sections) {
		t.Fatalf("%d sections, llvm-pdbutil %d", len(secs), len(d.Sections))
	}
	for i, s := range d.Sections {
		if g := secs[i]; g.Name != s.Name || g.VirtualAddress != s.VirtualAddress || g.VirtualSize != s.VirtualSize {
			t.Errorf("section %d: %+v, llvm-pdbutil %+v", i+1, g, s)
		}
	}
	rva := func(sec uint16, off uint32) (uint32, bool) {
		if sec == 0 || int(sec) > len(d.Sections) {
			return 0, false
		}
		return d.Sections[sec-1].VirtualAddress + off, true
	}

	// Publics: the same multiset of (name, section, offset), RVAs from
	// llvm-pdbutil's section headers.
	pubs, err := f.Publics()
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	var names []string
	for _, p := range pubs {
		r, ok := rva(p.Section, p.Offset)
		if ok != p.HasRVA || r != p.RVA {
			t.Errorf("public %s: RVA %#x %v, want %#x %v", p.Name, p.RVA, p.HasRVA, r, ok)
		}
		got = append(got, fmt.Sprintf("%s %d:%d", p.Name, p.Section, p.Offset))
		names = append(names, p.Name)
	}
	for _, p := range d.Publics {
		want = append(want, fmt.Sprintf("%s %d:%d", p.Name, p.Section, p.Offset))
	}
	sameSorted(t, "publics", got, want)
	t.Logf("%d publics, %d undecorated (each as llvm-undname)", len(pubs), checkUndecoratedNames(t, names))

	// Functions, module by module, in record order.
	mods, err := f.Modules()
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	var all []pdb.Function
	for mi := range mods {
		fns, err := f.ModuleFunctions(mi)
		if err != nil {
			t.Fatalf("module %d: %v", mi, err)
		}
		all = append(all, fns...)
		sort.Slice(fns, func(i, j int) bool { return fns[i].RecordOffset < fns[j].RecordOffset })
		ref := d.Functions[mi]
		if len(fns) != len(ref) {
			t.Errorf("module %d (%s): %d functions, llvm-pdbutil %d", mi, mods[mi].Name, len(fns), len(ref))
			continue
		}
		for i, r := range ref {
			g := fns[i]
			wr, wok := rva(r.Section, r.Offset)
			if g.Kind.String() != r.Kind || g.Name != r.Name || g.RecordOffset != r.RecordOffset || g.Section != r.Section ||
				g.Offset != r.Offset || g.Size != r.Size || g.RVA != wr || g.HasRVA != wok {
				t.Errorf("module %d function %d: %+v, llvm-pdbutil %+v (RVA %#x)", mi, i, g, r, wr)
			}
		}
		total += len(ref)
	}
	for mi := range d.Functions {
		if mi < 0 || mi >= len(mods) {
			t.Errorf("llvm-pdbutil lists functions of module %d; the file has %d modules", mi, len(mods))
		}
	}
	fall, err := f.Functions()
	if err != nil || len(fall) != total {
		t.Errorf("Functions: %d, %v; want %d", len(fall), err, total)
	}

	// Lookups: each function's first and last byte is held by a function
	// record of that range (identical code folding can give several).
	starts := map[string]bool{}
	for _, fn := range all {
		starts[fmt.Sprintf("%s@%#x+%d", fn.Name, fn.RVA, fn.Size)] = true
	}
	looked := 0
	for _, fn := range all {
		if !fn.HasRVA || fn.Size == 0 {
			continue
		}
		for _, a := range []uint32{fn.RVA, fn.RVA + fn.Size - 1} {
			s, ok, err := f.Lookup(a)
			if err != nil || !ok || s.Public || a < s.RVA || a-s.RVA >= s.Size || s.Offset != a-s.RVA ||
				!starts[fmt.Sprintf("%s@%#x+%d", s.Name, s.RVA, s.Size)] {
				t.Errorf("Lookup(%#x) in %s [%#x,+%d) = %+v, %v, %v", a, fn.Name, fn.RVA, fn.Size, s, ok, err)
			}
			looked++
		}
	}

	// Lines: every block equal; then line lookups.
	count := map[uint32]int{}
	for mi := range mods {
		blocks, err := f.Lines(mi)
		if err != nil {
			t.Fatalf("module %d lines: %v", mi, err)
		}
		ref := d.Lines[mi]
		if mods[mi].SymStream < 0 {
			// llvm-pdbutil 14 prints the previous module's lines again
			// for a module without a symbol stream; it has none.
			if len(blocks) != 0 {
				t.Errorf("module %d has no symbol stream but %d line blocks", mi, len(blocks))
			}
			continue
		}
		if len(blocks) != len(ref) {
			t.Errorf("module %d: %d line blocks, llvm-pdbutil %d", mi, len(blocks), len(ref))
			continue
		}
		for i, r := range ref {
			b := blocks[i]
			var gl, wl []string
			for _, l := range b.Lines {
				gl = append(gl, fmt.Sprintf("%d@%X", l.Line, l.Offset))
			}
			for _, l := range r.Lines {
				wl = append(wl, fmt.Sprintf("%d@%X", l.Line, l.Offset))
				if r, ok := rva(b.Section, l.Offset); ok && mods[mi].SymStream >= 0 {
					count[r]++
				}
			}
			if b.File != r.File || b.Section != r.Section || b.Offset != r.Start || b.Offset+b.Size != r.End || strings.Join(gl, " ") != strings.Join(wl, " ") {
				t.Errorf("module %d line block %d: %s %d:%X-%X %v; llvm-pdbutil %s %d:%X-%X %v", mi, i,
					b.File, b.Section, b.Offset, b.Offset+b.Size, gl, r.File, r.Section, r.Start, r.End, wl)
			}
		}
	}
	lines := 0
	for mi := range mods {
		if mods[mi].SymStream < 0 {
			continue
		}
		for _, r := range d.Lines[mi] {
			for _, l := range r.Lines {
				a, ok := rva(r.Section, l.Offset)
				if !ok || count[a] != 1 || l.Line == pdb.LineAlwaysStepInto || l.Line == pdb.LineNeverStepInto {
					continue
				}
				file, line, ok, err := f.LineAt(a)
				if err != nil || !ok || file != r.File || line != l.Line {
					t.Errorf("LineAt(%#x) = %s:%d %v %v; llvm-pdbutil %s:%d", a, file, line, ok, err, r.File, l.Line)
				}
				lines++
			}
		}
	}
	t.Logf("%d functions (%d lookups), %d publics, %d line lookups equal llvm-pdbutil", total, looked, len(pubs), lines)
}

func sameSorted(t *testing.T, what string, got, want []string) {
	t.Helper()
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s differ from llvm-pdbutil:\n got  %d: %q\n want %d: %q", what, len(got), got, len(want), want)
	}
}

func TestCppConLLVM(t *testing.T) {
	path := symtest.File(t, "perfview/CppCon.pdb")
	f, err := pdb.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.ID() != "12DC0A4FBD7D4F2AA9BE263BACAEB4675" || f.DBIAge != f.Age || f.Machine != 0x14C {
		t.Errorf("identity %s, DBI age %d, machine %#x", f.ID(), f.DBIAge, f.Machine)
	}
	compareLLVM(t, f, symtest.LLVMDump(t, path))

	// main is in CppCon.cpp lines 7–9 (perfview/CppCon.cpp).
	s, ok, err := f.Lookup(0x100B)
	if err != nil || !ok || s.Name != "main" || s.Offset != 0xB || s.Line != 9 || !strings.HasSuffix(s.File, `\CppCon.cpp`) {
		t.Errorf("Lookup(0x100B) = %+v %v %v", s, ok, err)
	}
}

func TestCsDesktopProj(t *testing.T) {
	f, err := pdb.Open(symtest.File(t, "perfview/CsDesktopProj.pdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.ID() != f.GUID.Hex()+fmt.Sprintf("%X", f.Age) || f.Age == 0 {
		t.Errorf("identity %s age %d", f.ID(), f.Age)
	}
	fns, err := f.Functions()
	if err != nil || len(fns) != 0 {
		t.Errorf("managed PDB: %d native functions, %v", len(fns), err)
	}
	if _, err := f.Publics(); err != nil {
		t.Error(err)
	}
	if s, ok, err := f.Lookup(0x1000); err != nil || (ok && !s.Public) {
		t.Errorf("Lookup: %+v %v %v", s, ok, err)
	}
	compareLLVM(t, f, symtest.LLVMDump(t, symtest.File(t, "perfview/CsDesktopProj.pdb")))
}

// buildShapes builds testdata/shapes.cpp (with debug information) and
// util.cpp (without) for a target.
func buildShapes(t *testing.T, target string) (exe, pdbPath string) {
	t.Helper()
	return symtest.Build(t, t.TempDir(), target, "shapes",
		symtest.Source{Path: filepath.Join("testdata", "shapes.cpp"), Debug: true},
		symtest.Source{Path: filepath.Join("testdata", "util.cpp")},
		symtest.Source{Path: filepath.Join("testdata", "cfuncs.c")})
}

func TestClangLLVM(t *testing.T) {
	for _, target := range []string{"x86_64-pc-windows-msvc", "i686-pc-windows-msvc"} {
		t.Run(strings.Split(target, "-")[0], func(t *testing.T) {
			exe, path := buildShapes(t, target)
			f, err := pdb.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			compareLLVM(t, f, symtest.LLVMDump(t, path))

			// The EXE's debug directory names this PDB.
			img, err := pe.Open(exe)
			if err != nil {
				t.Fatal(err)
			}
			defer img.Close()
			cv, err := img.CodeView()
			if err != nil || pdb.GUID(cv.GUID) != f.GUID || cv.Age != f.Age || cv.PDBPath != path {
				t.Errorf("CodeView %+v %v; PDB %s age %d at %s", cv, err, f.GUID, f.Age, path)
			}
			if wantMachine := map[bool]uint16{true: 0x8664, false: 0x14C}[strings.HasPrefix(target, "x86_64")]; f.Machine != wantMachine || img.Machine != wantMachine {
				t.Errorf("machine: PDB %#x, PE %#x; want %#x", f.Machine, img.Machine, wantMachine)
			}

			// Named by function records, with lines.
			fns, err := f.Functions()
			if err != nil {
				t.Fatal(err)
			}
			byName := map[string]pdb.Function{}
			for _, fn := range fns {
				byName[fn.Name] = fn
			}
			src, err := os.ReadFile(filepath.Join("testdata", "shapes.cpp"))
			if err != nil {
				t.Fatal(err)
			}
			for name, marker := range map[string]string{
				"geo::Counter::twice":     "static int twice",
				"geo::largest<long long>": "T largest(T a, T b)",
				"localHelper":             "static int localHelper",
				"main":                    `extern "C" int main()`,
			} {
				fn, ok := byName[name]
				if !ok {
					t.Errorf("no function %s", name)
					continue
				}
				s, ok, err := f.Lookup(fn.RVA + 1)
				wantLine := uint32(lineOf(t, string(src), marker))
				if err != nil || !ok || s.Name != name || s.Offset != 1 || s.Line != wantLine || !strings.HasSuffix(s.File, "shapes.cpp") {
					t.Errorf("Lookup(%s+1) = %+v %v %v; want line %d", name, s, ok, err, wantLine)
				}
			}

			// Named by undecorated publics (util.cpp has no records).
			pubs, err := f.Publics()
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{"util::mix": true, "util::Acc::add": true, "util::Acc::get": true, "util::clamp<int>": true,
				"util::clamp<unsigned char>": true, "c_plain": true, "c_std": true, "c_fast": true}
			for _, p := range pubs {
				s, ok, err := f.Lookup(p.RVA + 2)
				if !want[s.Name] {
					continue
				}
				if err != nil || !ok || !s.Public || s.Offset != 2 || s.RVA != p.RVA {
					t.Errorf("Lookup(%s+2) = %+v %v %v", p.Name, s, ok, err)
				}
				delete(want, s.Name)
			}
			if len(want) != 0 {
				t.Errorf("publics not found: %v", want)
			}
		})
	}
}

func lineOf(t *testing.T, src, marker string) int {
	t.Helper()
	i := strings.Index(src, marker)
	if i < 0 {
		t.Fatalf("no %q in the source", marker)
	}
	return strings.Count(src[:i], "\n") + 1
}

func checkUndecoratedNames(t *testing.T, names []string) int {
	t.Helper()
	return pdb.CheckUndecorated(t, names)
}
