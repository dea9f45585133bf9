package decode

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/tdh"
)

var esProvider = uuid.MustParse("a8a71ac1-040f-54a2-07ca-00a89b5ab761")

const esManifest = `<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
 <instrumentation><events>
  <provider name="Demo" guid="{a8a71ac1-040f-54a2-07ca-00a89b5ab761}" symbol="Demo">
   <tasks><task name="Work" value="1"/></tasks>
   <templates><template tid="T"><data name="Count" inType="win:Int32"/><data name="Name" inType="win:UnicodeString"/></template></templates>
   <events><event value="7" version="0" task="Work" opcode="win:Start" level="win:Informational" template="T" message="$(string.m)"/></events>
  </provider>
 </events></instrumentation>
 <localization><resources culture="en-US"><stringTable><string id="m" value="Work %2 started with %1 items"/></stringTable></resources></localization>
</instrumentationManifest>`

// manifestChunks splits a manifest into EventSource manifest events.
func manifestChunks(xml string, n int) [][]byte {
	var recs [][]byte
	size := (len(xml) + n - 1) / n
	for i := 0; i < n; i++ {
		part := xml[i*size : min(len(xml), (i+1)*size)]
		env := []byte{1, 1, 0, 0x5B, 0, 0, 0, 0}
		binary.LittleEndian.PutUint16(env[4:], uint16(n))
		binary.LittleEndian.PutUint16(env[6:], uint16(i))
		recs = append(recs, etltest.Event(etl.HeaderEvent64, 0, 1, 2, 80000000100+int64(i), esProvider,
			etl.EventDescriptor{ID: 0xFFFE, Version: 1, Opcode: 0xFE}, uuid.Nil, nil, append(env, part...)))
	}
	return recs
}

func TestEventSourceManifestFromTrace(t *testing.T) {
	payload := []byte{3, 0, 0, 0}
	payload = append(payload, etltest.UTF16Z("job")...)
	work := etltest.Event(etl.HeaderEvent64, 0, 1, 2, 80000000050, esProvider, etl.EventDescriptor{ID: 7, Level: 4, Opcode: 1, Task: 1}, uuid.Nil, nil, payload)
	tf := etltest.NewFile(8192, true)
	// The event comes before its manifest, which arrives in three chunks.
	tf.AddBuffer(0, 0, append([][]byte{work}, manifestChunks(esManifest, 3)...)...)
	b := tf.Bytes()
	f, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	d := New()
	if err := d.Prescan([]*etl.File{f}); err != nil {
		t.Fatal(err)
	}
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	seen := 0
	for r.Next() {
		ev := r.Event()
		res := d.Decode(ev)
		switch ev.Descriptor.ID {
		case 7:
			if res.Schema == nil || res.Err != nil {
				t.Fatalf("event 7: %+v", res)
			}
			msg := tdh.FormatMessage(res.Schema.Message, res.Decoded, nil)
			if res.Schema.ProviderName != "Demo" || res.Schema.TaskName != "Work" || msg != "Work job started with 3 items" {
				t.Errorf("event 7: %s/%s %q", res.Schema.ProviderName, res.Schema.TaskName, msg)
			}
			seen++
		case 0xFFFE:
			if res.Schema == nil || res.Err != nil || res.Schema.EventName != "ManifestData" {
				t.Errorf("manifest event: %+v", res)
			}
			seen++
		}
	}
	if seen != 4 {
		t.Errorf("saw %d events, want 4", seen)
	}
}

func TestEventSourceBadEnvelope(t *testing.T) {
	ev := &etl.Event{Header: etl.HeaderEvent64, ProviderID: esProvider, Descriptor: etl.EventDescriptor{ID: 0xFFFE, Opcode: 0xFE}, UserData: []byte{1, 2}}
	if res := New().Decode(ev); res.Err == nil {
		t.Error("a 2-byte manifest event decoded without error")
	}
}

func TestImportErrors(t *testing.T) {
	d := New()
	if err := d.Import(filepath.Join(t.TempDir(), "missing.man")); err == nil {
		t.Error("missing file: no error")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "good.man"), []byte(esManifest), 0o644)
	os.WriteFile(filepath.Join(dir, "other.xml"), []byte("<notAManifest/>"), 0o644)
	if err := d.Import(dir); err != nil {
		t.Errorf("folder with a non-manifest XML: %v", err)
	}
	if _, ok := d.Registry.Lookup(esProvider, 7, 0); !ok {
		t.Error("folder import did not register the manifest")
	}
	os.WriteFile(filepath.Join(dir, "bad.man"), []byte("<instrumentationManifest><oops"), 0o644)
	if err := d.Import(dir); err == nil || !strings.Contains(err.Error(), "bad.man") {
		t.Errorf("broken manifest: err = %v", err)
	}
}

// TestForkKeepsImportsAndTraceSchemasApart: a fork starts with the
// parent's imports; what a fork's prescan registers (an EventSource
// manifest) stays in that fork.
func TestForkKeepsImportsAndTraceSchemasApart(t *testing.T) {
	base := New()
	dir := t.TempDir()
	imported := strings.ReplaceAll(strings.ReplaceAll(esManifest, "a8a71ac1-040f-54a2-07ca-00a89b5ab761", "11111111-2222-3333-4444-555555555555"), `name="Demo"`, `name="Imported"`)
	path := filepath.Join(dir, "imported.man")
	if err := os.WriteFile(path, []byte(imported), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := base.Import(path); err != nil {
		t.Fatal(err)
	}
	impGUID := uuid.MustParse("11111111-2222-3333-4444-555555555555")
	tf := etltest.NewFile(8192, true)
	tf.AddBuffer(0, 0, manifestChunks(esManifest, 2)...)
	b := tf.Bytes()
	f, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	a, other := base.Fork(), base.Fork()
	if err := a.Prescan([]*etl.File{f}); err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string]*Decoder{"base": base, "fork a": a, "fork b": other} {
		if _, ok := d.Registry.Lookup(impGUID, 7, 0); !ok {
			t.Errorf("%s: the imported schema is missing", name)
		}
		_, ok := d.Registry.Lookup(esProvider, 7, 0)
		if want := name == "fork a"; ok != want {
			t.Errorf("%s: trace schema registered = %v, want %v", name, ok, want)
		}
	}
}

func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		New()
	}
}

// TestPrescannerKeepsFilesApart: two files log different manifests of the
// same EventSource provider, their chunks interleaved in time; fed by a
// time-ordered reader over both (as the analysis model's pass does), the
// prescanner assembles each file's chunks on their own and registers both.
func TestPrescannerKeepsFilesApart(t *testing.T) {
	manifestB := strings.ReplaceAll(esManifest, `value="7"`, `value="8"`)
	chunk := func(xml string, i, n int, ts int64) []byte {
		size := (len(xml) + n - 1) / n
		part := xml[i*size : min(len(xml), (i+1)*size)]
		env := []byte{1, 1, 0, 0x5B, 0, 0, 0, 0}
		binary.LittleEndian.PutUint16(env[4:], uint16(n))
		binary.LittleEndian.PutUint16(env[6:], uint16(i))
		return etltest.Event(etl.HeaderEvent64, 0, 1, 2, ts, esProvider,
			etl.EventDescriptor{ID: 0xFFFE, Version: 1, Opcode: 0xFE}, uuid.Nil, nil, append(env, part...))
	}
	file := func(xml string, t0 int64) *etl.File {
		tf := etltest.NewFile(8192, true)
		tf.AddBuffer(0, 0, chunk(xml, 0, 2, t0), chunk(xml, 1, 2, t0+10))
		b := tf.Bytes()
		f, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	files := []*etl.File{file(esManifest, 80000000100), file(manifestB, 80000000105)}
	d := New()
	p := d.NewPrescanner()
	r := etl.NewReader(files, nil)
	var order []int
	for r.Next() {
		if r.Event().Descriptor.ID == 0xFFFE {
			order = append(order, r.Event().File)
		}
		p.Observe(r.Event())
	}
	r.Close()
	if err := p.Finish(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, []int{0, 1, 0, 1}) {
		t.Fatalf("the chunks did not interleave: files %v", order)
	}
	for _, id := range []uint16{7, 8} {
		if _, ok := d.Registry.Lookup(esProvider, id, 0); !ok {
			t.Errorf("event %d of the manifests was not registered", id)
		}
	}
}

// TestRegistryReplaced: a decoder whose Registry field is replaced by
// another registry (of the same generation) decodes with the new one.
func TestRegistryReplaced(t *testing.T) {
	g := uuid.MustParse("11111111-2222-3333-4444-555555555555")
	schema := func(name string) *tdh.Event {
		return &tdh.Event{ProviderGUID: g, ID: 1, EventName: name, Properties: []tdh.Property{tdh.ScalarProperty("V", tdh.InTypeUInt8)}}
	}
	ev := &etl.Event{Header: etl.HeaderEvent64, ProviderID: g, Descriptor: etl.EventDescriptor{ID: 1}, UserData: []byte{7}}
	d := New()
	d.Registry = tdh.NewRegistry()
	d.Registry.Add(schema("first"))
	if res := d.Decode(ev); res.Schema == nil || res.Schema.EventName != "first" {
		t.Fatalf("first registry: %+v", res.Schema)
	}
	second := tdh.NewRegistry()
	second.Add(schema("second"))
	if second.Generation() != d.Registry.Generation() {
		t.Fatalf("generations %d and %d: the test needs them equal", second.Generation(), d.Registry.Generation())
	}
	d.Registry = second
	if res := d.Decode(ev); res.Schema == nil || res.Schema.EventName != "second" {
		t.Errorf("after replacing the registry: %+v", res.Schema)
	}
}

// TestEventSourceChunksOutOfOrder: a manifest whose chunk 1 is read
// before its chunk 0 (file order puts processors' buffers one after the
// other) is still assembled; chunk 0 read again starts a new manifest.
func TestEventSourceChunksOutOfOrder(t *testing.T) {
	chunks := manifestChunks(esManifest, 3)
	tf := etltest.NewFile(8192, true)
	tf.AddBuffer(0, 0, chunks[1], chunks[0], chunks[2])
	b := tf.Bytes()
	f, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	d := New()
	p := d.NewPrescanner()
	r := etl.NewReader([]*etl.File{f}, &etl.ReaderOptions{Order: etl.FileOrder})
	for r.Next() {
		p.Observe(r.Event())
	}
	r.Close()
	if err := p.Finish(); err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Registry.Lookup(esProvider, 7, 0); !ok {
		t.Error("the manifest read 1, 0, 2 was not registered")
	}
}

// TestDecodeStringOnlyDoesNotAllocate: a string-only event
// (EventWriteString) is decoded, with its provider's schema made once,
// without allocating.
func TestDecodeStringOnlyDoesNotAllocate(t *testing.T) {
	ev := etltest.Event(etl.HeaderEvent64, etl.FlagStringOnly, 1, 2, 80000000050, esProvider, etl.EventDescriptor{Level: 4}, uuid.Nil, nil, etltest.UTF16Z("hello"))
	tf := etltest.NewFile(8192, true)
	tf.AddBuffer(0, 0, ev)
	b := tf.Bytes()
	f, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	var e *etl.Event
	for r.Next() {
		if e = r.Event(); e.Flags&etl.FlagStringOnly != 0 {
			break
		}
	}
	if e == nil || e.Flags&etl.FlagStringOnly == 0 {
		t.Fatal("no string-only event read")
	}
	d := New()
	res := d.Decode(e)
	if res.Schema == nil || res.Err != nil || res.Schema.EventName != "EventWriteString" || string(tdh.AppendPropertiesJSON(nil, res.Decoded)) != `{"String":"hello"}` {
		t.Fatalf("decoded %+v", res)
	}
	if a := testing.AllocsPerRun(100, func() { d.Decode(e) }); a != 0 {
		t.Errorf("%v allocations per string-only event, want 0", a)
	}
}
