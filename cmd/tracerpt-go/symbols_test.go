package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/internal/symtest"
	"github.com/etwkit/etw/pdb"
	"github.com/etwkit/etw/pe"
)

// symTraceBytes is symtest.AppTrace: app.exe with the PDB identity
// app.pdb, guid, age, and three CPU samples, two of them in work.
func symTraceBytes(t *testing.T, guid [16]byte, age uint32) []byte {
	return symtest.AppTrace(t, guid, age)
}

// symTrace is symtest.Trace.
func symTrace(t *testing.T, name string, guid [16]byte, age uint32, stacks ...[]uint64) []byte {
	return symtest.Trace(t, name, guid, age, stacks...)
}

func writeFile(t *testing.T, path string, b []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const synthID = "12DC0A4FBD7D4F2AA9BE263BACAEB4673"

// checkNamed asserts that stacks (folded, pprof), the report and the JSON
// dump name the trace's functions through the symbol path.
func checkNamed(t *testing.T, trace string, sym ...string) {
	t.Helper()
	folded := mustRun(t, append([]string{"stacks", trace}, sym...)...)
	if !strings.Contains(folded, "app (100);app.exe!helper;app.exe!work 2\n") || !strings.Contains(folded, "app (100);app.exe 1\n") {
		t.Errorf("folded with %q:\n%s", sym, folded)
	}
	if ss := mustRun(t, append([]string{"stacks", trace, "--format", "speedscope"}, sym...)...); !strings.Contains(ss, `{"name":"app.exe!work"}`) {
		t.Errorf("speedscope with %q:\n%s", sym, ss)
	}
	prof := filepath.Join(t.TempDir(), "p.pb.gz")
	mustRun(t, append([]string{"stacks", trace, "--format", "pprof", "-o", prof}, sym...)...)
	top := goPprof(t, prof, "-top")
	if !strings.Contains(top, " work") || !strings.Contains(top, "helper") {
		t.Errorf("pprof -top with %q:\n%s", sym, top)
	}
	lines := goPprof(t, prof, "-traces", "-lines")
	if !strings.Contains(lines, `work c:\src\work.c:12`) && !strings.Contains(lines, `work c:\src\work.c:10`) {
		t.Errorf("pprof -traces -lines with %q:\n%s", sym, lines)
	}
	rep := mustRun(t, append([]string{"report", trace, "--json", "-o", "-"}, sym...)...)
	if !strings.Contains(rep, `app.exe!work`) {
		t.Errorf("report with %q names no function:\n%.2000s", sym, rep)
	}
	js := mustRun(t, append([]string{trace, "-of", "JSON", "-o", "-"}, sym...)...)
	if !strings.Contains(js, `"module":"app.exe","offset":4120,"function":"work","function_offset":8,"file":"c:\\src\\work.c","line":`) {
		t.Errorf("JSON dump with %q:\n%.3000s", sym, js)
	}
}

func TestSymbolsFolderStoreServer(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, filepath.Join(dir, "t.etl"), symTraceBytes(t, symtest.SynthGUID, 3))
	pdbBytes := symtest.SynthPDB(symtest.SynthGUID, 3)

	// Without symbols: module names only.
	t.Setenv("_NT_SYMBOL_PATH", "")
	if out := mustRun(t, "stacks", trace); strings.Contains(out, "!") || !strings.Contains(out, "app (100);app.exe 3\n") {
		t.Errorf("without symbols:\n%s", out)
	}

	flat := filepath.Join(dir, "flat")
	writeFile(t, filepath.Join(flat, "app.pdb"), pdbBytes)
	checkNamed(t, trace, "--symbols", flat)

	store := filepath.Join(dir, "store")
	writeFile(t, filepath.Join(store, "app.pdb", synthID, "app.pdb"), pdbBytes)
	checkNamed(t, trace, "--symbols", "cache*"+filepath.Join(dir, "unused")+";"+store)
	t.Setenv("_NT_SYMBOL_PATH", store)
	checkNamed(t, trace)
	t.Setenv("_NT_SYMBOL_PATH", "")

	// A symbol server: the first run downloads into the cache, the same
	// run with the server gone reads the cache.
	var hits int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/app.pdb/"+synthID+"/app.pdb" {
			http.NotFound(w, r)
			return
		}
		hits++
		w.Write(pdbBytes)
	}))
	cache := filepath.Join(dir, "cache")
	path := "srv*" + cache + "*" + srv.URL
	folded := mustRun(t, "stacks", trace, "--symbols", path)
	if hits != 1 || !strings.Contains(folded, "app.exe!work") {
		t.Fatalf("download: %d requests, folded:\n%s", hits, folded)
	}
	srv.Close()
	checkNamed(t, trace, "--symbols", path)
	if again := mustRun(t, "stacks", trace, "--symbols", path, "--offline"); again != folded {
		t.Errorf("from the cache:\n%s\nfirst:\n%s", again, folded)
	}
}

func TestSymbolsMismatch(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, filepath.Join(dir, "t.etl"), symTraceBytes(t, symtest.SynthGUID, 3))
	plain := mustRun(t, "stacks", trace, "--symbols", filepath.Join(dir, "nothing"))
	wrongGUID := symtest.SynthGUID
	wrongGUID[15] ^= 1
	for name, b := range map[string][]byte{
		"age":  symtest.SynthPDB(symtest.SynthGUID, 4),
		"guid": symtest.SynthPDB(wrongGUID, 3),
	} {
		flat := filepath.Join(dir, name)
		writeFile(t, filepath.Join(flat, "app.pdb"), b)
		out, errs, code := runCLI(t, "stacks", trace, "--symbols", flat)
		if code != 0 || out != plain {
			t.Errorf("wrong %s: exit %d, output:\n%s\nwant the unnamed:\n%s", name, code, out, plain)
		}
		if strings.Count(errs, "app.pdb ("+synthID+")") != 1 || !strings.Contains(errs, "1 image(s) without symbols") ||
			!strings.Contains(errs, "symbols: not used: "+filepath.Join(flat, "app.pdb")) {
			t.Errorf("wrong %s: stderr %q", name, errs)
		}
	}
}

// TestSymbolsClang names the functions of PE + PDB pairs clang and
// lld-link make (x64 and x86) in a trace whose image has the EXE's
// CodeView identity: through a folder and a store.
func TestSymbolsClang(t *testing.T) {
	for _, target := range []string{"x86_64-pc-windows-msvc", "i686-pc-windows-msvc"} {
		t.Run(strings.Split(target, "-")[0], func(t *testing.T) {
			dir := t.TempDir()
			exe, pdbPath := symtest.Build(t, dir, target, "spin", symtest.Source{Path: filepath.Join("testdata", "symbols", "spin.c"), Debug: true})
			pf, err := pe.Open(exe)
			if err != nil {
				t.Fatal(err)
			}
			cv, err := pf.CodeView()
			pf.Close()
			if err != nil {
				t.Fatal(err)
			}
			f, err := pdb.Open(pdbPath)
			if err != nil {
				t.Fatal(err)
			}
			fns, err := f.Functions()
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			rva := map[string]uint64{}
			for _, fn := range fns {
				if fn.HasRVA {
					rva[fn.Name] = uint64(fn.RVA)
				}
			}
			for _, n := range []string{"leaf", "middle", "main"} {
				if rva[n] == 0 {
					t.Fatalf("no function %s in %s: %+v", n, pdbPath, fns)
				}
			}
			trace := writeFile(t, filepath.Join(dir, "t.etl"), symTrace(t, "spin", cv.GUID, cv.Age,
				[]uint64{rva["leaf"] + 2, rva["middle"] + 4, rva["main"] + 4},
				[]uint64{rva["leaf"] + 3, rva["middle"] + 4, rva["main"] + 4},
				[]uint64{rva["middle"] + 1, rva["main"] + 4}))
			t.Setenv("_NT_SYMBOL_PATH", "")
			store := filepath.Join(dir, "store")
			id := fmt.Sprintf("%s%X", pdb.GUID(cv.GUID).Hex(), cv.Age)
			raw, err := os.ReadFile(pdbPath)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(store, "spin.pdb", id, "spin.pdb"), raw)
			for _, sym := range []string{dir, store} {
				folded := mustRun(t, "stacks", trace, "--symbols", sym)
				if !strings.Contains(folded, "spin (100);spin.exe!main;spin.exe!middle;spin.exe!leaf 2\n") ||
					!strings.Contains(folded, "spin (100);spin.exe!main;spin.exe!middle 1\n") {
					t.Errorf("folded through %s:\n%s", sym, folded)
				}
				prof := filepath.Join(dir, "p.pb.gz")
				mustRun(t, "stacks", trace, "--format", "pprof", "-o", prof, "-y", "--symbols", sym)
				if top := goPprof(t, prof, "-top"); !strings.Contains(top, " leaf") || !strings.Contains(top, " middle") {
					t.Errorf("pprof -top through %s:\n%s", sym, top)
				}
				if lines := goPprof(t, prof, "-traces", "-lines"); !strings.Contains(lines, "spin.c:") {
					t.Errorf("pprof -traces -lines through %s:\n%s", sym, lines)
				}
				rep := mustRun(t, "report", trace, "--json", "-o", "-", "--symbols", sym)
				if !strings.Contains(rep, "spin.exe!leaf") || !strings.Contains(rep, "spin.exe!middle") {
					t.Errorf("report through %s names no function:\n%.2000s", sym, rep)
				}
			}
		})
	}
}

// tmfAnnotations splits a TMF file into the annotations WPP's
// preprocessor writes: per message, "TMF:", the provider's GUID line, the
// #typev line and its argument block.
func tmfAnnotations(t *testing.T, tmf string) [][]string {
	t.Helper()
	var anns [][]string
	var guidLine string
	var cur []string
	for _, l := range strings.Split(strings.ReplaceAll(tmf, "\r\n", "\n"), "\n") {
		switch {
		case l == "" || strings.HasPrefix(l, "//"):
		case strings.HasPrefix(l, "#typev"):
			cur = []string{"TMF:", guidLine, l}
		case cur != nil:
			cur = append(cur, l)
			if l == "}" {
				anns, cur = append(anns, cur), nil
			}
		default:
			guidLine = l
		}
	}
	if len(anns) != 7 {
		t.Fatalf("%d messages in the TMF, want 7", len(anns))
	}
	return anns
}

// TestWPPFromPDB decodes the WPP fixture with its message formats taken
// from a PDB's TMF annotations (tracerpt's -pdb, or -import FILE.pdb):
// the same output as with the .tmf.
func TestWPPFromPDB(t *testing.T) {
	tmf := fixturePath(t, "wpp.tmf")
	raw, err := os.ReadFile(tmf)
	if err != nil {
		t.Fatal(err)
	}
	pdbPath := writeFile(t, filepath.Join(t.TempDir(), "fixture.pdb"), symtest.SynthPDBAnnotations(symtest.SynthGUID, 1, tmfAnnotations(t, string(raw))))
	trace := fixturePath(t, "wpp.etl")
	want := mustRun(t, trace, "-tmf", tmf, "-of", "CSV", "-o", "-")
	if bare := mustRun(t, trace, "-of", "CSV", "-o", "-"); !strings.Contains(want, `"driver loaded"`) || bare == want {
		t.Fatalf("the .tmf decodes nothing:\n%s", want)
	}
	for _, args := range [][]string{{"-pdb", pdbPath}, {"-import", pdbPath}} {
		if got := mustRun(t, append([]string{trace, "-of", "CSV", "-o", "-"}, args...)...); got != want {
			t.Errorf("with %q:\n%s\nwith the .tmf:\n%s", args, got, want)
		}
	}
	// A TMF annotation that does not parse is skipped with a warning
	// naming it; a PDB without TMF annotations is no schema file.
	dir := t.TempDir()
	bad := writeFile(t, filepath.Join(dir, "bad.pdb"), symtest.SynthPDB(symtest.SynthGUID, 1))
	if _, errs, code := runCLI(t, trace, "-pdb", bad, "-of", "CSV", "-o", "-", "-v"); code != 0 || !strings.Contains(errs, "bad.pdb: TMF annotation at 0001:00000018") {
		t.Errorf("a bad TMF annotation: exit %d, %q", code, errs)
	}
	plain := writeFile(t, filepath.Join(dir, "plain.pdb"), symtest.SynthPDBAnnotations(symtest.SynthGUID, 1, [][]string{{"note", "x"}}))
	if _, errs, code := runCLI(t, trace, "-pdb", plain, "-of", "CSV", "-o", "-"); code != exitMalformed || !strings.Contains(errs, "plain.pdb: not a manifest") {
		t.Errorf("a PDB without TMF: exit %d, %q", code, errs)
	}
}
