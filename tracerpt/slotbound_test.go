package tracerpt

import (
	"strings"
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// TestSlotsKeepNoLongText: with names from the trace longer than
// maxSlotText (a process's, a schema's), the JSON, XML and CSV encoders
// render each event as from scratch, again when the same names come
// back, and no slot of their caches keeps more than maxSlotText bytes.
func TestSlotsKeepNoLongText(t *testing.T) {
	long := strings.Repeat("n\x01", maxSlotText/2) // six bytes a control escaped in JSON
	s := &tdh.Event{ProviderName: long, ID: 10, EventName: long, TaskName: long, OpcodeName: long, LevelName: long, Source: tdh.SourceManifest, ChannelName: long}
	ev := &etl.Event{Header: etl.HeaderEvent64, ProcessID: 100, ThreadID: 7, Time: headNewYear, Timestamp: 1}
	res := &decode.Result{Schema: s, Exact: true}
	a := &analysis.Annotation{PID: 100, TID: 7, Process: &analysis.Process{PID: 100, ImageFileName: long}}
	j, x, c := &JSONEncoder{}, NewXMLEncoder(nil, nil), NewCSVEncoder(nil, nil)
	for round := range 2 {
		if got, want := string(j.appendHead(nil, ev, res, a)), string((&JSONEncoder{oneShot: true}).appendHead(nil, ev, res, a)); got != want {
			t.Fatalf("round %d: JSON\n got %s\nwant %s", round, got, want)
		}
		if got, want := string(x.appendSystem(nil, ev, s)), string(NewXMLEncoder(nil, nil).appendSystem(nil, ev, s)); got != want {
			t.Fatalf("round %d: XML\n got %s\nwant %s", round, got, want)
		}
		if got, want := string(c.appendColumns(nil, ev, s)), string(NewCSVEncoder(nil, nil).appendColumns(nil, ev, s)); got != want {
			t.Fatalf("round %d: CSV\n got %s\nwant %s", round, got, want)
		}
	}
	kept := 0
	check := func(name string, texts ...[]byte) {
		n := 0
		for _, b := range texts {
			n += len(b)
		}
		if n > maxSlotText {
			t.Errorf("%s: a slot keeps %d bytes", name, n)
		}
		if n > 0 {
			kept++
		}
	}
	for i := range 1 << slotBits {
		check("JSON names", j.names.slots[i].json)
		check("JSON threads", j.procs.slots[i].json)
		check("JSON headers", j.headers.slots[i].json)
		check("XML shapes", x.system.shapes[i].head, x.system.shapes[i].tail)
		check("CSV shapes", c.columns.shapes.slots[i].json)
	}
	if kept != 1 { // the JSON header keys, which hold no name
		t.Errorf("%d slots in use, want the JSON header keys' only", kept)
	}
}
