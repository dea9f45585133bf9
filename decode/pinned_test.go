package decode

import (
	"hash/fnv"
	"io"
	"path/filepath"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// TestPinnedDecodesAsWhenPinned walks every corpus trace in time order,
// decoding each event in turn (which registers the EventSource manifests
// as they come), and pins each before decoding it. Once the walk is done
// (the manifests all registered), every pinned event decoded with
// DecodePinned, on another decoder, must give what Decode gave when it
// was pinned. The events are pinned and decoded, too, by a decoder that
// never meets the manifests: their pins must decode as then, and some of
// them otherwise with the schemas the walk registered (so that a
// DecodePinned that looked the schemas up again would fail).
func TestPinnedDecodesAsWhenPinned(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes the corpus twice")
	}
	type kept struct {
		payload []byte
		pin     Pinned
		want    uint64
		ev      etl.Event // the header's fields a lookup reads
	}
	sum := func(r *Result) uint64 {
		h := fnv.New64a()
		io.WriteString(h, describe(r))
		return h.Sum64()
	}
	pinned, later, moved := 0, 0, 0
	for _, p := range etltest.CorpusTraces(t) {
		f, err := etl.Open(p)
		if err != nil {
			continue // files that do not open are the reader's tests
		}
		dec, fresh := New(), New()
		var ks, unmet []kept
		r := etl.NewReader([]*etl.File{f}, nil)
		for r.Next() {
			ev := r.Event()
			hdr := etl.Event{Header: ev.Header, Flags: ev.Flags, ProviderID: ev.ProviderID, Descriptor: ev.Descriptor}
			payload := append([]byte(nil), ev.UserData...)
			pin, ok := dec.Pin(ev)
			want := sum(dec.Decode(ev))
			if ok {
				ks = append(ks, kept{payload, pin, want, hdr})
			}
			if !isManifest(ev) {
				if pin, ok := fresh.Pin(ev); ok {
					unmet = append(unmet, kept{payload, pin, sum(fresh.Decode(ev)), hdr})
				}
			}
		}
		r.Close()
		gen := dec.Registry.Generation()
		other := dec.Clone()
		for i, k := range ks {
			if got := sum(other.DecodePinned(k.payload, k.pin)); got != k.want {
				t.Errorf("%s: pinned event %d decodes otherwise than when it was pinned", filepath.Base(p), i)
				break
			}
		}
		for i, k := range unmet {
			if got := sum(other.DecodePinned(k.payload, k.pin)); got != k.want {
				t.Errorf("%s: event %d pinned without the manifests decodes otherwise than then", filepath.Base(p), i)
				break
			}
			if now, ok := dec.Pin(&k.ev); ok && sum(other.DecodePinned(k.payload, now)) != k.want {
				moved++
			}
		}
		pinned += len(ks)
		if gen > 0 {
			later += len(ks)
		}
		f.Close()
	}
	if pinned < 200000 || later < 150000 {
		t.Errorf("%d events pinned, %d in traces that registered schemas: want most of the corpus's", pinned, later)
	}
	if moved == 0 {
		t.Error("no event pinned without the manifests decodes otherwise with them: DecodePinned was not shown to keep the pinned schemas")
	}
	t.Logf("%d events pinned, %d in traces that registered schemas as they were read; %d pinned without the manifests decode otherwise with them", pinned, later, moved)
}
