package manifest

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse: it must never panic, and every
// error must be an *Error naming the input.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Add(encodeUTF16(fullManifest, false, true))
	f.Add(encodeUTF16(dumpedManifest, true, false))
	for _, s := range wepFuzzSeeds {
		f.Add([]byte(s))
	}
	f.Add(encodeUTF16(wepSmall, false, true))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(bytes.NewReader(data), "fuzz")
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.File != "fuzz" {
				t.Fatalf("error %T %v is not an *Error for the input", err, err)
			}
			return
		}
		// Walk the result: references must be consistent.
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
	})
}
