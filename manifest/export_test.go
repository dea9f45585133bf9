package manifest

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/mof"
	"github.com/etwkit/etw/tdh"
	"github.com/etwkit/etw/tracelogging"
	"github.com/google/uuid"
)

// rtDifference is one difference found by rtDiff: its area (source,
// provider, identity, names, keywords, message, tags, alternates,
// properties), for properties the dotted path, and a description.
type rtDifference struct {
	area, path, text string
}

func (d rtDifference) String() string {
	if d.path != "" {
		return d.area + ": " + d.path + ": " + d.text
	}
	return d.area + ": " + d.text
}

// rtDiff lists the differences between two schemas in everything decoding
// and rendering use.
func rtDiff(a, b *tdh.Event) []rtDifference {
	var out []rtDifference
	add := func(area, format string, args ...any) {
		out = append(out, rtDifference{area, "", fmt.Sprintf(format, args...)})
	}
	if a.Source != b.Source {
		add("source", "source %v, got %v", a.Source, b.Source)
	}
	if a.ProviderName != b.ProviderName || a.ProviderGUID != b.ProviderGUID {
		add("provider", "provider %q %v, got %q %v", a.ProviderName, a.ProviderGUID, b.ProviderName, b.ProviderGUID)
	}
	if a.ID != b.ID || a.Version != b.Version {
		add("identity", "id %d version %d, got %d %d", a.ID, a.Version, b.ID, b.Version)
	}
	if a.Level != b.Level || a.LevelName != b.LevelName {
		add("names", "level %d %q, got %d %q", a.Level, a.LevelName, b.Level, b.LevelName)
	}
	if a.Task != b.Task || a.TaskName != b.TaskName {
		add("names", "task %d %q, got %d %q", a.Task, a.TaskName, b.Task, b.TaskName)
	}
	if a.Opcode != b.Opcode || a.OpcodeName != b.OpcodeName {
		add("names", "opcode %d %q, got %d %q", a.Opcode, a.OpcodeName, b.Opcode, b.OpcodeName)
	}
	if a.Channel != b.Channel || a.ChannelName != b.ChannelName {
		add("names", "channel %d %q, got %d %q", a.Channel, a.ChannelName, b.Channel, b.ChannelName)
	}
	if a.EventName != b.EventName {
		add("names", "event name %q, got %q", a.EventName, b.EventName)
	}
	if a.Keywords != b.Keywords || !slices.Equal(a.KeywordNames, b.KeywordNames) {
		add("keywords", "keywords %#x %q, got %#x %q", a.Keywords, a.KeywordNames, b.Keywords, b.KeywordNames)
	}
	if a.Message != b.Message {
		add("message", "message %q, got %q", a.Message, b.Message)
	}
	if a.Tags != b.Tags {
		add("tags", "tags %#x, got %#x", a.Tags, b.Tags)
	}
	if len(a.Alternates) != len(b.Alternates) {
		add("alternates", "%d alternates, got %d", len(a.Alternates), len(b.Alternates))
	}
	rtProps("", a.Properties, b.Properties, func(path, format string, args ...any) {
		out = append(out, rtDifference{"properties", path, fmt.Sprintf(format, args...)})
	})
	return out
}

func rtProps(path string, a, b []tdh.Property, add func(path, format string, args ...any)) {
	if len(a) != len(b) {
		add(path, "%d properties, got %d", len(a), len(b))
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		p, q := &a[i], &b[i]
		name := joinField(path, p.Name)
		if p.Name != q.Name {
			add(name, "name %q, got %q", p.Name, q.Name)
		}
		if p.InType != q.InType || p.OutType != q.OutType {
			add(name, "types %v %v, got %v %v", p.InType, p.OutType, q.InType, q.OutType)
		}
		if p.Length != q.Length || p.LengthIndex != q.LengthIndex {
			add(name, "length %d #%d, got %d #%d", p.Length, p.LengthIndex, q.Length, q.LengthIndex)
		}
		if p.IsArray != q.IsArray || p.Count != q.Count || p.CountIndex != q.CountIndex {
			add(name, "array %t count %d #%d, got %t %d #%d", p.IsArray, p.Count, p.CountIndex, q.IsArray, q.Count, q.CountIndex)
		}
		if p.Optional != q.Optional || p.ToEnd != q.ToEnd || p.Tags != q.Tags {
			add(name, "optional %t to-end %t tags %#x, got %t %t %#x", p.Optional, p.ToEnd, p.Tags, q.Optional, q.ToEnd, q.Tags)
		}
		if p.IsStruct() != q.IsStruct() {
			add(name, "struct %t, got %t", p.IsStruct(), q.IsStruct())
		}
		if (p.Map == nil) != (q.Map == nil) {
			add(name, "map %v, got %v", p.Map != nil, q.Map != nil)
		} else if p.Map != nil {
			if p.Map.Name != q.Map.Name || p.Map.Kind != q.Map.Kind || fmt.Sprint(p.Map.Entries) != fmt.Sprint(q.Map.Entries) {
				add(name, "map %q %d %v, got %q %d %v", p.Map.Name, p.Map.Kind, p.Map.Entries, q.Map.Name, q.Map.Kind, q.Map.Entries)
			}
		}
		rtProps(name, p.Members, q.Members, add)
	}
}

// rtExplains reports whether an approximated issue explains difference d:
// its reason covers d's area and, for a property, it names that property,
// one inside it or one containing it (or any property, for a difference
// in the number of top-level properties).
func rtExplains(is *ExportIssue, d rtDifference) bool {
	if is.Kind != IssueApproximated || !slices.Contains(rtAreas[is.Err], d.area) {
		return false
	}
	if d.area != "properties" {
		return true
	}
	f, p := is.Field, d.path
	return f == p || p == "" || f != "" && (strings.HasPrefix(f, p+".") || strings.HasPrefix(p, f+"."))
}

// rtAreas tells which differences an issue reason explains.
var rtAreas = map[error][]string{
	ErrExportSource:       {"source"},
	ErrExportProviderName: {"provider"},
	ErrExportText:         {"provider", "names", "keywords", "message", "properties"},
	ErrExportKeywords:     {"keywords"},
	ErrExportInType:       {"properties"},
	ErrExportOutType:      {"properties"},
	ErrExportToEnd:        {"properties"},
	ErrExportOptional:     {"properties"},
	ErrExportMap:          {"properties"},
	ErrExportReference:    {"properties"},
	ErrExportLayout:       {"properties"},
	ErrExportTags:         {"tags", "properties"},
	ErrExportAlternates:   {"alternates"},
	ErrExportDuplicate:    {}, // skipped: nothing to explain
}

type rtKey struct {
	guid    uuid.UUID
	id      uint16
	version uint8
}

func keyOf(s *tdh.Event) rtKey { return rtKey{s.ProviderGUID, s.ID, s.Version} }

// rtResult is the outcome of one round trip.
type rtResult struct {
	xml     []byte
	issues  []*ExportIssue
	events  int // schemas written
	exact   int // read back equal
	approx  int // read back different, explained
	skipped int // schemas not written, explained
	// onlySource counts the approximated events whose only difference is
	// the source (MOF, TraceLogging).
	onlySource int
	// nonstandard counts the nonstandard spellings by message.
	nonstandard map[string]int
	reasons     map[string]int // issue kind+reason → events
	problems    []string       // unexplained differences; the test fails on any
}

// roundTrip writes schemas, reads the manifest back and compares, each
// difference having to be explained by an issue of its event.
func roundTrip(t testing.TB, name string, schemas []*tdh.Event) *rtResult {
	t.Helper()
	r := &rtResult{reasons: map[string]int{}, nonstandard: map[string]int{}}
	var buf bytes.Buffer
	issues, err := WriteXML(&buf, schemas)
	if err != nil {
		t.Fatalf("%s: WriteXML: %v", name, err)
	}
	r.xml, r.issues = buf.Bytes(), issues
	byEvent := map[rtKey][]*ExportIssue{}
	for _, is := range issues {
		k := rtKey{is.ProviderGUID, is.ID, is.Version}
		byEvent[k] = append(byEvent[k], is)
		switch is.Kind {
		case IssueNonstandard:
			r.nonstandard[is.Msg]++
		case IssueSkipped:
			r.skipped++
		}
		if is.Err == nil || rtAreas[is.Err] == nil {
			r.problems = append(r.problems, fmt.Sprintf("issue without a known reason: %v", is))
		}
	}
	m, err := Parse(bytes.NewReader(r.xml), name+" (exported)")
	if err != nil {
		r.problems = append(r.problems, fmt.Sprintf("exported manifest does not parse: %v", err))
		return r
	}
	nonIntRef := false
	for _, is := range issues {
		nonIntRef = nonIntRef || is.Kind == IssueNonstandard && is.Err == ErrExportReference
	}
	for _, w := range m.Warnings {
		if nonIntRef && strings.HasSuffix(w, "is not a single integer") {
			continue // reported as nonstandard
		}
		r.problems = append(r.problems, "warning reading the exported manifest: "+w)
	}
	back, errs := m.Schemas()
	for _, err := range errs {
		r.problems = append(r.problems, fmt.Sprintf("exported event does not compile: %v", err))
	}
	got := map[rtKey]*tdh.Event{}
	for _, s := range back {
		got[keyOf(s)] = s
	}
	seen := map[rtKey]bool{}
	for _, s := range schemas {
		k := keyOf(s)
		first := !seen[k]
		seen[k] = true
		var skippedHere bool
		kinds := map[string]bool{}
		for _, is := range byEvent[k] {
			// A skipped duplicate names the same key as the kept one.
			if is.Kind == IssueSkipped && (is.Err != ErrExportDuplicate || !first) {
				skippedHere = true
			}
			kinds[is.Kind.String()+" "+errText(is.Err)] = true
		}
		for kr := range kinds {
			if first {
				r.reasons[kr]++
			}
		}
		if !first {
			continue // a duplicate: its issue was checked above
		}
		b := got[k]
		if skippedHere {
			if b != nil {
				r.problems = append(r.problems, fmt.Sprintf("%s event %d v%d reported skipped but written", s.ProviderName, s.ID, s.Version))
			}
			continue
		}
		if b == nil {
			r.problems = append(r.problems, fmt.Sprintf("%s event %d v%d (%s) missing from the exported manifest", s.ProviderName, s.ID, s.Version, s.EventName))
			continue
		}
		r.events++
		diffs := rtDiff(s, b)
		if len(diffs) == 0 {
			r.exact++
			continue
		}
		ok := true
		for _, d := range diffs {
			explained := false
			for _, is := range byEvent[k] {
				explained = explained || rtExplains(is, d)
			}
			if !explained {
				ok = false
				r.problems = append(r.problems, fmt.Sprintf("%s event %d v%d (%s): unexplained difference: %v", s.ProviderName, s.ID, s.Version, s.EventName, d))
			}
		}
		if ok {
			r.approx++
			if len(diffs) == 1 && diffs[0].area == "source" {
				r.onlySource++
			}
		}
	}
	if len(got) != r.events {
		r.problems = append(r.problems, fmt.Sprintf("%d events read back, %d written", len(got), r.events))
	}
	return r
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func logResult(t *testing.T, what string, files int, total *rtResult) {
	t.Helper()
	t.Logf("%s: %d files, %d events written: %d read back equal, %d approximated (explained; %d of them equal but for the source), %d skipped (explained)",
		what, files, total.events, total.exact, total.approx, total.onlySource, total.skipped)
	var keys []string
	for k := range total.reasons {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("  %6d events: %s", total.reasons[k], k)
	}
	keys = keys[:0]
	for k := range total.nonstandard {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("  %6d properties: nonstandard: %s", total.nonstandard[k], k)
	}
}

// logIssues logs each issue that changes what reads back, but for the
// change of source (one per MOF or TraceLogging event).
func logIssues(t *testing.T, name string, r *rtResult) {
	t.Helper()
	for _, is := range r.issues {
		if is.Kind != IssueNonstandard && is.Err != ErrExportSource {
			t.Logf("%s: %v", name, is)
		}
	}
}

func newTotal() *rtResult {
	return &rtResult{reasons: map[string]int{}, nonstandard: map[string]int{}}
}

func (r *rtResult) add(o *rtResult) {
	r.events += o.events
	r.exact += o.exact
	r.approx += o.approx
	r.skipped += o.skipped
	r.onlySource += o.onlySource
	for k, v := range o.reasons {
		r.reasons[k] += v
	}
	for k, v := range o.nonstandard {
		r.nonstandard[k] += v
	}
}

// TestExportCorpusManifests round-trips every manifest of the schema
// corpus that parses.
func TestExportCorpusManifests(t *testing.T) {
	dir := schemasDir(t)
	paths := filesWithExt(t, dir, ".man", ".xml")
	total := newTotal()
	files, notParsed := 0, 0
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		m, err := ParseFile(p)
		if err != nil {
			notParsed++
			continue
		}
		schemas, _ := m.Schemas()
		r := roundTrip(t, rel, schemas)
		files++
		for _, pr := range r.problems {
			t.Errorf("%s: %s", rel, pr)
		}
		logIssues(t, rel, r)
		total.add(r)
	}
	if files == 0 {
		t.Fatalf("no manifest parsed under %s", dir)
	}
	t.Logf("%d of %d .man/.xml files are not manifests or do not parse (see TestCorpus)", notParsed, len(paths))
	logResult(t, "manifests", files, total)
}

// TestExportCorpusMOF round-trips the MOF files of the schema corpus:
// MOF features a manifest cannot express must be reported, never lost.
func TestExportCorpusMOF(t *testing.T) {
	dir := filepath.Join(schemasDir(t), "mof")
	paths := filesWithExt(t, dir, ".mof")
	if len(paths) == 0 {
		t.Fatalf("no .mof files under %s", dir)
	}
	total := newTotal()
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		f, err := mof.ParseFile(p)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		schemas, _ := f.Schemas()
		r := roundTrip(t, rel, schemas)
		for _, pr := range r.problems {
			t.Errorf("%s: %s", rel, pr)
		}
		logIssues(t, rel, r)
		total.add(r)
	}
	logResult(t, "MOF", len(paths), total)
}

// TestExportKernelClasses round-trips the built-in NT Kernel Logger
// classes (what mof.RegisterKernel adds to a registry).
func TestExportKernelClasses(t *testing.T) {
	schemas := mof.KernelSchemas()
	reg := tdh.NewRegistry()
	mof.RegisterKernel(reg)
	if reg.Len() != len(schemas) {
		t.Fatalf("KernelSchemas has %d schemas, RegisterKernel registers %d", len(schemas), reg.Len())
	}
	r := roundTrip(t, "kernel", schemas)
	for _, pr := range r.problems {
		t.Error(pr)
	}
	logIssues(t, "kernel", r)
	total := newTotal()
	total.add(r)
	logResult(t, "kernel classes", 1, total)
}

// TestExportCorpusTraceLogging round-trips the TraceLogging schemas of the
// corpus traces. TraceLogging events have no id, and a manifest keys
// events by id and version, so each schema is given its own id first.
func TestExportCorpusTraceLogging(t *testing.T) {
	paths := etltest.CorpusTraces(t)
	var cache tracelogging.Cache
	seen := map[*tdh.Event]bool{}
	var schemas []*tdh.Event
	for _, p := range paths {
		f, err := etl.Open(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		r := etl.NewReader([]*etl.File{f}, nil)
		for r.Next() {
			s, ok, err := cache.Schema(r.Event())
			if !ok || err != nil || seen[s] {
				continue
			}
			seen[s] = true
			c := *s
			c.ID = uint16(len(schemas) + 1)
			schemas = append(schemas, &c)
		}
		r.Close()
		f.Close()
	}
	if len(schemas) == 0 {
		t.Fatal("no TraceLogging schemas in the corpus")
	}
	r := roundTrip(t, "tracelogging", schemas)
	for _, pr := range r.problems {
		t.Error(pr)
	}
	logIssues(t, "tracelogging", r)
	total := newTotal()
	total.add(r)
	logResult(t, "TraceLogging schemas of the corpus traces", len(paths), total)
}

var exportGUID = uuid.MustParse("5e1ec7ed-0000-4000-8000-00000000e4b0")

func xprop(name string, in tdh.InType) tdh.Property {
	return tdh.Property{Name: name, InType: in, LengthIndex: -1, CountIndex: -1}
}

func xevent(id uint16, props ...tdh.Property) *tdh.Event {
	return &tdh.Event{ProviderName: "Export-Test", ProviderGUID: exportGUID, ID: id, Properties: props}
}

// exportIssues runs a round trip that must explain every difference and
// returns its issues as "kind reason field" strings.
func exportIssues(t *testing.T, schemas ...*tdh.Event) (*rtResult, []string) {
	t.Helper()
	r := roundTrip(t, t.Name(), schemas)
	for _, pr := range r.problems {
		t.Error(pr)
	}
	var out []string
	seen := map[string]bool{}
	for _, is := range r.issues {
		if s := fmt.Sprintf("%s %d %s: %s", is.Kind, is.ID, is.Field, is.Err); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if t.Failed() {
		t.Logf("manifest:\n%s", r.xml)
		for _, is := range r.issues {
			t.Log(is)
		}
	}
	return r, out
}

func wantIssues(t *testing.T, got []string, want ...string) {
	t.Helper()
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("issues:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// exportSample returns schemas with everything a manifest schema can
// hold: predefined and provider levels, tasks, opcodes (task-local where
// one value has two names), keywords (one- and two-bit, one covering
// another, predefined), channels, maps, structs, lengths and counts.
func exportSample() []*tdh.Event {
	m1 := &tdh.Map{Name: "ResultMap", Kind: tdh.ValueMap, Entries: []tdh.MapEntry{{Value: 0, Message: "OK"}, {Value: 1, Message: "Failed & <gone>"}, {Value: 1, Message: "dup"}}}
	m2 := &tdh.Map{Name: "Flags", Kind: tdh.BitMap, Entries: []tdh.MapEntry{{Value: 1, Message: "A"}, {Value: 4, Message: "C"}, {Value: 0x80000000, Message: "Top"}}}
	n := xprop("N", tdh.InTypeUInt16)
	str := xprop("S", tdh.InTypeUnicodeString)
	str.LengthIndex = 0
	arr := xprop("Arr", tdh.InTypeUInt32)
	arr.IsArray, arr.CountIndex, arr.Map = true, 0, m1
	fixed := xprop("Fixed", tdh.InTypeBinary)
	fixed.Length, fixed.OutType = 16, tdh.OutTypeIPv6
	st := tdh.Property{Name: "Pair", LengthIndex: -1, CountIndex: -1, IsArray: true, Count: 2,
		Members: []tdh.Property{xprop("Count", tdh.InTypeUInt8), xprop("Flags", tdh.InTypeHexInt32)}}
	st.Members[1].Map = m2
	empty := tdh.Property{Name: "Empty", LengthIndex: -1, CountIndex: -1, Members: []tdh.Property{}}
	zero := xprop("Zero", tdh.InTypeGUID)
	zero.IsArray = true
	e1 := xevent(1, n, str, arr, fixed, st, empty, zero)
	e1.Level, e1.LevelName = 4, "Information"
	e1.Task, e1.TaskName = 1, "Download"
	e1.Opcode, e1.OpcodeName = 10, "Retry"
	e1.Keywords, e1.KeywordNames = 1|1<<48, []string{"Network", "Response Time"}
	e1.Channel, e1.ChannelName = 16, "Export-Test/Operational"
	e1.EventName = "DownloadRetry"
	e1.Message = "Retry %1: \"%2\"\t<%3> & 100%% \r\n done"
	e2 := xevent(2, n, str)
	e2.Level, e2.LevelName = 20, "Custom level"
	e2.Task, e2.TaskName = 2, "Upload"
	e2.Opcode, e2.OpcodeName = 10, "Again" // same value, other name: task-local opcodes
	e2.Keywords, e2.KeywordNames = 2|4, []string{"Disk", "Cache"}
	e2.Channel, e2.ChannelName = 8, "System"
	e2.Version = 3
	e3 := xevent(3)
	e3.Task, e3.TaskName = 0, "None"
	e3.Opcode, e3.OpcodeName = 1, "Start"
	e3.Keywords, e3.KeywordNames = 0x30, []string{"Both bits"} // a two-bit keyword
	e4 := xevent(4)
	e4.Keywords, e4.KeywordNames = 0x300, []string{"Wide"} // covers Narrow
	e5 := xevent(5)
	e5.Keywords, e5.KeywordNames = 0x100, []string{"Narrow"}
	e6 := xevent(6)
	e6.Task, e6.TaskName = 2, "Upload"
	e6.Opcode, e6.OpcodeName = 11, "Only name of 11"
	e6.Properties = []tdh.Property{}
	e6.Level, e6.LevelName = 0, "Log Always"
	e6.TaskName = "$(string.NotAReference)" // a name that reads as a reference
	e6.Task = 9
	return []*tdh.Event{e1, e2, e3, e4, e5, e6}
}

// TestExportExact: everything a manifest schema holds comes back equal,
// with no issue.
func TestExportExact(t *testing.T) {
	r, got := exportIssues(t, exportSample()...)
	wantIssues(t, got)
	if r.exact != 6 {
		t.Errorf("%d events read back equal, want 6", r.exact)
	}
	for _, want := range []string{`<opcode name="Retry" value="10"/>`, `<opcode name="Again" value="10"/>`, `<importChannel name="System" chid="System"/>`,
		`level="win:Informational"`, `task="win:None"`, `opcode="win:Start"`, `keywords="Network win:ResponseTime"`, `level="win:LogAlways"`} {
		if !bytes.Contains(r.xml, []byte(want)) {
			t.Errorf("manifest lacks %s", want)
		}
	}
	if t.Failed() {
		t.Logf("%s", r.xml)
	}
}

// TestExportIssues checks each kind of schema content a manifest cannot
// carry: reported, and every difference explained.
func TestExportIssues(t *testing.T) {
	t.Run("mof", func(t *testing.T) {
		index := &tdh.Map{Name: "Cls.Index", Kind: tdh.IndexMap, Entries: []tdh.MapEntry{{Value: 0, Message: "Zero"}, {Value: 1, Message: "One"}}}
		flag := &tdh.Map{Name: "Cls.Flag", Kind: tdh.FlagMap, Entries: []tdh.MapEntry{{Value: 1, Message: "Bit0"}, {Value: 3, Message: "Bit2"}, {Value: 40, Message: "Bit39"}}}
		wide := &tdh.Map{Name: "Cls.Wide", Kind: tdh.ValueMap, Entries: []tdh.MapEntry{{Value: 1, Message: "One"}, {Value: 1 << 40, Message: "Big"}}}
		a := xprop("A", tdh.InTypeUInt32)
		a.Map = index
		b := xprop("B", tdh.InTypeUInt32)
		b.Map = flag
		c := xprop("C", tdh.InTypeInt64)
		c.Map = wide
		ch := xprop("Ch", tdh.InTypeAnsiChar)
		chs := xprop("Chs", tdh.InTypeAnsiChar)
		chs.Length = 8
		cs := xprop("Cs", tdh.InTypeMOFCountedString)
		sid := xprop("Sid", tdh.InTypeWBEMSID)
		sz := xprop("Size", tdh.InTypeSizeT)
		wc := xprop("W", tdh.InTypeUnicodeChar)
		np := xprop("Hidden", tdh.InTypeUInt32)
		np.OutType = tdh.OutTypeNoPrint
		opt := xprop("Opt", tdh.InTypeUInt32)
		opt.Optional = true
		rest := xprop("Rest", tdh.InTypePointer)
		rest.IsArray, rest.ToEnd = true, true
		e := xevent(10, a, b, c, ch, chs, cs, sid, sz, wc, np, opt, rest)
		e.Source, e.EventName, e.Opcode, e.OpcodeName = tdh.SourceMOF, "Cls", 10, "Load"
		e.Alternates = []*tdh.Event{xevent(10)}
		text := xprop("Text", tdh.InTypeNonNullTerminatedString)
		e2 := xevent(11, xprop("X", tdh.InTypeUInt8), text, xprop("After", tdh.InTypeUInt8))
		e2.Source, e2.Opcode = tdh.SourceMOF, 11 // an event type without a name
		_, got := exportIssues(t, e, e2)
		wantIssues(t, got,
			"approximated 10 : schema source is not a manifest",
			"approximated 10 : alternate layouts",
			"approximated 10 A: map a manifest cannot express",
			"approximated 10 B: map a manifest cannot express",
			"approximated 10 C: map a manifest cannot express",
			"approximated 10 Ch: in-type has no manifest spelling",
			"approximated 10 Chs: in-type has no manifest spelling",
			"approximated 10 Cs: in-type has no manifest spelling",
			"nonstandard 10 Sid: in-type has no manifest spelling",
			"nonstandard 10 Size: in-type has no manifest spelling",
			"nonstandard 10 W: in-type has no manifest spelling",
			"nonstandard 10 Hidden: out-type has no manifest name",
			"approximated 10 Opt: optional property",
			"approximated 10 Rest: array to the end of the payload",
			"approximated 11 : schema source is not a manifest",
			"approximated 11 : text a manifest cannot carry",
			"approximated 11 Text: in-type has no manifest spelling",
		)
	})
	t.Run("tracelogging", func(t *testing.T) {
		inner := tdh.Property{Name: "Inner", LengthIndex: -1, CountIndex: -1, Members: []tdh.Property{xprop("V", tdh.InTypeInt32)}}
		outer := tdh.Property{Name: "Outer", LengthIndex: -1, CountIndex: -1, Members: []tdh.Property{inner}}
		tagged := xprop("Tagged", tdh.InTypeAnsiString)
		tagged.OutType, tagged.Tags = tdh.OutTypeUTF8, 0x5
		e := xevent(0, outer, tagged)
		e.Source, e.EventName, e.Tags = tdh.SourceTraceLogging, "My Event", 0x10
		e.Keywords = 0x400000000000 // no name
		_, got := exportIssues(t, e)
		wantIssues(t, got,
			"approximated 0 : schema source is not a manifest",
			"approximated 0 : TraceLogging tags",
			"approximated 0 : keyword names and mask cannot be reproduced",
			"nonstandard 0 Outer.Inner: property layout a manifest cannot express",
			"approximated 0 Tagged: TraceLogging tags",
		)
	})
	t.Run("references", func(t *testing.T) {
		anon := xprop("", tdh.InTypeUInt16)
		num := xprop("12", tdh.InTypeUInt16)
		size := xprop("Size", tdh.InTypeUInt16)
		shadow := xprop("Size", tdh.InTypeUInt8)
		s1 := xprop("S1", tdh.InTypeAnsiString)
		s1.LengthIndex = 0
		s2 := xprop("S2", tdh.InTypeAnsiString)
		s2.LengthIndex = 1
		s3 := xprop("S3", tdh.InTypeBinary)
		s3.LengthIndex = 2 // the first Size, shadowed by the second
		e := xevent(1, anon, num, size, shadow, s1, s2, s3)
		bad := xprop("Bad", tdh.InTypeBinary)
		bad.LengthIndex = 0
		e2 := xevent(2, xprop("Str", tdh.InTypeUnicodeString), bad)
		_, got := exportIssues(t, e, e2)
		wantIssues(t, got,
			"approximated 1 : length or count reference cannot be written",
			"approximated 1 12: length or count reference cannot be written",
			"approximated 1 Size: length or count reference cannot be written",
			"skipped 2 : length or count reference cannot be written",
		)
	})
	t.Run("duplicates", func(t *testing.T) {
		a, b, c := xevent(1, xprop("A", tdh.InTypeUInt8)), xevent(1, xprop("A", tdh.InTypeUInt8)), xevent(1, xprop("B", tdh.InTypeUInt8))
		_, got := exportIssues(t, a, b, c)
		wantIssues(t, got, "skipped 1 : another schema has the same provider, id and version")
	})
	t.Run("text", func(t *testing.T) {
		e := xevent(1, xprop(" padded ", tdh.InTypeUInt8), xprop("bad\x01name", tdh.InTypeUInt8))
		e.EventName, e.Message = "Sym\x00", "  $(string.Looks.Like.A.Reference)  "
		e.Level, e.Task, e.Opcode, e.Channel = 5, 3, 12, 8 // values without names
		e.ProviderName = " Export-Test"
		e2 := xevent(2)
		e2.ProviderName = "Other name"
		e2.Message = "ok \uFFFE"
		e2.KeywordNames, e2.Keywords = []string{"K\x7F\u0085"}, 1
		_, got := exportIssues(t, e, e2)
		wantIssues(t, got,
			"approximated 1 : provider name cannot be written",
			"approximated 1 : text a manifest cannot carry",
			"approximated 1  padded : text a manifest cannot carry",
			"approximated 1 bad\x01name: text a manifest cannot carry",
			"approximated 2 : provider name cannot be written",
			"approximated 2 : text a manifest cannot carry",
		)
	})
	t.Run("layout", func(t *testing.T) {
		notArray := xprop("N", tdh.InTypeUInt8)
		notArray.Count = 3
		members := xprop("M", tdh.InTypeUInt8)
		members.Members = []tdh.Property{xprop("X", tdh.InTypeUInt8)}
		st := tdh.Property{Name: "St", LengthIndex: -1, CountIndex: -1, OutType: tdh.OutTypeNoPrint, Members: []tdh.Property{xprop("Y", tdh.InTypeUInt8)}}
		both := xprop("Both", tdh.InTypeBinary)
		both.Length, both.LengthIndex = 4, 0
		null := xprop("Null", tdh.InTypeNull)
		_, got := exportIssues(t, xevent(1, notArray, members, st, both, null, xprop("Lost", tdh.InTypeUInt8)))
		wantIssues(t, got,
			"approximated 1 N: property layout a manifest cannot express",
			"approximated 1 M: property layout a manifest cannot express",
			"approximated 1 St: property layout a manifest cannot express",
			"approximated 1 Both: property layout a manifest cannot express",
			"approximated 1 Null: in-type has no manifest spelling",
		)
	})
}

// TestExportTypeSpellings checks the spelling of every in-type and
// out-type number: what Parse reads it back as, and whether mc.exe would.
func TestExportTypeSpellings(t *testing.T) {
	for n := 0; n < 1024; n++ {
		in := tdh.InType(n)
		name, standard, ok := inTypeSpelling(in)
		wantOK := n >= 1 && n <= 25 && n != 24 || in == tdh.InTypeUnicodeChar || in == tdh.InTypeSizeT || in == tdh.InTypeWBEMSID
		if ok != wantOK {
			t.Errorf("in-type %d (%v): spelled %t, want %t", n, in, ok, wantOK)
		}
		if !ok {
			continue
		}
		if wantStd := n <= 25; standard != wantStd || standard && name != in.String() {
			t.Errorf("in-type %d: %q standard %t", n, name, standard)
		}
		spec, found := lookupInType(name)
		if !found || spec.inType != in || spec.suspect || spec.outType != 0 || spec.length != 0 {
			t.Errorf("in-type %d written as %q reads back as %+v (found %t)", n, name, spec, found)
		}
	}
	// The in-types written for MOF-only ones without a spelling.
	for _, c := range []struct {
		in   tdh.InType
		len  uint16
		want tdh.InType
	}{
		{tdh.InTypeMOFCountedString, 0, tdh.InTypeCountedString},
		{tdh.InTypeMOFCountedAnsiString, 0, tdh.InTypeCountedAnsiString},
		{tdh.InTypeAnsiChar, 0, tdh.InTypeUInt8},
		{tdh.InTypeAnsiChar, 4, tdh.InTypeAnsiString},
	} {
		p := xprop("P", c.in)
		p.Length = c.len
		if got := exportedInType(&p); got != c.want {
			t.Errorf("%v length %d exported as %v, want %v", c.in, c.len, got, c.want)
		}
	}
	for n := 0; n < 1024; n++ {
		out := tdh.OutType(n)
		name, standard := outTypeSpelling(out)
		if wantStd := isManifestName(out.String()) && n != 0; standard != wantStd || standard && name != out.String() {
			t.Errorf("out-type %d (%v): %q standard %t", n, out, name, standard)
		}
		if got, ok := OutTypeByName(name); !ok || got != out {
			t.Errorf("out-type %d written as %q reads back as %v (%t)", n, name, got, ok)
		}
	}
}

// TestExportAllTypes round-trips a property of every in-type with a
// spelling, and one with every named out-type.
func TestExportAllTypes(t *testing.T) {
	var props []tdh.Property
	for n := 0; n < 1024; n++ {
		if _, _, ok := inTypeSpelling(tdh.InType(n)); ok {
			p := xprop(fmt.Sprintf("In%d", n), tdh.InType(n))
			if p.InType == tdh.InTypeBinary {
				p.Length = 4
			}
			props = append(props, p)
		}
	}
	for n := 1; n <= 38; n++ {
		p := xprop(fmt.Sprintf("Out%d", n), tdh.InTypeUInt32)
		p.OutType = tdh.OutType(n)
		props = append(props, p)
	}
	r, got := exportIssues(t, xevent(1, props...))
	wantIssues(t, got, "nonstandard 1 In306: in-type has no manifest spelling", "nonstandard 1 In308: in-type has no manifest spelling",
		"nonstandard 1 In310: in-type has no manifest spelling")
	if r.exact != 1 {
		t.Errorf("not read back equal")
	}
}

// TestExportEscaping checks texts with markup, white space that attribute
// normalization would change, and characters XML 1.0 cannot carry.
func TestExportEscaping(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`a&b<c>d"e'f`, `a&amp;b&lt;c&gt;d&quot;e'f`},
		{"tab\tnl\ncr\r", "tab&#9;nl&#10;cr&#13;"},
		{"é€😀", "é€😀"},
		{"nul\x00 bel\x07 \uFFFE \xff", "nul\uFFFD bel\uFFFD \uFFFD \uFFFD"},
	} {
		var b bytes.Buffer
		appendAttrValue(&b, c.in)
		if b.String() != c.want {
			t.Errorf("appendAttrValue(%q) = %q, want %q", c.in, b.String(), c.want)
		}
	}
	for _, c := range []struct {
		in, want string
		changed  bool
	}{
		{"plain", "plain", false},
		{"\t\n\r ok \uFFFD \U0010FFFF", "\t\n\r ok \uFFFD \U0010FFFF", false},
		{"\x01", "\uFFFD", true},
		{"a\uFFFFb", "a\uFFFDb", true},
		{"bad \xed\xa0\x80 surrogate", "bad \uFFFD\uFFFD\uFFFD surrogate", true},
	} {
		got, changed := xmlText(c.in)
		if got != c.want || changed != c.changed {
			t.Errorf("xmlText(%q) = %q %t, want %q %t", c.in, got, changed, c.want, c.changed)
		}
	}
	// Every printable and white-space character of these texts comes back.
	texts := []string{`<&>"'`, "\t\n\r\n", " lead and trail ", "$(string.x) in text", "100%% %1 %n", "\u0085\u00A0\u2028", "]]>", "<!-- -->", "&amp;"}
	var schemas []*tdh.Event
	for i, s := range texts {
		m := &tdh.Map{Name: "M" + fmt.Sprint(i), Kind: tdh.ValueMap, Entries: []tdh.MapEntry{{Value: 1, Message: s}}}
		p := xprop("F"+fmt.Sprint(i), tdh.InTypeUInt8)
		p.Map = m
		e := xevent(uint16(i+1), p)
		e.Message, e.TaskName, e.Task, e.OpcodeName, e.Opcode, e.LevelName, e.Level = s, s, 1, s, 20, s, 30
		e.KeywordNames, e.Keywords = []string{s}, 1<<uint(i)
		e.ChannelName, e.Channel = s, 17
		schemas = append(schemas, e)
	}
	r, got := exportIssues(t, schemas...)
	wantIssues(t, got)
	if r.exact != len(texts) {
		t.Errorf("%d of %d read back equal", r.exact, len(texts))
	}
}

// TestExportDeterministic: the same schemas give the same bytes, whatever
// their order.
func TestExportDeterministic(t *testing.T) {
	schemas := mof.KernelSchemas()
	for i := 0; i < 3; i++ {
		e := xevent(uint16(i))
		e.ProviderGUID[0] = byte(i)
		e.Keywords, e.KeywordNames = 3, []string{"A", "B"}
		schemas = append(schemas, e)
	}
	var a, b bytes.Buffer
	ia, _ := WriteXML(&a, schemas)
	reversed := make([]*tdh.Event, len(schemas))
	for i, s := range schemas {
		reversed[len(schemas)-1-i] = s
	}
	ib, _ := WriteXML(&b, reversed)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the same schemas in another order give other bytes")
	}
	if fmt.Sprint(ia) != fmt.Sprint(ib) {
		t.Error("the same schemas in another order give other issues")
	}
	for i := 0; i < 3; i++ {
		var c bytes.Buffer
		WriteXML(&c, schemas)
		if !bytes.Equal(a.Bytes(), c.Bytes()) {
			t.Fatal("the same schemas give other bytes")
		}
	}
}

func TestExportFileName(t *testing.T) {
	g := uuid.MustParse("a0c1853b-5c40-4b15-8766-3cf1c58f985a")
	for _, c := range []struct{ in, want string }{
		{"Microsoft-Windows-PowerShell", "Microsoft-Windows-PowerShell." + g.String() + ".man"},
		{`a<b>c:d"e/f\g|h?i*j` + "\x01", "a_b_c_d_e_f_g_h_i_j_." + g.String() + ".man"},
		{" .hidden. ", "hidden." + g.String() + ".man"},
		{"", g.String() + ".man"},
		{"...", g.String() + ".man"},
		{"con", "_con." + g.String() + ".man"},
		{"NUL.provider", "_NUL.provider." + g.String() + ".man"},
		{"COM1", "_COM1." + g.String() + ".man"},
		{"COMPANY", "COMPANY." + g.String() + ".man"},
		{strings.Repeat("é", 80), strings.Repeat("é", 50) + "." + g.String() + ".man"},
		{"bad\xffutf8", "bad_utf8." + g.String() + ".man"},
	} {
		if got := ExportFileName(c.in, g); got != c.want {
			t.Errorf("ExportFileName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestGroupByProvider(t *testing.T) {
	g1, g2, g3 := uuid.MustParse("00000000-0000-0000-0000-000000000001"), uuid.MustParse("00000000-0000-0000-0000-000000000002"), uuid.MustParse("00000000-0000-0000-0000-000000000003")
	mk := func(name string, g uuid.UUID, id uint16, v uint8) *tdh.Event {
		return &tdh.Event{ProviderName: name, ProviderGUID: g, ID: id, Version: v}
	}
	a, b, c, d, e := mk("B", g1, 5, 0), mk("B", g1, 1, 2), mk("A", g2, 1, 0), mk("B", g3, 0, 0), mk("B", g1, 1, 1)
	groups := GroupByProvider([]*tdh.Event{a, b, nil, c, d, e})
	got := ""
	for _, g := range groups {
		for _, s := range g {
			got += fmt.Sprintf("%s/%d/%d.%d ", s.ProviderName, s.ProviderGUID[15], s.ID, s.Version)
		}
		got += "| "
	}
	if want := "A/2/1.0 | B/1/1.1 B/1/1.2 B/1/5.0 | B/3/0.0 | "; got != want {
		t.Errorf("groups %s, want %s", got, want)
	}
}

// FuzzExportRoundTrip parses arbitrary manifests; whatever compiles must
// export, parse and compile again to equal schemas, or the exporter must
// have said why not.
func FuzzExportRoundTrip(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	for _, s := range wepFuzzSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(fullManifest))
	f.Add([]byte(dumpedManifest))
	var sample bytes.Buffer
	WriteXML(&sample, exportSample())
	f.Add(sample.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		schemas, _ := m.Schemas()
		if len(schemas) == 0 {
			return
		}
		r := roundTrip(t, "fuzz", schemas)
		for _, pr := range r.problems {
			t.Error(pr)
		}
		if t.Failed() {
			t.Logf("exported:\n%s", r.xml)
		}
	})
}

// TestExportDeepStructs: structs nested deeper than Parse reads are left
// out, reported.
func TestExportDeepStructs(t *testing.T) {
	p := xprop("Leaf", tdh.InTypeUInt8)
	for i := 0; i < maxStructDepth+2; i++ {
		p = tdh.Property{Name: fmt.Sprintf("S%d", i), LengthIndex: -1, CountIndex: -1, Members: []tdh.Property{p}}
	}
	_, got := exportIssues(t, xevent(1, p, xprop("After", tdh.InTypeUInt8)))
	var approx []string
	for _, g := range got {
		if strings.HasPrefix(g, "approximated") {
			approx = append(approx, g)
		}
	}
	wantIssues(t, approx, "approximated 1 S9.S8.S7.S6.S5.S4.S3.S2.S1: property layout a manifest cannot express")
}

// oddManifest holds what real and broken manifests do that a clean export
// does not: undefined references, dumper names, shared keyword messages,
// a provider GUID used twice, references by normalized names.
const oddManifest = `<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events" xmlns:w="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Odd" guid="{11111111-2222-3333-4444-555555555555}">
      <channels>
        <channel name="Odd/Debug" chid="dbg" type="Debug"/>
        <importChannel name="Application"/>
      </channels>
      <levels><level name="Custom" value="16" message="$(string.info)"/></levels>
      <tasks>
        <task name="T1" value="1"><opcodes><opcode name="Op" value="10"/></opcodes></task>
        <task name="T2" value="2" message="$(string.missing)"><opcodes><opcode name="Op" value="11" message="$(string.info)"/></opcodes></task>
        <task name="task_7" value="7"/>
      </tasks>
      <opcodes><opcode name="Op" value="12"/></opcodes>
      <keywords>
        <keyword name="K1" mask="0x1" message="$(string.net)"/>
        <keyword name="K2" mask="0x2" message="$(string.net)"/>
        <keyword name="K3" mask="0x4"/>
        <keyword name="K3alias" mask="0x4"/>
        <keyword name="Wide" mask="0x18"/>
      </keywords>
      <maps><bitMap name="B"><map value="0x0" message="$(string.none)"/><map value="0x1" message="$(string.missing2)"/></bitMap></maps>
      <templates>
        <template tid="t1">
          <data name="SHA1HashSize" inType="w:UInt16"/>
          <data name="Hash" inType="win:Binary" length="SHA1 Hash Size"/>
          <data name="12" inType="win:UInt8" map="B"/>
          <data name="Undef" inType="win:UInt32" map="NoSuchMap"/>
          <data name="Ip" inType="win:IPAddrV6"/>
          <data name="Raw" inType="win:UInt64" outType="win:999"/>
        </template>
      </templates>
      <events>
        <event value="1" level="win:Always" task="T1" opcode="Op" keywords="K1" channel="dbg" template="t1" message="$(string.msg)"/>
        <event value="2" level="Custom" task="T2" opcode="Op" keywords="K2 K3alias" channel="Application"/>
        <event value="3" level="Nope" task="Nope" opcode="Nope" keywords="K1 K2 Nope" channel="Nope"/>
        <event value="4" task="task_7" opcode="Op" keywords="Wide K3 win:ResponseTime"/>
        <event value="5" task="None" opcode="win:Stop" symbol="  spaced  " message="$(string.refmsg)"/>
        <event value="65541" version="1" keywords="win:EventlogClassic"/>
      </events>
    </provider>
    <provider name="Odd again" guid="{11111111-2222-3333-4444-555555555555}">
      <events>
        <event value="1" version="0" symbol="Dup"/>
        <event value="9" symbol="Nine"/>
      </events>
    </provider>
  </events></instrumentation>
  <localization><resources culture="en-US"><stringTable>
    <string id="info" value="Information"/>
    <string id="net" value="Net"/>
    <string id="none" value="None set"/>
    <string id="msg" value="A &amp; B %1"/>
    <string id="refmsg" value="$(string.msg)"/>
  </stringTable></resources></localization>
</instrumentationManifest>`

// TestExportOddManifest round-trips a manifest with the oddities real
// ones have: what differs must be explained.
func TestExportOddManifest(t *testing.T) {
	m, err := Parse(strings.NewReader(oddManifest), "odd.man")
	if err != nil {
		t.Fatal(err)
	}
	schemas, errs := m.Schemas()
	for _, err := range errs {
		t.Log(err)
	}
	if len(errs) != 0 {
		t.Fatalf("%d events do not compile", len(errs))
	}
	r, got := exportIssues(t, schemas...)
	// Everything comes back but the second provider's name, which the
	// GUID's other events override, and its event 1, which the first
	// provider has too.
	wantIssues(t, got,
		"skipped 1 : another schema has the same provider, id and version",
		"nonstandard 1 Raw: out-type has no manifest name",
		"approximated 9 : provider name cannot be written")
	if r.events != 7 || r.exact != 6 || r.skipped != 1 {
		t.Errorf("%d events written, %d equal, %d skipped; want 7, 6, 1", r.events, r.exact, r.skipped)
	}
}

// schemaBytes builds schemas from fuzz input, drawing names from a pool of
// awkward texts and types from every number that matters.
type schemaBytes struct{ b []byte }

func (s *schemaBytes) next() byte {
	if len(s.b) == 0 {
		return 0
	}
	c := s.b[0]
	s.b = s.b[1:]
	return c
}

func (s *schemaBytes) u64() uint64 {
	var v uint64
	for i := 0; i < int(s.next()%9); i++ {
		v = v<<8 | uint64(s.next())
	}
	return v
}

var fuzzTexts = []string{"", "A", "Information", "None", "Start", "Response Time", " padded ", "$(string.x)", "a b", "x\x01y",
	"System", "win:Start", "12", "A", "Net", "é/ü", "Log Always", "Keyword_0x1", "\t", "Field_1"}

func (s *schemaBytes) text() string { return fuzzTexts[int(s.next())%len(fuzzTexts)] }

var fuzzInTypes = []tdh.InType{0, 1, 2, 4, 6, 8, 10, 13, 14, 15, 16, 19, 20, 22, 24, 25, 300, 301, 302, 304, 306, 307, 308, 309, 310, 400}

func (s *schemaBytes) props(depth int) []tdh.Property {
	n := int(s.next() % 5)
	out := make([]tdh.Property, n)
	for i := range out {
		p := &out[i]
		p.Name = s.text()
		flags := s.next()
		p.LengthIndex, p.CountIndex = int(s.next()%uint8(i+2))-1, -1
		if flags&1 != 0 && depth < 3 {
			p.Members = s.props(depth + 1)
			if p.Members == nil {
				p.Members = []tdh.Property{}
			}
		} else {
			p.InType = fuzzInTypes[int(s.next())%len(fuzzInTypes)]
			p.OutType = tdh.OutType(s.next() % 40)
		}
		if flags&2 != 0 {
			p.IsArray, p.Count, p.CountIndex = true, uint16(s.next()%4), int(s.next()%uint8(i+2))-1
		}
		if flags&4 != 0 {
			p.Length = uint16(s.next() % 5)
		}
		p.Optional, p.ToEnd = flags&8 != 0, flags&16 != 0
		if flags&32 != 0 {
			p.Tags = uint32(s.next())
		}
		if flags&64 != 0 {
			m := &tdh.Map{Name: s.text(), Kind: tdh.MapKind(s.next() % 5)}
			for k := 0; k < int(s.next()%4); k++ {
				m.Entries = append(m.Entries, tdh.MapEntry{Value: s.u64(), Message: s.text()})
			}
			p.Map = m
		}
	}
	return out
}

func (s *schemaBytes) schemas() []*tdh.Event {
	var out []*tdh.Event
	for n := int(s.next()%6) + 1; n > 0 && len(s.b) > 0; n-- {
		e := &tdh.Event{Source: tdh.Source(s.next() % 4), ProviderName: s.text(), ID: uint16(s.next() % 4), Version: s.next() % 2,
			Level: s.next() % 8, LevelName: s.text(), Task: uint16(s.next() % 3), TaskName: s.text(),
			Opcode: s.next() % 12, OpcodeName: s.text(), Channel: s.next() % 18, ChannelName: s.text(),
			EventName: s.text(), Message: s.text(), Keywords: s.u64()}
		e.ProviderGUID[0] = s.next() % 2
		for k := 0; k < int(s.next()%4); k++ {
			e.KeywordNames = append(e.KeywordNames, s.text())
		}
		if s.next()%4 == 0 {
			e.Tags = uint32(s.next())
		}
		if s.next()%5 == 0 {
			e.Alternates = []*tdh.Event{{}}
		}
		if s.next()%3 != 0 {
			e.Properties = s.props(0)
		}
		out = append(out, e)
	}
	return out
}

// FuzzExportSchemas exports schemas of every shape, not only those a
// manifest compiles to: every difference after the round trip must be
// explained by an issue.
func FuzzExportSchemas(f *testing.F) {
	f.Add([]byte("\x03\x01\x02\x01\x00\x04\x01\x02\x01\x05\x06\x07\x08\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a"))
	f.Add(bytes.Repeat([]byte{0x41, 0x07, 0xff, 0x12, 0x33}, 20))
	f.Add([]byte("000000000000000007001010000X000010")) // a length taken from a Pointer
	f.Fuzz(func(t *testing.T, data []byte) {
		schemas := (&schemaBytes{data}).schemas()
		r := roundTrip(t, "fuzz", schemas)
		for _, pr := range r.problems {
			t.Error(pr)
		}
		if t.Failed() {
			for _, is := range r.issues {
				t.Log(is)
			}
			t.Logf("exported:\n%s", r.xml)
		}
	})
}

// RoundTripResult is roundTrip's outcome for the external tests
// (export_decode_test.go), which can use decode, wevt and the other
// packages that import this one.
type RoundTripResult struct {
	Events, Exact, Approx, OnlySource, Skipped int
	Issues                                     []*ExportIssue
	Problems                                   []string // differences no issue explains
}

// RoundTrip exports schemas, reads them back and compares (see roundTrip).
func RoundTrip(t testing.TB, name string, schemas []*tdh.Event) RoundTripResult {
	t.Helper()
	r := roundTrip(t, name, schemas)
	return RoundTripResult{Events: r.events, Exact: r.exact, Approx: r.approx, OnlySource: r.onlySource, Skipped: r.skipped,
		Issues: r.issues, Problems: r.problems}
}

// TestExportKeywordRecovery: keyword masks come back from what events
// carry, TDH-style channel bits (56–63) included.
func TestExportKeywordRecovery(t *testing.T) {
	kw := func(id uint16, mask uint64, names ...string) *tdh.Event {
		e := xevent(id)
		e.Keywords, e.KeywordNames = mask, names
		return e
	}
	exact := []*tdh.Event{
		kw(1, 0x20|0x80|1<<63, "FILEIO", "CREATE"), // channel bit joins a keyword
		kw(2, 0x20, "FILEIO"),
		kw(3, 0x80|0x100, "CREATE", "DELETE"),
		kw(4, 0x600|1<<48|1<<62, "PAIR", "Response Time"), // a two-bit keyword next to a predefined one
		kw(5, 0x400, "HALF"),
		kw(6, 0x1|0x2, "Net", "Net"), // two keywords with one display name
		kw(7, 0x2|0x8, "Net", "Disk"),
		kw(8, 1<<63, "Chan"), // a provider keyword in the reserved bits, as dumped manifests have
	}
	r, got := exportIssues(t, exact...)
	wantIssues(t, got)
	if r.exact != len(exact) {
		t.Errorf("%d of %d read back equal", r.exact, len(exact))
	}
	_, got = exportIssues(t, kw(1, 1<<62), kw(2, 0x10), kw(3, 0x3, "A"), kw(4, 0x1, "A"))
	wantIssues(t, got,
		"approximated 1 : keyword names and mask cannot be reproduced", // channel bit left out
		"approximated 2 : keyword names and mask cannot be reproduced", // a made-up keyword
	)
}
