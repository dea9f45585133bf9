package pipeline

import (
	"reflect"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

func TestParseFilters(t *testing.T) {
	r, err := ParseRanges("1, 5-9,0x10", 65535)
	if err != nil || !reflect.DeepEqual(r, []Range{{1, 1}, {5, 9}, {16, 16}}) {
		t.Errorf("ParseRanges = %v, %v", r, err)
	}
	for _, bad := range []string{"", "x", "9-5", "70000"} {
		if _, err := ParseRanges(bad, 65535); err == nil {
			t.Errorf("ParseRanges(%q) accepted", bad)
		}
	}
	l, err := ParseLevels("error-warning,verbose")
	if err != nil || !reflect.DeepEqual(l, []Range{{2, 3}, {5, 5}}) {
		t.Errorf("ParseLevels = %v, %v", l, err)
	}
	// A wrong level name says which names there are, with their values.
	if _, err := ParseLevels("loud"); err == nil || !strings.Contains(err.Error(), "critical 1, error 2, warning 3, info 4, verbose 5") {
		t.Errorf("ParseLevels(loud): %v", err)
	}
	for name, want := range levelNames { // every name the message lists, and the synonyms
		if l, err := ParseLevels(strings.ToUpper(name)); err != nil || l[0].Lo != want {
			t.Errorf("ParseLevels(%s) = %v, %v", name, l, err)
		}
	}
	p, _ := ParseProvider("{4D4F80D9-C8BD-4D73-BB5B-19C90402C5AC}")
	if !p.IsGUID || p.GUID.String() != "4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac" {
		t.Errorf("ParseProvider GUID = %+v", p)
	}
	if p, _ := ParseProvider("Microsoft-Windows-PktMon"); p.IsGUID || p.Name != "Microsoft-Windows-PktMon" {
		t.Errorf("ParseProvider name = %+v", p)
	}
	ids, err := ParseUint32List("4, 0x10")
	if err != nil || !reflect.DeepEqual(ids, []uint32{4, 16}) {
		t.Errorf("ParseUint32List = %v, %v", ids, err)
	}
	const start = 132247862638609634
	if ft, err := ParseTime("+2.5s", start); err != nil || ft != start+25_000_000 {
		t.Errorf("relative: %d, %v", ft, err)
	}
	if ft, err := ParseTime("2020-01-29T15:44:23.8609634Z", 0); err != nil || ft != start {
		t.Errorf("absolute: %d, %v", ft, err)
	}
	if _, err := ParseTime("yesterday", 0); err == nil {
		t.Error("bad time accepted")
	}
}

func TestFilterMatch(t *testing.T) {
	ev := &etl.Event{Header: etl.HeaderEvent64, ProcessID: 10, ThreadID: 20, Time: 1000,
		Descriptor: etl.EventDescriptor{ID: 7, Level: 4, Keyword: 0x30}}
	s := &tdh.Event{ProviderName: "Prov-A"}
	kern := &etl.Event{Header: etl.HeaderSystem64, ProviderID: etl.EventTraceGUID}
	for _, c := range []struct {
		f    Filter
		want bool
	}{
		{Filter{}, true},
		{Filter{EventIDs: []Range{{1, 6}}}, false},
		{Filter{EventIDs: []Range{{7, 7}}, Levels: []Range{{1, 4}}}, true},
		{Filter{Levels: []Range{{5, 5}}}, false},
		{Filter{KeywordsAny: 0x10}, true},
		{Filter{KeywordsAny: 0x1}, false},
		{Filter{KeywordsAll: 0x31}, false},
		{Filter{PIDs: []uint32{10}, TIDs: []uint32{20}}, true},
		{Filter{TIDs: []uint32{21}}, false},
		{Filter{Start: 1000, End: 1001}, true},
		{Filter{Start: 1001}, false},
		{Filter{End: 1000}, false},
	} {
		if got := c.f.MatchHeader(ev); got != c.want {
			t.Errorf("%+v: %v, want %v", c.f, got, c.want)
		}
	}
	byName := Filter{Providers: []Provider{{Name: "prov-a"}}}
	if !byName.NeedsSchema() || !byName.MatchSchema(ev, s) || byName.MatchSchema(ev, nil) {
		t.Error("provider name include")
	}
	excl := Filter{ExcludeProviders: []Provider{{Name: "Prov-A"}}}
	if excl.MatchSchema(ev, s) || !excl.MatchSchema(ev, nil) {
		t.Error("provider exclude")
	}
	kernel := Filter{Providers: []Provider{{GUID: etl.SystemTraceControlGUID, IsGUID: true}}}
	if !kernel.MatchSchema(kern, nil) || kernel.MatchSchema(ev, s) {
		t.Error("kernel provider GUID")
	}
	kname := Filter{Providers: []Provider{{Name: "msnt_systemtrace"}}}
	if !kname.MatchSchema(kern, nil) {
		t.Error("kernel provider name")
	}
	cls := Filter{Providers: []Provider{{GUID: etl.EventTraceGUID, IsGUID: true}}}
	if !cls.MatchSchema(kern, nil) {
		t.Error("event GUID")
	}
}
