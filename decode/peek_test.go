package decode

import (
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/tdh"
)

// TestPeekUintMatchesDecode asks PeekUint, for every event of the corpus
// and of the attack run's inputs, for each top-level property of the
// schema it decodes with and for names it lacks, and compares every answer
// it gives with Decode's followed by Uint; a UintPeeker of each fixed
// name, asked of every event, must answer as PeekUint does.
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
		fixed := []string{"ThreadId", "threadid", "Reserved", "NoSuchProperty"}
		var peekers []*UintPeeker
		for _, name := range fixed {
			peekers = append(peekers, NewUintPeeker(name))
		}
		var names []string
		for r.Next() {
			ev := r.Event()
			ps.Observe(ev)
			for i, u := range peekers {
				v, found, ok := u.Peek(dec, ev)
				wv, wfound, wok := dec.PeekUint(ev, fixed[i])
				if v != wv || found != wfound || ok != wok {
					t.Fatalf("%s: event at %#x (%v) %q: UintPeeker %d, %v, %v; PeekUint %d, %v, %v",
						filepath.Base(p), ev.BufferOffset+int64(ev.RecordOffset), ev.ProviderID, fixed[i], v, found, ok, wv, wfound, wok)
				}
			}
			names = append(names[:0], fixed...)
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
// answers with a UintPeeker on the loaders, and compares each value with
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
		ad.Peek = func(d *Decoder) func(ev *etl.Event) (tid, bool) {
			u := NewUintPeeker("ThreadId")
			return func(ev *etl.Event) (tid, bool) {
				v, found, ok := u.Peek(d, ev)
				if ok {
					n.Add(1)
				}
				return tid{v, found}, ok
			}
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

// TestPeekUintFollowsRegistry checks that what PeekUint, and a
// UintPeeker, keeps of a kind of event goes when the registry changes: a
// CPU sample's thread peeks while its class has one schema, and no longer
// once an import adds a second candidate for it (Decode then picks the
// one that fits).
func TestPeekUintFollowsRegistry(t *testing.T) {
	f, err := etl.Open(etltest.CorpusFile(t, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := New()
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	var samples []etl.Event
	for r.Next() && len(samples) < 2 {
		if ev := r.Event(); ev.Header == etl.HeaderPerfInfo64 {
			if _, found, ok := dec.PeekUint(ev, "ThreadId"); ok && found {
				ev := *ev
				ev.UserData = slices.Clone(ev.UserData)
				samples = append(samples, ev)
			}
		}
	}
	if len(samples) < 2 {
		t.Fatal("no two CPU samples whose thread PeekUint reads")
	}
	u := NewUintPeeker("ThreadId")
	if _, found, ok := u.Peek(dec, &samples[0]); !ok || !found {
		t.Fatal("a UintPeeker does not read the sample's thread")
	}
	res := dec.Decode(&samples[0])
	if res.Schema == nil {
		t.Fatal("the sample does not decode")
	}
	second := *res.Schema
	dec.Registry.AddFrom(tdh.Origin{Kind: tdh.OriginImport, Name: "second.man"}, &second)
	if _, _, ok := dec.PeekUint(&samples[1], "ThreadId"); ok {
		t.Error("PeekUint still peeks with two candidate schemas: it kept the registry's old answer")
	}
	if _, _, ok := u.Peek(dec, &samples[1]); ok {
		t.Error("a UintPeeker still peeks with two candidate schemas: it kept the registry's old answer")
	}
}

// BenchmarkPeekUint reads the thread of net.4.5.2's CPU samples with
// PeekUint, and the idle thread's flags, as the model pass's loaders do.
func BenchmarkPeekUint(b *testing.B) {
	samples := netPerfInfo(b, func(*etl.Event) bool { return true })
	dec := New()
	b.ResetTimer()
	for b.Loop() {
		for i := range samples {
			if v, _, ok := dec.PeekUint(&samples[i], "ThreadId"); ok && v == 0 {
				dec.PeekUint(&samples[i], "Reserved")
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(samples)), "ns/sample")
}

// BenchmarkUintPeeker reads the thread of net.4.5.2's CPU samples (only
// them, as the model pass does) and the idle thread's flags with two
// UintPeekers, and with PeekUint.
func BenchmarkUintPeeker(b *testing.B) {
	samples := netPerfInfo(b, func(ev *etl.Event) bool { return ev.Descriptor.Opcode == 46 }) // SampleProf
	dec := New()
	thread, flags := NewUintPeeker("ThreadId"), NewUintPeeker("Reserved")
	for _, bc := range []struct {
		name string
		peek func(ev *etl.Event, name string) (uint64, bool, bool)
	}{
		{"UintPeeker", func(ev *etl.Event, name string) (uint64, bool, bool) {
			if name == "ThreadId" {
				return thread.Peek(dec, ev)
			}
			return flags.Peek(dec, ev)
		}},
		{"PeekUint", dec.PeekUint},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				for i := range samples {
					if v, _, ok := bc.peek(&samples[i], "ThreadId"); ok && v == 0 {
						bc.peek(&samples[i], "Reserved")
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(samples)), "ns/sample")
		})
	}
}

// netPerfInfo returns copies of net.4.5.2's PerfInfo events that keep
// selects.
func netPerfInfo(b *testing.B, keep func(*etl.Event) bool) []etl.Event {
	f, err := etl.Open(etltest.CorpusFile(b, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	var evs []etl.Event
	for r.Next() {
		if ev := r.Event(); ev.Header == etl.HeaderPerfInfo64 && keep(ev) {
			ev := *ev
			ev.UserData = slices.Clone(ev.UserData)
			evs = append(evs, ev)
		}
	}
	return evs
}
