// Package etlgen writes long traces out of real ones, for the scale tests
// and measurements (docs/performance.md): [Repeat] writes a trace's events
// n times over, each round shifted in time by the trace's span, with the
// trace's buffer size and compression, so that ×16 is a trace sixteen
// times as long rather than sixteen copies of the same instants (which is
// what relogging sixteen copies gives).
package etlgen

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/etl"
)

// Compression chooses whether the written buffers are compressed.
type Compression int

// The compression choices.
const (
	AsInput      Compression = iota // compressed if the input has a compressed buffer
	Compressed                      // XPRESS-compressed buffers
	Uncompressed                    // plain buffers
)

// Options say how [Repeat] writes.
type Options struct {
	// Rounds is how many times the events are written (at least 1).
	Rounds int
	// Compression of the written buffers (default: as the input).
	Compression Compression
	// BufferSize of the written buffers (0: the input's, or 64 KiB when
	// the input's is not a multiple of 1 KiB up to 16 MiB).
	BufferSize int
	// From is the first round's number: the output's rounds are the
	// input shifted by From, From+1, … spans, so that traces written
	// with From 0, 1, 2, … follow each other in time (an AutoLogger
	// sequence's inputs, for the scale measures).
	From int
}

// Result says what [Repeat] wrote.
type Result struct {
	Events     int   // events written (header-buffer events not counted)
	Span       int64 // raw clock ticks between rounds
	Compressed bool
	BufferSize int
}

// Repeat writes to w the events of f, opts.Rounds times: round k's raw
// timestamps are shifted by k times the span of f's events (the last
// timestamp minus the first, plus one tick), so the rounds follow each
// other in time. So are the timestamps that StackWalk events carry in
// their payloads, so that each round's stacks belong to its own events.
// The log-file header is f's, with the end time, the buffer count and
// the lost counts (multiplied by the rounds) completed on close when w is
// an io.WriterAt, such as an *os.File. Read errors of f (damaged buffers
// or records) are returned as an [etl.ErrorList] after everything
// readable was written. The span is learnt in a pass over f before
// anything is written: a trace without events, or whose rounds would
// overflow the clock, is an error and w gets nothing.
func Repeat(w io.Writer, f *etl.File, opts *Options) (Result, error) {
	n := max(opts.Rounds, 1)
	from := max(opts.From, 0)
	res := Result{Span: 1}
	if err := res.learnSpan(f, from+n); err != nil {
		return res, err
	}
	res.BufferSize = opts.BufferSize
	if res.BufferSize == 0 {
		res.BufferSize = int(f.Header.BufferSize)
		if res.BufferSize < 1024 || res.BufferSize > etl.MaxBufferSize || res.BufferSize%1024 != 0 {
			res.BufferSize = 64 << 10
		}
	}
	switch opts.Compression {
	case Compressed:
		res.Compressed = true
	case AsInput:
		res.Compressed = f.Header.LogFileMode&etl.ModeCompressed != 0
		for _, b := range f.Buffers() {
			res.Compressed = res.Compressed || b.Header.Compressed()
		}
	}
	h := f.Header
	h.EndTime, h.BuffersWritten = 0, 0
	h.EventsLost = uint32(min(int64(h.EventsLost)*int64(n), math.MaxUint32))
	h.BuffersLost = uint32(min(int64(h.BuffersLost)*int64(n), math.MaxUint32))
	h.LogFileMode &^= etl.ModeCircular | etl.ModeNewFile | etl.ModeAppend | etl.ModeCompressed | etl.ModeUseKBytesForSize
	h.MaximumFileSize = 0
	ew, err := etl.NewWriter(w, &etl.WriterOptions{Header: h, BufferSize: res.BufferSize, Compress: res.Compressed,
		Reorder: true, HeaderEvents: f.HeaderExtensions()})
	if err != nil {
		return res, err
	}
	var errs etl.ErrorList
	var payload []byte // a shifted StackWalk payload
	for k := range n {
		shift := int64(from+k) * res.Span
		r := etl.NewReader([]*etl.File{f}, &etl.ReaderOptions{Order: etl.TimeOrder})
		for r.Next() {
			ev := r.Event()
			if etl.IsLoggerHeaderEvent(ev) {
				continue
			}
			e := *ev
			e.Timestamp += shift
			if shift != 0 && stampsEvent(ev) {
				payload = append(payload[:0], ev.UserData...)
				binary.LittleEndian.PutUint64(payload, binary.LittleEndian.Uint64(payload)+uint64(shift))
				e.UserData = payload
			}
			if err := ew.WriteEvent(&e); err != nil {
				r.Close()
				return res, fmt.Errorf("etlgen: round %d, event %d: %w", k, res.Events, err)
			}
			res.Events++
		}
		if k == 0 {
			errs = append(errs, r.Errors()...)
		}
		r.Close()
	}
	if err := ew.Close(); err != nil {
		return res, err
	}
	return res, errs.Err()
}

// RepeatFile is [Repeat] into a new file at path (an existing one is
// replaced), removed when Repeat or closing it fails.
func RepeatFile(path string, f *etl.File, opts *Options) (Result, error) {
	o, err := os.Create(path)
	if err != nil {
		return Result{}, err
	}
	res, err := Repeat(o, f, opts)
	if cerr := o.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return res, err
}

// stampsEvent reports whether ev is a kernel StackWalk event whose
// payload begins with the raw timestamp of the event it belongs to
// (EventTimeStamp: the Stack event and the kernel and user stack keys),
// which each round shifts as it shifts ev's own, so that the rounds'
// stacks find their events.
func stampsEvent(ev *etl.Event) bool {
	if ev.Flags&etl.FlagClassicHeader == 0 || ev.ProviderID != catalog.StackWalkGUID || len(ev.UserData) < 8 {
		return false
	}
	switch ev.Descriptor.Opcode {
	case 32, 37, 38: // Stack, StackKeyKernel, StackKeyUser
		return true
	}
	return false
}

// learnSpan sets the span of rounds from a pass over f's events (the
// last raw timestamp minus the first, plus one tick), which n rounds must
// not overflow.
func (res *Result) learnSpan(f *etl.File, n int) error {
	var first, last int64
	r := etl.NewReader([]*etl.File{f}, &etl.ReaderOptions{Order: etl.TimeOrder})
	defer r.Close()
	seen := 0
	for r.Next() {
		if ev := r.Event(); !etl.IsLoggerHeaderEvent(ev) {
			if seen == 0 || ev.Timestamp < first {
				first = ev.Timestamp
			}
			if seen == 0 || ev.Timestamp > last {
				last = ev.Timestamp
			}
			seen++
		}
	}
	if seen == 0 {
		return errors.New("etlgen: the trace has no events to repeat")
	}
	if last > first {
		res.Span = last - first + 1
	}
	if res.Span > (math.MaxInt64-max(last, 0))/int64(n) {
		return fmt.Errorf("etlgen: %d rounds of %d ticks overflow the clock", n, res.Span)
	}
	return nil
}
