package etl_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/etwkit/etw/etl"
)

func TestTimeToFiletime(t *testing.T) {
	for _, c := range []struct {
		name string
		t    time.Time
		ft   int64
	}{
		{"FILETIME epoch", time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC), 0},
		{"Unix epoch", time.Unix(0, 0), 116444736000000000},
		{"100 ns", time.Date(1601, 1, 1, 0, 0, 0, 100, time.UTC), 1},
		{"truncated", time.Date(1601, 1, 1, 0, 0, 0, 199, time.UTC), 1},
		{"a trace", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), 133485408000000000},
		{"another zone", time.Date(2024, 1, 1, 1, 0, 0, 0, time.FixedZone("CET", 3600)), 133485408000000000},
		{"before 1601", time.Date(1600, 12, 31, 23, 59, 59, 999_999_900, time.UTC), -1},
		{"before 1601, truncated to the past", time.Date(1600, 12, 31, 23, 59, 59, 999_999_950, time.UTC), -1},
		{"zero time", time.Time{}, -504911232000000000},
		{"largest", time.Date(30828, 9, 14, 2, 48, 5, 477_580_700, time.UTC), math.MaxInt64},
		{"largest, truncated", time.Date(30828, 9, 14, 2, 48, 5, 477_580_799, time.UTC), math.MaxInt64},
		{"far future", time.Date(30828, 9, 14, 2, 48, 5, 477_580_800, time.UTC), math.MaxInt64},
		{"farther future", time.Date(1e6, 1, 1, 0, 0, 0, 0, time.UTC), math.MaxInt64},
		{"smallest + 1", time.Date(-27627, 4, 19, 21, 11, 54, 522_419_300, time.UTC), math.MinInt64 + 1},
		{"smallest", time.Date(-27627, 4, 19, 21, 11, 54, 522_419_200, time.UTC), math.MinInt64},
		{"far past", time.Date(-27627, 4, 19, 21, 11, 54, 522_419_199, time.UTC), math.MinInt64},
		{"farther past", time.Date(-1e6, 1, 1, 0, 0, 0, 0, time.UTC), math.MinInt64},
	} {
		if got := etl.TimeToFiletime(c.t); got != c.ft {
			t.Errorf("%s: TimeToFiletime(%v) = %d, want %d", c.name, c.t, got, c.ft)
		}
	}
}

// TestTimeToFiletimeRoundTrip: FiletimeToTime and TimeToFiletime are
// inverses, from before 1601 to the far future, and agree with the Unix
// time.
func TestTimeToFiletimeRoundTrip(t *testing.T) {
	fts := []int64{0, 1, -1, 116444736000000000, 133485408000000000, 1e7 - 1, -1e7, -1e7 + 1, -504911232000000000,
		math.MaxInt64, math.MaxInt64 - 1, math.MinInt64 + 116444736000000000, math.MinInt64, math.MinInt64 + 1}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		fts = append(fts, int64(rng.Uint64()), rng.Int64N(3e17)-1e17)
	}
	for _, ft := range fts {
		tm := etl.FiletimeToTime(ft)
		if got := etl.TimeToFiletime(tm); got != ft {
			t.Fatalf("TimeToFiletime(FiletimeToTime(%d) = %v) = %d", ft, tm, got)
		}
		if tm.Location() != time.UTC {
			t.Fatalf("FiletimeToTime(%d) in %v", ft, tm.Location())
		}
		// Within a tick of the time: FiletimeToTime(ft) ≤ t < FiletimeToTime(ft+1).
		if ft < math.MaxInt64 {
			next := tm.Add(99 * time.Nanosecond)
			if got := etl.TimeToFiletime(next); got != ft {
				t.Fatalf("TimeToFiletime(%v) = %d, want %d", next, got, ft)
			}
			if got := etl.TimeToFiletime(next.Add(time.Nanosecond)); got != ft+1 {
				t.Fatalf("TimeToFiletime(%v) = %d, want %d", next.Add(time.Nanosecond), got, ft+1)
			}
		}
	}
	// Unix times: the FILETIME counts 100 ns from 1601.
	for range 1000 {
		ns := rng.Int64()
		if rng.IntN(2) == 0 {
			ns = -ns
		}
		tm := time.Unix(0, ns)
		want := 116444736000000000 + ns/100
		if ns%100 < 0 {
			want--
		}
		if got := etl.TimeToFiletime(tm); got != want {
			t.Fatalf("TimeToFiletime(%v) = %d, want %d", tm, got, want)
		}
		if back := etl.FiletimeToTime(want); back.After(tm) || tm.Sub(back) >= 100 {
			t.Fatalf("FiletimeToTime(%d) = %v, not the tick of %v", want, back, tm)
		}
	}
}
