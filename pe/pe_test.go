package pe_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/etwkit/etw/pe"
	"github.com/etwkit/etw/pe/petest"
)

// testMessages covers the three entry encodings and a gap in the ids (two
// blocks).
var testMessages = []petest.Message{
	{ID: 1, Text: "First\r\n", Encoding: 1},
	{ID: 2, Text: "Zweite Ärger €\r\n", Encoding: 1},
	{ID: 3, Text: "ANSI caf\u00e9\r\n", Encoding: 0},
	{ID: 0x90000001, Text: "Provider \U0001F600\r\n", Encoding: 2},
	{ID: 0x90000002, Text: "", Encoding: 1},
}

func testResources() []petest.Resource {
	return []petest.Resource{
		{Type: "#3", Name: "#1", Lang: 1033, Data: bytes.Repeat([]byte{0xAB}, 40)},
		{Type: pe.WEVTTemplate, Name: "#1", Lang: 1033, Data: []byte("CRIM template bytes")},
		{Type: "#11", Name: "#1", Lang: 0, Data: petest.MessageTable(testMessages)},
		{Type: "#11", Name: "#1", Lang: 1031, Data: petest.MessageTable([]petest.Message{{ID: 1, Text: "Erste\r\n", Encoding: 1}, {ID: 7, Text: "Sieben", Encoding: 1}})},
		{Type: "MUI", Name: "#1", Lang: 1033, Data: []byte{1, 2, 3}},
		{Type: "#24", Name: "Custom Name", Lang: 1033, Data: []byte("<assembly/>")},
	}
}

func open(t testing.TB, b []byte) *pe.File {
	t.Helper()
	f, err := pe.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestBuiltFiles(t *testing.T) {
	for _, plus := range []bool{false, true} {
		b := petest.Build(petest.Options{PE32Plus: plus}, testResources())
		f := open(t, b)
		if f.Is64() != plus || (plus && f.Magic != pe.Magic32Plus) || (!plus && f.Magic != pe.Magic32) {
			t.Errorf("PE32+ %v: magic %#x", plus, f.Magic)
		}
		wantMachine := uint16(petest.MachineI386)
		if plus {
			wantMachine = petest.MachineAMD64
		}
		if f.Machine != wantMachine || len(f.Sections) != 2 || f.Sections[1].Name != ".rsrc" ||
			f.Sections[1].VirtualAddress != petest.RsrcRVA || f.ResourceRVA != petest.RsrcRVA || f.Size() != int64(len(b)) {
			t.Errorf("PE32+ %v: headers %+v", plus, f)
		}
		res, err := f.Resources()
		if err != nil {
			t.Fatal(err)
		}
		// Tree order: named types first (MUI < WEVT_TEMPLATE), then ids.
		var got []string
		for _, r := range res {
			got = append(got, r.Type.String()+"/"+r.Name.String()+"/"+r.Lang.String())
		}
		want := []string{"MUI/#1/#1033", "WEVT_TEMPLATE/#1/#1033", "#3/#1/#1033", "#11/#1/#0", "#11/#1/#1031", "#24/CUSTOM NAME/#1033"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("resources %v, want %v", got, want)
		}
		data, err := f.ResourceData(pe.TypeWEVTTemplate)
		if err != nil || string(data) != "CRIM template bytes" {
			t.Errorf("WEVT_TEMPLATE %q %v", data, err)
		}
		data, err = f.ResourceData(pe.ParseResID("wevt_template")) // case-insensitive, as FindResource
		if err != nil || string(data) != "CRIM template bytes" {
			t.Errorf("wevt_template %q %v", data, err)
		}
		if _, err := f.ResourceData(pe.ResID{ID: 12}); !errors.Is(err, pe.ErrNoResource) {
			t.Errorf("type 12: %v", err)
		}
		mt, err := f.MessageTable()
		if err != nil {
			t.Fatal(err)
		}
		wantMT := pe.MessageTable{1: "First\r\n", 2: "Zweite Ärger €\r\n", 3: "ANSI café\r\n",
			0x90000001: "Provider \U0001F600\r\n", 0x90000002: "", 7: "Sieben"}
		if !reflect.DeepEqual(mt, wantMT) {
			t.Errorf("messages %v, want %v", mt, wantMT)
		}
		if s, ok := mt.Lookup(2); !ok || s != "Zweite Ärger €\r\n" {
			t.Errorf("Lookup(2) %q %v", s, ok)
		}
		if _, ok := mt.Lookup(4); ok {
			t.Error("Lookup(4) found")
		}
		for name, want := range map[string]bool{"WEVT_TEMPLATE": true, "Wevt_Template": true, "#11": true, "MUI": true,
			"#24": true, "#12": false, "WEVT_TEMPLATES": false, "WEVT": false, "11": false} {
			got, err := pe.HasResourceType(bytes.NewReader(b), int64(len(b)), name)
			if err != nil || got != want {
				t.Errorf("HasResourceType(%q) = %v, %v; want %v", name, got, err, want)
			}
		}
	}
}

func TestParseResID(t *testing.T) {
	for s, want := range map[string]pe.ResID{"#11": {ID: 11}, "WEVT_TEMPLATE": {Name: "WEVT_TEMPLATE"},
		"#": {Name: "#"}, "#x": {Name: "#x"}, "#70000": {Name: "#70000"}} {
		if got := pe.ParseResID(s); got != want {
			t.Errorf("ParseResID(%q) = %+v", s, got)
		}
	}
	if !(pe.ResID{Name: "abc"}).Match(pe.ResID{Name: "ABC"}) || (pe.ResID{ID: 3}).Match(pe.ResID{Name: "#3"}) ||
		!(pe.ResID{ID: 3}).Match(pe.ResID{ID: 3}) {
		t.Error("Match")
	}
}

func TestNoResources(t *testing.T) {
	b := petest.Build(petest.Options{}, nil)
	f := open(t, b)
	if f.ResourceRVA != 0 {
		t.Fatalf("resource RVA %#x", f.ResourceRVA)
	}
	res, err := f.Resources()
	if err != nil || len(res) != 0 {
		t.Errorf("resources %v %v", res, err)
	}
	if ok, err := f.HasResourceType(pe.TypeWEVTTemplate); ok || err != nil {
		t.Errorf("HasResourceType %v %v", ok, err)
	}
	if _, err := f.ResourceData(pe.TypeMessageTable); !errors.Is(err, pe.ErrNoResource) {
		t.Errorf("ResourceData: %v", err)
	}
	mt, err := f.MessageTable()
	if err != nil || len(mt) != 0 {
		t.Errorf("message table %v %v", mt, err)
	}
}

func TestNotPE(t *testing.T) {
	pe32 := petest.Build(petest.Options{}, nil)
	badMagic := append([]byte(nil), pe32...)
	binary.LittleEndian.PutUint16(badMagic[0x58:], 0x107) // ROM image
	cases := map[string][]byte{
		"empty":       nil,
		"short":       []byte("MZ"),
		"no MZ":       make([]byte, 512),
		"no PE":       append([]byte("MZ"), make([]byte, 510)...),
		"far lfanew":  func() []byte { b := append([]byte(nil), pe32...); b[0x3F] = 0x7F; return b }(),
		"ROM image":   badMagic,
		"ETL-looking": bytes.Repeat([]byte{0xFF}, 4096),
	}
	for name, b := range cases {
		_, err := pe.NewFile(bytes.NewReader(b), int64(len(b)))
		var fe *pe.FormatError
		if !errors.Is(err, pe.ErrNotPE) || !errors.As(err, &fe) {
			t.Errorf("%s: %v", name, err)
		}
		if ok, err := pe.HasResourceType(bytes.NewReader(b), int64(len(b)), "WEVT_TEMPLATE"); ok || !errors.Is(err, pe.ErrNotPE) {
			t.Errorf("%s: HasResourceType %v %v", name, ok, err)
		}
	}
}

// patch returns a copy of b with a u32 written at off.
func patch(b []byte, off int, v uint32) []byte {
	c := append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(c[off:], v)
	return c
}

func patch16(b []byte, off int, v uint16) []byte {
	c := append([]byte(nil), b...)
	binary.LittleEndian.PutUint16(c[off:], v)
	return c
}

// TestHostileTrees damages the resource tree of a built file: every case
// must fail with a FormatError at the damaged place, quickly.
func TestHostileTrees(t *testing.T) {
	b := petest.Build(petest.Options{}, testResources())
	root := petest.RsrcOffset
	// Root: 2 named types (MUI, WEVT_TEMPLATE), 3 id types (3, 11, 24).
	if binary.LittleEndian.Uint16(b[root+12:]) != 2 || binary.LittleEndian.Uint16(b[root+14:]) != 3 {
		t.Fatal("unexpected layout")
	}
	firstEntry := root + 16
	muiDir := int(binary.LittleEndian.Uint32(b[firstEntry+4:]) &^ (1 << 31))
	muiNameEntry := root + muiDir + 16
	langDir := int(binary.LittleEndian.Uint32(b[muiNameEntry+4:]) &^ (1 << 31))
	langEntry := root + langDir + 16
	dataEntry := root + int(binary.LittleEndian.Uint32(b[langEntry+4:]))
	cases := []struct {
		name string
		b    []byte
		at   int // file offset the error must name
		msg  string
	}{
		{"loop to the root", patch(b, muiNameEntry+4, 1<<31), root, "reached twice"},
		{"loop to itself", patch(b, muiNameEntry+4, 1<<31|uint32(muiDir)), root + muiDir, "reached twice"},
		{"fourth level", patch(b, langEntry+4, 1<<31|uint32(langDir)), langEntry, "deeper than 3"},
		{"data at level 1", patch(b, firstEntry+4, uint32(dataEntry-root)), firstEntry, "level 1"},
		{"huge directory", patch16(b, root+14, 0xFFFF), root, "more than the resource section can hold"},
		{"directory beyond the section", patch(b, muiNameEntry+4, 1<<31|0x7FFFFF00), root + 0x7FFFFF00, "runs past"},
		{"name beyond the section", patch(b, firstEntry, 1<<31|0x7FFFFFF0), root + 0x7FFFFFF0, "runs past"},
		{"data entry beyond the section", patch(b, langEntry+4, 0x7FFFFFF0), root + 0x7FFFFFF0, "runs past"},
	}
	for _, c := range cases {
		f := open(t, c.b)
		_, err := f.Resources()
		var fe *pe.FormatError
		if !errors.As(err, &fe) || fe.Offset != int64(c.at) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v (want %q at %#x)", c.name, err, c.msg, c.at)
		}
	}
	// Data that runs past its section, or lies in no section.
	for name, bb := range map[string][]byte{
		"size past the section": patch(b, dataEntry+4, 0x10000),
		"RVA in no section":     patch(b, dataEntry, 0x900000),
	} {
		f := open(t, bb)
		res, err := f.ResourcesOfType(pe.ResID{Name: "MUI"})
		if err != nil || len(res) != 1 {
			t.Fatalf("%s: %v %v", name, res, err)
		}
		var fe *pe.FormatError
		if _, err := f.ReadResource(res[0]); !errors.As(err, &fe) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A damaged type the caller does not ask for is not read.
	f := open(t, patch(b, muiNameEntry+4, 1<<31))
	if data, err := f.ResourceData(pe.TypeWEVTTemplate); err != nil || string(data) != "CRIM template bytes" {
		t.Errorf("WEVT_TEMPLATE next to a damaged type: %q %v", data, err)
	}
	// Truncated files.
	for _, n := range []int{0x40, 0x58, 0x100, 0x1F0, root + 8, root + 100} {
		_, err := pe.NewFile(bytes.NewReader(b[:n]), int64(n))
		if err == nil {
			f := open(t, b[:n])
			_, err = f.Resources()
		}
		var fe *pe.FormatError
		if !errors.As(err, &fe) {
			t.Errorf("truncated to %#x: %v", n, err)
		}
	}
}

func TestMessageTableHostile(t *testing.T) {
	good := petest.MessageTable(testMessages)
	le := binary.LittleEndian
	cases := map[string][]byte{
		"empty":            nil,
		"too many blocks":  patch(good, 0, 0x10000000),
		"high below low":   patch(good, 8, 0),
		"all ids":          patch(patch(good, 4, 0), 8, 0xFFFFFFFF),
		"entries past end": patch(good, 12, uint32(len(good)-2)),
		"zero length":      patch16(good, int(le.Uint32(good[12:])), 0),
		"length past end":  patch16(good, int(le.Uint32(good[12:])), 0xFFFF),
		"bad flags":        patch16(good, int(le.Uint32(good[12:]))+2, 9),
	}
	// Many blocks sharing one entry: more entries than the bytes can hold.
	shared := make([]byte, 4+12*64+8)
	le.PutUint32(shared, 64)
	for i := 0; i < 64; i++ {
		le.PutUint32(shared[4+12*i:], uint32(100*i))
		le.PutUint32(shared[8+12*i:], uint32(100*i+20))
		le.PutUint32(shared[12+12*i:], uint32(4+12*64))
	}
	le.PutUint16(shared[4+12*64:], 8)
	le.PutUint16(shared[6+12*64:], 1)
	cases["shared entries"] = shared
	for name, b := range cases {
		_, err := pe.ParseMessageTable(b)
		var fe *pe.FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: %v", name, err)
		}
	}
	mt, err := pe.ParseMessageTable(good)
	if err != nil || len(mt) != len(testMessages) {
		t.Errorf("good table: %v %v", mt, err)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.n.Add(int64(len(p)))
	return c.r.ReadAt(p, off)
}

// bigFile serves a built PE followed by size−len(pe) zero bytes without
// allocating them.
type bigFile struct {
	head []byte
	size int64
}

func (b bigFile) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) && off+int64(n) < b.size {
		o := off + int64(n)
		if o < int64(len(b.head)) {
			n += copy(p[n:], b.head[o:])
			continue
		}
		p[n] = 0
		n++
	}
	return n, nil
}

// TestHasResourceTypeReadsLittle checks that scanning a large file reads
// only its headers and resource root, whatever its size.
func TestHasResourceTypeReadsLittle(t *testing.T) {
	const size = 1 << 30 // 1 GiB, never materialized
	built := petest.Build(petest.Options{PE32Plus: true}, testResources())
	zeros := bigFile{head: []byte("MZ"), size: size}
	for name, r := range map[string]bigFile{"PE with resources": {head: built, size: size}, "not a PE": zeros,
		"PE without resources": {head: petest.Build(petest.Options{}, nil), size: size}} {
		cr := &countingReader{r: r}
		ok, err := pe.HasResourceType(cr, size, "WEVT_TEMPLATE")
		if name == "PE with resources" && (!ok || err != nil) {
			t.Errorf("%s: %v %v", name, ok, err)
		}
		if n := cr.n.Load(); n > 4096 {
			t.Errorf("%s: read %d bytes", name, n)
		} else {
			t.Logf("%s (1 GiB): HasResourceType read %d bytes", name, n)
		}
	}
}

// peDir returns the folder of real Windows binaries: $ETL_PE, else
// $ETL_CORPUS/../pe; it skips when neither is set and fails when the
// folder is missing.
func peDir(t testing.TB) string {
	t.Helper()
	d := os.Getenv("ETL_PE")
	if d == "" {
		c := os.Getenv("ETL_CORPUS")
		if c == "" {
			t.Skip("neither ETL_PE nor ETL_CORPUS is set")
		}
		d = filepath.Join(c, "..", "pe")
	}
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		t.Fatalf("PE folder %s missing", d)
	}
	return d
}

func TestCalcResources(t *testing.T) {
	path := filepath.Join(peDir(t), "calc.exe")
	f, err := pe.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Machine != petest.MachineI386 || f.Is64() || len(f.Sections) != 4 || f.Sections[2].Name != ".rsrc" {
		t.Errorf("headers: machine %#x magic %#x sections %v", f.Machine, f.Magic, f.Sections)
	}
	res, err := f.Resources()
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	for _, r := range res {
		types[r.Type.String()]++
	}
	t.Logf("calc.exe: %d resources: %v", len(res), types)
	if types["WEVT_TEMPLATE"] != 1 || types["MUI"] != 1 || types["#11"] != 0 || types["#3"] != 16 || len(res) != 91 {
		t.Errorf("resource types %v (%d resources)", types, len(res))
	}
	data, err := f.ResourceData(pe.TypeWEVTTemplate)
	if err != nil || len(data) != 4750 || string(data[:4]) != "CRIM" {
		t.Errorf("WEVT_TEMPLATE: %d bytes, %v", len(data), err)
	}
	// Windows 7 keeps calc's message table in en-US\calc.exe.mui.
	if mt, err := f.MessageTable(); err != nil || len(mt) != 0 {
		t.Errorf("message table %d %v", len(mt), err)
	}
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	st, _ := fh.Stat()
	cr := &countingReader{r: fh}
	ok, err := pe.HasResourceType(cr, st.Size(), "WEVT_TEMPLATE")
	if !ok || err != nil || cr.n.Load() > 4096 {
		t.Errorf("HasResourceType: %v %v after reading %d bytes", ok, err, cr.n.Load())
	}
	t.Logf("HasResourceType(calc.exe, WEVT_TEMPLATE) read %d of %d bytes", cr.n.Load(), st.Size())
}
