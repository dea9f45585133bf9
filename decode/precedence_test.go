package decode

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

var clrProvider = uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")

// oneEventManifest is a manifest for provider guid with one event
// (id, version) named name whose template is the given <data> items.
func oneEventManifest(guid uuid.UUID, id, version int, name, data string) string {
	return `<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
 <instrumentation><events>
  <provider name="P" guid="{` + guid.String() + `}" symbol="P">
   <templates><template tid="T">` + data + `</template></templates>
   <events><event value="` + strconv.Itoa(id) + `" version="` + strconv.Itoa(version) + `" level="win:Informational" template="T" symbol="` + name + `"/></events>
  </provider>
 </events></instrumentation>
</instrumentationManifest>`
}

func writeFile(t *testing.T, path, s string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func gcStartV2(t *testing.T) *etl.Event {
	t.Helper()
	p := make([]byte, 26) // Count, Depth, Reason, Type u32; ClrInstanceID u16; ClientSequenceNumber u64
	binary.LittleEndian.PutUint32(p, 7)
	binary.LittleEndian.PutUint32(p[4:], 2)
	return &etl.Event{Header: etl.HeaderEvent64, ProviderID: clrProvider,
		Descriptor: etl.EventDescriptor{ID: 1, Version: 2, Opcode: 1, Task: 1, Level: 4}, UserData: p}
}

// The documented order: named files > trace > built-in > folders.
func TestPrecedence(t *testing.T) {
	ev := gcStartV2(t)
	d := New()
	res := d.Decode(ev)
	if res.Schema == nil || res.Err != nil || res.Origin.String() != "built-in" || res.Schema.EventName != "GCStart_V2" {
		t.Fatalf("built-in GCStart_V2: schema %v origin %v err %v", res.Schema != nil, res.Origin, res.Err)
	}
	if n, _ := res.Decoded.Top()[0].Uint(); n != 7 {
		t.Errorf("Count = %d, want 7", n)
	}

	// A folder of schemas does not override the built-in one, even when
	// its layout fits the payload too.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "lib", "clr.man"), oneEventManifest(clrProvider, 1, 2, "FromFolder", `<data name="Blob" inType="win:Binary" length="26"/>`))
	if _, err := d.ImportFiles(filepath.Join(dir, "lib")); err != nil {
		t.Fatal(err)
	}
	if res := d.Decode(ev); res.Schema.EventName != "GCStart_V2" || res.Origin.Kind != "built-in" {
		t.Errorf("after a folder import: %s from %v, want GCStart_V2 from built-in", res.Schema.EventName, res.Origin)
	}

	// A file named explicitly does.
	named := writeFile(t, filepath.Join(dir, "named.man"), oneEventManifest(clrProvider, 1, 2, "Named", `<data name="Blob" inType="win:Binary" length="26"/>`))
	if _, err := d.ImportFiles(named); err != nil {
		t.Fatal(err)
	}
	res = d.Decode(ev)
	if res.Schema.EventName != "Named" || res.Origin.String() != "import:"+named || res.Fallback {
		t.Errorf("after a named import: %s from %v (fallback %v), want Named from import:%s", res.Schema.EventName, res.Origin, res.Fallback, named)
	}

	// Among named files, the first named wins.
	d2 := New()
	a := writeFile(t, filepath.Join(dir, "a.man"), oneEventManifest(clrProvider, 1, 2, "A", `<data name="Blob" inType="win:Binary" length="26"/>`))
	b := writeFile(t, filepath.Join(dir, "b.man"), oneEventManifest(clrProvider, 1, 2, "B", `<data name="Blob" inType="win:Binary" length="26"/>`))
	if _, err := d2.ImportFiles(a, b); err != nil {
		t.Fatal(err)
	}
	if res := d2.Decode(ev); res.Schema.EventName != "A" {
		t.Errorf("a.man named before b.man: got %s", res.Schema.EventName)
	}
}

// A schema that does not fit gives way to one of lower precedence that
// does, and the result says so.
func TestFallbackToFittingSchema(t *testing.T) {
	ev := gcStartV2(t)
	dir := t.TempDir()
	short := writeFile(t, filepath.Join(dir, "short.man"), oneEventManifest(clrProvider, 1, 2, "Short", `<data name="Count" inType="win:UInt32"/>`))
	d := New()
	if _, err := d.ImportFiles(short); err != nil {
		t.Fatal(err)
	}
	res := d.Decode(ev)
	if res.Schema.EventName != "GCStart_V2" || !res.Fallback || res.Origin.Kind != "built-in" || res.Err != nil {
		t.Errorf("short schema named: got %s from %v fallback %v err %v; want GCStart_V2 from built-in by fallback",
			res.Schema.EventName, res.Origin, res.Fallback, res.Err)
	}
	// When nothing fits exactly, the schema of highest precedence stays,
	// with its leftover bytes.
	ev.UserData = append(ev.UserData, 1, 2, 3)
	res = d.Decode(ev)
	if res.Schema.EventName != "Short" || res.Fallback || len(res.Decoded.Extra) != 25 {
		t.Errorf("nothing fits: got %s fallback %v extra %d; want Short with 25 bytes left over", res.Schema.EventName, res.Fallback, len(res.Decoded.Extra))
	}
}

func TestImportFilesReport(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "good.man"), esManifest)
	writeFile(t, filepath.Join(dir, "other.xml"), "<notAManifest/>")
	writeFile(t, filepath.Join(dir, "bad.man"), "<instrumentationManifest><oops")
	writeFile(t, filepath.Join(dir, "skip.man"), oneEventManifest(esProvider, 9, 0, "Broken", `<data name="S" inType="win:UnicodeString" length="Missing"/>`))
	d := New()
	rep, err := d.ImportFiles(dir)
	if err != nil {
		t.Fatalf("a folder with problems: error %v; want warnings only", err)
	}
	if rep.Files != 1 || rep.Events != 1 || rep.Ignored != 1 || len(rep.Warnings) != 2 {
		t.Errorf("report %+v: want 1 file, 1 event, 1 ignored, 2 warnings", rep)
	}
	if s := rep.Summary(); s != "imported 1 file: 1 event; 2 warnings" {
		t.Errorf("summary %q", s)
	}
	var joined []string
	for _, w := range rep.Warnings {
		joined = append(joined, w.Error())
	}
	if all := strings.Join(joined, "\n"); !strings.Contains(all, "bad.man") || !strings.Contains(all, "skip.man") {
		t.Errorf("warnings do not name the files: %s", all)
	}
	// A missing path and a named file that is no schema are errors.
	if _, err := d.ImportFiles(filepath.Join(dir, "missing.man")); err == nil {
		t.Error("missing path: no error")
	}
	if _, err := d.ImportFiles(filepath.Join(dir, "other.xml")); err == nil {
		t.Error("named non-manifest: no error")
	}
}

func TestRegistryCandidates(t *testing.T) {
	reg := tdh.NewRegistry()
	mk := func(name string) *tdh.Event { return &tdh.Event{ProviderGUID: esProvider, ID: 1, EventName: name} }
	reg.AddFrom(tdh.Origin{Kind: tdh.OriginBuiltIn}, mk("builtin"))
	reg.AddFrom(tdh.Origin{Kind: tdh.OriginFolder, Order: 1}, mk("folder"))
	reg.AddFrom(tdh.Origin{Kind: tdh.OriginTrace, Name: "trace"}, mk("trace"))
	reg.AddFrom(tdh.Origin{Kind: tdh.OriginImport, Order: 2}, mk("import2"))
	reg.AddFrom(tdh.Origin{Kind: tdh.OriginImport, Order: 1}, mk("import1"))
	held := reg.Candidates(esProvider, 1, 0)
	reg.AddFrom(tdh.Origin{Kind: tdh.OriginTrace, Name: "trace"}, mk("trace-again")) // same origin: replaces
	var got []string
	for _, c := range reg.Candidates(esProvider, 1, 0) {
		got = append(got, c.Schema.EventName)
	}
	if want := "import1 import2 trace-again builtin folder"; strings.Join(got, " ") != want {
		t.Errorf("candidates %v, want %s", got, want)
	}
	if held[2].Schema.EventName != "trace" {
		t.Error("a slice returned earlier changed under its holder")
	}
	if s, _ := reg.Lookup(esProvider, 1, 0); s.EventName != "import1" {
		t.Errorf("Lookup = %s", s.EventName)
	}
	for i := 0; i < tdh.MaxCandidates; i++ {
		reg.AddFrom(tdh.Origin{Kind: tdh.OriginFolder, Order: 10 + i}, mk("more"))
	}
	if n := len(reg.Candidates(esProvider, 1, 0)); n != tdh.MaxCandidates {
		t.Errorf("%d candidates kept, want %d", n, tdh.MaxCandidates)
	}
	if reg.Dropped() == 0 {
		t.Error("nothing counted as dropped")
	}
}
