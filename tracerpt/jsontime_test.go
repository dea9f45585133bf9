package tracerpt

import (
	"math"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
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
