package tracerpt

import (
	"math"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// TestJSONTimesSaturate: "time_ns" and "rel_ms" of a FILETIME at the ends
// of the int64 range keep their sign instead of wrapping (an event whose
// timestamp was damaged to 2^63 once had a year -27208 "time" beside a
// positive "rel_ms", and "time_ns" 0).
func TestJSONTimesSaturate(t *testing.T) {
	const start = 132247862638609634 // 2020-01-29T15:44:23.8609634Z
	if got := string(appendUnixNanos(nil, start+10000)); got != `"1580312663861963400"` {
		t.Errorf("time_ns of a normal time: %s", got)
	}
	if got := string(appendRelMillis(nil, etl.SubTime(start+10000, start))); got != "1" {
		t.Errorf("rel_ms of a normal time: %s", got)
	}
	for _, c := range []struct {
		ft   int64
		sign string
	}{{math.MinInt64, "-"}, {math.MinInt64 + 1, "-"}, {-1, "-"}, {math.MaxInt64, ""}} {
		ns := strings.Trim(string(appendUnixNanos(nil, c.ft)), `"`)
		rel := string(appendRelMillis(nil, etl.SubTime(c.ft, start)))
		if strings.HasPrefix(ns, "-") != (c.sign == "-") || strings.HasPrefix(rel, "-") != (c.sign == "-") || ns == "0" {
			t.Errorf("FILETIME %d: time_ns %s, rel_ms %s; want sign %q", c.ft, ns, rel, c.sign)
		}
	}
}

// TestJSONTimesBySecond: the times an encoder writes from the text it
// keeps per second are those written from scratch, at the integer rule's
// bound, at the ends of a second and of the int64 range, in time order
// and not.
func TestJSONTimesBySecond(t *testing.T) {
	const start = 132247862638609634
	bound := int64(filetimeEpochDelta + minStringSecond*10_000_000)
	var fts []int64
	for _, base := range []int64{bound, start, math.MaxInt64 - 10_000_000, filetimeEpochDelta, 0} {
		for _, d := range []int64{-10_000_001, -10_000_000, -1, 0, 1, 9_999_999, 10_000_000, 10_000_001, 123_456_789} {
			fts = append(fts, base+d)
		}
	}
	fts = append(fts, math.MaxInt64, math.MinInt64, -1, start+5, start+3, start-10_000_000)
	for _, s := range []int64{0, start} {
		e := &JSONEncoder{start: s}
		for _, ft := range fts {
			want := string((&JSONEncoder{start: s, oneShot: true}).appendTimes([]byte("x"), ft))
			for range 2 { // from the second's text, made and kept
				if got := string(e.appendTimes([]byte("x"), ft)); got != want {
					t.Fatalf("FILETIME %d, start %d:\n got %s\nwant %s", ft, s, got, want)
				}
			}
		}
	}
}

// timesFromScratch is the start of an event's object up to "filetime"'s
// value, each time rendered by its own function, with no encoder.
func timesFromScratch(ft, start int64) string {
	b := appendRFC3339([]byte(`{"time":"`), ft)
	b = appendUnixNanos(append(b, `","time_ns":`...), ft)
	if start != 0 {
		b = appendRelMillis(append(b, `,"rel_ms":`...), etl.SubTime(ft, start))
	}
	return string(tdh.AppendJSONInt(append(b, `,"filetime":`...), ft))
}

// FuzzJSONTimes renders three FILETIMEs in a row through one encoder
// (the text kept for a second reused, or made again) and compares each
// with its times rendered from scratch.
func FuzzJSONTimes(f *testing.F) {
	const t0 = 132247862638609634
	f.Add(int64(t0), int64(t0+9_999_999), int64(t0+10_000_000), int64(t0))
	f.Add(int64(0), int64(filetimeEpochDelta-1), int64(filetimeEpochDelta), int64(0))
	f.Add(int64(math.MinInt64), int64(math.MaxInt64), int64(-1), int64(t0))
	f.Add(int64(filetimeEpochDelta+minStringSecond*10_000_000-1), int64(filetimeEpochDelta+minStringSecond*10_000_000), int64(t0), int64(1))
	f.Fuzz(func(t *testing.T, a, b, c, start int64) {
		e := &JSONEncoder{start: start}
		for _, ft := range []int64{a, b, c, a} {
			if got, want := string(e.appendTimes(nil, ft)), timesFromScratch(ft, start); got != want {
				t.Fatalf("FILETIME %d, start %d:\n got %s\nwant %s", ft, start, got, want)
			}
		}
	})
}
