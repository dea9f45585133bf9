package analysis

import (
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// TestFieldSetMatchesGet checks that a fieldSet finds what Decoded.Get
// does, property by property, for every event of net.4.5.2 (schemas
// changing from event to event, more than two at a time) and for
// payloads cut short (partial decodings), with names the schemas have,
// names that differ only by case, and names they lack.
func TestFieldSetMatchesGet(t *testing.T) {
	files := openCorpus(t, netFile)
	dec := clrDecoder(t)
	f := newFieldSet("MethodStartAddress", "methodname", "StackKey", "StackProcess", "stackthread",
		"ProcessId", "ThreadId", "FileName", "Key", "NoSuchProperty")
	r := etl.NewReader(files, nil)
	defer r.Close()
	var checked, found, partial int
	check := func(d *tdh.Decoded) {
		for i, name := range f.names {
			want, wok := d.Get(name)
			got, gok := f.get(d, i)
			if got != want || gok != wok {
				t.Fatalf("event %d: field %q: fieldSet gives %p %v, Get %p %v", checked, name, got, gok, want, wok)
			}
			if wok {
				found++
			}
			want2, wok2 := d.Uint(name)
			got2, gok2 := f.uint(d, i)
			if got2 != want2 || gok2 != wok2 {
				t.Fatalf("event %d: field %q: fieldSet's Uint %d %v, Get's %d %v", checked, name, got2, gok2, want2, wok2)
			}
		}
		checked++
	}
	for r.Next() {
		ev := r.Event()
		if d := decoded(dec.Decode(ev)); d != nil {
			check(d)
		}
		if len(ev.UserData) > 12 && checked%7 == 0 {
			// A payload cut short: the properties past its end are not
			// decoded.
			cut := *ev
			cut.UserData = ev.UserData[:len(ev.UserData)/2]
			if d := decoded(dec.Decode(&cut)); d != nil {
				check(d)
				partial++
			}
		}
	}
	if checked < 100000 || found < 50000 || partial < 1000 {
		t.Fatalf("checked %d decodings (%d partial), %d properties found: fewer than expected", checked, partial, found)
	}
	t.Logf("checked %d decodings (%d cut short), %d properties found", checked, partial, found)
}

// TestFieldSetNoSchema: a decoding without a schema (one made by hand)
// is Get's to answer, also for a new fieldSet, whose recent schemas are
// nil.
func TestFieldSetNoSchema(t *testing.T) {
	f := newFieldSet("ProcessId")
	d := &tdh.Decoded{}
	want, wok := d.Get("ProcessId")
	if got, ok := f.get(d, 0); got != want || ok != wok {
		t.Fatalf("fieldSet gives %p %v, Get %p %v", got, ok, want, wok)
	}
}
