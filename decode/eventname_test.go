package decode_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// TestEventNameVocabulary: each reading of a name, on schemas of each
// kind, and what must not match.
func TestEventNameVocabulary(t *testing.T) {
	clr := uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")
	gc := &tdh.Event{Source: tdh.SourceManifest, ProviderName: "Microsoft-Windows-DotNETRuntime", ProviderGUID: clr, ID: 1, Version: 1,
		EventName: "GCStart_V1", TaskName: "GC", OpcodeName: "Start"}
	gcEv := &etl.Event{ProviderID: clr}
	gcEv.Descriptor.ID = 1
	proc := &tdh.Event{Source: tdh.SourceMOF, ProviderName: "MSNT_SystemTrace", EventName: "Process", OpcodeName: "Start"}
	procEv := &etl.Event{ProviderID: uuid.MustParse("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c"), Flags: etl.FlagClassicHeader}
	procEv.Descriptor.ID = 1
	for _, c := range []struct {
		spec    string
		ev      *etl.Event
		s       *tdh.Event
		matches bool
	}{
		{"GC/Start", gcEv, gc, true},
		{"gc/start", gcEv, gc, true},
		{"Microsoft-Windows-DotNETRuntime/GC/Start", gcEv, gc, true},
		{"{e13c0d23-ccbc-4e12-931b-d9cc2eee27e4}/GC/Start", gcEv, gc, true},
		{"GCStart_V1", gcEv, gc, true},
		{"GCStart", gcEv, gc, true},
		{"Microsoft-Windows-DotNETRuntime/GCStart", gcEv, gc, true},
		{"GC", gcEv, gc, true},
		{"Microsoft-Windows-DotNETRuntime/1", gcEv, gc, true},
		{"GCStart_V2", gcEv, gc, false},
		{"GCStart_V", gcEv, gc, false},
		{"GC/Stop", gcEv, gc, false},
		{"Start/GC", gcEv, gc, false},
		{"Microsoft-Windows-DotNETRuntimeRundown/GC/Start", gcEv, gc, false},
		{"Other/GCStart", gcEv, gc, false},
		{"GC/Start", gcEv, nil, false},
		{"Process/Start", procEv, proc, true},
		{"MSNT_SystemTrace/Process/Start", procEv, proc, true},
		{"{9e814aad-3204-11d2-9a82-006008a86939}/Process", procEv, proc, true},
		{"MSNT_SystemTrace/Process", procEv, proc, true},
		{"Process/End", procEv, proc, false},
		{"1", procEv, proc, false}, // classic events have no event id
	} {
		n, err := decode.ParseEventName(c.spec)
		if err != nil {
			t.Fatalf("%s: %v", c.spec, err)
		}
		if got := n.Matches(c.ev, c.s); got != c.matches {
			t.Errorf("%s on %v: %v, want %v", c.spec, c.s, got, c.matches)
		}
	}
	for _, bad := range []string{"", "/", "bad/", "/GC", "a//b", " "} {
		if _, err := decode.ParseEventName(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestEventNameMatchesAllocatesNothing: the filter runs once per event.
func TestEventNameMatchesAllocatesNothing(t *testing.T) {
	s := &tdh.Event{Source: tdh.SourceManifest, ProviderName: "Microsoft-Windows-DotNETRuntime", EventName: "GCAllocationTick_V3", TaskName: "GC", OpcodeName: "AllocationTick"}
	ev := &etl.Event{ProviderID: uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")}
	names := []string{"Microsoft-Windows-DotNETRuntime/GC/Start", "GCStart", "GCStart_V1", "Other/Thing", "10"}
	var parsed []decode.EventName
	for _, s := range names {
		n, err := decode.ParseEventName(s)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, n)
	}
	if a := testing.AllocsPerRun(100, func() {
		for i := range parsed {
			parsed[i].Matches(ev, s)
		}
	}); a != 0 {
		t.Errorf("%v allocations per match", a)
	}
}

func BenchmarkEventNameMatches(b *testing.B) {
	s := &tdh.Event{Source: tdh.SourceManifest, ProviderName: "Microsoft-Windows-DotNETRuntime", EventName: "GCAllocationTick_V3", TaskName: "GC", OpcodeName: "AllocationTick"}
	ev := &etl.Event{ProviderID: uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")}
	n, _ := decode.ParseEventName("Microsoft-Windows-DotNETRuntime/GC/Start")
	b.ReportAllocs()
	for b.Loop() {
		n.Matches(ev, s)
	}
}
