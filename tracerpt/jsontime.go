package tracerpt

import (
	"encoding/binary"
	"math/bits"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/decimal"
	"github.com/etwkit/etw/tdh"
)

// The JSON dump's times of an event ("time", "time_ns", "rel_ms",
// "filetime", "raw_timestamp") share their digits: a FILETIME is the
// seconds since 1601 and seven digits of 100 ns, "time_ns" the seconds
// since 1970 and the same seven digits followed by "00". Events come in
// time order, several per millisecond, so an encoder keeps two texts
// with room for the seven digits, rendered for the last event:
//
//	head `{"time":"2006-01-02T15:04:05.fffffffZ","time_ns":"1136214245fffffff00","rel_ms":1234`
//	tail `,"filetime":"12790687845fffffff","raw_timestamp":201163`
//
// the head for a second and a millisecond of "rel_ms", the tail for a
// second and the raw timestamp but its last four digits. An event of the
// same second and milliseconds copies them, stores its seven digits
// three times and appends the fraction of "rel_ms" and the last four
// digits of "raw_timestamp".

// jsonTimes is what an encoder keeps of the last event's times.
type jsonTimes struct {
	second jsonSecond

	head             []byte // valid when not nil
	headSec          int64  // FILETIME seconds of head
	headMs           uint64 // |rel_ms| without its fraction (0 without "rel_ms")
	headNeg          bool   // rel_ms < 0
	timeFrac, nsFrac int    // where the seven digits go in head

	tail    []byte // valid when not nil
	tailSec int64  // FILETIME seconds of tail
	tailRaw int64  // raw timestamp / 10^4 in tail; 0: none (rendered whole)
	ftFrac  int    // where the seven digits go in tail
}

// jsonSecond is the text of one second the head and tail are made from:
// the start of the object up to the fraction of "time", and the text
// before the fraction of "time_ns" and of "filetime".
type jsonSecond struct {
	sec      int64  // FILETIME seconds; valid when time is not nil
	time     []byte // `{"time":"2006-01-02T15:04:05.`
	unixNano []byte // `Z","time_ns":"1136214245`
	filetime []byte // `,"filetime":"12790687845`
}

// minStringSecond is the first second since 1970 from which "time_ns"
// (above 2^53) and "filetime" are decimal strings whatever the fraction
// (the integer rule, docs/cli.md).
const minStringSecond = tdh.MaxExactJSONInt/1_000_000_000 + 1

// minKeptFiletime is the first FILETIME whose times an encoder renders
// from the text it keeps: the start of second minStringSecond.
const minKeptFiletime = filetimeEpochDelta + minStringSecond*10_000_000

// filetimeSecond is the number of 100 ns units in a second.
const filetimeSecond = 10_000_000

// appendTimes appends the start of the object, from `{"time":` to the
// value of "raw_timestamp", for FILETIME ft and raw timestamp raw: what
// appendTimesJSON gives.
func (e *JSONEncoder) appendTimes(b []byte, ft, raw int64) []byte {
	if e.oneShot || ft < minKeptFiletime {
		// One event, or a time before April 1970 (no trace's): from scratch.
		return e.appendTimesJSON(b, ft, raw)
	}
	t := &e.times
	sec := ft / filetimeSecond
	frac := uint32(ft - sec*filetimeSecond)
	var ms, msFrac uint64
	var neg bool
	if e.start != 0 {
		d := etl.SubTime(ft, e.start)
		u := uint64(d)
		if d < 0 {
			neg, u = true, -u
		}
		ms = u / 10000
		msFrac = u - ms*10000
	}
	if t.head == nil || t.headSec != sec || t.headMs != ms || t.headNeg != neg {
		t.makeHead(sec, ms, neg, e.start != 0)
	}
	// The seven digits, and the byte after them in the word.
	digits := decimal.Digits8(frac) >> 8
	n := len(b)
	b = append(b, t.head...)
	binary.LittleEndian.PutUint64(b[n+t.timeFrac:], digits|'Z'<<56)
	binary.LittleEndian.PutUint64(b[n+t.nsFrac:], digits|'0'<<56)
	if msFrac != 0 {
		b = appendMillisFraction(b, uint32(msFrac))
	}
	var rawHigh int64
	if raw >= 10000 && raw <= tdh.MaxExactJSONInt {
		rawHigh = raw / 10000
	}
	if t.tail == nil || t.tailSec != sec || t.tailRaw != rawHigh {
		t.makeTail(sec, rawHigh)
	}
	n = len(b)
	b = append(b, t.tail...)
	binary.LittleEndian.PutUint64(b[n+t.ftFrac:], digits|'"'<<56)
	if rawHigh == 0 {
		return tdh.AppendJSONInt(b, raw)
	}
	return binary.LittleEndian.AppendUint32(b, decimal.Digits4(uint32(raw-rawHigh*10000)))
}

// appendTimesJSON is appendTimes from scratch: the times rendered each by
// its own function.
func (e *JSONEncoder) appendTimesJSON(b []byte, ft, raw int64) []byte {
	b = append(b, `{"time":"`...)
	b = appendRFC3339(b, ft)
	b = append(b, `","time_ns":`...)
	b = appendUnixNanos(b, ft)
	if e.start != 0 {
		b = append(b, `,"rel_ms":`...)
		b = appendRelMillis(b, etl.SubTime(ft, e.start))
	}
	b = append(b, `,"filetime":`...)
	b = tdh.AppendJSONInt(b, ft)
	b = append(b, `,"raw_timestamp":`...)
	return tdh.AppendJSONInt(b, raw)
}

// setSecond makes the text of FILETIME second sec (at least
// minKeptFiletime's) current.
func (t *jsonTimes) setSecond(sec int64) {
	s := &t.second
	if s.time != nil && s.sec == sec {
		return
	}
	unix := sec - filetimeEpochDelta/filetimeSecond
	s.sec = sec
	s.time = appendDateTime7(append(s.time[:0], `{"time":"`...), unix, 0)
	s.time = s.time[:len(s.time)-7] // up to the '.'
	s.unixNano = decimal.AppendInt(append(s.unixNano[:0], `Z","time_ns":"`...), unix)
	s.filetime = decimal.AppendInt(append(s.filetime[:0], `,"filetime":"`...), sec)
}

// sevenZeros stands for the seven digits of a fraction in the kept text.
const sevenZeros = "0000000"

// makeHead makes the head for FILETIME second sec and "rel_ms" whose
// integer part is ms (negative with neg), or none without rel.
func (t *jsonTimes) makeHead(sec int64, ms uint64, neg, rel bool) {
	t.setSecond(sec)
	s := &t.second
	h := append(t.head[:0], s.time...)
	t.timeFrac = len(h)
	h = append(append(h, sevenZeros...), s.unixNano...)
	t.nsFrac = len(h)
	h = append(append(h, sevenZeros...), `00"`...)
	if rel {
		h = append(h, `,"rel_ms":`...)
		if neg {
			h = append(h, '-')
		}
		h = decimal.AppendUint(h, ms)
	}
	t.head, t.headSec, t.headMs, t.headNeg = h, sec, ms, neg
}

// makeTail makes the tail for FILETIME second sec and a raw timestamp
// whose digits but the last four are those of rawHigh (0: none).
func (t *jsonTimes) makeTail(sec, rawHigh int64) {
	t.setSecond(sec)
	h := append(t.tail[:0], t.second.filetime...)
	t.ftFrac = len(h)
	h = append(append(h, sevenZeros...), `","raw_timestamp":`...)
	if rawHigh != 0 {
		h = decimal.AppendInt(h, rawHigh)
	}
	t.tail, t.tailSec, t.tailRaw = h, sec, rawHigh
}

// appendMillisFraction appends the fraction f (1 to 9999, in 100 ns) of
// a millisecond as appendRelMillis does: a point and up to four digits,
// without trailing zeros.
func appendMillisFraction(b []byte, f uint32) []byte {
	w := decimal.Digits4(f)
	zeros := bits.LeadingZeros32(w^0x30303030) / 8 // trailing '0' digits
	b = binary.LittleEndian.AppendUint32(append(b, '.'), w)
	return b[:len(b)-zeros]
}
