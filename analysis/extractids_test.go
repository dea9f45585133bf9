package analysis

import (
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// TestCorpusExtractIDs: what the model pass keeps of the events it
// decodes ahead (extractIDs, which reads a sample's ThreadId once) is
// what idsOf and IsCPUSample say of each, on every event of the corpus
// traces that hold CPU samples; so is what peekIDsFor's function reads
// in place of the events it can read (the model pass's on one core, and
// the loaders' Peek), one function over all the traces.
func TestCorpusExtractIDs(t *testing.T) {
	dec := clrDecoder(t)
	peek := peekIDsFor(dec)
	samples, peeked := 0, 0
	for _, p := range etltest.CorpusTraces(t) {
		etltest.ForEachEvent(t, p, func(_ *etl.File, ev *etl.Event) {
			if !wantsIDs(ev) {
				return
			}
			res := dec.Decode(ev)
			k := classify(ev)
			pid, tid := idsOf(ev, k, decoded(res))
			want := payloadIDs{pid, tid, IsCPUSample(ev, res)}
			if got := extractIDs(ev, res); got != want {
				t.Fatalf("%s: event at %d (kind %d): extractIDs = %+v, want %+v", p, ev.RecordOffset, k, got, want)
			}
			if got, ok := peek(ev); ok {
				peeked++
				if got != want {
					t.Fatalf("%s: event at %d (kind %d): peeked %+v, want %+v", p, ev.RecordOffset, k, got, want)
				}
			}
			if k != kSample {
				return
			}
			samples++
			// Without its payload: the header's ids, not a CPU sample.
			if got, want := extractIDs(ev, nil), (payloadIDs{ev.ProcessID, ev.ThreadID, false}); got != want {
				t.Fatalf("%s: sample at %d without payload: extractIDs = %+v, want %+v", p, ev.RecordOffset, got, want)
			}
		})
	}
	if samples == 0 {
		t.Fatal("no CPU samples in the corpus")
	}
	t.Logf("%d samples, %d events read in place", samples, peeked)
	if peeked < 79000 {
		t.Errorf("%d events read in place: want net.4.5.2's 79,528 samples at least", peeked)
	}
}
