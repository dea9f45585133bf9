package wevt

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/pe"
	"github.com/etwkit/etw/pe/petest"
	"github.com/etwkit/etw/tdh"
	"github.com/etwkit/etw/wevt/wevttest"
)

// corpusDir returns dir under $ETL_CORPUS/.., skipping when ETL_CORPUS is
// not set and failing when it is set but dir is missing.
func corpusDir(t testing.TB, env string, rel ...string) string {
	t.Helper()
	d := os.Getenv(env)
	if d == "" {
		c := os.Getenv("ETL_CORPUS")
		if c == "" {
			t.Skipf("neither %s nor ETL_CORPUS is set", env)
		}
		d = filepath.Join(append([]string{c, ".."}, rel...)...)
	}
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		t.Fatalf("%s is not a directory (set %s or ETL_CORPUS to the shared corpus)", d, env)
	}
	return d
}

// vectorPair is one EventTraceKit test case: a manifest, a WEVT_TEMPLATE
// that mc.exe compiled from it and the message table it compiled.
type vectorPair struct {
	man, bin, msg string
}

// vectorPairs lists the compiled test vectors (failing when the schema
// corpus is there but they are not): every *.wevt.*.bin next to
// its .man, with the .msg.*.bin of the same flavour when there is one.
func vectorPairs(t testing.TB) []vectorPair {
	// ETL_SCHEMAS, like ETL_CORPUS/../schemas, is the schema corpus root.
	dir := filepath.Join(corpusDir(t, "ETL_SCHEMAS", "schemas"), "authored", "gix-event-trace-kit", "TestCases")
	bins, err := filepath.Glob(filepath.Join(dir, "*.wevt.*bin"))
	if err != nil || len(bins) == 0 {
		t.Fatalf("no compiled test vectors in %s", dir)
	}
	sort.Strings(bins)
	var out []vectorPair
	for _, bin := range bins {
		base, flavour, _ := strings.Cut(filepath.Base(bin), ".wevt.")
		p := vectorPair{man: filepath.Join(dir, base+".man"), bin: bin}
		if _, err := os.Stat(p.man); err != nil {
			t.Fatalf("%s has no manifest: %v", bin, err)
		}
		// wpf-etw.msg.v3-8.1-compat.bin goes with the -compat template;
		// the others share <base>.msg.bin.
		for _, m := range []string{base + ".msg." + flavour, base + ".msg.bin"} {
			if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
				p.msg = filepath.Join(dir, m)
				break
			}
		}
		out = append(out, p)
	}
	return out
}

func loadMessages(t testing.TB, path string) pe.MessageTable {
	t.Helper()
	if path == "" {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mt, err := pe.ParseMessageTable(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return mt
}

// TestCompiledVectorsSchemas is the main correctness check: for each of
// EventTraceKit's test cases, the binary manifest mc.exe compiled must
// compile to the same tdh schemas as the manifest XML it was compiled from.
//
// Fields that legitimately differ (and are not compared):
//   - EventName: the XML schemas carry the event's symbol, which mc.exe
//     does not compile into the binary; the binary's schemas have "".
//   - ProviderName with CRIM 3.1 (mc.exe before Windows 10): the name is
//     not in the binary. Checked to be "" (or a name taken from channel
//     names, which these vectors' channels do not allow).
//   - Property out-types: mc.exe stores the in-type's default where the
//     manifest gives none (tdh's OutTypeNull); the effective out-types
//     are compared.
//   - Lengths of SIDs and count="0"/length="0": mc.exe drops them
//     (manifest/wevt_test.go found the same); a dropped one is checked
//     to be one of these cases.
//
// Everything else must be equal: ids, versions, levels, opcodes, tasks,
// keywords, channels, the level/task/opcode/channel/keyword display
// names, messages, and property names, types, lengths, counts, their
// indexes, struct members and maps (names, kinds, entries and texts).
func TestCompiledVectorsSchemas(t *testing.T) {
	pairs := vectorPairs(t)
	var nEvents, nProps, nFiles int
	for _, vp := range pairs {
		name := filepath.Base(vp.bin)
		xm, err := manifest.ParseFile(vp.man)
		if err != nil {
			t.Fatalf("%s: %v", vp.man, err)
		}
		raw, err := os.ReadFile(vp.bin)
		if err != nil {
			t.Fatal(err)
		}
		mt := loadMessages(t, vp.msg)
		var lookup func(uint32) (string, bool)
		if mt != nil {
			lookup = mt.Lookup
		}
		bm, err := Parse(raw, lookup)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		nFiles++
		v3 := strings.Contains(name, ".v3")
		if len(bm.Providers) != len(xm.Providers) {
			t.Errorf("%s: %d providers, manifest %d", name, len(bm.Providers), len(xm.Providers))
			continue
		}
		for i, bp := range bm.Providers {
			xp := xm.Providers[i]
			where := fmt.Sprintf("%s: provider %s", name, xp.Name)
			if bp.GUID != xp.GUID {
				t.Errorf("%s: GUID %s, manifest %s", where, bp.GUID, xp.GUID)
				continue
			}
			if bp.Name != xp.Name {
				// CRIM 3 does not hold the name: Parse takes it from the
				// channel names, and says so, or leaves it empty.
				if !v3 || !guessedName(bm, bp) {
					t.Errorf("%s: name %q", where, bp.Name)
				}
				t.Logf("%s: CRIM 3 binary: provider name %q (not in the binary)", where, bp.Name)
			}
			if mt != nil && bp.Message != xp.Message {
				t.Errorf("%s: message %q, manifest %q", where, bp.Message, xp.Message)
			}
			compareDeclared(t, where, bp, xp, mt != nil)
			bs, berrs := bp.Schemas()
			xs, xerrs := xp.Schemas()
			if fmt.Sprint(berrs) != fmt.Sprint(xerrs) {
				t.Errorf("%s: schema errors %v, manifest %v", where, berrs, xerrs)
			}
			events, props := compareSchemas(t, where, bs, xs, bp.Name != xp.Name)
			nEvents += events
			nProps += props
		}
	}
	t.Logf("%d compiled manifests: %d events and %d properties compile to the same tdh schemas as their XML", nFiles, nEvents, nProps)
	t.Logf("tolerated: %d default out-types made explicit, %d SID lengths and %d count=\"0\" dropped by mc.exe",
		tolerated.defaultOutType, tolerated.sidLength, tolerated.countZero)
	if nFiles < 16 || nEvents < 1200 || nProps < 1100 {
		t.Errorf("only %d files, %d events, %d properties compared", nFiles, nEvents, nProps)
	}
}

// guessedName reports whether the provider's name is empty or was taken
// from its channel names (with a warning saying so).
func guessedName(m *manifest.Manifest, p *manifest.Provider) bool {
	if p.Name == "" {
		return true
	}
	for _, w := range m.Warnings {
		if strings.Contains(w, p.GUID.String()) && strings.Contains(w, fmt.Sprintf("%q taken from its channel names", p.Name)) {
			return true
		}
	}
	return false
}

// compareDeclared compares what the provider declares (predefined win:
// entries excluded on both sides). mc.exe sorts levels, opcodes, tasks and
// keywords by value, so the lists are compared sorted; it also lists the
// predefined channels events use without importing them, which the
// manifest model does not, so those are left out.
func compareDeclared(t *testing.T, where string, bp, xp *manifest.Provider, msgs bool) {
	t.Helper()
	same := func(what string, bl, xl []string) {
		t.Helper()
		sort.Strings(bl)
		sort.Strings(xl)
		if strings.Join(bl, "\n") != strings.Join(xl, "\n") {
			t.Errorf("%s: %s %v, manifest %v", where, what, bl, xl)
		}
	}
	level := func(l manifest.Level) string { return fmt.Sprintf("%s=%d %q", l.Name, l.Value, pick(msgs, l.Message)) }
	same("levels", describe(bp.Levels, level), describe(xp.Levels, level))
	task := func(k manifest.Task) string {
		return fmt.Sprintf("%s=%d %q %s %v", k.Name, k.Value, pick(msgs, k.Message), k.EventGUID, opcodes(k.Opcodes, msgs))
	}
	same("tasks", describe(bp.Tasks, task), describe(xp.Tasks, task))
	same("opcodes", opcodes(bp.Opcodes, msgs), opcodes(xp.Opcodes, msgs))
	keyword := func(k manifest.Keyword) string {
		return fmt.Sprintf("%s=%#x %q", k.Name, k.Value, pick(msgs, k.Message))
	}
	same("keywords", describe(bp.Keywords, keyword), describe(xp.Keywords, keyword))
	channel := func(c manifest.Channel) string {
		return fmt.Sprintf("%s=%d %q %v", c.Name, c.Value, pick(msgs, c.Message), c.Imported)
	}
	var bl []string
	for _, c := range bp.Channels {
		if c.Imported && !declares(xp, c.Name) {
			if _, ok := predefinedChannel(c.Name); ok {
				continue
			}
		}
		bl = append(bl, channel(c))
	}
	same("channels", bl, describe(xp.Channels, channel))
	maps := func(ms map[string]*manifest.Map) []string {
		var out []string
		for n, m := range ms {
			out = append(out, fmt.Sprintf("%s %v %v", n, m.Kind, entries(m, msgs)))
		}
		return out
	}
	same("maps", maps(bp.Maps), maps(xp.Maps))
}

// describe formats each element of v.
func describe[T any](v []T, f func(T) string) []string {
	var out []string
	for _, e := range v {
		out = append(out, f(e))
	}
	return out
}

func declares(p *manifest.Provider, channel string) bool {
	for _, c := range p.Channels {
		if c.Name == channel {
			return true
		}
	}
	return false
}

func predefinedChannel(name string) (manifest.Channel, bool) {
	for _, c := range manifest.PredefinedChannels() {
		if c.Name == name {
			return c, true
		}
	}
	return manifest.Channel{}, false
}

func pick(msgs bool, s string) string {
	if msgs {
		return s
	}
	return ""
}

func opcodes(list []manifest.Opcode, msgs bool) []string {
	return describe(list, func(o manifest.Opcode) string { return fmt.Sprintf("%s=%d %q", o.Name, o.Value, pick(msgs, o.Message)) })
}

func entries(m *manifest.Map, msgs bool) []string {
	return describe(m.Entries, func(e manifest.MapEntry) string { return fmt.Sprintf("%#x=%q", e.Value, pick(msgs, e.Message)) })
}

// compareSchemas compares the schemas compiled from a binary manifest (bs)
// with those compiled from its XML (xs), event by event (mc.exe sorts
// events by id and version, so they are matched by both); it returns the
// number of events and properties compared.
func compareSchemas(t *testing.T, where string, bs, xs []*tdh.Event, nameDiffers bool) (events, props int) {
	t.Helper()
	if len(bs) != len(xs) {
		t.Errorf("%s: %d schemas, manifest %d", where, len(bs), len(xs))
		return 0, 0
	}
	byKey := map[[2]int]*tdh.Event{}
	for _, s := range bs {
		byKey[[2]int{int(s.ID), int(s.Version)}] = s
	}
	for _, x := range xs {
		w := fmt.Sprintf("%s event %d v%d", where, x.ID, x.Version)
		b := byKey[[2]int{int(x.ID), int(x.Version)}]
		if b == nil {
			t.Errorf("%s: missing from the binary", w)
			continue
		}
		props += compareSchema(t, w, b, x, nameDiffers)
		events++
	}
	return events, props
}

// compareSchema compares a schema compiled from a binary manifest (b) with
// the one compiled from the XML (x); it returns the number of properties
// compared.
func compareSchema(t *testing.T, where string, b, x *tdh.Event, nameDiffers bool) int {
	t.Helper()
	if nameDiffers {
		b.ProviderName = x.ProviderName
	}
	if b.EventName != "" {
		t.Errorf("%s: event name %q from a binary", where, b.EventName)
	}
	b.EventName = x.EventName
	bp, xp := b.Properties, x.Properties
	b.Properties, x.Properties = nil, nil
	defer func() { b.Properties, x.Properties = bp, xp }()
	if !reflect.DeepEqual(b, x) {
		t.Errorf("%s:\n binary   %+v\n manifest %+v", where, *b, *x)
	}
	return compareProps(t, where, bp, xp)
}

// tolerated counts the differences mc.exe makes on purpose.
var tolerated struct {
	defaultOutType, sidLength, countZero int
}

func compareProps(t *testing.T, where string, b, x []tdh.Property) int {
	t.Helper()
	if len(b) != len(x) {
		t.Errorf("%s: %d properties, manifest %d", where, len(b), len(x))
		return 0
	}
	n := 0
	for i := range b {
		bp, xp := b[i], x[i]
		w := fmt.Sprintf("%s property %s", where, xp.Name)
		n++
		if bp.Name != xp.Name || bp.InType != xp.InType || bp.EffectiveOutType() != xp.EffectiveOutType() ||
			bp.LengthIndex != xp.LengthIndex || bp.CountIndex != xp.CountIndex || bp.IsStruct() != xp.IsStruct() {
			t.Errorf("%s:\n binary   %+v\n manifest %+v", w, bp, xp)
			continue
		}
		if bp.OutType != xp.OutType {
			tolerated.defaultOutType++
		}
		if bp.Length != xp.Length {
			if bp.Length == 0 && xp.InType == tdh.InTypeSID {
				tolerated.sidLength++
			} else {
				t.Errorf("%s: length %d, manifest %d", w, bp.Length, xp.Length)
			}
		}
		if bp.IsArray != xp.IsArray || bp.Count != xp.Count {
			// mc.exe drops count="0".
			if xp.IsArray && xp.Count == 0 && xp.CountIndex < 0 && !bp.IsArray && bp.Count == 0 {
				tolerated.countZero++
			} else {
				t.Errorf("%s: array %v count %d, manifest %v %d", w, bp.IsArray, bp.Count, xp.IsArray, xp.Count)
			}
		}
		if (bp.Map == nil) != (xp.Map == nil) {
			t.Errorf("%s: map %v, manifest %v", w, bp.Map, xp.Map)
		} else if bp.Map != nil && !reflect.DeepEqual(*bp.Map, *xp.Map) {
			t.Errorf("%s: map\n binary   %+v\n manifest %+v", w, *bp.Map, *xp.Map)
		}
		n += compareProps(t, w, bp.Members, xp.Members)
	}
	return n
}

// TestWevttestVectors compiles each EventTraceKit manifest with package
// wevttest and reads it back: the schemas must equal the XML's, names
// included (wevttest writes CRIM 5.1). This keeps the test compiler, which
// the corpus-free tests rely on, faithful on every manifest feature the
// vectors use.
func TestWevttestVectors(t *testing.T) {
	seen := map[string]bool{}
	n := 0
	for _, vp := range vectorPairs(t) {
		if seen[vp.man] {
			continue
		}
		seen[vp.man] = true
		xm, err := manifest.ParseFile(vp.man)
		if err != nil {
			t.Fatal(err)
		}
		crim, msgs, err := wevttest.Compile(xm, wevttest.Options{})
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(vp.man), err)
			continue
		}
		mt, err := pe.ParseMessageTable(petest.MessageTable(msgs))
		if err != nil {
			t.Fatal(err)
		}
		bm, err := Parse(crim, mt.Lookup)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(vp.man), err)
			continue
		}
		for i, xp := range xm.Providers {
			bp := bm.Providers[i]
			where := filepath.Base(vp.man) + ": " + xp.Name
			if bp.Name != xp.Name || bp.GUID != xp.GUID || bp.Message != xp.Message {
				t.Errorf("%s: provider %q %s %q", where, bp.Name, bp.GUID, bp.Message)
			}
			compareDeclared(t, where, bp, xp, true)
			bs, _ := bp.Schemas()
			xs, _ := xp.Schemas()
			events, _ := compareSchemas(t, where, bs, xs, false)
			n += events
		}
	}
	t.Logf("%d manifests, %d events round-tripped through wevttest", len(seen), n)
	if len(seen) < 10 || n < 500 {
		t.Errorf("only %d manifests, %d events", len(seen), n)
	}
}
