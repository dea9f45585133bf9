package etl

import (
	"cmp"
	"math"
	"runtime"
	"slices"

	"github.com/etwkit/etw/internal/panicerr"
)

// Order selects the order in which a [Reader] delivers events.
type Order int

const (
	// TimeOrder delivers events in timestamp order across every buffer,
	// processor and file, as ProcessTrace does. Events with equal
	// timestamps keep file order (file, then buffer, then record).
	TimeOrder Order = iota
	// FileOrder delivers the records as they are stored: file by file,
	// buffer by buffer.
	FileOrder
)

// ReaderOptions configures a [Reader]. The zero value means time order with
// one buffer loader per CPU.
type ReaderOptions struct {
	Order Order
	// Workers bounds how many buffers are read and decompressed at once.
	// 0 means runtime.GOMAXPROCS(0); more than MaxWorkers means
	// MaxWorkers.
	Workers int
	// Prepare, if set, is called by the loaders with each buffer they
	// load, on their goroutines (see [Preparer]).
	Prepare Preparer
	// Windows, in time order without Prepare, lets the merge hold a
	// window of 8-16 KiB of each stream's XPRESS buffer instead of the
	// whole buffer when the inputs are several and their streams many
	// (over 16), so that memory does not grow with the number of
	// inputs; it costs about one more decode of each compressed buffer.
	// The events and errors are the same.
	Windows bool
	// ReadAhead, if more than 0, is how many buffers the merge loads
	// ahead of need at most (0: max(16, 4 × Workers)), and how many
	// loads one stream may have queued (never fewer than Workers + 1,
	// the default; see NewReader):
	// a pass whose reading goroutine is at times slower than the
	// loaders (a Prepare that leaves it much to do per event) lets them
	// go further ahead then, in what the loaders would otherwise do
	// later while it waits. It costs up to that many buffers in memory;
	// more than MaxReadAhead means MaxReadAhead. A merge of several
	// files in windows (Windows) keeps its own, smaller bound instead.
	ReadAhead int
}

// MaxReadAhead bounds ReaderOptions.ReadAhead (each buffer loaded ahead
// may hold up to 16 MiB).
const MaxReadAhead = 256

// MaxWorkers bounds ReaderOptions.Workers (each worker may hold a buffer
// of up to 16 MiB).
const MaxWorkers = 256

// Reader delivers the events of one or more files.
//
// In [TimeOrder] the buffers of each file are grouped by the processor that
// filled them; inside such a stream, buffers follow their flush timestamps
// and events follow each other in time. A k-way merge over the streams of
// all files then yields one time-ordered sequence, holding one buffer per
// stream in memory whatever the file size (or a window of it, see
// [ReaderOptions].Windows), and at most max(16, 4 × Workers)
// more across the streams (up to Workers + 1 per stream): buffers are read
// and decompressed ahead of use by up to Workers goroutines, the buffer the
// merge will want first first. A merge of several files over 16 streams
// learns where each stream begins and then lets its buffer go until its
// events come up, so that files recorded one after another do not all
// hold buffers at once.
//
// Damaged buffers and records do not stop the reader: each is recorded in
// [Reader.Errors] and reading goes on with what the undamaged fields
// support (the next record of the buffer, or the next buffer).
type Reader struct {
	files   []*File
	index   [][]BufferInfo // of each file
	order   Order
	depth   int
	loads   loaders
	streams []*stream
	heap    []*stream
	last    *stream
	errs    ErrorList
	chans   []chan loadResult // received from, for the next loads
	started bool
	closed  bool
	// ahead counts the buffers loaded ahead of need (a stream's next
	// buffer while it reads its current one), at most maxAhead: with
	// many inputs the streams are many, and each holding two buffers
	// would make memory grow with the number of files.
	ahead, maxAhead int
	// onNeed counts the loads made once the merge had started because a
	// stream needed its next buffer and none was coming: each one the
	// reading goroutine waits for from its start (the tests' measure of
	// how well the loads ahead were placed).
	onNeed int
	// window is the bytes of records a stream holds at most when the
	// streams are many, or 0 (window.go); src is scratch for the
	// compressed bytes read again for the windows.
	window int
	src    []byte
	// park is set when the merge starts with its streams' first buffers
	// let go (park.go: several inputs, many streams), starting while it
	// does; spare holds the windows of parked streams, for the next
	// window made.
	park, starting bool
	spare          []*window
	// bar is the earliest event time on the heap's second level
	// (heap[1], heap[2]) in time order: the stream on top, moved to its
	// next event, stays on top without sifting it down when that event
	// is earlier, as it is for most records (a processor's buffer holds
	// runs of events before another processor's next one). It is
	// math.MaxInt64 with one stream left and math.MinInt64 (always
	// sift) in file order.
	bar int64
}

type bufRef struct {
	file  *File
	index int // file position in the reader
	info  BufferInfo
}

// bufPos names a buffer in a stream's list: the file's position in the
// reader and the buffer's in the file's index (8 bytes a buffer, not a
// copy of its BufferInfo: the lists of long traces and many inputs hold
// every buffer of every file).
type bufPos struct{ file, buf int32 }

// ref returns the buffer p names.
func (r *Reader) ref(p bufPos) bufRef {
	return bufRef{r.files[p.file], int(p.file), r.index[p.file][p.buf]}
}

type loadResult struct {
	buf  *Buffer
	prep Prepared
	err  error
	ck   checkpoint // with Reader.window, where the merge's windows resume decoding
}

type stream struct {
	bufs   []bufPos
	next   int   // next buffer to request
	due    int64 // when the merge will want bufs[next] (Reader.need), once a load has started
	queue  []chan loadResult
	early  int // the last of queue, loads made ahead of need (Reader.ahead)
	cur    *Buffer
	curRef bufRef
	rr     RecordReader
	ev     Event
	ok     bool // ev holds an event
	prep   Prepared
	nth    int // ev's position among the events of cur
	win    *window
	// parked: the stream's first event is known (ev's time and
	// position, which order the heap) but its buffer was let go (park);
	// bufs[next] is that buffer, loaded again when the event comes up.
	// loadErr: its current buffer's load reported an error (such a
	// buffer is not parked: loading it again would report it twice).
	// again: bufs[next] was parked, and its next load loads it again.
	parked, loadErr, again bool
}

// NewReader returns a reader over the events of files. The files must stay
// open while the reader is used.
func NewReader(files []*File, opts *ReaderOptions) *Reader {
	var o ReaderOptions
	if opts != nil {
		o = *opts
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	o.Workers = min(o.Workers, MaxWorkers)
	// Each stream has up to depth loads in flight: with one, a processor
	// that logs alone for a while (samples) had its buffers loaded one at
	// a time while the other workers had nothing to do.
	r := &Reader{files: files, order: o.Order, depth: o.Workers + 1, maxAhead: max(16, 4*o.Workers)}
	if o.ReadAhead > 0 {
		ahead := min(o.ReadAhead, MaxReadAhead)
		r.maxAhead, r.depth = ahead, max(ahead, r.depth)
	}
	r.loads = loaders{n: o.Workers, prep: o.Prepare}
	r.index = make([][]BufferInfo, len(files))
	for i, f := range files {
		r.index[i] = f.Buffers()
	}
	if o.Order == FileOrder {
		s := &stream{}
		for i := range files {
			for j := range r.index[i] {
				s.bufs = append(s.bufs, bufPos{int32(i), int32(j)})
			}
		}
		r.streams = append(r.streams, s)
	} else {
		for i := range files {
			byCPU := map[int]*stream{}
			var order []int
			for j, bi := range r.index[i] {
				// Header buffers form a stream of their own: their events
				// carry the session start time, which may be later than
				// events a processor logged before a new file began.
				p := int(bi.Header.Processor())
				if bi.Header.Type == BufferTypeHeader {
					p = -1
				}
				s := byCPU[p]
				if s == nil {
					s = &stream{}
					byCPU[p] = s
					order = append(order, p)
				}
				s.bufs = append(s.bufs, bufPos{int32(i), int32(j)})
			}
			idx := r.index[i]
			for _, p := range order {
				s := byCPU[p]
				slices.SortStableFunc(s.bufs, func(a, b bufPos) int {
					return cmp.Compare(idx[a.buf].Header.TimeStamp, idx[b.buf].Header.TimeStamp)
				})
				r.streams = append(r.streams, s)
			}
		}
	}
	for _, f := range files {
		r.errs = append(r.errs, f.IndexErrors()...)
	}
	r.park = o.Order == TimeOrder && len(files) > 1 && len(r.streams) > parkStreams
	if o.Windows && o.Order == TimeOrder && o.Prepare == nil && len(files) > 1 {
		r.window = windowSize(len(r.streams))
		r.loads.at = r.window
		if r.window > 0 {
			// A buffer loaded ahead is whole (64 KiB), a stream's
			// window a fraction of it: fewer of them.
			r.maxAhead = windowAhead
		}
	}
	return r
}

// Errors returns the problems met so far: damaged buffer headers, buffers
// that could not be read or decompressed, and damaged records. Each is a
// [*FormatError] naming the file offset.
func (r *Reader) Errors() ErrorList { return r.errs }

// Streams returns how many streams of buffers the reader reads: in time
// order one per processor of each file (and one of each file's header
// buffers), in file order one. The merge holds each stream's current
// buffer (at most: a parked stream holds none, park.go), and its loads
// ahead besides.
func (r *Reader) Streams() int { return len(r.streams) }

// Event returns the current event, valid until the next call to
// [Reader.Next] or [Reader.Close].
func (r *Reader) Event() *Event {
	if r.last == nil {
		return nil
	}
	return &r.last.ev
}

// Next advances to the next event and reports whether there is one.
func (r *Reader) Next() bool {
	if s := r.last; s != nil { // started and not closed (Close clears last)
		if r.advance(s) {
			if s.ev.Time < r.bar {
				return true // s stays on top (see bar)
			}
			r.down(0)
		} else {
			r.dropTop()
		}
		r.setBar()
	} else if r.closed {
		return false
	} else if !r.started {
		r.started = true
		if r.park {
			r.startParked()
		} else {
			// Each stream's first buffer, needed now, then those ahead.
			for _, s := range r.streams {
				if s.next < len(s.bufs) {
					r.start(s)
				}
			}
			if len(r.streams) > 0 {
				r.fill(r.streams[0])
			}
			for _, s := range r.streams {
				if r.advance(s) {
					r.heap = append(r.heap, s)
				}
			}
		}
		for i := len(r.heap)/2 - 1; i >= 0; i-- {
			r.down(i)
		}
		r.setBar()
	}
	for len(r.heap) > 0 && r.heap[0].parked {
		r.unpark()
	}
	if len(r.heap) == 0 {
		r.last = nil
		return false
	}
	r.last = r.heap[0]
	return true
}

// request starts the load s needs now, when it has no buffer coming and
// is not about to read one (ahead false), then the loads ahead of need
// that the bound allows (fill).
func (r *Reader) request(s *stream, ahead bool) {
	if !ahead && len(s.queue) == 0 && s.next < len(s.bufs) {
		r.onNeed++
		r.start(s)
	}
	r.fill(s)
}

// fill starts loads ahead of need. With one stream (File order, or one
// processor's buffers) they fill s's queue up to depth. With several they
// stop at maxAhead across the streams, and go to the buffers the merge
// will want soonest (need), whatever their stream: a stream that took
// them in turn held the bound for buffers it wanted much later (a quiet
// processor's), and the busy one's buffers were loaded one at a time
// while the reading goroutine waited for each (stats of net.4.5.2: one
// stream held 31 of the 32 for the first third of the trace).
func (r *Reader) fill(s *stream) {
	if r.starting {
		return // startParked: every stream's first load comes first
	}
	if len(r.streams) <= 1 {
		for s != nil && len(s.queue) < r.depth && s.next < len(s.bufs) {
			r.start(s)
		}
		return
	}
	for r.ahead < r.maxAhead {
		t := r.soonest()
		if t == nil {
			return
		}
		r.ahead++
		t.early++
		r.start(t)
	}
}

// soonest returns the stream whose next buffer to load the merge will
// want first, among those with fewer than depth loads queued; nil if
// none has a buffer left to load. Ties go to the first stream. Every
// stream has started a load (its due is set): the merge starts each
// stream's first before it loads ahead.
func (r *Reader) soonest() *stream {
	var best *stream
	var when int64
	for _, t := range r.streams {
		if len(t.queue) >= r.depth || t.next >= len(t.bufs) {
			continue
		}
		if best == nil || t.due < when {
			best, when = t, t.due
		}
	}
	return best
}

// start queues the load of s's next buffer.
func (r *Reader) start(s *stream) {
	var ch chan loadResult
	if k := len(r.chans); k > 0 {
		ch = r.chans[k-1]
		r.chans = r.chans[:k-1]
	} else {
		ch = make(chan loadResult, 1)
	}
	need := r.need(s, s.next)
	if s.again {
		need = s.due // a parked buffer: its first event's time (park.go)
	}
	r.loads.add(r.ref(s.bufs[s.next]), need, ch, s.again)
	s.again = false
	s.queue = append(s.queue, ch)
	s.next++
	if s.next < len(s.bufs) {
		s.due = r.need(s, s.next)
	}
}

// load reads ref's buffer (hook: reported to the file's read hook); a
// panic while reading becomes the result's error, a [*panicerr.Error]
// that advance raises again on the reading goroutine.
func load(ref bufRef, prep Preparer, at int, hook bool) (res loadResult) {
	defer panicerr.Recover(&res.err)
	if at > 0 {
		res.ck.at = at
		res.buf, res.err = ref.file.readBuffer(ref.info, &res.ck, hook)
	} else {
		res.buf, res.err = ref.file.readBuffer(ref.info, nil, hook)
	}
	if prep != nil && res.buf != nil {
		res.prep = prep.Prepare(res.buf, ref.index)
	}
	return res
}

// advance moves s to its next event, loading buffers as needed.
func (r *Reader) advance(s *stream) bool {
	for {
		if s.cur != nil {
			if s.rr.Next(&s.ev) {
				s.ev.File = s.curRef.index
				s.ok = true
				s.nth++
				return true
			}
			if s.win != nil && s.win.on && r.nextWindow(s) {
				continue
			}
			r.errs = append(r.errs, s.rr.Errors()...)
			s.release()
		}
		if len(s.queue) == 0 {
			r.request(s, false) // what maxAhead held back, if anything
		}
		if len(s.queue) == 0 {
			s.ok = false
			s.win = nil // the stream has ended
			return false
		}
		res := <-s.queue[0]
		// The loads made ahead of need are the queue's last s.early: the
		// one before them (if any) was needed when it was asked for, and
		// its arrival leaves the bound's count as it is. Counting it off
		// instead let the streams' queues grow past maxAhead whenever many
		// streams moved to their next buffer together (the 16 copies of a
		// trace: up to 105 buffers queued, 5 MB).
		early := len(s.queue) == s.early
		// The loader sent its one result: the channel is free again. The
		// queue moves down (it holds at most depth channels) rather than
		// along, which would make it grow a new array every few loads.
		r.chans = append(r.chans, s.queue[0])
		n := copy(s.queue, s.queue[1:])
		s.queue[n] = nil
		s.queue = s.queue[:n]
		if early {
			s.early--
			r.ahead--
		}
		s.curRef = r.ref(s.bufs[s.next-len(s.queue)-1])
		r.request(s, true)
		if pe, ok := res.err.(*panicerr.Error); ok {
			// Raised again where the caller can recover it.
			panic(pe)
		}
		if res.err != nil {
			r.errs = append(r.errs, res.err)
		}
		s.loadErr = res.err != nil
		if res.buf != nil {
			s.cur, s.prep, s.nth = res.buf, res.prep, -1
			s.rr.Reset(s.cur)
			if r.window > 0 && res.err == nil {
				r.startWindow(s, &res.ck)
			}
		}
	}
}

func (r *Reader) less(a, b *stream) bool {
	x, y := &a.ev, &b.ev
	if r.order == TimeOrder && x.Time != y.Time {
		return x.Time < y.Time
	}
	if x.File != y.File {
		return x.File < y.File
	}
	if x.BufferIndex != y.BufferIndex {
		return x.BufferIndex < y.BufferIndex
	}
	return x.RecordOffset < y.RecordOffset
}

// setBar sets r.bar from the heap's second level.
func (r *Reader) setBar() {
	h := r.heap
	switch {
	case len(h) < 2:
		r.bar = math.MaxInt64
	case r.order != TimeOrder:
		r.bar = math.MinInt64
	case len(h) == 2:
		r.bar = h[1].ev.Time
	default:
		r.bar = min(h[1].ev.Time, h[2].ev.Time)
	}
}

// dropTop removes the stream on top of the heap (its events are over).
func (r *Reader) dropTop() {
	n := len(r.heap) - 1
	r.heap[0] = r.heap[n]
	r.heap = r.heap[:n]
	if n > 0 {
		r.down(0)
	}
}

func (r *Reader) down(i int) {
	h := r.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if rc := l + 1; rc < n && r.less(h[rc], h[l]) {
			m = rc
		}
		if !r.less(h[m], h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// Close stops the reader and returns its buffers to the pool. It does not
// close the files.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	r.loads.cancel()
	for _, s := range r.streams {
		if s.cur != nil {
			s.release()
		}
		for _, ch := range s.queue {
			res := <-ch
			if res.prep != nil {
				res.prep.Release()
			}
			if res.buf != nil {
				res.buf.Release()
			}
		}
		s.queue = nil
	}
	r.heap, r.last = nil, nil
	return nil
}
