package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/etwkit/etw/internal/symtest"
)

// checkPDBAgainstLLVM runs "pdb --json" on a PDB and compares every
// function (name, RVA from section and offset, size) and every public
// (name, RVA) with llvm-pdbutil's dump of it.
func checkPDBAgainstLLVM(t *testing.T, path string) pdbDump {
	t.Helper()
	ref := symtest.LLVMDump(t, path)
	out := mustRun(t, "pdb", path, "--json")
	var d pdbDump
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("pdb --json: %v\n%s", err, out)
	}
	if d.GUID != ref.GUID || d.Age != ref.Age {
		t.Errorf("identity %s %d; llvm-pdbutil %s %d", d.GUID, d.Age, ref.GUID, ref.Age)
	}
	addr := func(sec uint16, off uint32) string {
		if sec == 0 || int(sec) > len(ref.Sections) {
			return fmt.Sprintf("%d:%d", sec, off)
		}
		return fmt.Sprintf("%#x", ref.Sections[sec-1].VirtualAddress+off)
	}
	jsonAddr := func(rva *uint32, sec uint16, off uint32) string {
		if rva == nil {
			return fmt.Sprintf("%d:%d", sec, off)
		}
		return fmt.Sprintf("%#x", *rva)
	}
	var got, want []string
	for _, fn := range d.Functions {
		got = append(got, fmt.Sprintf("%s %s %d", fn.Name, jsonAddr(fn.RVA, fn.Section, fn.Offset), fn.Size))
	}
	for _, fns := range ref.Functions {
		for _, fn := range fns {
			want = append(want, fmt.Sprintf("%s %s %d", fn.Name, addr(fn.Section, fn.Offset), fn.Size))
		}
	}
	sameLists(t, "functions", got, want)
	got, want = nil, nil
	for _, p := range d.Publics {
		got = append(got, p.Name+" "+jsonAddr(p.RVA, p.Section, p.Offset))
	}
	for _, p := range ref.Publics {
		want = append(want, p.Name+" "+addr(p.Section, p.Offset))
	}
	sameLists(t, "publics", got, want)
	t.Logf("%s: %d functions and %d publics equal llvm-pdbutil's", filepath.Base(path), len(d.Functions), len(d.Publics))
	return d
}

func sameLists(t *testing.T, what string, got, want []string) {
	t.Helper()
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(want) == 0 && what == "functions" && len(got) != 0 {
		t.Errorf("%s differ from llvm-pdbutil:\n got  %q\n want %q", what, got, want)
	}
}

func TestPDBCppCon(t *testing.T) {
	path := symtest.File(t, "perfview/CppCon.pdb")
	d := checkPDBAgainstLLVM(t, path)
	if len(d.Functions) != 88 || len(d.Publics) != 198 || d.Functions[0].Name != "main" || d.Functions[0].Line != 7 {
		t.Errorf("%d functions, %d publics, first %+v", len(d.Functions), len(d.Publics), d.Functions[0])
	}
	text := mustRun(t, "pdb", path)
	for _, s := range []string{"GUID:     {12DC0A4F-BD7D-4F2A-A9BE-263BACAEB467}", "ID:       12DC0A4FBD7D4F2AA9BE263BACAEB4675",
		"Functions: 88", "0x00001000     14  main  C:\\PerfViewTestData\\CppCon\\CppCon.cpp:7", "Publics: 198",
		"?__scrt_initialize_type_info@@YAXXZ  void __cdecl __scrt_initialize_type_info(void)"} {
		if !strings.Contains(text, s) {
			t.Errorf("pdb output lacks %q", s)
		}
	}
	// The managed PDB: identity, no functions.
	d = checkPDBAgainstLLVM(t, symtest.File(t, "perfview/CsDesktopProj.pdb"))
	if len(d.Functions) != 0 {
		t.Errorf("managed PDB: %d functions", len(d.Functions))
	}
}

// TestPDBClang builds x86 and x64 PE + PDB pairs from testdata/pdbsrc
// (sources other than package pdb's) and compares the command's view with
// llvm-pdbutil's.
func TestPDBClang(t *testing.T) {
	for _, target := range []string{"x86_64-pc-windows-msvc", "i686-pc-windows-msvc"} {
		t.Run(strings.Split(target, "-")[0], func(t *testing.T) {
			_, path := symtest.Build(t, t.TempDir(), target, "calc",
				symtest.Source{Path: filepath.Join("testdata", "pdbsrc", "calc.c"), Debug: true},
				symtest.Source{Path: filepath.Join("testdata", "pdbsrc", "table.cpp")})
			d := checkPDBAgainstLLVM(t, path)
			names := map[string]string{}
			for _, fn := range d.Functions {
				names[fn.Name] = fmt.Sprintf("%s:%d", filepath.Base(fn.File), fn.Line)
			}
			if names["acc_add"] != "calc.c:13" || names["square"] != "calc.c:10" || names["main"] != "calc.c:29" {
				t.Errorf("functions and first lines: %v", names)
			}
			undecorated := 0
			for _, p := range d.Publics {
				if strings.HasPrefix(p.Name, "?") && p.Undecorated != "" {
					undecorated++
				}
			}
			if undecorated < 2 {
				t.Errorf("%d C++ publics undecorated: %+v", undecorated, d.Publics)
			}
		})
	}
}

func TestPDBFind(t *testing.T) {
	b := symtest.SynthPDB(symtest.SynthGUID, 3)
	store := t.TempDir()
	dst := filepath.Join(store, "app.pdb", "12DC0A4FBD7D4F2AA9BE263BACAEB4673", "app.pdb")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	direct := mustRun(t, "pdb", dst, "--json")
	viaStore := mustRun(t, "pdb", `C:\build\app.pdb`, "--id", "12DC0A4FBD7D4F2AA9BE263BACAEB4673", "--symbols", store, "--offline", "--json")
	if viaStore != direct || !strings.Contains(direct, `"name":"work","rva":4112,"size":32`) {
		t.Errorf("through the store:\n%s\ndirect:\n%s", viaStore, direct)
	}

	// A SymSrv server: downloaded into the cache, then read from it.
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		if r.URL.Path == "/app.pdb/12DC0A4FBD7D4F2AA9BE263BACAEB4673/app.pdb" {
			w.Write(b)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	cache := t.TempDir()
	path := "srv*" + cache + "*" + srv.URL
	forceProgress = true // as on a terminal
	out, errs, code := runCLI(t, "pdb", "app.pdb", "--id", "12DC0A4FBD7D4F2AA9BE263BACAEB4673", "--symbols", path, "--json")
	forceProgress = false
	if code != 0 || !strings.Contains(out, `"guid":"{12DC0A4F-BD7D-4F2A-A9BE-263BACAEB467}"`) || requests != 1 {
		t.Errorf("from the server (%d requests): exit %d %s %s", requests, code, out, errs)
	}
	if !strings.Contains(errs, "downloading app.pdb") {
		t.Errorf("no download progress on stderr: %q", errs)
	}
	srv.Close()
	t.Setenv("_NT_SYMBOL_PATH", path)
	if out2 := mustRun(t, "pdb", "app.pdb", "--id", "12DC0A4FBD7D4F2AA9BE263BACAEB4673", "--json"); out2 != out {
		t.Errorf("from the cache: %s", out2)
	}

	// A wrong age: refused, the PDB found named, exit status 1.
	_, errs, code = runCLI(t, "pdb", "app.pdb", "--id", "12DC0A4FBD7D4F2AA9BE263BACAEB4674", "--symbols", store, "--offline")
	if code != 1 || !strings.Contains(errs, "PDB not found") {
		t.Errorf("wrong age: exit %d: %s", code, errs)
	}
	flat := t.TempDir()
	os.WriteFile(filepath.Join(flat, "app.pdb"), b, 0o644)
	_, errs, code = runCLI(t, "pdb", "app.pdb", "--id", "12DC0A4FBD7D4F2AA9BE263BACAEB4674", "--symbols", flat, "--offline")
	if code != 1 || !strings.Contains(errs, "not used: "+filepath.Join(flat, "app.pdb")+": app.pdb has id 12DC0A4FBD7D4F2AA9BE263BACAEB4673, not 12DC0A4FBD7D4F2AA9BE263BACAEB4674") {
		t.Errorf("mismatch: exit %d: %s", code, errs)
	}

	// Usage errors.
	t.Setenv("_NT_SYMBOL_PATH", "")
	for _, args := range [][]string{
		{"pdb"},
		{"pdb", "a.pdb", "b.pdb"},
		{"pdb", "app.pdb", "--id", "12DC"},
		{"pdb", "app.pdb", "--id", "12DC0A4FBD7D4F2AA9BE263BACAEB4673"},
		{"pdb", "app.pdb", "--id", "12DC0A4FBD7D4F2AA9BE263BACAEB4673", "--symbols", "bad*x"},
	} {
		if _, errs, code := runCLI(t, args...); code != exitUsage {
			t.Errorf("%q: exit %d: %s", args, code, errs)
		}
	}
	// Not a PDB.
	if _, errs, code := runCLI(t, "pdb", sample); code != exitInput || !strings.Contains(errs, "not a PDB 7.0") {
		t.Errorf("not a PDB: exit %d: %s", code, errs)
	}
}

// TestPDBInputErrors: a missing PDB, a directory and a file that is not
// a PDB are input errors (exit status 3), as traces are.
func TestPDBInputErrors(t *testing.T) {
	dir := t.TempDir()
	notPDB := filepath.Join(dir, "x.pdb")
	if err := os.WriteFile(notPDB, []byte("not a PDB at all, just text that is long enough to read"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, "missing.pdb"), dir, notPDB} {
		_, errs, code := runCLI(t, "pdb", path)
		if code != exitInput || !strings.Contains(errs, filepath.Base(path)) {
			t.Errorf("pdb %s: exit %d, %q; want %d naming the file", path, code, errs, exitInput)
		}
	}
}
