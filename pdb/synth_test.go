package pdb_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/etwkit/etw/internal/symtest"
	"github.com/etwkit/etw/pdb"
)

func TestSynthetic(t *testing.T) {
	data := symtest.SynthPDB(symtest.SynthGUID, 3)
	f, err := pdb.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if f.ID() != "12DC0A4FBD7D4F2AA9BE263BACAEB4673" || f.HasOMAP() || f.Age != 3 || f.DBIAge != 3 || f.Machine != 0x8664 {
		t.Errorf("identity %s age %d/%d machine %#x", f.ID(), f.Age, f.DBIAge, f.Machine)
	}
	g, err := pdb.ParseGUID(f.GUID.String())
	if err != nil || g != f.GUID {
		t.Errorf("ParseGUID(%s) = %s, %v", f.GUID, g, err)
	}
	if g, err := pdb.ParseGUID(strings.ToLower(f.GUID.Hex())); err != nil || g != f.GUID {
		t.Errorf("ParseGUID(hex) = %s, %v", g, err)
	}
	cases := []struct {
		rva    uint32
		name   string
		off    uint32
		line   uint32
		public bool
	}{
		{0x1010, "work", 0, 10, false},
		{0x1017, "work", 7, 10, false},
		{0x1018, "work", 8, 12, false},
		{0x102F, "work", 0x1F, 12, false},
		{0x1044, "helper", 4, 0, true},
		{0x1094, "work", 4, 0, false}, // separated code
		{0x2008, "data", 0, 0, true},
	}
	for _, c := range cases {
		s, ok, err := f.Lookup(c.rva)
		if err != nil || !ok || s.Name != c.name || s.Offset != c.off || s.Line != c.line || s.Public != c.public {
			t.Errorf("Lookup(%#x) = %+v %v %v; want %+v", c.rva, s, ok, err, c)
		}
		if c.line != 0 && s.File != `c:\src\work.c` {
			t.Errorf("Lookup(%#x) file %q", c.rva, s.File)
		}
	}
	// The S_PUB32 record the publics stream does not list is no public.
	pubs, err := f.Publics()
	if err != nil || len(pubs) != 2 || pubs[0].Name != "?helper@@YAXXZ" || pubs[1].Name != "data" {
		t.Errorf("Publics = %+v, %v", pubs, err)
	}
	if s, ok, err := f.Lookup(0x1084); err != nil || !ok || s.Name != "helper" || s.Offset != 0x44 {
		t.Errorf("Lookup(0x1084) = %+v %v %v; want helper+0x44", s, ok, err)
	}
	for _, rva := range []uint32{0x1000, 0x100F, 0x3000, 0x2040} {
		if s, ok, err := f.Lookup(rva); ok || err != nil {
			t.Errorf("Lookup(%#x) = %+v %v %v; want nothing", rva, s, ok, err)
		}
	}
	ann, err := f.Annotations()
	if err != nil || len(ann) != 1 || ann[0].RVA != 0x1018 || strings.Join(ann[0].Strings, "|") != "TMF:|hello %d" {
		t.Errorf("Annotations = %+v, %v", ann, err)
	}
	mods, err := f.Modules()
	if err != nil || len(mods) != 1 || mods[0].Name != "work.obj" || mods[0].SymStream != 4 {
		t.Errorf("Modules = %+v, %v", mods, err)
	}
	// S_SEPCODE names lookups but is not a function of its own.
	if fns, err := f.ModuleFunctions(0); err != nil || len(fns) != 1 || fns[0].Name != "work" || fns[0].Kind != pdb.SymGProc32 {
		t.Errorf("ModuleFunctions = %+v, %v", fns, err)
	}
}

// hostile describes one damage to the synthetic PDB and the error it
// must cost.
type hostile struct {
	name string
	edit func(b []byte)
	want string // in the error text
}

func TestHostile(t *testing.T) {
	le := binary.LittleEndian
	base := symtest.SynthPDB(symtest.SynthGUID, 3)
	dirBlock := func(b []byte) int { return int(le.Uint32(b[2*symtest.MSFBlock:])) * symtest.MSFBlock }
	cases := []hostile{
		{"not MSF", func(b []byte) { b[0] = 'X' }, "not a PDB 7.0"},
		{"block size", func(b []byte) { le.PutUint32(b[32:], 1000) }, "offset 0x20: block size 1000"},
		{"block count over the file", func(b []byte) { le.PutUint32(b[40:], 1<<20) }, "offset 0x28: 1048576 blocks"},
		{"directory over the file", func(b []byte) { le.PutUint32(b[44:], 1<<30) }, "offset 0x2c: stream directory of"},
		{"block map past the end", func(b []byte) { le.PutUint32(b[52:], 9999) }, "offset 0x34: block number 9999"},
		{"directory cycle", func(b []byte) { le.PutUint32(b[2*symtest.MSFBlock:], 2) }, "offset 0x400: stream directory block 2 listed twice (a cycle)"},
		{"directory block zero", func(b []byte) { le.PutUint32(b[2*symtest.MSFBlock:], 0) }, "offset 0x400: block number 0"},
		{"huge stream count", func(b []byte) { le.PutUint32(b[dirBlock(b):], 0x7FFFFFFF) }, "2147483647 streams"},
		{"stream over the file", func(b []byte) { le.PutUint32(b[dirBlock(b)+4*4:], 1<<30) }, "stream 3 of 1073741824 bytes is larger than the file"},
		{"stream block past the end", func(b []byte) {
			d := dirBlock(b)
			n := int(le.Uint32(b[d:]))
			le.PutUint32(b[d+4+4*n:], 77777) // first block of the first non-empty stream
		}, "block 77777"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := append([]byte(nil), base...)
			c.edit(b)
			_, err := pdb.NewFile(bytes.NewReader(b), int64(len(b)))
			var fe *pdb.FormatError
			if err == nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v; want a *FormatError with %q", err, c.want)
			}
		})
	}
}

// TestNoPublicsStream: without a publics stream, every S_PUB32 record of
// the symbol record stream is a public.
func TestNoPublicsStream(t *testing.T) {
	data := symtest.SynthPDB(symtest.SynthGUID, 3)
	binary.LittleEndian.PutUint16(data[symtest.StreamOffset(data, 3)+16:], 0xFFFF)
	f, err := pdb.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	pubs, err := f.Publics()
	if err != nil || len(pubs) != 3 || pubs[2].Name != "?stale@@YAXXZ" {
		t.Errorf("Publics = %+v, %v", pubs, err)
	}
	if s, ok, err := f.Lookup(0x1084); err != nil || !ok || s.Name != "stale" || s.Offset != 4 {
		t.Errorf("Lookup(0x1084) = %+v %v %v", s, ok, err)
	}
	// A damaged publics stream header is an error naming the stream.
	data = symtest.SynthPDB(symtest.SynthGUID, 3)
	binary.LittleEndian.PutUint32(data[symtest.StreamOffset(data, 8)+4:], 1<<20)
	f, err = pdb.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Publics(); err == nil || !strings.Contains(err.Error(), "stream 8 offset 0x0") {
		t.Errorf("damaged publics stream: %v", err)
	}
}

// TestHostileStreams damages streams, not the container: errors come from
// the accessors and name the stream.
func TestHostileStreams(t *testing.T) {
	// Break the length of the module symbol stream's S_GPROC32 record.
	b := symtest.SynthPDB(symtest.SynthGUID, 3)
	binary.LittleEndian.PutUint16(b[symtest.StreamOffset(b, 4)+4:], 0xFFF0)
	f, err := pdb.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Functions()
	if err == nil || !strings.Contains(err.Error(), "stream 4 offset 0x4") {
		t.Errorf("Functions: %v; want an error at stream 4 offset 0x4", err)
	}
	if _, _, err := f.Lookup(0x1010); err == nil {
		t.Errorf("Lookup: no error from a broken module")
	}
}

// TestConcurrent calls every accessor from several goroutines at once (run
// with -race to check the lazily built indexes).
func TestConcurrent(t *testing.T) {
	data := symtest.SynthPDB(symtest.SynthGUID, 3)
	f, err := pdb.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	for g := 0; g < 8; g++ {
		go func() {
			for i := 0; i < 50; i++ {
				s, ok, err := f.Lookup(0x1018)
				if err != nil || !ok || s.Name != "work" {
					done <- fmt.Errorf("Lookup = %+v %v %v", s, ok, err)
					return
				}
				if s, ok, err := f.Lookup(0x1044); err != nil || !ok || s.Name != "helper" {
					done <- fmt.Errorf("Lookup public = %+v %v %v", s, ok, err)
					return
				}
				if _, err := f.Lines(0); err != nil {
					done <- err
					return
				}
				if _, err := f.Annotations(); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// TestOMAP looks addresses of a rearranged image up through its OMAP
// tables (symtest.SynthOMAPPDB).
func TestOMAP(t *testing.T) {
	data := symtest.SynthOMAPPDB(symtest.SynthGUID, 3)
	f, err := pdb.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if !f.HasOMAP() {
		t.Fatal("HasOMAP false")
	}
	cases := []struct {
		rva       uint32
		name      string
		start     uint32
		off, line uint32
	}{
		{0x1050, "work", 0x1050, 0, 10}, // source 0x1010
		{0x1058, "work", 0x1050, 8, 12}, // source 0x1018
		{0x1012, "helper", 0x1010, 2, 0},
		{0x1018, "helper", 0x1010, 8, 0}, // work's address in the symbols, helper's in the image
		{0x2008, "data", 0x2008, 0, 0},
	}
	for _, c := range cases {
		s, ok, err := f.Lookup(c.rva)
		if err != nil || !ok || s.Name != c.name || s.RVA != c.start || s.Offset != c.off || s.Line != c.line {
			t.Errorf("Lookup(%#x) = %+v %v %v; want %+v", c.rva, s, ok, err, c)
		}
		if c.line != 0 {
			if _, line, ok, err := f.LineAt(c.rva); err != nil || !ok || line != c.line {
				t.Errorf("LineAt(%#x) = %d %v %v", c.rva, line, ok, err)
			}
		}
	}
	// Unmapped image addresses name nothing.
	for _, rva := range []uint32{0x1030, 0x1005, 0x1090} {
		if s, ok, err := f.Lookup(rva); ok || err != nil {
			t.Errorf("Lookup(%#x) = %+v %v %v; want nothing", rva, s, ok, err)
		}
	}
	fns, err := f.Functions()
	if err != nil || len(fns) != 1 || fns[0].RVA != 0x1050 || !fns[0].HasRVA {
		t.Errorf("Functions = %+v, %v", fns, err)
	}
	pubs, err := f.Publics()
	if err != nil || len(pubs) != 2 || pubs[0].RVA != 0x1010 || pubs[1].RVA != 0x2008 {
		t.Errorf("Publics = %+v, %v", pubs, err)
	}
	blocks, err := f.Lines(0)
	if err != nil || len(blocks) != 1 || blocks[0].RVA != 0x1050 {
		t.Errorf("Lines = %+v, %v", blocks, err)
	}
	ann, err := f.Annotations()
	if err != nil || len(ann) != 1 || ann[0].RVA != 0x1058 {
		t.Errorf("Annotations = %+v, %v", ann, err)
	}
	// Entries out of order are an error naming the OMAP stream.
	le := binary.LittleEndian
	le.PutUint32(data[symtest.StreamOffset(data, 9)+8:], 0x500)
	f, err = pdb.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.Lookup(0x1050); err == nil || !strings.Contains(err.Error(), "stream 9 offset 0x8") {
		t.Errorf("disordered OMAP: %v", err)
	}
}
