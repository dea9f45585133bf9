package analysis

import (
	"math"
	"testing"
)

func TestTimeAxisBucket(t *testing.T) {
	a := TimeAxis{Start: 1000, Width: 10, Buckets: 5}
	for _, c := range []struct {
		ft   int64
		want int
	}{
		{1000, 0}, {1009, 0}, {1010, 1}, {1049, 4}, {1050, 4}, {999, 0},
		{math.MinInt64, 0}, {math.MaxInt64, 4}, {1 << 62, 4}, {-1 << 62, 0},
	} {
		if got := a.Bucket(c.ft); got != c.want {
			t.Errorf("Bucket(%d) = %d, want %d", c.ft, got, c.want)
		}
	}
	// Extreme axes: from the earliest time, the whole range.
	wide := TimeAxis{Start: math.MinInt64, Width: math.MaxInt64, Buckets: 3}
	if got := wide.Bucket(math.MaxInt64); got != 2 {
		t.Errorf("wide axis: bucket %d", got)
	}
	if got := wide.Bucket(0); got != 1 {
		t.Errorf("wide axis at 0: bucket %d", got)
	}
	if (TimeAxis{}).Bucket(5) != -1 || (TimeAxis{Buckets: 3}).Bucket(5) != -1 {
		t.Error("an axis without buckets or width gave a bucket")
	}
}
