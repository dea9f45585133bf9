package etl

import (
	"math"
	"testing"
	"time"
)

func TestTimeMath(t *testing.T) {
	const maxI, minI = math.MaxInt64, math.MinInt64
	for _, c := range []struct{ a, b, sub, add int64 }{
		{5, 3, 2, 8},
		{-5, 3, -8, -2},
		{maxI, -1, maxI, maxI - 1},
		{minI, 1, minI, minI + 1},
		{1 << 62, -(1 << 62), maxI, 0},
		{-(1 << 62), 1 << 62, minI, 0},
		{maxI, minI, maxI, -1},
		{minI, maxI, minI, -1},
		{1 << 62, 1 << 62, 0, maxI},
		{minI, minI, 0, minI},
		{0, minI, maxI, minI},
	} {
		if got := SubTime(c.a, c.b); got != c.sub {
			t.Errorf("SubTime(%d, %d) = %d, want %d", c.a, c.b, got, c.sub)
		}
		if got := AddTime(c.a, c.b); got != c.add {
			t.Errorf("AddTime(%d, %d) = %d, want %d", c.a, c.b, got, c.add)
		}
	}
	if d := FiletimeDuration(0, 10); d != time.Microsecond {
		t.Errorf("10 ticks: %v", d)
	}
	if d := FiletimeDuration(minI, maxI); d != math.MaxInt64 {
		t.Errorf("whole range: %v", d)
	}
	if d := FiletimeDuration(maxI, minI); d != math.MinInt64 {
		t.Errorf("whole range backwards: %v", d)
	}
	ref := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := FiletimeUnixNano(TimeToFiletime(ref)); got != ref.UnixNano() {
		t.Errorf("FiletimeUnixNano: %d, want %d", got, ref.UnixNano())
	}
	if FiletimeUnixNano(maxI) != math.MaxInt64 || FiletimeUnixNano(minI) != math.MinInt64 || FiletimeUnixNano(1<<63-1) <= 0 {
		t.Error("FiletimeUnixNano does not saturate")
	}
}
