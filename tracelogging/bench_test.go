package tracelogging

import (
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// amsiLike returns an event shaped like AMSI's AmsiScript: two UTF-16
// strings and a variable-count UInt16 array shown as a string, of a few
// hundred characters.
func amsiLike(tb testing.TB) *etl.Event {
	script := strings.Repeat(`IWshShell3.Run("powershell.exe -nop -w 1 -enc RwBlAHQALQBBAGwAaQBhAHMA", "0", "true");`+"\r\n", 4)
	ev := Event{Name: "AmsiScript", Fields: []FieldValue{
		UnicodeString("Engine", `PowerShell_C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe_10.0.18362.1`),
		UnicodeString("Script", script),
		Char16Array("Raw Script", script),
	}}
	ext, payload, err := ev.ETLData("AmsiTrace")
	if err != nil {
		tb.Fatal(err)
	}
	return &etl.Event{ProviderID: ProviderGUID("AmsiTrace"), Extended: ext, UserData: payload,
		Descriptor: etl.EventDescriptor{Channel: ChannelTraceLogging, Level: 5}}
}

// realAMSI returns copies of the AMSITrace.etl events, or nil without
// ETL_CORPUS.
func realAMSI(tb testing.TB) []*etl.Event {
	dir := corpusDir()
	if dir == "" {
		return nil
	}
	var out []*etl.Event
	eachEvent(tb, filepath.Join(dir, "airbus-cert+etl-parser/tests/example/AMSITrace.etl"), func(ev *etl.Event) {
		if m, _ := Items(ev); m == nil {
			return
		}
		c := &etl.Event{ProviderID: ev.ProviderID, Descriptor: ev.Descriptor, Flags: ev.Flags,
			UserData: append([]byte{}, ev.UserData...)}
		for _, x := range ev.Extended {
			c.Extended = append(c.Extended, etl.ExtendedItem{Type: x.Type, Data: append([]byte{}, x.Data...)})
		}
		out = append(out, c)
	})
	return out
}

// TestSchemaCacheHitAllocs checks that a cache hit allocates nothing,
// returns the schema compiled the first time, and that decoding an
// AMSI-like event allocates nothing once the decoder is warm.
func TestSchemaCacheHitAllocs(t *testing.T) {
	ev := amsiLike(t)
	var c Cache
	first, _, err := c.Schema(ev)
	if err != nil {
		t.Fatal(err)
	}
	var dec tdh.Decoder
	if n := testing.AllocsPerRun(100, func() {
		s, _, _ := c.Schema(ev)
		if s != first {
			t.Fatal("the schema was compiled again")
		}
		if _, err := dec.Decode(s, ev.UserData, 8); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations per cached lookup and decode", n)
	}
}

// BenchmarkSchemaCacheHit measures the lookup of an already compiled
// schema (metadata is parsed once per distinct blob).
func BenchmarkSchemaCacheHit(b *testing.B) {
	ev := amsiLike(b)
	var c Cache
	if _, _, err := c.Schema(ev); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		c.Schema(ev)
	}
}

// BenchmarkDecodeAMSILike measures cache lookup + tdh decode of AMSI-like
// events: the synthesized one, and the real AMSITrace.etl events when
// ETL_CORPUS is set. It reports events/s.
func BenchmarkDecodeAMSILike(b *testing.B) {
	run := func(b *testing.B, evs []*etl.Event) {
		var c Cache
		var dec tdh.Decoder
		size := 0
		for _, ev := range evs {
			if _, _, err := c.Schema(ev); err != nil {
				b.Fatal(err)
			}
			size += len(ev.UserData)
		}
		b.SetBytes(int64(size / len(evs)))
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			ev := evs[i]
			if i++; i == len(evs) {
				i = 0
			}
			s, _, err := c.Schema(ev)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := dec.Decode(s, ev.UserData, 8); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	}
	b.Run("synthetic", func(b *testing.B) { run(b, []*etl.Event{amsiLike(b)}) })
	if evs := realAMSI(b); evs != nil {
		b.Run("AMSITrace.etl", func(b *testing.B) { run(b, evs) })
	}
	b.Run("parallel", func(b *testing.B) {
		ev := amsiLike(b)
		var c Cache
		c.Schema(ev)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			var dec tdh.Decoder
			for pb.Next() {
				s, _, _ := c.Schema(ev)
				dec.Decode(s, ev.UserData, 8)
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
}

// TestCacheConcurrent looks up many distinct schemas from several
// goroutines (run with -race): each blob is compiled once and every
// goroutine gets the same schema for it.
func TestCacheConcurrent(t *testing.T) {
	const schemas, workers = 300, 6
	evs := make([]*etl.Event, schemas)
	for i := range evs {
		ev := Event{Name: "E" + strconv.Itoa(i), Fields: []FieldValue{Uint32("n", uint32(i))}}
		ext, payload, err := ev.ETLData("Prov")
		if err != nil {
			t.Fatal(err)
		}
		evs[i] = &etl.Event{ProviderID: ProviderGUID("Prov"), Extended: ext, UserData: payload}
	}
	var c Cache
	got := make([][]*tdh.Event, workers)
	var wg sync.WaitGroup
	for w := range workers {
		got[w] = make([]*tdh.Event, schemas)
		wg.Go(func() {
			var dec tdh.Decoder
			for round := range 3 {
				for k := range schemas {
					i := (k*7 + w*13 + round) % schemas
					s, ok, err := c.Schema(evs[i])
					if !ok || err != nil || s.EventName != "E"+strconv.Itoa(i) {
						t.Errorf("event %d: %v %v %v", i, s, ok, err)
						return
					}
					if got[w][i] != nil && got[w][i] != s {
						t.Errorf("event %d compiled twice", i)
					}
					got[w][i] = s
					d, err := dec.Decode(s, evs[i].UserData, 8)
					if n, _ := d.Top()[0].Uint(); err != nil || n != uint64(i) {
						t.Errorf("event %d decoded %d, %v", i, n, err)
					}
				}
			}
		})
	}
	wg.Wait()
	for i := range schemas {
		for w := 1; w < workers; w++ {
			if got[w][i] != got[0][i] {
				t.Fatalf("event %d: goroutines got different schemas", i)
			}
		}
	}
}
