package etl

import (
	"math"
	"sync"
)

// loaders runs a Reader's buffer loads on at most n goroutines, most
// urgent first: a load's need is the time (FILETIME) at which the merge
// will want the buffer, which is when its stream's previous buffer ends
// (the previous buffer's flush time), or now for a stream's first buffer.
// Loads in the order they were asked for would let buffers wanted later
// (a quiet processor's next one) delay the one the reading goroutine
// waits for (the busy processor's); in FileOrder the need is the order
// of the requests.
//
// The goroutines start with the first loads and end when none is
// pending: a Reader that is not read holds none.
type loaders struct {
	mu      sync.Mutex
	pending []*loadReq // a min-heap by (need, seq)
	running int
	n       int
	seq     int64
	prep    Preparer
}

type loadReq struct {
	ref  bufRef
	need int64
	seq  int64
	ch   chan loadResult
}

// add queues a load of ref and returns the channel its result comes on.
func (l *loaders) add(ref bufRef, need int64) chan loadResult {
	ch := make(chan loadResult, 1)
	l.mu.Lock()
	l.seq++
	l.pending = append(l.pending, &loadReq{ref: ref, need: need, seq: l.seq, ch: ch})
	l.up(len(l.pending) - 1)
	if l.running < l.n {
		l.running++
		go l.work()
	}
	l.mu.Unlock()
	return ch
}

// work loads pending buffers, most urgent first, until none is left.
func (l *loaders) work() {
	for {
		l.mu.Lock()
		if len(l.pending) == 0 {
			l.running--
			l.mu.Unlock()
			return
		}
		q := l.pending[0]
		n := len(l.pending) - 1
		l.pending[0] = l.pending[n]
		l.pending[n] = nil
		l.pending = l.pending[:n]
		l.down(0)
		l.mu.Unlock()
		q.ch <- load(q.ref, l.prep)
	}
}

func (l *loaders) less(i, j int) bool {
	a, b := l.pending[i], l.pending[j]
	if a.need != b.need {
		return a.need < b.need
	}
	return a.seq < b.seq
}

func (l *loaders) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !l.less(i, p) {
			return
		}
		l.pending[i], l.pending[p] = l.pending[p], l.pending[i]
		i = p
	}
}

func (l *loaders) down(i int) {
	h := l.pending
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if r := c + 1; r < len(h) && l.less(r, c) {
			c = r
		}
		if !l.less(c, i) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// need returns when the merge will want s's buffer k: when the buffer
// before it in the stream ends, as its flush time says; a stream's first
// buffer is wanted at once. In FileOrder the requests' order is the need.
func (r *Reader) need(s *stream, k int) int64 {
	if r.order == FileOrder || k == 0 {
		return math.MinInt64
	}
	prev := s.bufs[k-1]
	return r.files[prev.file].Clock.FileTime(r.index[prev.file][prev.buf].Header.TimeStamp)
}
