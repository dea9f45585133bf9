package etl

import (
	"math"
	"time"
)

// A damaged record or header can hold any 64-bit time, so arithmetic on
// FILETIMEs and timestamps saturates at the int64 range instead of
// wrapping around: the functions below are the one place that does it.

// SubTime returns a − b, saturated to the int64 range: the distance
// between two FILETIMEs (or raw timestamps) in their units.
func SubTime(a, b int64) int64 {
	d := a - b
	// Overflow only when the signs differ and the result's sign is not a's.
	if (a < 0) != (b < 0) && (d < 0) != (a < 0) {
		if a < 0 {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	return d
}

// AddTime returns a + b, saturated to the int64 range.
func AddTime(a, b int64) int64 {
	s := a + b
	if (a < 0) == (b < 0) && (s < 0) != (a < 0) {
		if a < 0 {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	return s
}

// FiletimeDuration returns the time from FILETIME from to FILETIME to,
// saturated to the range of time.Duration (about 292 years either way).
func FiletimeDuration(from, to int64) time.Duration {
	d := SubTime(to, from)
	switch {
	case d > math.MaxInt64/100:
		return math.MaxInt64
	case d < math.MinInt64/100:
		return math.MinInt64
	}
	return time.Duration(d * 100)
}

// UnixEpochFiletime is 1970-01-01 UTC as a FILETIME.
const UnixEpochFiletime = unixToFiletimeSec * ticksPerSec

// FiletimeUnixNano returns FILETIME ft as nanoseconds since 1970-01-01
// UTC, saturated to the int64 range (time.Time.UnixNano is undefined
// outside it).
func FiletimeUnixNano(ft int64) int64 { return int64(FiletimeDuration(UnixEpochFiletime, ft)) }
