package etl_test

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// The rule (docs/format.md, "Time"): a raw QPC or cycle-counter timestamp t
// becomes
//
//	FILETIME = StartTime + (t − T0) × 10⁷ / frequency
//
// with the quotient truncated toward zero, never rounded. Every Windows-made
// golden file uses a 10 MHz QPC, where the division is exact, so only clocks
// of other frequencies can tell truncation from rounding; these tests use
// them.

// wantFileTime is the documented formula in arbitrary precision: big.Int's
// Quo truncates toward zero.
func wantFileTime(start, t0, t int64, freq uint64) int64 {
	n := new(big.Int).Mul(new(big.Int).Sub(big.NewInt(t), big.NewInt(t0)), big.NewInt(1e7))
	n.Quo(n, new(big.Int).SetUint64(freq))
	return n.Add(n, big.NewInt(start)).Int64()
}

// TestClockTruncatesTowardZero checks Clock.FileTime against the formula for
// QPC frequencies seen on real machines (Windows 7's 2.3 MHz, the ACPI PM
// timer's 3.58 MHz, the HPET's 14.3 MHz, ARM64's 24 MHz) and for cycle
// counters, on both sides of T0, including the offsets where rounding half
// up (or flooring negative offsets) would give another FILETIME.
func TestClockTruncatesTowardZero(t *testing.T) {
	const start, t0 = 132247862638609634, 80000000000
	clocks := []struct {
		name string
		h    etl.LogfileHeader
		freq uint64
	}{
		{"qpc-3Hz", etl.LogfileHeader{ReservedFlags: 1, PerfFreq: 3}, 3},
		{"qpc-2.3MHz", etl.LogfileHeader{ReservedFlags: 1, PerfFreq: 2337949}, 2337949},
		{"qpc-3.58MHz", etl.LogfileHeader{ReservedFlags: 1, PerfFreq: 3579545}, 3579545},
		{"qpc-14.3MHz", etl.LogfileHeader{ReservedFlags: 1, PerfFreq: 14318180}, 14318180},
		{"qpc-24MHz", etl.LogfileHeader{ReservedFlags: 1, PerfFreq: 24000000}, 24000000},
		{"cycle-2995MHz", etl.LogfileHeader{ReservedFlags: 3, CPUSpeedMHz: 2995}, 2995000000},
		{"cycle-3000MHz", etl.LogfileHeader{ReservedFlags: 3, CPUSpeedMHz: 3000}, 3000000000},
	}
	rng := rand.New(rand.NewPCG(18, 1))
	for _, c := range clocks {
		h := c.h
		h.StartTime, h.HeaderTimestamp = start, t0
		clk := etl.NewClock(&h)
		f := int64(c.freq)
		offsets := []int64{0, 1, -1, 2, -2, f / 2, f/2 + 1, f - 1, -(f - 1), f, -f, 3*f + 1, 3600*f - 1, -(3600*f - 1), 400 * 86400 * f}
		for range 2000 {
			offsets = append(offsets, rng.Int64N(7*86400*f)-86400*f)
		}
		roundingDiffers := 0
		for _, d := range offsets {
			want := wantFileTime(start, t0, t0+d, c.freq)
			if got := clk.FileTime(t0 + d); got != want {
				t.Errorf("%s: raw T0%+d → FILETIME %d, want %d = StartTime + trunc(%d × 10⁷ / %d) (off by %d)",
					c.name, d, got, want, d, c.freq, got-want)
				break
			}
			// Count the offsets where rounding would give another result:
			// |d × 10⁷| mod freq ≥ freq/2.
			rem := new(big.Int).Rem(new(big.Int).Mul(big.NewInt(d), big.NewInt(1e7)), new(big.Int).SetUint64(c.freq))
			if 2*rem.Abs(rem).Uint64() >= c.freq {
				roundingDiffers++
			}
		}
		if roundingDiffers == 0 {
			t.Errorf("%s: no offset tells truncation from rounding; the test cannot fail", c.name)
		}
	}
}

// TestClockTruncatesThroughReader: the same rule on events read from a
// file, worked by hand.
func TestClockTruncatesThroughReader(t *testing.T) {
	const start, t0 = 132247862638609634, 80000000000
	cases := []struct {
		name  string
		setup func(*etl.LogfileHeader)
		raw   int64
		want  int64
	}{
		// 1 × 10⁷ / 3579545 = 2.79…: 2, not 3.
		{"qpc-3.58MHz", func(h *etl.LogfileHeader) { h.PerfFreq = 3579545 }, t0 + 1, start + 2},
		// (2337949 × 5 + 2) × 10⁷ / 2337949 = 50000008.55…: 50000008, not 50000009.
		{"qpc-2.3MHz", func(h *etl.LogfileHeader) { h.PerfFreq = 2337949 }, t0 + 2337949*5 + 2, start + 50000008},
		// −2 × 10⁷ / 3 = −6666666.67: −6666666 (toward zero), not −6666667.
		{"qpc-3Hz-before-start", func(h *etl.LogfileHeader) { h.PerfFreq = 3 }, t0 - 2, start - 6666666},
		// (2995 × 10⁶ + 200) × 10⁷ / (2995 × 10⁶) = 10⁷ + 0.67: 10⁷, not 10⁷ + 1.
		{"cycle-2995MHz", func(h *etl.LogfileHeader) { h.ReservedFlags = 3; h.CPUSpeedMHz = 2995 }, t0 + 2995000000 + 200, start + 10000000},
	}
	for _, c := range cases {
		tf := etltest.NewFile(1024, true)
		tf.TLH.StartTime, tf.TLH.HeaderTimestamp = start, t0
		c.setup(&tf.TLH)
		tf.AddBuffer(0, c.raw, ev64(1, c.raw))
		f := open(t, tf.Bytes())
		evs, _ := collect(t, []*etl.File{f}, etl.FileOrder)
		if got := evs[len(evs)-1].Time; got != c.want {
			t.Errorf("%s: FILETIME %d, want %d (off by %d)", c.name, got, c.want, got-c.want)
		}
	}
}
