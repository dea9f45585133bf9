package analysis

import (
	"cmp"
	"slices"
	"time"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// CPUUsage counts weights (CPU samples) by process and time bucket: the
// CPU utilisation over time by process. Its size is the number of
// processes times the axis's buckets, whatever the number of samples.
type CPUUsage struct {
	// Axis is the time dimension of the counts.
	Axis  TimeAxis
	procs map[procKey]*CPUSeries
	total int64
	iv    SampleIntervals
}

// CPUSeries is one process's weights per bucket of a [CPUUsage] axis.
type CPUSeries struct {
	PID uint32 `json:"pid"`
	// Name is the process's root frame in a [Profile]: "Name (pid)".
	Name    string  `json:"name"`
	Samples []int64 `json:"samples"`
	// Total is the sum of Samples.
	Total int64 `json:"-"`
	key   procKey
}

// NewCPUUsage returns an empty CPUUsage on axis.
func NewCPUUsage(axis TimeAxis) *CPUUsage {
	return &CPUUsage{Axis: axis, procs: map[procKey]*CPUSeries{}}
}

// Add counts the event of a with weight w in its process and time
// bucket. It does nothing when the axis has no buckets.
func (u *CPUUsage) Add(a *Annotation, w int64) {
	b := u.Axis.Bucket(a.ft)
	if b < 0 {
		return
	}
	k := procKey{a.Process, a.PID}
	s := u.procs[k]
	if s == nil {
		s = &CPUSeries{PID: a.PID, Name: ProcessName(a.Process, a.PID), Samples: make([]int64, u.Axis.Buckets), key: k}
		u.procs[k] = s
	}
	s.Samples[b] += w
	s.Total += w
	u.total += w
}

// Total is the sum of the weights added.
func (u *CPUUsage) Total() int64 { return u.total }

// Series returns the processes' series, the most weight first (then by
// pid and name, then by the process records' creation).
func (u *CPUUsage) Series() []CPUSeries {
	out := make([]CPUSeries, 0, len(u.procs))
	for _, s := range u.procs {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b CPUSeries) int {
		return cmp.Or(cmp.Compare(b.Total, a.Total), cmp.Compare(a.PID, b.PID), cmp.Compare(a.Name, b.Name), a.key.compare(b.key))
	})
	return out
}

// Observe reads the sampling interval from a PerfInfo CollectionStart,
// CollectionEnd or SetInterval event (res its decoding); it ignores other
// events.
func (u *CPUUsage) Observe(ev *etl.Event, res *decode.Result) {
	if res != nil {
		u.iv.Observe(ev, res)
	}
}

// Interval returns the sampling interval of the timer profile source at
// the start of the axis and the event it came from ("PerfInfo/...");
// 0 and "" when the trace logs none (nothing is assumed).
func (u *CPUUsage) Interval() (time.Duration, string) {
	if len(u.iv.tl.changes) == 0 {
		return 0, ""
	}
	return time.Duration(u.iv.tl.at(u.Axis.Start)), u.iv.tl.from
}
