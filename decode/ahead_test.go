package decode

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/tdh"
)

// TestAheadMatchesDecode decodes every event of the corpus and of the
// attack run's inputs twice, each pass registering the EventSource
// manifests as it meets them (a Prescanner, as the model's pass does):
// once with Decode on the reading goroutine, once through Ahead on the
// loaders. Every result must be the same, whether Ahead's or the one it
// falls back to when a schema was registered in between.
func TestAheadMatchesDecode(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes the corpus and the attack run twice")
	}
	paths := etltest.CorpusAndAttackTraces(t)
	if len(paths) < 40 {
		t.Fatalf("%d files in the corpus and the attack run: want them all", len(paths))
	}
	all := func(*etl.Event) bool { return true }
	every := func(int) bool { return true }
	// Some events decoded ahead, some of them and others asked for.
	some := func(ev *etl.Event) bool { return ev.Descriptor.ID%3 != 0 || ev.RecordOffset%5 == 0 }
	sometimes := func(n int) bool { return n%7 != 3 }
	ahead, aheadSome := 0, 0
	etltest.EachOpened(paths, func(p string, f *etl.File) {
		files := []*etl.File{f}
		want := render(t, files, nil, nil, nil)
		for _, sel := range []struct {
			want func(*etl.Event) bool
			ask  func(int) bool
			n    *int
		}{{all, every, &ahead}, {some, sometimes, &aheadSome}} {
			var n int
			got := render(t, files, &n, sel.want, sel.ask)
			if !sameRendering(t, p, got, want) {
				return
			}
			*sel.n += n
		}
	})
	if ahead < 150000 || aheadSome < ahead/5 {
		t.Errorf("%d events decoded ahead, %d with some selected: want most of the corpus's", ahead, aheadSome)
	}
	t.Logf("%d files, %d events decoded ahead, %d with some selected", len(paths), ahead, aheadSome)
}

// sameRendering reports whether got, rendered through Ahead, is want,
// the events of file p decoded in turn; the first difference fails t.
func sameRendering(t *testing.T, p string, got, want []string) bool {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d events through Ahead, %d decoded in turn", filepath.Base(p), len(got), len(want))
		return false
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s: event %d through Ahead:\n%s\ndecoded in turn:\n%s", filepath.Base(p), i, got[i], want[i])
			return false
		}
	}
	return true
}

// render decodes every event of files in time order, through Ahead when
// ahead is not nil (counting there the values Ahead gave), and describes
// each result. Ahead decodes the events want selects, and is asked for
// the nth event when ask(n): it must give no value of another event.
func render(t *testing.T, files []*etl.File, ahead *int, want func(*etl.Event) bool, ask func(int) bool) []string {
	dec := New()
	ps := dec.NewPrescanner()
	desc := func(_ *etl.Event, r *Result) string { return describe(r) }
	var ad *Ahead[string]
	var opts *etl.ReaderOptions
	if ahead != nil {
		ad = NewAhead(dec, want, desc)
		opts = &etl.ReaderOptions{Prepare: ad}
	}
	r := etl.NewReader(files, opts)
	defer r.Close()
	var out []string
	for n := 0; r.Next(); n++ {
		ev := r.Event()
		ps.Observe(ev)
		var s string
		ok := false
		if ad != nil && ask(n) {
			if s, ok = ad.Get(r, ev); ok {
				*ahead++
				if !want(ev) {
					t.Errorf("event %d: a value given, but the event was not selected", n)
				}
			}
		}
		if !ok {
			s = describe(dec.Decode(ev))
		}
		out = append(out, s)
	}
	return out
}

func describe(r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "origin %s exact %v fallback %v err %v", r.Origin, r.Exact, r.Fallback, r.Err)
	if r.Schema != nil {
		s := r.Schema
		fmt.Fprintf(&b, " schema %s/%s %v %d v%d", s.ProviderName, s.EventName, s.ProviderGUID, s.ID, s.Version)
	}
	if d := r.Decoded; d != nil {
		fmt.Fprintf(&b, " ptr %d extra %x", d.PointerSize, d.Extra)
		for _, v := range d.Values {
			fmt.Fprintf(&b, "\n  %v kind %d at %d [%d+%d] %x", v.Prop != nil && v.Prop.Name != "", v.Kind, v.Offset, v.First, v.N, v.Data)
			if v.Prop != nil {
				b.WriteString(" " + v.Prop.Name)
			}
		}
		fmt.Fprintf(&b, "\n  top %d", len(d.Top()))
	}
	return b.String()
}

// A merge of many inputs holds a buffer of each of its streams at once,
// more than Ahead's default bound: with SetLive raised to what the
// reader holds, the loaders decode ahead for every buffer; without, the
// buffers loaded past the bound have no values and the pass decodes
// their events itself (which the results do not show: only the count).
func TestAheadLiveFollowsStreams(t *testing.T) {
	raw := etltest.Sample()
	var files []*etl.File
	for range 2 * maxAheadLive {
		f, err := etl.NewFile(bytes.NewReader(raw), int64(len(raw)))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	count := func(live bool) (wanted, got int) {
		dec := New()
		all := func(*etl.Event) bool { return true }
		ad := NewAhead(dec, all, func(_ *etl.Event, r *Result) string { return describe(r) })
		r := etl.NewReader(files, &etl.ReaderOptions{Prepare: ad})
		defer r.Close()
		if r.Streams() <= maxAheadLive {
			t.Fatalf("%d streams: the test needs more than %d", r.Streams(), maxAheadLive)
		}
		if live {
			ad.SetLive(r.Streams() + 16) // the reader's loads ahead: max(16, 4 × workers)
			ad.SetLive(1)                // a smaller bound is ignored
		}
		for r.Next() {
			wanted++
			if s, ok := ad.Get(r, r.Event()); ok {
				got++
				if want := describe(dec.Decode(r.Event())); s != want {
					t.Fatalf("event %d decoded ahead as\n%s\nwant\n%s", wanted, s, want)
				}
			}
		}
		return wanted, got
	}
	if n, got := count(false); got >= n || got == 0 {
		t.Errorf("default bound: %d of %d events decoded ahead, want some but not all", got, n)
	}
	if n, got := count(true); got != n {
		t.Errorf("SetLive: %d of %d events decoded ahead, want all", got, n)
	}
}

// TestAheadTraceLoggingOutlivesRegistration: the values of TraceLogging
// events decoded ahead are handed out after a schema of their provider is
// registered (their schema is the event's own), where another event's
// would be decoded again in turn. The corpus's TraceLogging traces, a
// schema of the provider added at its first event.
func TestAheadTraceLoggingOutlivesRegistration(t *testing.T) {
	taken := 0
	for _, name := range []string{
		"microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/primitive-types.etl.zip.unzipped/primitive-types.etl",
		"airbus-cert+etl-parser/tests/example/AMSITrace.etl",
	} {
		f, err := etl.Open(etltest.CorpusFile(t, name))
		if err != nil {
			t.Fatal(err)
		}
		dec := New()
		isTL := func(ev *etl.Event) bool { _, tl, _ := dec.tl.Schema(ev); return tl }
		ad := NewAhead(dec, isTL, func(_ *etl.Event, r *Result) string { return describe(r) })
		r := etl.NewReader([]*etl.File{f}, &etl.ReaderOptions{Prepare: ad})
		registered := false
		for r.Next() {
			ev := r.Event()
			if !isTL(ev) {
				continue
			}
			got, ok := ad.Get(r, ev)
			want := describe(dec.Decode(ev))
			if ok && got != want {
				t.Fatalf("%s: event at %#x: Ahead %s, Decode %s", filepath.Base(name), ev.BufferOffset, got, want)
			}
			if registered && ok {
				taken++
			}
			if !registered {
				res := dec.Decode(ev)
				if res.Schema == nil {
					t.Fatalf("%s: a TraceLogging event without a schema", name)
				}
				s := *res.Schema
				dec.Registry.AddFrom(tdh.Origin{Kind: tdh.OriginImport, Name: "same-provider.man"}, &s)
				registered = true
			}
		}
		r.Close()
		f.Close()
	}
	if taken == 0 {
		t.Error("no TraceLogging value handed out after its provider's schema was registered")
	}
	t.Logf("%d TraceLogging values handed out after a registration", taken)
}
