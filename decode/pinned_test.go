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
// was pinned.
func TestPinnedDecodesAsWhenPinned(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes the corpus twice")
	}
	type kept struct {
		payload []byte
		pin     Pinned
		want    uint64
	}
	sum := func(r *Result) uint64 {
		h := fnv.New64a()
		io.WriteString(h, describe(r))
		return h.Sum64()
	}
	pinned, later := 0, 0
	for _, p := range etltest.CorpusTraces(t) {
		f, err := etl.Open(p)
		if err != nil {
			continue // files that do not open are the reader's tests
		}
		dec := New()
		var ks []kept
		r := etl.NewReader([]*etl.File{f}, nil)
		for r.Next() {
			ev := r.Event()
			pin, ok := dec.Pin(ev)
			want := sum(dec.Decode(ev))
			if ok {
				ks = append(ks, kept{append([]byte(nil), ev.UserData...), pin, want})
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
		pinned += len(ks)
		if gen > 0 {
			later += len(ks)
		}
		f.Close()
	}
	if pinned < 200000 || later < 150000 {
		t.Errorf("%d events pinned, %d in traces that registered schemas: want most of the corpus's", pinned, later)
	}
	t.Logf("%d events pinned, %d in traces that registered schemas as they were read", pinned, later)
}
