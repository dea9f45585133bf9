// Package symtest holds test helpers for PDB symbols: where the real
// PDBs are (ETL_SYMBOLS), clang-cl/lld-link builds of PE + PDB pairs, and
// a reader of llvm-pdbutil's dump, the independent reference.
package symtest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/etwkit/etw/internal/etltest"
)

// Dir returns the folder of real PDB files: ETL_SYMBOLS, else
// $ETL_CORPUS/../symbols. It skips the test when neither is set or the
// folder next to the corpus is missing.
func Dir(t testing.TB) string {
	t.Helper()
	return etltest.SharedDir(t, "ETL_SYMBOLS", "symbols", "real PDB files")
}

// File returns the path of a file of [Dir] (rel slash-separated); a
// missing file fails the test: a symbols folder that exists must be
// complete.
func File(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(Dir(t), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("symbols file %s: %v", rel, err)
	}
	return p
}

// Source is one file to compile; Debug false compiles it without debug
// information, so that its functions have publics only.
type Source struct {
	Path  string
	Debug bool
}

// Build compiles sources with clang for target ("x86_64-pc-windows-msvc",
// "i686-pc-windows-msvc") and links them with lld-link into dir, entry
// point main. It returns the paths of the EXE and its PDB, and skips the
// test when clang or lld-link is missing.
func Build(t testing.TB, dir, target, name string, sources ...Source) (exe, pdb string) {
	t.Helper()
	for _, tool := range []string{"clang", "lld-link"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: no PE + PDB pair is built (apt-get install clang lld)", tool)
		}
	}
	var objs []string
	for i, s := range sources {
		obj := filepath.Join(dir, fmt.Sprintf("%s%d.obj", name, i))
		args := []string{"--target=" + target, "-fno-exceptions", "-fno-stack-protector", "-c", s.Path, "-o", obj}
		if s.Debug {
			args = append(args, "-g", "-gcodeview")
		}
		run(t, "clang", args...)
		objs = append(objs, obj)
	}
	exe = filepath.Join(dir, name+".exe")
	pdb = filepath.Join(dir, name+".pdb")
	args := append([]string{"/debug", "/entry:main", "/nodefaultlib", "/subsystem:console", "/out:" + exe, "/pdb:" + pdb}, objs...)
	run(t, "lld-link", args...)
	return exe, pdb
}

func run(t testing.TB, name string, args ...string) {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// Dump is what llvm-pdbutil prints of a PDB (dump -summary -publics
// -symbols -l -section-headers).
type Dump struct {
	GUID     string // "{…}"
	Age      uint32
	Sections []DumpSection
	Publics  []DumpPublic
	// Functions and Lines by module index.
	Functions map[int][]DumpFunction
	Lines     map[int][]DumpLines
}

// DumpSection is a section header.
type DumpSection struct {
	Name                        string
	VirtualSize, VirtualAddress uint32
}

// DumpPublic is an S_PUB32 record.
type DumpPublic struct {
	Name    string
	Section uint16
	Offset  uint32
}

// DumpFunction is a procedure or thunk record.
type DumpFunction struct {
	Kind         string // "S_GPROC32", …
	Name         string
	RecordOffset uint32
	Section      uint16
	Offset       uint32
	Size         uint32
}

// DumpLines is one file's block of a line subsection.
type DumpLines struct {
	File       string
	Section    uint16
	Start, End uint32
	Lines      []DumpLine
}

// DumpLine is one line entry; Line is 0xFEEFEE where llvm-pdbutil prints
// "ASI" and 0xF00F00 where it prints "NSI" (the special line numbers, as
// its output for CppCon.pdb pairs them).
type DumpLine struct {
	Line   uint32
	Offset uint32
}

// LLVMDump runs llvm-pdbutil on a PDB and reads its dump. It skips the
// test when llvm-pdbutil is missing.
func LLVMDump(t testing.TB, pdb string) *Dump {
	t.Helper()
	if _, err := exec.LookPath("llvm-pdbutil"); err != nil {
		t.Skip("llvm-pdbutil not installed (Debian package llvm): no reference to compare with")
	}
	out, err := exec.Command("llvm-pdbutil", "dump", "-summary", "-publics", "-symbols", "-l", "-section-headers", pdb).Output()
	if err != nil {
		t.Fatalf("llvm-pdbutil %s: %v", pdb, err)
	}
	d, err := ParseDump(out)
	if err != nil {
		t.Fatalf("llvm-pdbutil %s: %v", pdb, err)
	}
	return d
}

var procKinds = map[string]bool{
	"S_GPROC32": true, "S_LPROC32": true, "S_GPROC32_ID": true, "S_LPROC32_ID": true,
	"S_LPROC32_DPC": true, "S_LPROC32_DPC_ID": true, "S_THUNK32": true,
}

// ParseDump reads llvm-pdbutil's text.
func ParseDump(out []byte) (*Dump, error) {
	d := &Dump{Functions: map[int][]DumpFunction{}, Lines: map[int][]DumpLines{}}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	section := ""
	mod := -1
	var curFile string
	var curBlock *DumpLines
	var curSec *DumpSection
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "=====") {
			section = l
			mod = -1
			continue
		}
		if strings.HasPrefix(l, "Mod ") {
			if f := strings.Fields(l); len(f) > 1 {
				v, err := strconv.Atoi(f[1])
				if err != nil {
					return nil, fmt.Errorf("line %d: %q", i+1, l)
				}
				mod = v
				curFile, curBlock = "", nil
			}
			continue
		}
		switch section {
		case "Summary":
			if v, ok := strings.CutPrefix(l, "Age: "); ok {
				a, err := strconv.ParseUint(v, 10, 32)
				if err != nil {
					return nil, fmt.Errorf("line %d: %q", i+1, l)
				}
				d.Age = uint32(a)
			}
			if v, ok := strings.CutPrefix(l, "GUID: "); ok {
				d.GUID = v
			}
		case "Public Symbols":
			if kind, name, _, ok := record(l); ok && kind == "S_PUB32" && i+1 < len(lines) {
				sec, off, err := segOff(lines[i+1], "addr = ")
				if err != nil {
					return nil, fmt.Errorf("line %d: %v", i+2, err)
				}
				d.Publics = append(d.Publics, DumpPublic{Name: name, Section: sec, Offset: off})
			}
		case "Symbols":
			kind, name, recOff, ok := record(l)
			if !ok || !procKinds[kind] {
				continue
			}
			fn := DumpFunction{Kind: kind, Name: name, RecordOffset: recOff}
			detail := strings.TrimSpace(lines[i+1])
			if kind == "S_THUNK32" {
				detail = strings.TrimSpace(lines[i+2])
			}
			var err error
			fn.Section, fn.Offset, err = segOff(detail, "addr = ")
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", i+2, err)
			}
			key := "code size = "
			if kind == "S_THUNK32" {
				key = "size = "
			}
			fn.Size, err = field(detail, key)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", i+2, err)
			}
			d.Functions[mod] = append(d.Functions[mod], fn)
		case "Lines":
			if strings.HasSuffix(l, ")") && strings.Contains(l, " (") && !strings.HasPrefix(l, "0") {
				curFile = l[:strings.LastIndex(l, " (")]
				continue
			}
			if strings.Contains(l, "addr entries = ") {
				var sec uint16
				var start, end uint32
				if _, err := fmt.Sscanf(l, "%x:%x-%x,", &sec, &start, &end); err != nil {
					return nil, fmt.Errorf("line %d: %q: %v", i+1, l, err)
				}
				d.Lines[mod] = append(d.Lines[mod], DumpLines{File: curFile, Section: sec, Start: start, End: end})
				curBlock = &d.Lines[mod][len(d.Lines[mod])-1]
				continue
			}
			if curBlock == nil || l == "" {
				continue
			}
			f := strings.Fields(l)
			for k := 0; k+1 < len(f); {
				var ln uint64
				switch f[k] {
				case "ASI":
					ln = 0xFEEFEE
				case "NSI":
					ln = 0xF00F00
				default:
					v, err := strconv.ParseUint(f[k], 10, 32)
					if err != nil {
						return nil, fmt.Errorf("line %d: %q: %v", i+1, l, err)
					}
					ln = v
				}
				off, err := strconv.ParseUint(f[k+1], 16, 32)
				if err != nil {
					return nil, fmt.Errorf("line %d: %q: %v", i+1, l, err)
				}
				curBlock.Lines = append(curBlock.Lines, DumpLine{Line: uint32(ln), Offset: uint32(off)})
				k += 2
				if k < len(f) && f[k] == "!" {
					k++
				}
			}
		case "Section Headers":
			f := strings.Fields(l)
			switch {
			case strings.HasPrefix(l, "SECTION HEADER #"):
				d.Sections = append(d.Sections, DumpSection{})
				curSec = &d.Sections[len(d.Sections)-1]
			case curSec != nil && len(f) == 2 && f[1] == "name":
				curSec.Name = f[0]
			case curSec != nil && strings.HasSuffix(l, "virtual size"):
				v, err := strconv.ParseUint(f[0], 16, 32)
				if err != nil {
					return nil, fmt.Errorf("line %d: %q", i+1, l)
				}
				curSec.VirtualSize = uint32(v)
			case curSec != nil && strings.HasSuffix(l, "virtual address"):
				v, err := strconv.ParseUint(f[0], 16, 32)
				if err != nil {
					return nil, fmt.Errorf("line %d: %q", i+1, l)
				}
				curSec.VirtualAddress = uint32(v)
			}
		}
	}
	if d.GUID == "" {
		return nil, fmt.Errorf("no GUID in the summary")
	}
	return d, nil
}

// record reads "OFF | KIND [size = N] `name`".
func record(l string) (kind, name string, off uint32, ok bool) {
	bar := strings.Index(l, " | ")
	if bar < 0 {
		return "", "", 0, false
	}
	v, err := strconv.ParseUint(strings.TrimSpace(l[:bar]), 10, 32)
	if err != nil {
		return "", "", 0, false
	}
	rest := l[bar+3:]
	sp := strings.IndexByte(rest, ' ')
	if sp < 0 {
		return "", "", 0, false
	}
	kind = rest[:sp]
	if a, b := strings.IndexByte(rest, '`'), strings.LastIndexByte(rest, '`'); a >= 0 && b > a {
		name = rest[a+1 : b]
	}
	return kind, name, uint32(v), true
}

// segOff reads "SSSS:OOOO" (decimal) after key.
func segOff(l, key string) (uint16, uint32, error) {
	i := strings.Index(l, key)
	if i < 0 {
		return 0, 0, fmt.Errorf("no %q in %q", key, l)
	}
	var sec uint16
	var off uint32
	if _, err := fmt.Sscanf(l[i+len(key):], "%d:%d", &sec, &off); err != nil {
		return 0, 0, fmt.Errorf("%q: %v", l, err)
	}
	return sec, off, nil
}

// field reads the decimal number after key.
func field(l, key string) (uint32, error) {
	i := strings.Index(l, key)
	if i < 0 {
		return 0, fmt.Errorf("no %q in %q", key, l)
	}
	s := l[i+len(key):]
	if j := strings.IndexAny(s, ", "); j >= 0 {
		s = s[:j]
	}
	v, err := strconv.ParseUint(s, 10, 32)
	return uint32(v), err
}
