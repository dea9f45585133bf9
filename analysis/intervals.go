package analysis

import (
	"time"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// SampleIntervals is the sampling interval of the timer profile source
// over a trace, from its PerfInfo CollectionStart, CollectionEnd and
// SetInterval events, as [Model.CollectPprof] weighs CPU samples. Feed it
// the trace's events in time order ([SampleIntervals.Observe]; only those
// [SampleIntervals.NeedsDecode] reports need a decoding), then ask
// [SampleIntervals.At]. The zero value is ready to use.
type SampleIntervals struct {
	tl intervalTimeline
}

// NeedsDecode reports whether Observe reads the payload of ev.
func (s *SampleIntervals) NeedsDecode(ev *etl.Event) bool { return isIntervalEvent(ev) }

// Observe records ev if it sets or reports the timer's interval.
func (s *SampleIntervals) Observe(ev *etl.Event, res *decode.Result) {
	if isIntervalEvent(ev) {
		s.tl.observe(ev, res)
	}
}

// At returns the interval in effect at t: that of the last change at or
// before t, or the one before the first change; DefaultSampleInterval
// when the trace logs none.
func (s *SampleIntervals) At(t time.Time) time.Duration {
	if len(s.tl.changes) == 0 {
		return DefaultSampleInterval
	}
	return time.Duration(s.tl.at(timeFT(t)))
}

// From says where the intervals come from: the name of the first event
// observed ("PerfInfo/CollectionStart", …), or "default".
func (s *SampleIntervals) From() string {
	if s.tl.from == "" {
		return "default"
	}
	return s.tl.from
}

// Constant returns the sampling interval when the trace logs one and it
// is the same over the whole trace, so that a count of samples times it
// is their CPU time; ok is false when the trace logs none (nothing is
// assumed) or the interval changes (each sample then weighs the interval
// in effect at its time, as [Model.CollectPprof] weighs them).
func (s *SampleIntervals) Constant() (d time.Duration, ok bool) {
	if len(s.tl.changes) == 0 {
		return 0, false
	}
	v := s.tl.changes[0].before
	for _, c := range s.tl.changes {
		if c.before != v || c.after != v {
			return 0, false
		}
	}
	return time.Duration(v), true
}
