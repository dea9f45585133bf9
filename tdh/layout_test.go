package tdh_test

import (
	"fmt"
	"slices"
	"testing"
	"unsafe"

	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/tdh"
)

// sameDecoded reports how got differs from want ("" when it does not):
// the same error, extra bytes, properties present and values, each value's
// bytes the same bytes of the payload.
func sameDecoded(got *tdh.Decoded, gotErr error, want *tdh.Decoded, wantErr error) string {
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		return fmt.Sprintf("error %v, want %v", gotErr, wantErr)
	}
	if unsafe.SliceData(got.Extra) != unsafe.SliceData(want.Extra) || len(got.Extra) != len(want.Extra) {
		return fmt.Sprintf("extra % x, want % x", got.Extra, want.Extra)
	}
	if len(got.Top()) != len(want.Top()) || len(got.Values) != len(want.Values) {
		return fmt.Sprintf("%d values, %d present; want %d, %d", len(got.Values), len(got.Top()), len(want.Values), len(want.Top()))
	}
	for i := range want.Values {
		g, w := &got.Values[i], &want.Values[i]
		if g.Prop != w.Prop || g.Kind != w.Kind || g.Offset != w.Offset || g.First != w.First || g.N != w.N ||
			unsafe.SliceData(g.Data) != unsafe.SliceData(w.Data) || len(g.Data) != len(w.Data) || cap(g.Data) != cap(w.Data) {
			return fmt.Sprintf("value %d: %+v, want %+v", i, *g, *w)
		}
	}
	return ""
}

// checkFixedRuns decodes payload with dec and with plain (which takes
// every property through level) and compares the results.
func checkFixedRuns(t *testing.T, dec, plain *tdh.Decoder, s *tdh.Event, payload []byte, ptr int) {
	t.Helper()
	want, wantErr := plain.Decode(s, payload, ptr)
	got, gotErr := dec.Decode(s, payload, ptr)
	if diff := sameDecoded(got, gotErr, want, wantErr); diff != "" {
		t.Fatalf("%s/%s (%d bytes, pointers of %d): %s", s.ProviderName, s.EventName, len(payload), ptr, diff)
	}
}

// TestFixedRunsCorpus decodes every corpus event whose schema the corpus
// gives with one Decoder that lays out the schemas' fixed runs (warm, so
// that values of one event's arrays and structs lie where the next event's
// run goes) and with one that does not, and with the payload cut short
// by one byte and by half.
func TestFixedRunsCorpus(t *testing.T) {
	var dec, plain tdh.Decoder
	plain.NoFixedRuns()
	n := 0
	eachCorpusDecoded(t, etltest.CorpusTraces(t), func(d *tdh.Decoded) {
		s, payload, ptr := d.Schema, d.Payload, d.PointerSize
		checkFixedRuns(t, &dec, &plain, s, payload, ptr)
		if len(payload) > 0 && n%7 == 0 {
			checkFixedRuns(t, &dec, &plain, s, payload[:len(payload)-1], ptr)
			checkFixedRuns(t, &dec, &plain, s, payload[:len(payload)/2], ptr)
		}
		n++
	})
	if n == 0 {
		t.Fatal("no decoded event in the corpus")
	}
	t.Logf("%d events", n)
}

// FuzzFixedRuns decodes fuzz-built schemas and payloads, and the payloads
// cut at every length, with and without the fixed runs, one Decoder each
// for all of them, and compares Peek with Decode and Get for each of the
// schema's names (the schema as built, with its last property optional,
// and with an alternate).
func FuzzFixedRuns(f *testing.F) {
	f.Add([]byte{0x05, 1, 0, 0, 0, 8, 18, 0x80, 0, 'a', 0, 0, 0, 1, 2, 3, 4})
	f.Add([]byte{0x12, 14, 25, 0x84, 16, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0x21, 8, 0, 0x31, 3, 1, 2, 3, 7, 0, 0, 0})
	f.Add([]byte{0x13, 18, 0, 0, 0, 17, 0, 0, 0, 0xE3, 7, 2, 0, 5, 0, 29, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	// One fixed-size property and a payload that its alternate fits.
	f.Add([]byte("0 0\x00000"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, payload := fuzzSchema(data)
		var dec, plain tdh.Decoder
		plain.NoFixedRuns()
		for _, s := range peekVariants(e) {
			for _, ptr := range []int{4, 8} {
				for k := len(payload); k >= 0; k-- {
					checkFixedRuns(t, &dec, &plain, s, payload[:k], ptr)
					checkPeekNames(t, &dec, &plain, s, payload[:k], ptr)
				}
			}
		}
	})
}

// peekVariants returns e, e with its last property optional, and e with
// an alternate layout (e and one byte more).
func peekVariants(e *tdh.Event) []*tdh.Event {
	opt := *e
	opt.Properties = slices.Clone(e.Properties)
	opt.Properties[len(opt.Properties)-1].Optional = true
	alt := &tdh.Event{Properties: append(slices.Clone(e.Properties),
		tdh.Property{Name: "AltByte", InType: tdh.InTypeUInt8, LengthIndex: -1, CountIndex: -1})}
	withAlt := *e
	withAlt.Alternates = []*tdh.Event{alt}
	return []*tdh.Event{e, &opt, &withAlt}
}

// checkPeekNames checks that what dec.Peek answers for each top-level
// property of s, and for names s lacks, is what plain's Decode and Get
// give (dec decodes too: Peek shares its caches).
func checkPeekNames(t *testing.T, dec, plain *tdh.Decoder, s *tdh.Event, payload []byte, ptr int) {
	t.Helper()
	for i := -2; i < len(s.Properties); i++ {
		name := "AltByte"
		if i == -1 {
			name = "Nothing"
		} else if i >= 0 {
			name = s.Properties[i].Name
		}
		v, found, peeked := dec.Peek(s, payload, ptr, name)
		if !peeked {
			continue
		}
		d, _ := plain.Decode(s, payload, ptr)
		w, ok := d.Get(name)
		switch {
		case found != ok:
			t.Fatalf("%q of %d bytes, pointers of %d: Peek found %v, Decode and Get %v", name, len(payload), ptr, found, ok)
		case !ok:
		case v.Prop != w.Prop || v.Kind != w.Kind || v.Offset != w.Offset ||
			unsafe.SliceData(v.Data) != unsafe.SliceData(w.Data) || len(v.Data) != len(w.Data):
			t.Fatalf("%q of %d bytes, pointers of %d: Peek %+v, Decode and Get %+v", name, len(payload), ptr, v, *w)
		}
	}
}
