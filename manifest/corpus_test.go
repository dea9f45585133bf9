package manifest

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/etwkit/etw/tdh"
	"github.com/google/uuid"
)

// schemasDir returns the schema corpus: $ETL_SCHEMAS, else
// $ETL_CORPUS/../schemas. It skips the test when neither is set; with one
// set, the corpus is expected whole, and a missing folder or file
// (schemaFile) fails the test.
func schemasDir(t testing.TB) string {
	t.Helper()
	d := os.Getenv("ETL_SCHEMAS")
	if d == "" {
		c := os.Getenv("ETL_CORPUS")
		if c == "" {
			t.Skip("neither ETL_SCHEMAS nor ETL_CORPUS is set: the schema corpus is needed")
		}
		d = filepath.Join(c, "..", "schemas")
	}
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		t.Fatalf("the schema corpus %s is missing (%v)", d, err)
	}
	return d
}

// filesWithExt lists the files under dir (in walk order) whose extension
// is one of exts, compared without regard to case.
func filesWithExt(t testing.TB, dir string, exts ...string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		for _, e := range exts {
			if strings.EqualFold(filepath.Ext(p), e) {
				paths = append(paths, p)
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// schemaFile returns a file of the schema corpus; see schemasDir.
func schemaFile(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(schemasDir(t), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is not in the schema corpus: %v", rel, err)
	}
	return p
}

func parseCorpusFile(t testing.TB, rel string) *Manifest {
	t.Helper()
	m, err := ParseFile(schemaFile(t, rel))
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return m
}

// sniffRoot returns the local name of the document's root element,
// independently of Parse ("" if the XML breaks before the root).
func sniffRoot(b []byte) string {
	data, transcoded, err := decodeInput(b)
	if err != nil {
		return ""
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	d.CharsetReader = charsetReader(transcoded)
	for {
		tok, err := d.Token()
		if err != nil {
			return ""
		}
		if se, ok := tok.(xml.StartElement); ok {
			return se.Name.Local
		}
	}
}

// TestCorpus parses every manifest of the schema corpus.
func TestCorpus(t *testing.T) {
	dir := schemasDir(t)
	var paths []string
	skippedExt := map[string]int{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ext := strings.ToLower(filepath.Ext(p))
		if ext == ".man" || ext == ".xml" {
			paths = append(paths, p)
		} else {
			skippedExt[ext]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var exts []string
	for e, n := range skippedExt {
		exts = append(exts, e+"="+strconv.Itoa(n))
	}
	sort.Strings(exts)
	t.Logf("not manifests by extension (TSV, MOF, TMF, compiled .bin, .mc, licences…): %s", strings.Join(exts, " "))

	var files, parsed, providers, events, templates, fields, maps, warnings int
	var malformed []string
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		root := sniffRoot(b)
		if root != "" && root != "instrumentationManifest" && root != "assembly" && !isWEPRoot(root) {
			t.Logf("skipped %s: root element <%s> is not a manifest", rel, root)
			continue
		}
		files++
		m, err := Parse(bytes.NewReader(b), p)
		if err != nil {
			var pe *Error
			var se *xml.SyntaxError
			switch {
			case !errors.As(err, &pe) || pe.File != p || pe.Line <= 0 || !strings.HasPrefix(err.Error(), p+":"):
				t.Errorf("%s: error does not name the file and a line: %v", rel, err)
			case !errors.As(err, &se):
				t.Errorf("%s: well-formed XML failed to parse: %v", rel, err)
			default:
				malformed = append(malformed, rel)
				t.Logf("not well-formed (expected failure): %s: %v", rel, pe.Msg+": "+se.Msg+" at line "+strconv.Itoa(pe.Line))
			}
			continue
		}
		parsed++
		warnings += len(m.Warnings)
		providers += len(m.Providers)
		for _, pr := range m.Providers {
			events += len(pr.Events)
			templates += len(pr.Templates)
			maps += len(pr.Maps)
			for _, tp := range pr.Templates {
				fields += len(tp.Properties)
				checkTemplate(t, rel, pr, tp)
			}
			for _, e := range pr.Events {
				if (e.TemplateID == "") != (e.Template == nil) && pr.Templates[e.TemplateID] != nil {
					t.Errorf("%s: %s event %d: template %q not linked", rel, pr.Name, e.ID, e.TemplateID)
				}
				if pr.Event(e.ID, e.Version) == nil {
					t.Errorf("%s: %s event %d v%d not found by Event", rel, pr.Name, e.ID, e.Version)
				}
			}
		}
	}
	t.Logf("manifest files %d: parsed %d, not well-formed %d; providers %d, events %d, templates %d, "+
		"template properties %d, maps %d, warnings %d", files, parsed, len(malformed), providers, events,
		templates, fields, maps, warnings)
	if files < 650 || parsed < 650 {
		t.Errorf("only %d manifest files (%d parsed); expected about 730", files, parsed)
	}
	if len(malformed) > 8 {
		t.Errorf("%d files not well-formed; expected about 4: %v", len(malformed), malformed)
	}
	if providers < 700 || events < 40000 || templates < 14000 {
		t.Errorf("too few providers/events/templates: %d/%d/%d", providers, events, templates)
	}
}

// checkTemplate asserts the invariants of a parsed template.
func checkTemplate(t *testing.T, rel string, p *Provider, tp *Template) {
	for i, f := range tp.Properties {
		if f.Index != i {
			t.Errorf("%s: %s template %q: Properties[%d].Index = %d", rel, p.Name, tp.TID, i, f.Index)
		}
		if !f.IsStruct() && f.InType == 0 {
			t.Errorf("%s: %s template %q field %q: in-type 0", rel, p.Name, tp.TID, f.Name)
		}
		for _, ref := range []struct {
			name string
			idx  int
		}{{f.LengthField, f.LengthIndex}, {f.CountField, f.CountIndex}} {
			if (ref.name == "") != (ref.idx == -1) {
				t.Errorf("%s: %s template %q field %q: reference %q resolved to %d", rel, p.Name, tp.TID, f.Name, ref.name, ref.idx)
				continue
			}
			if ref.name == "" {
				continue
			}
			target := tp.Properties[ref.idx]
			if normalizeName(target.Name) != normalizeName(ref.name) {
				t.Errorf("%s: %s template %q field %q: %q resolved to %q", rel, p.Name, tp.TID, f.Name, ref.name, target.Name)
			}
			if ref.idx == f.Index {
				t.Errorf("%s: %s template %q field %q refers to itself", rel, p.Name, tp.TID, f.Name)
			}
		}
		if f.MapName != "" && f.Map != nil && p.Maps[f.MapName] != f.Map {
			t.Errorf("%s: %s template %q field %q: wrong map", rel, p.Name, tp.TID, f.Name)
		}
	}
}

// TestCorpusCLR checks facts read off the .NET runtime manifest.
func TestCorpusCLR(t *testing.T) {
	m := parseCorpusFile(t, "authored/dotnet-runtime/ClrEtwAll.man")
	if len(m.Providers) != 5 || m.Culture != "en-US" {
		t.Errorf("providers = %d, culture %q", len(m.Providers), m.Culture)
	}
	p := m.Provider(uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"))
	if p == nil || p.Name != "Microsoft-Windows-DotNETRuntime" {
		t.Fatalf("DotNETRuntime provider = %v", p)
	}
	if r := m.Provider(uuid.MustParse("a669021c-c450-4609-a035-5af59af4df18")); r == nil || r.Name != "Microsoft-Windows-DotNETRuntimeRundown" {
		t.Errorf("Rundown provider = %v", r)
	}

	// GCStart_V2: event 1 version 2.
	e := p.Event(1, 2)
	if e == nil {
		t.Fatal("GCStart_V2 (1/2) not found")
	}
	if e.Symbol != "GCStart_V2" || e.Level != 4 || e.LevelMessage != "Information" || e.Task != 1 ||
		e.TaskName != "GarbageCollection" || e.TaskMessage != "GC" || e.Opcode != 1 || e.OpcodeMessage != "Start" ||
		e.Keywords != 0x1 || e.TemplateID != "GCStart_V2" {
		t.Errorf("GCStart_V2 = %+v", e)
	}
	if !strings.HasPrefix(e.Message, "Count=%1;%nDepth=%2;%nReason=%3") {
		t.Errorf("GCStart_V2 message = %q", e.Message)
	}
	wantFields := []struct {
		name    string
		in      tdh.InType
		out     tdh.OutType
		mapName string
	}{
		{"Count", tdh.InTypeUInt32, tdh.OutTypeUnsignedInt, ""},
		{"Depth", tdh.InTypeUInt32, tdh.OutTypeUnsignedInt, ""},
		{"Reason", tdh.InTypeUInt32, 0, "GCReasonMap"},
		{"Type", tdh.InTypeUInt32, 0, "GCTypeMap"},
		{"ClrInstanceID", tdh.InTypeUInt16, 0, ""},
		{"ClientSequenceNumber", tdh.InTypeUInt64, 0, ""},
	}
	if len(e.Template.Fields) != len(wantFields) {
		t.Fatalf("GCStart_V2 fields = %d", len(e.Template.Fields))
	}
	for i, w := range wantFields {
		f := e.Template.Fields[i]
		if f.Name != w.name || f.InType != w.in || f.OutType != w.out || f.MapName != w.mapName {
			t.Errorf("GCStart_V2 field %d = %s in %d out %d map %q; want %+v", i, f.Name, f.InType, f.OutType, f.MapName, w)
		}
	}
	reason := e.Template.Fields[2].Map
	if reason == nil || reason.Kind != ValueMap || len(reason.Entries) != 10 {
		t.Fatalf("GCReasonMap = %+v", reason)
	}
	if s, _ := reason.Lookup(1); s != "Induced" {
		t.Errorf("GCReasonMap[1] = %q", s)
	}
	if s, _ := reason.Lookup(0); s != "AllocSmall" {
		t.Errorf("GCReasonMap[0] = %q", s)
	}

	// GCRestartEEEnd: a task-local opcode (132 in GarbageCollection).
	if e := p.Event(3, 0); e == nil || e.Opcode != 132 || e.OpcodeName != "GCRestartEEEnd" || e.Template != nil {
		t.Errorf("GCRestartEEEnd = %+v", e)
	}
	// BulkType: struct array counted by a top-level field, with a member
	// array counted by a sibling member.
	bt := p.Event(15, 0)
	if bt == nil || bt.Template == nil {
		t.Fatal("BulkType (15/0) not found")
	}
	values := bt.Template.Fields[2]
	if !values.IsStruct() || values.Name != "Values" || values.CountField != "Count" || values.CountIndex != 0 || len(values.Struct) != 8 {
		t.Fatalf("BulkType Values = %+v", values)
	}
	tp := values.Struct[7]
	if tp.Name != "TypeParameters" || tp.CountIndex != 9 || bt.Template.Properties[9].Name != "TypeParameterCount" || tp.InType != tdh.InTypeUInt64 || tp.OutType != tdh.OutTypeHexInt64 {
		t.Errorf("TypeParameters = %+v", tp)
	}
}

// TestCorpusDumped checks aliases and oddities of TDH-regenerated
// manifests.
func TestCorpusDumped(t *testing.T) {
	// fox-it kernel TcpIp, MOF-as-manifest: win:IPAddrV4, win:SInt16.
	m := parseCorpusFile(t, "dumped/fox-it-dissect.etl-kernel/{9a280ac0-c8e0-11d1-84e2-00c04fb998a2}.xml")
	tp := m.Providers[0].Templates["0xb002f768L"]
	if tp == nil {
		t.Fatal("template 0xb002f768L missing")
	}
	byName := map[string]*Field{}
	for _, f := range tp.Fields {
		byName[f.Name] = f
	}
	if f := byName["daddr"]; f == nil || f.InTypeName != "win:IPAddrV4" || f.InType != tdh.InTypeUInt32 || f.OutType != tdh.OutTypeIPv4 {
		t.Errorf("daddr = %+v", f)
	}
	if f := byName["rcvwinscale"]; f == nil || f.InTypeName != "win:SInt16" || f.InType != tdh.InTypeInt16 {
		t.Errorf("rcvwinscale = %+v", f)
	}
	if e := m.Providers[0].Event(28, 2); e == nil || e.Template == nil || e.Template.Fields[2].InType != tdh.InTypeBinary ||
		e.Template.Fields[2].OutType != tdh.OutTypeIPv6 || e.Template.Fields[2].Length != 16 {
		t.Errorf("ConnectIPV6 daddr (win:IPAddrV6) = %+v", e)
	}

	// repnz Kernel-General: win:28 is a struct start index printed as a type.
	m = parseCorpusFile(t, "dumped/repnz-Manifests-Win10-18990/Microsoft-Windows-Kernel-General.xml")
	var tg *Field
	for _, p := range m.Providers {
		if tpl := p.Templates["task_014Args"]; tpl != nil {
			for _, f := range tpl.Fields {
				if f.Name == "TokenGroups" {
					tg = f
				}
			}
		}
	}
	if tg == nil || tg.InType != 28 || tg.CountField != "TokenGroupsCount" || tg.CountIndex != 10 {
		t.Errorf("TokenGroups = %+v", tg)
	}
	if !containsWarning(m.Warnings, `field "TokenGroups": in-type "win:28" is not a manifest type`) {
		t.Errorf("no artifact warning: %v", m.Warnings)
	}

	// CodeIntegrity: length="SHA1 Hash Size" refers to SHA1HashSize.
	m = parseCorpusFile(t, "dumped/repnz-Manifests-Win10-18990/Microsoft-Windows-CodeIntegrity.xml")
	found := false
	for _, p := range m.Providers {
		for _, tpl := range p.Templates {
			for _, f := range tpl.Fields {
				if f.LengthField == "SHA1 Hash Size" {
					found = true
					if tpl.Properties[f.LengthIndex].Name != "SHA1HashSize" {
						t.Errorf("%s: SHA1 Hash Size resolved to %q", tpl.TID, tpl.Properties[f.LengthIndex].Name)
					}
				}
			}
		}
	}
	if !found {
		t.Error("no field with length=\"SHA1 Hash Size\"")
	}

	// repnz PowerShell: task="task_0" is the task declared as "None" (0),
	// whose local opcode Shuttingdown is 25.
	m = parseCorpusFile(t, "dumped/repnz-Manifests-Win10-18990/Microsoft-Windows-PowerShell.xml")
	if e := m.Providers[0].Event(32869, 1); e == nil || e.Task != 0 || e.Opcode != 25 {
		t.Errorf("PowerShell 32869/1 = %+v", e)
	}
	for _, w := range m.Warnings {
		if strings.Contains(w, "not defined") {
			t.Errorf("PowerShell: %s", w)
		}
	}
}

// TestCorpusEncodings checks the UTF-16 files and an encoding="utf-16"
// declaration on UTF-8 bytes.
func TestCorpusEncodings(t *testing.T) {
	for _, c := range []struct {
		rel      string
		provider string
	}{
		{"authored/mimalloc/etw.man", "microsoft-windows-mimalloc"},
		{"authored/openetw/DemoProvider.man", "TestProvider"},
		{"authored/windows-tx/eventing.man", ""},
		{"authored/windows-tx/SystemEvents.man", "Microsoft-Windows-Kernel-Process"},
	} {
		m := parseCorpusFile(t, c.rel)
		if len(m.Providers) == 0 {
			t.Errorf("%s: no providers", c.rel)
			continue
		}
		if c.provider != "" && m.ProviderByName(c.provider) == nil {
			t.Errorf("%s: provider %q missing", c.rel, c.provider)
		}
	}
	// The mimalloc manifest is UTF-16LE with a BOM: same result as its
	// UTF-8 transcoding.
	p := schemaFile(t, "authored/mimalloc/etw.man")
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(raw, []byte{0xFF, 0xFE}) {
		t.Fatal("the mimalloc manifest is not UTF-16LE with a BOM any more: the corpus changed")
	}
	u8, _, err := decodeInput(raw)
	if err != nil {
		t.Fatal(err)
	}
	a, err1 := Parse(bytes.NewReader(raw), "x")
	b, err2 := Parse(bytes.NewReader(u8), "x")
	if err1 != nil || err2 != nil || len(a.Providers[0].Events) == 0 || len(a.Providers[0].Events) != len(b.Providers[0].Events) {
		t.Errorf("UTF-16 vs UTF-8: %v %v", err1, err2)
	}
}

// TestCorpusWinmeta cross-checks the built-in predefined values against
// the SDK's winmeta.xml files.
func TestCorpusWinmeta(t *testing.T) {
	dir := schemasDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "sdk-meta", "winmeta*.xml"))
	if len(files) == 0 {
		t.Fatal("the schema corpus has no sdk-meta/winmeta*.xml")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { checkWinmeta(t, f) })
	}
}

func checkWinmeta(t *testing.T, path string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data, tr, err := decodeInput(raw)
	if err != nil {
		t.Fatal(err)
	}
	root, err := buildTree(data, path, tr)
	if err != nil {
		t.Fatal(err)
	}
	strs := map[string]string{}
	for _, res := range root.grandKids("localization", "resources") {
		for _, s := range res.grandKids("stringTable", "string") {
			strs[s.get("id")] = s.get("value")
		}
	}
	msg := func(n *node) string {
		v := n.get("message")
		if id, ok := strings.CutPrefix(v, "$(string."); ok {
			return strs[strings.TrimSuffix(id, ")")]
		}
		return v
	}
	meta := root.kids("metadata")
	if len(meta) != 1 {
		t.Fatalf("metadata elements = %d", len(meta))
	}
	md := meta[0]
	num := func(n *node, a string) uint64 {
		v, err := parseUint(n.get(a), 64)
		if err != nil {
			t.Fatalf("%s %s=%q", n.name, a, n.get(a))
		}
		return v
	}
	var checked int
	for _, l := range md.grandKids("levels", "level") {
		got, ok := findLevel(winLevels(), l.get("name"))
		want := Level{Name: l.get("name"), Value: uint8(num(l, "value")), Message: msg(l), Symbol: l.get("symbol")}
		if !ok || got != want {
			t.Errorf("level %s: built in %+v, winmeta %+v", want.Name, got, want)
		}
		checked++
	}
	for _, o := range md.grandKids("opcodes", "opcode") {
		got, ok := findOpcode(winOpcodes(), o.get("name"))
		want := Opcode{Name: o.get("name"), Value: uint8(num(o, "value")), Message: msg(o), Symbol: o.get("symbol")}
		if !ok || got != want {
			t.Errorf("opcode %s: built in %+v, winmeta %+v", want.Name, got, want)
		}
		checked++
	}
	for _, k := range md.grandKids("keywords", "keyword") {
		got, ok := findKeyword(winKeywords(), k.get("name"))
		want := Keyword{Name: k.get("name"), Value: num(k, "mask"), Message: msg(k), Symbol: k.get("symbol")}
		if want.Symbol == "WINEVENT_KEYWORDE_RESERVED_60" {
			// A typo of the Windows 7 WDK copy, fixed in later SDKs.
			t.Logf("keyword %s: winmeta symbol %s (typo) not compared", want.Name, want.Symbol)
			want.Symbol = got.Symbol
		}
		if !ok || got != want {
			t.Errorf("keyword %s: built in %+v, winmeta %+v", want.Name, got, want)
		}
		checked++
	}
	for _, tk := range md.grandKids("tasks", "task") {
		got, ok := findTask(winTasks, tk.get("name"))
		if !ok || got.Value != uint16(num(tk, "value")) || got.Message != msg(tk) || got.Symbol != tk.get("symbol") {
			t.Errorf("task %s: built in %+v", tk.get("name"), got)
		}
		checked++
	}
	for _, c := range md.grandKids("channels", "channel") {
		got, ok := findWinChannel(c.get("name"))
		want := Channel{Name: c.get("name"), Value: uint8(num(c, "value")), Type: c.get("type"), Message: msg(c), Symbol: c.get("symbol")}
		if !ok || got != want {
			t.Errorf("channel %s: built in %+v, winmeta %+v", want.Name, got, want)
		}
		checked++
	}
	for _, x := range md.grandKids("types", "xmlTypes") {
		for _, o := range x.kids("xmlType") {
			if v, ok := OutTypeByName(o.get("name")); !ok || uint64(v) != num(o, "value") || v.String() != o.get("name") {
				t.Errorf("out-type %s = %d, winmeta %d", o.get("name"), v, num(o, "value"))
			}
			checked++
		}
	}
	for _, x := range md.grandKids("types", "inTypes") {
		for _, it := range x.kids("inType") {
			v, ok := InTypeByName(it.get("name"))
			if !ok || uint64(v) != num(it, "value") || v.String() != it.get("name") {
				t.Errorf("in-type %s = %d, winmeta %d", it.get("name"), v, num(it, "value"))
			}
			for _, o := range it.kids("outType") {
				if o.get("default") == "true" {
					def, _ := OutTypeByName(o.get("xmlType"))
					if v.DefaultOutType() != def {
						t.Errorf("default out-type of %s = %d, winmeta %s", it.get("name"), v.DefaultOutType(), o.get("xmlType"))
					}
				}
			}
			checked++
		}
	}
	if checked < 80 {
		t.Errorf("only %d winmeta entries checked", checked)
	}
	t.Logf("%d predefined entries match", checked)
}

// BenchmarkParseClrEtwAll measures parsing the largest authored manifest.
func BenchmarkParseClrEtwAll(b *testing.B) {
	p := schemaFile(b, "authored/dotnet-runtime/ClrEtwAll.man")
	raw, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(raw), p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseInline needs no corpus.
func BenchmarkParseInline(b *testing.B) {
	b.SetBytes(int64(len(fullManifest)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(strings.NewReader(fullManifest), "full"); err != nil {
			b.Fatal(err)
		}
	}
}
