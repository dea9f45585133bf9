package etl

import (
	"math"
	"math/bits"
)

// Clock converts a file's raw timestamps to FILETIME (UTC), as ProcessTrace
// does when PROCESS_TRACE_MODE_RAW_TIMESTAMP is not set.
//
// The reference pair is the log-file header: its StartTime (a FILETIME) and
// the raw timestamp of the header event. A raw timestamp t becomes
//
//	StartTime + (t − T0) × 10⁷ / frequency
//
// where the frequency is PerfFreq for the QPC clock and CPUSpeedInMHz × 10⁶
// for the CPU cycle counter. System-time clocks already count FILETIME units
// and are passed through unchanged. The division truncates toward zero and
// is computed with 128-bit intermediates, so it is exact for any timestamp.
type Clock struct {
	Type      ClockType
	StartTime int64 // FILETIME of the reference point
	T0        int64 // raw timestamp of the reference point
	Freq      uint64
	identity  bool // raw values are already FILETIMEs
	unit      bool // Freq == 10⁷: offset only
}

// NewClock returns the clock of a log-file header.
func NewClock(h *LogfileHeader) Clock {
	c := Clock{Type: h.Clock(), StartTime: h.StartTime, T0: h.HeaderTimestamp}
	switch c.Type {
	case ClockQPC:
		if h.PerfFreq > 0 {
			c.Freq = uint64(h.PerfFreq)
		}
	case ClockCPUCycle:
		c.Freq = uint64(h.CPUSpeedMHz) * 1000000
	}
	switch {
	case c.Type == ClockSystemTime || c.Type == ClockRaw:
		c.identity = true
	case c.Freq == 0:
		// Unknown frequency: no sound conversion exists. Keep 100 ns
		// units relative to the reference point, as PerfView does with
		// a missing frequency in files from the same machine.
		c.Freq = 10000000
		c.unit = true
	case c.Freq == 10000000:
		c.unit = true
	}
	return c
}

// FileTime converts a raw timestamp to FILETIME.
func (c *Clock) FileTime(t int64) int64 {
	if c.unit { // inlined: 10 MHz clocks (QPC, mostly) only offset
		return c.StartTime + (t - c.T0)
	}
	return c.fileTime(t)
}

// fileTime is FileTime's every other clock.
func (c *Clock) fileTime(t int64) int64 {
	if c.identity {
		return t
	}
	d := t - c.T0
	neg := d < 0
	ud := uint64(d)
	if neg {
		ud = uint64(-d)
	}
	hi, lo := bits.Mul64(ud, 10000000)
	var q uint64 = math.MaxUint64
	if hi < c.Freq { // else the quotient overflows 64 bits
		q, _ = bits.Div64(hi, lo, c.Freq)
	}
	// Saturate instead of wrapping for absurd timestamps.
	if neg {
		if q > uint64(c.StartTime-math.MinInt64) {
			return math.MinInt64
		}
		return c.StartTime - int64(q)
	}
	if q > uint64(math.MaxInt64-c.StartTime) {
		return math.MaxInt64
	}
	return c.StartTime + int64(q)
}

// RawTimestamp converts a FILETIME back to the clock's raw timestamp, the
// inverse of [Clock.FileTime] rounded to the nearest tick: for clocks of
// 10 MHz or less, RawTimestamp(FileTime(t)) == t. It uses the same exact
// 128-bit arithmetic and saturates instead of wrapping.
func (c *Clock) RawTimestamp(ft int64) int64 {
	if c.identity {
		return ft
	}
	d := ft - c.StartTime
	if c.unit {
		return c.T0 + d
	}
	neg := d < 0
	ud := uint64(d)
	if neg {
		ud = uint64(-d)
	}
	hi, lo := bits.Mul64(ud, c.Freq)
	lo, carry := bits.Add64(lo, 5000000, 0) // round half up
	hi += carry
	var q uint64 = math.MaxUint64
	if hi < 10000000 {
		q, _ = bits.Div64(hi, lo, 10000000)
	}
	if neg {
		if q > uint64(c.T0-math.MinInt64) {
			return math.MinInt64
		}
		return c.T0 - int64(q)
	}
	if q > uint64(math.MaxInt64-c.T0) {
		return math.MaxInt64
	}
	return c.T0 + int64(q)
}
