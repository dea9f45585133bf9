package tracerpt

import (
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/decimal"
	"github.com/etwkit/etw/tdh"
)

// The JSON dump's times of an event ("time", "time_ns", "rel_ms",
// "filetime") share their digits up to the second: a FILETIME is the
// seconds since 1601 and seven digits of 100 ns, "time_ns" the seconds
// since 1970 and the same seven digits followed by "00". An encoder keeps
// what comes before the seven digits rendered for the second of the last
// event (events come in time order), and writes the seven digits three
// times.

// jsonSecond is what the encoder keeps of one second: the start of the
// object up to the fraction of "time", and the text before the fraction
// of "time_ns" and of "filetime".
type jsonSecond struct {
	sec      int64  // Unix seconds; valid when time is not nil
	time     []byte // `{"time":"2006-01-02T15:04:05.`
	unixNano []byte // `Z","time_ns":"1136214245`
	filetime []byte // `,"filetime":"12790687845`
}

// minStringSecond is the first second since 1970 from which "time_ns"
// (above 2^53) and "filetime" are decimal strings whatever the fraction
// (the integer rule, docs/cli.md).
const minStringSecond = tdh.MaxExactJSONInt/1_000_000_000 + 1

// appendTimes appends the start of the object, from `{"time":` to the
// value of "filetime", for FILETIME ft: what appendRFC3339, appendUnixNanos,
// appendRelMillis and tdh.AppendJSONInt give.
func (e *JSONEncoder) appendTimes(b []byte, ft int64) []byte {
	var utc timeFormatter
	utc.utc = true
	sec, frac, _ := utc.split(ft)
	if e.oneShot || sec < minStringSecond || ft < filetimeEpochDelta {
		// One event, or a time before April 1970 (no trace's): from scratch.
		b = append(b, `{"time":"`...)
		b = appendRFC3339(b, ft)
		b = append(b, `","time_ns":`...)
		b = appendUnixNanos(b, ft)
		b = e.appendRel(b, ft)
		b = append(b, `,"filetime":`...)
		return tdh.AppendJSONInt(b, ft)
	}
	s := &e.second
	if s.time == nil || s.sec != sec {
		s.sec = sec
		s.time = appendDateTime7(append(s.time[:0], `{"time":"`...), sec, 0)
		s.time = s.time[:len(s.time)-7] // up to the '.'
		s.unixNano = decimal.AppendInt(append(s.unixNano[:0], `Z","time_ns":"`...), sec)
		s.filetime = decimal.AppendInt(append(s.filetime[:0], `,"filetime":"`...), sec+filetimeEpochDelta/10_000_000)
	}
	var digits [7]byte
	for i, f := 6, frac; i >= 0; i-- {
		digits[i] = byte('0' + f%10)
		f /= 10
	}
	b = append(b, s.time...)
	b = append(b, digits[:]...)
	b = append(b, s.unixNano...)
	b = append(b, digits[:]...)
	b = append(b, `00"`...)
	b = e.appendRel(b, ft)
	b = append(b, s.filetime...)
	b = append(b, digits[:]...)
	return append(b, '"')
}

// appendRel appends the "rel_ms" key of FILETIME ft when the encoder
// knows the trace's start.
func (e *JSONEncoder) appendRel(b []byte, ft int64) []byte {
	if e.start == 0 {
		return b
	}
	b = append(b, `,"rel_ms":`...)
	return appendRelMillis(b, etl.SubTime(ft, e.start))
}
