package analysis

import (
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// DiskResponseMS returns the latency of a DiskIo Read or Write event in
// milliseconds: its decoded HighResResponseTime, in ticks of the
// performance counter, over the PerfFreq of the file the event came from
// (files indexed by etl.Event.File). It reports false when d has no
// HighResResponseTime or that file logs no frequency.
func DiskResponseMS(ev *etl.Event, d *tdh.Decoded, files []*etl.File) (float64, bool) {
	rt, ok := d.Uint("HighResResponseTime")
	if !ok || ev.File < 0 || ev.File >= len(files) {
		return 0, false
	}
	f := files[ev.File].Header.PerfFreq
	if f <= 0 {
		return 0, false
	}
	return float64(rt) * 1000 / float64(f), true
}
