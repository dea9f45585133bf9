package report

import "testing"

// TestStackedPeakAndNiceMax: the peak is of the sums over a bucket, ragged
// series included, and the axis top is a whole number of nice steps at
// or above it.
func TestStackedPeakAndNiceMax(t *testing.T) {
	series := [][]int64{{1, 5, 2}, {4, 1}, {0, 0, 0, 3}}
	if got := stackedPeak(series, func(s []int64) []int64 { return s }); got != 6 {
		t.Errorf("stackedPeak = %d, want 6", got)
	}
	if got := stackedPeak([][]int{}, func(s []int) []int { return s }); got != 0 {
		t.Errorf("stackedPeak of nothing = %d, want 0", got)
	}
	for _, c := range []struct{ peak, want float64 }{{6, 6}, {7, 8}, {1, 1}, {13, 15}, {0.3, 0.3}, {101, 150}} {
		if got := niceMax(c.peak); got < c.peak || got-c.want > 1e-9 || c.want-got > 1e-9 {
			t.Errorf("niceMax(%v) = %v, want %v", c.peak, got, c.want)
		}
	}
}
