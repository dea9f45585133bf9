package etl

import (
	"math"
	"time"
)

const (
	unixToFiletimeSec = 11644473600 // 1601-01-01 → 1970-01-01 in seconds
	ticksPerSec       = 10_000_000  // 100 ns intervals
)

// The times of the largest and the smallest FILETIME.
var (
	maxFiletimeTime = time.Unix(math.MaxInt64/ticksPerSec-unixToFiletimeSec, math.MaxInt64%ticksPerSec*100)
	minFiletimeTime = time.Unix(math.MinInt64/ticksPerSec-1-unixToFiletimeSec, (math.MinInt64%ticksPerSec+ticksPerSec)*100)
)

// TimeToFiletime converts t to a FILETIME (100 ns intervals since
// 1601-01-01 UTC), the inverse of [FiletimeToTime]: t is truncated to
// the 100 ns interval it falls in (towards the past, for times before
// 1601 too, which are negative). The zero [time.Time] (January 1, year
// 1) is such a time, not 0. Times beyond the FILETIMEs an int64 holds
// (before the year -27627 or after 30828) give [math.MinInt64] or
// [math.MaxInt64].
func TimeToFiletime(t time.Time) int64 {
	switch {
	case t.After(maxFiletimeTime):
		return math.MaxInt64
	case t.Before(minFiletimeTime):
		return math.MinInt64
	}
	// At the smallest seconds the product leaves the int64 range, and the
	// sum comes back in: signed overflow wraps, so the result is exact.
	return (t.Unix()+unixToFiletimeSec)*ticksPerSec + int64(t.Nanosecond()/100)
}
