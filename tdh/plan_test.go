package tdh_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/internal/jsonstr"
	"github.com/etwkit/etw/tdh"
)

// checkPlan compares what plan pl gives for d with what tdh's functions
// give: data JSON, maps and the message msg.
func checkPlan(t *testing.T, pl *tdh.JSONPlan, d *tdh.Decoded, msg string) {
	t.Helper()
	prefix := []byte("x") // renderings start past the start of dst
	want, wantErr := tdh.AppendDataJSONErr(prefix, d)
	got, gotErr := pl.AppendDataJSONErr(prefix, d)
	if !bytes.Equal(got, want) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("data JSON through the plan:\n got %q, %v\nwant %q, %v", got, gotErr, want, wantErr)
	}
	want, wantOK := tdh.AppendMapsJSON(prefix, d)
	got, gotOK := pl.AppendMapsJSON(prefix, d)
	if !bytes.Equal(got, want) || gotOK != wantOK {
		t.Fatalf("maps through the plan:\n got %q, %v\nwant %q, %v", got, gotOK, want, wantOK)
	}
	for _, o := range []*tdh.RenderOptions{nil, {MOFPadding: true}} {
		for i := range d.Values {
			want, wantCut := tdh.AppendTextLimit(prefix, d, &d.Values[i], o, len(prefix)+tdh.MaxTextBytes)
			got, gotCut, digits := pl.AppendText(prefix, d, i, o, len(prefix)+tdh.MaxTextBytes)
			if !bytes.Equal(got, want) || gotCut != wantCut {
				t.Fatalf("value %d (options %v) as text through the plan:\n got %q, %v\nwant %q, %v", i, o, got, gotCut, want, wantCut)
			}
			if digits && strings.Trim(string(got[len(prefix):]), " -0123456789ABCDEFx") != "" {
				t.Fatalf("value %d (options %v) as an integer's digits through the plan: %q", i, o, got[len(prefix):])
			}
		}
	}
	want = tdh.AppendMessage(prefix, msg, d, nil)
	got = pl.AppendMessage(prefix, msg, d)
	if !bytes.Equal(got, want) {
		t.Fatalf("message %q through the plan:\n got %q\nwant %q", msg, got, want)
	}
	want = jsonstr.Append(prefix, tdh.AppendMessage(nil, msg, d, nil))
	got, _ = pl.AppendMessageJSON(prefix, []byte("scratch"), msg, d)
	if !bytes.Equal(got, want) {
		t.Fatalf("message %q as JSON through the plan:\n got %q\nwant %q", msg, got, want)
	}
	want = tdh.TestEscaper.AppendEscaped(prefix, tdh.AppendMessage(nil, msg, d, nil))
	for range 2 { // the second time with the plan's escaped text made
		got, _ = pl.AppendMessageEscaped(prefix, []byte("scratch"), msg, d, tdh.TestEscaper)
		if !bytes.Equal(got, want) {
			t.Fatalf("message %q escaped through the plan:\n got %q\nwant %q", msg, got, want)
		}
	}
}

// insertsMessage returns a message that inserts each of the n top-level
// properties of a schema (and one more), between literal text and escapes.
func insertsMessage(n int) string {
	var b strings.Builder
	for i := 1; i <= n+1; i++ {
		fmt.Fprintf(&b, "P%d=%%%d;%%n", i, i)
	}
	return b.String() + "%t%%%r%!"
}

// FuzzJSONPlan renders fuzz-built schemas and payloads through a plan and
// without: the outputs must be the same, for the plan's own schema, for a
// plan of another schema, and with no plan.
func FuzzJSONPlan(f *testing.F) {
	f.Add([]byte{0x05, 1, 0, 0, 0, 8, 18, 0x80, 0, 'a', 0, 0, 0, 1, 2, 3, 4}, "%1 %2!d! %3 %%4 %n%0 %5")
	f.Add([]byte{0x21, 8, 0, 0x31, 3, 1, 2, 3, 7, 0, 0, 0}, "A=%1;%nB=%2;%nC=%3")
	f.Add([]byte{0x03, 16, 0x8c, 0x81, 2, 9, 0x86, 0x81, 3, 8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0}, "%1 %2 %3")
	f.Add([]byte{0x12, 14, 25, 0x84, 16, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "%1!s! %2!x! %")
	f.Add([]byte{0x14, 5, 0x11, 0x20, 1, 9, 4, 0x80, 0, 7, 0x0f, 0x80, 0, 8, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}, "%1%2%3%4%5%99")
	addCorpusPlanSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, msg string) {
		e, payload := fuzzSchema(data)
		other, _ := fuzzSchema(append([]byte{0x01}, data...))
		other.Message = msg
		own, foreign := new(tdh.JSONPlan), tdh.NewJSONPlan(other)
		var dec tdh.Decoder
		for _, ptr := range []int{4, 8} {
			d, _ := dec.Decode(e, payload, ptr)
			// A plan renders the inserts of its own schema's message
			// only: each message is the schema's in turn.
			for _, m := range []string{msg, insertsMessage(len(e.Properties))} {
				e.Message = m
				own.Reset(e)
				checkPlan(t, own, d, m)
			}
			checkPlan(t, own, d, msg)
			checkPlan(t, foreign, d, msg)
			checkPlan(t, nil, d, msg)
		}
	})
}

// TestJSONPlanCorpus renders every decoded event of the corpus through
// the plan of its schema and without: data JSON, maps, the schema's
// message and a message inserting every property.
func TestJSONPlanCorpus(t *testing.T) {
	paths := etltest.CorpusTraces(t)
	planned := 0
	var inserts tdh.JSONPlan
	plans := map[*tdh.Event]*tdh.JSONPlan{}
	eachCorpusDecoded(t, paths, func(d *tdh.Decoded) {
		s := d.Schema
		pl := plans[s]
		if pl == nil {
			pl = tdh.NewJSONPlan(s)
			plans[s] = pl
		}
		checkPlan(t, pl, d, s.Message)
		checkPlan(t, pl, d, insertsMessage(len(s.Properties)))
		// A plan renders the inserts of its own schema's message only:
		// the schema's message is, for a moment, one inserting every
		// property.
		msg := s.Message
		s.Message = insertsMessage(len(s.Properties))
		inserts.Reset(s)
		checkPlan(t, &inserts, d, s.Message)
		s.Message = msg
		planned++
	})
	if planned == 0 {
		t.Fatal("no decoded event in the corpus")
	}
	t.Logf("%d events of %d files rendered through plans", planned, len(paths))
}

// TestJSONPlanDoesNotAllocate: a plan renders without allocating, and a
// plan reset for a schema of no more properties reuses its storage.
func TestJSONPlanDoesNotAllocate(t *testing.T) {
	e, payload := typicalRenderEvent()
	e.Message = insertsMessage(len(e.Properties))
	var dec tdh.Decoder
	d, err := dec.Decode(e, payload, 8)
	if err != nil {
		t.Fatal(err)
	}
	pl := tdh.NewJSONPlan(e)
	buf, scratch := make([]byte, 0, 4096), make([]byte, 0, 4096)
	if n := testing.AllocsPerRun(100, func() {
		buf, _ = pl.AppendDataJSONErr(buf[:0], d)
		buf, _ = pl.AppendMapsJSON(buf, d)
		buf = pl.AppendMessage(buf, e.Message, d)
		buf, scratch = pl.AppendMessageJSON(buf, scratch, e.Message, d)
	}); n != 0 {
		t.Errorf("rendering through a plan: %v allocations", n)
	}
	if n := testing.AllocsPerRun(100, func() { pl.Reset(e) }); n != 0 {
		t.Errorf("Reset: %v allocations", n)
	}
}
