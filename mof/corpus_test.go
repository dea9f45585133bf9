package mof

import (
	"encoding/xml"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/tdh"
	"github.com/google/uuid"
)

// schemasDir returns the schema folder next to the corpus.
func schemasDir(t testing.TB) string {
	return filepath.Join(etltest.CorpusDir(t), "..", "schemas")
}

func isKernelRecord(h etl.HeaderType) bool {
	switch h {
	case etl.HeaderSystem32, etl.HeaderSystem64, etl.HeaderCompact32, etl.HeaderCompact64, etl.HeaderPerfInfo32, etl.HeaderPerfInfo64:
		return true
	}
	return false
}

// TestCorpusMOFFiles parses and compiles every .mof file of the schema
// folder.
func TestCorpusMOFFiles(t *testing.T) {
	dir := schemasDir(t)
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".mof") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 12 {
		t.Fatalf("found %d .mof files under %s", len(files), dir)
	}
	for _, p := range files {
		rel, _ := filepath.Rel(dir, p)
		f, err := ParseFile(p)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		evs, errs := f.Schemas()
		eventTypeClasses := 0
		for _, c := range f.Classes {
			if c.Qualifier("EventType") != nil {
				eventTypeClasses++
			}
		}
		t.Logf("%-55s %4d classes, %3d event type classes, %4d schemas, %d errors", rel, len(f.Classes), eventTypeClasses, len(evs), len(errs))
		for _, err := range errs {
			t.Errorf("%s: %v", rel, err)
		}
		if strings.Contains(rel, "wmicore") && !strings.Contains(rel, "w2k") && len(evs) < 50 {
			t.Errorf("%s: only %d schemas", rel, len(evs))
		}
	}
}

// TestKernelTableMatchesWmicore compares the built-in kernel table with
// the schemas compiled from the newest wmicore.mof, the source of the
// facts it was written from; the differences must be the deliberate ones
// listed in kernel_table.go.
func TestKernelTableMatchesWmicore(t *testing.T) {
	f, err := ParseFile(filepath.Join(schemasDir(t), "mof", "wmicore", "wmicore.qemu_exploration.mof"))
	if err != nil {
		t.Fatal(err)
	}
	evs, errs := f.Schemas()
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	fromMOF := map[schemaKey]*tdh.Event{}
	for _, e := range evs {
		if e.ProviderName == KernelProviderName {
			fromMOF[schemaKey{e.ProviderGUID, uint8(e.ID), e.Version}] = e
		}
	}
	// Deliberate differences: key → reason.
	expected := map[string]string{}
	for _, typ := range []int{1, 2, 3, 4} {
		expected[fmt.Sprintf("Thread/%d/v3", typ)] = "optional ThreadName"
	}
	expected["Thread/61/v2"] = "1-byte IdealProcessorAdjust"
	expected["EventTrace/80/v2"] = "GUID layout first, string layout as the alternate"
	expected["StackWalk/32/v2"] = "Stack1…Stack192"
	for _, typ := range []int{34, 35, 36} {
		expected[fmt.Sprintf("StackWalk/%d/v2", typ)] = "StackFrame[] to the end"
	}
	builtinKeys := map[schemaKey]bool{}
	same, differ := 0, 0
	for _, b := range KernelSchemas() {
		if b.ProviderName != KernelProviderName {
			continue
		}
		k := schemaKey{b.ProviderGUID, uint8(b.ID), b.Version}
		builtinKeys[k] = true
		name := fmt.Sprintf("%s/%d/v%d", b.EventName, b.ID, b.Version)
		m := fromMOF[k]
		if m == nil {
			if b.EventName == "Image" && b.Version <= 1 && b.ID != 10 {
				continue // v0/v1 UnLoad/DCStart/DCEnd reuse the Load layout
			}
			if !olderKeys(t)[k] {
				t.Errorf("%s: built in, in no wmicore.mof", name)
			}
			continue
		}
		if name == "EventTrace/80/v2" {
			alts := Alternates(b)
			if len(alts) != 1 || alts[0].OpcodeName != m.OpcodeName || diffProps(alts[0].Properties, m.Properties) != "" {
				t.Errorf("%s: the alternate layout is not wmicore.mof's %s", name, m.OpcodeName)
			}
		} else if b.EventName != m.EventName || b.OpcodeName != m.OpcodeName {
			t.Errorf("%s: names %s/%s, wmicore.mof %s/%s", name, b.EventName, b.OpcodeName, m.EventName, m.OpcodeName)
		}
		if d := diffProps(b.Properties, m.Properties); d != "" {
			if reason, ok := expected[name]; ok {
				t.Logf("%s differs as intended (%s): %s", name, reason, d)
				delete(expected, name)
				differ++
			} else {
				t.Errorf("%s: %s", name, d)
			}
			continue
		}
		same++
	}
	for name := range expected {
		t.Errorf("%s: expected a deliberate difference, found none", name)
	}
	for k, m := range fromMOF {
		if !builtinKeys[k] {
			t.Errorf("wmicore.mof %s/%d/v%d (%s) is not built in", m.EventName, m.ID, m.Version, m.OpcodeName)
		}
	}
	t.Logf("%d built-in kernel schemas equal wmicore.mof's, %d differ as intended", same, differ)
}

// olderMOFs are the wmicore.mof files of releases before the newest.
var olderMOFs = []string{"wmicore.sdk-10.0.16299.0.mof", "wmicore.sdk-10.0.14393.0.mof", "wmicore.sdk-10.0.10240.0.mof",
	"wmicore.wdk-7600.16385.1.mof", "wmicore.ddk-3790.1830-wnet.mof", "wmicore.ddk-3790.1830-wxp.mof"}

var olderSchemas map[string][]*tdh.Event

// olderKernelSchemas compiles the kernel classes of olderMOFs.
func olderKernelSchemas(t *testing.T) map[string][]*tdh.Event {
	if olderSchemas != nil {
		return olderSchemas
	}
	out := map[string][]*tdh.Event{}
	for _, n := range olderMOFs {
		f, err := ParseFile(filepath.Join(schemasDir(t), "mof", "wmicore", n))
		if err != nil {
			t.Fatal(err)
		}
		evs, errs := f.Schemas()
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		for _, e := range evs {
			if e.ProviderName == KernelProviderName {
				out[n] = append(out[n], e)
			}
		}
	}
	olderSchemas = out
	return out
}

func olderKeys(t *testing.T) map[schemaKey]bool {
	keys := map[schemaKey]bool{}
	for _, evs := range olderKernelSchemas(t) {
		for _, e := range evs {
			keys[schemaKey{e.ProviderGUID, uint8(e.ID), e.Version}] = true
		}
	}
	return keys
}

// layout describes the payload encoding of a property list (sizes and
// encodings, not names or display), so that layouts can be compared.
func layout(props []tdh.Property) string {
	var sb strings.Builder
	for i := range props {
		p := &props[i]
		switch n := p.InType.FixedSize(8); {
		case p.IsStruct():
			sb.WriteString("{" + layout(p.Members) + "}")
		case p.InType == tdh.InTypePointer || p.InType == tdh.InTypeSizeT:
			sb.WriteString("P")
		case n > 0 && p.InType != tdh.InTypeGUID:
			fmt.Fprintf(&sb, "%d", n)
		default:
			sb.WriteString(p.InType.String())
		}
		if p.IsArray {
			fmt.Fprintf(&sb, "[%d,%d]", p.Count, p.CountIndex)
		}
		if p.Length > 0 || p.LengthIndex >= 0 {
			fmt.Fprintf(&sb, "(%d,%d)", p.Length, p.LengthIndex)
		}
		sb.WriteByte(';')
	}
	return sb.String()
}

// TestKernelTableCoversOlderWmicore checks that every kernel event type
// of the older wmicore.mof files decodes with a built-in layout: the
// primary one or an alternate of the same type and version.
func TestKernelTableCoversOlderWmicore(t *testing.T) {
	k := builtin()
	// Layout differences that change no size, only how bytes split into
	// fields: both decode the same payloads.
	known := map[string]string{
		"PerfInfo/67/v2":     "Windows 7 splits ReturnValue u8, Vector u8, Reserved u16; newer u8, u16, u8",
		"PerfInfo/95/v2":     "as type 67",
		"PerfInfo/50/v2":     "as type 67",
		"EventTrace/0/v0":    "Server 2003's MOF lists the header without the two strings that always follow",
		"Thread/67/v2":       "Windows 10 1507 splits BoostBitmap u32 into two u16",
		"SystemConfig/16/v0": "Server 2003's S1…S5 are MOF booleans (4 bytes to TDH) for kernel BOOLEANs (1 byte, the 8-byte layout of newer MOFs)",
		"SystemConfig/11/v0": "Server 2003's WriteCacheEnabled boolean: a 1-byte BOOLEAN here",
	}
	checked := 0
	for _, n := range olderMOFs {
		for _, m := range olderKernelSchemas(t)[n] {
			name := fmt.Sprintf("%s/%d/v%d", m.EventName, m.ID, m.Version)
			key := schemaKey{m.ProviderGUID, uint8(m.ID), m.Version}
			b := k.byKey[key]
			if b == nil {
				t.Errorf("%s: %s (%s) is not built in", n, name, m.OpcodeName)
				continue
			}
			want := layout(m.Properties)
			found := layout(b.Properties) == want
			for _, a := range b.Alternates {
				found = found || layout(a.Properties) == want
			}
			checked++
			switch {
			case found:
			case len(b.Properties) > 0 && b.Properties[0].Optional || strings.HasPrefix(name, "StackWalk/"):
				// Stack frames: variable count by design.
			case name == "Thread/1/v3" || name == "Thread/2/v3" || name == "Thread/3/v3" || name == "Thread/4/v3":
				// The optional ThreadName decodes the MOF's layout too.
			case known[name] != "":
				t.Logf("%s: %s differs: %s", n, name, known[name])
			default:
				t.Errorf("%s: %s (%s): layout %s is neither the built-in %s nor an alternate", n, name, m.OpcodeName, want, layout(b.Properties))
			}
		}
	}
	t.Logf("%d event types of %d older wmicore.mof files checked", checked, len(olderMOFs))
}

// diffProps describes the first difference between two property lists.
func diffProps(a, b []tdh.Property) string {
	for i := 0; i < len(a) || i < len(b); i++ {
		if i >= len(a) {
			return fmt.Sprintf("missing %s", b[i].Name)
		}
		if i >= len(b) {
			return fmt.Sprintf("extra %s", a[i].Name)
		}
		x, y := &a[i], &b[i]
		if x.Name != y.Name || x.InType != y.InType || x.EffectiveOutType() != y.EffectiveOutType() || x.IsArray != y.IsArray ||
			x.Count != y.Count || x.CountIndex != y.CountIndex || x.Length != y.Length || x.LengthIndex != y.LengthIndex {
			return fmt.Sprintf("property %d: %s %v/%v %v[%d,%d] vs %s %v/%v %v[%d,%d]", i, x.Name, x.InType, x.EffectiveOutType(), x.IsArray, x.Count, x.CountIndex,
				y.Name, y.InType, y.EffectiveOutType(), y.IsArray, y.Count, y.CountIndex)
		}
		if d := diffProps(x.Members, y.Members); d != "" {
			return x.Name + ": " + d
		}
	}
	return ""
}

type triple struct {
	group   uuid.UUID
	typ     uint8
	version uint8
}

// TestCorpusShutdownPerfDiagLogger decodes every SYSTEM/PERFINFO record
// of a Windows 10 1903 kernel trace with the built-in schemas, looked up
// as the brief describes and decoded with a plain tdh.Decoder: the share
// decoded without error and without bytes left over must be 99 % or
// more.
func TestCorpusShutdownPerfDiagLogger(t *testing.T) {
	path := etltest.CorpusFile(t, "airbus-cert+etl-parser/tests/example/ShutdownPerfDiagLogger.etl")
	reg := tdh.NewRegistry()
	RegisterKernel(reg)
	var dec tdh.Decoder
	var mdec Decoder
	total, ok, okMOF := 0, 0, 0
	rest := map[triple]int{}
	etltest.ForEachEvent(t, path, func(_ *etl.File, ev *etl.Event) {
		if !isKernelRecord(ev.Header) {
			return
		}
		total++
		k := triple{ev.ProviderID, ev.Descriptor.Opcode, ev.Descriptor.Version}
		s, found := reg.Lookup(ev.ProviderID, uint16(ev.Descriptor.Opcode), ev.Descriptor.Version)
		if !found {
			rest[k]++
			return
		}
		if d, err := dec.Decode(s, ev.UserData, ev.PointerSize()); err == nil && len(d.Extra) == 0 {
			ok++
		} else {
			rest[k]++
		}
		if d, err := mdec.Decode(s, ev.UserData, ev.PointerSize()); err == nil && len(d.Extra) == 0 {
			okMOF++
		}
	})
	share := float64(ok) / float64(total)
	t.Logf("%d kernel records, %d (%.3f %%) decoded by tdh.Decoder, %d by mof.Decoder", total, ok, 100*share, okMOF)
	for k, n := range rest {
		t.Logf("not decoded: group %v type %d version %d: %d records", k.group, k.typ, k.version, n)
	}
	if total < 17000 || share < 0.99 {
		t.Errorf("%d of %d kernel records decoded (%.3f %%), want >= 99 %%", ok, total, 100*share)
	}
}

// tracerptData reads the <Data Name=…> texts of each <Event> of a
// tracerpt XML dump.
func tracerptData(t *testing.T, path string) [][][2]string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Events []struct {
			Data []struct {
				Name string `xml:"Name,attr"`
				Text string `xml:",chardata"`
			} `xml:"EventData>Data"`
			Opcode string `xml:"RenderingInfo>Opcode"`
		} `xml:"Event"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var out [][][2]string
	for _, e := range doc.Events {
		var ev [][2]string
		for _, d := range e.Data {
			ev = append(ev, [2]string{d.Name, d.Text})
		}
		out = append(out, ev)
	}
	return out
}

// renderPrintable renders the printable top-level properties of d as
// name/text pairs, tracerpt style (MOF uint32 padding).
func renderPrintable(d *tdh.Decoded) [][2]string {
	var out [][2]string
	for i := range d.Top() {
		p := &d.Schema.Properties[i]
		if !tdh.Printable(p) {
			continue
		}
		out = append(out, [2]string{p.Name, string(tdh.AppendText(nil, d, &d.Values[i], &tdh.RenderOptions{MOFPadding: true}))})
	}
	return out
}

// TestCorpusMytraceHeader checks the EventTrace Header and
// PartitionInfoExtension events of mytrace.etl against tracerpt's XML
// dump of the same file.
func TestCorpusMytraceHeader(t *testing.T) {
	dir := "Marissa1999+Tracing-Application/"
	path := etltest.CorpusFile(t, dir+"mytrace.etl")
	want := tracerptData(t, etltest.CorpusFile(t, dir+"mytrace.xml"))
	if len(want) < 2 {
		t.Fatalf("%d events in mytrace.xml", len(want))
	}
	reg := tdh.NewRegistry()
	RegisterKernel(reg)
	var dec Decoder
	var got [][][2]string
	var names []string
	etltest.ForEachEvent(t, path, func(_ *etl.File, ev *etl.Event) {
		if ev.ProviderID != etl.EventTraceGUID {
			return
		}
		s, ok := reg.Lookup(ev.ProviderID, uint16(ev.Descriptor.Opcode), ev.Descriptor.Version)
		if !ok {
			t.Errorf("no schema for EventTrace type %d version %d", ev.Descriptor.Opcode, ev.Descriptor.Version)
			return
		}
		d, err := dec.Decode(s, ev.UserData, ev.PointerSize())
		if err != nil || len(d.Extra) != 0 {
			t.Errorf("EventTrace %s: %v, %d bytes left", s.OpcodeName, err, len(d.Extra))
			return
		}
		names = append(names, s.ProviderName+"/"+s.EventName+"/"+s.OpcodeName)
		got = append(got, renderPrintable(d))
	})
	if len(got) != 2 {
		t.Fatalf("%d EventTrace events, want 2", len(got))
	}
	if names[0] != "MSNT_SystemTrace/EventTrace/Header" || names[1] != "MSNT_SystemTrace/EventTrace/PartitionInfoExtension" {
		t.Errorf("names %v", names)
	}
	for i := 0; i < 2; i++ {
		if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
			t.Errorf("event %d:\n got %q\nwant %q", i, got[i], want[i])
		}
	}
	t.Logf("header: %d properties equal tracerpt's; PartitionInfoExtension: %d", len(got[0]), len(got[1]))
}

// TestCorpusSyzygy decodes google/syzygy's kernel log test files (classic
// Image and Process events, versions 0–3, 32- and 64-bit payloads) and
// compares every field with kernel_log_unittest_data.cc.
//
// Pointer size: every one of these files has FULL_HEADER32 records and a
// log-file header with PointerSize 4 (written on 32-bit Windows 7), also
// those whose payloads use the 64-bit layouts. Nothing in a file tells
// the two apart, and the payload length does not either: 23 of the 27
// events of image_data_64_v0.etl also fit the 32-bit layout (with a
// garbled name). syzygy's own test sets the bitness from outside
// (set_is_64_bit_log); so does this one, from the file name.
func TestCorpusSyzygy(t *testing.T) {
	dir := "google+syzygy/history/c3ca70c1b0698139198fff96400826c4cc43c804/sawbuck/log_lib/test_data/"
	reg := tdh.NewRegistry()
	RegisterKernel(reg)
	dec := Decoder{Lenient: true}
	files := 0
	for _, name := range []string{
		"image_data_32_v0", "image_data_32_v1", "image_data_32_v2", "image_data_64_v0", "image_data_64_v1", "image_data_64_v2",
		"process_data_32_v1", "process_data_32_v2", "process_data_32_v3", "process_data_64_v2", "process_data_64_v3",
	} {
		path := etltest.CorpusFile(t, dir+name+".etl")
		ptrSize := 4
		if strings.Contains(name, "_64_") {
			ptrSize = 8
		}
		var events []map[string]tdhValue
		var types []uint8
		etltest.ForEachEvent(t, path, func(f *etl.File, ev *etl.Event) {
			if ev.ProviderID == etl.EventTraceGUID {
				if f.Header.PointerSize != 4 || ev.Header != etl.HeaderSystem32 {
					t.Errorf("%s: header PointerSize %d, record %v", name, f.Header.PointerSize, ev.Header)
				}
				return
			}
			if ev.Header != etl.HeaderClassic32 || ev.PointerSize() != 4 {
				t.Errorf("%s: record %v, pointer size %d", name, ev.Header, ev.PointerSize())
			}
			s, ok := reg.Lookup(ev.ProviderID, uint16(ev.Descriptor.Opcode), ev.Descriptor.Version)
			if !ok {
				t.Errorf("%s: no schema for %v type %d version %d", name, ev.ProviderID, ev.Descriptor.Opcode, ev.Descriptor.Version)
				return
			}
			d, err := dec.Decode(s, ev.UserData, ptrSize)
			if err != nil || len(d.Extra) != 0 {
				t.Errorf("%s: %s/%s: %v (%d bytes left)", name, s.EventName, s.OpcodeName, err, len(d.Extra))
				return
			}
			events = append(events, values(d))
			types = append(types, ev.Descriptor.Opcode)
		})
		files++
		if strings.HasPrefix(name, "image") {
			checkSyzygyImages(t, name, events, types)
		} else {
			checkSyzygyProcesses(t, name, events, types)
		}
	}
	t.Logf("%d syzygy files checked", files)
}

// tdhValue is a decoded value kept beyond the decoder's next call.
type tdhValue struct {
	n    uint64
	text string
}

func values(d *tdh.Decoded) map[string]tdhValue {
	m := map[string]tdhValue{}
	for i := range d.Top() {
		v := &d.Values[i]
		n, _ := v.Uint()
		m[d.Schema.Properties[i].Name] = tdhValue{n, string(tdh.AppendText(nil, d, v, nil))}
	}
	return m
}

type syzygyModule struct {
	base, size, checksum, stamp uint64
	name                        string
}

// syzygyModules is module_list of kernel_log_unittest_data.cc.
var syzygyModules = []syzygyModule{
	{0x01160000, 0x0019E000, 0x4BA26867, 0xCAFEBABE, `C:\code\sawbuck\src\sawbuck\Debug\test_program.exe`},
	{0x76E10000, 0x00127000, 0x4791A7A6, 0x00135D86, `C:\Windows\system32\ntdll.dll`},
	{0x75680000, 0x000DB000, 0x49953395, 0x000DC23C, `C:\Windows\system32\kernel32.dll`},
	{0x73CB0000, 0x00032000, 0x4791A7B6, 0x0003A724, `C:\Windows\system32\WINMM.dll`},
	{0x76B00000, 0x000AA000, 0x4791A727, 0x000AF8AE, `C:\Windows\system32\msvcrt.dll`},
	{0x76D70000, 0x0009D000, 0x4791A773, 0x000A8708, `C:\Windows\system32\USER32.dll`},
	{0x75E00000, 0x0004B000, 0x48FD6647, 0x00049D43, `C:\Windows\system32\GDI32.dll`},
	{0x76CA0000, 0x000C6000, 0x4791A64B, 0x000C31B1, `C:\Windows\system32\ADVAPI32.dll`},
	{0x75CF0000, 0x000C2000, 0x49F0625F, 0x000C344A, `C:\Windows\system32\RPCRT4.dll`},
	{0x758E0000, 0x00144000, 0x4791A74C, 0x00146AAD, `C:\Windows\system32\ole32.dll`},
	{0x75E50000, 0x0008D000, 0x4791A74F, 0x0008FA63, `C:\Windows\system32\OLEAUT32.dll`},
	{0x73C70000, 0x00039000, 0x4791A74D, 0x0003B647, `C:\Windows\system32\OLEACC.dll`},
	{0x76F40000, 0x00058000, 0x4791A75C, 0x000574F3, `C:\Windows\system32\SHLWAPI.dll`},
	{0x75EE0000, 0x00B10000, 0x4A573229, 0x00B0EE79, `C:\Windows\system32\SHELL32.dll`},
	{0x75A30000, 0x0001E000, 0x4791A715, 0x000255A7, `C:\Windows\system32\IMM32.DLL`},
	{0x76FA0000, 0x000C8000, 0x4791A720, 0x000CCB64, `C:\Windows\system32\MSCTF.dll`},
	{0x76AA0000, 0x00009000, 0x4791A6E9, 0x0000A2B7, `C:\Windows\system32\LPK.DLL`},
	{0x769F0000, 0x0007D000, 0x4791A776, 0x0007DC08, `C:\Windows\system32\USP10.dll`},
	{0x6C2B0000, 0x00023000, 0x4AF0FA99, 0x0002647C, `C:\PROGRA~1\GOOGLE\GO333C~1\GOEC62~1.DLL`},
	{0x75DD0000, 0x0002D000, 0x4791A798, 0x0002E055, `C:\Windows\system32\WS2_32.dll`},
	{0x75DC0000, 0x00006000, 0x4791A7A4, 0x000074AE, `C:\Windows\system32\NSI.dll`},
	{0x6FA00000, 0x0003E000, 0x4AAA262F, 0x000420DE, `C:\PROGRA~1\Sophos\SOPHOS~1\SOPHOS~1.DLL`},
	{0x75670000, 0x00007000, 0x4549BD99, 0x00009AC8, `C:\Windows\system32\PSAPI.DLL`},
	{0x746A0000, 0x0019E000, 0x4791A752, 0x001A2D0F, `C:\Windows\WinSxS\x86_microsoft.windows.common-controls_6595b64144ccf1df_6.0.6001.18000_none_5cdbaa5a083979cc\comctl32.dll`},
}

// checkSyzygyImages expects every module as "is loaded" (DCStart), then
// module 0 unloaded and loaded again, as make_test_data.cc logs them.
// Versions 0 and 1 carry no checksum or time stamp (the unit test
// expects 0 for them).
func checkSyzygyImages(t *testing.T, name string, events []map[string]tdhValue, types []uint8) {
	n := len(syzygyModules)
	if len(events) != n+2 {
		t.Errorf("%s: %d image events, want %d", name, len(events), n+2)
		return
	}
	v2 := strings.HasSuffix(name, "v2")
	for i, e := range events {
		m, wantType := syzygyModules[0], uint8(3)
		switch {
		case i < n:
			m = syzygyModules[i]
		case i == n:
			wantType = 2
		default:
			wantType = 10
		}
		base, size, file := e["ImageBase"], e["ImageSize"], e["FileName"]
		if strings.HasSuffix(name, "v0") {
			base, size, file = e["BaseAddress"], e["ModuleSize"], e["ImageFileName"]
		}
		var checksum, stamp uint64
		if v2 {
			checksum, stamp = e["ImageChecksum"].n, e["TimeDateStamp"].n
		}
		wantChecksum, wantStamp := m.checksum, m.stamp
		if !v2 {
			wantChecksum, wantStamp = 0, 0
		}
		if types[i] != wantType || base.n != m.base || size.n != m.size || checksum != wantChecksum || stamp != wantStamp || file.text != m.name {
			t.Errorf("%s event %d: type %d base %#x size %#x checksum %#x stamp %#x name %q; want type %d %+v",
				name, i, types[i], base.n, size.n, checksum, stamp, file.text, wantType, m)
		}
	}
}

type syzygyProcess struct {
	pid, parent, session uint64
	sid, image, cmdline  string
}

// syzygyProcesses is process_list of kernel_log_unittest_data.cc (SIDs
// written in their S-R-I-S… form).
var syzygyProcesses = []syzygyProcess{
	{0, 0, 4294967295, "S-1-5-18", "Idle", ""},
	{4, 0, 4294967295, "S-1-5-18", "System", ""},
	{264, 4, 4294967295, "S-1-5-18", "smss.exe", `\SystemRoot\System32\smss.exe`},
	{1776, 988, 1, "S-1-5-21-753675414-103939432-3550797041-1000", "notepad.exe", `"C:\Windows\system32\notepad.exe" `},
}

// checkSyzygyProcesses expects the first three processes as "is running"
// (DCStart), the last one started (exit status STILL_ACTIVE) and ended
// (exit status 0), then the first three again as DCEnd; version 1 files
// hold only the start and the end, without a command line.
func checkSyzygyProcesses(t *testing.T, name string, events []map[string]tdhValue, types []uint8) {
	type want struct {
		typ    uint8
		p      syzygyProcess
		status uint64
	}
	const stillActive = 259
	last := syzygyProcesses[3]
	var wants []want
	v1 := strings.HasSuffix(name, "v1")
	if v1 {
		last.cmdline = ""
		wants = []want{{1, last, stillActive}, {2, last, 0}}
	} else {
		for _, p := range syzygyProcesses[:3] {
			wants = append(wants, want{3, p, stillActive})
		}
		wants = append(wants, want{1, last, stillActive}, want{2, last, 0})
		for _, p := range syzygyProcesses[:3] {
			wants = append(wants, want{4, p, stillActive})
		}
	}
	if len(events) != len(wants) {
		t.Errorf("%s: %d process events, want %d", name, len(events), len(wants))
		return
	}
	for i, w := range wants {
		e := events[i]
		cmd := e["CommandLine"].text
		if types[i] != w.typ || e["ProcessId"].n != w.p.pid || e["ParentId"].n != w.p.parent || e["SessionId"].n != w.p.session ||
			e["ExitStatus"].n != w.status || e["UserSID"].text != w.p.sid || e["ImageFileName"].text != w.p.image || cmd != w.p.cmdline {
			t.Errorf("%s event %d: type %d pid %d parent %d session %d status %d sid %s image %q cmd %q; want %+v",
				name, i, types[i], e["ProcessId"].n, e["ParentId"].n, e["SessionId"].n, e["ExitStatus"].n, e["UserSID"].text,
				e["ImageFileName"].text, cmd, w)
		}
	}
}

// traceEventName names a decoded kernel event the way TraceEvent does
// ("Windows Kernel/Process/Stop"), as far as the baseline uses the name.
func traceEventName(s *tdh.Event) string {
	class, op := s.EventName, s.OpcodeName
	provider := "Windows Kernel"
	if s.ProviderName == "KernelTraceControl" {
		if class == "SysConfig" {
			provider = "Windows Kernel"
		} else {
			provider = "KernelTraceControl"
		}
	}
	switch class {
	case "DiskIo":
		class = "DiskIO"
	case "PageFault":
		class = "Memory"
	case "FileIo":
		class = "FileIO"
	}
	switch op {
	case "End":
		op = "Stop"
	case "DCEnd":
		op = "DCStop"
	case "UnLoad":
		op = "Unload"
	case "SampleProf":
		op = "Sample"
	case "RDComplete":
		op = "RundownComplete"
	case "Header", "Info":
		op = ""
	case "SendIPV4", "RecvIPV4":
		if class == "UdpIp" {
			op = strings.TrimSuffix(op, "IPV4")
		}
	}
	// Events TraceEvent has no parser for keep the MOF provider name.
	switch class + "/" + op {
	case "Image/KernelBase", "SystemConfig/Platform":
		provider = KernelProviderName
	}
	if op == "" {
		return provider + "/" + class
	}
	return provider + "/" + class + "/" + op
}

// noSchemaNames are TraceEvent's names of the KernelTraceControl events
// that have no built-in layout (TraceEvent gives them no fields either).
var noSchemaNames = map[string]string{
	"bbccf6c1-6cd1-48c4-80ff-839482e37671/32": "KernelTraceControl/MetaData/EventInfo",
	"bbccf6c1-6cd1-48c4-80ff-839482e37671/33": "KernelTraceControl/MetaData/EventMapInfo",
	"9b79ee91-b5fd-41c0-a243-4248e266e9d0/37": "Windows Kernel/SysConfig/Opcode(37)",
}

// traceLogKeepsSample reports whether TraceEvent's TraceLog delivers a
// PerfInfo SampleProf event: it drops the samples of thread 0 (the idle
// loop) unless the processor was running a DPC or an ISR
// ("data.ThreadID == 0 && !data.NonProcess" in TraceLog.cs). The two
// flags are bits 0 (DPC) and 1 (ISR) of the payload byte at pointer size
// + 6, the low byte of the Reserved field (Windows 8 and later).
func traceLogKeepsSample(payload []byte, ptrSize int, tid uint64) bool {
	if tid != 0 {
		return true
	}
	return len(payload) > ptrSize+6 && payload[ptrSize+6]&3 != 0
}

// notInNet452Baseline are the kernel events of net.4.5.2.x64.etl that
// TraceEvent's TraceLog does not deliver, so that the baseline has no
// COUNT line for them, with our counts and the reason.
var notInNet452Baseline = map[string]struct {
	n      int
	reason string
}{
	// TraceLog.cs marks FileIONameTraceData, Thread DCStart and Thread
	// DCStop "bookkeeping" events, removed from the stream once their
	// names and times are in its tables.
	"Windows Kernel/FileIO/FileCreate":  {16, "bookkeeping (FileIONameTraceData)"},
	"Windows Kernel/FileIO/FileDelete":  {14, "bookkeeping (FileIONameTraceData)"},
	"Windows Kernel/FileIO/FileRundown": {3054, "bookkeeping (FileIONameTraceData)"},
	"Windows Kernel/Thread/DCStart":     {670, "bookkeeping (thread rundown)"},
	"Windows Kernel/Thread/DCStop":      {664, "bookkeeping (thread rundown)"},
	// Stack events and stack-key definitions go into TraceLog's call
	// stack tables (its stack handling; not checked line by line).
	"Windows Kernel/StackWalk/Stack":          {252, "call stacks"},
	"Windows Kernel/StackWalk/StackKeyKernel": {2061, "call stacks"},
	"Windows Kernel/StackWalk/StackKeyUser":   {7046, "call stacks"},
	"Windows Kernel/StackWalk/KeyDelete":      {1909, "call stacks"},
	"Windows Kernel/StackWalk/KeyRundown":     {1012, "call stacks"},
	// Not explained: one event each, logged at the end of the session
	// next to SystemConfig events the baseline does count.
	"Windows Kernel/Image/HypercallPage":      {1, "not explained"},
	"Windows Kernel/SystemConfig/DPI":         {1, "not explained"},
	"Windows Kernel/SystemConfig/OpticalDisk": {1, "not explained"},
}

// TestCorpusNet452Counts counts the kernel and KernelTraceControl events
// of net.4.5.2.x64.etl by TraceEvent name, as TraceEvent's TraceLog
// delivers them, and requires exactly the COUNT lines of TraceEvent's
// baseline: every kernel name of the baseline with its count, and no other
// name but those of notInNet452Baseline, with their counts. PerfInfo
// samples are counted as TraceLog keeps them (traceLogKeepsSample).
func TestCorpusNet452Counts(t *testing.T) {
	dir := "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/"
	path := etltest.CorpusFile(t, dir+"net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl")
	baseline, err := os.ReadFile(etltest.CorpusFile(t, dir+"net.4.5.2.x64.baseline.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, line := range strings.Split(string(baseline), "\n") {
		name, n, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "COUNT "), ":")
		if !ok || !strings.HasPrefix(line, "COUNT ") {
			continue
		}
		if strings.HasPrefix(name, "Windows Kernel/") || strings.HasPrefix(name, "KernelTraceControl/") || strings.HasPrefix(name, "MSNT_SystemTrace/") {
			c, err := strconv.Atoi(strings.TrimSpace(n))
			if err != nil {
				t.Fatalf("baseline line %q: %v", line, err)
			}
			want[name] = c
		}
	}
	if len(want) != 56 {
		t.Fatalf("%d kernel and KernelTraceControl COUNT lines in the baseline, want 56", len(want))
	}
	reg := tdh.NewRegistry()
	RegisterKernel(reg)
	var dec Decoder
	got := map[string]int{}
	undecoded, header := 0, 0
	samples, idle, idleKept := 0, 0, 0
	etltest.ForEachEvent(t, path, func(_ *etl.File, ev *etl.Event) {
		if ev.Header == etl.HeaderEvent32 || ev.Header == etl.HeaderEvent64 {
			return
		}
		s, ok := reg.Lookup(ev.ProviderID, uint16(ev.Descriptor.Opcode), ev.Descriptor.Version)
		if !ok {
			// Classes without a known layout, counted under TraceEvent's
			// names for them.
			k := fmt.Sprintf("%v/%d", ev.ProviderID, ev.Descriptor.Opcode)
			if name, known := noSchemaNames[k]; known {
				got[name]++
			} else {
				got["no schema "+k]++
			}
			return
		}
		d, err := dec.Decode(s, ev.UserData, ev.PointerSize())
		if err != nil || len(d.Extra) != 0 {
			undecoded++
			return
		}
		name := traceEventName(s)
		if name == "Windows Kernel/EventTrace" {
			header++
			if header > 1 {
				return // TraceEvent shows the first log-file header only
			}
		}
		if name == "Windows Kernel/PerfInfo/Sample" {
			samples++
			tid, _ := d.Values[1].Uint()
			if tid == 0 {
				idle++
			}
			if !traceLogKeepsSample(ev.UserData, ev.PointerSize(), tid) {
				return
			}
			if tid == 0 {
				idleKept++
			}
		}
		got[name]++
	})
	if undecoded != 0 {
		t.Errorf("%d kernel/classic events did not decode", undecoded)
	}
	// The figures behind the PerfInfo/Sample count (docs/decoding.md).
	if samples != 79528 || idle != 73313 || idleKept != 105 {
		t.Errorf("PerfInfo/Sample: %d samples, %d on thread 0 of which %d in a DPC or ISR; want 79528, 73313, 105", samples, idle, idleKept)
	}
	names := map[string]bool{}
	for k := range got {
		names[k] = true
	}
	for k := range want {
		names[k] = true
	}
	var keys []string
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		w, inBaseline := want[k]
		extra, listed := notInNet452Baseline[k]
		switch {
		case inBaseline && got[k] != w:
			t.Errorf("%s: %d, baseline %d", k, got[k], w)
		case !inBaseline && !listed:
			t.Errorf("%s: %d events, and no COUNT line in the baseline", k, got[k])
		case !inBaseline && got[k] != extra.n:
			t.Errorf("%s (not delivered by TraceLog: %s): %d, want %d", k, extra.reason, got[k], extra.n)
		}
	}
	for k := range notInNet452Baseline {
		if _, ok := want[k]; ok {
			t.Errorf("%s is listed as not in the baseline, but the baseline counts it", k)
		}
	}
}

// TestCorpusNet452Values compares the field values of the kernel and
// KernelTraceControl events that TraceEvent's baseline prints (the first
// five of each name) with ours, for the fields both name alike.
// TraceEvent prints numbers with thousands separators, some in hex,
// strings cut to 20 characters and GUIDs without braces; it replaces
// some integers by names (IrpFlags=MountCompletion) or adds computed
// fields, which are not compared.
func TestCorpusNet452Values(t *testing.T) {
	dir := "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/"
	path := etltest.CorpusFile(t, dir+"net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl")
	baseline, err := os.ReadFile(etltest.CorpusFile(t, dir+"net.4.5.2.x64.baseline.txt"))
	if err != nil {
		t.Fatal(err)
	}
	type line struct{ fields map[string]string }
	want := map[string][]line{}
	for _, l := range strings.Split(string(baseline), "\n") {
		if !strings.HasPrefix(l, "EVENT ") {
			continue
		}
		_, rest, _ := strings.Cut(l, ": ")
		name, rest, _ := strings.Cut(rest, " PID=")
		rest = "PID=" + rest
		if !strings.HasPrefix(name, "Windows Kernel/") && !strings.HasPrefix(name, "KernelTraceControl/") && !strings.HasPrefix(name, "MSNT_SystemTrace/") {
			continue
		}
		fields := map[string]string{}
		for _, kv := range strings.Split(rest, "; ") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				fields[strings.ToLower(k)] = v
			}
		}
		want[name] = append(want[name], line{fields})
	}
	reg := tdh.NewRegistry()
	RegisterKernel(reg)
	var dec Decoder
	seen := map[string]int{}
	compared, matched := 0, 0
	header := 0
	etltest.ForEachEvent(t, path, func(_ *etl.File, ev *etl.Event) {
		s, ok := reg.Lookup(ev.ProviderID, uint16(ev.Descriptor.Opcode), ev.Descriptor.Version)
		if !ok || ev.Header == etl.HeaderEvent32 || ev.Header == etl.HeaderEvent64 {
			return
		}
		name := traceEventName(s)
		if name == "Windows Kernel/EventTrace" {
			if header++; header > 1 {
				return
			}
		}
		d, err := dec.Decode(s, ev.UserData, ev.PointerSize())
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		if name == "Windows Kernel/PerfInfo/Sample" {
			if tid, _ := d.Values[1].Uint(); !traceLogKeepsSample(ev.UserData, ev.PointerSize(), tid) {
				return // as TraceLog: idle-loop samples outside DPCs and ISRs
			}
		}
		i := seen[name]
		seen[name]++
		if i >= len(want[name]) {
			return
		}
		exp := want[name][i].fields
		for j := range d.Top() {
			p := &s.Properties[j]
			v, ok := exp[strings.ToLower(p.Name)]
			if !ok || !tdh.Printable(p) || teRewrites[name+"/"+p.Name] || teRewrites[p.Name] {
				continue
			}
			res, comparable := sameValue(d, &d.Values[j], v)
			if !comparable {
				continue
			}
			compared++
			if res {
				matched++
			} else {
				t.Errorf("%s #%d: %s = %q, TraceEvent %q", name, i, p.Name, string(tdh.AppendText(nil, d, &d.Values[j], nil)), v)
			}
		}
	})
	t.Logf("%d field values compared with TraceEvent's baseline, %d equal", compared, matched)
	if compared < 300 {
		t.Errorf("only %d values compared", compared)
	}
}

// teRewrites are the fields TraceEvent rewrites before printing: file
// names turned from NT into DOS paths, process names without ".exe",
// and ImageID's ProcessID, which it prints as 0 whatever the payload
// holds ("seems to always be 0").
var teRewrites = map[string]bool{
	"FileName": true,
	"Windows Kernel/SystemConfig/Services/ProcessName": true,
	"KernelTraceControl/ImageID/ProcessId":             true,
}

// sameValue compares a decoded value with TraceEvent's text for it;
// comparable is false when TraceEvent shows something else (a name for
// a number, a date).
func sameValue(d *tdh.Decoded, v *tdh.Value, te string) (same, comparable bool) {
	ours := string(tdh.AppendText(nil, d, v, nil))
	if v.Prop.OutType == tdh.OutTypePort {
		return ours == strings.ReplaceAll(te, ",", ""), true
	}
	if v.Prop.InType == tdh.InTypeFileTime {
		tm, err := time.Parse(time.RFC3339Nano, ours)
		if err != nil {
			return false, true
		}
		ours = tm.Format("06/01/02 15:04:05.000000")
	} else if n, ok := v.Uint(); ok && v.Prop.OutType != tdh.OutTypeIPv4 {
		s := strings.ReplaceAll(te, ",", "")
		var x uint64
		var err error
		switch {
		case strings.HasPrefix(s, "0x"):
			x, err = strconv.ParseUint(s[2:], 16, 64)
		case strings.HasPrefix(s, "-"):
			var y int64
			y, err = strconv.ParseInt(s, 10, 64)
			x = uint64(y)
			if y >= -1<<31 {
				x &= 1<<(8*uint(len(v.Data))) - 1
			}
		default:
			x, err = strconv.ParseUint(s, 10, 64)
		}
		if err != nil {
			return false, false
		}
		return x == n, true
	}
	if v.Prop.InType == tdh.InTypeGUID {
		ours = strings.Trim(ours, "{}")
	}
	if r := []rune(ours); len(r) > 20 {
		ours = string(r[:20]) + "..."
	}
	return ours == te, true
}
