package pipeline

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// Filter selects the events to render. Every criterion that is set must
// hold; the zero Filter passes everything. Criteria on header fields are
// checked before decoding (MatchHeader); provider names need the schema
// (MatchSchema).
type Filter struct {
	// Providers keeps only events of these providers (any of them);
	// ExcludeProviders drops events of these.
	Providers        []Provider
	ExcludeProviders []Provider
	// EventNames keeps only events with one of these names (any of
	// them).
	EventNames []EventName
	// EventIDs and Levels keep events whose id or level is in one of the
	// ranges.
	EventIDs []Range
	Levels   []Range
	// KeywordsAny keeps events with at least one of these keyword bits;
	// KeywordsAll those with all of them.
	KeywordsAny, KeywordsAll uint64
	// PIDs and TIDs keep events of these processes and threads: the
	// ids of the event header, or, when Run annotates the events
	// (Config.Analysis), the ids the analysis model attributes them
	// (analysis.Annotation's PID and TID, which the JSON and Parquet dumps
	// show: a CPU sample belongs to the process of its sampled thread).
	PIDs, TIDs []uint32
	// Start and End bound the event time (FILETIME, UTC): Start ≤ time <
	// End. Zero means unbounded unless HasStart or HasEnd is set: a bound
	// at the FILETIME epoch (1601-01-01T00:00:00Z) is 0.
	Start, End       int64
	HasStart, HasEnd bool
	// MaxEvents stops after this many events are written (0: no limit).
	MaxEvents int
	// None keeps no event: a selection that matched nothing (image names
	// no process of the trace had). The output is written, empty.
	None bool
}

// Provider names a provider by GUID or by name ([decode.Provider]).
type Provider = decode.Provider

// EventName selects events by name, in the vocabulary that the dump's
// --event-name, stacks --event and relog share ([decode.EventName]:
// GC/Start, Microsoft-Windows-DotNETRuntime/GC/Start, GCStart_V1 and
// GCStart select the same events).
type EventName = decode.EventName

// ParseEventName parses PROVIDER/NAME (the provider by name or GUID) or
// NAME alone (any provider); see [decode.EventName].
func ParseEventName(s string) (EventName, error) { return decode.ParseEventName(s) }

// ParseProvider parses a provider given by GUID (with or without braces)
// or by name.
func ParseProvider(s string) (Provider, error) { return decode.ParseProvider(s) }

// Range is an inclusive range of numbers.
type Range struct{ Lo, Hi uint64 }

// levelNames are the winmeta.xml level names accepted by ParseLevels.
var levelNames = map[string]uint64{
	"always": 0, "logalways": 0, "critical": 1, "error": 2, "warning": 3, "warn": 3,
	"information": 4, "informational": 4, "info": 4, "verbose": 5,
}

// levelNameList lists the level names in the order of their values, for
// messages (the synonyms "logalways", "warn", "information" and
// "informational" are accepted too).
const levelNameList = "always 0, critical 1, error 2, warning 3, info 4, verbose 5"

// ParseRanges parses a comma-separated list of numbers and ranges
// ("1,5-9,0x10") no larger than max.
func ParseRanges(s string, max uint64) ([]Range, error) {
	return parseRanges(s, max, nil)
}

// ParseLevels is ParseRanges for levels, which may also be named
// (always, critical, error, warning, info, verbose; an error lists them).
func ParseLevels(s string) ([]Range, error) {
	return parseRanges(s, 255, levelNames)
}

func parseRanges(s string, max uint64, names map[string]uint64) ([]Range, error) {
	var out []Range
	num := func(t string) (uint64, error) {
		t = strings.TrimSpace(t)
		if n, ok := names[strings.ToLower(t)]; ok {
			return n, nil
		}
		n, err := strconv.ParseUint(t, 0, 64)
		if err != nil || n > max {
			if names != nil {
				return 0, fmt.Errorf("%q is not a level: a number from 0 to %d or a name (%s)", t, max, levelNameList)
			}
			return 0, fmt.Errorf("%q is not a number from 0 to %d", t, max)
		}
		return n, nil
	}
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := num(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = num(hi); err != nil {
				return nil, err
			}
			if b < a {
				return nil, fmt.Errorf("range %q is empty", part)
			}
		}
		out = append(out, Range{a, b})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no numbers in %q", s)
	}
	return out, nil
}

// ParseUint32List parses a comma-separated list of process or thread ids.
func ParseUint32List(s string) ([]uint32, error) {
	var out []uint32
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		n, err := strconv.ParseUint(part, 0, 32)
		if err != nil {
			return nil, fmt.Errorf("%q is not a 32-bit number", part)
		}
		out = append(out, uint32(n))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no numbers in %q", s)
	}
	return out, nil
}

// ParseTime parses a time bound: an absolute RFC 3339 time
// ("2021-06-01T16:11:00Z", fractions allowed) or a duration relative to
// the trace start ("+2.5s", "90s", "1m30s"). It returns a FILETIME.
func ParseTime(s string, traceStart int64) (int64, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return etl.TimeToFiletime(t), nil
	}
	if d, err := time.ParseDuration(strings.TrimPrefix(s, "+")); err == nil {
		return traceStart + int64(d/100), nil
	}
	return 0, fmt.Errorf("time %q: want RFC 3339 (2021-06-01T16:11:00Z) or a duration from the trace start (+30s)", s)
}

func inRanges(rs []Range, n uint64) bool {
	for _, r := range rs {
		if n >= r.Lo && n <= r.Hi {
			return true
		}
	}
	return false
}

func inList(l []uint32, n uint32) bool {
	for _, x := range l {
		if x == n {
			return true
		}
	}
	return false
}

// MatchHeader reports whether ev passes the criteria that need no schema:
// ids, levels, keywords, process and thread, time, and providers given by
// GUID.
func (f *Filter) MatchHeader(ev *etl.Event) bool {
	return f.matchHeader(ev, ev.ProcessID, ev.ThreadID)
}

// matchHeader is MatchHeader with the event's process and thread ids
// given: the header's or those the analysis attributes it.
func (f *Filter) matchHeader(ev *etl.Event, pid, tid uint32) bool {
	if f.None {
		return false
	}
	d := &ev.Descriptor
	if len(f.EventIDs) > 0 && !inRanges(f.EventIDs, uint64(d.ID)) {
		return false
	}
	if len(f.Levels) > 0 && !inRanges(f.Levels, uint64(d.Level)) {
		return false
	}
	if f.KeywordsAny != 0 && d.Keyword&f.KeywordsAny == 0 {
		return false
	}
	if f.KeywordsAll != 0 && d.Keyword&f.KeywordsAll != f.KeywordsAll {
		return false
	}
	if len(f.PIDs) > 0 && !inList(f.PIDs, pid) {
		return false
	}
	if len(f.TIDs) > 0 && !inList(f.TIDs, tid) {
		return false
	}
	if (f.Start != 0 || f.HasStart) && ev.Time < f.Start {
		return false
	}
	if (f.End != 0 || f.HasEnd) && ev.Time >= f.End {
		return false
	}
	return true
}

// NeedsSchema reports whether MatchSchema has anything to check.
func (f *Filter) NeedsSchema() bool {
	return len(f.Providers) > 0 || len(f.ExcludeProviders) > 0 || len(f.EventNames) > 0
}

// MatchSchema reports whether ev, whose schema is s (nil if unknown),
// passes the provider and event name criteria.
func (f *Filter) MatchSchema(ev *etl.Event, s *tdh.Event) bool {
	for i := range f.ExcludeProviders {
		if f.ExcludeProviders[i].Matches(ev, s) {
			return false
		}
	}
	if len(f.EventNames) > 0 {
		ok := false
		for i := range f.EventNames {
			if f.EventNames[i].Matches(ev, s) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if len(f.Providers) == 0 {
		return true
	}
	for i := range f.Providers {
		if f.Providers[i].Matches(ev, s) {
			return true
		}
	}
	return false
}
