package wevt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"testing"

	"github.com/etwkit/etw/pe"
	"github.com/etwkit/etw/tdh"
	"github.com/etwkit/etw/wevt/wevttest"
)

// fuzzMessages answers every third message id with a text that has
// inserts and escapes.
func fuzzMessages(id uint32) (string, bool) {
	if id%3 == 0 {
		return "", false
	}
	return "Value %1, %2!08X!, %3!s! 100%% %n\r\n", true
}

// FuzzWEVT parses arbitrary bytes as a binary manifest, compiles the
// result into tdh schemas, decodes the input bytes as the payload of each
// event and renders it: nothing may panic, errors must be *FormatErrors,
// and the model must be consistent.
func FuzzWEVT(f *testing.F) {
	m := parseTestManifest(f)
	for _, v3 := range []bool{false, true} {
		crim, _, err := wevttest.Compile(m, wevttest.Options{Version3: v3})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(crim)
	}
	f.Add(buildTestPE(f, wevttest.Options{}, false))
	if os.Getenv("ETL_CORPUS") != "" || os.Getenv("ETL_SCHEMAS") != "" {
		for _, vp := range vectorPairs(f) {
			if b, err := os.ReadFile(vp.bin); err == nil && len(b) < 8192 {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Keep the declared size equal to the input's, so that mutations
		// reach past the header check.
		if len(data) >= 8 && string(data[:4]) == "CRIM" {
			data = append([]byte(nil), data...)
			binary.LittleEndian.PutUint32(data[4:], uint32(len(data)))
		}
		if _, err := ReadPE(bytes.NewReader(data), int64(len(data))); err != nil {
			var fe *FormatError
			var pfe *pe.FormatError
			if !errors.As(err, &fe) && !errors.As(err, &pfe) && !errors.Is(err, ErrNoTemplate) {
				t.Fatalf("ReadPE: %T %v", err, err)
			}
		}
		m, err := Parse(data, fuzzMessages)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T %v is not a *FormatError", err, err)
			}
			return
		}
		for _, p := range m.Providers {
			for _, e := range p.Events {
				if p.Event(e.ID, e.Version) == nil {
					t.Fatalf("event %d/%d not found", e.ID, e.Version)
				}
			}
			for _, tp := range p.Templates {
				for i, fl := range tp.Properties {
					if fl.Index != i {
						t.Fatalf("bad index")
					}
					for _, idx := range []int{fl.LengthIndex, fl.CountIndex} {
						if idx < -1 || idx >= len(tp.Properties) || idx == i {
							t.Fatalf("bad reference index %d", idx)
						}
					}
				}
			}
		}
		schemas, _ := m.Schemas()
		var dec tdh.Decoder
		var buf []byte
		for _, s := range schemas {
			for _, ptr := range []int{4, 8} {
				d, err := dec.Decode(s, data, ptr)
				if err != nil {
					continue
				}
				buf = tdh.AppendPropertiesJSON(buf[:0], d)
				for i := range d.Top() {
					buf = tdh.AppendText(buf[:0], d, &d.Top()[i], nil)
				}
				buf = tdh.AppendMessage(buf[:0], s.Message, d, nil)
			}
		}
	})
}
