package wpp

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

func TestCorpus(t *testing.T) {
	root := os.Getenv("ETL_CORPUS")
	if root == "" {
		t.Skip("ETL_CORPUS is unset: the TMF corpus lives next to it in ../schemas/tmf")
	}
	dir := filepath.Join(root, "..", "schemas", "tmf")
	var files, blocks, msgs, schemas, failed int
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.EqualFold(filepath.Ext(path), ".tmf") {
			return err
		}
		files++
		f, err := ParseFile(path)
		if err != nil {
			t.Errorf("%v", err)
			return nil
		}
		blocks += len(f.Blocks)
		for _, b := range f.Blocks {
			msgs += len(b.Messages)
		}
		s, errs := f.Schemas()
		schemas += len(s)
		failed += len(errs)
		for i, e := range errs {
			if i < 3 {
				t.Logf("%v", e)
			}
		}
		for _, ev := range s {
			if ev.Source != tdh.SourceWPP || strings.Contains(ev.Message, "%0") {
				t.Errorf("%s: bad schema %+v", path, ev)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("no TMF files under %s", dir)
	}
	t.Logf("%d TMF files, %d GUID blocks, %d messages, %d schemas, %d messages not compiled", files, blocks, msgs, schemas, failed)
	if failed*100 > msgs {
		t.Errorf("%d of %d messages did not compile", failed, msgs)
	}
}

const allTypes = `// PDB:  test.pdb
11111111-2222-3333-4444-555555555555 Comp // SRC=x.c MJ= MN=
#typev x_c10 10 "%0 [%!FUNC!] a=%10!d! b=%11!u! c=%12!s! d=%13!s! e=%14!p! f=%15!s! g=%16!s!" //   LEVEL=TRACE_LEVEL_ERROR FLAGS=F FUNC=Fn
{
a, ItemLong -- 10
b, ItemULong -- 11
c, ItemString -- 12
d, ItemWString -- 13
e, ItemPtr -- 14
f, ItemNTSTATUS -- 15
g, ItemListLong(off,on) -- 16
}
#typev x_c20 11 "%0%11!s! %10!s! %12!s! %13!s!"
{
h, ItemEnum(_E) -- 10
i, ItemSetLong(r,w,x) -- 11
j, ItemPString -- 12
k, ItemPWString -- 13
}
#enumv _E
{
Zero,0x0
Two,2
}
#typev x_c30 12 "%0%10 %11 %12 %13 %14 %15 %16 %17 %18 %19 %20 %21 %22 %23 %24"
{
a, ItemChar
b, ItemUChar
c, ItemShort
d, ItemUShort
e, ItemLongLong
f, ItemULongLong
g, ItemDouble
h, ItemGuid
i, ItemWINERROR
j, ItemHRESULT
k, ItemIPAddr
l, ItemPort
m, ItemTimestamp
n, ItemSid
o, ItemHexDump
}
aaaaaaaa-2222-3333-4444-555555555555 Sys
#version 2
#typev Start 1 "%0Started "%11!s!" pid %10!X!"
#typev End   2 "%0Ended "%11!s!" pid %10!X!"   // comment "quoted"
{
    ProcessId, ItemPtr
    Name,      ItemString   /11
    Zone,      ItemCharHidden[8]     //12
    Drive,     ItemWChar[4]
}
`

func TestItemTypes(t *testing.T) {
	f, err := Parse(strings.NewReader(allTypes), "all.tmf")
	if err != nil {
		t.Fatal(err)
	}
	s, errs := f.Schemas()
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(s) != 5 {
		t.Fatalf("%d schemas, want 5", len(s))
	}
	e := s[0]
	if e.ProviderName != "Comp" || e.ID != 10 || e.EventName != "x_c10" || e.Level != 2 || e.ProviderGUID != uuid.MustParse("11111111-2222-3333-4444-555555555555") {
		t.Errorf("header: %+v", e)
	}
	if want := " [Fn] a=%1!d! b=%2!u! c=%3!s! d=%4!s! e=%5!p! f=%6!s! g=%7!s!"; e.Message != want {
		t.Errorf("message %q, want %q", e.Message, want)
	}
	want := []tdh.InType{tdh.InTypeInt32, tdh.InTypeUInt32, tdh.InTypeAnsiString, tdh.InTypeUnicodeString, tdh.InTypePointer, tdh.InTypeUInt32, tdh.InTypeUInt32}
	for i, p := range e.Properties {
		if p.InType != want[i] || p.LengthIndex != -1 || p.CountIndex != -1 {
			t.Errorf("x_c10 property %d: %+v", i, p)
		}
	}
	if e.Properties[5].OutType != tdh.OutTypeNTStatus || e.Properties[6].Map == nil || e.Properties[6].Map.Entries[1].Message != "on" {
		t.Errorf("x_c10: %+v", e.Properties)
	}
	e = s[1]
	if m := e.Properties[0].Map; m == nil || len(m.Entries) != 2 || m.Entries[1].Value != 2 || m.Entries[1].Message != "Two" {
		t.Errorf("enum map: %+v", m)
	}
	if m := e.Properties[1].Map; m == nil || m.Kind != tdh.BitMap || m.Entries[2].Value != 4 {
		t.Errorf("set map: %+v", m)
	}
	if e.Properties[2].InType != tdh.InTypeMOFCountedAnsiString || e.Properties[3].InType != tdh.InTypeMOFCountedString {
		t.Errorf("counted strings: %+v", e.Properties)
	}
	if e.Message != "%2!s! %1!s! %3!s! %4!s!" {
		t.Errorf("message %q", e.Message)
	}
	want = []tdh.InType{tdh.InTypeInt8, tdh.InTypeUInt8, tdh.InTypeInt16, tdh.InTypeUInt16, tdh.InTypeInt64, tdh.InTypeUInt64,
		tdh.InTypeDouble, tdh.InTypeGUID, tdh.InTypeUInt32, tdh.InTypeUInt32, tdh.InTypeUInt32, tdh.InTypeUInt16,
		tdh.InTypeFileTime, tdh.InTypeSID, tdh.InTypeCountedBinary}
	e = s[2]
	if len(e.Properties) != len(want) {
		t.Fatalf("x_c30: %d properties", len(e.Properties))
	}
	for i, p := range e.Properties {
		if p.InType != want[i] {
			t.Errorf("x_c30 property %d %s: %v, want %v", i, p.Name, p.InType, want[i])
		}
	}
	if !strings.HasPrefix(e.Message, "%1 %2 %3") || strings.Contains(e.Message, "%0") {
		t.Errorf("x_c30 message %q", e.Message)
	}
	for _, e := range s[3:] {
		if e.Version != 2 || len(e.Properties) != 4 || e.ProviderName != "Sys" {
			t.Fatalf("shared block: %+v", e)
		}
		if p := e.Properties[2]; p.InType != tdh.InTypeBinary || p.Length != 8 {
			t.Errorf("ItemCharHidden[8]: %+v", p)
		}
		if p := e.Properties[3]; p.InType != tdh.InTypeUnicodeString || p.Length != 4 {
			t.Errorf("ItemWChar[4]: %+v", p)
		}
	}
	if s[4].Message != `Ended "%2!s!" pid %1!X!` {
		t.Errorf("End message %q", s[4].Message)
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"junk line\n", "x.tmf:1: unexpected line"},
		{"11111111-2222-3333-4444-555555555555 C\n#typev a 10 \"%0x\"\n{\nx, ItemLong\n", "not closed"},
		{"#typev a 10 \"x\"\n", "before a message GUID"},
		{"11111111-2222-3333-4444-555555555555 C\n#typev a 10 \"x\"\n{\nnotype\n}\n", "x.tmf:4:"},
	} {
		_, err := Parse(strings.NewReader(tc.text), "x.tmf")
		var pe *Error
		if err == nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
	// A format may span lines.
	f, err := Parse(strings.NewReader("11111111-2222-3333-4444-555555555555 C\n#typev a 10 \"%0one\ntwo %10!d!\" // FUNC=F\n{\nx, ItemLong\n}\n#typev b 11 \"unterminated\n{\n}\n"), "m.tmf")
	if err != nil {
		t.Fatal(err)
	}
	if m := f.Blocks[0].Messages; m[0].Format != "%0one\ntwo %10!d!" || m[0].Func != "F" || len(m[0].Args) != 1 || m[1].Format != "unterminated" {
		t.Errorf("multi-line formats: %+v %+v", m[0], m[1])
	}
	// Compile errors are per message.
	f, err = Parse(strings.NewReader("11111111-2222-3333-4444-555555555555 C\n#typev a 10 \"%0%10\"\n{\nx, ItemBogus\n}\n#typev b 11 \"%0%11\"\n{\nx, ItemLong\n}\n#typev c 12 \"%0ok %10!d!\"\n{\nx, ItemLong\n}\n"), "y.tmf")
	if err != nil {
		t.Fatal(err)
	}
	s, errs := f.Schemas()
	if len(s) != 1 || s[0].ID != 12 || len(errs) != 2 {
		t.Fatalf("schemas %d, errors %v", len(s), errs)
	}
	if !strings.Contains(errs[0].Error(), "y.tmf:4:") || !strings.Contains(errs[0].Error(), "ItemBogus") || !strings.Contains(errs[1].Error(), "y.tmf:6:") {
		t.Errorf("errors: %v", errs)
	}
}

func TestWPPETL(t *testing.T) {
	// The TMF the fixture generator writes beside wpp.etl.
	f, err := ParseFile(filepath.Join("..", "testdata", "etl", "wpp.tmf"))
	if err != nil {
		t.Fatal(err)
	}
	schemas, errs := f.Schemas()
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	reg := tdh.NewRegistry()
	reg.Add(schemas...)
	ef, err := etl.Open(filepath.Join("..", "testdata", "etl", "wpp.etl"))
	if err != nil {
		t.Fatal(err)
	}
	r := etl.NewReader([]*etl.File{ef}, nil)
	defer r.Close()
	want := map[uint16]string{
		10: " [DriverEntry] value 42",
		11: "driver loaded: status ", // + NTSTATUS text
		12: `device \Device\Fixture0 at FFFFE00012345678`,
		13: "no arguments",
		14: "wow64 base 00401000",
		15: "result -1",
		20: "pair 1/2",
	}
	var dec tdh.Decoder
	seen := 0
	for r.Next() {
		ev := r.Event()
		if ev.Header != etl.HeaderMessage {
			continue
		}
		s, ok := reg.Lookup(ev.ProviderID, ev.Descriptor.ID, 0)
		if !ok {
			t.Errorf("no schema for %v %d", ev.ProviderID, ev.Descriptor.ID)
			continue
		}
		d, err := dec.Decode(s, ev.UserData, ev.PointerSize())
		if err != nil {
			t.Errorf("message %d: %v", ev.Descriptor.ID, err)
			continue
		}
		seen++
		text := tdh.FormatMessage(s.Message, d, nil)
		w := want[ev.Descriptor.ID]
		if ev.Descriptor.ID == 11 {
			if !strings.HasPrefix(text, w) || len(text) == len(w) {
				t.Errorf("message 11: %q", text)
			}
			if v, _ := d.Top()[1].Uint(); v != 0xC0000001 {
				t.Errorf("message 11 status %#x", v)
			}
		} else if !strings.EqualFold(text, w) {
			t.Errorf("message %d: %q, want %q", ev.Descriptor.ID, text, w)
		}
		t.Logf("%d: %s", ev.Descriptor.ID, text)
		switch ev.Descriptor.ID {
		case 10:
			if v, _ := d.Top()[0].Int(); v != 42 {
				t.Errorf("message 10 value %d", v)
			}
		case 12:
			if v, _ := d.Top()[1].Uint(); v != 0xFFFFE00012345678 || d.Top()[0].String() != `\Device\Fixture0` {
				t.Errorf("message 12: %#x %q", v, d.Top()[0].String())
			}
		case 14:
			if v, _ := d.Top()[0].Uint(); v != 0x00401000 || d.Top()[1].String() != "wow64" {
				t.Errorf("message 14: %#x", v)
			}
		case 15:
			if v, _ := d.Top()[0].Int(); v != -1 {
				t.Errorf("message 15: %d", v)
			}
		}
	}
	if errs := r.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	if seen != 7 {
		t.Errorf("decoded %d messages, want 7", seen)
	}
}
