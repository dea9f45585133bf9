package pdb_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/etwkit/etw/internal/symtest"
	"github.com/etwkit/etw/pdb"
)

// writeModule writes a C source of n functions named prefix_j, each with
// a struct type of its own (which fills the PDB's type and symbol
// streams as a real program's do).
func writeModule(t *testing.T, path, prefix string, n int, withMain bool) {
	t.Helper()
	var b strings.Builder
	if withMain {
		b.WriteString("int _fltused;\n")
	}
	for j := 0; j < n; j++ {
		fmt.Fprintf(&b, "struct S_%s_%d {", prefix, j)
		for k := 0; k < 12; k++ {
			fmt.Fprintf(&b, " int a%d; double b%d;", k, k)
		}
		b.WriteString(" };\n")
		fmt.Fprintf(&b, "int %s_%d(int x) { struct S_%s_%d s; s.a0 = x; s.b3 = x * 2.0; for (int i = 0; i < x; i++) s.a1 += i * x; return s.a0 + s.a1 + (int)s.b3; }\n", prefix, j, prefix, j)
	}
	if withMain {
		fmt.Fprintf(&b, "int main(void) { return %s_0(1); }\n", prefix)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// heapAfterLookups opens a PDB, resolves an address in every function of
// its first module and returns the heap the open file then holds (after a
// collection), with the number of functions named.
func heapAfterLookups(t *testing.T, path string) (held uint64, named int) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f, err := pdb.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fns, err := f.ModuleFunctions(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, fn := range fns {
		s, ok, err := f.Lookup(fn.RVA + fn.Size/2)
		if err != nil {
			t.Fatal(err)
		}
		if ok && s.Name == fn.Name && s.Line != 0 {
			named++
		}
	}
	fns = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(f)
	if after.HeapAlloc < before.HeapAlloc {
		return 0, named
	}
	return after.HeapAlloc - before.HeapAlloc, named
}

// TestMemoryFlatInPDBSize checks that naming the frames of one module costs
// the same memory whatever else the PDB holds: the same hot module linked
// alone and with modules that make the PDB many times larger (their types,
// symbols and line tables are never read by a lookup in the hot module).
func TestMemoryFlatInPDBSize(t *testing.T) {
	if testing.Short() {
		t.Skip("builds PDBs with clang: not in -short")
	}
	dir := t.TempDir()
	const hotFuncs = 600
	hot := filepath.Join(dir, "hot.c")
	writeModule(t, hot, "hot", hotFuncs, true)
	srcs := []symtest.Source{{Path: hot, Debug: true}}
	_, small := symtest.Build(t, dir, "x86_64-pc-windows-msvc", "small", srcs...)
	for i := 0; i < 6; i++ {
		p := filepath.Join(dir, fmt.Sprintf("cold%d.c", i))
		writeModule(t, p, fmt.Sprintf("cold%d", i), 1200, false)
		srcs = append(srcs, symtest.Source{Path: p, Debug: true})
	}
	_, large := symtest.Build(t, dir, "x86_64-pc-windows-msvc", "large", srcs...)

	ss, err := os.Stat(small)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := os.Stat(large)
	if err != nil {
		t.Fatal(err)
	}
	if ls.Size() < 8*ss.Size() {
		t.Fatalf("the large PDB (%d bytes) is not 8× the small one (%d)", ls.Size(), ss.Size())
	}
	smallHeld, smallNamed := heapAfterLookups(t, small)
	largeHeld, largeNamed := heapAfterLookups(t, large)
	t.Logf("PDB %d KB: %d KB held; PDB %d KB: %d KB held", ss.Size()>>10, smallHeld>>10, ls.Size()>>10, largeHeld>>10)
	if smallNamed < hotFuncs || largeNamed != smallNamed {
		t.Fatalf("functions named with file and line: %d in the small PDB, %d in the large one (want ≥ %d each)", smallNamed, largeNamed, hotFuncs)
	}
	// The large PDB's extra modules add one entry each to the module
	// list and their code to the section contributions: bytes per
	// module, not per byte of PDB.
	if limit := smallHeld + smallHeld/4 + 64<<10; largeHeld > limit {
		t.Fatalf("naming one module's frames holds %d KB with a %d KB PDB and %d KB with a %d KB PDB (limit %d KB): memory grows with the PDB's size",
			largeHeld>>10, ls.Size()>>10, smallHeld>>10, ss.Size()>>10, limit>>10)
	}
}
