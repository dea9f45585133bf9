package analysis_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/etwkit/etw/analysis"
)

// fakeSymbols names ntdll's code by 0x1000-byte functions; it knows no
// other image.
type fakeSymbols struct{ asked []analysis.ImageID }

func (s *fakeSymbols) Symbolize(im analysis.ImageID, rva uint64) (analysis.Symbol, bool) {
	s.asked = append(s.asked, im)
	if im.File != "ntdll.dll" {
		return analysis.Symbol{}, false
	}
	fn := "Rtl" + strings.ToUpper(string(rune('A'+rva/0x1000%26)))
	return analysis.Symbol{Function: fn, Offset: rva % 0x1000, File: `d:\rtl\` + fn + ".c", Line: int(rva / 0x1000)}, true
}

func TestSymbolizer(t *testing.T) {
	files, dec, m := buildExample(t)
	// Without a symbolizer: module-level names, synthetic pprof names.
	f := m.ResolveFrame(appPID, ntdllBase+0x1010, traceStart)
	if f.Symbol != nil || f.Name() != "ntdll.dll" || analysis.FunctionName(&f) != "ntdll.dll!0x1010" || f.HasFunction() {
		t.Errorf("unsymbolized: %+v %q %q", f, f.Name(), analysis.FunctionName(&f))
	}
	syms := &fakeSymbols{}
	m.SetSymbolizer(syms)
	defer m.SetSymbolizer(nil)
	f = m.ResolveFrame(appPID, ntdllBase+0x1010, traceStart)
	if f.Symbol == nil || f.Name() != "ntdll.dll!RtlB" || analysis.FunctionName(&f) != "RtlB" || f.Symbol.Offset != 0x10 ||
		string(f.AppendFunction(nil)) != "RtlB" {
		t.Fatalf("symbolized: %+v %q %q", f, f.Name(), analysis.FunctionName(&f))
	}
	if id := syms.asked[len(syms.asked)-1]; id.PDB.Name != "ntdll.pdb" || id.PDB.GUID != ntdllPDBGUID || id.PDB.Age != 2 {
		t.Errorf("image identity %+v", id)
	}
	// Managed code keeps its method; images the symbolizer does not know
	// keep their module name.
	if f := m.ResolveFrame(appPID, workStart+0x10, traceStart.Add(500e3)); f.Symbol != nil || f.Name() != "App.Program.Work" {
		t.Errorf("managed: %+v %q", f, f.Name())
	}
	if f := m.ResolveFrame(appPID, appBase+0x100, traceStart); f.Symbol != nil || f.Name() != "app.exe" {
		t.Errorf("app: %+v %q", f, f.Name())
	}

	// Profiles name the functions; pprof says which mappings have them.
	var folded bytes.Buffer
	p, _, err := m.Collect(files, dec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WriteFolded(&folded); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(folded.String(), "ntdll.dll!RtlB;app.exe") {
		t.Errorf("folded:\n%s", folded.String())
	}
	pp, _, err := m.CollectPprof(files, dec, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, l := range pp.Location {
		if l.Mapping == nil {
			continue
		}
		name := l.Line[0].Function.Name
		switch {
		case strings.HasSuffix(l.Mapping.File, "ntdll.dll"):
			seen++
			if !l.Mapping.HasFunctions || !strings.HasPrefix(name, "Rtl") || l.Line[0].Line == 0 || l.Line[0].Function.Filename == "" {
				t.Errorf("ntdll location %s %+v %+v", name, l.Line[0], l.Mapping)
			}
		case l.Mapping.HasFunctions:
			t.Errorf("mapping %s has synthetic names (%s) but says it has functions", l.Mapping.File, name)
		}
	}
	if seen == 0 {
		t.Error("no ntdll location")
	}
}
