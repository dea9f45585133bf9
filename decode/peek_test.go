package decode

import (
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// TestPeekUintMatchesDecode asks PeekUint, for every event of the corpus
// and of the attack run's inputs, for each top-level property of the
// schema it decodes with and for names it lacks, and compares every answer
// it gives with Decode's followed by Uint.
func TestPeekUintMatchesDecode(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes the corpus and the attack run")
	}
	paths := etltest.CorpusAndAttackTraces(t)
	peeked, samples := 0, 0
	etltest.EachOpened(paths, func(p string, f *etl.File) {
		dec := New()
		ps := dec.NewPrescanner()
		r := etl.NewReader([]*etl.File{f}, nil)
		var names []string
		for r.Next() {
			ev := r.Event()
			ps.Observe(ev)
			names = append(names[:0], "ThreadId", "threadid", "Reserved", "NoSuchProperty")
			if res := dec.Decode(ev); res.Schema != nil {
				for _, pr := range res.Schema.Properties {
					names = append(names, pr.Name)
				}
			}
			for _, name := range names {
				v, found, ok := dec.PeekUint(ev, name)
				if !ok {
					continue
				}
				peeked++
				if name == "ThreadId" && ev.Header == etl.HeaderPerfInfo64 && found {
					samples++
				}
				var want uint64
				var wantFound bool
				if res := dec.Decode(ev); res.Schema != nil && res.Decoded != nil {
					want, wantFound = res.Decoded.Uint(name)
				}
				if found != wantFound || v != want {
					t.Fatalf("%s: event at %#x (%v) %q: PeekUint %d, %v; Decode and Uint %d, %v",
						filepath.Base(p), ev.BufferOffset+int64(ev.RecordOffset), ev.ProviderID, name, v, found, want, wantFound)
				}
			}
		}
		r.Close()
	})
	if peeked < 100000 || samples < 50000 {
		t.Errorf("PeekUint answered %d times (%d samples' threads): want most of the corpus's samples", peeked, samples)
	}
	t.Logf("%d files, %d answers, %d of them samples' threads", len(paths), peeked, samples)
}

// TestAheadPeek reads every event's ThreadId through an Ahead whose Peek
// answers with PeekUint on the loaders, and compares each value with
// Decode's on the reading goroutine, over the corpus; nearly every value
// must come from Ahead, or the comparisons would check nothing.
func TestAheadPeek(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the corpus twice")
	}
	type tid struct {
		v     uint64
		found bool
	}
	extract := func(_ *etl.Event, r *Result) tid {
		if r.Schema == nil || r.Decoded == nil {
			return tid{}
		}
		v, ok := r.Decoded.Uint("ThreadId")
		return tid{v, ok}
	}
	peeks, taken, events := 0, 0, 0
	etltest.EachOpened(etltest.CorpusTraces(t), func(p string, f *etl.File) {
		dec := New()
		ps := dec.NewPrescanner()
		ad := NewAhead(dec, func(*etl.Event) bool { return true }, extract)
		var n atomic.Int64
		ad.Peek = func(ev *etl.Event, d *Decoder) (tid, bool) {
			v, found, ok := d.PeekUint(ev, "ThreadId")
			if ok {
				n.Add(1)
			}
			return tid{v, found}, ok
		}
		r := etl.NewReader([]*etl.File{f}, &etl.ReaderOptions{Prepare: ad})
		for r.Next() {
			ev := r.Event()
			events++
			ps.Observe(ev)
			got, ok := ad.Get(r, ev)
			if ok {
				taken++
			}
			if want := extract(ev, dec.Decode(ev)); ok && got != want {
				t.Fatalf("%s: event at %#x: Ahead %+v, Decode %+v", filepath.Base(p), ev.BufferOffset, got, want)
			}
		}
		r.Close()
		peeks += int(n.Load())
	})
	if peeks < 100000 {
		t.Errorf("%d events read in place ahead: want most of the corpus's kernel events", peeks)
	}
	if taken < events*9/10 {
		// The comparisons above are of values taken from Ahead only.
		t.Errorf("%d of %d events' values taken from Ahead: want nearly all, or the values peeked are not compared", taken, events)
	}
	t.Logf("%d events, %d peeked ahead, %d values taken from Ahead", events, peeks, taken)
}
