package decode

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/tracelogging"
)

func openAttack(t *testing.T, name string) []*etl.File {
	t.Helper()
	return etltest.OpenFiles(t, etltest.AttackFile(t, name))
}

// measured runs fn and returns its wall time, the bytes it allocated and
// the heap in use after it (once collected).
func measured(fn func()) (el time.Duration, alloc, heap uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	fn()
	el = time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	return el, after.TotalAlloc - before.TotalAlloc, after.HeapInuse
}

// decodeAll prescans files and decodes every event, returning the
// decoding errors by message, the number of events and the prescan's
// error.
func decodeAll(d *Decoder, files []*etl.File) (errs map[string]int, events int, prescan error) {
	prescan = d.Prescan(files)
	errs = map[string]int{}
	r := etl.NewReader(files, nil)
	defer r.Close()
	for r.Next() {
		events++
		if res := d.Decode(r.Event()); res.Err != nil {
			errs[res.Err.Error()]++
		}
	}
	return errs, events, prescan
}

// TestAttackEmptyStruct: es_emptystruct_1000c carries an EventSource
// manifest whose template is a counted struct with no members inside
// another (count 65535 each), and 1,000 events of it. The schema is
// rejected when the manifest is compiled, and the events cost no more
// than any undecodable event (the attack run: ~12 ms each, minutes of CPU
// for the file).
func TestAttackEmptyStruct(t *testing.T) {
	files := openAttack(t, "es_emptystruct_1000c.etl")
	d := New()
	var prescan error
	var events int
	el, alloc, _ := measured(func() { _, events, prescan = decodeAll(d, files) })
	if prescan == nil || !strings.Contains(prescan.Error(), "array of items that take no payload bytes") {
		t.Errorf("prescan: %v", prescan)
	}
	if events < 1000 || el > 5*time.Second || alloc > 256<<20 {
		t.Errorf("%d events in %v, %d bytes allocated", events, el, alloc)
	}
	t.Logf("%d events in %v (%v each), %.1f MB allocated", events, el, el/time.Duration(events), float64(alloc)/(1<<20))
}

// chunkEvent is EventSource manifest chunk n of total for provider g.
func chunkEvent(g uuid.UUID, total, n int, data []byte) *etl.Event {
	env := []byte{1, 1, 0, 0x5B, 0, 0, 0, 0}
	binary.LittleEndian.PutUint16(env[4:], uint16(total))
	binary.LittleEndian.PutUint16(env[6:], uint16(n))
	return &etl.Event{Header: etl.HeaderEvent64, ProviderID: g, Descriptor: etl.EventDescriptor{ID: 0xFFFE, Opcode: 0xFE},
		UserData: append(env, data...)}
}

// TestAttackChunks: es_chunks_5000c logs EventSource manifest chunks that
// never complete, for many providers (the attack run: memory ~1,900 times
// the file). The chunks kept stay within MaxEventSourcePending, the drops
// are reported, and memory stays bounded.
func TestAttackChunks(t *testing.T) {
	files := openAttack(t, "es_chunks_5000c.etl")
	d := New()
	var prescan error
	el, alloc, heap := measured(func() { prescan = d.Prescan(files) })
	if d.es.held > MaxEventSourcePending {
		t.Errorf("%d bytes of chunks held", d.es.held)
	}
	if prescan == nil || !strings.Contains(prescan.Error(), "chunks dropped") {
		t.Errorf("prescan: %v", prescan)
	}
	if heap > 512<<20 || el > 30*time.Second {
		t.Errorf("prescan: %v, %d bytes allocated, %d in use after", el, alloc, heap)
	}
	t.Logf("prescan: %v, %.0f MB allocated, %.0f MB in use after, %d MB held", el, float64(alloc)/(1<<20), float64(heap)/(1<<20), d.es.held>>20)
}

// TestEventSourceChunkBounds: each bound on the chunks kept, with a
// warning that counts the chunks dropped; a manifest that completes
// within the bounds still registers.
func TestEventSourceChunkBounds(t *testing.T) {
	chunk := make([]byte, 60000)
	for _, tc := range []struct {
		name      string
		providers int // distinct providers, one chunk each...
		perProv   int // ... or this many chunks of one provider
		bound     string
	}{
		{"one provider past MaxEventSourceManifest", 1, 400, "a manifest's chunks passed"},
		{"many providers past MaxEventSourcePending", 600, 2, "incomplete manifests' chunks passed"},
		{"more than MaxEventSourceProviders", 1100, 0, "more than 1024 providers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := New()
			for p := 0; p < tc.providers; p++ {
				g := uuid.UUID{15: byte(p), 14: byte(p >> 8), 0: 0xEE}
				data := chunk
				if tc.perProv == 0 {
					data = chunk[:10]
				}
				for n := 0; n < max(1, tc.perProv); n++ {
					if res := d.Decode(chunkEvent(g, 1000, n, data)); res.Err != nil {
						t.Fatal(res.Err)
					}
				}
				if d.es.held > MaxEventSourcePending || len(d.es.pending) > MaxEventSourceProviders {
					t.Fatalf("%d bytes held for %d providers", d.es.held, len(d.es.pending))
				}
			}
			w := d.Warnings()
			if len(w) != 1 || !strings.Contains(w[0].Error(), tc.bound) {
				t.Errorf("warnings %v, want %q", w, tc.bound)
			}
			if w := d.Warnings(); len(w) != 0 {
				t.Errorf("warnings repeated: %v", w)
			}
			// A real manifest still gets through.
			size := (len(esManifest) + 2) / 3
			for i := 0; i < 3; i++ {
				part := esManifest[i*size : min(len(esManifest), (i+1)*size)]
				if res := d.Decode(chunkEvent(esProvider, 3, i, []byte(part))); res.Err != nil {
					t.Fatal(res.Err)
				}
			}
			if _, ok := d.Registry.Lookup(esProvider, 7, 0); !ok {
				t.Error("the complete manifest was not registered")
			}
		})
	}
}

// deepMeta returns TraceLogging event metadata named name whose one field
// nests depth structs.
func deepMeta(name string, depth int) []byte {
	b := []byte{0, 0, 0} // size, tags
	b = append(b, name...)
	b = append(b, 0)
	for i := 0; i < depth; i++ {
		b = append(b, 'a', 0, 0x80|tracelogging.InStruct, 1) // struct of one member
	}
	b = append(b, 'v', 0, 4) // UInt8
	binary.LittleEndian.PutUint16(b, uint16(len(b)))
	return b
}

func tlEvent(meta []byte) *etl.Event {
	return &etl.Event{Header: etl.HeaderEvent64, ProviderID: uuid.UUID{1}, UserData: []byte{1},
		Extended: []etl.ExtendedItem{{Type: etl.ExtEventSchemaTL, Data: meta}}}
}

// TestAttackTLDeep: tl_deep_16000's TraceLogging metadata nests 16,000
// structs (the attack run: memory grew with the square of the depth, 540
// MB; 3.35 GB with 300 distinct blobs). Metadata nested deeper than
// tracelogging.MaxNesting is an error found in time and memory linear in
// the blob, for one blob and for 300 distinct ones.
func TestAttackTLDeep(t *testing.T) {
	files := openAttack(t, "tl_deep_16000.etl")
	d := New()
	var errs map[string]int
	el, alloc, _ := measured(func() { errs, _, _ = decodeAll(d, files) })
	found := false
	for msg := range errs {
		found = found || strings.Contains(msg, "structs nested more than 32 levels deep")
	}
	if !found || alloc > 64<<20 || el > 5*time.Second {
		t.Errorf("errors %v; %v, %d bytes allocated", errs, el, alloc)
	}
	t.Logf("file: %v, %.1f MB allocated", el, float64(alloc)/(1<<20))

	d = New()
	el, alloc, heap := measured(func() {
		for i := 0; i < 300; i++ {
			res := d.Decode(tlEvent(deepMeta(fmt.Sprint("E", i), 16000)))
			if res.Err == nil || !strings.Contains(res.Err.Error(), "nested more than") {
				t.Fatalf("blob %d: %v", i, res.Err)
			}
		}
	})
	if alloc > 256<<20 || heap > 256<<20 || el > 10*time.Second {
		t.Errorf("300 blobs: %v, %d bytes allocated, %d in use", el, alloc, heap)
	}
	t.Logf("300 deep blobs: %v, %.1f MB allocated, %.1f MB in use", el, float64(alloc)/(1<<20), float64(heap)/(1<<20))
	// At the bound, the event decodes.
	if res := d.Decode(tlEvent(deepMeta("ok", tracelogging.MaxNesting))); res.Err != nil || res.Schema == nil {
		t.Errorf("nesting %d: %v", tracelogging.MaxNesting, res.Err)
	}
}

// TestTraceLoggingCacheBound: distinct metadata blobs fill the schema
// cache up to tracelogging.MaxCacheBytes; past it each event compiles its
// own schema (still decoded), with one warning.
func TestTraceLoggingCacheBound(t *testing.T) {
	d := New()
	wide := func(name string) []byte {
		b := []byte{0, 0, 0}
		b = append(b, name...)
		b = append(b, 0)
		for len(b) < 60000 {
			b = append(b, 'f', 0, 4) // UInt8 fields: a few bytes of metadata, a property each
		}
		binary.LittleEndian.PutUint16(b, uint16(len(b)))
		return b
	}
	payload := make([]byte, 20000)
	for i := 0; i < 40 && d.tl.Uncached() == 0; i++ {
		ev := tlEvent(wide(fmt.Sprint("W", i)))
		ev.UserData = payload
		if res := d.Decode(ev); res.Err != nil || res.Schema == nil {
			t.Fatalf("blob %d: %v", i, res.Err)
		}
	}
	if d.tl.Uncached() == 0 {
		t.Fatal("40 blobs of 20,000 fields did not fill the cache")
	}
	w := d.Warnings()
	if len(w) != 1 || !strings.Contains(w[0].Error(), "schema cache is full") {
		t.Errorf("warnings %v", w)
	}
	if w := d.Warnings(); len(w) != 0 {
		t.Errorf("warning repeated: %v", w)
	}
}
