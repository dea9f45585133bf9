package main

import (
	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// observeIntervals returns a model-pass observer (traceOptions.observe)
// that records in iv the sampling intervals the trace logs, decoding only
// the events that log them.
func observeIntervals(iv *analysis.SampleIntervals) func(*etl.Event, *decode.Decoder) {
	return func(ev *etl.Event, dec *decode.Decoder) {
		if iv.NeedsDecode(ev) {
			iv.Observe(ev, dec.Decode(ev))
		}
	}
}
