package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

var testdata = filepath.Join("..", "..", "testdata", "etl")

// TestFixturesUpToDate keeps testdata/etl equal to what the generator
// writes, so that the fixtures cannot drift from it.
func TestFixturesUpToDate(t *testing.T) {
	fx, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := fx.writeTo(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range fx.names() {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(testdata, name))
		if err != nil {
			t.Errorf("%v: run go generate ./...", err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("testdata/etl/%s differs from what internal/fixturegen writes: run go generate ./...", name)
		}
	}
	// Every committed fixture but the byte-built sample comes from the
	// generator.
	entries, err := os.ReadDir(testdata)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := fx.files[e.Name()]; !ok && e.Name() != "sample.etl" {
			t.Errorf("testdata/etl/%s is not written by internal/fixturegen: remove it, or run go generate ./...", e.Name())
		}
	}
}

// TestDeterministic: two runs write the same bytes.
func TestDeterministic(t *testing.T) {
	a, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	b, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	if len(a.files) != len(b.files) {
		t.Fatalf("%d files, then %d", len(a.files), len(b.files))
	}
	for n, data := range a.files {
		if !bytes.Equal(data, b.files[n]) {
			t.Errorf("%s differs between runs", n)
		}
	}
}

// TestFixturesReadBack reads every fixture with the reader and decoder:
// each holds the events the generator wrote, and every event with a
// schema decodes without error or trailing bytes.
func TestFixturesReadBack(t *testing.T) {
	fx, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := fx.writeTo(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range fx.names() {
		if !strings.HasSuffix(name, ".etl") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			data := fx.files[name]
			f, err := etl.NewFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			dec := decode.New()
			base := strings.TrimSuffix(name, ".etl")
			if base == "record-kinds" {
				base = "classic" // its instance records use classic.mof's classes
			}
			for _, ext := range []string{".man", ".mof", ".tmf"} {
				if _, ok := fx.files[base+ext]; ok {
					if err := dec.Import(filepath.Join(dir, base+ext)); err != nil {
						t.Fatal(err)
					}
				}
			}
			r := etl.NewReader([]*etl.File{f}, nil)
			defer r.Close()
			n, undecoded := 0, 0
			for r.Next() {
				ev := r.Event()
				res := dec.Decode(ev)
				switch {
				case res.Err != nil:
					t.Errorf("event at %#x+%#x: %v", ev.BufferOffset, ev.RecordOffset, res.Err)
				case res.Schema == nil:
					undecoded++
					if ev.Header != etl.HeaderMessage && ev.Header != etl.HeaderError && ev.Flags&etl.FlagStringOnly == 0 {
						t.Errorf("event at %#x+%#x (%v, provider %v, id %d) has no schema", ev.BufferOffset, ev.RecordOffset,
							ev.Header, ev.ProviderID, ev.Descriptor.ID)
					}
				case len(res.Decoded.Extra) > 0:
					t.Errorf("event at %#x+%#x (%s): %d bytes after the properties", ev.BufferOffset, ev.RecordOffset,
						res.Schema.EventName, len(res.Decoded.Extra))
				}
				if ev.BufferIndex != 0 {
					n++
				}
			}
			if err := errors.Join(r.Errors()...); err != nil {
				t.Error(err)
			}
			if want := fx.events[name]; n != want {
				t.Errorf("%d events, the generator wrote %d", n, want)
			}
		})
	}
}
