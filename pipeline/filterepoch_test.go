package pipeline

import (
	"testing"

	"github.com/etwkit/etw/etl"
)

// TestFilterAtEpoch: --end 1601-01-01T00:00:00Z is FILETIME 0, a bound
// like any other (it was taken as "no bound").
func TestFilterAtEpoch(t *testing.T) {
	end, err := ParseTime("1601-01-01T00:00:00Z", 0)
	if err != nil || end != 0 {
		t.Fatalf("ParseTime: %d %v", end, err)
	}
	ev := &etl.Event{Time: 133245763580175449}
	if f := (&Filter{End: end, HasEnd: true}); f.MatchHeader(ev) {
		t.Error("an event after the epoch passes --end at the epoch")
	}
	if f := (&Filter{End: end}); !f.MatchHeader(ev) {
		t.Error("End 0 without HasEnd is no bound")
	}
	if f := (&Filter{Start: 0, HasStart: true}); !f.MatchHeader(ev) {
		t.Error("--start at the epoch drops events")
	}
}

// TestFilterNone: None keeps nothing, whatever else the filter says.
func TestFilterNone(t *testing.T) {
	ev := &etl.Event{Time: 133245763580175449}
	if f := (&Filter{None: true}); f.MatchHeader(ev) {
		t.Error("Filter.None passes an event")
	}
	if f := (&Filter{}); !f.MatchHeader(ev) {
		t.Error("the zero Filter drops an event")
	}
}
