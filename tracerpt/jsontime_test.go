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
// keeps are those written from scratch, at the integer rule's bound, at
// the ends of a second, a minute, a day, a year and of the int64 range,
// in time order and not, with "rel_ms" on both sides of the start and of
// a millisecond, and raw timestamps on both sides of 10^4, of a multiple
// of 10^4 and of 2^53.
func TestJSONTimesBySecond(t *testing.T) {
	const start = 132247862638609634
	const newYear = 132223104000000000 // 2020-01-01T00:00:00Z
	bound := int64(minKeptFiletime)
	var fts []int64
	for _, base := range []int64{bound, start, newYear, newYear + 60*filetimeSecond, math.MaxInt64 - 10_000_000, filetimeEpochDelta, 0} {
		for _, d := range []int64{-10_000_001, -10_000_000, -10_001, -10_000, -9_999, -1, 0, 1, 9_999, 10_000, 10_001, 9_999_999, 10_000_000, 10_000_001, 123_456_789} {
			fts = append(fts, base+d)
		}
	}
	fts = append(fts, math.MaxInt64, math.MinInt64, -1, start+5, start+3, start-10_000_000, start+10_000, start+10_010, start+10_100, start+11_000)
	raws := []int64{0, 1, 9_999, 10_000, 10_001, 19_999, 20_000, 2011630498, 2011640000, tdh.MaxExactJSONInt, tdh.MaxExactJSONInt + 1, -1, -10_000, math.MinInt64, math.MaxInt64}
	for _, s := range []int64{0, start, newYear} {
		e := &JSONEncoder{start: s}
		for i, ft := range fts {
			for j := range 3 { // the raw timestamp changing with the time, or not
				raw := raws[(i+j*j)%len(raws)]
				want := string((&JSONEncoder{start: s, oneShot: true}).appendTimes([]byte("x"), ft, raw))
				if got := timesFromScratch(ft, raw, s); "x"+got != want {
					t.Fatalf("FILETIME %d, raw %d, start %d: one-shot encoder\n got %s\nwant x%s", ft, raw, s, want, got)
				}
				for range 2 { // from the kept text, made and kept
					if got := string(e.appendTimes([]byte("x"), ft, raw)); got != want {
						t.Fatalf("FILETIME %d, raw %d, start %d:\n got %s\nwant %s", ft, raw, s, got, want)
					}
				}
			}
		}
	}
}

// timesFromScratch is the start of an event's object up to
// "raw_timestamp"'s value, each time rendered by its own function, with no
// encoder.
func timesFromScratch(ft, raw, start int64) string {
	b := appendRFC3339([]byte(`{"time":"`), ft)
	b = appendUnixNanos(append(b, `","time_ns":`...), ft)
	if start != 0 {
		b = appendRelMillis(append(b, `,"rel_ms":`...), etl.SubTime(ft, start))
	}
	b = tdh.AppendJSONInt(append(b, `,"filetime":`...), ft)
	return string(tdh.AppendJSONInt(append(b, `,"raw_timestamp":`...), raw))
}

// FuzzJSONTimes renders three FILETIMEs and raw timestamps in a row
// through one encoder (the text kept reused, or made again) and compares
// each with its times rendered from scratch.
func FuzzJSONTimes(f *testing.F) {
	const t0 = 132247862638609634
	f.Add(int64(t0), int64(t0+9_999_999), int64(t0+10_000_000), int64(t0), int64(2011630498), int64(10_000))
	f.Add(int64(0), int64(filetimeEpochDelta-1), int64(filetimeEpochDelta), int64(0), int64(0), int64(-1))
	f.Add(int64(math.MinInt64), int64(math.MaxInt64), int64(-1), int64(t0), int64(math.MaxInt64), int64(tdh.MaxExactJSONInt))
	f.Add(int64(minKeptFiletime-1), int64(minKeptFiletime), int64(t0), int64(1), int64(9_999), int64(19_999))
	f.Fuzz(func(t *testing.T, a, b, c, start, r0, r1 int64) {
		e := &JSONEncoder{start: start}
		for i, ft := range []int64{a, b, c, a} {
			raw := r0
			if i%2 == 1 {
				raw = r1
			}
			if got, want := string(e.appendTimes(nil, ft, raw)), timesFromScratch(ft, raw, start); got != want {
				t.Fatalf("FILETIME %d, raw %d, start %d:\n got %s\nwant %s", ft, raw, start, got, want)
			}
		}
	})
}
