package etlgen

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// events returns the events of the file at path in time order, the
// logger's header events left out, with their payloads copied.
func events(t *testing.T, path string) (*etl.File, []etl.Event) {
	t.Helper()
	f := etltest.OpenFiles(t, path)[0]
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	var out []etl.Event
	for r.Next() {
		if ev := r.Event(); !etl.IsLoggerHeaderEvent(ev) {
			e := *ev
			e.UserData = bytes.Clone(ev.UserData)
			out = append(out, e)
		}
	}
	if errs := r.Errors(); len(errs) > 0 {
		t.Fatalf("%s: %v", path, errs)
	}
	return f, out
}

// check writes path 3 times over and compares each round with the input
// (wantStacks: the input has StackWalk events).
func check(t *testing.T, path string, c Compression, wantStacks bool) {
	_, in := events(t, path)
	out := filepath.Join(t.TempDir(), "x3.etl")
	src := etltest.OpenFiles(t, path)[0]
	res, err := RepeatFile(out, src, &Options{Rounds: 3, Compression: c})
	if err != nil {
		t.Fatal(err)
	}
	if res.Events != 3*len(in) {
		t.Fatalf("wrote %d events, want 3 × %d", res.Events, len(in))
	}
	f, got := events(t, out)
	if len(got) != 3*len(in) {
		t.Fatalf("read back %d events, want 3 × %d", len(got), len(in))
	}
	compressed := 0
	for _, b := range f.Buffers() {
		if b.Header.Compressed() {
			compressed++
		}
	}
	if res.Compressed != (compressed > 0) || (c == Compressed && compressed == 0) || (c == Uncompressed && compressed > 0) {
		t.Errorf("%d compressed buffers, Result.Compressed %v, asked %d", compressed, res.Compressed, c)
	}
	if f.Header.BufferSize != uint32(res.BufferSize) || f.Header.NumberOfProcessors != src.Header.NumberOfProcessors {
		t.Errorf("header: buffer size %d (want %d), %d processors (want %d)", f.Header.BufferSize, res.BufferSize,
			f.Header.NumberOfProcessors, src.Header.NumberOfProcessors)
	}
	// Each round holds the input's events, shifted by k spans: compare
	// them as multisets keyed by processor, time and payload, since
	// events of one instant on different processors may come in either
	// order.
	type key struct {
		cpu  uint16
		ts   int64
		hook uint16
		id   uint16
		data string
	}
	// StackWalk events' payloads begin with their event's timestamp,
	// shifted like it.
	want := map[key]int{}
	stamped := 0
	for k := range int64(3) {
		for _, ev := range in {
			data := ev.UserData
			if ev.ProviderID == catalog.StackWalkGUID && ev.Flags&etl.FlagClassicHeader != 0 &&
				(ev.Descriptor.Opcode == 32 || ev.Descriptor.Opcode == 37 || ev.Descriptor.Opcode == 38) {
				data = binary.LittleEndian.AppendUint64(nil, binary.LittleEndian.Uint64(data)+uint64(k*res.Span))
				data = append(data, ev.UserData[8:]...)
				stamped++
			}
			want[key{ev.Processor, ev.Timestamp + k*res.Span, ev.HookID, ev.Descriptor.ID, string(data)}]++
		}
	}
	if stamped == 0 && wantStacks {
		t.Errorf("%s has no StackWalk events", path)
	}
	for _, ev := range got {
		k := key{ev.Processor, ev.Timestamp, ev.HookID, ev.Descriptor.ID, string(ev.UserData)}
		if want[k] == 0 {
			t.Fatalf("event at %d (cpu %d) is no input event shifted by whole spans", ev.Timestamp, ev.Processor)
		}
		want[k]--
	}
	last := got[len(got)-1].Timestamp
	if first := in[0].Timestamp; last < first+2*res.Span {
		t.Errorf("last event at %d: the rounds do not follow each other (first %d, span %d)", last, first, res.Span)
	}
}

func TestRepeatSample(t *testing.T) {
	for _, c := range []Compression{AsInput, Compressed, Uncompressed} {
		check(t, filepath.Join("..", "..", "testdata", "etl", "sample.etl"), c, false)
	}
}

// The corpus's compressed .NET trace stays compressed, in its 64 KiB
// buffers.
func TestCorpusRepeatNet(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	check(t, etltest.CorpusFile(t, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl"), AsInput, true)
}

func TestRepeatNoEvents(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "empty.etl")
	o, _ := os.Create(in)
	w, err := etl.NewWriter(o, &etl.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	o.Close()
	f := etltest.OpenFiles(t, in)[0]
	for _, n := range []int{1, 2} {
		for _, from := range []int{0, 1} {
			var b bytes.Buffer
			if _, err := Repeat(&b, f, &Options{Rounds: n, From: from}); err == nil {
				t.Errorf("a trace without events repeated %d times from %d without error", n, from)
			} else if b.Len() > 0 {
				t.Errorf("from %d: %d bytes written before the error", from, b.Len())
			}
		}
	}
}

// A trace written From 2 is the third round of one written three times:
// same events, stacks' timestamps included, so that traces written with
// From 0, 1, 2 follow each other.
func TestCorpusRepeatFrom(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	path := etltest.CorpusFile(t, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl")
	src := etltest.OpenFiles(t, path)[0]
	write := func(name string, opts *Options) (Result, []etl.Event) {
		out := filepath.Join(t.TempDir(), name)
		res, err := RepeatFile(out, src, opts)
		if err != nil {
			t.Fatal(err)
		}
		_, evs := events(t, out)
		return res, evs
	}
	r3, x3 := write("x3.etl", &Options{Rounds: 3})
	r2, from2 := write("from2.etl", &Options{Rounds: 1, From: 2})
	if r2.Span != r3.Span || r2.Events != r3.Events/3 {
		t.Fatalf("From 2: span %d, %d events; three rounds: span %d, %d events", r2.Span, r2.Events, r3.Span, r3.Events)
	}
	key := func(ev *etl.Event) string {
		return fmt.Sprintf("%d %d %d %d %x", ev.Processor, ev.Timestamp, ev.HookID, ev.Descriptor.ID, ev.UserData)
	}
	want := map[string]int{}
	first := x3[0].Timestamp
	for i := range x3 {
		if x3[i].Timestamp >= first+2*r3.Span {
			want[key(&x3[i])]++
		}
	}
	for i := range from2 {
		k := key(&from2[i])
		if want[k] == 0 {
			t.Fatalf("event at %d (cpu %d) of the trace written From 2 is not in the third round", from2[i].Timestamp, from2[i].Processor)
		}
		want[k]--
	}
	if len(from2) != r2.Events {
		t.Errorf("read back %d events, wrote %d", len(from2), r2.Events)
	}
}
