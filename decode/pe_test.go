package decode

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/wevt/wevttest"
)

// A folder of binaries imports the event manifests of the PE files that
// have one and passes over the others; the schemas equal the manifest's.
func TestImportPEFolder(t *testing.T) {
	m, err := manifest.Parse(strings.NewReader(esManifest), "demo.man")
	if err != nil {
		t.Fatal(err)
	}
	img, err := wevttest.PE(m, wevttest.Options{}, true)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "System32", "demo.dll"), string(img))
	writeFile(t, filepath.Join(dir, "System32", "notpe.dll"), strings.Repeat("x", 4096))
	writeFile(t, filepath.Join(dir, "System32", "readme.txt"), "not a schema")
	d := New()
	rep, err := d.ImportFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files != 1 || rep.Events != 1 || rep.Ignored != 1 {
		t.Errorf("report %+v: want 1 file, 1 event, 1 ignored", rep)
	}
	fromPE, ok := d.Registry.Lookup(esProvider, 7, 0)
	if !ok {
		t.Fatal("the PE file's event is not registered")
	}
	want, _ := m.Schemas()
	if fromPE.Message != want[0].Message || fromPE.TaskName != want[0].TaskName || len(fromPE.Properties) != len(want[0].Properties) {
		t.Errorf("from the PE: %+v\nfrom the manifest: %+v", fromPE, want[0])
	}
	// It decodes an event as the manifest does.
	payload := append([]byte{3, 0, 0, 0}, []byte{'j', 0, 'o', 0, 'b', 0, 0, 0}...)
	ev := &etl.Event{Header: etl.HeaderEvent64, ProviderID: esProvider, Descriptor: etl.EventDescriptor{ID: 7, Task: 1, Opcode: 1, Level: 4}, UserData: payload}
	res := d.Decode(ev)
	if res.Err != nil || res.Origin.Kind != "import" || !strings.HasSuffix(res.Origin.File, "demo.dll") {
		t.Errorf("decode: %v from %v", res.Err, res.Origin)
	}
	// A named file that is a PE without a manifest is an error.
	if _, err := d.ImportFiles(filepath.Join(dir, "System32", "notpe.dll")); err == nil {
		t.Error("a named .dll that is no PE file: no error")
	}
}

// calc.exe of Windows 7 (../shared/pe): its provider and events list.
func TestCorpusCalcExe(t *testing.T) {
	dir := os.Getenv("ETL_PE")
	if dir == "" {
		corpus, _ := corpusDirs(t)
		dir = filepath.Join(corpus, "..", "pe")
	}
	path := filepath.Join(dir, "calc.exe")
	schemas, skipped, err := ReadSchemas(path)
	if err != nil || len(skipped) > 0 {
		t.Fatalf("%s: %v %v", path, err, skipped)
	}
	if len(schemas) != 27 {
		t.Errorf("%d events, want 27", len(schemas))
	}
	calc := uuid.MustParse("75f48521-4131-4ac3-9887-65473224fcb2")
	for _, s := range schemas {
		if s.ProviderGUID != calc || s.ProviderName != "Microsoft-Windows-Calculator" {
			t.Errorf("event %d: provider %s %v", s.ID, s.ProviderName, s.ProviderGUID)
		}
	}
	var b bytes.Buffer
	for _, s := range schemas {
		if s.ID == 1 {
			b.WriteString(s.TaskName + "/" + s.OpcodeName + " " + s.Properties[0].Name)
		}
	}
	if b.String() != "HistoryToggle/Start Eventnumber" {
		t.Errorf("event 1: %q", b.String())
	}
}

// One damaged binary among the paths named is reported and the others
// are imported (it stopped the whole import); named alone, it is the
// error.
func TestImportDamagedPE(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.dll")
	m, err := manifest.Parse(strings.NewReader(esManifest), "demo.man")
	if err != nil {
		t.Fatal(err)
	}
	img, err := wevttest.PE(m, wevttest.Options{Damaged: true}, true)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, bad, string(img))
	good := filepath.Join(dir, "demo.man")
	writeFile(t, good, esManifest)
	missing := filepath.Join(dir, "missing.man")
	d := New()
	rep, err := d.ImportFiles(bad, good, missing)
	if err != nil {
		t.Fatalf("a damaged and a missing file beside a good one: %v", err)
	}
	if rep.Files != 1 || rep.Events != 1 || len(rep.Failed) != 2 {
		t.Errorf("report %+v: want 1 file, 1 event, 2 failed", rep)
	}
	if len(rep.Failed) == 2 && (!strings.Contains(rep.Failed[0].Error(), "bad.dll") || !strings.Contains(rep.Failed[1].Error(), "missing.man")) {
		t.Errorf("failures %v do not name the files", rep.Failed)
	}
	if _, ok := d.Registry.Lookup(esProvider, 7, 0); !ok {
		t.Error("the good manifest was not imported")
	}
	if err := New().Import(bad, good); err == nil || !strings.Contains(err.Error(), "bad.dll") {
		t.Errorf("Import joins the failures: %v", err)
	}
	rep, err = New().ImportFiles(bad)
	if err == nil || !strings.Contains(err.Error(), "bad.dll") || rep.Files != 0 {
		t.Errorf("the damaged file alone: %v, %+v", err, rep)
	}
}
